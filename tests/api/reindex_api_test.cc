// Keeping in sync over HTTP (issue 11 item 6): POST /api/v1/content/reindex
// in its three modes, dry runs, who may reindex what, and adding a changed
// source again into its root — only what changed is summarized and
// embedded, what the source lost is removed with its records, and no
// orphan record is left.

#include <httplib.h>

#include <algorithm>
#include <cstdio>

#include "tests/api/api_fixture.h"
#include "tests/testutil/archive_writer.h"

namespace skald::apitest {
namespace {

using ::skald::testing::ArchiveFormat;
using ::skald::testing::ArchiveItem;
using ::skald::testing::WriteTestArchive;

// Version 1 of a small source: three files in two directories.
std::vector<ArchiveItem> SourceV1() {
  return {ArchiveItem::File("alpha.md", "# Alpha\n\nThe alpha page talks about quokkafeeding.\n"),
          ArchiveItem::File("beta.md", "# Beta\n\nThe beta page describes wombatburrows.\n"),
          ArchiveItem::File("deep/gamma.md", "# Gamma\n\nGamma covers numbatnesting.\n")};
}

// Version 2: alpha unchanged, beta changed, gamma removed, delta added.
std::vector<ArchiveItem> SourceV2() {
  return {ArchiveItem::File("alpha.md", "# Alpha\n\nThe alpha page talks about quokkafeeding.\n"),
          ArchiveItem::File("beta.md", "# Beta\n\nThe beta page now covers bilbyburrows.\n"),
          ArchiveItem::File("deep/delta.md", "# Delta\n\nDelta covers potoroohopping.\n")};
}

class ReindexApiTest : public ApiTest {
 protected:
  // Uploads a zip of `items` and adds it (`extra` fields added to the
  // request), without waiting; returns the finished task.
  Json AddZip(const std::vector<ArchiveItem>& items, const std::string& filename,
              Json extra = Json::object()) {
    const std::string path = scratch_.Sub(filename);
    EXPECT_TRUE(WriteTestArchive(path, ArchiveFormat::kZip, items));
    extra["temp_file_id"] = UploadTemp(ReadBytes(path), filename);
    std::remove(path.c_str());
    extra["wait"] = false;
    Reply r = PostJson("/api/v1/resources", extra);
    EXPECT_EQ(r.status, 200) << r.raw;
    const std::string task_id = r.json["result"].value("task_id", "");
    EXPECT_FALSE(task_id.empty()) << r.raw;
    Json task = WaitForTask(task_id);
    EXPECT_EQ(task.value("status", ""), "completed") << task.dump();
    task["root_uri"] = r.json["result"].value("root_uri", "");
    return task;
  }

  Reply Reindex(Json body) { return PostJson("/api/v1/content/reindex", body); }

  // The reindex result of a dry run of `mode` over `uri`.
  Json DryRun(const std::string& uri, const std::string& mode) {
    Reply r = Reindex({{"uri", uri}, {"mode", mode}, {"dry_run", true}});
    EXPECT_EQ(r.status, 200) << r.raw;
    return r.json["result"];
  }

  // URIs of the resources find returns for `query`.
  std::vector<std::string> Found(const std::string& query) {
    Reply r = PostJson("/api/v1/search/find", {{"query", query}, {"limit", 20}});
    EXPECT_EQ(r.status, 200) << r.raw;
    std::vector<std::string> out;
    for (const Json& hit : r.json["result"]["resources"]) out.push_back(hit.value("uri", ""));
    return out;
  }

