// /api/v1/search/{glob,grep} (with their tag filters and glob's extra_fields),
// and the filter DSL of find.

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

class SearchApiTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    if (HasFatalFailure()) return;
    Create(Root() + "/a.md", "alpha\nBeta line\n");
    Create(Root() + "/sub/b.md", "beta again\nnothing\n");
    Create(Root() + "/sub/c.txt", "gamma\n");
  }
};

TEST_F(SearchApiTest, GlobMatchesAndCounts) {
  Reply r = PostJson("/api/v1/search/glob",
                     {{"pattern", "**/*.md"}, {"uri", Root()}, {"ignored_field", true}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.json["result"]["matches"], Json::array({Root() + "/a.md", Root() + "/sub/b.md"}));
  EXPECT_EQ(r.json["result"]["count"], 2);
  EXPECT_TRUE(r.json["error"].is_null());

  Reply limited =
      PostJson("/api/v1/search/glob", {{"pattern", "**/*"}, {"uri", Root()}, {"node_limit", 1}});
  ASSERT_EQ(limited.status, 200) << limited.raw;
  EXPECT_EQ(limited.json["result"]["matches"].size(), 1u);
  Reply unlimited = PostJson("/api/v1/search/glob",
                             {{"pattern", "**/*.txt"}, {"uri", Root()}, {"node_limit", nullptr}});
  ASSERT_EQ(unlimited.status, 200) << unlimited.raw;
  EXPECT_EQ(unlimited.json["result"]["count"], 1);
}

TEST_F(SearchApiTest, GlobDefaultsAndErrors) {
  Reply everywhere = PostJson("/api/v1/search/glob", {{"pattern", "**/c.txt"}});
  ASSERT_EQ(everywhere.status, 200) << everywhere.raw;
  EXPECT_EQ(everywhere.json["result"]["matches"], Json::array({Root() + "/sub/c.txt"}));

  Reply empty = PostJson("/api/v1/search/glob", {{"pattern", ""}, {"uri", Root()}});
  EXPECT_EQ(empty.status, 400) << empty.raw;
  Reply missing_dir = PostJson("/api/v1/search/glob", {{"pattern", "*"}, {"uri", Root() + "/x"}});
  EXPECT_EQ(missing_dir.status, 404) << missing_dir.raw;
  Reply no_pattern = PostJson("/api/v1/search/glob", {{"uri", Root()}});
  ASSERT_EQ(no_pattern.status, 400) << no_pattern.raw;
  EXPECT_EQ(no_pattern.json["error"]["details"]["validation_errors"][0]["loc"],
            Json::array({"body", "pattern"}));
  Reply wrong_type = PostJson("/api/v1/search/glob", {{"pattern", "*"}, {"node_limit", "many"}});
  EXPECT_EQ(wrong_type.status, 400) << wrong_type.raw;
}

TEST_F(SearchApiTest, GrepReturnsLineNumbersAndCounts) {
  Reply r = PostJson("/api/v1/search/grep", {{"uri", Root()}, {"pattern", "eta"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const Json& g = r.json["result"];
  ASSERT_EQ(g["matches"].size(), 2u) << r.raw;
  for (const Json& m : g["matches"]) {
    EXPECT_TRUE(m["uri"].is_string());
    EXPECT_TRUE(m["line"].is_number_integer());
    EXPECT_TRUE(m["content"].is_string());
  }
  EXPECT_EQ(g["matches"][0]["uri"], Root() + "/a.md");
  EXPECT_EQ(g["matches"][0]["line"], 2);
  EXPECT_EQ(g["matches"][0]["content"], "Beta line");
  EXPECT_EQ(g["count"], 2);
  EXPECT_EQ(g["match_count"], 2);
  EXPECT_TRUE(g["files_scanned"].is_number_integer());
  EXPECT_GE(g["files_scanned"].get<int>(), 2);
}

TEST_F(SearchApiTest, GrepOptions) {
  Reply sensitive = PostJson("/api/v1/search/grep", {{"uri", Root()}, {"pattern", "^beta"}});
  ASSERT_EQ(sensitive.status, 200) << sensitive.raw;
  EXPECT_EQ(sensitive.json["result"]["count"], 1);
  Reply insensitive = PostJson("/api/v1/search/grep",
                               {{"uri", Root()}, {"pattern", "^beta"}, {"case_insensitive", true}});
  ASSERT_EQ(insensitive.status, 200) << insensitive.raw;
  EXPECT_EQ(insensitive.json["result"]["count"], 2);

  Reply excluded =
      PostJson("/api/v1/search/grep",
               {{"uri", Root()}, {"pattern", "eta"}, {"exclude_uri", Root() + "/sub"}});
  ASSERT_EQ(excluded.status, 200) << excluded.raw;
  EXPECT_EQ(excluded.json["result"]["count"], 1);

  Reply limited =
      PostJson("/api/v1/search/grep", {{"uri", Root()}, {"pattern", "a"}, {"node_limit", 1}});
  ASSERT_EQ(limited.status, 200) << limited.raw;
  EXPECT_EQ(limited.json["result"]["matches"].size(), 1u);
  EXPECT_GE(limited.json["result"]["match_count"].get<int>(), 2);
}

TEST_F(SearchApiTest, GrepErrors) {
  Reply bad_regex = PostJson("/api/v1/search/grep", {{"uri", Root()}, {"pattern", "(unclosed"}});
  EXPECT_EQ(bad_regex.status, 400) << bad_regex.raw;
  EXPECT_EQ(bad_regex.Code(), "INVALID_ARGUMENT");
  Reply no_uri = PostJson("/api/v1/search/grep", {{"pattern", "x"}});
  EXPECT_EQ(no_uri.status, 400) << no_uri.raw;
  Reply missing = PostJson("/api/v1/search/grep", {{"uri", Root() + "/none"}, {"pattern", "x"}});
  EXPECT_EQ(missing.status, 404) << missing.raw;
  Reply bad_flag = PostJson("/api/v1/search/grep",
                            {{"uri", Root()}, {"pattern", "x"}, {"case_insensitive", "perhaps"}});
  EXPECT_EQ(bad_flag.status, 400) << bad_flag.raw;
}

// `tags` and `include_tags` of grep and glob, and glob's `extra_fields`
// (what `ov grep/glob --tags` and `ov glob -f name,uri,size,type,tags` send).
class SearchTagsApiTest : public SearchApiTest {
 protected:
  void SetUp() override {
    SearchApiTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 60}}).status, 200);
    Tag(Root() + "/a.md", {"team=search", "lang=en"});
    Tag(Root() + "/sub/b.md", {"team=search"});
  }
  void Tag(const std::string& uri, const Json& tags) {
    Reply r = PostJson("/api/v1/fs/attrs/set_tags", {{"uri", uri}, {"tags", tags}});
    ASSERT_EQ(r.status, 200) << r.raw;
  }
  // The `uri` of each match (a string or an object's member).
  static std::vector<std::string> Uris(const Reply& r) {
    std::vector<std::string> out;
    for (const Json& m : r.json["result"]["matches"]) {
      out.push_back(m.is_string() ? m.get<std::string>() : m.value("uri", ""));
    }
    return out;
  }
  Reply Grep(Json body) {
    body["uri"] = Root();
    return PostJson("/api/v1/search/grep", body);
  }
  Reply Glob(Json body) {
    body["uri"] = Root();
    return PostJson("/api/v1/search/glob", body);
  }
};

