// Search tags over HTTP: content/set_tags and fs/attrs/set_tags, GET
// fs/attrs, find's `tags` filter, and tags given with content/write.

#include <set>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

class TagsApiTest : public ApiTest {
 protected:
  // Writes `uri` and waits until it is indexed.
  void WriteIndexed(const std::string& uri, const std::string& content, const std::string& mode,
                    const Json& extra = Json::object()) {
    Json body = {{"uri", uri}, {"content", content}, {"mode", mode}, {"wait", true}};
    body.update(extra);
    Reply r = PostJson("/api/v1/content/write", body);
    ASSERT_EQ(r.status, 200) << r.raw;
  }
  Reply SetTags(const Json& body) { return PostJson("/api/v1/fs/attrs/set_tags", body); }
  void Reindex(const std::string& uri, const Json& extra) {
    Json body = {{"uri", uri}, {"wait", true}};
    body.update(extra);
    Reply r = PostJson("/api/v1/content/reindex", body);
    ASSERT_EQ(r.status, 200) << r.raw;
    ASSERT_EQ(r.json["result"]["status"], "completed") << r.raw;
  }
  Json TagsOf(const std::string& uri) {
    Reply r = Get("/api/v1/fs/attrs?uri=" + Q(uri));
    EXPECT_EQ(r.status, 200) << r.raw;
    EXPECT_EQ(r.json["result"]["uri"], uri) << r.raw;
    return r.json["result"]["attrs"]["tags"];
  }
  // The resource hits of find(query, tags) under Root().
  std::set<std::string> Found(const std::string& query, const Json& tags) {
    Reply r = PostJson("/api/v1/search/find",
                       {{"query", query}, {"target_uri", Root()}, {"tags", tags}, {"limit", 20}});
    EXPECT_EQ(r.status, 200) << r.raw;
    std::set<std::string> uris;
    for (const Json& hit : r.json["result"]["resources"]) uris.insert(hit["uri"]);
    return uris;
  }
};

TEST_F(TagsApiTest, SetTagsOnAFileIsWhatFindFiltersOn) {
  const std::string a = Root() + "/docs/a.md";
  const std::string b = Root() + "/docs/b.md";
  WriteIndexed(a, "# Otters\n\nSea otters hold hands while they sleep.\n", "create");
  WriteIndexed(b, "# Beavers\n\nBeavers build dams of sticks and mud.\n", "create");
  EXPECT_EQ(TagsOf(a), Json::array());

  Reply set = SetTags({{"uri", a}, {"tags", {" Team=Search ", "bare", "lang=de", "lang=EN"}}});
  ASSERT_EQ(set.status, 200) << set.raw;
  EXPECT_FALSE(set.json.contains("error")) << "exclude-none envelope: " << set.raw;
  const Json& r = set.json["result"];
  EXPECT_EQ(r["uri"], a);
  EXPECT_EQ(r["tags"], Json({"team=search", "lang=en"})) << "normalised, the bad one dropped";
  EXPECT_EQ(r["mode"], "replace");
  EXPECT_EQ(r["updated_uris"], Json({a}));
  EXPECT_EQ(r["success_count"], 1);
  EXPECT_EQ(r["skipped_count"], 0);
  EXPECT_EQ(r["failed_count"], 0);
  EXPECT_EQ(r["tags_updated"], true);
  EXPECT_EQ(r["context_type"], "resource");
  EXPECT_EQ(r["root_uri"], Root());
  EXPECT_EQ(TagsOf(a), Json({"team=search", "lang=en"}));

  // find: only the tagged file, whatever the case of the filter.
  const std::set<std::string> both = Found("otters sleep beavers dams", Json::array());
  EXPECT_EQ(both.count(a) + both.count(b), 2u);
  EXPECT_EQ(Found("otters sleep beavers dams", {"team=search"}), std::set<std::string>{a});
  EXPECT_EQ(Found("otters sleep beavers dams", {"TEAM=Search", "lang=en"}),
            std::set<std::string>{a});
  EXPECT_TRUE(Found("otters sleep beavers dams", {"team=other"}).empty());
  Reply bad = PostJson("/api/v1/search/find", {{"query", "x"}, {"tags", {"team-search"}}});
  EXPECT_EQ(bad.status, 400) << bad.raw;
  EXPECT_EQ(bad.Code(), "INVALID_ARGUMENT");

  // append merges by key; the echo is the request's tags.
  Reply appended = SetTags({{"uri", a}, {"tags", {"lang=fr", "tier=1"}}, {"mode", "append"}});
  ASSERT_EQ(appended.status, 200) << appended.raw;
  EXPECT_EQ(appended.json["result"]["tags"], Json({"lang=fr", "tier=1"}));
  EXPECT_EQ(TagsOf(a), Json({"team=search", "lang=fr", "tier=1"}));
  // The other route, replace with nothing: no tags left.
  Reply cleared = PostJson("/api/v1/content/set_tags", {{"uri", a}, {"tags", Json::array()}});
  ASSERT_EQ(cleared.status, 200) << cleared.raw;
  EXPECT_EQ(TagsOf(a), Json::array());
  EXPECT_TRUE(Found("otters sleep beavers dams", {"team=search"}).empty());
}

