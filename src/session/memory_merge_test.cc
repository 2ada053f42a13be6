#include "session/memory_merge.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "session/memory_extractor.h"

namespace skald {
namespace {

// Extracts the single candidate of one statement by `speaker`.
MemoryCandidate One(std::string speaker, std::string text, std::string session = "s1",
                    std::string time = "2023-05-08T10:00") {
  ConversationMessage m;
  m.id = session + ":" + std::to_string(text.size());
  m.role = "user";
  m.speaker = std::move(speaker);
  m.text = std::move(text);
  SessionContext ctx;
  ctx.session_id = std::move(session);
  ctx.session_time = std::move(time);
  std::vector<MemoryCandidate> out = ExtractMemories({m}, ctx);
  EXPECT_EQ(out.size(), 1u) << m.text;
  return out.empty() ? MemoryCandidate{} : out.front();
}

MemoryRecord Stored(const MemoryCandidate& c) {
  MemoryRecord r;
  r.memory = c;
  return r;
}

TEST(MemoryMergeTest, NewSubjectIsCreated) {
  MemoryCandidate c = One("Maria", "I live in Boston.");
  MergeDecision d = DecideMerge(c, {});
  EXPECT_EQ(d.action, MergeAction::kCreate);
  EXPECT_EQ(d.record.memory.text, "Maria lives in Boston.");
  EXPECT_TRUE(d.record.history.empty());
  EXPECT_EQ(MergeActionName(d.action), "create");
}

TEST(MemoryMergeTest, RepeatedFactIsSkippedAndItsMessageRecorded) {
  MemoryCandidate first = One("Maria", "I live in Boston.", "s1");
  MemoryCandidate again = One("Maria", "I live in Boston!", "s2");
  ASSERT_EQ(first.id, again.id);
  MergeDecision d = DecideMerge(again, {Stored(first)});
  EXPECT_EQ(d.action, MergeAction::kSkip);
  EXPECT_EQ(d.target, 0u);
  EXPECT_EQ(d.record.memory.message_ids, (std::vector<std::string>{first.message_ids[0], again.message_ids[0]}));
  EXPECT_EQ(d.record.memory.text, first.text);
}

TEST(MemoryMergeTest, NearDuplicateWordingIsSkipped) {
  MemoryCandidate known = One("Caroline", "I went to a LGBTQ support group yesterday and it was so powerful.");
  MemoryCandidate reworded = One("Caroline", "Yesterday I went to the LGBTQ support group.");
  ASSERT_NE(known.id, reworded.id);
  EXPECT_EQ(DecideMerge(reworded, {Stored(known)}).action, MergeAction::kSkip);
}

TEST(MemoryMergeTest, VectorScoresSkipRewordingsOnlyWithLexicalSupport) {
  MemoryCandidate known = One("Jon", "Last Saturday I went to a salsa class with Anna.");
  MemoryCandidate reworded = One("Jon", "Last Saturday I took my first salsa lesson, Anna came too.");
  std::vector<MemoryRecord> store = {Stored(known)};
  ASSERT_EQ(DecideMerge(reworded, store).action, MergeAction::kCreate);
  EXPECT_EQ(DecideMerge(reworded, store, {}, {0.95f}).action, MergeAction::kSkip);
  // A close vector without shared words is not enough.
  MemoryCandidate other = One("Jon", "Yesterday I baked bread for my neighbours.");
  EXPECT_EQ(DecideMerge(other, store, {}, {0.95f}).action, MergeAction::kCreate);
}

TEST(MemoryMergeTest, SameSubjectWithNewInformationMergesAndKeepsHistory) {
  MemoryCandidate first = One("Jon", "I love salsa dancing.", "s1", "2023-05-08T10:00");
  MemoryCandidate more = One("Jon", "I love salsa dancing with my wife at the studio downtown.", "s2",
                             "2023-06-01T09:00");
  ASSERT_EQ(first.subject, more.subject);
  MergeDecision d = DecideMerge(more, {Stored(first)});
  ASSERT_EQ(d.action, MergeAction::kMerge) << d.reason;
  EXPECT_EQ(d.record.memory.id, first.id);  // same file
  EXPECT_NE(d.record.memory.text.find("Jon loves salsa dancing."), std::string::npos);
  EXPECT_NE(d.record.memory.text.find("studio downtown"), std::string::npos);
  EXPECT_EQ(d.record.memory.session_id, "s2");
  EXPECT_EQ(d.record.memory.message_ids.size(), 2u);
  ASSERT_EQ(d.record.history.size(), 1u);
  EXPECT_EQ(d.record.history[0].change, "merge");
  EXPECT_EQ(d.record.history[0].text, "Jon loves salsa dancing.");
  EXPECT_EQ(d.record.history[0].session_id, "s1");
}

TEST(MemoryMergeTest, ChangedSingleValuedAttributeReplacesWithHistory) {
  MemoryCandidate boston = One("Maria", "I live in Boston.", "s1", "2023-05-08T10:00");
  MemoryCandidate denver = One("Maria", "I live in Denver now.", "s2", "2023-08-01T10:00");
  MergeDecision d = DecideMerge(denver, {Stored(boston)});
  ASSERT_EQ(d.action, MergeAction::kReplace) << d.reason;
  EXPECT_EQ(d.record.memory.text, "Maria lives in Denver now.");
  EXPECT_EQ(d.record.memory.time, "2023-08-01T10:00");
  ASSERT_EQ(d.record.history.size(), 1u);
  EXPECT_EQ(d.record.history[0].text, "Maria lives in Boston.");
  EXPECT_EQ(d.record.history[0].change, "replace");
  EXPECT_EQ(d.record.history[0].time, "2023-05-08T10:00");
}

TEST(MemoryMergeTest, NegationReplacesAndFlipsBack) {
  MemoryCandidate likes = One("Jon", "I really like black coffee.", "s1");
  MemoryCandidate not_any_more = One("Jon", "I don't like black coffee anymore.", "s2");
  MergeDecision d1 = DecideMerge(not_any_more, {Stored(likes)});
  ASSERT_EQ(d1.action, MergeAction::kReplace) << d1.reason;
  EXPECT_TRUE(d1.record.memory.negated);
  MemoryCandidate likes_again = One("Jon", "I like black coffee again.", "s3");
  MergeDecision d2 = DecideMerge(likes_again, {d1.record});
  ASSERT_EQ(d2.action, MergeAction::kReplace) << d2.reason;
  EXPECT_FALSE(d2.record.memory.negated);
  ASSERT_EQ(d2.record.history.size(), 2u);
  EXPECT_EQ(d2.record.history[0].text, "Jon really likes black coffee.");
  EXPECT_EQ(d2.record.history[1].text, "Jon doesn't like black coffee anymore.");
}

TEST(MemoryMergeTest, OtherTypesAndSubjectsAreNotTouched) {
  MemoryCandidate pref = One("Jon", "I love hiking in the mountains.");
  MemoryCandidate event = One("Jon", "Last Saturday I went hiking in the mountains.");
  ASSERT_NE(pref.type, event.type);
  EXPECT_EQ(DecideMerge(event, {Stored(pref)}).action, MergeAction::kCreate);
  MemoryCandidate other_person = One("Gina", "I live in Boston.");
  EXPECT_EQ(DecideMerge(other_person, {Stored(One("Maria", "I live in Denver."))}).action,
            MergeAction::kCreate);
}

TEST(MemoryMergeTest, HistoryIsCapped) {
  MergeOptions options;
  options.max_history = 2;
  MemoryRecord r = Stored(One("Maria", "I live in Boston."));
  for (std::string city : {"Denver", "Austin", "Miami", "Dallas"}) {
    MergeDecision d = DecideMerge(One("Maria", "I live in " + city + "."), {r}, options);
    ASSERT_EQ(d.action, MergeAction::kReplace);
    r = d.record;
  }
  ASSERT_EQ(r.history.size(), 2u);
  EXPECT_EQ(r.history[0].text, "Maria lives in Austin.");
  EXPECT_EQ(r.history[1].text, "Maria lives in Miami.");
}

TEST(MemoryMergeTest, TwoSessionsEndToEnd) {
  // Session 1 creates; session 2 repeats one fact, extends one and contradicts one.
  std::vector<MemoryRecord> store;
  auto apply = [&](const std::vector<MemoryCandidate>& cands) {
    std::vector<MergeAction> actions;
    for (const MemoryCandidate& c : cands) {
      MergeDecision d = DecideMerge(c, store);
      actions.push_back(d.action);
      if (d.action == MergeAction::kCreate) {
        store.push_back(d.record);
      } else {
        store[d.target] = d.record;
      }
    }
    return actions;
  };
  auto msgs = [](std::vector<std::string> texts, std::string session) {
    std::vector<ConversationMessage> out;
    for (size_t i = 0; i < texts.size(); ++i) {
      out.push_back({session + "-" + std::to_string(i), "user", "Gina", texts[i], "", ""});
    }
    return out;
  };
  SessionContext s1{"s1", "u", "2:00 pm on 1 March, 2023", "", ""};
  SessionContext s2{"s2", "u", "2:00 pm on 1 June, 2023", "", ""};
  std::vector<MergeAction> first = apply(ExtractMemories(
      msgs({"I work as a dance teacher.", "I love jazz music.", "I live in Chicago."}, "s1"), s1));
  EXPECT_EQ(first, std::vector<MergeAction>(3, MergeAction::kCreate));
  std::vector<MergeAction> second = apply(ExtractMemories(
      msgs({"I work as a dance teacher.", "I love jazz music, especially live jazz in small clubs.",
            "I live in Seattle."},
           "s2"),
      s2));
  EXPECT_EQ(second, (std::vector<MergeAction>{MergeAction::kSkip, MergeAction::kMerge,
                                              MergeAction::kReplace}));
  ASSERT_EQ(store.size(), 3u);
  EXPECT_EQ(store[2].memory.text, "Gina lives in Seattle.");
  EXPECT_EQ(store[2].history.at(0).text, "Gina lives in Chicago.");
}

TEST(MemoryMergeTest, PlanMemoryWritesAppliesDecisionsInOrder) {
  std::vector<ConversationMessage> msgs = {
      {"1", "user", "Gina", "I live in Chicago.", "", ""},
      {"2", "user", "Gina", "I love jazz music.", "", ""},
      {"3", "user", "Gina", "I live in Chicago!", "", ""},
      {"4", "user", "Gina", "Actually I live in Seattle now.", "", ""},
  };
  SessionContext ctx{"s1", "u", "2023-03-01T14:00", "", ""};
  std::vector<MemoryRecord> store;
  // The in-batch duplicate of "I live in Chicago" is folded by the extractor
  // (one candidate, two message ids); the move to Seattle replaces it.
  std::vector<MemoryWrite> writes = PlanMemoryWrites(ExtractMemories(msgs, ctx), &store);
  ASSERT_EQ(writes.size(), 3u);
  EXPECT_EQ(writes[0].action, MergeAction::kCreate);
  EXPECT_EQ(writes[1].action, MergeAction::kCreate);
  EXPECT_EQ(writes[2].action, MergeAction::kReplace);
  ASSERT_EQ(store.size(), 2u);
  EXPECT_EQ(store[0].memory.text, "Actually Gina lives in Seattle now.");
  EXPECT_EQ(store[0].path, writes[0].record.path);  // replaced in place: same file
  EXPECT_EQ(writes[2].record.path, writes[0].record.path);
  Result<MemoryRecord> parsed = ParseMemoryFile(writes[2].content);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->history.at(0).text, "Gina lives in Chicago.");
  // A second session repeating a known fact writes nothing.
  std::vector<MemoryWrite> again = PlanMemoryWrites(
      ExtractMemories({{"9", "user", "Gina", "I love jazz music.", "", ""}}, ctx), &store);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].action, MergeAction::kSkip);
  EXPECT_TRUE(again[0].content.empty());
  EXPECT_EQ(store.size(), 2u);
}

