#include "session/statement_text.h"

#include <cctype>
#include <map>
#include <optional>

#include "common/strings.h"
#include "session/memory_types.h"

namespace skald {

std::string NormalizeQuotes(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    // U+2018/U+2019 (E2 80 98/99) → '
    if (i + 2 < s.size() && static_cast<unsigned char>(s[i]) == 0xE2 &&
        static_cast<unsigned char>(s[i + 1]) == 0x80 &&
        (static_cast<unsigned char>(s[i + 2]) == 0x98 || static_cast<unsigned char>(s[i + 2]) == 0x99)) {
      out.push_back('\'');
      i += 2;
      continue;
    }
    out.push_back(s[i] == '\n' || s[i] == '\t' || s[i] == '\r' ? ' ' : s[i]);
  }
  return out;
}

// Splits at '.', '!' or '?' followed by white space (or the end) and at line
// breaks; common abbreviations ("Dr.", "Mr.") do not end a sentence.
std::vector<std::string> SplitSentences(std::string_view text) {
  static const std::unordered_set<std::string_view> kAbbrev = {"mr", "mrs", "ms", "dr", "st",
                                                               "jr", "vs", "etc", "e.g", "i.e"};
  std::vector<std::string> out;
  size_t start = 0;
  auto emit = [&](size_t end) {
    std::string_view piece = Trim(text.substr(start, end - start));
    if (!piece.empty()) out.push_back(NormalizeQuotes(piece));
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      emit(i);
      start = i + 1;
      continue;
    }
    if (c != '.' && c != '!' && c != '?') continue;
    size_t j = i;
    while (j + 1 < text.size() && (text[j + 1] == '.' || text[j + 1] == '!' || text[j + 1] == '?')) ++j;
    if (j + 1 < text.size() && !std::isspace(static_cast<unsigned char>(text[j + 1]))) {
      i = j;
      continue;
    }
    if (c == '.' && j == i) {
      size_t w = i;
      while (w > start && std::isalpha(static_cast<unsigned char>(text[w - 1]))) --w;
      if (kAbbrev.count(AsciiLower(text.substr(w, i - w))) > 0) continue;
    }
    emit(j + 1);
    start = j + 1;
    i = j;
  }
  emit(text.size());
  return out;
}

// Splits a sentence into clauses where a conjunction starts a new
// first-person statement ("I love pottery and I hate the cold" → two
// clauses), so each statement gets its own type and polarity.
std::vector<std::string> SplitClauses(const std::string& sentence) {
  static const std::vector<std::string_view> kJoins = {", and ", " and ", ", but ", " but ",
                                                       ", so ", "; "};
  std::string lower = AsciiLower(sentence);
  std::vector<std::string> out;
  size_t start = 0;
  size_t i = 0;
  while (i < lower.size()) {
    size_t cut_len = 0;
    for (std::string_view j : kJoins) {
      if (lower.compare(i, j.size(), j) != 0) continue;
      std::string_view after = std::string_view(lower).substr(i + j.size());
      if (after.starts_with("i ") || after.starts_with("i'") || after.starts_with("we ")) {
        cut_len = j.size();
        break;
      }
    }
    if (cut_len == 0) {
      ++i;
      continue;
    }
    std::string_view piece = Trim(std::string_view(sentence).substr(start, i - start));
    if (!piece.empty()) out.emplace_back(piece);
    start = i + cut_len;
    i = start;
  }
  std::string_view last = Trim(std::string_view(sentence).substr(start));
  if (!last.empty()) out.emplace_back(last);
  // A clause starting with a lower-case letter gets a capital for display.
  for (std::string& c : out) {
    if (!c.empty() && c[0] >= 'a' && c[0] <= 'z' && c.rfind("i ", 0) != 0) {
      c[0] = static_cast<char>(c[0] - 'a' + 'A');
    } else if (c.rfind("i ", 0) == 0 || c.rfind("i'", 0) == 0) {
      c[0] = 'I';
    }
  }
  return out;
}

size_t WordCount(std::string_view s) {
  size_t n = 0;
  bool in = false;
  for (char c : s) {
    bool w = !std::isspace(static_cast<unsigned char>(c));
    if (w && !in) ++n;
    in = w;
  }
  return n;
}

// The value phrase of a capture: cut at the first clause boundary, at most 8 words.
std::string ValuePhrase(std::string_view capture) {
  static const std::vector<std::string_view> kStops = {" and ", " but ", " because ", " so ",
                                                       " since ", " when ", " which ", " - ",
                                                       " who ", " as ", " while ", " if "};
  size_t cut = capture.size();
  for (size_t i = 0; i < capture.size(); ++i) {
    char c = capture[i];
    if (c == ',' || c == '.' || c == ';' || c == ':' || c == '!' || c == '?' || c == '(') {
      cut = i;
      break;
    }
  }
  std::string lower = AsciiLower(capture.substr(0, cut));
  for (std::string_view s : kStops) {
    size_t p = lower.find(s);
    if (p != std::string::npos && p < cut) cut = p;
  }
  std::string_view v = Trim(capture.substr(0, cut));
  size_t words = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == ' ' && ++words == 8) {
      v = v.substr(0, i);
      break;
    }
  }
  return std::string(v);
}