TEST_F(TagsApiTest, RecursiveTagsReachEveryRecordBelowAndSurviveReindexing) {
  const std::string dir = Root() + "/kb";
  const std::string a = dir + "/a.md";
  const std::string b = dir + "/sub/b.md";
  WriteIndexed(a, "# Alpha\n\nAlpha particles are helium nuclei.\n", "create");
  WriteIndexed(b, "# Beta\n\nBeta decay emits an electron.\n", "create");
  ASSERT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 60}}).status, 200);

  // Not recursive: the directory's own L0 and L1.
  Reply own = SetTags({{"uri", dir}, {"tags", {"env=prod"}}});
  ASSERT_EQ(own.status, 200) << own.raw;
  EXPECT_EQ(own.json["result"]["updated_uris"], Json({dir, dir})) << own.raw;
  EXPECT_EQ(own.json["result"]["root_uri"], dir);
  EXPECT_EQ(TagsOf(a), Json::array());

  Reply all = SetTags({{"uri", dir}, {"tags", {"team=physics"}}, {"recursive", true},
                       {"mode", "append"}});
  ASSERT_EQ(all.status, 200) << all.raw;
  std::multiset<std::string> updated;
  for (const Json& u : all.json["result"]["updated_uris"]) updated.insert(u);
  EXPECT_EQ(updated.count(dir), 2u) << all.raw;
  EXPECT_EQ(updated.count(dir + "/sub"), 2u) << all.raw;
  EXPECT_EQ(updated.count(a), 1u) << all.raw;
  EXPECT_EQ(updated.count(b), 1u) << all.raw;
  EXPECT_EQ(TagsOf(dir), Json({"env=prod", "team=physics"}));
  EXPECT_EQ(TagsOf(b), Json({"team=physics"}));

  // A content change re-indexes the file: its tags stay. Tags given with
  // a write apply to the file (append merges them in).
  WriteIndexed(b, "# Beta\n\nBeta decay emits an electron or a positron.\n", "replace");
  EXPECT_EQ(TagsOf(b), Json({"team=physics"}));
  WriteIndexed(b, "Neutrinos too.\n", "append", {{"tags", {"lang=en"}}, {"tag_mode", "append"}});
  EXPECT_EQ(TagsOf(b), Json({"team=physics", "lang=en"}));
  // Unchanged bytes with tags: the tags still apply.
  const std::string text = Get("/api/v1/content/read?uri=" + Q(b)).json["result"];
  WriteIndexed(b, text, "replace", {{"tags", {"x=1"}}});
  EXPECT_EQ(TagsOf(b), Json({"x=1"}));
  WriteIndexed(b, text + "More.\n", "replace", {{"tag_mode", "clear"}});
  EXPECT_EQ(TagsOf(b), Json::array());

  // Tags go with a moved or copied tree.
  ASSERT_EQ(SetTags({{"uri", a}, {"tags", {"kept=yes"}}}).status, 200);
  Reply moved = PostJson("/api/v1/fs/mv", {{"from_uri", dir}, {"to_uri", Root() + "/kb2"}});
  ASSERT_EQ(moved.status, 200) << moved.raw;
  ASSERT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 60}}).status, 200);
  EXPECT_EQ(TagsOf(Root() + "/kb2/a.md"), Json({"kept=yes"}));
  EXPECT_EQ(TagsOf(Root() + "/kb2"), Json({"env=prod", "team=physics"}));
  Reply copied = PostJson("/api/v1/fs/cp", {{"from_uri", Root() + "/kb2"},
                                            {"to_uri", Root() + "/kb3"}, {"recursive", true}});
  ASSERT_EQ(copied.status, 200) << copied.raw;
  ASSERT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 60}}).status, 200);
  EXPECT_EQ(TagsOf(Root() + "/kb3/a.md"), Json({"kept=yes"}));
  EXPECT_EQ(TagsOf(Root() + "/kb2/a.md"), Json({"kept=yes"}));

  // A reindex with tags puts them on every record it rebuilt; without, they stay.
  Reindex(Root() + "/kb3", {{"tags", {"Rev=2"}}, {"tag_mode", "append"}});
  EXPECT_EQ(TagsOf(Root() + "/kb3/a.md"), Json({"kept=yes", "rev=2"}));
  EXPECT_EQ(TagsOf(Root() + "/kb3"), Json({"env=prod", "team=physics", "rev=2"}));
  Reindex(Root() + "/kb3", {{"mode", "semantic_and_vectors"}});
  EXPECT_EQ(TagsOf(Root() + "/kb3/a.md"), Json({"kept=yes", "rev=2"}));
  Reindex(Root() + "/kb3/a.md", {{"tags", {"only=this"}}, {"recursive", false}});
  EXPECT_EQ(TagsOf(Root() + "/kb3/a.md"), Json({"only=this"}));
  EXPECT_EQ(TagsOf(Root() + "/kb3"), Json({"env=prod", "team=physics", "rev=2"}));
}

