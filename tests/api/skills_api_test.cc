// /api/v1/skills*: add (dict, SKILL.md text, MCP tool, upload), the
// validation OpenViking's own API tests check (missing name, empty data:
// 400), find with context_type skill, list, get, update, delete, validate,
// and the agent root.

#include "api_fixture.h"
#include "common/hash.h"
#include "tests/testutil/archive_writer.h"

namespace skald::apitest {
namespace {

constexpr const char* kSkillMd = R"(---
name: tide-tables
description: Predict high and low tide times for a harbour from its almanac.
allowed-tools: [Almanac, Calculator]
tags:
  - marine
---

# tide-tables

Reads the harbour almanac and predicts tides.

## Parameters

- **harbour** (string, required): the harbour name

## Examples

When is high tide in Brest on Sunday?
)";

class SkillsApiTest : public ApiTest {
 protected:
  Reply AddSkill(const Json& body) { return PostJson("/api/v1/skills", body); }

  // Adds `data` waiting for its index task; returns the result object.
  Json AddWaiting(const Json& data, const std::string& target = "") {
    Json body = {{"data", data}, {"wait", true}};
    if (!target.empty()) body["target_uri"] = target;
    Reply r = AddSkill(body);
    EXPECT_EQ(r.status, 200) << r.raw;
    EXPECT_EQ(r.json.value("status", ""), "ok") << r.raw;
    EXPECT_FALSE(r.json.contains("error")) << "exclude-none envelope expected: " << r.raw;
    return r.json["result"];
  }

  // Uploads a zip of `items` (as `ov add-skill DIR` does); its temp_file_id.
  std::string UploadZip(const std::vector<testing::ArchiveItem>& items) {
    const std::string zip = workspace_->path() + "/upload.zip";
    EXPECT_TRUE(testing::WriteTestArchive(zip, testing::ArchiveFormat::kZip, items));
    return UploadTemp(ReadBytes(zip), ".tmp123.zip");
  }

  // The `path` of each entry of a skill's `files`, in order.
  static Json FilePaths(const Json& skill) {
    Json paths = Json::array();
    for (const Json& f : skill["files"]) paths.push_back(f.value("path", ""));
    return paths;
  }

