#pragma once

// VikingUri: a parsed, validated, canonical `viking://` URI (reference §6).
//
// Thread safety: VikingUri is an immutable value type; Parse() is pure and
// may be called from any thread.

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"
#include "skald/types.h"

namespace skald {

// Wire-level reason attached to URI errors (Status::reason()).
inline constexpr std::string_view kInvalidUriReason = "INVALID_URI";

struct UriParseOptions {
  // The caller, used for `~` and legacy `viking://session` expansion. When
  // null, or when the role is ROOT, `~` is rejected (INVALID_URI
  // "Home alias URI is not canonical") and `session` likewise.
  const Identity* identity = nullptr;
  // Accept the internal scopes `temp`, `queue`, `upload` (never true for
  // URIs that come from API callers).
  bool allow_internal_scopes = false;
  // Clock for `{calendar:...}` path variables; the epoch value means "now".
  std::chrono::system_clock::time_point now{};
};

class VikingUri {
 public:
  // The root URI `viking://`.
  VikingUri() = default;

  // Parses `text`, resolves `{namespace:key}` path variables, validates every
  // rule of reference §6 and canonicalizes (no trailing slash, empty
  // segments collapsed, query part dropped).
  // Errors:
  //   InvalidArgument + reason INVALID_URI, message "Invalid URI: <uri> (<why>)",
  //     details {uri, reason}: empty/blank text ("uri must not be empty"),
  //     non-viking scheme, unknown or internal scope, bad identifiers,
  //     reserved uid-less user segments, unknown path variables;
  //   PermissionDenied: `.`/`..` segments, backslashes, drive letters (`C:`).
  static Result<VikingUri> Parse(std::string_view text, const UriParseOptions& options = {});

  // Builds a URI from already-validated segments (scope first). Used by
  // storage when mapping paths back to URIs.
  // REQUIRES: every segment is non-empty and passes IsValidSegment().
  static VikingUri FromSegments(std::vector<std::string> segments);

  // True when `segment` may appear as a path segment (non-empty, not `.`/`..`,
  // no `/` or `\`, no NUL, valid UTF-8, not a drive letter like `C:`).
  static bool IsValidSegment(std::string_view segment);

  // Canonical text: "viking://" for the root, else "viking://resources/a/b".
  const std::string& str() const { return text_; }
  // Path without scheme: "" for the root, else "resources/a/b".
  std::string_view path() const;
  // Segments, scope first: {"resources", "a", "b"}; empty for the root.
  const std::vector<std::string>& segments() const { return segments_; }
  // First segment ("resources", "user", "agent", ...) or "" for the root.
  std::string_view scope() const;
  bool is_root() const { return segments_.empty(); }
  // Last segment, "" for the root.
  std::string_view name() const;

  // Parent URI; the root's parent is the root.
  VikingUri Parent() const;
  // This URI with one more segment. REQUIRES: IsValidSegment(name).
  VikingUri Child(std::string_view name) const;
  // True if this URI is `other` or an ancestor of it.
  bool Contains(const VikingUri& other) const;
  // Number of segments (0 for the root).
  size_t depth() const { return segments_.size(); }

  // Classification per reference §6: user/{uid}/{memories|resources|skills},
  // user/{uid}/peers/{pid}/{memories|resources}, agent/skills,
  // agent/{x}/{memories|resources|skills}; everything else is a resource.
  ContextType context_type() const;

  friend bool operator==(const VikingUri& a, const VikingUri& b) { return a.text_ == b.text_; }
  friend bool operator!=(const VikingUri& a, const VikingUri& b) { return a.text_ != b.text_; }
  friend bool operator<(const VikingUri& a, const VikingUri& b) { return a.text_ < b.text_; }

 private:
  explicit VikingUri(std::vector<std::string> segments);

  std::vector<std::string> segments_;
  std::string text_ = "viking://";
};

// Identifier rule for account, user and peer ids: ^[a-zA-Z0-9_.@-]+$, not
// "." or "..", at most one '@'. Account ids additionally must not start with
// '_' (`is_account` = true).
bool IsValidIdentifier(std::string_view id, bool is_account = false);

}  // namespace skald
