// Privacy configs over HTTP (/api/v1/privacy-configs*, OpenViking's routes):
// versions made by upserts (an unchanged upsert makes none), an earlier
// version activated, the listings, 404s for a missing config or version,
// validation 400s, the files in the caller's own space (never indexed), and
// a skill's config removed with the skill (`privacy_deleted`).

#include <httplib.h>

#include "tests/api/api_fixture.h"

namespace skald::apitest {
namespace {

class PrivacyApiTest : public ApiTest {
 protected:
  Reply Upsert(const std::string& target, const Json& body) {
    return PostJson("/api/v1/privacy-configs/skill/" + target, body);
  }
};

TEST_F(PrivacyApiTest, UpsertsMakeVersionsAndAnEarlierOneCanBeActivated) {
  EXPECT_EQ(Get("/api/v1/privacy-configs").json["result"], Json::array());
  EXPECT_EQ(Get("/api/v1/privacy-configs/skill").json["result"], Json::array());

  Reply first =
      Upsert("api-skill", {{"values", {{"api_key", "secret-1"}}}, {"change_reason", "seed"}});
  ASSERT_EQ(first.status, 200) << first.raw;
  EXPECT_EQ(first.json["result"]["version"], 1);
  EXPECT_EQ(first.json["result"]["category"], "skill");
  EXPECT_EQ(first.json["result"]["target_key"], "api-skill");
  EXPECT_EQ(first.json["result"]["values"], (Json{{"api_key", "secret-1"}}));
  EXPECT_EQ(first.json["result"]["change_reason"], "seed");
  EXPECT_EQ(first.json["result"]["created_by"], "default");
  EXPECT_TRUE(first.json["result"]["created_at"].get<std::string>().ends_with("Z"));

  // The same values again: no new version, the active snapshot answered.
  Reply same =
      Upsert("api-skill", {{"values", {{"api_key", "secret-1"}}}, {"change_reason", "again"}});
  ASSERT_EQ(same.status, 200) << same.raw;
  EXPECT_EQ(same.json["result"]["version"], 1);
  EXPECT_EQ(same.json["result"]["change_reason"], "seed");

  Reply second =
      Upsert("api-skill", {{"values", {{"api_key", "secret-2"}}}, {"labels", {{"env", "prod"}}}});
  ASSERT_EQ(second.status, 200) << second.raw;
  EXPECT_EQ(second.json["result"]["version"], 2);
  EXPECT_EQ(second.json["result"]["change_reason"], "");

  EXPECT_EQ(Get("/api/v1/privacy-configs").json["result"], (Json{"skill"}));
  EXPECT_EQ(Get("/api/v1/privacy-configs/skill").json["result"], (Json{"api-skill"}));
  EXPECT_EQ(Get("/api/v1/privacy-configs/skill/api-skill/versions").json["result"], (Json{1, 2}));
  Reply v1 = Get("/api/v1/privacy-configs/skill/api-skill/versions/1");
  ASSERT_EQ(v1.status, 200) << v1.raw;
  EXPECT_EQ(v1.json["result"]["values"]["api_key"], "secret-1");

  Reply got = Get("/api/v1/privacy-configs/skill/api-skill");
  ASSERT_EQ(got.status, 200) << got.raw;
  EXPECT_EQ(got.json["result"]["current"]["version"], 2);
  EXPECT_EQ(got.json["result"]["meta"]["active_version"], 2);
  EXPECT_EQ(got.json["result"]["meta"]["latest_version"], 2);
  EXPECT_EQ(got.json["result"]["meta"]["labels"], (Json{{"env", "prod"}}));

  // Back to version 1: active, no new version; the next change is 3.
  Reply activated = PostJson("/api/v1/privacy-configs/skill/api-skill/activate", {{"version", 1}});
  ASSERT_EQ(activated.status, 200) << activated.raw;
  EXPECT_EQ(activated.json["result"]["version"], 1);
  got = Get("/api/v1/privacy-configs/skill/api-skill");
  EXPECT_EQ(got.json["result"]["current"]["values"]["api_key"], "secret-1");
  EXPECT_EQ(got.json["result"]["meta"]["active_version"], 1);
  EXPECT_EQ(got.json["result"]["meta"]["latest_version"], 2);
  Reply third = Upsert("api-skill", {{"values", {{"api_key", "secret-3"}}}});
  EXPECT_EQ(third.json["result"]["version"], 3);
  EXPECT_EQ(Get("/api/v1/privacy-configs/skill/api-skill/versions").json["result"],
            (Json{1, 2, 3}));

  // The files are in the caller's own space, and never searched.
  Reply listed = Get("/api/v1/fs/ls?uri=viking://user/default/privacy/skill/api-skill/history");
  ASSERT_EQ(listed.status, 200) << listed.raw;
  EXPECT_EQ(listed.json["result"].size(), 3u) << listed.raw;
  PostJson("/api/v1/system/wait", {{"timeout", 30}});
  Reply found = PostJson("/api/v1/search/find", {{"query", "secret-3"}});
  ASSERT_EQ(found.status, 200) << found.raw;
  EXPECT_EQ(found.raw.find("privacy"), std::string::npos) << found.raw;
}

TEST_F(PrivacyApiTest, MissingConfigsVersionsAndBadBodiesAreRefused) {
  Reply missing = Get("/api/v1/privacy-configs/skill/none");
  EXPECT_EQ(missing.status, 404) << missing.raw;
  EXPECT_EQ(missing.Code(), "NOT_FOUND");
  EXPECT_EQ(missing.json["error"]["message"], "Privacy config not found: skill/none");
  EXPECT_EQ(Get("/api/v1/privacy-configs/skill/none/versions").status, 404);
  EXPECT_EQ(PostJson("/api/v1/privacy-configs/skill/none/activate", {{"version", 1}}).status, 404);

  ASSERT_EQ(Upsert("k", {{"values", {{"a", "1"}}}}).status, 200);
  Reply no_version = Get("/api/v1/privacy-configs/skill/k/versions/7");
  EXPECT_EQ(no_version.status, 404) << no_version.raw;
  EXPECT_EQ(no_version.json["error"]["message"], "Privacy config not found: skill/k/versions/7");
  EXPECT_EQ(PostJson("/api/v1/privacy-configs/skill/k/activate", {{"version", 7}}).status, 404);
  EXPECT_EQ(Get("/api/v1/privacy-configs/skill/k/versions/x").status, 400);

  for (const Json& bad : {Json::object(), Json{{"values", "text"}}, Json{{"values", nullptr}},
                          Json{{"values", Json::object()}, {"extra", 1}},
                          Json{{"values", Json::object()}, {"labels", 3}}}) {
    Reply r = Upsert("k", bad);
    EXPECT_EQ(r.status, 400) << bad.dump() << ": " << r.raw;
    EXPECT_EQ(r.Code(), "INVALID_ARGUMENT");
  }
  EXPECT_EQ(PostJson("/api/v1/privacy-configs/skill/k/activate", Json::object()).status, 400);
  EXPECT_EQ(Upsert("..", {{"values", {{"a", "1"}}}}).status, 400);
  ExpectHealthy();
}

TEST_F(PrivacyApiTest, ASkillsConfigGoesWithTheSkill) {
  Reply added =
      PostJson("/api/v1/skills", {{"data",
                                   {{"name", "api-skill"},
                                    {"description", "Calls the weather API"},
                                    {"content", "Use the API key to call the weather API."}}},
                                  {"wait", true}});
  ASSERT_EQ(added.status, 200) << added.raw;
  ASSERT_EQ(Upsert("api-skill", {{"values", {{"api_key", "secret-1"}}}}).status, 200);
  Reply deleted = Delete("/api/v1/skills/api-skill");
  ASSERT_EQ(deleted.status, 200) << deleted.raw;
  EXPECT_EQ(deleted.json["result"]["privacy_deleted"], true) << deleted.raw;
  EXPECT_EQ(Get("/api/v1/privacy-configs/skill/api-skill").status, 404);
}

}  // namespace
}  // namespace skald::apitest
