#pragma once

// Authenticator: who a request is (reference §1.2, §5.1), in one of three
// modes chosen by ServerOptions::auth_mode ("" = api_key when a root key is
// configured, else dev):
//
// - dev: no keys. Loopback hosts only. Every request is ROOT, acting as the
//   account/user of the X-OpenViking-Account/User headers (default
//   "default"/"default"). The admin API answers 403 (it needs api_key mode).
// - api_key: the key comes from X-API-Key, else `Authorization: Bearer <key>`
//   (exact, case-sensitive prefix); an empty X-API-Key or bearer token counts
//   as missing: 401 "Missing API Key when resolving identity."; malformed,
//   unknown, revoked or wrong: 401 "Invalid API Key". The root key
//   (compared in constant time) is ROOT as default/default, and is refused
//   with 403 on tenant data routes (everything outside kRootAllowedRoutes).
//   A user key is its registered account/user/role; identity headers are
//   ignored, so they can never widen what a key may see.
// - trusted: a gateway asserts the identity with X-OpenViking-Account/User
//   (both required on tenant data routes: 400 otherwise). When a root key is
//   configured every request must carry it (401) — required off loopback —
//   and X-OpenViking-Role (user|admin) is honoured; otherwise the role is the
//   registered one, else USER. Admin routes with the root key are ROOT.
//
// A user whose deletion is in progress gets 412 on every call in dev and
// trusted mode; in api_key mode its key is already revoked (401).
// /health, /ready and /metrics need no identity (Probe serves /health).
//
// Thread safety: immutable after Create; Resolve/Probe may run concurrently
// (they call the thread-safe Db).

#include <optional>
#include <string>
#include <string_view>

#include "skald/db.h"
#include "skald/result.h"

namespace httplib {
struct Request;
}  // namespace httplib

namespace skald::server {

enum class AuthMode { kDev, kApiKey, kTrusted };

// "dev" | "api_key" | "trusted".
std::string_view AuthModeName(AuthMode mode);

// The authentication headers of one request (absent headers are nullopt).
struct AuthHeaders {
  std::optional<std::string> api_key;        // X-API-Key
  std::optional<std::string> authorization;  // Authorization
  std::optional<std::string> account;        // X-OpenViking-Account
  std::optional<std::string> user;           // X-OpenViking-User
  std::optional<std::string> role;           // X-OpenViking-Role
  std::optional<std::string> actor_peer;     // X-OpenViking-Actor-Peer

  static AuthHeaders From(const httplib::Request& request);
};

// Routes a ROOT key may call in api_key mode (reference §5.1): these exact
// paths, and the prefixes below (the prefix itself or anything under it).
bool IsRootAllowedRoute(std::string_view path);
// /health, /ready, /metrics: served without an identity.
bool IsUnauthenticatedRoute(std::string_view path);
// /api/v1/admin and everything under it.
bool IsAdminRoute(std::string_view path);
// True for the loopback hosts dev mode may bind: 127.0.0.1, localhost, ::1.
bool IsLoopbackHost(std::string_view host);

class Authenticator {
 public:
  // `mode`: "", "dev", "api_key" or "trusted"; `root_api_key` "" = none.
  // InvalidArgument for an unknown mode, api_key without a root key, or dev
  // (or trusted without a root key) on a host that is not loopback.
  static Result<Authenticator> Create(std::string_view mode, std::string root_api_key,
                                      std::string_view host);

  AuthMode mode() const { return mode_; }
  // True when /api/v1/admin/* can work: a root key is configured (api_key,
  // or trusted with a key).
  bool admin_api_enabled() const { return !root_key_hash_.empty(); }

  // The identity of a request to `path` (see the class comment for the
  // errors: Unauthenticated 401, PermissionDenied 403, InvalidArgument 400,
  // FailedPrecondition 412). An X-OpenViking-Actor-Peer header (trimmed;
  // blank = none) sets Identity::actor_peer, except on the session routes
  // (as OpenViking); one that is not a valid single segment is a 400.
  Result<Identity> Resolve(Db& db, std::string_view path, const AuthHeaders& headers) const;

  // For /health: the identity the request establishes, or nullopt when it
  // has none (no key, a bad key, no identity headers). Never an error.
  std::optional<Identity> Probe(Db& db, const AuthHeaders& headers) const;

 private:
  Authenticator(AuthMode mode, std::string root_key_hash)
      : mode_(mode), root_key_hash_(std::move(root_key_hash)) {}

  // The presented key: X-API-Key when non-empty, else a non-empty bearer
  // token, else nullopt (missing).
  static std::optional<std::string> PresentedKey(const AuthHeaders& headers);
  bool IsRootKey(std::string_view key) const;
  Result<Identity> ResolveCaller(Db& db, std::string_view path, const AuthHeaders& h) const;
  Result<Identity> ResolveApiKey(Db& db, std::string_view path, const AuthHeaders& h) const;
  Result<Identity> ResolveTrusted(Db& db, std::string_view path, const AuthHeaders& h) const;

  AuthMode mode_;
  std::string root_key_hash_;  // hex SHA-256 of the root key; "" = none
};

}  // namespace skald::server
