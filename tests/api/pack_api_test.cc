// OVPack routes over HTTP (/api/v1/pack/{export,backup,import,restore}):
// a tree exported and imported elsewhere keeps its files and tags and is
// found again; conflicts answer 409 unless overwrite or skip; a backup
// restored into a fresh server brings every resource back; altered or
// forged packages are refused and nothing is written; only ROOT and ADMIN
// may use the routes.

#include <httplib.h>

#include <fstream>

#include "ingest/ovpack.h"
#include "tests/api/api_fixture.h"

namespace skald::apitest {
namespace {

class PackApiTest : public ApiTest {
 protected:
  // A small resource tree with a tag, indexed.
  void AddHandbook() {
    Mkdir("viking://resources/handbook/deep");
    Create("viking://resources/handbook/quokka.md",
           "# Quokkas\n\nQuokkas live on Rottnest Island and smile at tourists.\n");
    Create("viking://resources/handbook/deep/wombat.md", "# Wombats\n\nWombats dig burrows.\n");
    Reply tagged =
        PostJson("/api/v1/content/set_tags",
                 {{"uri", "viking://resources/handbook/quokka.md"}, {"tags", {"team=core"}}});
    ASSERT_EQ(tagged.status, 200) << tagged.raw;
    WaitIdle();
  }
  void WaitIdle() {
    Reply r = PostJson("/api/v1/system/wait", {{"timeout", 60}});
    ASSERT_EQ(r.status, 200) << r.raw;
  }
  Reply Export(const std::string& uri) { return PostJson("/api/v1/pack/export", {{"uri", uri}}); }
  Reply Import(const std::string& bytes, const std::string& parent, Json extra = Json::object()) {
    extra["temp_file_id"] = UploadTemp(bytes, "pack.ovpack");
    extra["parent"] = parent;
    return PostJson("/api/v1/pack/import", extra);
  }
  // Stops this test's server, then starts another on a fresh workspace.
  void Restart(const std::optional<Json>& config) {
    client_.reset();
    ASSERT_EQ(server_->Stop(SIGTERM), 0);
    server_.reset();
    StartServer(config);
  }
  std::string Read(const std::string& uri) {
    Reply r = Get("/api/v1/content/read?uri=" + uri);
    return r.status == 200 ? r.json["result"].get<std::string>() : "(" + r.raw + ")";
  }
};

TEST_F(PackApiTest, AnExportedTreeImportsElsewhereWithItsFilesAndTags) {
  AddHandbook();
  Reply pack = Export("viking://resources/handbook");
  ASSERT_EQ(pack.status, 200) << pack.raw;
  EXPECT_EQ(pack.Header("Content-Type"), "application/zip");
  EXPECT_EQ(pack.Header("Content-Disposition"), "attachment; filename=\"handbook.ovpack\"");
  EXPECT_EQ(pack.raw.substr(0, 2), "PK");

  Reply imported = Import(pack.raw, "viking://resources/imported/");
  ASSERT_EQ(imported.status, 200) << imported.raw;
  EXPECT_EQ(imported.json["result"]["uri"], "viking://resources/imported/handbook");
  WaitIdle();
  EXPECT_EQ(Read("viking://resources/imported/handbook/deep/wombat.md"),
            "# Wombats\n\nWombats dig burrows.\n");
  EXPECT_EQ(FilesUnder("viking://resources/imported/handbook"),
            (std::vector<std::string>{"viking://resources/imported/handbook/deep/wombat.md",
                                      "viking://resources/imported/handbook/quokka.md"}));
  // Indexed again, with the tag the package carried.
  Reply found = PostJson("/api/v1/search/find", {{"query", "quokka rottnest"},
                                                 {"target_uri", "viking://resources/imported"},
                                                 {"tags", {"team=core"}}});
  ASSERT_EQ(found.status, 200) << found.raw;
  bool hit = false;
  for (const Json& m : found.json["result"]["resources"]) {
    hit = hit || m["uri"] == "viking://resources/imported/handbook/quokka.md";
  }
  EXPECT_TRUE(hit) << found.raw;
  // Its directories have summaries of their own.
  Reply abstract = Get("/api/v1/content/abstract?uri=viking://resources/imported/handbook");
  ASSERT_EQ(abstract.status, 200) << abstract.raw;
  EXPECT_EQ(abstract.json["result"].get<std::string>().find("not ready"), std::string::npos);
}

TEST_F(PackApiTest, ConflictsFailSkipOrOverwrite) {
  AddHandbook();
  Reply pack = Export("viking://resources/handbook");
  ASSERT_EQ(pack.status, 200) << pack.raw;
  ASSERT_EQ(Import(pack.raw, "viking://resources/copy").status, 200);
  Create("viking://resources/copy/handbook/extra.md", "# Extra\n");

  // An upload is used up by its import, as OpenViking's is.
  const std::string id = UploadTemp(pack.raw, "pack.ovpack");
  ASSERT_EQ(
      PostJson("/api/v1/pack/import", {{"temp_file_id", id}, {"parent", "viking://resources/one"}})
          .status,
      200);
  Reply reused =
      PostJson("/api/v1/pack/import", {{"temp_file_id", id}, {"parent", "viking://resources/two"}});
  EXPECT_EQ(reused.status, 403) << reused.raw;

  Reply again = Import(pack.raw, "viking://resources/copy");
  EXPECT_EQ(again.status, 409) << again.raw;
  EXPECT_EQ(again.Code(), "CONFLICT");
  EXPECT_NE(again.raw.find("Use on_conflict='overwrite'"), std::string::npos) << again.raw;
  EXPECT_EQ(again.json["error"]["details"]["resource"], "viking://resources/copy/handbook");

  Reply skipped = Import(pack.raw, "viking://resources/copy", {{"on_conflict", "skip"}});
  ASSERT_EQ(skipped.status, 200) << skipped.raw;
  EXPECT_EQ(skipped.json["result"]["uri"], "viking://resources/copy/handbook");
  EXPECT_EQ(Read("viking://resources/copy/handbook/extra.md"), "# Extra\n");

  Reply replaced = Import(pack.raw, "viking://resources/copy", {{"on_conflict", "overwrite"}});
  ASSERT_EQ(replaced.status, 200) << replaced.raw;
  WaitIdle();
  EXPECT_EQ(Get("/api/v1/fs/stat?uri=viking://resources/copy/handbook/extra.md").status, 404);
  EXPECT_EQ(FilesUnder("viking://resources/copy/handbook").size(), 2u);
}

TEST_F(PackApiTest, ABackupRestoresIntoAFreshServer) {
  AddHandbook();
  Create("viking://user/default/resources/todo.md", "# Todo\n\nFeed the quokkas.\n");
  Reply backup = Post("/api/v1/pack/backup", "");
  ASSERT_EQ(backup.status, 200) << backup.raw;
  EXPECT_NE(backup.Header("Content-Disposition").find("openviking-backup.ovpack"),
            std::string::npos);
  // A backup is not imported under a parent.
  Reply misuse = Import(backup.raw, "viking://resources/x");
  EXPECT_EQ(misuse.status, 400) << misuse.raw;
  EXPECT_NE(misuse.raw.find("restore"), std::string::npos) << misuse.raw;

  Restart(std::nullopt);  // a new server on a new workspace
  Reply restored =
      PostJson("/api/v1/pack/restore", {{"temp_file_id", UploadTemp(backup.raw, "backup.ovpack")}});
  ASSERT_EQ(restored.status, 200) << restored.raw;
  EXPECT_EQ(restored.json["result"]["uri"], "viking://");
  WaitIdle();
  EXPECT_EQ(Read("viking://resources/handbook/quokka.md"),
            "# Quokkas\n\nQuokkas live on Rottnest Island and smile at tourists.\n");
  EXPECT_EQ(Read("viking://user/default/resources/todo.md"), "# Todo\n\nFeed the quokkas.\n");
  // Both scopes are indexed again: the user's resources too (their own namespace root).
  for (const char* scope : {"viking://resources", "viking://user/default/resources"}) {
    Reply found = PostJson("/api/v1/search/find", {{"query", "quokkas"}, {"target_uri", scope}});
    ASSERT_EQ(found.status, 200) << found.raw;
    EXPECT_GE(found.json["result"]["resources"].size(), 1u) << scope << ": " << found.raw;
  }
  // The scopes are not empty any more: a second restore conflicts.
  Reply twice =
      PostJson("/api/v1/pack/restore", {{"temp_file_id", UploadTemp(backup.raw, "backup.ovpack")}});
  EXPECT_EQ(twice.status, 409) << twice.raw;
}

TEST_F(PackApiTest, BadPackagesAndRequestsAreRefusedAndNothingIsWritten) {
  AddHandbook();
  Reply pack = Export("viking://resources/handbook");
  ASSERT_EQ(pack.status, 200);
  // One byte of a file changed inside the zip: the package no longer reads.
  std::string altered = pack.raw;
  const size_t at = altered.find("Quokkas live");
  if (at != std::string::npos) {  // stored uncompressed only if deflate did not pay
    altered[at] = 'q';
  } else {
    altered.resize(altered.size() / 2);  // a truncated zip
  }
  Reply bad = Import(altered, "viking://resources/bad");
  EXPECT_EQ(bad.status, 400) << bad.raw;
  EXPECT_EQ(Get("/api/v1/fs/stat?uri=viking://resources/bad/handbook").status, 404);
  Reply not_zip = Import("not a zip at all", "viking://resources/bad");
  EXPECT_EQ(not_zip.status, 400) << not_zip.raw;

  Reply forged = PostJson("/api/v1/pack/import", {{"temp_file_id", "../outside.ovpack"},
                                                  {"parent", "viking://resources"}});
  EXPECT_EQ(forged.status, 403) << forged.raw;
  EXPECT_EQ(forged.Code(), "PERMISSION_DENIED");
  Reply removed = PostJson("/api/v1/pack/import", {{"temp_file_id", "x.ovpack"},
                                                   {"parent", "viking://resources"},
                                                   {"vectorize", false},
                                                   {"force", true}});
  EXPECT_EQ(removed.status, 400) << removed.raw;
  EXPECT_NE(removed.raw.find("vectorize"), std::string::npos);
  EXPECT_NE(removed.raw.find("force"), std::string::npos);
  // "require" needs the package's vectors: refused without them, taken
  // with them (made by this server's embedder).
  Reply require = Import(pack.raw, "viking://resources/v", {{"vector_mode", "require"}});
  EXPECT_EQ(require.status, 400) << require.raw;
  EXPECT_NE(require.raw.find("does not contain a dense vector snapshot"), std::string::npos)
      << require.raw;
  Reply with_vectors = PostJson(
      "/api/v1/pack/export", {{"uri", "viking://resources/handbook"}, {"include_vectors", true}});
  ASSERT_EQ(with_vectors.status, 200) << with_vectors.raw;
  Reply required = Import(with_vectors.raw, "viking://resources/v", {{"vector_mode", "require"}});
  EXPECT_EQ(required.status, 200) << required.raw;
  Reply scope = Import(pack.raw, "viking://agent/skills");
  EXPECT_EQ(scope.status, 400) << scope.raw;

  EXPECT_EQ(Export("viking://resources/missing").status, 404);
  EXPECT_EQ(Export("viking://resources/handbook/quokka.md").status, 400);
  EXPECT_EQ(Export("viking://").status, 400);
  EXPECT_EQ(PostJson("/api/v1/pack/export",
                     {{"uri", "viking://resources/handbook"}, {"to", "/tmp/x.ovpack"}})
                .status,
            400);
  ExpectHealthy();
}

// A package that reads whole but cannot be written (a reserved name inside)
// changes nothing, overwrite or not: every entry is checked before the old
// tree is removed.
TEST_F(PackApiTest, OverwriteWithAPackageThatCannotBeWrittenKeepsTheOldTree) {
  AddHandbook();
  Pack pack;
  pack.root = {"handbook", "viking://resources/handbook", "resources", false, {}};
  pack.entries = {{"fine.md", false, "# Fine\n"}, {".skald-tmp.x", false, "reserved"}};
  auto bytes = WriteOvpack(pack);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  Reply r = Import(*bytes, "viking://resources", {{"on_conflict", "overwrite"}});
  EXPECT_EQ(r.status, 400) << r.raw;
  EXPECT_EQ(Read("viking://resources/handbook/quokka.md"),
            "# Quokkas\n\nQuokkas live on Rottnest Island and smile at tourists.\n");
  EXPECT_EQ(Get("/api/v1/fs/stat?uri=viking://resources/handbook/fine.md").status, 404);
}

// A top-level package (an export of a whole scope) goes back to viking://.
TEST_F(PackApiTest, AWholeScopeExportImportsAtTheRoot) {
  Create("viking://user/default/resources/todo.md", "# Todo\n\nFeed the quokkas.\n");
  Reply pack = Export("viking://user");
  ASSERT_EQ(pack.status, 200) << pack.raw;
  Restart(std::nullopt);
  Reply under = Import(pack.raw, "viking://resources");
  EXPECT_EQ(under.status, 400) << under.raw;  // a scope goes to viking:// only
  Reply imported = Import(pack.raw, "viking://");
  ASSERT_EQ(imported.status, 200) << imported.raw;
  EXPECT_EQ(imported.json["result"]["uri"], "viking://user");
  EXPECT_EQ(Read("viking://user/default/resources/todo.md"), "# Todo\n\nFeed the quokkas.\n");
}

TEST_F(PackApiTest, OnlyRootAndAdminsMayUseThePackRoutes) {
  const std::string root_key = "pack-root-key-0123456789";
  Restart(Json{{"server", {{"root_api_key", root_key}}}});
  auto as = [&](const std::string& key, const std::string& path, const Json& body) {
    return Post(path, body.dump(), "application/json", {{"X-API-Key", key}});
  };
  Reply account =
      as(root_key, "/api/v1/admin/accounts", {{"account_id", "acme"}, {"admin_user_id", "ada"}});
  ASSERT_EQ(account.status, 200) << account.raw;
  const std::string admin = account.json["result"].value("user_key", "");
  Reply user =
      as(admin, "/api/v1/admin/accounts/acme/users", {{"user_id", "bo"}, {"role", "user"}});
  ASSERT_EQ(user.status, 200) << user.raw;
  const std::string bo = user.json["result"].value("user_key", "");

  Reply written =
      as(admin, "/api/v1/content/write",
         {{"uri", "viking://resources/shared/a.md"}, {"content", "# A\n"}, {"mode", "create"}});
  ASSERT_EQ(written.status, 200) << written.raw;
  Reply denied = as(bo, "/api/v1/pack/export", {{"uri", "viking://resources/shared"}});
  EXPECT_EQ(denied.status, 403) << denied.raw;
  EXPECT_EQ(as(bo, "/api/v1/pack/backup", Json::object()).status, 403);
  Reply allowed = as(admin, "/api/v1/pack/export", {{"uri", "viking://resources/shared"}});
  EXPECT_EQ(allowed.status, 200) << allowed.raw;
}

}  // namespace
}  // namespace skald::apitest
