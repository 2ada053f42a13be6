// /api/v1/fs/*: shapes, field names and types, defaults, status codes.

#include <regex>
#include <set>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

std::set<std::string> Keys(const Json& object) {
  std::set<std::string> keys;
  for (const auto& [key, unused] : object.items()) keys.insert(key);
  return keys;
}

const std::regex kIsoMillis(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)");
const std::regex kRfc3339(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)");

class FsApiTest : public ApiTest {};

TEST_F(FsApiTest, MkdirReturnsCanonicalUriAndConflictsWhenPresent) {
  Reply r = PostJson("/api/v1/fs/mkdir", {{"uri", Root() + "/a/b/"}, {"unknown_field", 1}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.json["status"], "ok");
  EXPECT_EQ(r.json["result"], Json({{"uri", Root() + "/a/b"}}));
  // Default envelope keeps the null siblings.
  EXPECT_TRUE(r.json.contains("error") && r.json["error"].is_null());
  EXPECT_TRUE(r.json.contains("telemetry") && r.json["telemetry"].is_null());
  EXPECT_TRUE(r.json.contains("profile") && r.json["profile"].is_null());

  Reply again = PostJson("/api/v1/fs/mkdir", {{"uri", Root() + "/a/b"}});
  EXPECT_EQ(again.status, 409) << again.raw;
  EXPECT_EQ(again.Code(), "CONFLICT");
  EXPECT_EQ(again.json["status"], "error");
  EXPECT_TRUE(again.json["error"]["message"].is_string());
  EXPECT_TRUE(again.json["error"]["details"].is_object());
}

TEST_F(FsApiTest, MkdirValidatesBody) {
  Reply missing = PostJson("/api/v1/fs/mkdir", Json::object());
  ASSERT_EQ(missing.status, 400) << missing.raw;
  EXPECT_EQ(missing.Code(), "INVALID_ARGUMENT");
  EXPECT_EQ(missing.json["error"]["message"],
            "Invalid request parameters: body.uri: Field required");
  EXPECT_EQ(missing.json["error"]["details"]["validation_errors"][0]["loc"],
            Json::array({"body", "uri"}));
  EXPECT_FALSE(missing.json.contains("result"));  // validation errors omit nulls

  Reply number = PostJson("/api/v1/fs/mkdir", {{"uri", 42}});
  ASSERT_EQ(number.status, 400) << number.raw;
  EXPECT_EQ(number.json["error"]["details"]["validation_errors"][0]["type"], "string_type");
}

TEST_F(FsApiTest, MkdirWithDescriptionBecomesAbstract) {
  Reply r = PostJson("/api/v1/fs/mkdir", {{"uri", Root()}, {"description", "Design notes"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  Reply abstract = Get("/api/v1/content/abstract?uri=" + Q(Root()));
  ASSERT_EQ(abstract.status, 200) << abstract.raw;
  EXPECT_EQ(abstract.json["result"], "Design notes");
}

TEST_F(FsApiTest, LsAgentEntriesHaveExactlyTheAgentFields) {
  Mkdir(Root() + "/sub");
  Create(Root() + "/file.md", "hello");
  Reply r = Get("/api/v1/fs/ls?uri=" + Q(Root()));
  ASSERT_EQ(r.status, 200) << r.raw;
  const Json& entries = r.json["result"];
  ASSERT_TRUE(entries.is_array());
  ASSERT_EQ(entries.size(), 2u) << r.raw;
  for (const Json& e : entries) {
    EXPECT_EQ(Keys(e), (std::set<std::string>{"uri", "size", "isDir", "modTime", "abstract"}))
        << e.dump();
    EXPECT_TRUE(e["uri"].is_string());
    EXPECT_TRUE(e["size"].is_number_integer());
    EXPECT_TRUE(e["isDir"].is_boolean());
    EXPECT_TRUE(std::regex_match(e["modTime"].get<std::string>(), kIsoMillis)) << e.dump();
    if (e["isDir"].get<bool>()) {
      EXPECT_EQ(e["uri"], Root() + "/sub");
      EXPECT_EQ(e["size"], 0);
      EXPECT_EQ(e["abstract"], "# " + Root() + "/sub [Directory abstract is not ready]");
    } else {
      EXPECT_EQ(e["uri"], Root() + "/file.md");
      EXPECT_EQ(e["size"], 5);
      EXPECT_EQ(e["abstract"], "");
    }
  }
}

TEST_F(FsApiTest, LsCutsDirectoryAbstractsToAbsLimit) {
  Mkdir(Root());
  const std::string description(300, 'd');
  ASSERT_EQ(PostJson("/api/v1/fs/mkdir", {{"uri", Root() + "/long"}, {"description", description}})
                .status,
            200);
  Reply full = Get("/api/v1/fs/ls?uri=" + Q(Root()));
  ASSERT_EQ(full.status, 200) << full.raw;
  // Default abs_limit 256: 253 characters + "...".
  EXPECT_EQ(full.json["result"][0]["abstract"], std::string(253, 'd') + "...");
  Reply cut = Get("/api/v1/fs/ls?abs_limit=50&uri=" + Q(Root()));
  ASSERT_EQ(cut.status, 200) << cut.raw;
  EXPECT_EQ(cut.json["result"][0]["abstract"], std::string(47, 'd') + "...");
  // Below 4 there is no room for "...": 0 (what OpenViking's callers send) is no abstract.
  Reply none = Get("/api/v1/fs/ls?output=original&abs_limit=0&uri=" + Q(Root()));
  ASSERT_EQ(none.status, 200) << none.raw;
  Reply three = Get("/api/v1/fs/ls?abs_limit=3&uri=" + Q(Root()));
  ASSERT_EQ(three.status, 200) << three.raw;
  EXPECT_EQ(three.json["result"][0]["abstract"], "ddd");
  EXPECT_EQ(Get("/api/v1/fs/ls?abs_limit=-1&uri=" + Q(Root())).status, 400);
}

TEST_F(FsApiTest, LsOriginalEntriesCarryNameModeAndRfc3339Time) {
  Mkdir(Root() + "/sub");
  Create(Root() + "/file.md", "hello");
  Reply r = Get("/api/v1/fs/ls?output=original&uri=" + Q(Root()));
  ASSERT_EQ(r.status, 200) << r.raw;
  ASSERT_EQ(r.json["result"].size(), 2u);
  for (const Json& e : r.json["result"]) {
    EXPECT_EQ(Keys(e), (std::set<std::string>{"name", "size", "mode", "modTime", "isDir", "uri"}))
        << e.dump();
    EXPECT_TRUE(std::regex_match(e["modTime"].get<std::string>(), kRfc3339)) << e.dump();
    // RAGFS reports 0o755 for directories and 0o644 for files, as integers.
    EXPECT_EQ(e["mode"], e["isDir"].get<bool>() ? 493 : 420);
    EXPECT_EQ(e["name"], e["isDir"].get<bool>() ? "sub" : "file.md");
  }
}

TEST_F(FsApiTest, LsSimpleRecursiveAndUnknownParams) {
  Create(Root() + "/a/deep.md", "x");
  Reply simple = Get("/api/v1/fs/ls?simple=true&depth=1&uri=" + Q(Root()));
  ASSERT_EQ(simple.status, 200) << simple.raw;
  EXPECT_EQ(simple.json["result"], Json::array({Root() + "/a"}));

  Reply recursive = Get("/api/v1/fs/ls?recursive=yes&uri=" + Q(Root()));
  ASSERT_EQ(recursive.status, 200) << recursive.raw;
  std::set<std::string> rel_paths;
  for (const Json& e : recursive.json["result"]) rel_paths.insert(e.value("rel_path", "?"));
  EXPECT_EQ(rel_paths, (std::set<std::string>{"a", "a/deep.md"}));
}

TEST_F(FsApiTest, LsHidesDotFilesUnlessAsked) {
  Create(Root() + "/.hidden.md", "secret");
  Create(Root() + "/shown.md", "x");
  Reply r = Get("/api/v1/fs/ls?simple=1&uri=" + Q(Root()));
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.json["result"], Json::array({Root() + "/shown.md"}));
  // With hidden files: .hidden.md too, and the directory's summaries once
  // its index job has written them (waited for: it runs in the background).
  ASSERT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 60}}).status, 200);
  Reply all = Get("/api/v1/fs/ls?simple=1&show_all_hidden=TRUE&uri=" + Q(Root()));
  ASSERT_EQ(all.status, 200) << all.raw;
  EXPECT_EQ(all.json["result"], Json::array({Root() + "/.abstract.md", Root() + "/.hidden.md",
                                             Root() + "/.overview.md", Root() + "/shown.md"}))
      << all.raw;
}

