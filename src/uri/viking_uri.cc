#include "uri/viking_uri.h"

#include <array>
#include <cassert>
#include <cstdio>
#include <optional>
#include <utility>

#include "common/strings.h"
#include "uri/path_variables.h"

namespace skald {
namespace {

constexpr std::string_view kScheme = "viking://";
constexpr size_t kMaxEchoBytes = 512;

constexpr std::array<std::string_view, 3> kInternalScopes = {"temp", "queue", "upload"};
constexpr std::array<std::string_view, 4> kPublicScopes = {"resources", "user", "agent",
                                                           "session"};
// User-space directory names that used to be a uid-less shorthand for the
// caller's own space (reference §6 "Reserved user segments").
constexpr std::array<std::string_view, 6> kReservedUserSegments = {
    "memories", "resources", "skills", "peers", "privacy", "sessions"};

template <size_t N>
bool OneOf(std::string_view s, const std::array<std::string_view, N>& set) {
  for (std::string_view item : set) {
    if (s == item) return true;
  }
  return false;
}

bool IsAsciiAlpha(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Control characters a URI may never hold: C0, DEL and C1 (U+0080..U+009F,
// encoded C2 80..C2 9F). Returns the offset of the first one or npos.
// REQUIRES: `s` is valid UTF-8.
size_t FindControl(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7F) return i;
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9F) return i;
  }
  return std::string_view::npos;
}

// "U+0000" style name of the control character at `s[i]`.
std::string ControlName(std::string_view s, size_t i) {
  unsigned cp = static_cast<unsigned char>(s[i]);
  if (cp == 0xC2) cp = static_cast<unsigned char>(s[i + 1]);
  char buf[16];
  std::snprintf(buf, sizeof(buf), "U+%04X", cp);
  return buf;
}

// A printable, bounded copy of untrusted input for error messages: control
// bytes and bytes that are not part of valid UTF-8 become \xNN, so messages
// stay valid UTF-8 (JSON encoders refuse anything else).
std::string Echo(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size() && out.size() < kMaxEchoBytes) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
                               : (c & 0xF8) == 0xF0 ? 4 : 0;
    bool printable = len > 0 && i + len <= s.size() && IsValidUtf8(s.substr(i, len)) &&
                     FindControl(s.substr(i, len)) == std::string_view::npos;
    if (printable) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02X", c);
      out += buf;
      ++i;
    }
  }
  if (i < s.size()) out += "...";
  return out;
}

Status InvalidUri(std::string_view uri, std::string reason) {
  std::string echo = Echo(uri);
  std::string message = "Invalid URI: " + echo + " (" + reason + ")";
  return Status::InvalidArgument(std::move(message))
      .WithReason(std::string(kInvalidUriReason))
      .WithDetail("uri", std::move(echo))
      .WithDetail("reason", std::move(reason));
}

Status UnsafeSegment(std::string_view uri, std::string what) {
  std::string echo = Echo(uri);
  return Status::PermissionDenied("Access denied for " + echo + ": " + what)
      .WithDetail("resource", std::move(echo));
}

bool IsDrivePrefixed(std::string_view segment) {
  return segment.size() >= 2 && segment[1] == ':' &&
         IsAsciiAlpha(static_cast<unsigned char>(segment[0]));
}

// PermissionDenied for path-traversal-like segments, else Ok.
Status CheckSafeSegment(std::string_view uri, std::string_view segment) {
  if (segment == "." || segment == "..") {
    return UnsafeSegment(uri, "path traversal segment '" + std::string(segment) + "'");
  }
  if (segment.find('\\') != std::string_view::npos) {
    return UnsafeSegment(uri, "backslash in path segment '" + Echo(segment) + "'");
  }
  if (IsDrivePrefixed(segment)) {
    return UnsafeSegment(uri, "drive-prefixed path segment '" + Echo(segment) + "'");
  }
  return Status::Ok();
}

std::string JoinSegments(const std::vector<std::string>& segments) {
  return Join(segments, "/");
}

std::string IdentifierRule() {
  return "must match [a-zA-Z0-9_.@-]+, have at most " + std::to_string(kMaxIdentifierBytes) +
         " bytes, not be '.' or '..', and hold at most one '@'";
}

}  // namespace

bool IsValidIdentifier(std::string_view id, bool is_account) {
  if (id.empty() || id.size() > kMaxIdentifierBytes || id == "." || id == "..") return false;
  if (is_account && id.front() == '_') return false;
  int at_signs = 0;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '@' || c == '-';
    if (!ok) return false;
    if (c == '@' && ++at_signs > 1) return false;
  }
  return true;
}

