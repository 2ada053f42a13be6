// Disk full through the HTTP API: a real HttpServer in-process over a Db
// whose Env says the disk is full after a few hundred KiB. A client sees a
// non-retryable 507 RESOURCE_EXHAUSTED "disk full" without any host path,
// reads keep working, DELETE frees space, and the workspace reopens (on the
// still-full disk) with fsck clean.

#include <httplib.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "common/env.h"
#include "server/server.h"
#include "skald/db.h"
#include "tests/testutil/fault_injection_env.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

using Json = nlohmann::json;
using testing::FaultInjectionEnv;

// Parameter: retrieval.lexical_index ("fts5" or "memory").
class DiskFullHttpTest : public ::testing::TestWithParam<std::string> {
 protected:
  DbOptions Options() {
    DbOptions options;
    options.workspace = workspace_;
    options.background_workers = workers_;
    options.env = &env_;
    options.disk_reserve_bytes = reserve_bytes_;
    options.retrieval.lexical_index = GetParam();
    return options;
  }
  void Start() {
    auto db = Db::Open(Options());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(db).value();
    ServerOptions options;
    options.port = 0;
    options.threads = 4;
    auto created = HttpServer::Create(*db_, options);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    server_ = std::move(created).value();
    ASSERT_TRUE(server_->Bind().ok());
    serve_thread_ = std::thread([this] { served_ = server_->Serve(); });
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_read_timeout(30, 0);
  }
  void Stop() {
    client_.reset();
    if (server_) server_->Stop();
    if (serve_thread_.joinable()) serve_thread_.join();
    server_.reset();
    db_.reset();
  }
  void TearDown() override { Stop(); }

  httplib::Result Write(const std::string& uri, const std::string& content) {
    Json body = {{"uri", uri}, {"content", content}, {"mode", "create"}};
    return client_->Post("/api/v1/content/write", body.dump(), "application/json");
  }

  // Uris of the resources a find for `query` returns.
  std::vector<std::string> FindUris(const std::string& query) {
    httplib::Result r = client_->Post("/api/v1/search/find", Json({{"query", query}}).dump(),
                                      "application/json");
    std::vector<std::string> uris;
    EXPECT_TRUE(r);
    if (!r) return uris;
    EXPECT_EQ(r->status, 200) << r->body;
    Json body = Json::parse(r->body, nullptr, false);
    if (!body.is_object() || !body["result"].is_object()) return uris;
    for (const Json& hit : body["result"]["resources"]) uris.push_back(hit["uri"]);
    return uris;
  }

  int workers_ = 0;
  uint64_t reserve_bytes_ = 256 << 10;
  testing::TempDir dir_;
  std::string workspace_ = dir_.Sub("ws");
  FaultInjectionEnv env_;
  std::unique_ptr<Db> db_;
  std::unique_ptr<HttpServer> server_;
  std::thread serve_thread_;
  Status served_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_P(DiskFullHttpTest, FullDiskAnswers507ButReadsDeletesOpenAndFsckWork) {
  Start();
  ASSERT_TRUE(client_);
  env_.FillAfter(600 << 10);
  const std::string chunk(48 << 10, 'x');
  int written = 0;
  int last_status = 0;
  std::string last_body;
  for (; written < 100; ++written) {
    httplib::Result r = Write("viking://resources/fill/f" + std::to_string(written) + ".md", chunk);
    ASSERT_TRUE(r);
    last_status = r->status;
    last_body = r->body;
    if (r->status != 200) break;
  }
  ASSERT_GT(written, 0);
  ASSERT_LT(written, 100) << "the disk never filled up";

  // The write that found the disk full: 507, RESOURCE_EXHAUSTED, "disk full", no path.
  EXPECT_EQ(last_status, 507) << last_body;
  Json error = Json::parse(last_body, nullptr, false);
  ASSERT_TRUE(error.is_object()) << last_body;
  EXPECT_EQ(error["error"]["code"], "RESOURCE_EXHAUSTED") << last_body;
  EXPECT_NE(error["error"]["message"].get<std::string>().find("disk full"), std::string::npos)
      << last_body;
  EXPECT_EQ(last_body.find(dir_.path()), std::string::npos) << last_body;

  // Later writes are refused the same way (never 429, which clients retry).
  httplib::Result again = Write("viking://resources/fill/later.md", "small");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 507) << again->body;
  EXPECT_EQ(again->body.find(dir_.path()), std::string::npos) << again->body;
  httplib::Result mkdir = client_->Post(
      "/api/v1/fs/mkdir", Json({{"uri", "viking://resources/newdir"}}).dump(), "application/json");
  ASSERT_TRUE(mkdir);
  EXPECT_EQ(mkdir->status, 507) << mkdir->body;