TEST(MemoryFileTest, RoundTrip) {
  MemoryRecord r = Stored(One("Caroline", "I went to a LGBTQ support group yesterday."));
  r.memory.message_ids.push_back("D1:5");
  r.memory.text += "\n---\nA second paragraph with \"quotes\" and: colons.";
  r.history.push_back({"2023-05-01T10:00", "s0", "replace", "Line one\nline \"two\""});
  r.history.push_back({"2023-05-02T10:00", "s0b", "merge", ""});
  std::string file = RenderMemoryFile(r);
  EXPECT_EQ(file.rfind("---\nskald-memory: 1\n", 0), 0u);
  EXPECT_NE(file.find("type: events\n"), std::string::npos);
  EXPECT_NE(file.find("event_date: 2023-05-07\n"), std::string::npos);
  EXPECT_NE(file.find("speaker: Caroline\n"), std::string::npos);
  Result<MemoryRecord> back = ParseMemoryFile(file);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  const MemoryCandidate& a = r.memory;
  const MemoryCandidate& b = back->memory;
  EXPECT_EQ(b.id, a.id);
  EXPECT_EQ(b.type, a.type);
  EXPECT_EQ(b.subject, a.subject);
  EXPECT_EQ(b.attribute, a.attribute);
  EXPECT_EQ(b.value, a.value);
  EXPECT_EQ(b.negated, a.negated);
  EXPECT_EQ(b.text, a.text);
  EXPECT_EQ(b.speaker, a.speaker);
  EXPECT_EQ(b.session_id, a.session_id);
  EXPECT_EQ(b.message_ids, a.message_ids);
  EXPECT_EQ(b.time, a.time);
  EXPECT_EQ(b.event_date, a.event_date);
  ASSERT_EQ(back->history.size(), 2u);
  EXPECT_EQ(back->history[0].text, "Line one\nline \"two\"");
  EXPECT_EQ(back->history[1].session_id, "s0b");
  EXPECT_EQ(RenderMemoryFile(*back), file);
}

