// The extractive summarizer and the shared summary helpers of summarizer.h.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <optional>
#include <utility>

#include "common/strings.h"
#include "text/code_summary.h"
#include "text/directory_terms.h"
#include "text/keyphrases.h"
#include "text/summarizer.h"
#include "text/sentences.h"
#include "text/text_util.h"

namespace skald {

namespace {

// Summaries stop adding sentences once they hold this many words, and never
// add one that would take them past kMaxSummaryWords.
constexpr double kTargetSummaryWords = 100;
constexpr double kMaxSummaryWords = 180;
// A code file's leading comment contributes at most this many words.
constexpr double kMaxDocCommentWords = 60;
// The brief description holds the leading sentence of as many entries as
// fit in this many characters; its first kAbstractMaxChars become the L0.
constexpr size_t kBriefMaxChars = 700;
// Entries whose summaries are shortened below this many characters to fit
// the overview are listed by name only.
constexpr size_t kMinEntrySummaryChars = 24;
// The share of the overview the `## Topics`, `## Where to Look` and
// `## Entry Keywords` sections (directory_terms.h) may take
// (bench/routing_eval: single words packed densely route best, entry names
// cost routing@3; docs/benchmarks.md). Topics shortened to fit every
// entry's summary keep at least kMinTopicsChars; kSectionHeadChars is what
// a section's heading and lead-in take.
constexpr size_t kTopicsMaxChars = 1800;
constexpr size_t kWhereMaxChars = 400;
constexpr size_t kEntryWordsMaxChars = 1000;
constexpr size_t kMinTopicsChars = 200;
constexpr size_t kSectionHeadChars = 40;
// A document without a title is introduced by this many keyphrases, taken
// from its first kSubjectScanBytes.
constexpr size_t kSubjectKeyphrases = 3;
constexpr size_t kSubjectScanBytes = 16384;

size_t CountChars(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); i += Utf8CharLength(s, i)) ++n;
  return n;
}

// Byte offset just past the first `chars` characters of `s`.
size_t PrefixBytes(std::string_view s, size_t chars) {
  size_t i = 0;
  for (size_t n = 0; i < s.size() && n < chars; ++n) i += Utf8CharLength(s, i);
  return i;
}

bool EndsSentence(std::string_view s) {
  s = TrimSpace(s);
  if (s.empty()) return false;
  if (s.back() == '.' || s.back() == '!' || s.back() == '?') return true;
  return std::any_of(kCjkSentenceEnds.begin(), kCjkSentenceEnds.end(),
                     [&](std::string_view end) { return s.ends_with(end); });
}

// Words of `text` for the summary length budget: white-space separated
// words, and half a word per CJK character (scripts written without spaces).
double CountWords(std::string_view text) {
  double words = 0;
  bool in_word = false;
  for (size_t i = 0; i < text.size();) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    if (b0 < 0x80) {  // ASCII, most of most texts: one byte, no CJK
      if (IsSpace(text[i])) {
        in_word = false;
      } else if (!in_word) {
        words += 1;
        in_word = true;
      }
      ++i;
      continue;
    }
    size_t len = Utf8CharLength(text, i);
    if (len == 3 && b0 >= 0xE3 && b0 <= 0xED) {  // U+3000–U+DFFF: CJK, kana, Hangul
      words += 0.5;
      in_word = false;
    } else if (IsSpace(text[i])) {
      in_word = false;
    } else if (!in_word) {
      words += 1;
      in_word = true;
    }
    i += len;
  }
  return words;
}

