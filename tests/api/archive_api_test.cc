// Archives and URLs as add-resource sources over HTTP (issue 11): zip and
// tar.gz uploads import as trees; hostile archives (zip slip, links, bombs,
// corrupt bytes) end their task `failed` with a clear error while the
// server keeps serving; URLs to non-public hosts are refused unless
// allow_private_networks; args.parse_mode=no_split keeps Markdown whole.

#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <thread>

#include "tests/api/api_fixture.h"
#include "tests/testutil/archive_writer.h"

namespace skald::apitest {
namespace {

using ::skald::testing::ArchiveFormat;
using ::skald::testing::ArchiveItem;
using ::skald::testing::WriteTestArchive;
using Kind = ArchiveItem::Kind;

std::vector<ArchiveItem> Handbook() {
  return {ArchiveItem::Dir("guide/"),
          ArchiveItem::File("guide/intro.md", "# Intro\n\nThe quokka handbook starts here.\n"),
          ArchiveItem::File("guide/deep/more/notes.txt", "Notes about wombatfeeding schedules.\n"),
          ArchiveItem::File("README.md", "# Readme\n\nA handbook of marsupial care.\n")};
}

class ArchiveApiTest : public ApiTest {
 protected:
  // Writes an archive of `items`, uploads it as `filename` and starts its
  // import; returns the add-resource result.
  Json AddArchive(ArchiveFormat format, const std::vector<ArchiveItem>& items,
                  const std::string& filename, Json extra = Json::object()) {
    const std::string path = scratch_.Sub(filename);
    EXPECT_TRUE(WriteTestArchive(path, format, items));
    const std::string id = UploadTemp(ReadBytes(path), filename);
    std::remove(path.c_str());
    extra["temp_file_id"] = id;
    Reply r = PostJson("/api/v1/resources", extra);
    EXPECT_EQ(r.status, 200) << r.raw;
    return r.json["result"];
  }

  // Expects the import to fail with an error holding `words`, and the
  // server to keep serving.
  void ExpectFails(ArchiveFormat format, const std::vector<ArchiveItem>& items,
                   const std::string& filename, const std::string& words) {
    Json added = AddArchive(format, items, filename);
    const std::string task_id = added.value("task_id", "");
    ASSERT_FALSE(task_id.empty()) << added.dump();
    Json task = WaitForTask(task_id);
    EXPECT_EQ(task.value("status", ""), "failed") << task.dump();
    const std::string error = task["error"].is_string() ? task["error"].get<std::string>() : "";
    EXPECT_NE(error.find(words), std::string::npos) << task.dump();
    EXPECT_EQ(error.find(workspace_->path()), std::string::npos) << "host path in " << error;
    ExpectNoStaging();
    ExpectHealthy();
  }

  // A finished import (completed or failed) leaves no staged copy behind.
  void ExpectNoStaging() {
    const std::filesystem::path staging = workspace_->Sub("temp/import");
    std::error_code ec;
    EXPECT_TRUE(!std::filesystem::exists(staging, ec) || std::filesystem::is_empty(staging, ec))
        << "staging left under temp/import";
  }

