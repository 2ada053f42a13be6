// OVPack writing and reading on real zips: round trips, OpenViking's
// published checksum example, and packages altered after they were written.

#include "ingest/ovpack.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include "common/hash.h"
#include "tests/testutil/archive_writer.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

namespace fs = std::filesystem;
using testing::ArchiveFormat;
using testing::ArchiveItem;
using testing::TempDir;
using Json = nlohmann::json;

Pack DemoPack() {
  Pack pack;
  pack.root = {"demo", "viking://resources/demo", "resources", false, {}};
  pack.entries = {{".abstract.md", false, "root abstract"},
                  {"guide", true, ""},
                  {"guide/intro.md", false, "# Intro\n\nQuokkas.\n"},
                  {"notes.txt", false, "hello"}};
  PackRecord root0{"", true, 0, "root abstract", Json{{"level", 0}}, {}};
  PackRecord file{"notes.txt", false, 2, "", Json{{"tags", {"team=core"}}}, {0.5f, -1.0f}};
  pack.records = {root0, file};
  pack.embedding = PackEmbedding{"hashing", "", 2};
  return pack;
}

std::string WriteFile(const TempDir& tmp, const std::string& name, const std::string& bytes) {
  std::ofstream(tmp.Sub(name), std::ios::binary) << bytes;
  return tmp.Sub(name);
}

// The members of a zip, by name ("x/" for a directory), read back through
// the same reader the import uses.
std::map<std::string, std::string> Members(const TempDir& tmp, const std::string& zip) {
  auto tree = ReadArchive(zip, ArchiveLimits{});
  EXPECT_TRUE(tree.ok()) << tree.status().ToString();
  std::map<std::string, std::string> out;
  if (!tree.ok()) return out;
  for (const std::string& d : tree->dirs) out[d + "/"] = "";
  for (const auto& [name, bytes] : tree->files) out[name] = bytes;
  (void)tmp;
  return out;
}

// A zip of `members` (directories end in '/').
std::string Rezip(const TempDir& tmp, const std::map<std::string, std::string>& members,
                  const std::string& name = "altered.ovpack") {
  std::vector<ArchiveItem> items;
  for (const auto& [n, bytes] : members) {
    items.push_back(n.back() == '/' ? ArchiveItem::Dir(n) : ArchiveItem::File(n, bytes));
  }
  EXPECT_TRUE(testing::WriteTestArchive(tmp.Sub(name), ArchiveFormat::kZip, items));
  return tmp.Sub(name);
}

TEST(OvpackTest, ContentDigestMatchesOpenVikingsPublishedExample) {
  // OpenViking's OVPack guide: one file notes.txt holding "hello".
  std::vector<PackEntry> entries = {{"notes.txt", false, "hello"}};
  EXPECT_EQ(OvpackContentSha256(entries),
            "b2a6e9582119c7510d68e3446de3e71a486934bf450d68f65596259ed1cf7997");
}

TEST(OvpackTest, WrittenPackReadsBackWhole) {
  TempDir tmp;
  auto bytes = WriteOvpack(DemoPack());
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  const std::string path = WriteFile(tmp, "demo.ovpack", *bytes);

  auto members = Members(tmp, path);
  EXPECT_TRUE(members.count("demo/files/.abstract.md"));
  EXPECT_TRUE(members.count("demo/files/guide/"));
  EXPECT_TRUE(members.count("demo/_ovpack/dense.f32"));
  Json manifest = Json::parse(members["demo/_ovpack/manifest.json"]);
  EXPECT_EQ(manifest["format_version"], 3);
  EXPECT_EQ(manifest["kind"], "openviking.ovpack");
  EXPECT_EQ(manifest["root"]["uri"], "viking://resources/demo");
  EXPECT_EQ(manifest["entries"][0], (Json{{"path", ""}, {"kind", "directory"}}));
  EXPECT_EQ(manifest["index"]["records"]["count"], 2);
  EXPECT_EQ(manifest["index"]["dense"]["dimensions"], 2);
  EXPECT_EQ(manifest["content_sha256"], OvpackContentSha256(DemoPack().entries));

  auto pack = ReadOvpack(path, ArchiveLimits{});
  ASSERT_TRUE(pack.ok()) << pack.status().ToString();
  EXPECT_EQ(pack->root.name, "demo");
  EXPECT_EQ(pack->root.scope, "resources");
  EXPECT_FALSE(pack->root.backup);
  ASSERT_EQ(pack->entries.size(), 4u);
  EXPECT_EQ(pack->entries[0].path, ".abstract.md");
  EXPECT_EQ(pack->entries[1].path, "guide");
  EXPECT_TRUE(pack->entries[1].is_dir);
  EXPECT_EQ(pack->entries[2].bytes, "# Intro\n\nQuokkas.\n");
  ASSERT_EQ(pack->records.size(), 2u);
  EXPECT_EQ(pack->records[0].text, "root abstract");
  EXPECT_EQ(pack->records[1].scalars["tags"][0], "team=core");
  EXPECT_EQ(pack->records[1].vector, (std::vector<float>{0.5f, -1.0f}));
  ASSERT_TRUE(pack->embedding.has_value());
  EXPECT_EQ(pack->embedding->provider, "hashing");
}

