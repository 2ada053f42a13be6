#pragma once
// Value types shared by the model-free memory extractor (memory_extractor.h)
// and the dedup/merge step (memory_merge.h): memory categories, conversation
// messages as the extractor sees them, candidates and stored memory records.
//
// Thread safety: plain values; pure functions.

#include <string>
#include <string_view>
#include <vector>

namespace skald {

// Memory categories, named as OpenViking's memory directories
// (viking://user/{uid}/memories/{name}/…). User-role statements become
// profile, preferences, entities, events or identity; assistant-role
// statements become cases, patterns, tools or skills.
enum class MemoryType {
  kProfile,      // who the speaker is: job, home, origin, age, family, studies
  kPreferences,  // likes, dislikes, favourites and habits
  kEntities,     // named people, places and things and what is said of them
  kEvents,       // dated happenings, plans and outcomes
  kCases,        // a problem and how it was solved (assistant side)
  kPatterns,     // recurring ways of working (assistant side)
  kTools,        // tool usage (assistant side)
  kSkills,       // skill usage (assistant side)
  kIdentity,     // names and self-identification
};

// The directory name of a type ("profile", "preferences", …).
std::string_view MemoryTypeName(MemoryType type);
// Inverse of MemoryTypeName; false (and *out untouched) for unknown names.
bool ParseMemoryType(std::string_view name, MemoryType* out);
// Every type, in enum order.
const std::vector<MemoryType>& AllMemoryTypes();

// One conversation message as the extractor reads it.
struct ConversationMessage {
  std::string id;       // message id (LoCoMo: the dia_id, e.g. "D1:3")
  std::string role;     // "user", "assistant" or "system"
  std::string speaker;  // display name of the author; empty → derived from role
  std::string text;     // concatenated text parts
  std::string time;     // ISO 8601 or LoCoMo date of the message; empty → session time
  // The message as a line of an archive excerpt ("Speaker: text", one line;
  // session/archive_excerpts.h ExcerptLine): what a memory quotes.
  std::string line;
};

// The session a batch of messages belongs to.
struct SessionContext {
  std::string session_id;
  std::string user;          // owning user id (the memory space)
  std::string session_time;  // the session's own date/time (ISO 8601 or "1:56 pm on 8 May, 2023")
  std::string user_name;     // display name for role "user" messages without a speaker ("User")
  std::string assistant_name;  // display name for role "assistant" ("Assistant")
};

// Quotes a memory keeps (MemoryCandidate::quotes).
inline constexpr size_t kMaxMemoryQuotes = 4;

// Appends the quotes of `from` missing in `into`, keeping the newest
// kMaxMemoryQuotes.
void AddQuotes(const std::vector<std::string>& from, std::vector<std::string>* into);

// A memory proposed by the extractor, before dedup.
struct MemoryCandidate {
  MemoryType type = MemoryType::kProfile;
  // Normalized key of what the memory is about: "<speaker>/<attribute>[/<object>]"
  // in lower case, e.g. "caroline/lives_in", "caroline/likes/pottery",
  // "caroline/event/2023-05-07/support-group", "entity/anna". Two candidates
  // with one subject speak of the same thing (merge or replace).
  std::string subject;
  // The attribute part of the subject ("lives_in", "likes", "occupation",
  // "event", "plan", "entity", …); single-valued attributes (see
  // IsSingleValuedAttribute in memory_merge.h) are replaced when they change.
  std::string attribute;
  std::string value;   // the attribute's value as said ("Boston", "pottery")
  bool negated = false;  // the statement denies the attribute ("I don't like…")
  std::string text;      // self-contained sentence naming the speaker
  std::string speaker;
  std::string session_id;
  std::vector<std::string> message_ids;
  // The messages it came from as said, excerpt lines ("Speaker: text"),
  // at most kMaxMemoryQuotes, newest last: the source beside the statement.
  std::vector<std::string> quotes;
  std::string time;        // when it was said: "YYYY-MM-DDTHH:MM" (empty if unknown)
  std::string event_date;  // resolved date of the event ("2023-05-07", "2023-05", …) or empty
  std::string id;          // stable id: hash of type + normalized subject + normalized text
};

// One earlier version of a memory.
struct MemoryHistoryEntry {
  std::string time;        // when this version was said
  std::string session_id;  // the session that produced this version
  std::string change;      // "merge" or "replace": how it was superseded
  std::string text;        // the text of this version
};

// A stored memory: a candidate that was created, plus its history.
struct MemoryRecord {
  MemoryCandidate memory;
  std::vector<MemoryHistoryEntry> history;  // oldest first
  // Where the record is stored, relative to viking://user/{uid}/memories/
  // (MemoryRelativePath at creation); kept when the record is merged into or
  // replaced, so its file never moves. Not part of the file content.
  std::string path;
};

// Lower-case matching terms of `text`: ASCII letters/digits and non-ASCII
// bytes form words; function words are dropped and a plural "-s" is folded.
// Used for near-duplicate detection and stable ids.
std::vector<std::string> MatchTerms(std::string_view text);
// MatchTerms joined by single spaces.
std::string NormalizeForMatch(std::string_view text);
// 16 hex characters of SHA-256 over type, normalized subject and normalized
// text: the same fact said the same way gets the same id in every session.
std::string MemoryStableId(MemoryType type, std::string_view subject, std::string_view text);

}  // namespace skald
