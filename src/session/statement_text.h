#pragma once
// Sentence-level text helpers of the model-free memory extractor
// (memory_extractor.h): sentence and clause splitting, value phrases and
// subject slugs, named-entity spotting, date insertion and the rewriting of
// first-person statements in the third person. English, ASCII-oriented;
// other bytes pass through unchanged.
//
// Thread safety: pure functions.

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "session/date_resolver.h"

namespace skald {

// `s` with curly apostrophes (U+2018/U+2019) as ' and tabs/line breaks as spaces.
std::string NormalizeQuotes(std::string_view s);

// Splits at '.', '!' or '?' followed by white space (or the end) and at line
// breaks; common abbreviations ("Dr.", "Mr.") do not end a sentence. Each
// sentence is trimmed and passed through NormalizeQuotes.
std::vector<std::string> SplitSentences(std::string_view text);

// Splits a sentence into clauses where a conjunction starts a new
// first-person statement ("I love pottery and I hate the cold" → "I love
// pottery", "I hate the cold"), so each statement gets its own type and polarity.
std::vector<std::string> SplitClauses(const std::string& sentence);

// Number of white-space separated words.
size_t WordCount(std::string_view s);

// The value phrase of a rule's capture: cut at the first clause boundary
// (punctuation, "and", "because", …), at most 8 words.
std::string ValuePhrase(std::string_view capture);

// Up to `n` matching terms (MatchTerms) of `text` joined by '-'.
std::string Slug(std::string_view text, size_t n);

// True when a liked "object" is a reaction ("I love that!", "I like your…").
bool IsReactionObject(std::string_view value);

// Weekday and month names, interjections and other capitalized words that name no entity.
bool IsCommonCapitalized(std::string_view w);

// `w` is a speaker's name (lower-case set) or a short form of it ("Mel" for "melanie").
bool IsSpeakerName(std::string_view w, const std::unordered_set<std::string>& speakers);

// Capitalized words (not sentence-initial, not speakers) that name something:
// "Anna", "Boston", "LGBTQ"; consecutive ones are joined ("New York").
std::vector<std::string> NamedEntities(std::string_view sentence,
                                       const std::unordered_set<std::string>& speakers);

// Replaces each resolved date expression (FindDates on `sentence`) by its
// date ("yesterday" → "on 2023-05-07") so the memory stays true when read later.
std::string InsertDates(std::string_view sentence, const std::vector<ResolvedDate>& dates);

// `text` cut to at most `max_bytes` (at a word boundary when one is near) plus "…".
std::string CutText(std::string text, size_t max_bytes);

// Statements that carry no fact: "Thanks, Mel!", "Wow!", "Sounds great!".
bool IsInterjection(std::string_view statement);

// A question's "you"/"your" rewritten to the person it was put to.
std::string AddressedTo(std::string_view question, std::string_view person);

// Rewrites a first-person sentence by `speaker` in the third person
// ("I'm a nurse and my sister…" → "Maria is a nurse and Maria's sister…"),
// with the verb after "I" agreeing for common verbs ("I love" → "loves").
std::string ThirdPerson(std::string_view sentence, std::string_view speaker);

}  // namespace skald