  TempDir scratch_;
};

TEST_F(ReindexApiTest, ReAddUpdatesOnlyWhatChangedAndLeavesNoOrphans) {
  Json first = AddZip(SourceV1(), "src.zip");
  const std::string root = first["root_uri"].get<std::string>();
  ASSERT_FALSE(root.empty());
  // 3 files (L2) + 2 directories (L0 + L1 each).
  EXPECT_EQ(DryRun(root, "vectors_only").value("scanned_records", 0), 7) << root;

  Json second = AddZip(SourceV2(), "src.zip", {{"to", root}});
  EXPECT_EQ(second["root_uri"], root);
  const Json& result = second["result"];
  EXPECT_EQ(result.value("files_written", -1), 2) << result.dump();    // beta, delta
  EXPECT_EQ(result.value("files_unchanged", -1), 1) << result.dump();  // alpha
  EXPECT_EQ(result.value("files_removed", -1), 1) << result.dump();    // gamma
  // Only the written files were summarized; alpha's record was not rewritten.
  EXPECT_EQ(result.value("files", -1), 2) << result.dump();

  EXPECT_EQ(FilesUnder(root), (std::vector<std::string>{root + "/alpha.md", root + "/beta.md",
                                                        root + "/deep/delta.md"}));
  EXPECT_EQ(DryRun(root, "vectors_only").value("scanned_records", 0), 7);
  Json prune = DryRun(root, "prune_orphans");
  EXPECT_EQ(prune.value("would_delete_records", -1), 0) << prune.dump();

  // The removed file is no longer found, the new one is, the kept one still is.
  for (const std::string& uri : Found("numbatnesting")) {
    EXPECT_EQ(uri.find("gamma"), std::string::npos) << uri;
  }
  std::vector<std::string> delta = Found("potoroohopping");
  EXPECT_NE(std::find(delta.begin(), delta.end(), root + "/deep/delta.md"), delta.end());
  std::vector<std::string> alpha = Found("quokkafeeding");
  EXPECT_NE(std::find(alpha.begin(), alpha.end(), root + "/alpha.md"), alpha.end());

  // The same source once more: nothing to write, summarize or remove.
  Json third = AddZip(SourceV2(), "src.zip", {{"to", root}});
  EXPECT_EQ(third["result"].value("files_written", -1), 0) << third.dump();
  EXPECT_EQ(third["result"].value("files_removed", -1), 0) << third.dump();
  EXPECT_EQ(third["result"].value("files", -1), 0) << third.dump();
  EXPECT_EQ(third["result"].value("texts_embedded", -1), 0) << third.dump();
}

TEST_F(ReindexApiTest, ModesRebuildEveryRecordOfTheTree) {
  const std::string root = AddZip(SourceV1(), "modes.zip")["root_uri"].get<std::string>();

  Reply vectors = Reindex({{"uri", root}});  // vectors_only, wait by default
  ASSERT_EQ(vectors.status, 200) << vectors.raw;
  const Json& v = vectors.json["result"];
  EXPECT_EQ(v.value("status", ""), "completed");
  EXPECT_EQ(v.value("uri", ""), root);
  EXPECT_EQ(v.value("object_type", ""), "resource");
  EXPECT_EQ(v.value("mode", ""), "vectors_only");
  EXPECT_EQ(v.value("scanned_records", 0), 7);
  EXPECT_EQ(v.value("rebuilt_records", 0), 7);
  EXPECT_EQ(v.value("deleted_records", -1), 0);
  EXPECT_EQ(v.value("failed_records", -1), 0);
  EXPECT_FALSE(v.contains("task_id"));
  for (const char* key : {"would_delete_records", "unsupported_records", "duration_ms"}) {
    EXPECT_TRUE(v.contains(key)) << key;
  }
  EXPECT_TRUE(v["warnings"].is_array());

  Reply semantic = Reindex({{"uri", root}, {"mode", "semantic_and_vectors"}});
  ASSERT_EQ(semantic.status, 200) << semantic.raw;
  EXPECT_EQ(semantic.json["result"].value("rebuilt_records", 0), 7) << semantic.raw;

  // One file, not recursive: its record alone.
  Reply one = Reindex({{"uri", root + "/alpha.md"}, {"recursive", false}});
  ASSERT_EQ(one.status, 200) << one.raw;
  EXPECT_EQ(one.json["result"].value("scanned_records", 0), 1);
  EXPECT_EQ(one.json["result"].value("rebuilt_records", 0), 1);

  Reply prune = Reindex({{"uri", root}, {"mode", "prune_orphans"}});
  ASSERT_EQ(prune.status, 200) << prune.raw;
  EXPECT_EQ(prune.json["result"].value("deleted_records", -1), 0);

  // Still searchable after all of it.
  std::vector<std::string> found = Found("wombatburrows");
  EXPECT_NE(std::find(found.begin(), found.end(), root + "/beta.md"), found.end());
}

TEST_F(ReindexApiTest, DryRunChangesNothingAndNoWaitAnswersWithATask) {
  const std::string root = AddZip(SourceV1(), "dry.zip")["root_uri"].get<std::string>();
  Json dry = DryRun(root, "semantic_and_vectors");
  EXPECT_EQ(dry.value("status", ""), "completed");
  EXPECT_EQ(dry.value("scanned_records", 0), 7);
  EXPECT_EQ(dry.value("rebuilt_records", -1), 0);

  Reply queued = Reindex({{"uri", root}, {"wait", false}});
  ASSERT_EQ(queued.status, 200) << queued.raw;
  EXPECT_EQ(queued.json["result"].value("status", ""), "accepted");
  const std::string task_id = queued.json["result"].value("task_id", "");
  ASSERT_FALSE(task_id.empty()) << queued.raw;
  Json task = WaitForTask(task_id);
  EXPECT_EQ(task.value("status", ""), "completed") << task.dump();
  EXPECT_EQ(task.value("task_type", ""), "admin_reindex");
  EXPECT_EQ(task["result"].value("rebuilt_records", 0), 7) << task.dump();
}

TEST_F(ReindexApiTest, BadRequestsAreRefused) {
  const std::string root = AddZip(SourceV1(), "bad.zip")["root_uri"].get<std::string>();
  Reply mode = Reindex({{"uri", root}, {"mode", "everything"}});
  EXPECT_GE(mode.status, 400) << mode.raw;
  EXPECT_LT(mode.status, 500) << mode.raw;
  Reply extra = Reindex({{"uri", root}, {"colour", "blue"}});
  EXPECT_GE(extra.status, 400) << extra.raw;
  // OpenViking's `force` is a known field.
  Reply forced = Reindex({{"uri", root}, {"force", true}});
  EXPECT_EQ(forced.status, 200) << forced.raw;
  EXPECT_LT(extra.status, 500) << extra.raw;
  Reply missing = Reindex({{"uri", root + "/nope"}});
  EXPECT_EQ(missing.status, 404) << missing.raw;
  Reply session = Reindex({{"uri", "viking://user/default/sessions"}});
  EXPECT_GE(session.status, 400) << session.raw;
  EXPECT_LT(session.status, 500) << session.raw;
  ExpectHealthy();
}

// api_key mode: a USER reindexes only their own tree.
class ReindexPermissionApiTest : public ::testing::Test {
 protected:
  static constexpr const char* kRootKey = "root-key-for-reindex-tests-0123456789";

