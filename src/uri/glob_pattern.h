#pragma once

// GlobPattern: shell-style matching of paths relative to a base URI
// ("docs/a/b.md" under `viking://resources`), as used by the glob API.
//
// Syntax, per path segment: `*` any run of characters, `?` one character (a
// UTF-8 code point), `[abc]`, `[a-z]`, `[!a]`/`[^a]` one code point from (or
// not from) a class (`]` first in a class is literal), `\x` the character x
// literally. `**` as a whole segment matches zero or more segments; inside a
// segment (`a**b`) it acts as `*`. Matching is case-sensitive.
//
// Anchoring follows OpenViking (crates/ragfs/src/core/glob.rs keeps Python's
// PurePath.match contract): a pattern matches the *trailing* segments of the
// path, so `*.md` matches `a.md` and `x/y/a.md` (any depth below the base)
// and `docs/*.md` matches `docs/a.md` and `x/docs/a.md`. Two deliberate
// differences, both giving a superset of OpenViking's results or an opt-in:
//   - `**` really spans zero or more segments. OpenViking's `**` matches
//     exactly one segment, so there `**/*.md` misses a top-level `a.md` and
//     `foo/**` misses `foo/a/b`;
//   - a leading '/' anchors the pattern at the base: `/*.md` matches only
//     direct children, `/docs/**/*.md` only below `docs/` (OpenViking ignores
//     leading slashes).
// Empty and `.` segments are ignored in both pattern and path.
//
// Hidden names: a segment starting with '.' is matched only by a pattern
// segment that starts with a literal '.'; `*`, `?`, classes and `**` never
// match the leading dot, and `**` (explicit or the implicit one in front of
// an unanchored pattern) never descends through a hidden directory. So
// `*.md` does not match `.abstract.md` or `.git/a.md`, while `.*.md` and
// `.git/*.md` do. (OpenViking's glob walk skips hidden entries altogether;
// whether to offer them is the walker's decision.)
//
// Matching is O(pattern segments x path segments x segment length): no
// backtracking blowup (`*a*a*a*a*b` against a long name stays linear-ish).
//
// Thread safety: immutable after Compile(); Matches() is const and safe to
// call concurrently.

#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"

namespace skald {

// Longest accepted glob pattern, in bytes.
inline constexpr size_t kMaxGlobPatternBytes = 4096;

class GlobPattern {
 public:
  // InvalidArgument for an empty pattern ("pattern must not be empty"), one
  // with no segment left after dropping empty and `.` segments ("/", "./"),
  // an unterminated `[` class, a reversed range (`[z-a]`), a trailing lone
  // `\`, invalid UTF-8, or more than kMaxGlobPatternBytes bytes.
  static Result<GlobPattern> Compile(std::string_view pattern);

  // True when `relative_path` (segments joined by '/', relative to the walk's
  // base) matches, with the anchoring rules above. The base itself (an empty
  // path) never matches.
  bool Matches(std::string_view relative_path) const;

  // For anchored patterns: the leading run of wildcard-free segments before
  // the last segment, unescaped ("docs/api" for "/docs/api/**/*.md", "docs"
  // for "/docs/a.md"), so a walk can start there. Empty for unanchored
  // patterns, which can match at any depth.
  const std::string& literal_prefix() const { return literal_prefix_; }

  // True when the walk must recurse without a depth limit: the pattern is
  // unanchored or contains `**`.
  bool recursive() const { return recursive_; }

  // True when the pattern started with '/' (matched from the base down).
  bool anchored() const { return anchored_; }

  // Number of segments in the pattern (`**` counts as one). For an anchored
  // pattern without `**` this is the exact depth of every match.
  size_t segment_count() const { return segments_.size(); }

 private:
  struct CharClass {
    bool negated = false;
    std::vector<std::pair<char32_t, char32_t>> ranges;  // inclusive
  };
  struct Token {
    enum class Kind { kLiteral, kAnyChar, kStar, kClass };
    Kind kind = Kind::kLiteral;
    char32_t ch = 0;         // kLiteral
    size_t class_index = 0;  // kClass, into Segment::classes
  };
  struct Segment {
    bool globstar = false;      // the whole segment is `**`
    bool literal = false;       // no wildcards: compare `text` bytewise
    std::string text;           // unescaped text when `literal`
    std::vector<Token> tokens;  // otherwise
    std::vector<CharClass> classes;
  };

  static Result<Segment> CompileSegment(std::string_view text, std::string_view pattern);
  static bool MatchSegment(const Segment& segment, std::string_view name,
                           const std::u32string& decoded);

  std::vector<Segment> segments_;
  std::string literal_prefix_;
  bool recursive_ = false;
  bool anchored_ = false;
};

}  // namespace skald
