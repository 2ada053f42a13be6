#include "session/archive_excerpts.h"

#include <gtest/gtest.h>

namespace skald {
namespace {

Json Message(const std::string& role, const std::string& text, const std::string& peer = "",
             const std::string& at = "2023-05-08T13:56:00.000Z") {
  Json m{{"id", "msg_x"},
         {"role", role},
         {"parts", Json::array({{{"type", "text"}, {"text", text}}})},
         {"created_at", at}};
  if (!peer.empty()) m["peer_id"] = peer;
  return m;
}

TEST(ArchiveExcerptsTest, OneExcerptPerMessageWithItsNeighbours) {
  std::vector<Json> messages = {Message("user", "Hi there", "Melanie"),
                                Message("user", "I went to a support group\nyesterday.", "Caroline"),
                                Message("assistant", "   "),  // says nothing: no excerpt, no line
                                Message("user", "How was it?"),
                                Message("assistant", "Great.", "", "2023-05-09T08:00:00Z")};
  std::vector<ArchiveExcerpt> excerpts = RenderArchiveExcerpts("s1", messages);
  ASSERT_EQ(excerpts.size(), 4u);
  EXPECT_EQ(excerpts[0].name, "excerpt_0001.md");
  EXPECT_EQ(excerpts[0].text,
            "[session s1 · 2023-05-08]\nMelanie: Hi there\n"
            "Caroline: I went to a support group yesterday.\n");
  EXPECT_EQ(excerpts[1].name, "excerpt_0002.md");
  EXPECT_EQ(excerpts[1].text,
            "[session s1 · 2023-05-08]\nMelanie: Hi there\n"
            "Caroline: I went to a support group yesterday.\nUser: How was it?\n");
  EXPECT_EQ(excerpts[2].name, "excerpt_0004.md");  // numbered by position in the archive
  EXPECT_EQ(excerpts[3].text,
            "[session s1 · 2023-05-09]\nUser: How was it?\nAssistant: Great.\n");
}

TEST(ArchiveExcerptsTest, LinesAreIdenticalAcrossExcerpts) {
  std::vector<Json> messages = {Message("user", "a"), Message("user", "b"), Message("user", "c")};
  std::vector<ArchiveExcerpt> excerpts = RenderArchiveExcerpts("s", messages);
  ASSERT_EQ(excerpts.size(), 3u);
  EXPECT_NE(excerpts[0].text.find("User: b\n"), std::string::npos);
  EXPECT_NE(excerpts[2].text.find("User: b\n"), std::string::npos);
  EXPECT_EQ(ExcerptLine(messages[1]), "User: b");
}

TEST(ArchiveExcerptsTest, ATwoMessageArchiveIsOneExcerptNotTheSameWordsTwice) {
  std::vector<ArchiveExcerpt> excerpts =
      RenderArchiveExcerpts("s", {Message("user", "I use Vault."), Message("assistant", "Noted.")});
  ASSERT_EQ(excerpts.size(), 1u);
  EXPECT_EQ(excerpts[0].name, "excerpt_0001.md");
  EXPECT_EQ(excerpts[0].text, "[session s · 2023-05-08]\nUser: I use Vault.\nAssistant: Noted.\n");
  // On two days the headers differ: both are kept.
  excerpts = RenderArchiveExcerpts(
      "s", {Message("user", "a"), Message("user", "b", "", "2023-05-09T08:00:00Z")});
  EXPECT_EQ(excerpts.size(), 2u);
}

TEST(ArchiveExcerptsTest, NoDateNoDayAndLongTextIsCut) {
  Json m = Message("user", std::string(3000, 'x'));
  m.erase("created_at");
  std::vector<ArchiveExcerpt> excerpts = RenderArchiveExcerpts("s9", {m});
  ASSERT_EQ(excerpts.size(), 1u);
  EXPECT_EQ(excerpts[0].text.rfind("[session s9]\nUser: xxx", 0), 0u);
  EXPECT_LT(excerpts[0].text.size(), 2100u);
  EXPECT_TRUE(RenderArchiveExcerpts("s", {}).empty());
  EXPECT_EQ(ExcerptLine(Json("not an object")), "");
}

}  // namespace
}  // namespace skald
