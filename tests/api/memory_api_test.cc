// Memories from sessions with no model, end to end over HTTP: messages go
// into a session, commit archives them and its background task extracts
// memories (session/memory_hook.h) that find then returns; a second session
// repeating and contradicting facts skips and replaces instead of piling up.
// POST …/extract does the same for the live messages, synchronously.

#include <string>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

class MemoryApiTest : public ApiTest {
 protected:
  Json FindMemories(const std::string& query) {
    Reply r = PostJson("/api/v1/search/find", {{"query", query}, {"context_type", "memory"}});
    EXPECT_EQ(r.status, 200) << r.raw;
    return r.json["result"]["memories"];
  }

  // The best memory file among `hits` (a directory's overview may rank
  // above it: it lists what the directory holds); null when there is none.
  static Json FirstFile(const Json& hits) {
    for (const Json& hit : hits) {
      if (hit.value("level", 0) == 2) return hit;
    }
    return nullptr;
  }
};

TEST_F(MemoryApiTest, CommittedFactsBecomeMemoriesThatFindReturns) {
  ASSERT_EQ(PostJson("/api/v1/sessions", {{"session_id", "s1"}}).status, 200);
  Say("s1", "Hi! I work as a nurse and I live in Boston.");
  Say("s1", "I love hiking in the mountains.");
  Say("s1", "What is the weather like?");
  CommitAndWait("s1");

  ASSERT_EQ(MemoryFiles("profile").size(), 2u);
  ASSERT_EQ(MemoryFiles("preferences").size(), 1u);
  const Json hits = FindMemories("where does the user live");
  ASSERT_FALSE(hits.empty());
  const Json best = FirstFile(hits);
  ASSERT_TRUE(best.is_object()) << hits.dump();
  EXPECT_NE(best.value("abstract", "").find("Boston"), std::string::npos) << hits.dump();
  EXPECT_NE(best.value("uri", "").find("/memories/profile/"), std::string::npos) << hits.dump();
  EXPECT_EQ(hits[0].value("context_type", ""), "memory");
  // The question carried no fact: nothing mentions the weather.
  for (const char* type : {"profile", "preferences", "events", "entities"}) {
    for (const std::string& uri : MemoryFiles(type)) {
      Reply body = Get("/api/v1/content/read?uri=" + Q(uri));
      EXPECT_EQ(body.raw.find("weather"), std::string::npos) << uri << ": " << body.raw;
    }
  }
}

TEST_F(MemoryApiTest, AMemoryIsReadWithoutItsProvenanceHeaderUnlessRaw) {
  ASSERT_EQ(PostJson("/api/v1/sessions", {{"session_id", "s1"}}).status, 200);
  Say("s1", "I live in Boston.");
  CommitAndWait("s1");
  const std::vector<std::string> files = MemoryFiles("profile");
  ASSERT_EQ(files.size(), 1u);
  Reply plain = Get("/api/v1/content/read?uri=" + Q(files[0]));
  ASSERT_EQ(plain.status, 200) << plain.raw;
  const std::string text = plain.json["result"];
  EXPECT_NE(text.find("Boston"), std::string::npos) << text;
  EXPECT_EQ(text.find("skald-memory"), std::string::npos) << text;
  EXPECT_EQ(text.find("---"), std::string::npos) << text;
  EXPECT_EQ(Get("/api/v1/content/read?raw=false&uri=" + Q(files[0])).json["result"], text);
  Reply raw = Get("/api/v1/content/read?raw=true&uri=" + Q(files[0]));
  ASSERT_EQ(raw.status, 200) << raw.raw;
  const std::string whole = raw.json["result"];
  EXPECT_EQ(whole.rfind("---\nskald-memory: 1\n", 0), 0u) << whole;
  EXPECT_NE(whole.find(text), std::string::npos);
  // Lines count in the memory's text.
  EXPECT_EQ(Get("/api/v1/content/read?limit=1&uri=" + Q(files[0])).json["result"],
            text.substr(0, text.find('\n') == std::string::npos ? text.size()
                                                               : text.find('\n') + 1));
  // A snapshot shows it the same way: raw=false without the header.
  ASSERT_EQ(PostJson("/api/v1/snapshot/commit", {{"message", "m"}}).status, 200);
  const std::string show = "/api/v1/snapshot/show?target_ref=main&path=" + Q(files[0]);
  EXPECT_EQ(Get(show + "&raw=false").raw, text);
  EXPECT_EQ(Get(show).raw, whole);
}