TEST_F(SearchTagsApiTest, GrepScansOnlyTaggedFilesAndShowsTheirTags) {
  // Every tag must match (AND), normalised as find normalises them.
  Reply both = Grep({{"pattern", "eta"}, {"tags", {"Team=Search", "lang=en"}}});
  ASSERT_EQ(both.status, 200) << both.raw;
  EXPECT_EQ(Uris(both), std::vector<std::string>{Root() + "/a.md"});
  EXPECT_EQ(both.json["result"]["matches"][0]["tags"], Json({"team=search", "lang=en"}));
  EXPECT_EQ(both.json["result"]["files_scanned"], 1) << "untagged files are not scanned";

  Reply team = Grep({{"pattern", "a"}, {"tags", {"team=search"}}});
  ASSERT_EQ(team.status, 200) << team.raw;
  const std::vector<std::string> uris = Uris(team);
  EXPECT_EQ(std::set<std::string>(uris.begin(), uris.end()),
            (std::set<std::string>{Root() + "/a.md", Root() + "/sub/b.md"}))
      << "c.txt has 'gamma' but no tags: " << team.raw;
  // A comma-separated string is a list too (as find takes it).
  Reply none = Grep({{"pattern", "a"}, {"tags", "team=search,lang=de"}});
  ASSERT_EQ(none.status, 200) << none.raw;
  EXPECT_EQ(none.json["result"]["count"], 0) << none.raw;

  // include_tags alone: every match, with its file's tags ([] when none).
  Reply all = Grep({{"pattern", "^(gamma|beta again)$"}, {"include_tags", true}});
  ASSERT_EQ(all.status, 200) << all.raw;
  ASSERT_EQ(all.json["result"]["count"], 2) << all.raw;
  for (const Json& m : all.json["result"]["matches"]) {
    const Json want = m["uri"] == Root() + "/sub/b.md" ? Json({"team=search"}) : Json::array();
    EXPECT_EQ(m["tags"], want) << m.dump();
  }
  // The default answer carries no tags.
  Reply plain = Grep({{"pattern", "eta"}});
  ASSERT_EQ(plain.status, 200) << plain.raw;
  ASSERT_EQ(plain.json["result"]["count"], 2) << plain.raw;
  EXPECT_FALSE(plain.json["result"]["matches"][0].contains("tags")) << plain.raw;
}