TEST(OvpackTest, ABackupCarriesItsScopes) {
  TempDir tmp;
  Pack pack;
  pack.root = {std::string(kOvpackBackupName), "viking://", "root", true, {"resources", "user"}};
  pack.entries = {{"resources", true, ""}, {"resources/a.md", false, "# A\n"}, {"user", true, ""}};
  auto bytes = WriteOvpack(pack);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto read = ReadOvpack(WriteFile(tmp, "b.ovpack", *bytes), ArchiveLimits{});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE(read->root.backup);
  EXPECT_EQ(read->root.uri, "viking://");
  EXPECT_EQ(read->root.scopes, (std::vector<std::string>{"resources", "user"}));
  EXPECT_TRUE(read->records.empty());
  EXPECT_FALSE(read->embedding.has_value());
}

// Each alteration of a good package, and the words its refusal carries.
TEST(OvpackTest, AlteredPackagesAreRefusedWithTheReason) {
  TempDir tmp;
  auto bytes = WriteOvpack(DemoPack());
  ASSERT_TRUE(bytes.ok());
  const auto good = Members(tmp, WriteFile(tmp, "good.ovpack", *bytes));
  auto manifest_of = [&](const std::map<std::string, std::string>& m) {
    return Json::parse(m.at("demo/_ovpack/manifest.json"));
  };
  struct Case {
    const char* name;
    std::function<void(std::map<std::string, std::string>&)> alter;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"no manifest", [](auto& m) { m.erase("demo/_ovpack/manifest.json"); },
       "Missing ovpack manifest"},
      {"an old layout (files at the root, no manifest)",
       [](auto& m) {
         m = {{"demo/", ""}, {"demo/readme.md", "# Readme\n"}, {"demo/_._meta.json", "{}"}};
       },
       "Missing ovpack manifest"},
      {"content changed", [](auto& m) { m["demo/files/notes.txt"] = "jello"; },
       "sha256 does not match manifest"},
      {"old format",
       [&](auto& m) {
         Json j = manifest_of(m);
         j["format_version"] = 2;
         m["demo/_ovpack/manifest.json"] = j.dump();
       },
       "Unsupported ovpack format_version 2"},
      {"extra directory", [](auto& m) { m["demo/files/empty/"] = ""; },
       "entries do not match manifest"},
      {"extra file", [](auto& m) { m["demo/files/more.md"] = "x"; },
       "entries do not match manifest"},
      {"file outside files/", [](auto& m) { m["demo/stray.md"] = "x"; },
       "outside the files directory"},
      {"renamed root",
       [](auto& m) {
         std::map<std::string, std::string> renamed;
         for (auto& [k, v] : m) renamed["other" + k.substr(4)] = v;
         m = renamed;
       },
       "root name does not match zip root"},
      {"digest changed",
       [&](auto& m) {
         Json j = manifest_of(m);
         j["content_sha256"] = std::string(64, 'a');
         m["demo/_ovpack/manifest.json"] = j.dump();
       },
       "content_sha256 mismatch"},
      {"records changed", [](auto& m) { m["demo/_ovpack/index_records.jsonl"] += "{}\n"; },
       "index records sha256"},
      {"vectors changed", [](auto& m) { m["demo/_ovpack/dense.f32"][0] ^= 1; },
       "dense vector sha256"},
      {"deep nesting",
       [&](auto& m) {
         Json j = manifest_of(m);
         j["entries"][1]["x"] = "DEEP";
         std::string text = j.dump();
         // Spliced in as text: building it as a Json and printing it would recurse.
         text.replace(text.find("\"DEEP\""), 6,
                      std::string(100000, '[') + std::string(100000, ']'));
         m["demo/_ovpack/manifest.json"] = text;
       },
       "nests deeper than"},
      {"a record nesting deep",
       [&](auto& m) {
         const std::string lines = std::string(500000, '[') + "\n";
         m["demo/_ovpack/index_records.jsonl"] = lines;
         Json j = manifest_of(m);  // the manifest vouches for it
         j["index"]["records"]["sha256"] = Sha256Hex(lines);
         j["index"]["records"]["count"] = 1;
         m["demo/_ovpack/manifest.json"] = j.dump();
       },
       "nests deeper than"},
      {"huge vectors",
       [&](auto& m) {
         Json j = manifest_of(m);
         j["index"]["dense"]["dimensions"] = int64_t{1} << 62;
         m["demo/_ovpack/manifest.json"] = j.dump();
       },
       "dimensions"},
      {"a root name that is no URI segment",
       [](auto& m) {
         std::map<std::string, std::string> renamed;
         for (auto& [k, v] : m) {
           std::string name = "pkg?x" + k.substr(4);
           renamed[name] = k.ends_with("manifest.json") ? "" : v;
         }
         Json j = Json::parse(m.at("demo/_ovpack/manifest.json"));
         j["root"]["name"] = "pkg?x";
         j["root"]["uri"] = "viking://resources/pkg?x";
         renamed["pkg?x/_ovpack/manifest.json"] = j.dump();
         m = renamed;
       },
       "root name"},
      {"an entry name that is no URI segment",
       [&](auto& m) {
         Json j = manifest_of(m);
         j["entries"].push_back({{"path", "{calendar:year}"}, {"kind", "directory"}});
         m["demo/_ovpack/manifest.json"] = j.dump();
         m["demo/files/{calendar:year}/"] = "";
       },
       "Unsafe ovpack relative path"},
      {"unsafe entry path",
       [&](auto& m) {
         Json j = manifest_of(m);
         j["entries"].push_back({{"path", "a/../b"}, {"kind", "directory"}});
         m["demo/_ovpack/manifest.json"] = j.dump();
       },
       "Unsafe ovpack relative path"},
  };
  for (const Case& c : cases) {
    auto m = good;
    c.alter(m);
    auto read = ReadOvpack(Rezip(tmp, m), ArchiveLimits{});
    ASSERT_FALSE(read.ok()) << c.name;
    EXPECT_EQ(read.status().code(), StatusCode::kInvalidArgument) << c.name;
    EXPECT_NE(read.status().message().find(c.expected), std::string::npos)
        << c.name << ": " << read.status().ToString();
  }
  // A package_type that is not a string is no backup, and no error.
  for (const Json& type : {Json(5), Json(), Json::array()}) {
    auto m = good;
    Json j = manifest_of(m);
    j["root"]["package_type"] = type;
    m["demo/_ovpack/manifest.json"] = j.dump();
    auto read = ReadOvpack(Rezip(tmp, m), ArchiveLimits{});
    ASSERT_TRUE(read.ok()) << type.dump() << ": " << read.status().ToString();
    EXPECT_FALSE(read->root.backup);
  }
  // The unaltered members, zipped by another writer, still read.
  auto read = ReadOvpack(Rezip(tmp, good), ArchiveLimits{});
  EXPECT_TRUE(read.ok()) << read.status().ToString();
}