TEST_F(FsApiTest, LsLimitAliasWinsAndSortingWorks) {
  for (const char* name : {"b.md", "a.md", "c.md"}) Create(Root() + "/" + name, "x");
  Reply limited = Get("/api/v1/fs/ls?node_limit=1&limit=2&uri=" + Q(Root()));
  ASSERT_EQ(limited.status, 200) << limited.raw;
  EXPECT_EQ(limited.json["result"].size(), 2u);
  Reply node_limited = Get("/api/v1/fs/ls?node_limit=1&uri=" + Q(Root()));
  EXPECT_EQ(node_limited.json["result"].size(), 1u);

  Reply sorted = Get("/api/v1/fs/ls?simple=true&sort_by=name&sort_order=desc&uri=" + Q(Root()));
  ASSERT_EQ(sorted.status, 200) << sorted.raw;
  EXPECT_EQ(sorted.json["result"],
            Json::array({Root() + "/c.md", Root() + "/b.md", Root() + "/a.md"}));
}

TEST_F(FsApiTest, LsRejectsBadParameters) {
  Mkdir(Root());
  Reply output = Get("/api/v1/fs/ls?output=fancy&uri=" + Q(Root()));
  EXPECT_EQ(output.status, 400) << output.raw;
  EXPECT_EQ(output.Code(), "INVALID_ARGUMENT");

  Reply sort = Get("/api/v1/fs/ls?sort_by=size&uri=" + Q(Root()));
  ASSERT_EQ(sort.status, 400) << sort.raw;
  EXPECT_EQ(sort.json["error"]["details"]["validation_errors"][0]["type"], "literal_error");

  Reply limit = Get("/api/v1/fs/ls?node_limit=abc&uri=" + Q(Root()));
  ASSERT_EQ(limit.status, 400) << limit.raw;
  EXPECT_EQ(limit.json["error"]["message"],
            "Invalid request parameters: query.node_limit: Input should be a valid integer, "
            "unable to parse string as an integer");
  EXPECT_EQ(limit.json["error"]["details"]["validation_errors"][0]["loc"],
            Json::array({"query", "node_limit"}));

  Reply flag = Get("/api/v1/fs/ls?recursive=maybe&uri=" + Q(Root()));
  EXPECT_EQ(flag.status, 400) << flag.raw;

  Reply no_uri = Get("/api/v1/fs/ls");
  ASSERT_EQ(no_uri.status, 400) << no_uri.raw;
  EXPECT_EQ(no_uri.json["error"]["message"],
            "Invalid request parameters: query.uri: Field required");

  Reply missing = Get("/api/v1/fs/ls?uri=" + Q(Root() + "/nope"));
  EXPECT_EQ(missing.status, 404) << missing.raw;
  EXPECT_EQ(missing.Code(), "NOT_FOUND");
}