bool VikingUri::IsValidSegment(std::string_view segment) {
  if (segment.empty() || segment == "." || segment == "..") return false;
  if (!IsValidUtf8(segment) || FindControl(segment) != std::string_view::npos) return false;
  if (segment.find_first_of("/\\?") != std::string_view::npos) return false;
  if (IsDrivePrefixed(segment) || segment.back() == ' ') return false;
  return !HasPathVariables(segment);
}

VikingUri::VikingUri(std::vector<std::string> segments) : segments_(std::move(segments)) {
  text_ = std::string(kScheme) + JoinSegments(segments_);
}

VikingUri VikingUri::FromSegments(std::vector<std::string> segments) {
#ifndef NDEBUG
  for (const std::string& s : segments) assert(IsValidSegment(s));
#endif
  return VikingUri(std::move(segments));
}

Result<VikingUri> VikingUri::Parse(std::string_view text, const UriParseOptions& options) {
  // 1. Size, encoding, blankness, control characters.
  if (text.size() > kMaxUriBytes) {
    return InvalidUri(text, "uri is longer than " + std::to_string(kMaxUriBytes) + " bytes");
  }
  if (!IsValidUtf8(text)) return InvalidUri(text, "uri is not valid UTF-8");
  std::string_view trimmed = Trim(text);
  if (trimmed.empty()) return InvalidUri(text, "uri must not be empty");
  if (size_t at = FindControl(trimmed); at != std::string_view::npos) {
    return InvalidUri(trimmed, "uri contains control character " + ControlName(trimmed, at));
  }

  // 2. Path variables, resolved over the whole text as OpenViking does.
  std::string resolved;
  if (HasPathVariables(trimmed)) {
    Result<std::string> r = ResolvePathVariables(trimmed, options.now);
    if (!r.ok()) return InvalidUri(trimmed, r.status().message());
    resolved = std::move(r).value();
  } else {
    resolved = std::string(trimmed);
  }

  // 3. Scheme.
  if (resolved.compare(0, kScheme.size(), kScheme) != 0) {
    // An RFC 3986 scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":".
    size_t i = 0;
    if (!resolved.empty() && IsAsciiAlpha(static_cast<unsigned char>(resolved[0]))) {
      i = 1;
      while (i < resolved.size() &&
             (IsAsciiAlpha(static_cast<unsigned char>(resolved[i])) ||
              (resolved[i] >= '0' && resolved[i] <= '9') || resolved[i] == '+' ||
              resolved[i] == '-' || resolved[i] == '.')) {
        ++i;
      }
    }
    if (i > 0 && i < resolved.size() && resolved[i] == ':' && resolved.compare(0, i, "viking")) {
      return InvalidUri(trimmed, "unsupported URI scheme '" + resolved.substr(0, i) + "'");
    }
    return InvalidUri(trimmed, "URI must start with 'viking://'");
  }

  // 4. Query dropped, empty segments collapsed.
  std::string_view rest = std::string_view(resolved).substr(kScheme.size());
  rest = rest.substr(0, rest.find('?'));
  std::vector<std::string> segments;
  for (std::string& piece : Split(rest, '/')) {
    if (!piece.empty()) segments.push_back(std::move(piece));
  }
  if (segments.empty()) return VikingUri();

  // 5. Scope.
  const std::string scope = segments.front();
  const bool internal = OneOf(scope, kInternalScopes);
  if (internal && !options.allow_internal_scopes) {
    return InvalidUri(trimmed, "Invalid scope '" + scope +
                                   "'. Must be one of: agent, resources, session, user");
  }
  if (!internal && !OneOf(scope, kPublicScopes) && scope != "~") {
    return InvalidUri(trimmed, "Invalid scope '" + scope +
                                   "'. Must be one of: agent, queue, resources, session, "
                                   "temp, upload, user");
  }

  // 6. Traversal-like segments, before any alias can move them around.
  for (const std::string& segment : segments) {
    SKALD_RETURN_IF_ERROR(CheckSafeSegment(trimmed, segment));
  }

  // 7. Aliases need a caller whose own space they name.
  const Identity* who = options.identity;
  const bool has_home = who != nullptr && who->role != Role::kRoot;
  bool expanded = false;
  if (scope == "~" || scope == "session") {
    if (!has_home) {
      std::string what = scope == "~" ? "Home alias" : "Legacy session";
      return InvalidUri(trimmed, what + " URI is not canonical: " + JoinSegments(segments));
    }
    std::vector<std::string> full = {"user", who->user};
    if (scope == "session") full.emplace_back("sessions");
    full.insert(full.end(), std::make_move_iterator(segments.begin() + 1),
                std::make_move_iterator(segments.end()));
    segments = std::move(full);
    expanded = true;
  }

  // 8. User-space shape.
  if (segments[0] == "user" && segments.size() >= 2) {
    const std::string& uid = segments[1];
    // Reserved for every caller, ROOT included (OpenViking's clients rely on
    // `viking://user/skills/x` being a 400 in dev mode), unless the caller's
    // own uid is literally that word.
    bool own_uid = who != nullptr && uid == who->user;
    if (!expanded && !own_uid && OneOf(uid, kReservedUserSegments)) {
      std::vector<std::string> tail(segments.begin() + 1, segments.end());
      std::string rest_path = JoinSegments(tail);
      return InvalidUri(trimmed, "'" + uid +
                                     "' is a reserved name, not a user id; use 'viking://~/" +
                                     rest_path + "' for your own space or 'viking://user/"
                                     "{user_id}/" + rest_path + "' for an explicit user");
    }
    if (!IsValidIdentifier(uid)) {
      return InvalidUri(trimmed, "Invalid user_id '" + uid + "': " + IdentifierRule());
    }
    if (segments.size() >= 4 && segments[2] == "peers" && !IsValidIdentifier(segments[3])) {
      return InvalidUri(trimmed, "Invalid peer_id '" + segments[3] + "': " + IdentifierRule());
    }
  }

  // 9. Whatever else would not survive a re-parse of the canonical text.
  for (const std::string& segment : segments) {
    if (segment.back() == ' ') {
      return InvalidUri(trimmed, "path segment '" + segment + "' ends with a space");
    }
    assert(IsValidSegment(segment));
  }
  VikingUri uri(std::move(segments));
  if (uri.text_.size() > kMaxUriBytes) {
    return InvalidUri(trimmed, "canonical uri is longer than " + std::to_string(kMaxUriBytes) +
                                   " bytes");
  }
  return uri;
}

