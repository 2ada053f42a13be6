#include "server/auth.h"

#include <httplib.h>

#include <array>

#include <fmt/format.h>

#include "common/hash.h"
#include "common/strings.h"
#include "server/http_util.h"
#include "uri/viking_uri.h"

namespace skald::server {
namespace {

constexpr std::string_view kMissingKey = "Missing API Key when resolving identity.";
constexpr std::string_view kInvalidKey = "Invalid API Key";
constexpr std::string_view kBearer = "Bearer ";

constexpr std::array<std::string_view, 3> kRootExact = {
    "/api/v1/system/status", "/api/v1/system/wait", "/api/v1/debug/health"};
constexpr std::array<std::string_view, 6> kRootPrefixes = {
    "/api/v1/admin", "/api/v1/observer", "/api/v1/console",
    "/api/v1/tasks", "/api/v1/system/backend", "/api/v1/system/sync"};

bool HasPrefixSegment(std::string_view path, std::string_view prefix) {
  if (path.substr(0, prefix.size()) != prefix) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '/';
}

std::optional<std::string> Header(const httplib::Request& req, const char* name) {
  if (!req.has_header(name)) return std::nullopt;
  return req.get_header_value(name);
}

Status Unauthenticated(std::string_view message) {
  return Status::Unauthenticated(std::string(message));
}

Status UserBeingDeleted(const Identity& who) {
  return Status::FailedPrecondition(
             fmt::format("User {} of account {} is being deleted", who.user, who.account))
      .WithDetail("resource", who.user);
}

Status AdminNeedsApiKeyMode() {
  return Status::PermissionDenied(
      "Admin API requires api_key mode: configure server.root_api_key");
}

}  // namespace

std::string_view AuthModeName(AuthMode mode) {
  switch (mode) {
    case AuthMode::kDev: return "dev";
    case AuthMode::kApiKey: return "api_key";
    case AuthMode::kTrusted: return "trusted";
  }
  return "dev";
}

AuthHeaders AuthHeaders::From(const httplib::Request& request) {
  AuthHeaders h;
  h.api_key = Header(request, "X-API-Key");
  h.authorization = Header(request, "Authorization");
  h.account = Header(request, "X-OpenViking-Account");
  h.user = Header(request, "X-OpenViking-User");
  h.role = Header(request, "X-OpenViking-Role");
  h.actor_peer = Header(request, "X-OpenViking-Actor-Peer");
  return h;
}

bool IsRootAllowedRoute(std::string_view path) {
  for (std::string_view exact : kRootExact) {
    if (path == exact) return true;
  }
  for (std::string_view prefix : kRootPrefixes) {
    if (HasPrefixSegment(path, prefix)) return true;
  }
  return false;
}

bool IsUnauthenticatedRoute(std::string_view path) {
  return path == "/health" || path == "/ready" || path == "/metrics";
}

bool IsAdminRoute(std::string_view path) { return HasPrefixSegment(path, "/api/v1/admin"); }

namespace {

// The {account_id} of /api/v1/admin/accounts/{account_id}[/...], if any.
std::optional<std::string_view> AdminPathAccount(std::string_view path) {
  constexpr std::string_view kPrefix = "/api/v1/admin/accounts/";
  if (!path.starts_with(kPrefix)) return std::nullopt;
  std::string_view rest = path.substr(kPrefix.size());
  rest = rest.substr(0, rest.find('/'));
  if (rest.empty()) return std::nullopt;
  return rest;
}

// Trusted mode's X-OpenViking-Role (trimmed, any case): nullopt when absent
// or blank; `user` or `admin` when the server has a root key (`keyed`);
// otherwise an InvalidArgument.
Result<std::optional<Role>> AssertedRole(const AuthHeaders& h, bool keyed) {
  const std::string role = h.role.has_value() ? AsciiLower(Trim(*h.role)) : std::string();
  if (role.empty()) return std::optional<Role>();
  if (!keyed) {
    return Status::InvalidArgument(
        "X-OpenViking-Role is honoured only when the server has a root_api_key");
  }
  if (role == "user") return std::optional<Role>(Role::kUser);
  if (role == "admin") return std::optional<Role>(Role::kAdmin);
  if (role == "root") return Status::InvalidArgument("X-OpenViking-Role cannot be root");
  return Status::InvalidArgument(
      fmt::format("invalid X-OpenViking-Role '{}': use user or admin", *h.role));
}

}  // namespace

bool IsLoopbackHost(std::string_view host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1";
}

Result<Authenticator> Authenticator::Create(std::string_view mode, std::string root_api_key,
                                            std::string_view host) {
  AuthMode parsed;
  if (mode.empty()) {
    parsed = root_api_key.empty() ? AuthMode::kDev : AuthMode::kApiKey;
  } else if (mode == "dev") {
    parsed = AuthMode::kDev;
  } else if (mode == "api_key") {
    parsed = AuthMode::kApiKey;
  } else if (mode == "trusted") {
    parsed = AuthMode::kTrusted;
  } else {
    return Status::InvalidArgument(fmt::format(
        "auth mode \"{}\" is not supported: use \"dev\", \"api_key\" or \"trusted\"", mode));
  }
  if (parsed == AuthMode::kApiKey && root_api_key.empty()) {
    return Status::InvalidArgument("auth mode \"api_key\" needs server.root_api_key");
  }
  if (parsed == AuthMode::kDev && !IsLoopbackHost(host)) {
    return Status::InvalidArgument(fmt::format(
        "server.host \"{}\" is not a loopback address: dev mode (no root_api_key) serves "
        "unauthenticated requests and only binds 127.0.0.1, localhost or ::1",
        host));
  }
  if (parsed == AuthMode::kTrusted && root_api_key.empty() && !IsLoopbackHost(host)) {
    return Status::InvalidArgument(fmt::format(
        "server.host \"{}\" is not a loopback address: trusted mode off loopback needs "
        "server.root_api_key",
        host));
  }
  // A dev-mode server ignores a configured key (it checks none).
  std::string hash = parsed == AuthMode::kDev || root_api_key.empty()
                         ? std::string()
                         : Sha256Hex(root_api_key);
  return Authenticator(parsed, std::move(hash));
}

std::optional<std::string> Authenticator::PresentedKey(const AuthHeaders& h) {
  if (h.api_key && !h.api_key->empty()) return *h.api_key;
  if (h.authorization && h.authorization->substr(0, kBearer.size()) == kBearer) {
    std::string token = h.authorization->substr(kBearer.size());
    if (!token.empty()) return token;
  }
  // An empty X-API-Key counts as absent, as in OpenViking (an empty string
  // is no key); so does "Bearer " with nothing after it.
  return std::nullopt;
}

bool Authenticator::IsRootKey(std::string_view key) const {
  if (root_key_hash_.empty() || key.empty()) return false;
  return ConstantTimeEquals(Sha256Hex(key), root_key_hash_);
}

Result<Identity> Authenticator::Resolve(Db& db, std::string_view path,
                                        const AuthHeaders& h) const {
  SKALD_ASSIGN_OR_RETURN(Identity who, ResolveCaller(db, path, h));
  if (!h.actor_peer.has_value() || HasPrefixSegment(path, "/api/v1/sessions")) return who;
  const std::string_view peer = Trim(*h.actor_peer);
  if (peer.empty()) return who;
  if (peer.find_first_of("/\\") != std::string_view::npos) {
    return Status::InvalidArgument(
        "X-OpenViking-Actor-Peer must be a single path segment: path separators are not allowed");
  }
  if (peer.size() > kMaxIdentifierBytes || !IsValidIdentifier(peer)) {
    return Status::InvalidArgument(fmt::format(
        "Invalid X-OpenViking-Actor-Peer header '{}': peer ids match ^[a-zA-Z0-9_.@-]+$", peer));
  }
  who.actor_peer = std::string(peer);
  return who;
}

Result<Identity> Authenticator::ResolveCaller(Db& db, std::string_view path,
                                              const AuthHeaders& h) const {
  Result<Identity> who = Status::Internal("unreachable");
  switch (mode_) {
    case AuthMode::kDev:
      if (IsAdminRoute(path)) return AdminNeedsApiKeyMode();
      who = DevIdentity(h.account.value_or(""), h.user.value_or(""));
      break;
    case AuthMode::kApiKey:
      who = ResolveApiKey(db, path, h);
      break;
    case AuthMode::kTrusted:
      who = ResolveTrusted(db, path, h);
      break;
  }
  if (!who.ok()) return who;
  // The root key acts as default/default, which is nobody's user. A user key
  // never authenticates once its user is being deleted (RemoveUser clears
  // the key in the same transaction), so api_key mode needs no second look.
  if (mode_ == AuthMode::kApiKey) return who;
  if (mode_ == AuthMode::kTrusted && who->role == Role::kRoot) return who;
  SKALD_ASSIGN_OR_RETURN(bool deleting, db.IsUserDeleting(who->account, who->user));
  if (deleting) return UserBeingDeleted(*who);
  return who;
}

Result<Identity> Authenticator::ResolveApiKey(Db& db, std::string_view path,
                                              const AuthHeaders& h) const {
  std::optional<std::string> key = PresentedKey(h);
  if (!key) return Unauthenticated(kMissingKey);
  if (key->empty()) return Unauthenticated(kInvalidKey);
  if (IsRootKey(*key)) {
    if (!IsRootAllowedRoute(path)) {
      return Status::PermissionDenied(
          "ROOT API keys cannot access tenant-scoped data APIs in api_key mode; use a user key "
          "(create one with the admin API)");
    }
    return Identity{"default", "default", Role::kRoot};
  }
  Result<Identity> who = db.Authenticate(*key);
  if (!who.ok() && who.status().code() == StatusCode::kUnauthenticated) {
    return Unauthenticated(kInvalidKey);
  }
  return who;
}

Result<Identity> Authenticator::ResolveTrusted(Db& db, std::string_view path,
                                               const AuthHeaders& h) const {
  const bool keyed = !root_key_hash_.empty();
  if (keyed) {
    std::optional<std::string> key = PresentedKey(h);
    if (!key) return Unauthenticated(kMissingKey);
    if (!IsRootKey(*key)) return Unauthenticated(kInvalidKey);
  }
  if (IsAdminRoute(path)) {
    if (!keyed) return AdminNeedsApiKeyMode();
    // An asserted account must be the one the path names (OpenViking: the
    // gateway's identity and the request may not disagree).
    if (std::optional<std::string_view> named = AdminPathAccount(path);
        named && h.account.has_value() && !h.account->empty() && *h.account != *named) {
      return Status::InvalidArgument(fmt::format(
          "X-OpenViking-Account '{}' does not match the account '{}' of the request path",
          *h.account, *named));
    }
    return Identity{"default", "default", Role::kRoot};
  }
  const bool asserted = h.account.has_value() && !h.account->empty() && h.user.has_value() &&
                        !h.user->empty();
  if (!asserted) {
    if (!IsRootAllowedRoute(path)) {
      return Status::InvalidArgument(
          "trusted mode needs the X-OpenViking-Account and X-OpenViking-User headers");
    }
    // Operational routes (tasks, status, observer) without an asserted user.
    return Identity{"default", "default", keyed ? Role::kRoot : Role::kUser};
  }
  SKALD_ASSIGN_OR_RETURN(Identity who, DevIdentity(*h.account, *h.user));
  who.role = Role::kUser;
  SKALD_ASSIGN_OR_RETURN(std::optional<Role> role_header, AssertedRole(h, keyed));
  if (role_header) {
    who.role = *role_header;
    return who;
  }
  SKALD_ASSIGN_OR_RETURN(std::optional<Role> registered, db.RegisteredRole(who.account, who.user));
  if (registered) who.role = *registered;
  return who;
}

std::optional<Identity> Authenticator::Probe(Db& db, const AuthHeaders& h) const {
  switch (mode_) {
    case AuthMode::kDev:
    case AuthMode::kTrusted: {
      if (!h.account && !h.user) return std::nullopt;
      if (mode_ == AuthMode::kTrusted && !root_key_hash_.empty() &&
          !IsRootKey(PresentedKey(h).value_or(""))) {
        return std::nullopt;
      }
      Result<Identity> who = DevIdentity(h.account.value_or(""), h.user.value_or(""));
      if (!who.ok()) return std::nullopt;
      if (mode_ == AuthMode::kTrusted) {
        Result<std::optional<Role>> asserted = AssertedRole(h, !root_key_hash_.empty());
        if (!asserted.ok()) return std::nullopt;
        if (*asserted) {
          who->role = **asserted;
        } else {
          Result<std::optional<Role>> role = db.RegisteredRole(who->account, who->user);
          who->role = role.ok() && role->has_value() ? **role : Role::kUser;
        }
      }
      return *who;
    }
    case AuthMode::kApiKey: {
      std::optional<std::string> key = PresentedKey(h);
      if (!key || key->empty()) return std::nullopt;
      if (IsRootKey(*key)) return Identity{"default", "default", Role::kRoot};
      Result<Identity> who = db.Authenticate(*key);
      if (!who.ok()) return std::nullopt;
      return *who;
    }
  }
  return std::nullopt;
}

}  // namespace skald::server