  // Reads keep working.
  httplib::Result read = client_->Get("/api/v1/content/read?uri=viking://resources/fill/f0.md");
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 200) << read->body;
  httplib::Result ls = client_->Get("/api/v1/fs/ls?uri=viking://resources/fill");
  ASSERT_TRUE(ls);
  EXPECT_EQ(ls->status, 200) << ls->body;

  // Deleting works on the full disk and frees space.
  httplib::Result removed = client_->Delete("/api/v1/fs?uri=viking://resources/fill&recursive=true");
  ASSERT_TRUE(removed);
  EXPECT_EQ(removed->status, 200) << removed->body;
  httplib::Result gone = client_->Get("/api/v1/fs/stat?uri=viking://resources/fill/f0.md");
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->status, 404) << gone->body;

  // With the space back, writes succeed again.
  httplib::Result after = Write("viking://resources/after.md", "space is back");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200) << after->body;

  // Fill the disk again, stop, and reopen on the still-full disk: open and
  // fsck work, and everything acknowledged is there.
  for (int i = 0; i < 100; ++i) {
    httplib::Result r = Write("viking://resources/refill/f" + std::to_string(i) + ".md", chunk);
    ASSERT_TRUE(r);
    if (r->status != 200) {
      EXPECT_EQ(r->status, 507) << r->body;
      break;
    }
  }
  Stop();
  auto reopened = Db::Open(Options());
  ASSERT_TRUE(reopened.ok()) << "open on a full disk: " << reopened.status().ToString();
  Result<FsckReport> report = (*reopened)->Fsck(false);
  ASSERT_TRUE(report.ok()) << "fsck on a full disk: " << report.status().ToString();
  for (const FsckIssue& issue : report->issues) {
    ADD_FAILURE() << "fsck: " << issue.kind << " " << issue.uri << " " << issue.detail;
  }
  Identity root;
  root.role = Role::kRoot;
  Result<std::string> kept = (*reopened)->Read(root, "viking://resources/after.md", 0, -1, /*raw=*/true);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(*kept, "space is back");
}

// A delete whose index update finds no room (the lexical index cannot
// write) still succeeds: it is committed in the catalog, search no longer
// returns the file, and the index applies the delete once it can write.
TEST_P(DiskFullHttpTest, DeleteSucceedsWhenAnIndexCannotWrite) {
  workers_ = 1;
  Start();
  ASSERT_TRUE(client_);
  for (auto [uri, text] : {std::pair{"viking://resources/keep.md", "alpha bravo charlie"},
                           std::pair{"viking://resources/gone.md", "zebra quokka narwhal"}}) {
    Json body = {{"uri", uri}, {"content", text}, {"mode", "create"}, {"wait", true}};
    httplib::Result r = client_->Post("/api/v1/content/write", body.dump(), "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  }
  std::vector<std::string> before = FindUris("zebra quokka narwhal");
  ASSERT_FALSE(before.empty());
  EXPECT_EQ(before[0], "viking://resources/gone.md");

  env_.FailWritesTo("lexical.", FaultInjectionEnv::Error::kNoSpace);
  const uint64_t injected = env_.injected();
  httplib::Result removed = client_->Delete("/api/v1/fs?uri=viking://resources/gone.md");
  ASSERT_TRUE(removed);
  EXPECT_EQ(removed->status, 200) << removed->body;
  EXPECT_GT(env_.injected(), injected) << "the delete never tried to write the lexical index";
  httplib::Result gone = client_->Get("/api/v1/fs/stat?uri=viking://resources/gone.md");
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->status, 404) << gone->body;
  for (const std::string& uri : FindUris("zebra quokka narwhal")) {
    EXPECT_NE(uri, "viking://resources/gone.md") << "search returned a deleted file";
  }

  // Once the index can write again, the next change brings it up to date.
  env_.Clear();
  Json body = {{"uri", "viking://resources/later.md"}, {"content", "delta echo"},
               {"mode", "create"}, {"wait", true}};
  httplib::Result later = client_->Post("/api/v1/content/write", body.dump(), "application/json");
  ASSERT_TRUE(later);
  EXPECT_EQ(later->status, 200) << later->body;
  for (const std::string& uri : FindUris("zebra quokka narwhal")) {
    EXPECT_NE(uri, "viking://resources/gone.md");
  }
  Stop();
  auto reopened = Db::Open(Options());
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  Result<FsckReport> report = (*reopened)->Fsck(false);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->issues.empty());
}

// A disk with no byte left and no reserve to give back (something else took
// the space): the workspace still opens — the index files are caches, and
// their space goes to the catalog — fsck is clean, reads work, and search
// works again once the indexes are rebuilt.
TEST_P(DiskFullHttpTest, OpensWhenNothingIsLeftByDiscardingIndexCaches) {
  workers_ = 1;
  reserve_bytes_ = 0;
  Start();
  ASSERT_TRUE(client_);
  Json body = {{"uri", "viking://resources/kept.md"}, {"content", "walrus harbour lantern"},
               {"mode", "create"}, {"wait", true}};
  httplib::Result r = client_->Post("/api/v1/content/write", body.dump(), "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  // A few more files: the index caches of a one-file workspace are smaller
  // than what the catalog needs to open (the memory lexical index keeps
  // about 0.8 KB a record, FTS5 some pages whatever it holds).
  for (int i = 0; i < 16; ++i) {
    body = {{"uri", "viking://resources/more/" + std::to_string(i) + ".md"},
            {"content", "notes number " + std::to_string(i) + " about tides and ferries"},
            {"mode", "create"},
            {"wait", true}};
    r = client_->Post("/api/v1/content/write", body.dump(), "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  }
  Stop();

  env_.FillAfter(0);  // not one byte left
  Start();
  ASSERT_TRUE(db_) << "open failed on a disk with no space left";
  httplib::Result read = client_->Get("/api/v1/content/read?uri=viking://resources/kept.md");
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 200) << read->body;
  std::vector<std::string> found = FindUris("walrus harbour lantern");
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0], "viking://resources/kept.md");
  Result<FsckReport> report = db_->Fsck(false);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->issues.empty());
}

INSTANTIATE_TEST_SUITE_P(LexicalIndexes, DiskFullHttpTest, ::testing::Values("fts5", "memory"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.param;
                         });

}  // namespace
}  // namespace skald
