#include "session/memory_extractor.h"

#include <gtest/gtest.h>

#include "session/statement_text.h"

#include <string>
#include <vector>

namespace skald {
namespace {

ConversationMessage Msg(std::string id, std::string speaker, std::string text,
                        std::string role = "user") {
  ConversationMessage m;
  m.id = std::move(id);
  m.role = std::move(role);
  m.speaker = std::move(speaker);
  m.text = std::move(text);
  return m;
}

SessionContext Ctx(std::string time = "1:56 pm on 8 May, 2023") {
  SessionContext c;
  c.session_id = "s1";
  c.user = "u1";
  c.session_time = std::move(time);
  return c;
}

// The candidate whose text contains `needle`, or nullptr.
const MemoryCandidate* Find(const std::vector<MemoryCandidate>& all, std::string_view needle) {
  for (const MemoryCandidate& c : all) {
    if (c.text.find(needle) != std::string::npos) return &c;
  }
  return nullptr;
}

TEST(MemoryExtractorTest, DatedEventIsRewrittenWithItsResolvedDate) {
  std::vector<MemoryCandidate> out = ExtractMemories(
      {Msg("D1:3", "Caroline", "I went to a LGBTQ support group yesterday and it was so powerful.")},
      Ctx());
  ASSERT_EQ(out.size(), 1u);
  const MemoryCandidate& c = out[0];
  EXPECT_EQ(c.type, MemoryType::kEvents);
  EXPECT_EQ(c.text, "Caroline went to a LGBTQ support group on 2023-05-07 and it was so powerful.");
  EXPECT_EQ(c.event_date, "2023-05-07");
  EXPECT_EQ(c.speaker, "Caroline");
  EXPECT_EQ(c.session_id, "s1");
  EXPECT_EQ(c.message_ids, std::vector<std::string>{"D1:3"});
  EXPECT_EQ(c.time, "2023-05-08T13:56");
  EXPECT_EQ(c.id.size(), 16u);
}

TEST(MemoryExtractorTest, ScriptedConversationYieldsExpectedTypes) {
  std::vector<ConversationMessage> conv = {
      Msg("m1", "Maria", "Hi John! How are you?"),
      Msg("m2", "John", "Hey Maria! I work as a firefighter in the city."),
      Msg("m3", "Maria", "I live in Boston. I love pottery and I hate cold weather."),
      Msg("m4", "John", "I usually go running every morning before work."),
      Msg("m5", "Maria", "Last Saturday I visited my sister Anna in Denver."),
      Msg("m6", "John", "I'm going to run a marathon next month."),
      Msg("m7", "Maria", "My name is Maria Lopez, by the way."),
      Msg("m8", "John", "That's cool!"),
  };
  std::vector<MemoryCandidate> out = ExtractMemories(conv, Ctx());

  const MemoryCandidate* job = Find(out, "firefighter");
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->type, MemoryType::kProfile);
  EXPECT_EQ(job->subject, "john/occupation");
  EXPECT_EQ(job->text, "John works as a firefighter in the city.");

  const MemoryCandidate* home = Find(out, "lives in Boston");
  ASSERT_NE(home, nullptr);
  EXPECT_EQ(home->type, MemoryType::kProfile);
  EXPECT_EQ(home->subject, "maria/lives_in");
  EXPECT_EQ(home->value, "Boston");

  const MemoryCandidate* pottery = Find(out, "loves pottery");
  ASSERT_NE(pottery, nullptr);
  EXPECT_EQ(pottery->type, MemoryType::kPreferences);
  EXPECT_FALSE(pottery->negated);

  const MemoryCandidate* habit = Find(out, "usually goes running");
  ASSERT_NE(habit, nullptr);
  EXPECT_EQ(habit->type, MemoryType::kPreferences);
  EXPECT_EQ(habit->attribute, "habit");

  const MemoryCandidate* visit = Find(out, "visited Maria's sister Anna");
  ASSERT_NE(visit, nullptr);
  EXPECT_EQ(visit->type, MemoryType::kEvents);
  EXPECT_EQ(visit->event_date, "2023-05-06");
  EXPECT_NE(visit->text.find("on 2023-05-06"), std::string::npos) << visit->text;

  const MemoryCandidate* anna = Find(out, "Anna is Maria's sister.");
  ASSERT_NE(anna, nullptr);
  EXPECT_EQ(anna->type, MemoryType::kEntities);
  EXPECT_EQ(anna->subject, "entity/anna");

  const MemoryCandidate* plan = Find(out, "marathon");
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(plan->type, MemoryType::kEvents);
  EXPECT_EQ(plan->attribute, "plan");
  EXPECT_EQ(plan->event_date, "2023-06");

  const MemoryCandidate* name = Find(out, "Maria's name is");
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->type, MemoryType::kIdentity);

  // Greetings, questions and reactions carry no memory.
  for (const MemoryCandidate& c : out) {
    EXPECT_NE(c.message_ids.front(), "m1") << c.text;
    EXPECT_NE(c.message_ids.front(), "m8") << c.text;
  }
}

TEST(MemoryExtractorTest, DislikesAreNegatedPreferencesOfTheSameSubject) {
  std::vector<MemoryCandidate> out = ExtractMemories(
      {Msg("a", "Jon", "I really like black coffee."), Msg("b", "Jon", "I don't like black coffee anymore.")},
      Ctx());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].subject, out[1].subject);
  EXPECT_FALSE(out[0].negated);
  EXPECT_TRUE(out[1].negated);
  EXPECT_EQ(out[1].text, "Jon doesn't like black coffee anymore.");
}