TEST_F(MemoryApiTest, AMemoryEditedAsReadKeepsItsHeaderAndStillMerges) {
  // An agent reads a memory (no header), edits it and writes it back: the
  // memory keeps its provenance, so a later contradiction still replaces it.
  Say("s1", "I live in Boston.");
  CommitAndWait("s1");
  const std::vector<std::string> files = MemoryFiles("profile");
  ASSERT_EQ(files.size(), 1u);
  const std::string text = Get("/api/v1/content/read?uri=" + Q(files[0])).json["result"];
  ASSERT_EQ(text.find("---"), std::string::npos) << text;
  std::string edited = text;
  edited.insert(edited.find("Boston") + 6, " (downtown)");
  Reply w = PostJson("/api/v1/content/write",
                     {{"uri", files[0]}, {"content", edited}, {"mode", "replace"}});
  ASSERT_EQ(w.status, 200) << w.raw;
  const std::string raw = Get("/api/v1/content/read?raw=true&uri=" + Q(files[0])).json["result"];
  EXPECT_EQ(raw.rfind("---\nskald-memory: 1\n", 0), 0u) << raw;
  EXPECT_NE(raw.find("(downtown)"), std::string::npos) << raw;
  EXPECT_NE(raw.find("\"change\":\"edit\""), std::string::npos) << raw;
  EXPECT_EQ(Get("/api/v1/content/read?uri=" + Q(files[0])).json["result"], edited);

  Say("s2", "I live in Denver now.");
  CommitAndWait("s2");
  EXPECT_EQ(MemoryFiles("profile"), files) << "the contradiction replaced the edited memory";
  const std::string after = Get("/api/v1/content/read?uri=" + Q(files[0])).json["result"];
  EXPECT_NE(after.find("Denver"), std::string::npos) << after;
}

TEST_F(MemoryApiTest, AnEditedMemoryStatesWhatItsTextSays) {
  Say("s1", "I live in Boston.");
  CommitAndWait("s1");
  const std::vector<std::string> files = MemoryFiles("profile");
  ASSERT_EQ(files.size(), 1u);
  auto write = [&](const std::string& content, const std::string& mode) {
    Reply w = PostJson("/api/v1/content/write",
                       {{"uri", files[0]}, {"content", content}, {"mode", mode}});
    ASSERT_EQ(w.status, 200) << w.raw;
  };
  auto read = [&](bool raw) {
    return Get(std::string("/api/v1/content/read?raw=") + (raw ? "true" : "false") +
               "&uri=" + Q(files[0]))
        .json["result"]
        .get<std::string>();
  };
  // The memory now says Denver: a later "Boston" is news, not a repeat.
  write("User lives in Denver.", "replace");
  EXPECT_NE(read(true).find("\nvalue: Denver\n"), std::string::npos) << read(true);
  EXPECT_EQ(read(true).find("I live in Boston"), std::string::npos) << "no quote of Boston";
  Say("s2", "I live in Boston.");
  CommitAndWait("s2");
  EXPECT_NE(read(false).find("Boston"), std::string::npos) << read(true);
  EXPECT_EQ(read(false).find("Denver"), std::string::npos) << read(true);
  // A "not" after the value is about something else; the value is a whole
  // word; a curly apostrophe is an apostrophe.
  write("User lives in Boston, not in Denver.", "replace");
  EXPECT_NE(read(true).find("\nnegated: false\n"), std::string::npos) << read(true);
  write("User\u2019s Bostonian friend doesn\u2019t live in Boston.", "replace");
  EXPECT_NE(read(true).find("\nnegated: true\n"), std::string::npos) << read(true);
  write("User lives in Boston.", "replace");
  EXPECT_NE(read(true).find("\nnegated: false\n"), std::string::npos) << read(true);
  // "Not" came: a later "I live in Boston" contradicts the edited memory.
  write("User no longer lives in Boston.", "replace");
  EXPECT_NE(read(true).find("\nnegated: true\n"), std::string::npos) << read(true);
  Say("s3", "I live in Boston.");
  CommitAndWait("s3");
  EXPECT_EQ(MemoryFiles("profile"), files);
  EXPECT_EQ(read(false).find("no longer"), std::string::npos) << read(true);
  // Appends go on a line of their own; text that only looks like a header
  // is text; the history keeps at most 20 versions.
  write("Works downtown.", "append");
  EXPECT_NE(read(false).find("Boston.\nWorks downtown."), std::string::npos) << read(false);
  write("---\nnot a header\n", "replace");
  EXPECT_EQ(read(true).rfind("---\nskald-memory: 1\n", 0), 0u) << read(true);
  EXPECT_EQ(read(false), "---\nnot a header\n");
  for (int i = 0; i < 25; ++i) write("version " + std::to_string(i), "replace");
  const std::string raw = read(true);
  size_t versions = 0;
  for (size_t at = raw.find("\nhistory: "); at != std::string::npos;
       at = raw.find("\nhistory: ", at + 1)) {
    ++versions;
  }
  EXPECT_EQ(versions, 20u) << raw;
  // Long texts: the old versions keep at most 64 KiB beside the newest.
  for (int i = 0; i < 10; ++i) write(std::string(20000, static_cast<char>('a' + i)), "replace");
  EXPECT_LT(read(true).size(), size_t{20000 + 20000 + (64 << 10) + 4096}) << "file size";
  // A text about something else is a note of its own: a later statement of
  // where the user lives does not replace it.
  write("User works at Google.", "replace");
  Say("s4", "I live in Denver.");
  CommitAndWait("s4");
  EXPECT_EQ(read(false), "User works at Google.\n");
  std::vector<std::string> now = MemoryFiles("profile");
  ASSERT_EQ(now.size(), 2u);
  // The note keeps its file (named after the first words): those words said
  // again, with nothing to replace, make a file beside it.
  for (const std::string& f : now) {
    if (f != files[0]) ASSERT_EQ(Delete("/api/v1/fs?uri=" + Q(f)).status, 200);
  }
  Say("s5", "I live in Boston.");
  CommitAndWait("s5");
  EXPECT_EQ(read(false), "User works at Google.\n");
  EXPECT_EQ(MemoryFiles("profile").size(), 2u);
}

