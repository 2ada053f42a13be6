#pragma once

// IgnoreRules: the rules of an account's `.ovgitignore`, which keep paths out
// of its snapshots (service/snapshot_ops.h). The syntax is gitignore's, as
// far as OpenViking accepts it:
//   - one rule per line, trimmed; blank lines and lines starting with '#'
//     are skipped;
//   - a rule ending in '/' matches directories only (everything below one);
//   - a rule with a '/' at its start or inside is anchored at the account
//     root (`/resources/cache/**`, `resources/tmp/*`); one without matches a
//     name at any depth (`*.log`, `tmp/`);
//   - wildcards as GlobPattern's (uri/glob_pattern.h): `*`, `?`, classes,
//     `**` across directories.
// A path is ignored when a rule matches it or one of its directories.
// Refused (InvalidArgument naming the line): negation (`!`) and backslash
// escapes, which OpenViking refuses too; content over kMaxIgnoreBytes or not
// valid UTF-8. One difference from git: as in GlobPattern, a wildcard never
// matches a name's leading '.' (`*.md` leaves `.abstract.md`; `.*.md` takes it).
//
// Thread safety: immutable after Parse().

#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"
#include "uri/glob_pattern.h"

namespace skald {

// The largest .ovgitignore accepted, in bytes.
inline constexpr size_t kMaxIgnoreBytes = 64 * 1024;

class IgnoreRules {
 public:
  static Result<IgnoreRules> Parse(std::string_view content);

  // True when `path` (account-relative: "resources/a/b.log") or a directory
  // above it is matched by a rule.
  bool Ignored(std::string_view path) const;

  bool empty() const { return rules_.empty(); }

 private:
  struct Rule {
    GlobPattern pattern;
    bool dir_only;
  };
  std::vector<Rule> rules_;
};

}  // namespace skald
