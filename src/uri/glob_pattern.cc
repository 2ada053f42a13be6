#include "uri/glob_pattern.h"

#include <utility>

#include "common/strings.h"

namespace skald {
namespace {

// Stand-in for a byte that is not part of valid UTF-8: outside Unicode, so it
// equals no literal and falls in no class range (only negated classes, `?`
// and `*` match it).
constexpr char32_t kInvalidByteBase = 0x110000;

// Decodes one code point at `s[*i]` and advances `*i`.
char32_t DecodeOne(std::string_view s, size_t* i) {
  auto c = static_cast<unsigned char>(s[*i]);
  size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
                             : (c & 0xF8) == 0xF0 ? 4 : 0;
  if (len == 0 || *i + len > s.size() || !IsValidUtf8(s.substr(*i, len))) {
    ++*i;
    return kInvalidByteBase + c;
  }
  char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[*i + k]) & 0x3F);
  *i += len;
  return cp;
}

std::u32string Decode(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) out.push_back(DecodeOne(s, &i));
  return out;
}

// Non-empty, non-`.` pieces of a '/'-separated string.
std::vector<std::string_view> Pieces(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find('/', start);
    if (end == std::string_view::npos) end = s.size();
    std::string_view piece = s.substr(start, end - start);
    if (!piece.empty() && piece != ".") out.push_back(piece);
    start = end + 1;
  }
  return out;
}

Status BadPattern(std::string_view pattern, const std::string& why) {
  return Status::InvalidArgument("Invalid glob pattern '" + std::string(pattern) + "': " + why);
}

}  // namespace

Result<GlobPattern::Segment> GlobPattern::CompileSegment(std::string_view text,
                                                         std::string_view pattern) {
  Segment seg;
  if (text == "**") {
    seg.globstar = true;
    return seg;
  }
  bool wildcard = false;
  std::string unescaped;
  size_t i = 0;
  auto append_literal = [&](size_t from, size_t to) {
    unescaped.append(text.substr(from, to - from));
    for (size_t k = from; k < to;) seg.tokens.push_back({Token::Kind::kLiteral, DecodeOne(text, &k), 0});
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\\') {
      if (i + 1 >= text.size()) return BadPattern(pattern, "it ends with a lone '\\'");
      size_t next = i + 1;
      DecodeOne(text, &next);
      append_literal(i + 1, next);
      i = next;
    } else if (c == '*') {
      wildcard = true;
      // Runs of stars (including `**` inside a segment) are one star.
      if (seg.tokens.empty() || seg.tokens.back().kind != Token::Kind::kStar) {
        seg.tokens.push_back({Token::Kind::kStar, 0, 0});
      }
      ++i;
    } else if (c == '?') {
      wildcard = true;
      seg.tokens.push_back({Token::Kind::kAnyChar, 0, 0});
      ++i;
    } else if (c == '[') {
      wildcard = true;
      CharClass cls;
      size_t j = i + 1;
      if (j < text.size() && (text[j] == '!' || text[j] == '^')) {
        cls.negated = true;
        ++j;
      }
      bool first = true;
      bool closed = false;
      while (j < text.size()) {
        if (text[j] == ']' && !first) {
          closed = true;
          ++j;
          break;
        }
        first = false;
        auto read_char = [&](char32_t* out) -> bool {
          if (text[j] == '\\') {
            if (++j >= text.size()) return false;
          }
          *out = DecodeOne(text, &j);
          return true;
        };
        char32_t lo = 0;
        if (!read_char(&lo)) break;
        char32_t hi = lo;
        if (j + 1 < text.size() && text[j] == '-' && text[j + 1] != ']') {
          ++j;
          if (!read_char(&hi)) break;
          if (hi < lo) {
            return BadPattern(pattern, "reversed range in '" + std::string(text.substr(i, j - i)) +
                                           "...'");
          }
        }
        cls.ranges.emplace_back(lo, hi);
      }
      if (!closed) return BadPattern(pattern, "unterminated '['");
      seg.tokens.push_back({Token::Kind::kClass, 0, seg.classes.size()});
      seg.classes.push_back(std::move(cls));
      i = j;
    } else {
      size_t next = i;
      DecodeOne(text, &next);
      append_literal(i, next);
      i = next;
    }
  }
  if (!wildcard) {
    seg.literal = true;
    seg.text = std::move(unescaped);
    // Literal tokens are still needed by nothing; keep memory small.
    seg.tokens.clear();
  }
  return seg;
}