TEST_F(MemoryApiTest, RepeatsSkipAndContradictionsReplaceWithHistory) {
  Say("a", "I live in Boston.");
  Say("a", "I love hiking.");
  CommitAndWait("a");
  const std::vector<std::string> before = MemoryFiles("profile");
  ASSERT_EQ(before.size(), 1u);

  Say("b", "I love hiking.");           // known: skipped
  Say("b", "I live in Denver now.");    // same attribute, new value: replaced
  CommitAndWait("b");
  EXPECT_EQ(MemoryFiles("preferences").size(), 1u);
  const std::vector<std::string> after = MemoryFiles("profile");
  ASSERT_EQ(after, before);  // the memory keeps its file
  Reply body = Get("/api/v1/content/read?raw=true&uri=" + Q(after[0]));
  ASSERT_EQ(body.status, 200) << body.raw;
  const std::string text = body.json["result"];
  EXPECT_NE(text.find("Denver"), std::string::npos) << text;
  EXPECT_NE(text.find("Boston"), std::string::npos) << "the older value stays as history: " << text;
}

TEST_F(MemoryApiTest, ExtractWritesMemoriesFromLiveMessagesAndListsThem) {
  Say("x", "I work as a nurse and I live in Boston.");
  Say("x", "What is the weather like?");
  Reply r = PostJson("/api/v1/sessions/x/extract", Json::object());
  ASSERT_EQ(r.status, 200) << r.raw;
  const Json& list = r.json["result"];
  ASSERT_TRUE(list.is_array()) << r.raw;
  ASSERT_EQ(list.size(), 2u) << r.raw;
  for (const Json& item : list) {
    EXPECT_EQ(item.value("memory_type", ""), "profile") << item.dump();
    EXPECT_EQ(item.value("decision", ""), "create") << item.dump();
    EXPECT_EQ(item.value("uri", "").rfind("viking://user/default/memories/profile/", 0), 0u)
        << item.dump();
  }
  EXPECT_NE(list.dump().find("User lives in Boston."), std::string::npos) << r.raw;
  // Written (and indexed) at once, like a commit's memories; the messages stay live.
  Reply read = Get("/api/v1/content/read?uri=" + Q(list[1].value("uri", "")));
  ASSERT_EQ(read.status, 200) << read.raw;
  EXPECT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 60}}).status, 200);
  const Json hits = FindMemories("where does the user live");
  const Json best = FirstFile(hits);
  ASSERT_TRUE(best.is_object()) << hits.dump();
  EXPECT_NE(best.value("abstract", "").find("Boston"), std::string::npos) << hits.dump();
  EXPECT_EQ(Get("/api/v1/sessions/x").json["result"]["message_count"], 2);

  // Again: nothing new, every candidate skips; a session with nothing to say lists nothing.
  Reply again = PostJson("/api/v1/sessions/x/extract", Json::object());
  ASSERT_EQ(again.status, 200) << again.raw;
  ASSERT_EQ(again.json["result"].size(), 2u);
  for (const Json& item : again.json["result"]) EXPECT_EQ(item.value("decision", ""), "skip");
  EXPECT_EQ(MemoryFiles("profile").size(), 2u);
  ASSERT_EQ(PostJson("/api/v1/sessions", {{"session_id", "quiet"}}).status, 200);
  Reply quiet = Post("/api/v1/sessions/quiet/extract", "");
  ASSERT_EQ(quiet.status, 200) << quiet.raw;
  EXPECT_EQ(quiet.json["result"], Json::array());

  Reply missing = PostJson("/api/v1/sessions/nope/extract", Json::object());
  EXPECT_EQ(missing.status, 404) << missing.raw;
  EXPECT_EQ(missing.Code(), "NOT_FOUND");
}

}  // namespace
}  // namespace skald::apitest