  Json FindSkills(const std::string& query) {
    Reply r = PostJson("/api/v1/search/find",
                       {{"query", query}, {"context_type", "skill"}, {"limit", 10}});
    EXPECT_EQ(r.status, 200) << r.raw;
    return r.json["result"]["skills"];
  }
};

TEST_F(SkillsApiTest, DictSkillIsStoredSummarizedAndFound) {
  Json result = AddWaiting({{"name", "lantern_trim"},
                            {"description", "Trim a lighthouse lantern wick evenly"},
                            {"content", "# lantern_trim\n\nCut the wick square with shears."}});
  EXPECT_EQ(result.value("status", ""), "success");
  EXPECT_EQ(result.value("uri", ""), "viking://user/default/skills/lantern_trim");
  EXPECT_EQ(result.value("root_uri", ""), result.value("uri", ""));
  EXPECT_EQ(result.value("name", ""), "lantern_trim");
  EXPECT_EQ(result.value("auxiliary_files", -1), 0);
  EXPECT_EQ(result["queue_status"]["Semantic"].value("processed", 0), 1) << result.dump();
  EXPECT_FALSE(result.contains("task_id")) << result.dump();

  Reply abstract = Get("/api/v1/content/abstract?uri=" +
                       Q("viking://user/default/skills/lantern_trim"));
  ASSERT_EQ(abstract.status, 200) << abstract.raw;
  EXPECT_EQ(abstract.json["result"].get<std::string>(),
            "lantern_trim: Trim a lighthouse lantern wick evenly");
  Reply md = Get("/api/v1/content/read?uri=" + Q("viking://user/default/skills/lantern_trim/SKILL.md"));
  ASSERT_EQ(md.status, 200) << md.raw;
  EXPECT_EQ(md.json["result"].get<std::string>().rfind("---\nname: lantern_trim\n", 0), 0u)
      << md.raw;

  Json skills = FindSkills("lighthouse lantern wick");
  ASSERT_FALSE(skills.empty()) << skills.dump();
  bool found = false;
  for (const Json& s : skills) {
    EXPECT_EQ(s.value("context_type", ""), "skill") << s.dump();
    EXPECT_TRUE(s.contains("score"));
    if (s.value("uri", "").find("skills/lantern_trim") != std::string::npos) found = true;
  }
  EXPECT_TRUE(found) << skills.dump();

  Reply listed = Get("/api/v1/skills");
  ASSERT_EQ(listed.status, 200) << listed.raw;
  EXPECT_EQ(listed.json["result"]["root_uris"],
            Json({"viking://user/default/skills", "viking://agent/skills"}));
  ASSERT_EQ(listed.json["result"].value("total", 0), 1) << listed.raw;
  EXPECT_EQ(listed.json["result"]["skills"][0].value("name", ""), "lantern_trim");
  EXPECT_EQ(listed.json["result"]["skills"][0].value("description", ""),
            "Trim a lighthouse lantern wick evenly");
}

TEST_F(SkillsApiTest, BadSkillDataIsRefusedWith400) {
  // OpenViking's api tests: a dict without name, and {}, are 400.
  EXPECT_EQ(AddSkill({{"data", {{"description", "no name"}, {"content", "x"}}}, {"wait", true}})
                .status,
            400);
  EXPECT_EQ(AddSkill({{"data", Json::object()}, {"wait", true}}).status, 400);
  EXPECT_EQ(AddSkill(Json::object()).status, 400);
  EXPECT_EQ(AddSkill({{"data", "# no frontmatter\n"}}).status, 400);
  EXPECT_EQ(AddSkill({{"data", {{"name", "../escape"}}}}).status, 400);
  EXPECT_EQ(AddSkill({{"data", {{"name", std::string(65, 'n')}}}}).status, 400);
  EXPECT_EQ(AddSkill({{"data", {{"name", 7}}}}).status, 400);
  EXPECT_EQ(AddSkill({{"data", {{"name", "ok"}}}, {"unknown", 1}}).status, 400);
  EXPECT_EQ(AddSkill({{"data", {{"name", "ok"}}}, {"target_uri", "viking://resources/x"}}).status,
            400);
  EXPECT_EQ(Post("/api/v1/skills", "{not json").status, 400);
  // A path on the caller's machine is never read by the server.
  for (const char* local : {"/tmp/skills/knots", "~/skills/knots", "./knots", "file:///tmp/x"}) {
    Reply r = AddSkill({{"data", local}});
    EXPECT_EQ(r.status, 403) << local << ": " << r.raw;
    EXPECT_EQ(r.Code(), "PERMISSION_DENIED") << r.raw;
  }
  Reply forged = AddSkill({{"temp_file_id", "upload_../../etc/passwd"}});
  EXPECT_EQ(forged.status, 403) << forged.raw;
  // Only a name, or no description: accepted.
  EXPECT_EQ(AddSkill({{"data", {{"name", "bare"}}}, {"wait", true}}).status, 200);
  EXPECT_EQ(
      AddSkill({{"data", {{"name", "content_only"}, {"content", "# c\n\nOnly content."}}}}).status,
      200);
  ExpectHealthy();
}

TEST_F(SkillsApiTest, SkillMarkdownMcpToolAndUploadAreAccepted) {
  Json md = AddWaiting(kSkillMd);
  EXPECT_EQ(md.value("name", ""), "tide-tables");

  Json mcp = AddWaiting({{"name", "get_weather"},
                         {"description", "Current weather for a city"},
                         {"inputSchema",
                          {{"type", "object"},
                           {"properties", {{"city", {{"type", "string"}}}}},
                           {"required", {"city"}}}}});
  EXPECT_EQ(mcp.value("name", ""), "get-weather");
  Reply shown = Get("/api/v1/skills/get-weather");
  ASSERT_EQ(shown.status, 200) << shown.raw;
  EXPECT_NE(shown.json["result"].value("content", "").find("- **city** (string, required)"),
            std::string::npos)
      << shown.raw;

  const std::string id =
      UploadTemp(std::string(kSkillMd).replace(10, 11, "tide-uploaded"), "SKILL.md");
  ASSERT_FALSE(id.empty());
  Reply added = AddSkill({{"temp_file_id", id}, {"wait", true}});
  ASSERT_EQ(added.status, 200) << added.raw;
  EXPECT_EQ(added.json["result"].value("name", ""), "tide-uploaded");
  Reply uploaded = Get("/api/v1/skills/tide-uploaded?include_source=true");
  ASSERT_EQ(uploaded.status, 200) << uploaded.raw;
  EXPECT_EQ(uploaded.json["result"]["source"].value("source", ""), "temp_upload") << uploaded.raw;
  // The upload is consumed.
  EXPECT_EQ(AddSkill({{"temp_file_id", id}}).status, 403);

  Reply detail = Get("/api/v1/skills/tide-tables");
  ASSERT_EQ(detail.status, 200) << detail.raw;
  const Json& d = detail.json["result"];
  EXPECT_EQ(d.value("description", ""),
            "Predict high and low tide times for a harbour from its almanac.");
  EXPECT_EQ(d["allowed_tools"], Json({"Almanac", "Calculator"}));
  EXPECT_EQ(d["tags"], Json({"marine"}));
  EXPECT_NE(d.value("overview", "").find("- Examples: When is high tide in Brest on Sunday?"),
            std::string::npos)
      << d.dump();
  EXPECT_EQ(FilePaths(d), Json({".abstract.md", ".overview.md", "SKILL.md"})) << d.dump();
  // Its index task is an add_skill task, as OpenViking names it.
  Reply tasks = Get("/api/v1/tasks?task_type=add_skill");
  ASSERT_EQ(tasks.status, 200) << tasks.raw;
  EXPECT_FALSE(tasks.json["result"].empty()) << tasks.raw;
  Reply abstract_only = Get("/api/v1/skills/tide-tables?level=0");
  ASSERT_EQ(abstract_only.status, 200);
  EXPECT_FALSE(abstract_only.json["result"].contains("content"));
}

TEST_F(SkillsApiTest, ZippedSkillDirectoryKeepsItsAuxiliaryFiles) {
  // What `ov add-skill DIR` uploads: the folder's files zipped, SKILL.md at the root.
  using testing::ArchiveItem;
  const std::string id = UploadZip(
      {ArchiveItem::File("SKILL.md", kSkillMd), ArchiveItem::File("scripts/tide.py", "print(1)\n"),
       ArchiveItem::File("reference.md", "# Almanac notes\n"),
       ArchiveItem::File(".hidden", "x")});
  Reply added = AddSkill({{"temp_file_id", id}, {"wait", true}});
  ASSERT_EQ(added.status, 200) << added.raw;
  EXPECT_EQ(added.json["result"].value("name", ""), "tide-tables");
  EXPECT_EQ(added.json["result"].value("auxiliary_files", 0), 2) << added.raw;
  Reply detail = Get("/api/v1/skills/tide-tables");
  ASSERT_EQ(detail.status, 200) << detail.raw;
  EXPECT_EQ(FilePaths(detail.json["result"]),
            Json({".abstract.md", ".overview.md", "SKILL.md", "reference.md", "scripts",
                  "scripts/.abstract.md", "scripts/.overview.md", "scripts/tide.py"}))
      << detail.raw;
  Reply script = Get("/api/v1/content/read?uri=" +
                     Q("viking://user/default/skills/tide-tables/scripts/tide.py"));
  ASSERT_EQ(script.status, 200) << script.raw;
  EXPECT_EQ(script.json["result"].get<std::string>(), "print(1)\n");

  // A zip without SKILL.md, and a zip slip, are refused; the server keeps serving.
  for (const std::vector<ArchiveItem>& items :
       {std::vector<ArchiveItem>{ArchiveItem::File("notes.md", "x")},
        std::vector<ArchiveItem>{ArchiveItem::File("SKILL.md", kSkillMd),
                                 ArchiveItem::File("../escape.md", "x")}}) {
    Reply bad = AddSkill({{"temp_file_id", UploadZip(items)}});
    EXPECT_EQ(bad.status, 400) << bad.raw;
  }
  ExpectHealthy();
}

// What `ov add-skill DIR` does without --yes: asks for the source's skills
// (list_only), then installs from the same upload, all of them or those
// named (`skills`, from -s).
TEST_F(SkillsApiTest, ListOnlyListsASourceOfSeveralSkillsAndTheUploadStaysForTheInstall) {
  using testing::ArchiveItem;
  const std::string beta = R"(---
name: bread-proofing
description: Time the proofing of a sourdough loaf from room temperature.
---
# bread-proofing
Watch the dough rise.
)";
  const std::string id = UploadZip({ArchiveItem::File("skills/tides/SKILL.md", kSkillMd),
                                    ArchiveItem::File("skills/tides/notes.md", "# notes\n"),
                                    ArchiveItem::File("skills/bread/SKILL.md", beta),
                                    ArchiveItem::File("README.md", "# two skills\n")});
  Reply listed = AddSkill({{"temp_file_id", id}, {"list_only", true}});
  ASSERT_EQ(listed.status, 200) << listed.raw;
  const Json& listing = listed.json["result"];
  EXPECT_EQ(listing.value("total", 0), 2) << listed.raw;
  ASSERT_EQ(listing["skills"].size(), 2u) << listed.raw;
  EXPECT_EQ(listing["skills"][0].value("name", ""), "bread-proofing");
  EXPECT_EQ(listing["skills"][0].value("path", ""), "skills/bread/SKILL.md");
  EXPECT_EQ(listing["skills"][1].value("name", ""), "tide-tables");
  EXPECT_NE(listing["skills"][1].value("description", "").find("tide"), std::string::npos);
  Reply none = Get("/api/v1/skills");
  ASSERT_EQ(none.status, 200) << none.raw;
  EXPECT_EQ(none.json["result"].value("total", -1), 0) << "list_only installed something";