// Up to `n` matching terms of `text` joined by '-': the object part of a subject.
std::string Slug(std::string_view text, size_t n) {
  std::string out;
  size_t used = 0;
  for (const std::string& t : MatchTerms(text)) {
    if (used == n) break;
    if (!out.empty()) out.push_back('-');
    out += t;
    ++used;
  }
  return out;
}

bool IsReactionObject(std::string_view value) {
  static const std::unordered_set<std::string> kReactions = {
      "it", "that", "this", "you", "your", "how", "seeing", "hearing", "what", "them",
      "those", "these", "when", "reading"};
  std::string first = AsciiLower(value.substr(0, value.find(' ')));
  return value.empty() || kReactions.count(first) > 0;
}

// Weekday, month and other capitalized words that are no entity.
bool IsCommonCapitalized(std::string_view w) {
  static const std::unordered_set<std::string> kCommon = {
      "i", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
      "january", "february", "march", "april", "may", "june", "july", "august", "september",
      "october", "november", "december", "omg", "lol", "wow", "hey", "hi", "oh", "ok", "okay",
      "thanks", "yes", "no", "yeah", "im", "ive", "id"};
  return kCommon.count(AsciiLower(w)) > 0;
}

// A speaker's name or a short form of it ("Mel" for Melanie): not an entity.
bool IsSpeakerName(std::string_view w, const std::unordered_set<std::string>& speakers) {
  std::string lw = AsciiLower(w);
  for (const std::string& s : speakers) {
    if (s == lw || (lw.size() >= 3 && s.rfind(lw, 0) == 0)) return true;
  }
  return false;
}

// Capitalized words (not sentence-initial) that name something: "Anna",
// "Boston", "LGBTQ". Consecutive ones are joined ("New York").
std::vector<std::string> NamedEntities(std::string_view sentence,
                                       const std::unordered_set<std::string>& skip) {
  std::vector<std::string> out;
  std::string current;
  bool first_word = true;
  size_t i = 0;
  auto flush = [&]() {
    if (!current.empty()) out.push_back(current);
    current.clear();
  };
  while (i < sentence.size()) {
    if (!std::isalpha(static_cast<unsigned char>(sentence[i]))) {
      if (sentence[i] != ' ') flush();
      ++i;
      continue;
    }
    size_t j = i;
    while (j < sentence.size() &&
           (std::isalnum(static_cast<unsigned char>(sentence[j])) || sentence[j] == '\'')) {
      ++j;
    }
    std::string_view w = sentence.substr(i, j - i);
    bool cap = std::isupper(static_cast<unsigned char>(w[0])) && !first_word &&
               !IsCommonCapitalized(w) && w.find('\'') == std::string_view::npos &&
               !IsSpeakerName(w, skip);
    if (cap) {
      if (!current.empty()) current.push_back(' ');
      current += w;
    } else {
      flush();
    }
    first_word = false;
    i = j;
  }
  flush();
  return out;
}

// Replaces each resolved date expression by its date ("yesterday" →
// "on 2023-05-07") so that the memory stays true when read later.
std::string InsertDates(std::string_view sentence, const std::vector<ResolvedDate>& dates) {
  std::string out;
  size_t pos = 0;
  for (const ResolvedDate& d : dates) {
    out.append(sentence.substr(pos, d.begin - pos));
    std::string phrase = AsciiLower(sentence.substr(d.begin, d.end - d.begin));
    std::string lead = "in";
    if (phrase.rfind("since ", 0) == 0) lead = "since";
    if (phrase.rfind("during ", 0) == 0) lead = "during";
    switch (d.granularity) {
      case DateGranularity::kDay:
        out += (lead == "in" ? std::string("on") : lead) + " " + d.ToString();
        break;
      case DateGranularity::kWeekend:
        out += "on the " + d.ToString();
        break;
      case DateGranularity::kWeek:
        out += "in the " + d.ToString();
        break;
      default:
        out += lead + " " + d.ToString();
    }
    pos = d.end;
  }
  out.append(sentence.substr(pos));
  return out;
}

std::string CutText(std::string text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::string_view v = TruncateUtf8(text, max_bytes);
  size_t space = v.rfind(' ');
  if (space != std::string_view::npos && space > max_bytes / 2) v = v.substr(0, space);
  return std::string(v) + "…";
}