TEST(OvpackTest, NonFiniteVectorsAreRefused) {
  TempDir tmp;
  for (float value : {std::numeric_limits<float>::quiet_NaN(),
                      std::numeric_limits<float>::infinity()}) {
    Pack pack = DemoPack();
    pack.records[1].vector = {value, 1.0f};
    auto bytes = WriteOvpack(pack);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    auto read = ReadOvpack(WriteFile(tmp, "nan.ovpack", *bytes), ArchiveLimits{});
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(read.status().message().find("non-finite"), std::string::npos)
        << read.status().ToString();
  }
}

TEST(OvpackTest, NotAZipIsRefused) {
  TempDir tmp;
  auto read = ReadOvpack(WriteFile(tmp, "x.ovpack", "not a zip"), ArchiveLimits{});
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kInvalidArgument);
}

TEST(OvpackTest, RelativePathRules) {
  EXPECT_TRUE(CheckPackRelPath("a/b.md").ok());
  EXPECT_TRUE(CheckPackRelPath(".abstract.md").ok());
  EXPECT_TRUE(CheckPackRelPath("_._notes.txt").ok());
  for (const char* bad : {"", "/a", "a//b", "a/./b", "../a", "a\\b", "C:x", "a/"}) {
    EXPECT_FALSE(CheckPackRelPath(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace skald