  // A name the source does not hold: 400 naming what it holds.
  Reply unknown = AddSkill({{"temp_file_id", id}, {"skills", {"no-such-skill"}}});
  EXPECT_EQ(unknown.status, 400) << unknown.raw;
  EXPECT_NE(unknown.raw.find("tide-tables"), std::string::npos) << unknown.raw;
  Reply not_a_list = AddSkill({{"temp_file_id", id}, {"skills", "tide-tables"}});
  EXPECT_EQ(not_a_list.status, 400) << not_a_list.raw;
  EXPECT_NE(not_a_list.raw.find("valid list"), std::string::npos) << not_a_list.raw;

  // The same upload installs the one named, with its own files only.
  Reply one = AddSkill({{"temp_file_id", id}, {"skills", {"tide-tables"}}, {"wait", true}});
  ASSERT_EQ(one.status, 200) << one.raw;
  EXPECT_EQ(one.json["result"].value("name", ""), "tide-tables");
  EXPECT_EQ(one.json["result"].value("auxiliary_files", -1), 1) << one.raw;
  Reply after = Get("/api/v1/skills");
  ASSERT_EQ(after.status, 200) << after.raw;
  EXPECT_EQ(after.json["result"].value("total", -1), 1) << after.raw;

  // A fresh upload with no names installs every skill.
  const std::string again = UploadZip({ArchiveItem::File("a/SKILL.md", kSkillMd),
                                       ArchiveItem::File("b/SKILL.md", beta)});
  Reply both = AddSkill({{"temp_file_id", again}, {"wait", true}});
  ASSERT_EQ(both.status, 200) << both.raw;
  EXPECT_EQ(both.json["result"]["installed"], Json({"tide-tables", "bread-proofing"})) << both.raw;
  EXPECT_EQ(FindSkills("sourdough loaf proofing").size() > 0, true);