// Leading sentences of `text` within the word budget.
std::string LeadingSentences(std::string_view text, double max_words) {
  std::string out;
  double words = 0;
  for (size_t pos = 0;;) {
    std::string_view sentence = NextSentence(text, &pos);
    if (sentence.empty()) break;
    double w = CountWords(sentence);
    if (!out.empty() && words + w > max_words) break;
    // Sentences ending in a full-width mark are written without a space.
    bool cjk_end = std::any_of(kCjkSentenceEnds.begin(), kCjkSentenceEnds.end(),
                               [&](std::string_view end) { return out.ends_with(end); });
    if (!out.empty() && !cjk_end) out += ' ';
    out.append(sentence);
    words += w;
    if (words >= std::min(kTargetSummaryWords, max_words)) break;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Documents

// The bytes CleanInline looks at: '[' '!' '<' '*' '`' '_' '~'.
constexpr std::array<bool, 256> MakeMayStartMarkup() {
  std::array<bool, 256> may{};
  for (unsigned char c : std::string_view("[!<*`_~")) may[c] = true;
  return may;
}
constexpr std::array<bool, 256> kMayStartMarkup = MakeMayStartMarkup();

// Inline markdown reduced to its text: images dropped, links and emphasis
// unwrapped, code spans and HTML tags removed.
std::string CleanInline(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size();) {
    // A run of bytes that start no markup is copied at once.
    const size_t run = i;
    while (i < line.size() && !kMayStartMarkup[static_cast<unsigned char>(line[i])]) ++i;
    out.append(line.data() + run, i - run);
    if (i == line.size()) break;
    char c = line[i];
    bool image = c == '!' && i + 1 < line.size() && line[i + 1] == '[';
    if (c == '[' || image) {
      size_t open = image ? i + 1 : i;
      size_t close = line.find(']', open + 1);
      if (close != std::string_view::npos) {
        std::string_view label = line.substr(open + 1, close - open - 1);
        size_t after = close + 1;
        if (after < line.size() && (line[after] == '(' || line[after] == '[')) {
          size_t end = line.find(line[after] == '(' ? ')' : ']', after + 1);
          if (end != std::string_view::npos) after = end + 1;
        }
        if (after > close + 1 || image) {
          if (!image) out += CleanInline(label);
          i = after;
          continue;
        }
      }
    }
    if (c == '<') {
      size_t close = line.find('>', i + 1);
      if (close != std::string_view::npos && i + 1 < close &&
          (std::isalpha(static_cast<unsigned char>(line[i + 1])) || line[i + 1] == '/')) {
        i = close + 1;
        continue;
      }
    }
    if (c == '*' || c == '`' || (c == '_' && i + 1 < line.size() && line[i + 1] == '_') ||
        (c == '~' && i + 1 < line.size() && line[i + 1] == '~')) {
      i += (c == '_' || c == '~') ? 2 : 1;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

bool IsTableLine(std::string_view t) {
  if (t.front() == '|') return true;
  // A delimiter row without outer pipes: "---|:---:".
  return t.find('|') != std::string_view::npos &&
         t.find_first_not_of("|-: \t") == std::string_view::npos;
}

bool IsRule(std::string_view t) {
  if (t.size() < 3 || (t.front() != '-' && t.front() != '*' && t.front() != '_')) return false;
  return t.find_first_not_of(std::string(1, t.front()) + " \t") == std::string_view::npos;
}

// A line holding nothing but links, images, URLs or HTML tags.
bool IsLinkOrMarkupOnly(std::string_view t) {
  if (t.starts_with("![")) return true;
  if (t.front() == '<' && t.back() == '>') return true;
  if (t.starts_with("http://") || t.starts_with("https://")) {
    return t.find(' ') == std::string_view::npos;
  }
  if (t.front() == '[') {
    // Reference definition "[id]: url".
    size_t close = t.find(']');
    if (close != std::string_view::npos && close + 1 < t.size() && t[close + 1] == ':') return true;
    // Only links (and list punctuation) left once links are removed.
    std::string rest;
    for (size_t i = 0; i < t.size();) {
      if (t[i] == '[') {
        size_t c = t.find(']', i);
        size_t paren = c == std::string_view::npos ? c : t.find(')', c);
        if (c != std::string_view::npos && c + 1 < t.size() && t[c + 1] == '(' &&
            paren != std::string_view::npos) {
          i = paren + 1;
          continue;
        }
      }
      rest += t[i++];
    }
    return rest.find_first_not_of(" \t|,;-*·•") == std::string::npos;
  }
  return false;
}

// Removes a list marker, block quote marker or task box.
std::string_view StripLineMarkers(std::string_view t) {
  while (!t.empty() && t.front() == '>') t = TrimSpace(t.substr(1));
  if (t.size() >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ') {
    t = TrimSpace(t.substr(2));
  } else {
    size_t digits = 0;
    while (digits < t.size() && digits < 9 && std::isdigit(static_cast<unsigned char>(t[digits]))) {
      ++digits;
    }
    if (digits > 0 && digits + 1 < t.size() && (t[digits] == '.' || t[digits] == ')') &&
        t[digits + 1] == ' ') {
      t = TrimSpace(t.substr(digits + 2));
    }
  }
  if (t.starts_with("[ ] ") || t.starts_with("[x] ") || t.starts_with("[X] ")) t = t.substr(4);
  return t;
}

// The heading text of an ATX heading line, or nullopt.
std::optional<std::string_view> HeadingText(std::string_view line) {
  size_t hashes = 0;
  while (hashes < line.size() && line[hashes] == '#') ++hashes;
  if (hashes == 0 || hashes > 6 || hashes >= line.size()) return std::nullopt;
  if (line[hashes] != ' ' && line[hashes] != '\t') return std::nullopt;
  std::string_view text = TrimSpace(line.substr(hashes));
  while (!text.empty() && text.back() == '#') text.remove_suffix(1);
  return TrimSpace(text);
}

// Leading "---" frontmatter: returns the offset past it (0 if none) and
// fills `title` / `description` when present.
size_t SkipFrontmatter(std::string_view text, std::string* title, std::string* description) {
  if (!text.starts_with("---")) return 0;
  size_t pos = text.find('\n');
  if (pos == std::string_view::npos || TrimSpace(text.substr(0, pos)) != "---") return 0;
  ++pos;
  std::string found_title, found_description;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(pos, end - pos);
    size_t next = nl == std::string_view::npos ? text.size() : nl + 1;
    if (TrimSpace(line) == "---") {
      *title = std::move(found_title);
      *description = std::move(found_description);
      return next;
    }
    for (auto [key, out] :
         {std::pair{"title:", &found_title}, std::pair{"description:", &found_description}}) {
      if (line.starts_with(key)) {
        std::string_view value = TrimSpace(line.substr(std::string_view(key).size()));
        if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
            value.back() == value.front()) {
          value = value.substr(1, value.size() - 2);
        }
        *out = std::string(value);
      }
    }
    pos = next;
  }
  return 0;
}

// "On a, b and c" of a document's leading keyphrases among those it
// repeats, or "" when it repeats none.
std::string DocumentSubject(std::string_view text) {
  std::vector<Keyphrase> phrases = TextKeyphrases(text, nullptr, kSubjectKeyphrases);
  // Scores are (1 + ln count), 1.5x for bigrams: above 1.5 means repeated.
  std::erase_if(phrases, [](const Keyphrase& k) { return k.score <= 1.5; });
  if (phrases.empty()) return "";
  std::string out = "On ";
  for (size_t i = 0; i < phrases.size(); ++i) {
    if (i > 0) out += i + 1 == phrases.size() ? " and " : ", ";
    out += phrases[i].text;
  }
  return out;
}

std::string SummarizeDocument(std::string_view text) {
  std::string title, description;
  size_t pos = SkipFrontmatter(text, &title, &description);
  const size_t body_start = pos;  // the subject is the text's, not its header's
  std::string body = CollapseSpace(description);
  double body_words = CountWords(body);
  std::string paragraph;
  double paragraph_words = 0;
  auto end_paragraph = [&] {
    std::string collapsed = CollapseSpace(paragraph);
    paragraph.clear();
    body_words += paragraph_words;
    paragraph_words = 0;
    if (collapsed.empty()) return;
    if (!body.empty()) body += EndsSentence(body) ? " " : ". ";
    body += collapsed;
  };
  char fence = 0;
  bool in_comment = false;
  bool previous_blank = true;
  std::string heading_title;
  while (pos < text.size() && body_words + paragraph_words < kMaxSummaryWords) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(pos, end - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string_view t = TrimSpace(line);
    bool was_blank = previous_blank;
    previous_blank = t.empty();
    if (in_comment) {
      if (t.find("-->") != std::string_view::npos) in_comment = false;
      continue;
    }
    if (fence != 0) {
      if (t.size() >= 3 && t[0] == fence && t[1] == fence && t[2] == fence) fence = 0;
      continue;
    }
    if (t.starts_with("```") || t.starts_with("~~~")) {
      end_paragraph();
      fence = t[0];
      continue;
    }
    if (t.starts_with("<!--")) {
      end_paragraph();
      in_comment = t.find("-->") == std::string_view::npos;
      continue;
    }
    if (t.empty()) {
      end_paragraph();
      continue;
    }
    if (auto heading = HeadingText(line)) {
      end_paragraph();
      if (title.empty() && heading_title.empty()) {
        heading_title = CollapseSpace(CleanInline(*heading));
      }
      continue;
    }
    bool indented_code = was_blank && (line.starts_with("    ") || line.starts_with("\t"));
    if (indented_code || IsTableLine(t) || IsRule(t) || IsLinkOrMarkupOnly(t)) {
      end_paragraph();
      previous_blank = indented_code;  // later indented lines continue the block
      continue;
    }
    std::string clean = CleanInline(StripLineMarkers(t));
    paragraph_words += CountWords(clean);
    paragraph += ' ';
    paragraph += clean;
  }
  end_paragraph();
  if (title.empty()) title = heading_title;
  title = CollapseSpace(title);

  std::string lead = LeadingSentences(body, kMaxSummaryWords);
  std::string summary;
  if (title.empty()) {
    std::string_view rest = text.substr(body_start);
    std::string subject = DocumentSubject(rest.substr(0, PrefixBytes(rest, kSubjectScanBytes)));
    summary = subject.empty() || lead.empty() ? lead : subject + ": " + lead;
  } else if (lead.empty() || lead.starts_with(title)) {
    summary = lead.empty() ? title : lead;
  } else {
    // "Title: lead", unless the title ends in punctuation of its own.
    bool punctuated =
        EndsSentence(title) || title.back() == ':' || title.back() == ',' || title.back() == ';';
    summary = title + (punctuated ? " " : ": ") + lead;
  }
  return TruncateGeneratedText(summary, kFileSummaryMaxChars);
}

// ---------------------------------------------------------------------------
// Code (the language table, leading comments and definitions: code_summary.h)

std::string SummarizeCode(std::string_view text, const CodeLanguage& language) {
  CodeOutline outline = OutlineCode(text, language);
  std::string summary = LeadingSentences(outline.leading_comment, kMaxDocCommentWords);
  if (!summary.empty() && !EndsSentence(summary)) summary += '.';
  if (!outline.definitions.empty()) {
    if (!summary.empty()) summary += ' ';
    summary += outline.definitions;
  }
  if (!summary.empty()) summary += ' ';
  summary += fmt::format("{} source, {} line{}.", language.name, outline.lines,
                         outline.lines == 1 ? "" : "s");
  return TruncateGeneratedText(summary, kFileSummaryMaxChars);
}

// ---------------------------------------------------------------------------
// Overviews

// True when `sentence` holds a word of 3+ letters of the entry name (its
// words split at '_', '-', '.', ' '), ignoring ASCII case.
bool NamesEntry(std::string_view sentence, std::string_view name) {
  std::string lower = AsciiLower(sentence);
  std::string word;
  for (size_t i = 0; i <= name.size(); ++i) {
    char c = i < name.size() ? name[i] : ' ';
    if (c != '_' && c != '-' && c != '.' && !IsSpace(c)) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      continue;
    }
    if (word.size() >= 3 && lower.find(word) != std::string::npos) return true;
    word.clear();
  }
  return false;
}

std::string CountNoun(size_t n, std::string_view singular, std::string_view plural) {
  return fmt::format("{} {}", n, n == 1 ? singular : plural);
}

// The brief description: the leading sentence of each entry (named by its
// stem unless the sentence already names it), as many as fit.
std::string BriefDescription(std::span<const EntrySummary> entries, size_t total) {
  if (total == 0) return "Empty directory.";
  if (entries.empty())
    return fmt::format("Holds {}; none is described here.", CountNoun(total, "entry", "entries"));
  size_t with_summary = 0;
  for (const EntrySummary& e : entries) with_summary += TrimSpace(e.summary).empty() ? 0 : 1;
  std::string brief;
  if (with_summary > 0) {
    // Shorter pieces when there are many, so the L0 names several entries.
    size_t piece_chars =
        std::max<size_t>(64, kAbstractMaxChars / std::min<size_t>(with_summary, 4));
    for (const EntrySummary& e : entries) {
      std::string summary = CollapseSpace(e.summary);
      if (summary.empty()) continue;
      std::string_view first = FirstSentence(summary);
      std::string piece(first.empty() ? std::string_view(summary) : first);
      if (!NamesEntry(piece, e.name)) {
        piece = fmt::format("{}{}: {}", OneLine(e.name), e.is_dir ? "/" : "", piece);
      }
      piece = TruncateGeneratedText(piece, piece_chars);
      if (!EndsSentence(piece)) piece += '.';
      size_t add = CountChars(piece) + (brief.empty() ? 0 : 1);
      if (!brief.empty() && CountChars(brief) + add > kBriefMaxChars) break;
      if (!brief.empty()) brief += ' ';
      brief += piece;
    }
    return brief;
  }
  brief = "Contains ";
  for (size_t i = 0; i < entries.size(); ++i) {
    std::string name = OneLine(entries[i].name) + (entries[i].is_dir ? "/" : "");
    if (i > 0 && CountChars(brief) + CountChars(name) + 2 > kAbstractMaxChars - 8) {
      brief += fmt::format(" and {} more", entries.size() - i);
      break;
    }
    if (i > 0) brief += ", ";
    brief += name;
  }
  return brief + ".";
}

std::string Coverage(std::span<const EntrySummary> entries, size_t total) {
  if (total == 0) return "The directory is empty.";
  size_t dirs = 0;
  for (const EntrySummary& e : entries) dirs += e.is_dir ? 1 : 0;
  std::string kinds = fmt::format("{} and {}", CountNoun(entries.size() - dirs, "file", "files"),
                                  CountNoun(dirs, "directory", "directories"));
  if (entries.size() == total) {
    if (total == 1) return fmt::format("The directory's one entry is described below: {}.", kinds);
    return fmt::format("All {} of the directory are described below: {}.",
                       CountNoun(total, "entry", "entries"), kinds);
  }
  return fmt::format(
      "{} of {} entries are described below ({}), a deterministic sample of the listing "
      "sorted by name; the other {} are not summarized here.",
      entries.size(), total, kinds, total - entries.size());
}

// What a directory is about (directory_terms.h), each entry led by its
// summary's leading sentence (a document's title and first line).
// `scanned`: as OverviewContext::all_entry_terms (a scanned entry's lead is
// not needed).
DirectoryTopics Topics(std::span<const EntrySummary> all, const TermStatistics* background,
                       std::span<const EntryTerms* const> scanned) {
  std::vector<std::string> leads(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    if (i < scanned.size() && scanned[i] != nullptr) continue;
    std::string summary = CollapseSpace(all[i].summary);
    leads[i] = std::string(FirstSentence(summary));
  }
  return DirectoryTopicsOf(all, leads, background, scanned);
}

// `sections`: "" or "\n\n## ..." sections placed before the coverage.
std::string RenderOverview(std::string_view dir_name, const std::string& brief,
                           const std::string& sections, const std::string& coverage,
                           std::span<const EntrySummary> entries,
                           const std::vector<std::string>& summaries) {
  std::string out =
      fmt::format("# {}\n\n{}{}\n\n## Directory Coverage\n\n{}\n\n## Detailed Description",
                  OneLine(dir_name), brief, sections, coverage);
  if (entries.empty()) out += "\n\nNo entries.";
  for (size_t i = 0; i < entries.size(); ++i) {
    out += fmt::format("\n\n### {}{}", OneLine(entries[i].name), entries[i].is_dir ? "/" : "");
    if (!summaries[i].empty()) out += "\n\n" + summaries[i];
  }
  return out;
}

// Largest per-entry cap c with sum(min(length_i, c)) <= budget.
size_t EvenCap(std::vector<size_t> lengths, size_t budget) {
  std::sort(lengths.begin(), lengths.end());
  size_t used = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    size_t remaining = lengths.size() - i;
    if (used + lengths[i] * remaining > budget) return (budget - used) / remaining;
    used += lengths[i];
  }
  return lengths.empty() ? 0 : lengths.back();
}

