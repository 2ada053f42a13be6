// HttpServer against a fake Db on a loopback port: what the server does on
// its own when the Db misbehaves (throws, fails), independent of storage.

#include <gtest/gtest.h>
#include <httplib.h>

#include <stdexcept>
#include <thread>

#include "common/env.h"
#include "common/json_util.h"
#include "server/server.h"
#include "skald/db.h"

namespace skald {
namespace {

// A Db whose Stat throws and whose other operations fail with a chosen Status.
class FakeDb : public Db {
 public:
  Status failure = Status::Unavailable("backend offline");

  Result<std::vector<LsEntry>> Ls(const Identity&, std::string_view, const LsOptions&) override {
    return failure;
  }
  Result<std::vector<LsEntry>> Tree(const Identity&, std::string_view, const LsOptions&) override {
    return failure;
  }
  Result<NodeInfo> Stat(const Identity&, std::string_view) override {
    throw std::runtime_error("boom");
  }
  Result<std::string> Mkdir(const Identity& who, std::string_view uri, std::string_view) override {
    last_account = who.account;
    return std::string(uri);
  }
  Result<RmResult> Rm(const Identity&, std::string_view, bool) override { return failure; }
  Result<MvResult> Mv(const Identity&, std::string_view, std::string_view) override {
    return failure;
  }
  Result<CpResult> Cp(const Identity&, std::string_view, std::string_view, bool) override {
    return failure;
  }
  Result<std::vector<std::string>> Backlinks(const Identity&, std::string_view) override {
    return failure;
  }
  Result<std::vector<RelationLink>> Relations(const Identity&, std::string_view) override {
    return failure;
  }
  Status Link(const Identity&, std::string_view, const std::vector<std::string>&,
              std::string_view) override {
    return failure;
  }
  Status Unlink(const Identity&, std::string_view, std::string_view) override { return failure; }
  Result<SetTagsResult> SetTags(const Identity&, const SetTagsRequest&) override { return failure; }
  Result<NodeAttrs> Attrs(const Identity&, std::string_view) override { return failure; }
  Result<std::string> Read(const Identity&, std::string_view, int64_t, int64_t, bool) override {
    return failure;
  }
  Result<Download> DownloadFile(const Identity&, std::string_view) override { return failure; }
  Result<WriteResult> Write(const Identity&, const WriteRequest&) override { return failure; }
  Result<std::string> Abstract(const Identity&, std::string_view) override { return failure; }
  Result<std::string> Overview(const Identity&, std::string_view) override { return failure; }
  Result<GlobResult> Glob(const Identity&, const GlobRequest&) override { return failure; }
  Result<GrepResult> Grep(const Identity&, const GrepRequest&) override { return failure; }
  Result<FsckReport> Fsck(bool) override { return failure; }
  Result<ConsistencyReport> CheckConsistency(const Identity&, std::string_view) override {
    return failure;
  }
  Result<std::string> TempUpload(const Identity&, std::string_view, std::string_view) override {
    return failure;
  }
  Result<AddResourceResult> AddResource(const Identity&, const AddResourceRequest&) override {
    return failure;
  }
  Result<ReindexResult> Reindex(const Identity&, const ReindexRequest&) override { return failure; }
  Result<Download> ExportPack(const Identity&, std::string_view, bool) override { return failure; }
  Result<Download> BackupPack(const Identity&, bool) override { return failure; }
  Result<std::string> ImportPack(const Identity&, const PackImportRequest&) override {
    return failure;
  }
  Result<std::string> RestorePack(const Identity&, const PackImportRequest&) override {
    return failure;
  }
  Result<SnapshotCommitResult> SnapshotCommit(const Identity&,
                                              const SnapshotCommitRequest&) override {
    return failure;
  }
  Result<std::vector<SnapshotCommitInfo>> SnapshotLog(const Identity&,
                                                      const SnapshotLogRequest&) override {
    return failure;
  }
  Result<SnapshotCommitInfo> SnapshotShow(const Identity&, std::string_view) override {
    return failure;
  }
  Result<SnapshotBlobContent> SnapshotShowFile(const Identity&, std::string_view,
                                               std::string_view, bool) override {
    return failure;
  }
  Result<SnapshotDiffResult> SnapshotDiff(const Identity&, std::string_view, std::string_view,
                                          std::string_view) override {
    return failure;
  }
  Result<SnapshotRestoreResult> SnapshotRestore(const Identity&,
                                                const SnapshotRestoreRequest&) override {
    return failure;
  }
  Result<std::string> GetSnapshotIgnore(const Identity&) override { return failure; }
  Status SetSnapshotIgnore(const Identity&, std::string_view) override { return failure; }
  Result<std::vector<std::string>> ListPrivacyConfigs(const Identity&, std::string_view) override {
    return failure;
  }
  Result<std::string> GetPrivacyConfig(const Identity&, std::string_view,
                                       std::string_view) override {
    return failure;
  }
  Result<std::vector<int>> PrivacyConfigVersions(const Identity&, std::string_view,
                                                 std::string_view) override {
    return failure;
  }
  Result<std::string> GetPrivacyConfigVersion(const Identity&, std::string_view, std::string_view,
                                              int) override {
    return failure;
  }
  Result<std::string> UpsertPrivacyConfig(const Identity&, std::string_view, std::string_view,
                                          std::string_view, std::string_view,
                                          std::string_view) override {
    return failure;
  }
  Result<std::string> ActivatePrivacyConfig(const Identity&, std::string_view, std::string_view,
                                            int) override {
    return failure;
  }
  Result<bool> DeletePrivacyConfig(const Identity&, std::string_view, std::string_view) override {
    return failure;
  }