  // A SKILL.md at the root makes the archive one skill: a SKILL.md further
  // down (a template, say) is one of its files, not another skill.
  const std::string nested = UploadZip({ArchiveItem::File("SKILL.md", kSkillMd),
                                        ArchiveItem::File("templates/new/SKILL.md", "draft\n")});
  Reply one_skill = AddSkill({{"temp_file_id", nested}, {"list_only", true}});
  ASSERT_EQ(one_skill.status, 200) << one_skill.raw;
  EXPECT_EQ(one_skill.json["result"].value("total", 0), 1) << one_skill.raw;
  Reply with_template = AddSkill({{"temp_file_id", nested}, {"wait", true}});
  ASSERT_EQ(with_template.status, 200) << with_template.raw;
  EXPECT_EQ(with_template.json["result"].value("auxiliary_files", -1), 1) << with_template.raw;

  // Two folders defining one name: refused, nothing replaced by surprise.
  Reply twice = AddSkill({{"temp_file_id", UploadZip({ArchiveItem::File("a/SKILL.md", beta),
                                                      ArchiveItem::File("b/SKILL.md", beta)})}});
  EXPECT_EQ(twice.status, 400) << twice.raw;
  EXPECT_NE(twice.raw.find("two skills named 'bread-proofing'"), std::string::npos) << twice.raw;
  ExpectHealthy();
}

