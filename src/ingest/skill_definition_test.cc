#include "ingest/skill_definition.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/strings.h"

namespace skald {
namespace {

using nlohmann::json;

constexpr const char* kSkillMd = R"(---
name: search-web
description: >
  Search the web for current
  information.
allowed-tools:
  - Browser
  - "Fetch: raw"
tags: [research, 'web']
# a comment
---

# search-web

Search the web for current information.

## Parameters

- **query** (string, required): what to look for

## Examples

Find the weather in Paris.
)";

TEST(SkillDefinitionTest, ParsesSkillMarkdownFrontmatterAndBody) {
  auto skill = ParseSkillMarkdown(kSkillMd);
  ASSERT_TRUE(skill.ok()) << skill.status().ToString();
  EXPECT_EQ(skill->name, "search-web");
  EXPECT_EQ(skill->description, "Search the web for current information.");
  EXPECT_EQ(skill->allowed_tools, (std::vector<std::string>{"Browser", "Fetch: raw"}));
  EXPECT_EQ(skill->tags, (std::vector<std::string>{"research", "web"}));
  EXPECT_EQ(skill->body.substr(0, 12), "# search-web");
}

TEST(SkillDefinitionTest, RenderedMarkdownReadsBackTheSame) {
  SkillDefinition skill;
  skill.name = "quote_test";
  skill.description = "Says \"hi\": then # not a comment, and 'quotes'";
  skill.tags = {"a, b", "c"};
  skill.allowed_tools = {"Tool: x"};
  skill.body = "# Body\n\ntext\n";
  auto back = ParseSkillMarkdown(RenderSkillMarkdown(skill));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->name, skill.name);
  EXPECT_EQ(back->description, skill.description);
  EXPECT_EQ(back->tags, skill.tags);
  EXPECT_EQ(back->allowed_tools, skill.allowed_tools);
  EXPECT_EQ(back->body, skill.body);
}

TEST(SkillDefinitionTest, MarkdownWithoutFrontmatterOrNameIsRefused) {
  EXPECT_EQ(ParseSkillMarkdown("# just a doc\n").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseSkillMarkdown("---\ndescription: x\n---\nbody").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseSkillMarkdown("---\nname: x\nbody without a closing fence").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseSkillMarkdown("---\nname: x\n  stray: indent\n: bad\n---\n").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseSkillMarkdown("---\nname: bad/name\n---\n").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseSkillMarkdown("---\nname: x\n---\n\xff\xfe").status().code(),
            StatusCode::kInvalidArgument);
}

TEST(SkillDefinitionTest, NameRule) {
  EXPECT_TRUE(ValidateSkillName("a-b_C9").ok());
  EXPECT_FALSE(ValidateSkillName("").ok());
  EXPECT_FALSE(ValidateSkillName("   ").ok());
  EXPECT_FALSE(ValidateSkillName("has space").ok());
  EXPECT_FALSE(ValidateSkillName("../etc").ok());
  EXPECT_FALSE(ValidateSkillName("caf\xc3\xa9").ok());
  EXPECT_TRUE(ValidateSkillName(std::string(64, 'a')).ok());
  EXPECT_FALSE(ValidateSkillName(std::string(65, 'a')).ok());
}