class ExtractiveSummarizer final : public Summarizer {
 public:
  std::string Name() const override { return "extractive:v3"; }
  bool ScansEntries() const override { return true; }

  Result<std::string> SummarizeFile(std::string_view name, std::string_view text) override {
    if (TrimSpace(text).empty()) return std::string();
    if (const CodeLanguage* language = CodeLanguageOf(name)) return SummarizeCode(text, *language);
    return SummarizeDocument(text);
  }

  Result<std::string> Overview(std::string_view dir_name, std::span<const EntrySummary> entries,
                               size_t total_entries, const OverviewContext& context) override {
    if (total_entries < entries.size()) {
      return Status::InvalidArgument(
          fmt::format("overview of '{}': total_entries {} is less than the {} entries given",
                      dir_name, total_entries, entries.size()));
    }
    std::span<const EntrySummary> all = context.all_entries.empty() ? entries : context.all_entries;
    DirectoryTopics topics =
        Topics(all, context.background,
               context.all_entries.empty() ? std::span<const EntryTerms* const>()
                                           : context.all_entry_terms);
    std::string brief =
        topics.brief.empty() ? BriefDescription(entries, total_entries) : topics.brief;
    std::string coverage = Coverage(entries, total_entries);
    std::vector<std::string> summaries;
    std::vector<size_t> lengths;
    size_t summary_chars = 0;
    for (const EntrySummary& e : entries) {
      summaries.push_back(CollapseSpace(e.summary));
      if (summaries.back().empty()) summaries.back() = "(no summary)";
      lengths.push_back(CountChars(summaries.back()));
      summary_chars += lengths.back();
    }
    std::vector<std::string> none(entries.size());
    auto fixed_chars = [&](const std::string& sections) {
      return CountChars(RenderOverview(dir_name, brief, sections, coverage, entries, none)) +
             2 * entries.size();
    };
    std::string sections;
    if (!topics.brief.empty()) {
      // Every entry described in full when that fits beside the topics
      // (shortened to the room left, down to kMinTopicsChars); else the
      // topic sections first, with each entry's own keywords, and the
      // described entries in what is left.
      size_t room = kOverviewMaxChars - std::min(kOverviewMaxChars, fixed_chars("") + summary_chars);
      if (entries.size() == total_entries && room >= kMinTopicsChars + kSectionHeadChars) {
        size_t topics_chars = std::min(kTopicsMaxChars, room - kSectionHeadChars);
        sections = TopicSections(topics, all, topics_chars, 0, 0);
        if (size_t left = room - std::min(room, CountChars(sections)); left > kSectionHeadChars) {
          sections = TopicSections(topics, all, topics_chars,
                                   std::min(kWhereMaxChars, left - kSectionHeadChars), 0);
        }
      } else {
        sections = TopicSections(topics, all, kTopicsMaxChars, kWhereMaxChars, kEntryWordsMaxChars);
      }
    }
    size_t fixed = fixed_chars(sections);
    if (fixed + kMinEntrySummaryChars > kOverviewMaxChars && brief.size() > kAbstractMaxChars) {
      brief = TruncateGeneratedText(brief, kAbstractMaxChars);
      fixed = fixed_chars(sections);
    }
    size_t budget = fixed < kOverviewMaxChars ? kOverviewMaxChars - fixed : 0;
    size_t cap = EvenCap(lengths, budget);
    for (size_t i = 0; i < summaries.size(); ++i) {
      if (lengths[i] <= cap) continue;
      if (cap < kMinEntrySummaryChars) {
        summaries[i].clear();
        continue;
      }
      // The leading sentence when it fits, else the entry's key terms.
      std::string_view first = FirstSentence(summaries[i]);
      if (!first.empty() && CountChars(first) <= cap) {
        summaries[i] = TruncateGeneratedText(summaries[i], cap);
        continue;
      }
      std::string terms;
      for (const Keyphrase& k : TextKeyphrases(summaries[i], context.background, 8)) {
        if (CountChars(terms) + CountChars(k.text) + 2 + 1 > cap) break;
        terms += (terms.empty() ? "" : ", ") + OneLine(k.text);
      }
      summaries[i] = terms.empty() ? TruncateGeneratedText(summaries[i], cap) : terms + ".";
    }
    std::string out = RenderOverview(dir_name, brief, sections, coverage, entries, summaries);
    if (CountChars(out) > kOverviewMaxChars) {
      // Names alone overflow: keep whole lines up to the limit.
      size_t limit = PrefixBytes(out, kOverviewMaxChars);
      size_t cut = out.rfind('\n', limit);
      out.resize(cut == std::string::npos || cut == 0 ? limit : cut);
      while (!out.empty() && IsSpace(out.back())) out.pop_back();
    }
    return out;
  }
};

}  // namespace