TEST_F(FsApiTest, RootListsOnlyExistingScopes) {
  Reply r = Get("/api/v1/fs/ls?simple=true&uri=" + Q("viking://"));
  ASSERT_EQ(r.status, 200) << r.raw;
  for (const Json& uri : r.json["result"]) {
    EXPECT_TRUE(uri == "viking://resources" || uri == "viking://user" || uri == "viking://agent")
        << uri;
  }
}

TEST_F(FsApiTest, TreeIsFlatWithRelPathAndHonoursLevelLimit) {
  Create(Root() + "/x/y/z.md", "x");
  Reply r = Get("/api/v1/fs/tree?uri=" + Q(Root()));
  ASSERT_EQ(r.status, 200) << r.raw;
  std::set<std::string> rel_paths;
  for (const Json& e : r.json["result"]) {
    EXPECT_EQ(Keys(e),
              (std::set<std::string>{"uri", "size", "isDir", "modTime", "rel_path", "abstract"}));
    rel_paths.insert(e["rel_path"].get<std::string>());
  }
  EXPECT_EQ(rel_paths, (std::set<std::string>{"x", "x/y", "x/y/z.md"}));

  Reply shallow = Get("/api/v1/fs/tree?level_limit=1&output=original&uri=" + Q(Root()));
  ASSERT_EQ(shallow.status, 200) << shallow.raw;
  ASSERT_EQ(shallow.json["result"].size(), 1u) << shallow.raw;
  EXPECT_EQ(Keys(shallow.json["result"][0]),
            (std::set<std::string>{"name", "size", "mode", "modTime", "isDir", "rel_path", "uri"}));
}