TEST_F(SkillsApiTest, UpdateDeleteAgentRootFindAndValidate) {
  AddWaiting({{"name", "shared_knots"}, {"description", "Tie sailing knots"}},
             "viking://agent/skills");
  Reply shared = Get("/api/v1/skills/shared_knots");
  ASSERT_EQ(shared.status, 200) << shared.raw;
  EXPECT_EQ(shared.json["result"].value("uri", ""), "viking://agent/skills/shared_knots");

  // Update: the named skill, same name; changes what it says.
  Reply updated = Put("/api/v1/skills/shared_knots",
                      Json({{"data", {{"name", "shared_knots"},
                                      {"description", "Tie and untie bowline knots"}}},
                            {"wait", true}})
                          .dump());
  ASSERT_EQ(updated.status, 200) << updated.raw;
  EXPECT_EQ(updated.json["result"].value("uri", ""), "viking://agent/skills/shared_knots");
  EXPECT_EQ(Get("/api/v1/skills/shared_knots").json["result"].value("description", ""),
            "Tie and untie bowline knots");
  EXPECT_EQ(Put("/api/v1/skills/absent", Json({{"data", {{"name", "absent"}}}}).dump()).status,
            404);
  EXPECT_EQ(Put("/api/v1/skills/shared_knots", Json({{"data", {{"name", "other"}}}}).dump()).status,
            400);

  Reply found = PostJson("/api/v1/skills/find", {{"query", "bowline knots"}});
  ASSERT_EQ(found.status, 200) << found.raw;
  ASSERT_GE(found.json["result"].value("total", 0), 1) << found.raw;
  EXPECT_EQ(found.json["result"]["skills"][0].value("context_type", ""), "skill");
  EXPECT_EQ(PostJson("/api/v1/skills/find", {{"query", ""}}).status, 400);

  Reply valid = PostJson("/api/v1/skills/validate", {{"data", kSkillMd}});
  ASSERT_EQ(valid.status, 200) << valid.raw;
  EXPECT_TRUE(valid.json["result"].value("valid", false)) << valid.raw;
  Reply invalid = PostJson("/api/v1/skills/validate",
                           {{"data", "---\ntags: [x]\n---\nbody"}, {"strict", true}});
  ASSERT_EQ(invalid.status, 200) << invalid.raw;
  EXPECT_FALSE(invalid.json["result"].value("valid", true));
  EXPECT_EQ(invalid.json["result"]["errors"][0].value("rule", ""), "name_required");
  EXPECT_EQ(PostJson("/api/v1/skills/validate", Json::object()).status, 400);

  Reply gone = Delete("/api/v1/skills/shared_knots");
  ASSERT_EQ(gone.status, 200) << gone.raw;
  EXPECT_EQ(gone.json["result"].value("uri", ""), "viking://agent/skills/shared_knots");
  EXPECT_EQ(Get("/api/v1/skills/shared_knots").status, 404);
  EXPECT_EQ(Delete("/api/v1/skills/shared_knots").status, 404);
  EXPECT_EQ(Get("/api/v1/skills/bad%20name").status, 400);
  const int escape = Get("/api/v1/skills/..%2Fetc").status;
  EXPECT_TRUE(escape == 400 || escape == 404) << escape;
  ExpectHealthy();
}