  Result<FindResult> Find(const Identity&, const FindRequest&) override { return failure; }
  Result<SearchResult> Search(const Identity&, const SearchRequest&) override { return failure; }
  Result<ContextResult> SearchContext(const Identity&, const ContextRequest&) override {
    return failure;
  }
  Result<SkillResult> AddSkill(const Identity&, const SkillRequest&) override { return failure; }
  Result<std::vector<SkillInfo>> ListSkills(const Identity&, std::string_view, int64_t) override {
    return failure;
  }
  Result<SkillInfo> GetSkill(const Identity&, std::string_view, std::string_view,
                             const SkillReadOptions&) override {
    return failure;
  }
  Result<SkillInfo> DeleteSkill(const Identity&, std::string_view, std::string_view) override {
    return failure;
  }
  Result<SkillValidationReport> ValidateSkill(const Identity&, std::string_view, bool,
                                              std::string_view) override {
    return failure;
  }
  Result<TaskInfo> GetTask(const Identity&, std::string_view) override { return failure; }
  Result<TaskInfo> WaitTask(const Identity&, std::string_view, int64_t) override {
    return failure;
  }
  Result<std::vector<TaskInfo>> ListTasks(const Identity&, const TaskFilter&) override {
    return failure;
  }
  Status WaitIdle(int64_t, bool) override { return failure; }
  // Accounts (auth): no user is ever being deleted, every other call fails.
  Result<NewAccount> CreateAccount(const Identity&, std::string_view, std::string_view) override {
    return failure;
  }
  Result<std::vector<AccountInfo>> ListAccounts(const Identity&) override { return failure; }
  Status DeleteAccount(const Identity&, std::string_view) override { return failure; }
  Result<std::string> RegisterUser(const Identity&, std::string_view, std::string_view,
                                   std::string_view) override {
    return failure;
  }
  Result<std::vector<UserInfo>> ListUsers(const Identity&, std::string_view,
                                          const UserFilter&) override {
    return failure;
  }
  Result<UserRemoval> RemoveUser(const Identity&, std::string_view, std::string_view) override {
    return failure;
  }
  Status SetUserRole(const Identity&, std::string_view, std::string_view,
                     std::string_view) override {
    return failure;
  }
  Result<std::string> RegenerateKey(const Identity&, std::string_view, std::string_view) override {
    return failure;
  }
  Result<Identity> Authenticate(std::string_view) override { return failure; }
  Result<bool> IsUserDeleting(std::string_view, std::string_view) override { return false; }
  Result<std::optional<Role>> RegisteredRole(std::string_view, std::string_view) override {
    return std::optional<Role>();
  }
  Result<DbStats> Stats(const Identity&) override { return failure; }
  ReadyReport CheckReady() override { return ReadyReport{}; }
  Result<SessionCreated> CreateSession(const Identity&, const SessionCreateRequest&) override {
    return failure;
  }
  Result<std::vector<SessionListEntry>> ListSessions(const Identity&) override { return failure; }
  Result<std::string> GetSession(const Identity&, std::string_view, bool) override {
    return failure;
  }
  Status DeleteSession(const Identity&, std::string_view) override { return failure; }
  Result<SessionMessagesAdded> AddSessionMessages(const Identity&, std::string_view,
                                                  const std::vector<std::string>&) override {
    return failure;
  }
  Result<SessionUsageCounts> RecordSessionUsage(const Identity&, std::string_view,
                                                const std::vector<std::string>&, const std::string&,
                                                bool) override {
    return failure;
  }
  Result<SessionCommitResult> CommitSession(const Identity&, std::string_view,
                                            const SessionCommitRequest&) override {
    return failure;
  }
  Result<SessionContextResult> GetSessionContext(const Identity&, std::string_view,
                                                 int64_t) override {
    return failure;
  }
  Result<std::string> GetSessionArchive(const Identity&, std::string_view,
                                        std::string_view) override {
    return failure;
  }
  Result<SessionConfig> UpdateSessionConfig(const Identity&, std::string_view,
                                            const SessionConfigUpdate&) override {
    return failure;
  }
  Result<std::vector<SessionExtractedMemory>> ExtractSessionMemories(const Identity&,
                                                                     std::string_view) override {
    return failure;
  }