TEST_F(FsApiTest, StatReportsTypedFields) {
  // Written with wait: the indexing that follows a write holds the file's
  // lock meanwhile (isLocked true), and is done before the stat.
  Reply written = PostJson("/api/v1/content/write", {{"uri", Root() + "/f.md"},
                                                     {"content", "12345"},
                                                     {"mode", "create"},
                                                     {"wait", true}});
  ASSERT_EQ(written.status, 200) << written.raw;
  Reply file = Get("/api/v1/fs/stat?uri=" + Q(Root() + "/f.md"));
  ASSERT_EQ(file.status, 200) << file.raw;
  const Json& s = file.json["result"];
  EXPECT_EQ(s["name"], "f.md");
  EXPECT_EQ(s["size"], 5);
  EXPECT_EQ(s["isDir"], false);
  EXPECT_EQ(s["isLocked"], false);
  EXPECT_EQ(s["mode"], 420);
  EXPECT_TRUE(std::regex_match(s["modTime"].get<std::string>(), kRfc3339));

  Reply dir = Get("/api/v1/fs/stat?uri=" + Q(Root() + "/"));
  ASSERT_EQ(dir.status, 200) << dir.raw;
  EXPECT_EQ(dir.json["result"]["isDir"], true);
  EXPECT_EQ(dir.json["result"]["mode"], 493);

  Reply missing = Get("/api/v1/fs/stat?uri=" + Q(Root() + "/none.md"));
  ASSERT_EQ(missing.status, 404) << missing.raw;
  EXPECT_EQ(missing.Code(), "NOT_FOUND");
  EXPECT_EQ(missing.json["error"]["details"]["type"], "file");
}

TEST_F(FsApiTest, RmIsIdempotentAndGuardsDirectories) {
  Create(Root() + "/d/f.md", "x");
  Reply file = Delete("/api/v1/fs?uri=" + Q(Root() + "/d/f.md"));
  ASSERT_EQ(file.status, 200) << file.raw;
  EXPECT_EQ(file.json["result"]["uri"], Root() + "/d/f.md");
  EXPECT_TRUE(file.json["result"]["estimated_deleted_count"].is_number_integer());

  Reply again = Delete("/api/v1/fs?uri=" + Q(Root() + "/d/f.md"));
  EXPECT_EQ(again.status, 200) << again.raw;

  Create(Root() + "/d/g.md", "x");
  Reply dir = Delete("/api/v1/fs?uri=" + Q(Root() + "/d"));
  EXPECT_EQ(dir.status, 412) << dir.raw;
  EXPECT_EQ(dir.Code(), "FAILED_PRECONDITION");
  Reply recursive = Delete("/api/v1/fs?recursive=true&wait=false&uri=" + Q(Root() + "/d"));
  EXPECT_EQ(recursive.status, 200) << recursive.raw;
  EXPECT_EQ(Get("/api/v1/fs/stat?uri=" + Q(Root() + "/d")).status, 404);

  Reply root = Delete("/api/v1/fs?recursive=true&uri=" + Q("viking://"));
  EXPECT_EQ(root.status, 403) << root.raw;
  Reply bad_timeout = Delete("/api/v1/fs?timeout=soon&uri=" + Q(Root()));
  EXPECT_EQ(bad_timeout.status, 400) << bad_timeout.raw;
}