TEST_F(SearchTagsApiTest, GlobFiltersByTagsAndAnswersObjectsWhenAskedFor) {
  // A tags filter keeps the default shape: URI strings, filtered before node_limit.
  Reply team = Glob({{"pattern", "**/*"}, {"tags", {"team=search"}}});
  ASSERT_EQ(team.status, 200) << team.raw;
  EXPECT_EQ(team.json["result"]["matches"], Json({Root() + "/a.md", Root() + "/sub/b.md"}));
  EXPECT_EQ(team.json["result"]["count"], 2);
  Reply limited = Glob({{"pattern", "**/*"}, {"tags", {"team=search"}}, {"node_limit", 1}});
  EXPECT_EQ(limited.json["result"]["matches"], Json({Root() + "/a.md"})) << limited.raw;
  Reply both = Glob({{"pattern", "**/*"}, {"tags", {"team=search", "lang=en"}}});
  EXPECT_EQ(both.json["result"]["matches"], Json({Root() + "/a.md"})) << both.raw;

  // include_tags: objects {uri, tags}.
  Reply tagged = Glob({{"pattern", "**/*.md"}, {"include_tags", true}});
  ASSERT_EQ(tagged.status, 200) << tagged.raw;
  EXPECT_EQ(tagged.json["result"]["matches"],
            Json({{{"uri", Root() + "/a.md"}, {"tags", {"team=search", "lang=en"}}},
                  {{"uri", Root() + "/sub/b.md"}, {"tags", {"team=search"}}}}));

  // extra_fields: the named fields, as `ov glob -f name,uri,size,type,tags` asks.
  Reply fields =
      Glob({{"pattern", "**/*.md"}, {"extra_fields", {"name", "uri", "size", "type", "tags"}}});
  ASSERT_EQ(fields.status, 200) << fields.raw;
  const Json& a = fields.json["result"]["matches"][0];
  EXPECT_EQ(a, Json({{"uri", Root() + "/a.md"},
                     {"name", "a.md"},
                     {"size", 16},
                     {"type", "file"},
                     {"tags", {"team=search", "lang=en"}}}));
  Reply dirs = Glob({{"pattern", "**"}, {"extra_fields", {"isDir", "type", "rel_path"}}});
  ASSERT_EQ(dirs.status, 200) << dirs.raw;
  ASSERT_EQ(dirs.json["result"]["count"], 4) << dirs.raw;
  EXPECT_EQ(
      dirs.json["result"]["matches"][1],
      Json(
          {{"uri", Root() + "/sub"}, {"isDir", true}, {"type", "directory"}, {"rel_path", "sub"}}));
  EXPECT_EQ(dirs.json["result"]["matches"][2], Json({{"uri", Root() + "/sub/b.md"},
                                                     {"isDir", false},
                                                     {"type", "file"},
                                                     {"rel_path", "sub/b.md"}}));
  Reply times = Glob({{"pattern", "*.md"}, {"extra_fields", {"modTime", "mode"}}});
  ASSERT_EQ(times.status, 200) << times.raw;
  EXPECT_TRUE(times.json["result"]["matches"][0]["modTime"].is_string()) << times.raw;
  EXPECT_EQ(times.json["result"]["matches"][0]["mode"], 420) << times.raw;

  // Neither extra_fields nor include_tags: OpenViking's plain answer.
  Reply plain = Glob({{"pattern", "**/*.md"}, {"extra_fields", nullptr}, {"tags", nullptr}});
  ASSERT_EQ(plain.status, 200) << plain.raw;
  EXPECT_EQ(plain.json["result"]["matches"], Json({Root() + "/a.md", Root() + "/sub/b.md"}));
}