// What OpenViking's own skill API tests read from show, update, delete,
// validate and find.
TEST_F(SkillsApiTest, ShowUpdateDeleteAndValidateAnswerAsOpenVikingsTestsExpect) {
  AddWaiting(kSkillMd);
  const std::string dir = "viking://user/default/skills/tide-tables";
  auto show = [&](const std::string& query) {
    Reply r = Get("/api/v1/skills/tide-tables" + query);
    EXPECT_EQ(r.status, 200) << query << ": " << r.raw;
    return r.json["result"];
  };
  // By default: abstract, overview and content; files as objects.
  Json all = show("");
  EXPECT_EQ(all.value("root_uri", ""), dir);
  EXPECT_EQ(all.value("uri", ""), dir);
  EXPECT_EQ(all.value("skill_md_uri", ""), dir + "/SKILL.md");
  EXPECT_EQ(all.value("type", ""), "skill");
  for (const char* key : {"abstract", "overview", "content"}) EXPECT_TRUE(all.contains(key)) << key;
  EXPECT_EQ(all.value("content_sha256", "").size(), 64u);
  bool definition = false;
  for (const Json& f : all["files"]) {
    if (f.value("name", "") == "SKILL.md") {
      definition = true;
      EXPECT_EQ(f.value("kind", ""), "definition");
      EXPECT_EQ(f.value("uri", ""), dir + "/SKILL.md");
      EXPECT_FALSE(f.value("is_dir", true));
      EXPECT_FALSE(f.contains("sha256")) << "hashes only with include_integrity";
    }
  }
  EXPECT_TRUE(definition) << all.dump();
  EXPECT_FALSE(all.contains("revision"));
  // One level each; include_content adds the content; include_content=false drops only it.
  auto keys = [](const Json& j) {
    std::string out;
    for (const char* key : {"abstract", "overview", "content"}) out += j.contains(key) ? "1" : "0";
    return out;
  };
  EXPECT_EQ(keys(show("?level=0")), "100");
  EXPECT_EQ(keys(show("?level=1")), "010");
  EXPECT_EQ(keys(show("?level=2")), "001");
  EXPECT_EQ(keys(show("?include_content=false")), "110");
  EXPECT_EQ(keys(show("?level=1&include_content=true")), "011");
  EXPECT_EQ(Get("/api/v1/skills/tide-tables?level=3").status, 400);
  // Integrity: each file's size and hash, and a revision that follows the content.
  Json sealed = show("?level=2&include_files=true&include_integrity=true");
  ASSERT_EQ(sealed.value("revision", "").size(), 64u) << sealed.dump();
  for (const Json& f : sealed["files"]) {
    EXPECT_TRUE(f.value("is_dir", false) ||
                (f.contains("size") && f.value("sha256", "").size() == 64u))
        << f.dump();
    if (f.value("path", "") == "SKILL.md") {
      EXPECT_EQ(f.value("size", -1), static_cast<int64_t>(sealed.value("content", "").size()));
      EXPECT_EQ(f.value("sha256", ""), sealed.value("content_sha256", ""));
    }
  }
  EXPECT_EQ(show("?include_integrity=true").value("revision", ""), sealed.value("revision", ""));
  // Known answer: the SHA-256 of the manifest written out by hand (compact,
  // sorted keys; the skill's one file of its own, summaries left out).
  const std::string manifest =
      R"([{"is_dir":false,"path":"SKILL.md","sha256":")" + sealed.value("content_sha256", "") +
      R"(","size":)" + std::to_string(sealed.value("content", "").size()) + "}]";
  EXPECT_EQ(sealed.value("revision", ""), Sha256Hex(manifest)) << manifest;
  EXPECT_FALSE(show("?include_files=false").contains("files"));

  // Where it came from, kept with it (never among its files).
  Json origin = show("?include_source=true")["source"];
  EXPECT_TRUE(origin.value("tracked", false)) << origin.dump();
  EXPECT_EQ(origin.value("type", ""), "api");
  EXPECT_EQ(origin.value("source", ""), "inline_content");
  EXPECT_EQ(origin.value("operation", ""), "add");
  EXPECT_EQ(origin.value("skill_name", ""), "tide-tables");
  EXPECT_FALSE(all.contains("source"));

  // An update says so, and changes the revision.
  std::string changed = kSkillMd;
  changed.replace(changed.find("Reads the harbour"), 5, "Parses");
  Reply updated =
      Put("/api/v1/skills/tide-tables", Json({{"data", changed}, {"wait", true}}).dump());
  ASSERT_EQ(updated.status, 200) << updated.raw;
  EXPECT_EQ(updated.json["result"].value("action", ""), "update") << updated.raw;
  EXPECT_EQ(updated.json["result"].value("root_uri", ""), dir);
  EXPECT_NE(show("?include_integrity=true").value("revision", ""), sealed.value("revision", ""));
  EXPECT_EQ(show("?include_source=true")["source"].value("operation", ""), "update");
  // The caller's own description of the source is kept as given.
  Reply described = AddSkill({{"data", kSkillMd},
                              {"wait", true},
                              {"source_metadata",
                               {{"type", "git"}, {"clone_url", "https://example.com/s.git"}}}});
  ASSERT_EQ(described.status, 200) << described.raw;
  Json git = show("?include_source=true")["source"];
  EXPECT_EQ(git.value("type", ""), "git") << git.dump();
  EXPECT_EQ(git.value("clone_url", ""), "https://example.com/s.git");
  EXPECT_EQ(git.value("skill_name", ""), "tide-tables");
  // A description, not a payload: a large one is refused; a deeply nested
  // one is kept as compact as it came (no indentation to multiply it).
  Reply refused = AddSkill(
      {{"data", kSkillMd}, {"source_metadata", {{"blob", std::string(70 * 1024, 'x')}}}});
  EXPECT_EQ(refused.status, 400) << refused.raw.substr(0, 200);
  Json deep = Json::array();
  for (int i = 0; i < 200; ++i) deep = Json::array({deep});
  ASSERT_EQ(AddSkill({{"data", kSkillMd}, {"wait", true}, {"source_metadata", {{"nested", deep}}}})
                .status,
            200);
  Reply kept = Get("/api/v1/content/read?uri=" + Q(dir + "/.source.json"));
  ASSERT_EQ(kept.status, 200) << kept.raw.substr(0, 200);
  EXPECT_LT(kept.json["result"].get<std::string>().size(), 1024u);
  EXPECT_EQ(show("?include_source=true")["source"]["nested"], deep);
  EXPECT_FALSE(AddSkill({{"data", kSkillMd}}).json["result"].contains("action"));

  // An explicit empty target_uri is refused by the routes that act on one
  // skill, and the skill stays.
  for (const Reply& r : {Delete("/api/v1/skills/tide-tables?target_uri="),
                         Get("/api/v1/skills/tide-tables?target_uri="),
                         Put("/api/v1/skills/tide-tables",
                             Json({{"data", kSkillMd}, {"target_uri", ""}, {"wait", true}}).dump())}) {
    EXPECT_EQ(r.status, 400) << r.raw;
    EXPECT_EQ(r.json["error"].value("code", ""), "INVALID_ARGUMENT") << r.raw;
  }
  EXPECT_EQ(Get("/api/v1/skills/tide-tables").status, 200);

  // Find: each hit names its skill.
  Reply found = PostJson("/api/v1/skills/find", {{"query", "harbour tide almanac"}});
  ASSERT_EQ(found.status, 200) << found.raw;
  ASSERT_FALSE(found.json["result"]["skills"].empty()) << found.raw;
  const Json& hit = found.json["result"]["skills"][0];
  EXPECT_EQ(hit.value("root_uri", ""), dir) << hit.dump();
  EXPECT_EQ(hit.value("skill_md_uri", ""), dir + "/SKILL.md");
  EXPECT_EQ(hit.value("name", ""), "tide-tables");
  EXPECT_EQ(hit.value("description", ""),
            "Predict high and low tide times for a harbour from its almanac.");
  EXPECT_EQ(hit["allowed_tools"], Json({"Almanac", "Calculator"}));

  // Delete answers with the skill's directory.
  Reply gone = Delete("/api/v1/skills/tide-tables");
  ASSERT_EQ(gone.status, 200) << gone.raw;
  EXPECT_EQ(gone.json["result"].value("root_uri", ""), dir);
  EXPECT_EQ(gone.json["result"].value("uri", ""), dir);

  // Validate: findings carry `rule`; a long body warns in strict mode.
  Reply missing = PostJson("/api/v1/skills/validate",
                           {{"data", "---\nname: missing-description\n---\n# Body"}});
  ASSERT_EQ(missing.status, 200) << missing.raw;
  EXPECT_EQ(missing.json["result"]["errors"][0].value("rule", ""), "description_required")
      << missing.raw;
  std::string long_body;
  for (int i = 0; i < 501; ++i) long_body += "line " + std::to_string(i) + "\n";
  Reply longer = PostJson(
      "/api/v1/skills/validate",
      {{"data", "---\nname: long-body\ndescription: Valid description\n---\n\n# long-body\n\n" +
                    long_body},
       {"skill_dir_name", "long-body"},
       {"strict", true},
       {"source_path", "skills/long-body/SKILL.md"}});
  ASSERT_EQ(longer.status, 200) << longer.raw;
  EXPECT_TRUE(longer.json["result"].value("valid", false)) << longer.raw;
  EXPECT_EQ(longer.json["result"]["warnings"][0].value("rule", ""), "body_max_lines")
      << longer.raw;
  EXPECT_EQ(longer.json["result"].value("source_path", ""), "skills/long-body/SKILL.md");
}