TEST(MemoryExtractorTest, RepeatedStatementIsOneCandidateWithBothMessages) {
  std::vector<MemoryCandidate> out = ExtractMemories(
      {Msg("a", "Gina", "I live in Chicago."), Msg("b", "Gina", "I live in Chicago!")}, Ctx());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message_ids, (std::vector<std::string>{"a", "b"}));
}

TEST(MemoryExtractorTest, MessageTimeOverridesSessionTime) {
  ConversationMessage m = Msg("x", "Jon", "Two days ago I finished my first dance class.");
  m.time = "2023-01-20T09:00:00Z";
  std::vector<MemoryCandidate> out = ExtractMemories({m}, Ctx());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].event_date, "2023-01-18");
  EXPECT_EQ(out[0].time, "2023-01-20T09:00");
}

TEST(MemoryExtractorTest, UnparsableSessionTimeLeavesRelativeDatesAsWritten) {
  std::vector<MemoryCandidate> out =
      ExtractMemories({Msg("x", "Jon", "Yesterday I finished my first dance class.")}, Ctx("soon"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].event_date, "");
  EXPECT_EQ(out[0].text, "Yesterday Jon finished Jon's first dance class.");
}

TEST(MemoryExtractorTest, RolesNameSpeakersAndAssistantMapsToAgentTypes) {
  SessionContext ctx = Ctx();
  ctx.user_name = "alice";
  std::vector<MemoryCandidate> out = ExtractMemories(
      {Msg("1", "", "I prefer dark mode in every editor."),
       Msg("2", "", "To fix the build, install the missing ICU headers first.", "assistant"),
       Msg("3", "", "I ran the pytest tool on the repository.", "assistant"),
       Msg("4", "", "You are a helpful assistant with many rules.", "system")},
      ctx);
  const MemoryCandidate* pref = Find(out, "alice prefers dark mode");
  ASSERT_NE(pref, nullptr);
  EXPECT_EQ(pref->type, MemoryType::kPreferences);
  const MemoryCandidate* fix = Find(out, "install the missing ICU headers");
  ASSERT_NE(fix, nullptr);
  EXPECT_EQ(fix->type, MemoryType::kCases);
  EXPECT_EQ(fix->speaker, "Assistant");
  const MemoryCandidate* tool = Find(out, "pytest");
  ASSERT_NE(tool, nullptr);
  EXPECT_EQ(tool->type, MemoryType::kTools);
  EXPECT_EQ(Find(out, "helpful assistant"), nullptr);
}

TEST(MemoryExtractorTest, IdsAreStableAcrossSessionsAndDistinctAcrossFacts) {
  SessionContext other = Ctx("2023-06-01");
  other.session_id = "s2";
  auto a = ExtractMemories({Msg("1", "Jon", "I love salsa dancing.")}, Ctx());
  auto b = ExtractMemories({Msg("9", "Jon", "I love salsa dancing.")}, other);
  auto c = ExtractMemories({Msg("1", "Jon", "I love tango dancing.")}, Ctx());
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(a[0].id, b[0].id);
  EXPECT_NE(a[0].id, c[0].id);
}

TEST(MemoryExtractorTest, ReplyToAQuestionIsKeptWithTheQuestion) {
  std::vector<MemoryCandidate> out = ExtractMemories(
      {Msg("q", "Caroline", "They are adorable! What are your pets called?"),
       Msg("a", "Melanie", "Luna and Oliver!"),
       Msg("q2", "Melanie", "How was the trip?"),
       Msg("a2", "Caroline", "Thanks, Mel! Great!")},
      Ctx());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].text, "Caroline asked: What are Melanie's pets called? Melanie: Luna and Oliver!");
  EXPECT_EQ(out[0].type, MemoryType::kEntities);
  EXPECT_EQ(out[0].message_ids, std::vector<std::string>{"a"});
  EXPECT_EQ(out[0].speaker, "Melanie");
}

TEST(MemoryExtractorTest, EmptyAndBlankInputYieldNothing) {
  EXPECT_TRUE(ExtractMemories({}, Ctx()).empty());
  EXPECT_TRUE(ExtractMemories({Msg("1", "Jon", ""), Msg("2", "Jon", "   \n ")}, Ctx()).empty());
}

TEST(ThirdPersonTest, PronounsAndVerbAgreement) {
  EXPECT_EQ(ThirdPerson("I'm a nurse and my sister is a teacher.", "Maria"),
            "Maria is a nurse and Maria's sister is a teacher.");
  EXPECT_EQ(ThirdPerson("I really love hiking with my dog.", "Jon"),
            "Jon really loves hiking with Jon's dog.");
  EXPECT_EQ(ThirdPerson("I have two kids and I've adopted a cat.", "Ann"),
            "Ann has two kids and Ann has adopted a cat.");
  EXPECT_EQ(ThirdPerson("I went there with me, myself and I.", "Bo"), "Bo went there with Bo, Bo and Bo.");
  EXPECT_EQ(ThirdPerson("I study law.", "Li"), "Li studies law.");
}

}  // namespace
}  // namespace skald