TEST_F(TagsApiTest, ListingsFilterAndShowTags) {
  const std::string dir = Root() + "/docs";
  WriteIndexed(dir + "/a.md", "# A\n\nalpha\n", "create");
  WriteIndexed(dir + "/b.md", "# B\n\nbeta\n", "create");
  WriteIndexed(dir + "/c.md", "# C\n\ngamma\n", "create");
  ASSERT_EQ(SetTags({{"uri", dir + "/a.md"}, {"tags", {"team=search", "lang=en"}}}).status, 200);
  ASSERT_EQ(SetTags({{"uri", dir + "/c.md"}, {"tags", {"team=search"}}}).status, 200);
  auto uris = [](const Reply& r) {
    std::vector<std::string> out;
    for (const Json& e : r.json["result"]) out.push_back(e.value("uri", ""));
    return out;
  };
  // As `ov ls --tags team=search` sends it: repeated tags, include_tags.
  Reply both = Get("/api/v1/fs/ls?uri=" + Q(dir) + "&tags=Team%3DSearch&include_tags=true");
  ASSERT_EQ(both.status, 200) << both.raw;
  EXPECT_EQ(uris(both), (std::vector<std::string>{dir + "/a.md", dir + "/c.md"}));
  EXPECT_EQ(both.json["result"][0]["tags"], Json({"team=search", "lang=en"}));
  Reply one = Get("/api/v1/fs/ls?uri=" + Q(dir) + "&tags=team%3Dsearch&tags=lang%3Den");
  EXPECT_EQ(uris(one), std::vector<std::string>{dir + "/a.md"}) << one.raw;
  // The filter applies before node_limit.
  Reply limited = Get("/api/v1/fs/ls?uri=" + Q(dir) + "&tags=team%3Dsearch&node_limit=1&offset=1");
  EXPECT_EQ(uris(limited), std::vector<std::string>{dir + "/c.md"}) << limited.raw;
  // include_tags alone (or extra_fields=tags): every entry, [] when none.
  Reply all = Get("/api/v1/fs/ls?uri=" + Q(dir) + "&output=original&extra_fields=tags");
  ASSERT_EQ(all.json["result"].size(), 3u) << all.raw;
  EXPECT_EQ(all.json["result"][1]["tags"], Json::array()) << all.raw;
  Reply plain = Get("/api/v1/fs/ls?uri=" + Q(dir));
  EXPECT_FALSE(plain.json["result"][0].contains("tags")) << plain.raw;
  Reply tree = Get("/api/v1/fs/tree?uri=" + Q(Root()) + "&tags=lang%3Den");
  EXPECT_EQ(uris(tree), std::vector<std::string>{dir + "/a.md"}) << tree.raw;
}