// skills/find answers with skills: two files of one skill are one hit
// (search/find shows both); node_limit 0 lists every skill.
TEST_F(SkillsApiTest, SkillFindGivesOneHitPerSkillAndListingHonoursNodeLimit) {
  using testing::ArchiveItem;
  const std::string id = UploadZip(
      {ArchiveItem::File("SKILL.md", kSkillMd),
       ArchiveItem::File("ref/recovery.md", "Restore a backup in another region.\n"),
       ArchiveItem::File("ref/recovery-copy.md", "Restore a backup in another region.\n")});
  ASSERT_EQ(AddSkill({{"temp_file_id", id}, {"wait", true}}).status, 200);
  const std::string dir = "viking://user/default/skills/tide-tables";
  const Json query = {{"query", "restore backup region"},
                      {"target_uri", dir + "/ref"},
                      {"level", {2}},
                      {"limit", 10}};
  Reply skills = PostJson("/api/v1/skills/find", query);
  ASSERT_EQ(skills.status, 200) << skills.raw;
  ASSERT_EQ(skills.json["result"]["skills"].size(), 1u) << skills.raw;
  EXPECT_EQ(skills.json["result"].value("total", 0), 1);
  EXPECT_EQ(skills.json["result"]["skills"][0].value("root_uri", ""), dir);
  Reply any = PostJson("/api/v1/search/find", query);
  ASSERT_EQ(any.status, 200) << any.raw;
  EXPECT_EQ(any.json["result"]["skills"].size(), 2u) << any.raw;

  AddWaiting({{"name", "second-skill"}, {"description", "Another skill"}});
  EXPECT_EQ(Get("/api/v1/skills?node_limit=1").json["result"].value("total", 0), 1);
  EXPECT_EQ(Get("/api/v1/skills?node_limit=0").json["result"].value("total", 0), 2);
  EXPECT_EQ(Get("/api/v1/skills?node_limit=-1").status, 400);
}

