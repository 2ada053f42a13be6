#pragma once

// GlobPattern: shell-style matching of relative paths ("docs/a/b.md").
//
// Syntax: `*` any run of characters within one segment, `**` as a whole
// segment matches zero or more segments, `?` one character (a UTF-8 code
// point, never '/'), `[abc]`, `[a-z]`, `[!a]`/`[^a]` one character from a
// class. A pattern without '/' still matches only a single segment at the
// top level (as in `ls *.md`).
//
// Thread safety: immutable after Compile(); Matches() is const and safe to
// call concurrently.

#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"

namespace skald {

class GlobPattern {
 public:
  // InvalidArgument for an empty pattern ("pattern must not be empty") or an
  // unterminated `[` class.
  static Result<GlobPattern> Compile(std::string_view pattern);

  // True when `relative_path` (segments joined by '/', no leading '/')
  // matches the whole pattern.
  bool Matches(std::string_view relative_path) const;

  // The longest leading run of pattern segments without wildcards
  // ("docs/api" for "docs/api/**/*.md"), so a walk can start there.
  const std::string& literal_prefix() const { return literal_prefix_; }

  // True if the pattern contains `**` (the walk must recurse without limit).
  bool recursive() const { return recursive_; }

  // Number of segments the pattern spans when it has no `**`.
  size_t segment_count() const { return segments_.size(); }

 private:
  std::vector<std::string> segments_;
  std::string literal_prefix_;
  bool recursive_ = false;
};

}  // namespace skald