  TempDir scratch_;  // archives are written here before they are uploaded
};

TEST_F(ArchiveApiTest, ZipOfANestedFolderImportsAsATreeAndIsFindable) {
  Json added = AddArchive(ArchiveFormat::kZip, Handbook(), "handbook.zip");
  EXPECT_EQ(added.value("root_uri", ""), "viking://resources/handbook") << added.dump();
  Json task = WaitForTask(added.value("task_id", ""));
  ASSERT_EQ(task.value("status", ""), "completed") << task.dump();
  ExpectNoStaging();
  EXPECT_EQ(FilesUnder("viking://resources/handbook"),
            (std::vector<std::string>{"viking://resources/handbook/README.md",
                                      "viking://resources/handbook/guide/deep/more/notes.md",
                                      "viking://resources/handbook/guide/intro.md"}));
  Reply found =
      PostJson("/api/v1/search/find", {{"query", "wombatfeeding schedules"}, {"limit", 3}});
  ASSERT_EQ(found.status, 200) << found.raw;
  EXPECT_NE(found.raw.find("viking://resources/handbook/guide/deep/more/notes.md"),
            std::string::npos)
      << found.raw;
}

TEST_F(ArchiveApiTest, TarGzWithOneTopFolderTakesTheGivenName) {
  std::vector<ArchiveItem> items = {ArchiveItem::Dir("site-main/")};
  for (ArchiveItem item : Handbook()) {
    item.name = "site-main/" + item.name;
    items.push_back(item);
  }
  // As `ov add-resource DIR` sends it: the directory's name as source_name.
  Json added = AddArchive(ArchiveFormat::kTarGz, items, ".tmpQ1w2e3.tar.gz",
                          {{"source_name", "site"}, {"wait", false}});
  EXPECT_EQ(added.value("root_uri", ""), "viking://resources/site") << added.dump();
  Json task = WaitForTask(added.value("task_id", ""));
  ASSERT_EQ(task.value("status", ""), "completed") << task.dump();
  // The lone top folder is the root, not a level below it.
  EXPECT_EQ(FilesUnder("viking://resources/site"),
            (std::vector<std::string>{"viking://resources/site/README.md",
                                      "viking://resources/site/guide/deep/more/notes.md",
                                      "viking://resources/site/guide/intro.md"}));
}

// OpenViking's placement rules for trees: `to` ending in '/' is a directory
// the tree goes into under its name, answered with the slash of a
// directory; `to` without it is the tree's root; the bare resources root is
// refused (it would name the whole space as the resource).
TEST_F(ArchiveApiTest, ToPlacesATreeInsideOrAtItAndRefusesTheBareRoot) {
  const std::vector<ArchiveItem> items = {ArchiveItem::File("demo_dir/a.md", "# a\n"),
                                          ArchiveItem::File("demo_dir/b.md", "# b\n")};
  Json inside = AddArchive(ArchiveFormat::kZip, items, "demo_dir.zip",
                           {{"to", "viking://resources/custom/"}, {"wait", true}});
  EXPECT_EQ(inside.value("root_uri", ""), "viking://resources/custom/demo_dir/") << inside.dump();
  Reply stat = Get("/api/v1/fs/stat?uri=" + Q(inside.value("root_uri", "")));
  ASSERT_EQ(stat.status, 200) << stat.raw;
  EXPECT_TRUE(stat.json["result"].value("isDir", false)) << stat.raw;
  EXPECT_EQ(FilesUnder("viking://resources/custom/demo_dir"),
            (std::vector<std::string>{"viking://resources/custom/demo_dir/a.md",
                                      "viking://resources/custom/demo_dir/b.md"}));
  Json at = AddArchive(ArchiveFormat::kZip, items, "demo_dir.zip",
                       {{"to", "viking://resources/custom/explicit_root"}, {"wait", true}});
  EXPECT_EQ(at.value("root_uri", ""), "viking://resources/custom/explicit_root") << at.dump();
  // The resources root itself: with its slash the tree goes in under its
  // name (no slash added: it is a top-level resource, as without `to`).
  Json top = AddArchive(ArchiveFormat::kZip, items, "demo_dir.zip",
                        {{"to", "viking://resources/"}, {"wait", true}});
  EXPECT_EQ(top.value("root_uri", ""), "viking://resources/demo_dir") << top.dump();
  const std::string path = scratch_.Sub("bare.zip");
  ASSERT_TRUE(WriteTestArchive(path, ArchiveFormat::kZip, items));
  Reply bare =
      PostJson("/api/v1/resources", {{"temp_file_id", UploadTemp(ReadBytes(path), "d.zip")},
                                     {"to", "viking://resources"},
                                     {"wait", true}});
  ASSERT_EQ(bare.status, 400) << bare.raw;
  EXPECT_EQ(bare.Code(), "INVALID_ARGUMENT") << bare.raw;
  EXPECT_NE(bare.raw.find("viking://resources/"), std::string::npos) << bare.raw;
  ExpectHealthy();
}

// An archive of one file is placed as that file (OpenViking unpacks, then
// applies the placement rules); a folder the CLI zipped (its name sent as
// source_name) stays a folder.
TEST_F(ArchiveApiTest, AnArchiveOfOneFileIsPlacedAsThatFile) {
  const std::vector<ArchiveItem> one = {ArchiveItem::File("hello.md", "# Hello\n\nPuffins.\n")};
  auto is_dir = [&](const std::string& uri) {
    Reply r = Get("/api/v1/fs/stat?uri=" + Q(uri));
    EXPECT_EQ(r.status, 200) << uri << ": " << r.raw;
    return r.json["result"].value("isDir", true);
  };
  Json inside = AddArchive(ArchiveFormat::kZip, one, "single_file.zip",
                           {{"to", "viking://resources/custom_dir/"}, {"wait", true}});
  EXPECT_EQ(inside.value("root_uri", ""), "viking://resources/custom_dir/hello.md")
      << inside.dump();
  EXPECT_FALSE(is_dir("viking://resources/custom_dir/hello.md"));
  Reply read = Get("/api/v1/content/read?uri=" + Q("viking://resources/custom_dir/hello.md"));
  EXPECT_NE(read.raw.find("Puffins"), std::string::npos) << read.raw;
  Json at = AddArchive(ArchiveFormat::kZip, one, "one.zip",
                       {{"to", "viking://resources/custom_dir/renamed.md"}, {"wait", true}});
  EXPECT_EQ(at.value("root_uri", ""), "viking://resources/custom_dir/renamed.md") << at.dump();
  EXPECT_FALSE(is_dir("viking://resources/custom_dir/renamed.md"));
  // Named as a folder: a tree, with the file inside.
  Json folder = AddArchive(
      ArchiveFormat::kZip, one, ".tmpA1.zip",
      {{"to", "viking://resources/custom_dir/"}, {"source_name", "notes"}, {"wait", true}});
  EXPECT_EQ(folder.value("root_uri", ""), "viking://resources/custom_dir/notes/") << folder.dump();
  EXPECT_FALSE(is_dir("viking://resources/custom_dir/notes/hello.md"));
  // Without `to` an archive is a tree, as before.
  Json plain = AddArchive(ArchiveFormat::kZip, one, "single_file.zip", {{"wait", true}});
  EXPECT_EQ(plain.value("root_uri", ""), "viking://resources/single_file") << plain.dump();
  EXPECT_TRUE(is_dir("viking://resources/single_file"));
  // Two files are a tree.
  Json two = AddArchive(ArchiveFormat::kZip, {one[0], ArchiveItem::File("b.md", "# B\n")},
                        "two.zip", {{"to", "viking://resources/custom_dir/"}, {"wait", true}});
  EXPECT_EQ(two.value("root_uri", ""), "viking://resources/custom_dir/two/") << two.dump();
}

TEST_F(ArchiveApiTest, ZipSlipFails) {
  ExpectFails(
      ArchiveFormat::kZip,
      {ArchiveItem::File("ok.md", "# ok\n"), ArchiveItem::File("../../escaped.md", "# out\n")},
      "slip.zip", "points outside the archive");
}

TEST_F(ArchiveApiTest, SymlinkEntryFails) {
  ExpectFails(ArchiveFormat::kTarGz,
              {ArchiveItem::File("a.md", "# a\n"), ArchiveItem::Symlink("passwd", "/etc/passwd")},
              "links.tar.gz", "symbolic link");
}

TEST_F(ArchiveApiTest, ZipBombFails) {
  // ~64 KiB on the wire, 128 MiB expanded.
  ExpectFails(
      ArchiveFormat::kZip,
      {ArchiveItem::File("a.md", "# a\n"), ArchiveItem::File("zeros.txt", "", uint64_t{128} << 20)},
      "bomb.zip", "zip bomb");
}

TEST_F(ArchiveApiTest, CorruptArchiveFails) {
  const std::string path = scratch_.Sub("corrupt.zip");
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("PK\x03\x04 definitely not a zip archive", f);
    std::fclose(f);
  }
  const std::string id = UploadTemp(ReadBytes(path), "corrupt.zip");
  std::remove(path.c_str());
  Reply r = PostJson("/api/v1/resources", {{"temp_file_id", id}});
  ASSERT_EQ(r.status, 200) << r.raw;
  Json task = WaitForTask(r.json["result"].value("task_id", ""));
  EXPECT_EQ(task.value("status", ""), "failed") << task.dump();
  EXPECT_NE(task.value("error", "").find("corrupt"), std::string::npos) << task.dump();
  ExpectHealthy();
  // A good archive still imports afterwards.
  Json added = AddArchive(ArchiveFormat::kZip, Handbook(), "after.zip");
  EXPECT_EQ(WaitForTask(added.value("task_id", "")).value("status", ""), "completed");
}

TEST_F(ArchiveApiTest, WaitOnAFailedArchiveAnswersWithAnError) {
  const std::string path = scratch_.Sub("w.zip");
  ASSERT_TRUE(WriteTestArchive(path, ArchiveFormat::kZip, {ArchiveItem::File("../x.md", "# x\n")}));
  const std::string id = UploadTemp(ReadBytes(path), "w.zip");
  std::remove(path.c_str());
  Reply r = PostJson("/api/v1/resources", {{"temp_file_id", id}, {"wait", true}, {"timeout", 60}});
  EXPECT_EQ(r.status, 500) << r.raw;
  EXPECT_EQ(r.Code(), "PROCESSING_ERROR") << r.raw;
  EXPECT_NE(r.raw.find("points outside the archive"), std::string::npos) << r.raw;
  // As OpenViking answers a failed operation: no null siblings.
  EXPECT_FALSE(r.json.contains("result")) << r.raw;
  ExpectHealthy();
}

TEST_F(ArchiveApiTest, NoSplitKeepsMarkdownWhole) {
  std::string doc;
  for (int s = 0; s < 8; ++s) {
    doc += "# Chapter " + std::to_string(s) + "\n\n";
    for (int p = 0; p < 60; ++p) doc += "Sentence " + std::to_string(p) + " of a long chapter. ";
    doc += "\n\n";
  }
  Json added =
      AddArchive(ArchiveFormat::kZip, {ArchiveItem::File("book.md", doc)}, "whole.zip",
                 {{"args", {{"parse_mode", "no_split"}}}, {"processing_mode", "vectors_only"}});
  ASSERT_EQ(WaitForTask(added.value("task_id", "")).value("status", ""), "completed");
  EXPECT_EQ(FilesUnder("viking://resources/whole"),
            std::vector<std::string>{"viking://resources/whole/book.md"});
  Reply read = Get("/api/v1/content/read?uri=" + Q("viking://resources/whole/book.md"));
  EXPECT_EQ(read.json["result"], doc);

  // The default splits the same document.
  Json split = AddArchive(ArchiveFormat::kZip, {ArchiveItem::File("book.md", doc)}, "split.zip");
  ASSERT_EQ(WaitForTask(split.value("task_id", "")).value("status", ""), "completed");
  EXPECT_GT(FilesUnder("viking://resources/split").size(), 1u);

  Reply bad = PostJson("/api/v1/resources",
                       {{"path", "https://example.com/x.md"}, {"args", {{"parse_mode", "fast"}}}});
  EXPECT_EQ(bad.status, 400) << bad.raw;
}

TEST_F(ArchiveApiTest, UrlToLoopbackIsRefusedByDefault) {
  for (const std::string url : {"http://127.0.0.1:9/guide.md", "http://localhost/",
                                "http://[::1]:80/x", "http://169.254.169.254/latest"}) {
    Reply r = PostJson("/api/v1/resources", {{"path", url}});
    EXPECT_EQ(r.status, 403) << url << " -> " << r.raw;
    EXPECT_NE(r.raw.find("allow_private_networks"), std::string::npos) << r.raw;
  }
  Reply ftp = PostJson("/api/v1/resources", {{"path", "git@github.com:a/b.git"}});
  EXPECT_EQ(ftp.status, 501) << ftp.raw;
  ExpectHealthy();
}

// A server whose config sets allow_private_networks, and a loopback HTTP
// server for it to fetch from.
class PrivateUrlApiTest : public ArchiveApiTest {
 protected:
  void SetUp() override {
    signal(SIGPIPE, SIG_IGN);
    workspace_ = std::make_unique<TempDir>();
    config_dir_ = std::make_unique<TempDir>();
    const std::string conf = config_dir_->path() + "/skald.conf";
    std::FILE* f = std::fopen(conf.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(R"({"allow_private_networks": true})", f);
    std::fclose(f);
    server_ = SkaldProcess::Start(workspace_->path(), {"--config", conf});
    ASSERT_NE(server_, nullptr);
    client_ = server_->NewClient();

    web_.Get("/docs/lighthouse.md", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("# Lighthouse\n\nThe keeper polishes the fresnelprism nightly.\n",
                      "text/markdown");
    });
    web_.Get("/latest", [](const httplib::Request&, httplib::Response& res) {
      res.set_redirect("/docs/lighthouse.md");
    });
    web_.Get("/bundle.zip", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(bundle_, "application/zip");
    });
    web_.Get("/gone", [](const httplib::Request&, httplib::Response& res) { res.status = 404; });
    web_.Get("/img/Cat.PNG", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(
          std::string("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x02\0\0\0\x03\x08\x02\0\0\0", 29),
          "image/png");
    });
    web_port_ = web_.bind_to_any_port("127.0.0.1");
    web_thread_ = std::thread([this] { web_.listen_after_bind(); });
    while (!web_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  void TearDown() override {
    web_.stop();
    if (web_thread_.joinable()) web_thread_.join();
    ArchiveApiTest::TearDown();
  }
  std::string WebUrl(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(web_port_) + path;
  }

  std::unique_ptr<TempDir> config_dir_;
  httplib::Server web_;
  int web_port_ = 0;
  std::thread web_thread_;
  std::string bundle_;
};

TEST_F(PrivateUrlApiTest, MarkdownUrlIsFetchedAndImported) {
  Reply r = PostJson("/api/v1/resources", {{"path", WebUrl("/docs/lighthouse.md")}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.json["result"].value("root_uri", ""), "viking://resources/lighthouse") << r.raw;
  Json task = WaitForTask(r.json["result"].value("task_id", ""));
  ASSERT_EQ(task.value("status", ""), "completed") << task.dump();
  Reply found = PostJson("/api/v1/search/find", {{"query", "fresnelprism"}, {"limit", 3}});
  EXPECT_NE(found.raw.find("viking://resources/lighthouse"), std::string::npos) << found.raw;

  // A redirect is followed (and re-checked); wait=true answers once searchable.
  Reply hop = PostJson("/api/v1/resources", {{"path", WebUrl("/latest")}, {"wait", true}});
  ASSERT_EQ(hop.status, 200) << hop.raw;
  EXPECT_EQ(hop.json["result"].value("root_uri", ""), "viking://resources/latest") << hop.raw;

  // A watch is accepted but not kept: the answer says so.
  Reply watched = PostJson("/api/v1/resources", {{"path", WebUrl("/docs/lighthouse.md")},
                                                 {"to", "viking://resources/watched"},
                                                 {"watch_interval", 5},
                                                 {"wait", true}});
  ASSERT_EQ(watched.status, 200) << watched.raw;
  ASSERT_TRUE(watched.json["result"]["warnings"].is_array()) << watched.raw;
  EXPECT_NE(watched.raw.find("not watched"), std::string::npos) << watched.raw;
}

// A picture by URL is placed as an uploaded one: the one file of a
// directory {stem}_{ext} (extension in lower case) under images/YYYY/MM/DD,
// its bytes kept.
TEST_F(PrivateUrlApiTest, AnImageUrlIsPlacedAsAnUploadedImage) {
  Reply r = PostJson("/api/v1/resources", {{"path", WebUrl("/img/Cat.PNG")}, {"wait", true}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const std::string root = r.json["result"].value("root_uri", "");
  EXPECT_TRUE(
      std::regex_match(root, std::regex(R"(viking://resources/images/\d{4}/\d{2}/\d{2}/Cat_png)")))
      << r.raw;
  Reply got = Get("/api/v1/content/download?uri=" + Q(root + "/Cat.PNG"));
  ASSERT_EQ(got.status, 200) << got.raw;
  EXPECT_EQ(got.raw.size(), 29u);
  EXPECT_EQ(got.raw.substr(0, 4), "\x89PNG");
}

TEST_F(PrivateUrlApiTest, ZipUrlImportsAsATreeAndMissingUrlsFail) {
  const std::string path = scratch_.Sub("bundle.zip");
  ASSERT_TRUE(WriteTestArchive(path, ArchiveFormat::kZip, Handbook()));
  bundle_ = ReadBytes(path);
  std::remove(path.c_str());
  Reply r = PostJson("/api/v1/resources", {{"path", WebUrl("/bundle.zip")}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.json["result"].value("root_uri", ""), "viking://resources/bundle") << r.raw;
  ASSERT_EQ(WaitForTask(r.json["result"].value("task_id", "")).value("status", ""), "completed");
  EXPECT_EQ(FilesUnder("viking://resources/bundle").size(), 3u);

  Reply gone = PostJson("/api/v1/resources", {{"path", WebUrl("/gone")}});
  ASSERT_EQ(gone.status, 200) << gone.raw;
  Json task = WaitForTask(gone.json["result"].value("task_id", ""));
  EXPECT_EQ(task.value("status", ""), "failed");
  EXPECT_NE(task.value("error", "").find("404"), std::string::npos) << task.dump();
}

}  // namespace
}  // namespace skald::apitest