  void SetUp() override {
    const std::string conf = config_dir_.Sub("skald.conf");
    std::FILE* f = std::fopen(conf.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs((std::string(R"({"server": {"root_api_key": ")") + kRootKey + R"("}})").c_str(), f);
    std::fclose(f);
    server_ = SkaldProcess::Start(workspace_.path(), {"--config", conf});
    ASSERT_NE(server_, nullptr);
    client_ = server_->NewClient();
    Reply account = Post("/api/v1/admin/accounts", kRootKey,
                         {{"account_id", "acme"}, {"admin_user_id", "alice"}});
    ASSERT_EQ(account.status, 200) << account.raw;
    alice_ = account.json["result"].value("user_key", "");
    Reply user =
        Post("/api/v1/admin/accounts/acme/users", kRootKey, {{"user_id", "bob"}, {"role", "user"}});
    ASSERT_EQ(user.status, 200) << user.raw;
    bob_ = user.json["result"].value("user_key", "");
    for (const auto& [key, uri] : {std::pair{alice_, "viking://user/alice/memories/note.md"},
                                   std::pair{bob_, "viking://user/bob/memories/note.md"}}) {
      Reply w = Post("/api/v1/content/write", key,
                     {{"uri", uri},
                      {"content", "A note about kookaburras."},
                      {"mode", "create"},
                      {"wait", true}});
      ASSERT_EQ(w.status, 200) << w.raw;
    }
  }

  void TearDown() override {
    client_.reset();
    if (server_ != nullptr) {
      EXPECT_EQ(server_->Stop(SIGTERM), 0);
    }
  }

  Reply Post(const std::string& path, const std::string& key, const Json& body) {
    return ToReply(
        client_->Post(path, httplib::Headers{{"X-API-Key", key}}, body.dump(), "application/json"));
  }

  TempDir workspace_;
  TempDir config_dir_;
  std::unique_ptr<SkaldProcess> server_;
  std::unique_ptr<httplib::Client> client_;
  std::string alice_;
  std::string bob_;
};

TEST_F(ReindexPermissionApiTest, UserReindexesOnlyTheirOwnTree) {
  Reply own = Post("/api/v1/content/reindex", bob_, {{"uri", "viking://user/bob/memories"}});
  ASSERT_EQ(own.status, 200) << own.raw;
  EXPECT_EQ(own.json["result"].value("object_type", ""), "namespace");
  EXPECT_GE(own.json["result"].value("rebuilt_records", 0), 1) << own.raw;

  Reply other = Post("/api/v1/content/reindex", bob_, {{"uri", "viking://user/alice/memories"}});
  EXPECT_EQ(other.status, 403) << other.raw;
  Reply shared = Post("/api/v1/content/reindex", bob_, {{"uri", "viking://resources"}});
  EXPECT_EQ(shared.status, 403) << shared.raw;

  // An ADMIN reindexes the account's shared resources; another user's
  // private tree is denied to them (403, as on every other route).
  Reply admin =
      Post("/api/v1/content/reindex", alice_, {{"uri", "viking://resources"}, {"dry_run", true}});
  EXPECT_EQ(admin.status, 200) << admin.raw;
  Reply hidden = Post("/api/v1/content/reindex", alice_,
                      {{"uri", "viking://user/bob/memories"}, {"dry_run", true}});
  EXPECT_EQ(hidden.status, 403) << hidden.raw;
}

}  // namespace
}  // namespace skald::apitest