  std::string last_account;
};

class ServerDispatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.port = 0;
    options.threads = 4;
    auto created = HttpServer::Create(db_, options);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    server_ = std::move(created).value();
    ASSERT_TRUE(server_->Bind().ok());
    ASSERT_GT(server_->port(), 0);
    serve_thread_ = std::thread([this] { served_ = server_->Serve(); });
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
  }
  void TearDown() override {
    client_.reset();
    server_->Stop();
    serve_thread_.join();
    EXPECT_TRUE(served_.ok()) << served_.ToString();
  }

  FakeDb db_;
  std::unique_ptr<HttpServer> server_;
  std::thread serve_thread_;
  Status served_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(ServerDispatchTest, ExceptionBecomes500AndServerKeepsServing) {
  auto r = client_->Get("/api/v1/fs/stat?uri=viking%3A%2F%2Fresources");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  Json body = Json::parse(r->body);
  EXPECT_EQ(body["error"]["code"], "INTERNAL");
  EXPECT_EQ(body["error"]["message"], "Internal server error");
  EXPECT_TRUE(body["result"].is_null());
  EXPECT_FALSE(r->get_header_value("X-Request-ID").empty());

  auto health = client_->Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

TEST_F(ServerDispatchTest, DbStatusMapsToWireCodeAndHttpStatus) {
  auto r = client_->Get("/api/v1/fs/ls?uri=viking%3A%2F%2F");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  Json body = Json::parse(r->body);
  EXPECT_EQ(body["error"]["code"], "UNAVAILABLE");
  EXPECT_EQ(body["error"]["message"], "backend offline");
  EXPECT_EQ(body["error"]["details"], Json::object());

  db_.failure = Status::FailedPrecondition("not empty").WithDetail("resource", "viking://x");
  auto rm = client_->Delete("/api/v1/fs?uri=viking%3A%2F%2Fx");
  ASSERT_TRUE(rm);
  EXPECT_EQ(rm->status, 412);
  EXPECT_EQ(Json::parse(rm->body)["error"]["details"]["resource"], "viking://x");

  db_.failure = Status::InvalidArgument("Invalid URI: x (bad)").WithReason("INVALID_URI");
  auto uri = client_->Get("/api/v1/content/read?uri=x");
  ASSERT_TRUE(uri);
  EXPECT_EQ(uri->status, 400);
  EXPECT_EQ(Json::parse(uri->body)["error"]["code"], "INVALID_URI");
}

TEST_F(ServerDispatchTest, ServerErrorsKeepHostPathsAndInternalsOutOfTheBody) {
  db_.failure = Status::Internal("mkdir /srv/skald/content/aaaa: File name too long");
  auto r = client_->Get("/api/v1/fs/ls?uri=viking%3A%2F%2F");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(r->body.find("/srv/skald"), std::string::npos) << r->body;
  EXPECT_EQ(r->body.find("File name too long"), std::string::npos) << r->body;
  Json body = Json::parse(r->body);
  EXPECT_EQ(body["error"]["message"], "Internal server error");
  // The request id finds the full error in the server log.
  EXPECT_FALSE(r->get_header_value("X-Request-ID").empty());
  EXPECT_EQ(body["error"]["details"]["request_id"], r->get_header_value("X-Request-ID"));

  db_.failure = DiskFullError("write /srv/skald/content/big.md");
  auto full = client_->Get("/api/v1/fs/ls?uri=viking%3A%2F%2F");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->status, 507);
  EXPECT_EQ(full->body.find("/srv/skald"), std::string::npos) << full->body;
  EXPECT_NE(Json::parse(full->body)["error"]["message"].get<std::string>().find("disk full"),
            std::string::npos);

  // An exception escaping a route: same generic answer, request id included.
  auto thrown = client_->Get("/api/v1/fs/stat?uri=viking%3A%2F%2Fresources");
  ASSERT_TRUE(thrown);
  EXPECT_EQ(thrown->status, 500);
  EXPECT_EQ(thrown->body.find("boom"), std::string::npos);
  EXPECT_EQ(Json::parse(thrown->body)["error"]["details"]["request_id"],
            thrown->get_header_value("X-Request-ID"));
}

TEST_F(ServerDispatchTest, IdentityHeadersReachTheDb) {
  httplib::Headers headers = {{"X-OpenViking-Account", "acme"}};
  auto r = client_->Post("/api/v1/fs/mkdir", headers, R"({"uri":"viking://resources/a"})",
                         "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(db_.last_account, "acme");
}

TEST(ServerOptionsTest, RejectsBadOptions) {
  ServerOptions options;
  options.threads = 0;
  EXPECT_FALSE(options.Validate().ok());
  options = ServerOptions();
  options.port = 70000;
  EXPECT_FALSE(options.Validate().ok());
  EXPECT_TRUE(ServerOptions().Validate().ok());
}

TEST(HttpServerTest, StopBeforeServeReturnsPromptly) {
  FakeDb db;
  ServerOptions options;
  options.port = 0;
  auto server = HttpServer::Create(db, options);
  ASSERT_TRUE(server.ok());
  ASSERT_TRUE((*server)->Bind().ok());
  (*server)->Stop();
  EXPECT_TRUE((*server)->Serve().ok());
}

}  // namespace
}  // namespace skald
