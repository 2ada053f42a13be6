#include "text/markdown_splitter.h"

#include <fmt/format.h>
#include <unicode/uchar.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "common/hash.h"
#include "common/strings.h"

namespace skald {

namespace {

constexpr uint32_t kInvalidChar = 0xFFFFFFFF;
constexpr size_t kMaxNameChars = 50;
constexpr size_t kNamePrefixChars = 41;
constexpr size_t kMaxMergedNameChars = 32;

// Decodes the character at s[i] into *cp and returns its length in bytes.
// A byte that does not start a well-formed sequence (overlong, surrogate,
// past U+10FFFF, truncated) is a character of its own: length 1, kInvalidChar.
size_t DecodeChar(std::string_view s, size_t i, uint32_t* cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  size_t len;
  uint32_t value;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
    value = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    value = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    value = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    *cp = kInvalidChar;
    return 1;
  }
  if (s.size() - i < len) {
    *cp = kInvalidChar;
    return 1;
  }
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (k == 1 ? (b < lo || b > hi) : (b & 0xC0) != 0x80) {
      *cp = kInvalidChar;
      return 1;
    }
    value = (value << 6) | (b & 0x3F);
  }
  *cp = value;
  return len;
}

// Unicode white space (what Python's `\s` matches in str patterns).
bool IsUnicodeSpace(uint32_t cp) {
  if (cp <= 0x20) return cp == 0x20 || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F);
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

bool IsCjk(uint32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3040 && cp <= 0x30FF) ||
         (cp >= 0xAC00 && cp <= 0xD7AF);
}

bool IsAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Character and token counts of a piece of text. Additive: the counts of a
// concatenation are the sums of the counts of its pieces.
struct TextStats {
  size_t chars = 0;  // code points (+ invalid bytes)
  size_t cjk = 0;    // CJK code points
  size_t other = 0;  // other non-whitespace characters (+ invalid bytes)

  int64_t Tokens() const {
    return static_cast<int64_t>(static_cast<double>(cjk) * 0.7 + static_cast<double>(other) * 0.3);
  }
  TextStats& operator+=(const TextStats& o) {
    chars += o.chars;
    cjk += o.cjk;
    other += o.other;
    return *this;
  }
};

TextStats Measure(std::string_view s) {
  TextStats stats;
  uint32_t cp;
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      // ASCII, most of most texts: one character, white space or not.
      ++i;
      ++stats.chars;
      if (b > 0x20 || !IsUnicodeSpace(b)) ++stats.other;
      continue;
    }
    i += DecodeChar(s, i, &cp);
    ++stats.chars;
    if (cp == kInvalidChar) {
      ++stats.other;
    } else if (IsCjk(cp)) {
      ++stats.cjk;
    } else if (!IsUnicodeSpace(cp)) {
      ++stats.other;
    }
  }
  return stats;
}

// A byte range [begin, end) of the document.
struct Span {
  size_t begin = 0;
  size_t end = 0;
  bool empty() const { return begin >= end; }
};

// `span` without ASCII whitespace at its ends.
Span TrimSpan(std::string_view text, Span span) {
  while (span.begin < span.end && IsAsciiSpace(text[span.begin])) ++span.begin;
  while (span.end > span.begin && IsAsciiSpace(text[span.end - 1])) --span.end;
  return span;
}

bool IsBlank(std::string_view line) { return std::all_of(line.begin(), line.end(), IsAsciiSpace); }

std::string_view TrimAscii(std::string_view s) {
  while (!s.empty() && IsAsciiSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsAsciiSpace(s.back())) s.remove_suffix(1);
  return s;
}

// The YAML frontmatter of a document: a first line "---", `key: value`
// lines, and a closing "---" line.
struct Frontmatter {
  size_t end = 0;  // byte offset just past the closing line; 0 = none
  std::string title;
};

