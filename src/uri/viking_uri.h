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

// Longest accepted URI, in bytes, both as given and in canonical form.
inline constexpr size_t kMaxUriBytes = 4096;

struct UriParseOptions {
  // The caller (not owned; must outlive the call), used for `~` and legacy
  // `viking://session` expansion and for the reserved-user-segment check.
  // When null, or when the role is ROOT, `~` is rejected (INVALID_URI
  // "Home alias URI is not canonical: ~/...") and `session` likewise
  // ("Legacy session URI is not canonical: session/...").
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
  // rule of reference §6 and canonicalizes. Steps, in order:
  //   1. at most kMaxUriBytes bytes, valid UTF-8; ASCII whitespace trimmed;
  //      no control characters (C0, DEL, C1) anywhere;
  //   2. path variables resolved (see uri/path_variables.h);
  //   3. scheme must be exactly `viking://` (no short forms, no other scheme);
  //   4. the query part (`?` and after) is dropped; empty segments are
  //      collapsed everywhere, including right after the scheme
  //      (`viking:///resources//a/` -> `viking://resources/a`);
  //   5. the scope (first segment) must be a parser-valid scope; internal
  //      scopes need `allow_internal_scopes`;
  //   6. `.`, `..`, segments with `\` and drive-prefixed segments (`C:`,
  //      `c:x`) are refused with PermissionDenied;
  //   7. `~` and `session` are expanded for USER/ADMIN identities;
  //   8. `user/{uid}` and `user/{uid}/peers/{peer}` ids must pass
  //      IsValidIdentifier(); a USER/ADMIN caller naming a reserved segment
  //      (memories, resources, skills, peers, privacy, sessions) in the uid
  //      position gets INVALID_URI with a hint to use `viking://~/...`, unless
  //      its own uid is that word. ROOT and identity-less callers address a
  //      user literally named "memories" this way (as OpenViking does), so
  //      the reserved-name check does not apply to them;
  //   9. every segment passes IsValidSegment(); the canonical text is at most
  //      kMaxUriBytes bytes.
  // No percent-decoding is done: OpenViking's parser never decodes, the HTTP
  // layer decodes query strings once, and `%2e%2e` is an ordinary name here.
  // A segment longer than 255 bytes is valid (storage shortens it on disk).
  // Errors:
  //   InvalidArgument + reason INVALID_URI, message "Invalid URI: <uri> (<why>)",
  //     details {uri, reason} (<uri> is the input with control bytes and
  //     invalid UTF-8 shown as \xNN, cut to 512 bytes): empty/blank text
  //     ("uri must not be empty"), too long, bad UTF-8, control characters,
  //     non-viking scheme, unknown or internal scope, `~`/`session` without a
  //     USER/ADMIN identity, bad identifiers, reserved uid-less user
  //     segments, unknown path variables, segments ending in a space;
  //   PermissionDenied (detail "resource"): `.`/`..` segments, backslashes,
  //     drive letters.
  static Result<VikingUri> Parse(std::string_view text, const UriParseOptions& options = {});

  // Builds a URI from already-validated segments (scope first). Used by
  // storage when mapping paths back to URIs.
  // REQUIRES: every segment is non-empty and passes IsValidSegment().
  static VikingUri FromSegments(std::vector<std::string> segments);

  // True when `segment` may appear as a path segment, i.e. when Parse() would
  // reproduce it unchanged: non-empty, valid UTF-8, not `.`/`..`, no `/`,
  // `\` or `?`, no control characters, not drive-prefixed (`C:`, `c:x`), not
  // ending in a space, and holding no `{namespace:key}` placeholder.
  // Callers that build URIs from outside names (ingest, storage) must check
  // this or sanitize first.
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

  // Parent URI; the root's parent is the root. Parent of `viking://user/u`
  // is `viking://user` (a container, not a user space).
  VikingUri Parent() const;
  // This URI with one more segment. REQUIRES: IsValidSegment(name).
  VikingUri Child(std::string_view name) const;
  // True if this URI is `other` or an ancestor of it.
  bool Contains(const VikingUri& other) const;
  // Number of segments (0 for the root).
  size_t depth() const { return segments_.size(); }

  // Classification per reference §6: user/{uid}/{memories|resources|skills},
  // user/{uid}/peers/{pid}/{memories|resources}, agent/skills (which wins over
  // the next rule), agent/{x}/{memories|resources|skills}; the content
  // directory itself is classified too (user/u/memories is a memory);
  // user/{uid}/sessions (what conversations left: archive summaries and
  // excerpts) is memory too; everything else is a resource.
  ContextType context_type() const;

  friend bool operator==(const VikingUri& a, const VikingUri& b) { return a.text_ == b.text_; }
  friend bool operator!=(const VikingUri& a, const VikingUri& b) { return a.text_ != b.text_; }
  friend bool operator<(const VikingUri& a, const VikingUri& b) { return a.text_ < b.text_; }

 private:
  explicit VikingUri(std::vector<std::string> segments);

  std::vector<std::string> segments_;
  std::string text_ = "viking://";
};

// Longest account, user or peer id, in bytes. An account id names a
// directory and user ids are URI segments; 128 bytes keeps both far inside
// file-system name limits.
inline constexpr size_t kMaxIdentifierBytes = 128;

// Identifier rule for account, user and peer ids: ^[a-zA-Z0-9_.@-]+$, at most
// kMaxIdentifierBytes bytes, not "." or "..", at most one '@'. Account ids
// additionally must not start with '_' (`is_account` = true).
bool IsValidIdentifier(std::string_view id, bool is_account = false);

}  // namespace skald