std::string_view VikingUri::path() const {
  return std::string_view(text_).substr(kScheme.size());
}

std::string_view VikingUri::scope() const {
  return segments_.empty() ? std::string_view() : std::string_view(segments_.front());
}

std::string_view VikingUri::name() const {
  return segments_.empty() ? std::string_view() : std::string_view(segments_.back());
}

VikingUri VikingUri::Parent() const {
  if (segments_.empty()) return *this;
  return VikingUri(std::vector<std::string>(segments_.begin(), segments_.end() - 1));
}

VikingUri VikingUri::Child(std::string_view child) const {
  assert(IsValidSegment(child));
  std::vector<std::string> segments = segments_;
  segments.emplace_back(child);
  return VikingUri(std::move(segments));
}

bool VikingUri::Contains(const VikingUri& other) const {
  if (other.segments_.size() < segments_.size()) return false;
  for (size_t i = 0; i < segments_.size(); ++i) {
    if (segments_[i] != other.segments_[i]) return false;
  }
  return true;
}

ContextType VikingUri::context_type() const {
  const std::vector<std::string>& s = segments_;
  auto content_type = [](std::string_view dir, bool allow_skills) -> std::optional<ContextType> {
    if (dir == "memories") return ContextType::kMemory;
    if (dir == "resources") return ContextType::kResource;
    if (dir == "skills" && allow_skills) return ContextType::kSkill;
    return std::nullopt;
  };
  if (s.size() >= 2 && s[0] == "agent") {
    if (s[1] == "skills") return ContextType::kSkill;
    if (s.size() >= 3) {
      if (auto t = content_type(s[2], true)) return *t;
    }
    return ContextType::kResource;
  }
  if (s.size() >= 3 && s[0] == "user") {
    if (s.size() >= 5 && s[2] == "peers") {
      if (auto t = content_type(s[4], false)) return *t;
      return ContextType::kResource;
    }
    if (auto t = content_type(s[2], true)) return *t;
    // What a conversation left (archive summaries and excerpts) is memory.
    if (s[2] == "sessions") return ContextType::kMemory;
  }
  return ContextType::kResource;
}

}  // namespace skald