TEST_F(SearchTagsApiTest, BadTagsAndFieldsAre400UnknownFieldsLeftOut) {
  auto expect_400 = [](const Reply& r, const std::string& field) {
    EXPECT_EQ(r.status, 400) << r.raw;
    EXPECT_EQ(r.Code(), "INVALID_ARGUMENT") << r.raw;
    EXPECT_EQ(r.json["error"]["details"]["validation_errors"][0]["loc"],
              Json::array({"body", field}))
        << r.raw;
  };
  for (const std::string route : {"/api/v1/search/grep", "/api/v1/search/glob"}) {
    const Json base = {{"uri", Root()}, {"pattern", "a"}};
    auto with = [&](const char* name, const Json& value) {
      Json body = base;
      body[name] = value;
      return PostJson(route, body);
    };
    expect_400(with("tags", {"no-equals-sign"}), "tags");
    expect_400(with("tags", {1}), "tags");
    expect_400(with("tags", 7), "tags");
    expect_400(with("include_tags", "perhaps"), "include_tags");
  }
  // A name glob does not know is left out, as ls leaves it (ov sends the
  // columns its user names).
  Reply unknown = Glob({{"pattern", "*"}, {"extra_fields", {"name", "colour"}}});
  ASSERT_EQ(unknown.status, 200) << unknown.raw;
  ASSERT_FALSE(unknown.json["result"]["matches"].empty()) << unknown.raw;
  for (const Json& m : unknown.json["result"]["matches"]) {
    EXPECT_TRUE(m.contains("name")) << unknown.raw;
    EXPECT_FALSE(m.contains("colour")) << unknown.raw;
  }
  expect_400(Glob({{"pattern", "*"}, {"extra_fields", "name"}}), "extra_fields");
  expect_400(Glob({{"pattern", "*"}, {"extra_fields", {3}}}), "extra_fields");
}