TEST(SkillDefinitionTest, DataObjectNeedsAName) {
  EXPECT_EQ(ParseSkillData(json::object()).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseSkillData(json{{"description", "d"}, {"content", "c"}}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseSkillData(json{{"name", 3}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseSkillData(json::array()).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseSkillData(json(42)).status().code(), StatusCode::kInvalidArgument);

  auto only_content = ParseSkillData(json{{"name", "c1"}, {"content", "# c1\n\nDoes c."}});
  ASSERT_TRUE(only_content.ok()) << only_content.status().ToString();
  EXPECT_EQ(only_content->description, "");
  EXPECT_EQ(only_content->body, "# c1\n\nDoes c.");
}

TEST(SkillDefinitionTest, DataObjectFieldsWinOverContentFrontmatter) {
  auto skill = ParseSkillData(json{{"description", "from the object"},
                                   {"content", kSkillMd},
                                   {"tags", "solo"},
                                   {"allowed_tools", {"T1"}}});
  ASSERT_TRUE(skill.ok()) << skill.status().ToString();
  EXPECT_EQ(skill->name, "search-web");  // from the content's frontmatter
  EXPECT_EQ(skill->description, "from the object");
  EXPECT_EQ(skill->tags, (std::vector<std::string>{"solo"}));
  EXPECT_EQ(skill->allowed_tools, (std::vector<std::string>{"T1"}));
  EXPECT_EQ(ParseSkillData(json{{"name", "x"}, {"tags", {1, 2}}}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(SkillDefinitionTest, McpToolBecomesAKebabCaseSkillWithItsParameters) {
  json tool = {{"name", "search_webPages"},
               {"description", "Search the web"},
               {"inputSchema",
                {{"type", "object"},
                 {"properties",
                  {{"query", {{"type", "string"}, {"description", "Search query"}}},
                   {"limit", {{"type", "integer"}}}}},
                 {"required", {"query"}}}}};
  auto skill = ParseSkillData(tool);
  ASSERT_TRUE(skill.ok()) << skill.status().ToString();
  EXPECT_EQ(skill->name, "search-web-pages");
  EXPECT_EQ(skill->description, "Search the web");
  EXPECT_NE(skill->body.find("- **query** (string, required): Search query"), std::string::npos)
      << skill->body;
  EXPECT_NE(skill->body.find("- **limit** (integer, optional)"), std::string::npos);
  EXPECT_NE(skill->body.find("`search_webPages`"), std::string::npos);
  EXPECT_EQ(ParseSkillData(json{{"inputSchema", json::object()}}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(SkillDefinitionTest, AbstractAndOverviewSayWhatTheSkillDoes) {
  auto skill = ParseSkillMarkdown(kSkillMd);
  ASSERT_TRUE(skill.ok());
  const std::string abstract = SkillAbstract(*skill);
  EXPECT_EQ(abstract.rfind("search-web: Search the web for current information.", 0), 0u)
      << abstract;
  EXPECT_LE(Utf8Length(abstract), 256u);
  const std::string overview = SkillOverview(*skill);
  EXPECT_EQ(overview.rfind("# search-web\n\nSearch the web", 0), 0u) << overview;
  EXPECT_NE(overview.find("- Parameters: **query** (string, required): what to look for"),
            std::string::npos)
      << overview;
  EXPECT_NE(overview.find("- Examples: Find the weather in Paris."), std::string::npos);
  EXPECT_NE(overview.find("Allowed tools: Browser, Fetch: raw"), std::string::npos);

  SkillDefinition huge;
  huge.name = "big";
  huge.description = std::string(5000, 'x');
  for (int i = 0; i < 400; ++i) huge.body += "## Section " + std::to_string(i) + "\n\nText.\n";
  EXPECT_LE(Utf8Length(SkillAbstract(huge)), 256u);
  EXPECT_LE(Utf8Length(SkillOverview(huge)), 4000u);
}

TEST(SkillDefinitionTest, ValidationReportsEveryProblem) {
  SkillCheck ok = ValidateSkillText(kSkillMd, /*strict=*/false, "search-web");
  EXPECT_TRUE(ok.valid);
  EXPECT_EQ(ok.name, "search-web");
  EXPECT_GT(ok.body_lines, 5u);
  EXPECT_TRUE(ok.errors.empty());

  SkillCheck lax = ValidateSkillText(kSkillMd, /*strict=*/false, "other-dir");
  EXPECT_TRUE(lax.valid);
  ASSERT_EQ(lax.warnings.size(), 1u);
  EXPECT_EQ(lax.warnings[0].rule, "name_matches_directory");
  SkillCheck strict = ValidateSkillText(kSkillMd, /*strict=*/true, "other-dir");
  EXPECT_FALSE(strict.valid);
  ASSERT_EQ(strict.errors.size(), 1u);
  EXPECT_EQ(strict.errors[0].rule, "name_matches_directory");

  SkillCheck empty = ValidateSkillText("---\ntags: [a]\n---\n", false, "");
  EXPECT_FALSE(empty.valid);
  ASSERT_EQ(empty.errors.size(), 2u);
  EXPECT_EQ(empty.errors[0].rule, "name_required");
  EXPECT_EQ(empty.errors[1].rule, "description_required");

  SkillCheck broken = ValidateSkillText("no frontmatter", false, "");
  EXPECT_FALSE(broken.valid);
  ASSERT_EQ(broken.errors.size(), 1u);
  EXPECT_EQ(broken.errors[0].rule, "yaml_format");
}

}  // namespace
}  // namespace skald