TEST(MemoryFileTest, MalformedFilesAreRejected) {
  EXPECT_FALSE(ParseMemoryFile("").ok());
  EXPECT_FALSE(ParseMemoryFile("just text\n").ok());
  EXPECT_FALSE(ParseMemoryFile("---\nskald-memory: 1\nid: x\ntype: events\nsubject: s\n").ok());
  EXPECT_FALSE(ParseMemoryFile("---\nskald-memory: 1\nid: x\ntype: nope\nsubject: s\n---\nt\n").ok());
  EXPECT_FALSE(ParseMemoryFile("---\nskald-memory: 1\nid: x\ntype: events\n---\nt\n").ok());
  EXPECT_FALSE(
      ParseMemoryFile("---\nskald-memory: 1\nid: x\ntype: events\nsubject: s\nmessages: [1]\n---\nt\n").ok());
  Result<MemoryRecord> bad = ParseMemoryFile("---\nskald-memory: 2\n---\n");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  // Unknown keys are ignored.
  Result<MemoryRecord> ok =
      ParseMemoryFile("---\nskald-memory: 1\nid: x\ntype: events\nsubject: s\nfuture: 1\n---\nt\n");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->memory.text, "t");
}

TEST(MemoryFileTest, RelativePaths) {
  MemoryCandidate e = One("Caroline", "I went to a LGBTQ support group yesterday.");
  std::string path = MemoryRelativePath(e);
  EXPECT_EQ(path.rfind("events/2023/05/07/caroline-event-2023-05-07-", 0), 0u) << path;
  EXPECT_TRUE(path.ends_with(e.id.substr(0, 8) + ".md")) << path;
  MemoryCandidate p = One("Maria", "I live in Boston.");
  EXPECT_EQ(MemoryRelativePath(p), "profile/maria-lives-in-" + p.id.substr(0, 8) + ".md");
  MemoryCandidate w = One("Jon", "I went camping last weekend.");
  EXPECT_EQ(MemoryRelativePath(w).rfind("events/2023/05/06/", 0), 0u) << MemoryRelativePath(w);
}

TEST(MemoryFileTest, ACreatedMemoryNeverTakesTheFileOfAnother) {
  // A memory edited into other words keeps its file (and its old id's file
  // name) while its id and subject change; the old fact said again must land
  // beside it, not over it.
  MemoryCandidate boston = One("Maria", "I live in Boston.");
  MemoryRecord edited;
  edited.memory = One("Maria", "I like long walks.");
  edited.path = MemoryRelativePath(boston);
  std::vector<MemoryRecord> store = {edited};
  std::vector<MemoryWrite> writes = PlanMemoryWrites({boston, boston}, &store);
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_EQ(writes[0].action, MergeAction::kCreate);
  const std::string stem = edited.path.substr(0, edited.path.size() - 3);
  EXPECT_EQ(writes[0].record.path, stem + "-2.md");
  EXPECT_EQ(writes[1].action, MergeAction::kSkip);
  ASSERT_EQ(store.size(), 2u);
  EXPECT_EQ(store[0].path, edited.path);
  EXPECT_EQ(store[0].memory.text, edited.memory.text);
}

}  // namespace
}  // namespace skald