// find's `filter` (OpenViking's DSL): each form narrows the hits to what it
// says; forms Skald cannot apply are 400 INVALID_FILTER.
TEST_F(SearchApiTest, FindFilterNarrowsTheHitsAsItSays) {
  Create(Root() + "/sub/deep/d.md", "beta beta deep\n");
  ASSERT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 60}}).status, 200);
  // The URIs of find's hits for "beta" under `filter`.
  auto hits = [&](const Json& filter) {
    Reply r = PostJson("/api/v1/search/find", {{"query", "beta"},
                                               {"limit", 50},
                                               {"target_uri", Root()},
                                               {"score_threshold", 0},
                                               {"filter", filter}});
    EXPECT_EQ(r.status, 200) << filter.dump() << " -> " << r.raw;
    std::set<std::string> uris;
    for (const Json& m : r.json["result"]["resources"]) uris.insert(m["uri"].get<std::string>());
    return uris;
  };
  const std::string sub = Root() + "/sub";
  auto must = [](const std::string& field, Json conds) {
    return Json{{"op", "must"}, {"field", field}, {"conds", std::move(conds)}};
  };
  const std::set<std::string> all = hits(Json::object({{"op", "and"}, {"conds", Json::array()}}));
  ASSERT_TRUE(all.count(Root() + "/a.md")) << ::testing::PrintToString(all);
  ASSERT_TRUE(all.count(sub + "/deep/d.md")) << ::testing::PrintToString(all);

  // uri: the subtree, or N levels of it.
  for (const std::string& uri : hits(must("uri", {sub}))) {
    EXPECT_EQ(uri.rfind(sub, 0), 0u) << uri;
  }
  EXPECT_TRUE(hits(must("uri", {sub})).count(sub + "/deep/d.md"));
  Json shallow = must("uri", {sub});
  shallow["para"] = "-d=1";
  const std::set<std::string> one_level = hits(shallow);
  EXPECT_TRUE(one_level.count(sub + "/b.md")) << ::testing::PrintToString(one_level);
  EXPECT_FALSE(one_level.count(sub + "/deep/d.md")) << ::testing::PrintToString(one_level);
  const std::set<std::string> prefixed =
      hits({{"op", "prefix"}, {"field", "uri"}, {"prefix", sub + "/deep"}});
  EXPECT_TRUE(prefixed.count(sub + "/deep/d.md")) << ::testing::PrintToString(prefixed);
  for (const std::string& uri : prefixed) EXPECT_EQ(uri.rfind(sub + "/deep", 0), 0u) << uri;
  // level, as must and as range; or of musts on one field.
  for (const Json& files_only :
       {must("level", {2}), Json{{"op", "range"}, {"field", "level"}, {"gte", 2}},
        Json{{"op", "or"}, {"conds", {must("level", {2})}}}}) {
    const std::set<std::string> files = hits(files_only);
    EXPECT_FALSE(files.empty()) << files_only.dump();
    for (const std::string& uri : files) EXPECT_TRUE(uri.ends_with(".md")) << uri;
  }
  EXPECT_EQ(hits({{"op", "or"}, {"conds", {must("level", {0}), must("level", {1})}}})
                .count(Root() + "/a.md"),
            0u);
  // Conditions that exclude each other, and another account: nothing.
  EXPECT_TRUE(hits({{"op", "and"}, {"conds", {must("level", {2}), must("level", {0})}}}).empty());
  EXPECT_TRUE(hits(must("account_id", {"someone-else"})).empty());
  EXPECT_EQ(hits(must("account_id", {"default"})), all);
  EXPECT_TRUE(hits(must("context_type", {"memory"})).empty());
  // The shorthand {field: value or [values]} (OpenViking's clients send
  // {"type": "resource"}): a must on each field, "type" for context_type.
  EXPECT_EQ(hits({{"type", "resource"}}), all);
  EXPECT_TRUE(hits({{"type", "memory"}}).empty());
  EXPECT_TRUE(hits({{"context_type", {"skill", "memory"}}}).empty());
  EXPECT_EQ(hits({{"level", 2}, {"type", "resource"}}), hits(must("level", {2})));
  EXPECT_TRUE(
      hits({{"op", "and"}, {"conds", {must("uri", {sub + "/deep"}), must("uri", {Root() + "/x"})}}})
          .empty());

  // No query and a filter: what the filter admits, listed (one hit per node,
  // in URI order, score 0: OpenViking's filter-only find).
  auto listed = [&](const Json& filter, const std::string& target) {
    Reply r = PostJson("/api/v1/search/find",
                       {{"query", ""}, {"target_uri", target}, {"filter", filter}, {"limit", 50}});
    EXPECT_EQ(r.status, 200) << filter.dump() << " -> " << r.raw;
    std::vector<std::string> uris;
    for (const char* kind : {"memories", "resources", "skills"}) {
      for (const Json& m : r.json["result"][kind]) {
        EXPECT_EQ(m.value("score", -1.0), 0.0) << r.raw;
        uris.push_back(m["uri"].get<std::string>());
      }
    }
    return uris;
  };
  EXPECT_EQ(listed(must("uri", {Root() + "/a.md"}), Root() + "/a.md"),
            std::vector<std::string>{Root() + "/a.md"});
  const std::vector<std::string> files = listed(must("level", {2}), Root());
  EXPECT_TRUE(std::is_sorted(files.begin(), files.end()));
  // Every file, whether or not it holds the word a query would look for.
  const std::set<std::string> file_set(files.begin(), files.end());
  for (const std::string& uri : hits(must("level", {2}))) EXPECT_TRUE(file_set.count(uri)) << uri;
  EXPECT_TRUE(file_set.count(sub + "/c.txt")) << ::testing::PrintToString(files);
  for (const std::string& uri : files) EXPECT_FALSE(uri.ends_with("/sub")) << uri;
  const std::vector<std::string> one_level_dirs = listed(shallow, Root());
  EXPECT_TRUE(std::count(one_level_dirs.begin(), one_level_dirs.end(), sub)) << sub;
  EXPECT_FALSE(std::count(one_level_dirs.begin(), one_level_dirs.end(), sub + "/deep/d.md"));
  EXPECT_TRUE(listed({{"type", "memory"}}, Root()).empty());
  // A sibling whose name extends the scope's is not in it; `limit` holds.
  Create(Root() + "/sub2/e.md", "epsilon\n");
  ASSERT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 60}}).status, 200);
  for (const std::string& uri : listed(must("uri", {sub}), Root())) {
    EXPECT_FALSE(uri.starts_with(sub + "2")) << uri;
  }
  Reply one = PostJson(
      "/api/v1/search/find",
      {{"query", ""}, {"target_uri", Root()}, {"filter", must("level", {2})}, {"limit", 1}});
  ASSERT_EQ(one.status, 200) << one.raw;
  EXPECT_EQ(one.json["result"]["resources"].size(), 1u) << one.raw;
  // An empty condition inside the DSL is refused (only a whole empty filter
  // is ignored).
  Reply empty_cond =
      PostJson("/api/v1/search/find",
               {{"query", ""}, {"filter", {{"op", "and"}, {"conds", {Json::object()}}}}});
  EXPECT_EQ(empty_cond.status, 400) << empty_cond.raw;
  // Without a filter, or in search, an empty query is still refused.
  EXPECT_EQ(PostJson("/api/v1/search/find", {{"query", ""}}).status, 400);
  EXPECT_EQ(
      PostJson("/api/v1/search/search", {{"query", ""}, {"filter", must("level", {2})}}).status,
      400);

  for (const Json& bad :
       {Json{{"op", "must_not"}, {"field", "level"}, {"conds", {2}}},
        Json{{"op", "or"}, {"conds", {must("level", {2}), must("context_type", {"resource"})}}},
        must("search_tags", {"a=b", "c=d"}), must("level", {7}), must("size", {1}),
        Json{{"op", "range"}, {"field", "level"}}, Json{{"size", 1}},
        Json{{"field", "level"}, {"conds", {2}}}}) {
    Reply r = PostJson("/api/v1/search/find", {{"query", "beta"}, {"filter", bad}});
    EXPECT_EQ(r.status, 400) << bad.dump() << " -> " << r.raw;
    EXPECT_EQ(r.Code(), "INVALID_FILTER") << bad.dump() << " -> " << r.raw;
  }
  ExpectHealthy();
}