TEST_F(FsApiTest, MvMovesAndReportsFromTo) {
  Create(Root() + "/old.md", "content");
  Reply r =
      PostJson("/api/v1/fs/mv", {{"from_uri", Root() + "/old.md"}, {"to_uri", Root() + "/new.md"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.json["result"], Json({{"from", Root() + "/old.md"}, {"to", Root() + "/new.md"}}));
  EXPECT_EQ(Get("/api/v1/fs/stat?uri=" + Q(Root() + "/old.md")).status, 404);
  Reply read = Get("/api/v1/content/read?uri=" + Q(Root() + "/new.md"));
  EXPECT_EQ(read.json["result"], "content");

  Reply missing =
      PostJson("/api/v1/fs/mv", {{"from_uri", Root() + "/old.md"}, {"to_uri", Root() + "/x.md"}});
  EXPECT_EQ(missing.status, 404) << missing.raw;
  Reply no_to = PostJson("/api/v1/fs/mv", {{"from_uri", Root() + "/new.md"}});
  ASSERT_EQ(no_to.status, 400) << no_to.raw;
  EXPECT_EQ(no_to.json["error"]["details"]["validation_errors"][0]["loc"],
            Json::array({"body", "to_uri"}));
}

TEST_F(FsApiTest, ListingAndSearchLimitsHaveCeilings) {
  Mkdir(Root());
  const std::string uri = Q(Root());
  auto expect = [&](const Reply& r, int status) {
    EXPECT_EQ(r.status, status) << r.raw;
    if (status == 400) {
      EXPECT_EQ(r.Code(), "INVALID_ARGUMENT") << r.raw;
    }
  };
  expect(Get("/api/v1/fs/ls?node_limit=10000&uri=" + uri), 200);
  expect(Get("/api/v1/fs/ls?node_limit=10001&uri=" + uri), 400);
  expect(Get("/api/v1/fs/ls?limit=1000000&uri=" + uri), 400);
  expect(Get("/api/v1/fs/ls?abs_limit=4096&uri=" + uri), 200);
  expect(Get("/api/v1/fs/ls?abs_limit=4097&uri=" + uri), 400);
  expect(Get("/api/v1/fs/tree?level_limit=32&node_limit=10000&uri=" + uri), 200);
  expect(Get("/api/v1/fs/tree?level_limit=33&uri=" + uri), 400);
  expect(
      PostJson("/api/v1/search/grep", {{"uri", Root()}, {"pattern", "x"}, {"node_limit", 10001}}),
      400);
  expect(PostJson("/api/v1/search/grep", {{"uri", Root()}, {"pattern", "x"}, {"level_limit", 33}}),
         400);
  expect(
      PostJson("/api/v1/search/grep", {{"uri", Root()}, {"pattern", "x"}, {"node_limit", nullptr}}),
      200);
  expect(PostJson("/api/v1/search/glob", {{"pattern", "*"}, {"node_limit", 1000000}}), 400);
  expect(PostJson("/api/v1/search/glob", {{"pattern", "*"}, {"node_limit", 10000}}), 200);
  Reply over = Get("/api/v1/fs/ls?node_limit=10001&uri=" + uri);
  EXPECT_EQ(over.json["error"]["message"],
            "Invalid request parameters: query.node_limit: Input should be less than or equal to "
            "10000");
}

}  // namespace
}  // namespace skald::apitest
