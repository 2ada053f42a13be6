#include "session/message.h"

#include <string>

#include <gtest/gtest.h>

namespace skald {
namespace {

std::string Repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(EstimateTokensTest, WeighsCjkNonBmpAndOtherCodePoints) {
  EXPECT_EQ(EstimateTokens(""), 0);
  EXPECT_EQ(EstimateTokens("abcd"), 1);       // 4 x 0.25
  EXPECT_EQ(EstimateTokens("abcde"), 2);      // ceil(1.25)
  EXPECT_EQ(EstimateTokens("你好"), 3);        // 2 x 1.5
  EXPECT_EQ(EstimateTokens("こんにちは"), 8);  // kana: ceil(5 x 1.5)
  EXPECT_EQ(EstimateTokens("한국"), 3);        // hangul
  EXPECT_EQ(EstimateTokens("😀"), 2);          // non-BMP: 2.0
  EXPECT_EQ(EstimateTokens("é"), 1);           // BMP, not CJK: ceil(0.25)
  EXPECT_EQ(EstimateTokens("𠀀"), 2);          // CJK extension B (non-BMP, CJK): 1.5 -> 2
}

TEST(EstimateTokensTest, ClientExpectationsOnRepeatedText) {
  const int64_t cjk = EstimateTokens(Repeat("你好世界", 100));
  const int64_t ascii = EstimateTokens(Repeat("abcd", 100));
  EXPECT_EQ(cjk, 600);
  EXPECT_EQ(ascii, 100);
  EXPECT_GE(cjk, 4 * ascii);
}

TEST(BuildStoredMessageTest, ContentBecomesOneTextPart) {
  Result<Json> m = BuildStoredMessage(Json{{"role", "user"}, {"content", "hello"}}, 0);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)["role"], "user");
  ASSERT_EQ((*m)["parts"].size(), 1u);
  EXPECT_EQ((*m)["parts"][0]["text"], "hello");
  EXPECT_EQ((*m)["id"].get<std::string>().rfind("msg_", 0), 0u);
  EXPECT_EQ((*m)["id"].get<std::string>().size(), 36u);
  EXPECT_EQ((*m)["created_at"], "1970-01-01T00:00:00.000Z");
}

TEST(BuildStoredMessageTest, AnAggregateOfToolResultsIsOneMessagePerTool) {
  Json tool_a = {{"type", "tool"}, {"tool_id", "call_a"}, {"tool_name", "a"},
                 {"tool_output", "1"}, {"tool_status", "completed"}};
  Json tool_b = tool_a;
  tool_b["tool_id"] = "call_b";
  auto built = BuildStoredMessage(
      Json{{"role", "user"}, {"parts", {tool_a, tool_b}}, {"turn_id", "t1"}}, 0);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  std::vector<Json> split = SplitToolResults(*built);
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(split[0]["parts"].size(), 1u);
  EXPECT_EQ(split[0]["parts"][0]["tool_id"], "call_a");
  EXPECT_EQ(split[1]["parts"][0]["tool_id"], "call_b");
  EXPECT_EQ(split[1]["turn_id"], "t1");
  EXPECT_NE(split[0]["id"], split[1]["id"]);
  // One tool part, or tools beside text: one message, as it was.
  auto mixed = BuildStoredMessage(
      Json{{"role", "user"}, {"parts", {Json{{"type", "text"}, {"text", "x"}}, tool_a}}}, 0);
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ(SplitToolResults(*mixed).size(), 1u);
  auto single = BuildStoredMessage(Json{{"role", "user"}, {"parts", {tool_a}}}, 0);
  EXPECT_EQ(SplitToolResults(*single).size(), 1u);
}

TEST(BuildStoredMessageTest, PartsPerMessageAreBounded) {
  Json tool = {{"type", "tool"}, {"tool_id", "c"}, {"tool_name", "t"}, {"tool_output", "o"}};
  Json parts = Json::array();
  for (size_t i = 0; i < kMaxMessageParts; ++i) parts.push_back(tool);
  auto most = BuildStoredMessage(Json{{"role", "user"}, {"parts", parts}}, 0);
  ASSERT_TRUE(most.ok()) << most.status().ToString();
  EXPECT_EQ(SplitToolResults(std::move(*most)).size(), kMaxMessageParts);
  parts.push_back(tool);
  auto over = BuildStoredMessage(Json{{"role", "user"}, {"parts", parts}}, 0);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), StatusCode::kInvalidArgument);
}

TEST(BuildStoredMessageTest, AnImagePartNeedsAUrl) {
  for (const Json& image : {Json::object(), Json{{"url", ""}}, Json{{"url", "  "}}}) {
    auto built = BuildStoredMessage(
        Json{{"role", "user"}, {"parts", {Json{{"type", "image_url"}, {"image_url", image}}}}}, 0);
    ASSERT_FALSE(built.ok()) << image.dump();
    EXPECT_NE(built.status().message().find("requires a non-empty URL"), std::string::npos);
  }
}

TEST(BuildStoredMessageTest, BlankContentIsAccepted) {
  Result<Json> m = BuildStoredMessage(Json{{"role", "system"}, {"content", "   "}}, 0);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(MessageTokens(*m), 1);
}

TEST(BuildStoredMessageTest, PartsWinAndToolFieldsCount) {
  Json request{{"role", "assistant"},
               {"content", "ignored"},
               {"parts",
                Json::array({Json{{"type", "text"}, {"text", "abcd"}},
                             Json{{"type", "context"}, {"uri", "viking://resources/a"},
                                  {"context_type", "resource"}, {"abstract", "efgh"}},
                             Json{{"type", "image_url"}, {"image_url", Json{{"url", "http://x/y.png"}}}},
                             Json{{"type", "tool"}, {"tool_id", "t1"}, {"tool_name", "grep"},
                                  {"tool_input", Json{{"q", "x"}}}, {"tool_output", "out"},
                                  {"duration_ms", 12}}})}};
  Result<Json> m = BuildStoredMessage(request, 0);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ((*m)["parts"].size(), 4u);
  EXPECT_EQ((*m)["parts"][3]["tool_status"], "pending");
  EXPECT_EQ((*m)["parts"][3]["duration_ms"], 12);
  EXPECT_EQ(MessageTokenText(*m), "abcd\nefgh\nt1\ngrep\n{\"q\":\"x\"}\nout");
  EXPECT_EQ(MessageText(*m), "abcd\nefgh");
}

TEST(BuildStoredMessageTest, RejectsMissingRoleAndMissingContent) {
  EXPECT_FALSE(BuildStoredMessage(Json{{"content", "x"}}, 0).ok());
  EXPECT_FALSE(BuildStoredMessage(Json{{"role", "user"}}, 0).ok());
  EXPECT_FALSE(BuildStoredMessage(
                   Json{{"role", "user"}, {"parts", Json::array({Json{{"type", "video"}}})}}, 0)
                   .ok());
}

}  // namespace
}  // namespace skald