// search's include_links (OpenViking's): each hit carries the relations
// from it and to it; list mode of search only.
TEST_F(SearchApiTest, SearchIncludeLinksShowsEachHitsRelations) {
  const std::string a = Root() + "/a.md";
  const std::string b = Root() + "/sub/b.md";
  ASSERT_EQ(PostJson("/api/v1/relations/link", {{"from_uri", a}, {"to_uris", {b}}}).status, 200);
  ASSERT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 60}}).status, 200);
  Reply r = PostJson(
      "/api/v1/search/search",
      {{"query", "beta"}, {"target_uri", Root()}, {"include_links", true}, {"score_threshold", 0}});
  ASSERT_EQ(r.status, 200) << r.raw;
  bool saw_a = false, saw_b = false;
  for (const Json& hit : r.json["result"]["resources"]) {
    const Json edge = {{"from_uri", a}, {"to_uri", b}};
    if (hit["uri"] == a) {
      saw_a = true;
      EXPECT_EQ(hit["links"], Json::array({edge})) << r.raw;
      EXPECT_EQ(hit["backlinks"], Json::array()) << r.raw;
    }
    if (hit["uri"] == b) {
      saw_b = true;
      EXPECT_EQ(hit["links"], Json::array()) << r.raw;
      EXPECT_EQ(hit["backlinks"], Json::array({edge})) << r.raw;
    }
  }
  EXPECT_TRUE(saw_a && saw_b) << r.raw;
  Reply plain = PostJson("/api/v1/search/search", {{"query", "beta"}, {"target_uri", Root()}});
  ASSERT_EQ(plain.status, 200) << plain.raw;
  EXPECT_EQ(plain.raw.find("backlinks"), std::string::npos) << plain.raw;
  for (const Json& body : {Json{{"query", "beta"}, {"include_links", true}, {"mode", "context"}}}) {
    Reply refused = PostJson("/api/v1/search/search", body);
    EXPECT_EQ(refused.status, 400) << refused.raw;
    EXPECT_EQ(refused.Code(), "INVALID_ARGUMENT") << refused.raw;
  }
  Reply find = PostJson("/api/v1/search/find", {{"query", "beta"}, {"include_links", true}});
  EXPECT_EQ(find.status, 400) << find.raw;
}

}  // namespace
}  // namespace skald::apitest