Frontmatter ParseFrontmatter(std::string_view text) {
  Frontmatter fm;
  size_t pos = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;  // UTF-8 byte order mark
  auto next_line = [&](std::string_view* line) {
    if (pos >= text.size()) return false;
    size_t nl = text.find('\n', pos);
    size_t line_end = nl == std::string_view::npos ? text.size() : nl;
    *line = text.substr(pos, line_end - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    return true;
  };
  std::string_view line;
  if (!next_line(&line) || TrimAscii(line) != "---" || line.front() != '-') return fm;
  std::string title;
  while (next_line(&line)) {
    if (TrimAscii(line) == "---" && line.front() == '-') {
      fm.end = pos;
      fm.title = std::move(title);
      return fm;
    }
    if (line.starts_with("title") && title.empty()) {
      std::string_view rest = TrimAscii(line.substr(5));
      if (!rest.starts_with(':')) continue;
      rest = TrimAscii(rest.substr(1));
      if (rest.size() >= 2 && (rest.front() == '"' || rest.front() == '\'') &&
          rest.back() == rest.front()) {
        rest = rest.substr(1, rest.size() - 2);
      }
      title = std::string(TrimAscii(rest));
    }
  }
  return fm;  // never closed: not frontmatter
}

// What one pass over the lines of a document finds.
struct MarkdownScan {
  std::vector<MarkdownHeading> headings;
  // Blank lines outside code fences and HTML comments, each with its '\n':
  // the places where paragraphs may be cut.
  std::vector<Span> breaks;
};

// Opening fence: up to 3 spaces, then 3+ backticks or tildes; a backtick
// fence's info string has no backtick. Returns the fence length, 0 if none.
size_t FenceOpen(std::string_view line, char* fence_char) {
  size_t indent = 0;
  while (indent < line.size() && indent < 4 && line[indent] == ' ') ++indent;
  if (indent > 3 || indent >= line.size()) return 0;
  char c = line[indent];
  if (c != '`' && c != '~') return 0;
  size_t n = 0;
  while (indent + n < line.size() && line[indent + n] == c) ++n;
  if (n < 3) return 0;
  if (c == '`' && line.find('`', indent + n) != std::string_view::npos) return 0;
  *fence_char = c;
  return n;
}

bool FenceCloses(std::string_view line, char fence_char, size_t fence_len) {
  size_t indent = 0;
  while (indent < line.size() && indent < 4 && line[indent] == ' ') ++indent;
  if (indent > 3) return false;
  size_t n = 0;
  while (indent + n < line.size() && line[indent + n] == fence_char) ++n;
  return n >= fence_len && IsBlank(line.substr(indent + n));
}

// Parses an ATX heading line; false if `line` is not one.
bool ParseHeading(std::string_view line, int* level, std::string* title) {
  size_t hashes = 0;
  while (hashes < line.size() && hashes < 7 && line[hashes] == '#') ++hashes;
  if (hashes == 0 || hashes > 6 || hashes >= line.size()) return false;
  if (line[hashes] != ' ' && line[hashes] != '\t') return false;
  std::string_view rest = TrimAscii(line.substr(hashes));
  if (rest.empty()) return false;
  // A closing sequence of '#' (preceded by a space, or the whole title) is
  // decoration, not part of the title: "## Setup ##" is "Setup", "C#" stays.
  size_t keep = rest.size();
  while (keep > 0 && rest[keep - 1] == '#') --keep;
  if (keep < rest.size() && (keep == 0 || rest[keep - 1] == ' ' || rest[keep - 1] == '\t')) {
    rest = TrimAscii(rest.substr(0, keep));
  }
  *level = static_cast<int>(hashes);
  *title = std::string(rest);
  return true;
}

// Updates the HTML-comment state with one line of text outside a comment:
// true when the line leaves a comment open.
bool OpensComment(std::string_view line, size_t from = 0) {
  while (true) {
    size_t open = line.find("<!--", from);
    if (open == std::string_view::npos) return false;
    size_t close = line.find("-->", open + 4);
    if (close == std::string_view::npos) return true;
    from = close + 3;
  }
}

MarkdownScan ScanMarkdown(std::string_view text, size_t start) {
  MarkdownScan scan;
  char fence_char = 0;
  size_t fence_len = 0;
  bool in_comment = false;
  for (size_t pos = start; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    size_t line_end = nl == std::string_view::npos ? text.size() : nl;
    size_t next = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string_view line = text.substr(pos, line_end - pos);
    if (in_comment) {
      size_t close = line.find("-->");
      if (close != std::string_view::npos) in_comment = OpensComment(line, close + 3);
    } else if (fence_char != 0) {
      if (FenceCloses(line, fence_char, fence_len)) fence_char = 0;
    } else if (IsBlank(line)) {
      scan.breaks.push_back({pos, next});
    } else if ((fence_len = FenceOpen(line, &fence_char)) != 0) {
      // inside a fence from the next line on
    } else {
      MarkdownHeading heading;
      if (line.front() == '#' && ParseHeading(line, &heading.level, &heading.title)) {
        heading.begin = pos;
        heading.line_end = line_end;
        scan.headings.push_back(std::move(heading));
      }
      in_comment = OpensComment(line);
    }
    pos = next;
  }
  return scan;
}

// Entry names already used in one directory, compared ignoring ASCII case
// (so a case-insensitive file system cannot merge two of them).
class NameRegistry {
 public:
  // Returns `stem + ext`, or `stem_2 + ext`, `stem_3 + ext`, ... for the
  // first that is still free, and marks it used.
  std::string Claim(const std::string& stem, std::string_view ext) {
    std::string name = stem + std::string(ext);
    if (used_.insert(AsciiLower(name)).second) return name;
    size_t& suffix = next_suffix_[AsciiLower(name)];
    if (suffix < 2) suffix = 2;
    while (true) {
      name = fmt::format("{}_{}{}", stem, suffix++, ext);
      if (used_.insert(AsciiLower(name)).second) return name;
    }
  }

 private:
  std::unordered_set<std::string> used_;
  std::unordered_map<std::string, size_t> next_suffix_;
};

std::string JoinPath(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : dir + "/" + name;
}

class Planner {
 public:
  Planner(std::string_view text, const MarkdownSplitOptions& options, MarkdownScan scan)
      : text_(text), options_(options), scan_(std::move(scan)) {}

  MarkdownSplit Plan(std::string root_name, size_t body_start) {
    split_.root_name = std::move(root_name);
    NameRegistry root;
    if (SurelyFits(text_.size()) || Fits(Measure(text_))) {
      split_.files.push_back({root.Claim(split_.root_name, ".md"), std::string(text_)});
    } else if (scan_.headings.empty()) {
      EmitParts(TrimSpan(text_, {0, text_.size()}), "", split_.root_name, root);
    } else {
      std::vector<Section> top =
          SectionsIn(TrimSpan(text_, {0, text_.size()}), body_start, split_.root_name);
      const Section& last = top.back();
      if (top.size() - (top.front().is_virtual ? 1 : 0) == 1 && !last.is_virtual &&
          last.has_children && !Fits(last.stats)) {
        // One heading spans the document (a title): its children are the
        // top level, rather than one directory inside the root.
        std::vector<Section> inner = SectionsIn(last.span, last.children_from, last.name);
        top.pop_back();
        for (Section& section : inner) top.push_back(std::move(section));
      }
      EmitSections(top, "", root);
    }
    if (split_.files.empty()) {
      // Only white space, too much of it for one file: one empty file.
      split_.files.push_back({root.Claim(split_.root_name, ".md"), ""});
    }
    return std::move(split_);
  }

 private:
  // A heading's section, or the virtual section of text before a level's
  // first heading.
  struct Section {
    std::string name;           // sanitized
    Span span;                  // trimmed
    size_t children_from = 0;   // child headings start at or after this offset
    bool has_children = false;  // any heading in [children_from, span.end)
    bool is_virtual = false;    // text before a level's first heading
    TextStats stats;
  };

  // A piece of text that is packed into paragraph parts as a whole.
  struct Unit {
    Span span;
    TextStats stats;
  };

  // Whether any text of `bytes` bytes fits, unmeasured: it has at most as
  // many characters, and at most 0.3 tokens a byte (an ASCII character is
  // 0.3 for 1 byte, a CJK one 0.7 for 3).
  bool SurelyFits(size_t bytes) const {
    // (Both limits are at least 1: MarkdownSplitOptions::Validate.)
    return bytes * 3 <= static_cast<size_t>(options_.max_section_tokens) * 10 &&
           bytes <= static_cast<size_t>(options_.max_section_chars);
  }

  bool Fits(const TextStats& stats) const {
    return stats.Tokens() <= options_.max_section_tokens &&
           stats.chars <= static_cast<size_t>(options_.max_section_chars);
  }

  std::string_view Slice(Span span) const {
    return text_.substr(span.begin, span.end - span.begin);
  }

  // Stats of a slice that ends with `a` extended to the end of `b` (b after
  // a): `a_stats` are those of the slice, the gap between is measured.
  TextStats Joined(Span a, const TextStats& a_stats, Span b, const TextStats& b_stats) const {
    TextStats joined = a_stats;
    joined += Measure(Slice({a.end, b.begin}));
    joined += b_stats;
    return joined;
  }

  // Headings h with begin in [from, end), via binary search.
  std::pair<size_t, size_t> HeadingsIn(size_t from, size_t end) const {
    auto by_begin = [](const MarkdownHeading& h, size_t offset) { return h.begin < offset; };
    const auto& hs = scan_.headings;
    size_t lo = std::lower_bound(hs.begin(), hs.end(), from, by_begin) - hs.begin();
    size_t hi = std::lower_bound(hs.begin(), hs.end(), end, by_begin) - hs.begin();
    return {lo, std::max(lo, hi)};
  }

  Section MakeSection(std::string name, Span span, size_t children_from) const {
    Section section;
    section.name = std::move(name);
    section.span = TrimSpan(text_, span);
    section.children_from = children_from;
    auto [lo, hi] = HeadingsIn(children_from, section.span.end);
    section.has_children = lo < hi;
    section.stats = Measure(Slice(section.span));
    return section;
  }

  // The sections of `range` cut at its highest-level headings found at or
  // after `children_from`; text before the first of them is a virtual
  // section named `preamble_name` (dropped when blank).
  // REQUIRES: at least one heading in [children_from, range.end).
  std::vector<Section> SectionsIn(Span range, size_t children_from,
                                  const std::string& preamble_name) const {
    auto [lo, hi] = HeadingsIn(children_from, range.end);
    int top = 6;
    for (size_t i = lo; i < hi; ++i) top = std::min(top, scan_.headings[i].level);
    std::vector<size_t> tops;
    for (size_t i = lo; i < hi; ++i) {
      if (scan_.headings[i].level == top) tops.push_back(i);
    }
    std::vector<Section> sections;
    if (tops.empty()) return sections;
    const MarkdownHeading& first = scan_.headings[tops.front()];
    Section preamble = MakeSection(preamble_name, {range.begin, first.begin}, children_from);
    preamble.is_virtual = true;
    if (!preamble.span.empty()) sections.push_back(std::move(preamble));
    for (size_t k = 0; k < tops.size(); ++k) {
      const MarkdownHeading& h = scan_.headings[tops[k]];
      size_t end = k + 1 < tops.size() ? scan_.headings[tops[k + 1]].begin : range.end;
      sections.push_back(MakeSection(SanitizePathSegment(h.title), {h.begin, end}, h.line_end));
    }
    return sections;
  }

  // Sibling sections into `dir`: small ones merged, the rest saved one by one.
  void EmitSections(const std::vector<Section>& sections, const std::string& dir,
                    NameRegistry& names) {
    // Groups of consecutive sections; a group of two or more is one merged
    // file (and always fits).
    struct Group {
      size_t first = 0, last = 0;  // indices into `sections`, inclusive
      TextStats stats;
      // Fits, and every section in it is small or has no children: it can
      // take in more sections as one file.
      bool mergeable = false;
    };
    auto small = [&](size_t i) {
      return sections[i].stats.Tokens() < options_.min_section_tokens && Fits(sections[i].stats);
    };
    auto mergeable = [&](size_t i) { return small(i) || !sections[i].has_children; };
    std::vector<Group> groups;
    std::optional<Group> pending;
    auto join = [&](const Group& g, size_t i) {
      Group out = g;
      out.last = i;
      out.stats = Joined(sections[g.last].span, g.stats, sections[i].span, sections[i].stats);
      out.mergeable = g.mergeable && mergeable(i) && Fits(out.stats);
      return out;
    };
    auto single = [&](size_t i) {
      return Group{i, i, sections[i].stats, mergeable(i) && Fits(sections[i].stats)};
    };
    auto flush = [&] {
      if (!pending) return;
      // A lone small section joins the previous file when that still fits.
      if (pending->first == pending->last && !groups.empty() && groups.back().mergeable &&
          groups.back().last + 1 == pending->first) {
        Group joined = join(groups.back(), pending->first);
        if (joined.mergeable) {
          groups.back() = joined;
          pending.reset();
          return;
        }
      }
      groups.push_back(*pending);
      pending.reset();
    };
    for (size_t i = 0; i < sections.size(); ++i) {
      if (small(i)) {
        if (pending) {
          Group joined = join(*pending, i);
          if (Fits(joined.stats)) {
            pending = joined;
            continue;
          }
          flush();
        }
        pending = single(i);
        continue;
      }
      if (pending) {
        Group joined = join(*pending, i);
        if (joined.mergeable) {
          pending = joined;
          flush();
          continue;
        }
        flush();
      }
      groups.push_back(single(i));
    }
    flush();

    for (const Group& g : groups) {
      if (g.first == g.last) {
        SaveSection(sections[g.first], dir, names);
        continue;
      }
      std::string hash_input;
      for (size_t i = g.first; i <= g.last; ++i) {
        if (i > g.first) hash_input += '_';
        hash_input += fmt::format("{}:{}", sections[i].name, sections[i].stats.Tokens());
      }
      std::string stem = MergedName(sections[g.first].name, g.last - g.first, hash_input);
      Span span{sections[g.first].span.begin, sections[g.last].span.end};
      AddFile(dir, names.Claim(stem, ".md"), span);
    }
  }

  // `{first}_{others}more_{hash8}`, at most 32 characters: `first` is
  // shortened to make room.
  static std::string MergedName(const std::string& first, size_t others,
                                const std::string& hash_input) {
    std::string suffix = fmt::format("_{}more_", others) + Sha256Hex(hash_input).substr(0, 8);
    size_t room = suffix.size() < kMaxMergedNameChars ? kMaxMergedNameChars - suffix.size() : 1;
    std::string head(Utf8Prefix(first, room));
    while (head.size() > 1 && head.back() == '_') head.pop_back();
    return head + suffix;
  }

  void SaveSection(const Section& section, const std::string& dir, NameRegistry& names) {
    if (Fits(section.stats)) {
      AddFile(dir, names.Claim(section.name, ".md"), section.span);
      return;
    }
    std::string sub = JoinPath(dir, names.Claim(section.name, ""));
    split_.dirs.push_back(sub);
    NameRegistry sub_names;
    if (section.has_children) {
      EmitSections(SectionsIn(section.span, section.children_from, section.name), sub, sub_names);
    } else {
      EmitParts(section.span, sub, section.name, sub_names);
    }
  }

  // `range` cut into parts `{base}_{i}.md` (1-based) in `dir`.
  void EmitParts(Span range, const std::string& dir, const std::string& base, NameRegistry& names) {
    std::vector<Unit> units = UnitsOf(range);
    size_t part = 0;
    std::optional<Unit> current;
    auto emit = [&] {
      AddFile(dir, names.Claim(fmt::format("{}_{}", base, ++part), ".md"), current->span);
      current.reset();
    };
    for (const Unit& unit : units) {
      if (current) {
        TextStats joined = Joined(current->span, current->stats, unit.span, unit.stats);
        if (Fits(joined)) {
          current->span.end = unit.span.end;
          current->stats = joined;
          continue;
        }
        emit();
      }
      current = unit;
    }
    if (current) emit();
  }

  // The pieces of `range` in order, each fitting on its own: paragraphs
  // (cut at blank lines outside code fences and comments); a paragraph
  // that does not fit is cut into lines, and a line that does not fit into
  // chunks.
  std::vector<Unit> UnitsOf(Span range) const {
    std::vector<Unit> units;
    auto by_begin = [](const Span& s, size_t offset) { return s.begin < offset; };
    auto it = std::lower_bound(scan_.breaks.begin(), scan_.breaks.end(), range.begin, by_begin);
    size_t pos = range.begin;
    while (pos < range.end) {
      size_t piece_end = range.end, next = range.end;
      if (it != scan_.breaks.end() && it->begin < range.end) {
        piece_end = it->begin;
        next = std::min(it->end, range.end);
        ++it;
      }
      AddParagraph(TrimSpan(text_, {pos, piece_end}), &units);
      pos = std::max(next, pos + 1);
    }
    return units;
  }

  void AddParagraph(Span paragraph, std::vector<Unit>* units) const {
    if (paragraph.empty()) return;
    TextStats stats = Measure(Slice(paragraph));
    if (Fits(stats)) {
      units->push_back({paragraph, stats});
      return;
    }
    for (size_t pos = paragraph.begin; pos < paragraph.end;) {
      size_t nl = text_.find('\n', pos);
      size_t line_end = nl == std::string_view::npos ? paragraph.end : std::min(nl, paragraph.end);
      Span line = TrimSpan(text_, {pos, line_end});
      if (!line.empty()) {
        TextStats line_stats = Measure(Slice(line));
        if (Fits(line_stats)) {
          units->push_back({line, line_stats});
        } else {
          AddChunks(line, units);
        }
      }
      pos = line_end + 1;
    }
  }

  // Cuts `span` into chunks of at most min(max chars, max_tokens / 0.7)
  // characters (so both limits hold whatever the script), preferring to cut
  // at whitespace in a chunk's second half, else between two characters.
  void AddChunks(Span span, std::vector<Unit>* units) const {
    const size_t limit = std::max<size_t>(
        1, std::min<size_t>(static_cast<size_t>(options_.max_section_chars),
                            static_cast<size_t>(options_.max_section_tokens) * 10 / 7));
    uint32_t cp;
    size_t pos = span.begin;
    while (pos < span.end) {
      size_t hard = pos, half = pos;
      for (size_t chars = 0; hard < span.end && chars < limit; ++chars) {
        if (chars == limit / 2) half = hard;
        hard += DecodeChar(text_.substr(0, span.end), hard, &cp);
      }
      size_t cut = hard;
      if (hard < span.end) {
        for (size_t k = hard; k > half && k > pos; --k) {
          if (IsAsciiSpace(text_[k])) {
            cut = k;
            break;
          }
        }
      }
      Span chunk = TrimSpan(text_, {pos, cut});
      if (!chunk.empty()) units->push_back({chunk, Measure(Slice(chunk))});
      pos = cut;
      while (pos < span.end && IsAsciiSpace(text_[pos])) ++pos;
    }
  }

  void AddFile(const std::string& dir, const std::string& name, Span span) {
    split_.files.push_back({JoinPath(dir, name), std::string(Slice(span))});
  }

  std::string_view text_;
  const MarkdownSplitOptions& options_;
  const MarkdownScan scan_;
  MarkdownSplit split_;
};

}  // namespace