TEST_F(TagsApiTest, BadRequestsGetClearErrors) {
  const std::string a = Root() + "/a.md";
  WriteIndexed(a, "text\n", "create");
  auto expect = [&](const Reply& r, int status, const std::string& code) {
    EXPECT_EQ(r.status, status) << r.raw;
    EXPECT_EQ(r.Code(), code) << r.raw;
  };
  expect(SetTags({{"uri", a}}), 400, "INVALID_ARGUMENT");  // tags required
  expect(SetTags({{"uri", a}, {"tags", nullptr}}), 400, "INVALID_ARGUMENT");
  expect(SetTags({{"uri", a}, {"tags", {1}}}), 400, "INVALID_ARGUMENT");
  expect(SetTags({{"uri", a}, {"tags", {"a=b"}}, {"wait", true}}), 400, "INVALID_ARGUMENT");
  Reply mode = SetTags({{"uri", a}, {"tags", {"a=b"}}, {"mode", "bogus"}});
  expect(mode, 400, "INVALID_ARGUMENT");
  EXPECT_EQ(mode.json["error"]["message"], "unsupported tag mode: bogus");
  expect(SetTags({{"uri", Root() + "/nope.md"}, {"tags", {"a=b"}}}), 404, "NOT_FOUND");
  Json many = Json::array();
  for (int i = 0; i < 65; ++i) many.push_back("k" + std::to_string(i) + "=v");
  expect(SetTags({{"uri", a}, {"tags", many}}), 400, "INVALID_ARGUMENT");
  expect(SetTags({{"uri", a}, {"tags", {"k=" + std::string(1023, 'v')}}}), 400,
         "INVALID_ARGUMENT");
  EXPECT_EQ(SetTags({{"uri", a}, {"tags", {"k=" + std::string(1022, 'v')}}}).status, 200);
  // The same bounds on every route that takes tags.
  expect(PostJson("/api/v1/search/find", {{"query", "x"}, {"tags", many}}), 400,
         "INVALID_ARGUMENT");
  expect(PostJson("/api/v1/content/write",
                  {{"uri", a}, {"content", "y"}, {"tags", many}}),
         400, "INVALID_ARGUMENT");
  expect(PostJson("/api/v1/content/reindex", {{"uri", a}, {"tags", many}}), 400,
         "INVALID_ARGUMENT");
  expect(Get("/api/v1/fs/attrs?uri=" + Q(Root() + "/nope.md")), 404, "NOT_FOUND");
  expect(Get("/api/v1/fs/attrs"), 400, "INVALID_ARGUMENT");
  EXPECT_EQ(Get("/api/v1/content/set_tags").status, 405);
  // Another user's space is not there for this caller.
  expect(SetTags({{"uri", "viking://user/someone_else/memories/x.md"}, {"tags", {"a=b"}}}), 404,
         "NOT_FOUND");
  ExpectHealthy();
}

}  // namespace
}  // namespace skald::apitest