// Hashing a skill's files on each show is bounded: more entries than
// OpenViking's 512 are refused with include_integrity (429), listed without.
TEST_F(SkillsApiTest, IntegrityIsBoundedForLargeSkills) {
  using testing::ArchiveItem;
  std::vector<ArchiveItem> items = {ArchiveItem::File("SKILL.md", kSkillMd)};
  for (int i = 0; i < 520; ++i) {
    items.push_back(ArchiveItem::File("notes/n" + std::to_string(i) + ".txt", "x"));
  }
  Reply added = AddSkill({{"temp_file_id", UploadZip(items)}, {"wait", true}});
  ASSERT_EQ(added.status, 200) << added.raw;
  Reply listed = Get("/api/v1/skills/tide-tables?level=0");
  ASSERT_EQ(listed.status, 200) << listed.raw.substr(0, 300);
  EXPECT_GT(listed.json["result"]["files"].size(), 520u);
  Reply sealed = Get("/api/v1/skills/tide-tables?level=0&include_integrity=true");
  EXPECT_EQ(sealed.status, 429) << sealed.raw.substr(0, 300);
  EXPECT_EQ(sealed.Code(), "RESOURCE_EXHAUSTED");
  ExpectHealthy();
}

}  // namespace
}  // namespace skald::apitest