std::string TruncateGeneratedText(std::string_view text, size_t max_chars) {
  size_t limit = PrefixBytes(text, max_chars);
  if (limit == text.size()) return std::string(text);
  // The last sentence end within the limit.
  size_t sentence_end = 0;
  for (size_t i = 0; i < limit; i += Utf8CharLength(text, i)) {
    size_t end = SentenceEndAt(text, i);
    if (end != 0 && end <= limit) sentence_end = end;
  }
  if (sentence_end > 0 && !TrimSpace(text.substr(0, sentence_end)).empty()) {
    return std::string(TrimSpace(text.substr(0, sentence_end)));
  }
  if (max_chars <= 3) return std::string(text.substr(0, limit));
  size_t room = PrefixBytes(text, max_chars - 3);
  // The last white space at or before the room's end: text before it is
  // whole words.
  size_t cut = room;
  while (cut > 0 && !IsSpace(text[cut])) --cut;
  std::string_view head = text.substr(0, cut > 0 ? cut : room);
  head = TrimSpace(head);
  while (!head.empty() && (head.back() == ',' || head.back() == ';' || head.back() == ':')) {
    head.remove_suffix(1);
  }
  if (head.empty()) head = TrimSpace(text.substr(0, room));
  return std::string(head) + "...";
}