// Replies that carry no fact: "Thanks, Mel!", "Wow!", "Sounds great!".
bool IsInterjection(std::string_view statement) {
  static const std::unordered_set<std::string> kWords = {
      "thanks", "thank", "wow", "sure", "yeah", "yes", "yep", "yup", "aww", "aw", "haha", "hey",
      "hi", "hello", "sounds", "that's", "thats", "cool", "nice", "great", "awesome", "oh", "omg",
      "ok", "okay", "right", "totally", "definitely", "absolutely", "no", "nope", "bye", "glad"};
  size_t end = 0;
  while (end < statement.size() &&
         (std::isalpha(static_cast<unsigned char>(statement[end])) || statement[end] == '\'')) {
    ++end;
  }
  return kWords.count(AsciiLower(statement.substr(0, end))) > 0;
}

// A question's "you"/"your" rewritten to the person it was put to.
std::string AddressedTo(std::string_view question, std::string_view person) {
  std::string out;
  size_t i = 0;
  while (i < question.size()) {
    if (!std::isalpha(static_cast<unsigned char>(question[i]))) {
      out.push_back(question[i++]);
      continue;
    }
    size_t j = i;
    while (j < question.size() && (std::isalpha(static_cast<unsigned char>(question[j])) || question[j] == '\'')) ++j;
    std::string lw = AsciiLower(question.substr(i, j - i));
    if (lw == "you" || lw == "yourself") {
      out += person;
    } else if (lw == "your" || lw == "yours") {
      out += std::string(person) + "'s";
    } else {
      out.append(question.substr(i, j - i));
    }
    i = j;
  }
  return out;
}

std::string ThirdPerson(std::string_view sentence, std::string_view speaker) {
  static const std::unordered_set<std::string> kAdverbs = {
      "really", "also", "just", "still", "usually", "always", "often", "never", "sometimes",
      "absolutely", "totally", "normally", "actually", "definitely", "truly", "mostly", "even"};
  static const std::map<std::string, std::string> kIrregular = {
      {"am", "is"}, {"have", "has"}, {"do", "does"}, {"don't", "doesn't"}, {"go", "goes"},
      {"was", "was"}, {"haven't", "hasn't"}, {"aren't", "isn't"}};
  static const std::unordered_set<std::string> kVerbs = {
      "love", "like", "enjoy", "prefer", "hate", "want", "need", "think", "feel", "know", "work",
      "live", "play", "study", "hope", "plan", "try", "miss", "care", "believe", "teach", "run",
      "paint", "read", "write", "cook", "volunteer", "dislike", "adore", "wish", "mean", "own",
      "use", "spend", "keep", "take", "make", "get", "see", "find", "watch", "collect", "practice",
      "visit", "remember", "agree", "guess", "tend", "drive", "swim", "dance", "sing", "bake",
      "draw", "hike", "travel", "help", "listen", "believe", "struggle", "admire", "appreciate"};
  auto conjugate = [&](const std::string& w) -> std::optional<std::string> {
    std::string lw = AsciiLower(w);
    auto it = kIrregular.find(lw);
    if (it != kIrregular.end()) return it->second;
    if (kVerbs.count(lw) == 0) return std::nullopt;
    char last = lw.back();
    if (last == 'y' && lw.size() > 1 && std::string("aeiou").find(lw[lw.size() - 2]) == std::string::npos) {
      return lw.substr(0, lw.size() - 1) + "ies";
    }
    if (last == 's' || last == 'x' || lw.ends_with("sh") || lw.ends_with("ch") || last == 'o') {
      return lw + "es";
    }
    return lw + "s";
  };
  const std::string s(speaker);
  std::string out;
  bool fix_verb = false;  // the previous word was the rewritten subject "I"
  size_t i = 0;
  while (i < sentence.size()) {
    if (!std::isalpha(static_cast<unsigned char>(sentence[i]))) {
      if (sentence[i] != ' ') fix_verb = false;
      out.push_back(sentence[i++]);
      continue;
    }
    size_t j = i;
    while (j < sentence.size() &&
           (std::isalpha(static_cast<unsigned char>(sentence[j])) || sentence[j] == '\'')) {
      ++j;
    }
    std::string w(sentence.substr(i, j - i));
    std::string lw = AsciiLower(w);
    if (lw == "i") {
      out += s;
      fix_verb = true;
    } else if (lw == "i'm") {
      out += s + " is";
      fix_verb = false;
    } else if (lw == "i've") {
      out += s + " has";
      fix_verb = false;
    } else if (lw == "i'd") {
      out += s + " would";
      fix_verb = false;
    } else if (lw == "i'll") {
      out += s + " will";
      fix_verb = false;
    } else if (lw == "me" || lw == "myself") {
      out += s;
      fix_verb = false;
    } else if (lw == "my" || lw == "mine") {
      out += s + "'s";
      fix_verb = false;
    } else if (fix_verb && kAdverbs.count(lw) > 0) {
      out += w;  // "I really love" → keep looking for the verb
    } else {
      if (fix_verb) {
        if (std::optional<std::string> v = conjugate(w)) w = *v;
      }
      out += w;
      fix_verb = false;
    }
    i = j;
  }
  return out;
}

}  // namespace skald