Status MarkdownSplitOptions::Validate() const {
  if (max_section_tokens < 1) {
    return Status::InvalidArgument(
        fmt::format("max_section_tokens must be at least 1, got {}", max_section_tokens));
  }
  if (max_section_chars < 1) {
    return Status::InvalidArgument(
        fmt::format("max_section_chars must be at least 1, got {}", max_section_chars));
  }
  if (min_section_tokens < 0 || min_section_tokens > max_section_tokens) {
    return Status::InvalidArgument(
        fmt::format("min_section_tokens must be in [0, max_section_tokens={}], got {}",
                    max_section_tokens, min_section_tokens));
  }
  return Status::Ok();
}

int EstimateParserTokens(std::string_view text) {
  return static_cast<int>(std::min<int64_t>(Measure(text).Tokens(), INT_MAX));
}

std::string SanitizePathSegment(std::string_view name) {
  std::string out;
  bool pending_space = false;
  uint32_t cp;
  for (size_t i = 0; i < name.size();) {
    size_t len = DecodeChar(name, i, &cp);
    std::string_view bytes = name.substr(i, len);
    i += len;
    if (cp == kInvalidChar) continue;
    if (IsUnicodeSpace(cp)) {
      pending_space = true;
      continue;
    }
    bool keep;
    if (cp < 0x80) {
      keep = (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
             cp == '_' || cp == '-' || cp == '.';
    } else {
      keep = (U_GET_GC_MASK(static_cast<UChar32>(cp)) &
              (U_GC_L_MASK | U_GC_N_MASK | U_GC_M_MASK)) != 0 ||
             (cp >= 0x00C0 && cp <= 0x024F) || (cp >= 0x0400 && cp <= 0x04FF) ||
             (cp >= 0x0600 && cp <= 0x06FF) || IsCjk(cp);
    }
    if (!keep) continue;
    if (pending_space) out += '_';
    pending_space = false;
    out.append(bytes);
  }
  size_t b = out.find_first_not_of("._");
  if (b == std::string::npos) return "section";
  size_t e = out.find_last_not_of("._");
  out = out.substr(b, e - b + 1);
  if (Utf8Length(out) > kMaxNameChars) {
    std::string hash = Sha256Hex(out).substr(0, 8);
    out = std::string(Utf8Prefix(out, kNamePrefixChars)) + "_" + hash;
  }
  return out;
}

std::vector<MarkdownHeading> FindMarkdownHeadings(std::string_view text) {
  return ScanMarkdown(text, ParseFrontmatter(text).end).headings;
}

Result<MarkdownSplit> SplitMarkdown(std::string_view text, std::string_view doc_name,
                                    const MarkdownSplitOptions& options) {
  SKALD_RETURN_IF_ERROR(options.Validate());
  Frontmatter fm = ParseFrontmatter(text);
  std::string_view title = fm.title;
  if (TrimAscii(title).empty()) title = doc_name;
  if (TrimAscii(title).empty()) title = "Document";
  Planner planner(text, options, ScanMarkdown(text, fm.end));
  return planner.Plan(SanitizePathSegment(title), fm.end);
}

}  // namespace skald