Result<GlobPattern> GlobPattern::Compile(std::string_view pattern) {
  if (pattern.empty()) return Status::InvalidArgument("pattern must not be empty");
  if (pattern.size() > kMaxGlobPatternBytes) {
    return Status::InvalidArgument("pattern is longer than " +
                                   std::to_string(kMaxGlobPatternBytes) + " bytes");
  }
  if (!IsValidUtf8(pattern)) return Status::InvalidArgument("pattern is not valid UTF-8");

  GlobPattern glob;
  glob.anchored_ = pattern.front() == '/';
  for (std::string_view piece : Pieces(pattern)) {
    SKALD_ASSIGN_OR_RETURN(Segment seg, CompileSegment(piece, pattern));
    // `**/**` is the same as `**`.
    if (seg.globstar && !glob.segments_.empty() && glob.segments_.back().globstar) continue;
    glob.segments_.push_back(std::move(seg));
  }
  if (glob.segments_.empty()) {
    return BadPattern(pattern, "it names no path segment");
  }

  glob.recursive_ = !glob.anchored_;
  for (const Segment& seg : glob.segments_) glob.recursive_ = glob.recursive_ || seg.globstar;
  if (glob.anchored_) {
    for (size_t k = 0; k + 1 < glob.segments_.size() && glob.segments_[k].literal; ++k) {
      if (!glob.literal_prefix_.empty()) glob.literal_prefix_ += '/';
      glob.literal_prefix_ += glob.segments_[k].text;
    }
  }
  return glob;
}

bool GlobPattern::MatchSegment(const Segment& segment, std::string_view name,
                               const std::u32string& decoded) {
  if (segment.literal) return segment.text == name;
  const std::vector<Token>& tokens = segment.tokens;
  // Hidden names need an explicit leading '.'.
  if (!decoded.empty() && decoded[0] == U'.' &&
      (tokens.empty() || tokens[0].kind != Token::Kind::kLiteral || tokens[0].ch != U'.')) {
    return false;
  }
  auto matches_one = [&](const Token& t, char32_t ch) {
    switch (t.kind) {
      case Token::Kind::kLiteral:
        return t.ch == ch;
      case Token::Kind::kAnyChar:
        return true;
      case Token::Kind::kClass: {
        const CharClass& cls = segment.classes[t.class_index];
        bool in = false;
        for (const auto& [lo, hi] : cls.ranges) {
          if (ch >= lo && ch <= hi) {
            in = true;
            break;
          }
        }
        return in != cls.negated;
      }
      case Token::Kind::kStar:
        return false;
    }
    return false;
  };
  // Classic wildcard matching with one backtrack point: every token other
  // than `*` consumes exactly one code point, so retrying only the most
  // recent star is complete and the loop runs in O(|tokens| * |name|).
  constexpr size_t kNone = static_cast<size_t>(-1);
  size_t p = 0;
  size_t n = 0;
  size_t star_p = kNone;
  size_t star_n = 0;
  while (n < decoded.size()) {
    if (p < tokens.size() && tokens[p].kind == Token::Kind::kStar) {
      star_p = p++;
      star_n = n;
    } else if (p < tokens.size() && matches_one(tokens[p], decoded[n])) {
      ++p;
      ++n;
    } else if (star_p != kNone) {
      p = star_p + 1;
      n = ++star_n;
    } else {
      return false;
    }
  }
  while (p < tokens.size() && tokens[p].kind == Token::Kind::kStar) ++p;
  return p == tokens.size();
}

bool GlobPattern::Matches(std::string_view relative_path) const {
  const std::vector<std::string_view> names = Pieces(relative_path);
  if (names.empty() || segments_.empty()) return false;
  std::vector<std::u32string> decoded;
  decoded.reserve(names.size());
  for (std::string_view name : names) decoded.push_back(Decode(name));
  auto hidden = [&](size_t k) { return names[k].front() == '.'; };

  // reach[j]: the pattern items seen so far can consume exactly names[0, j).
  const size_t m = names.size();
  std::vector<char> reach(m + 1, 0);
  std::vector<char> next(m + 1, 0);
  reach[0] = 1;
  auto apply_globstar = [&]() {
    next[0] = reach[0];
    for (size_t j = 1; j <= m; ++j) next[j] = reach[j] || (next[j - 1] && !hidden(j - 1));
    reach.swap(next);
  };
  if (!anchored_ && !segments_.front().globstar) apply_globstar();
  for (const Segment& seg : segments_) {
    if (seg.globstar) {
      apply_globstar();
      continue;
    }
    bool any = false;
    next[0] = 0;
    for (size_t j = 0; j < m; ++j) {
      next[j + 1] = reach[j] && MatchSegment(seg, names[j], decoded[j]);
      any = any || next[j + 1];
    }
    if (!any) return false;
    reach.swap(next);
  }
  return reach[m] != 0;
}

}  // namespace skald
