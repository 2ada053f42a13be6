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

class DiskFullHttpTest : public ::testing::Test {
 protected:
  DbOptions Options() {
    DbOptions options;
    options.workspace = workspace_;
    options.background_workers = 0;
    options.env = &env_;
    options.disk_reserve_bytes = 256 << 10;
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

  testing::TempDir dir_;
  std::string workspace_ = dir_.Sub("ws");
  FaultInjectionEnv env_;
  std::unique_ptr<Db> db_;
  std::unique_ptr<HttpServer> server_;
  std::thread serve_thread_;
  Status served_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(DiskFullHttpTest, FullDiskAnswers507ButReadsDeletesOpenAndFsckWork) {
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
  Result<std::string> kept = (*reopened)->Read(root, "viking://resources/after.md", 0, -1);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(*kept, "space is back");
}

}  // namespace
}  // namespace skald