std::string AbstractFromOverview(std::string_view overview, size_t max_chars) {
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos <= overview.size();) {
    size_t nl = overview.find('\n', pos);
    size_t end = nl == std::string_view::npos ? overview.size() : nl;
    lines.push_back(overview.substr(pos, end - pos));
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  size_t start = 0;
  std::string_view title;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view t = TrimSpace(lines[i]);
    if (t.starts_with("# ")) {
      title = TrimSpace(t.substr(2));
      start = i + 1;
      break;
    }
  }
  std::string brief;
  for (size_t i = start; i < lines.size(); ++i) {
    std::string_view t = TrimSpace(lines[i]);
    if (t.starts_with("##")) break;
    if (t.empty() || t.starts_with("#")) continue;
    if (!brief.empty()) brief += '\n';
    brief.append(t);
  }
  if (brief.empty()) {
    for (std::string_view line : lines) {
      std::string_view t = TrimSpace(line);
      if (!t.empty() && !t.starts_with("#")) {
        brief = std::string(t);
        break;
      }
    }
  }
  if (brief.empty()) brief = std::string(title);
  return TruncateGeneratedText(brief, max_chars);
}

std::vector<size_t> DeterministicSample(size_t n, size_t limit) {
  std::vector<size_t> indices;
  if (limit == 0 || n == 0) return indices;
  if (n <= limit) {
    for (size_t i = 0; i < n; ++i) indices.push_back(i);
    return indices;
  }
  if (limit == 1) return {0};
  // i*(n-1)/(limit-1) without overflow: split (n-1) into q*(limit-1) + r.
  const size_t q = (n - 1) / (limit - 1), r = (n - 1) % (limit - 1);
  for (size_t i = 0; i < limit; ++i) indices.push_back(i * q + i * r / (limit - 1));
  return indices;
}

std::unique_ptr<Summarizer> NewExtractiveSummarizer() {
  return std::make_unique<ExtractiveSummarizer>();
}

}  // namespace skald