#include "uri/access.h"

#include <string>

namespace skald {
namespace {

constexpr std::string_view kWatchTaskControlUri = "viking://resources/.watch_tasks.json";

bool IsSharedAgentTree(std::string_view name) {
  return name == "skills" || name == "endpoints" || name == "tools" || name == "payments";
}

// Scopes whose second segment is a user id: a user sees only their own.
bool IsPerUserScope(std::string_view scope) { return scope == "user" || scope == "temp"; }

Status Denied(const VikingUri& uri, std::string why) {
  return Status::PermissionDenied(std::move(why)).WithDetail("resource", uri.str());
}

}  // namespace

Status AbsentStatus(const VikingUri& uri) {
  return Status::NotFound("File not found: " + uri.str())
      .WithDetail("type", "file")
      .WithDetail("resource", uri.str());
}

// True when `uri` lies in the space of a peer other than the caller's actor
// peer (user/{uid}/peers/{other}/...); never without an actor peer.
bool InOtherPeersSpace(const Identity& who, const VikingUri& uri) {
  if (who.actor_peer.empty()) return false;
  const std::vector<std::string>& s = uri.segments();
  return s.size() >= 4 && s[0] == "user" && s[2] == "peers" && s[3] != who.actor_peer;
}

bool IsAccessible(const Identity& who, const VikingUri& uri) {
  if (InOtherPeersSpace(who, uri)) return false;
  if (who.role == Role::kRoot || uri.is_root()) return true;
  const std::vector<std::string>& s = uri.segments();
  const std::string_view scope = s[0];
  if (scope == "resources") return uri.str() != kWatchTaskControlUri;
  // The account-shared agent trees; a legacy `agent/{id}` tree is the
  // administrators' (ROOT, and the account's ADMINs, who can still read it
  // and clean it up), never a USER's (OpenViking refuses another agent's).
  if (scope == "agent") {
    return s.size() == 1 || IsSharedAgentTree(s[1]) || who.role == Role::kAdmin;
  }
  // The `user` and `temp` containers are visible; below them only one's own.
  if (IsPerUserScope(scope)) return s.size() == 1 || s[1] == who.user;
  return false;
}

std::vector<VikingUri> VisibleSubtrees(const Identity& who, const VikingUri& base) {
  if (!IsAccessible(who, base)) return {};
  if (who.role == Role::kRoot) return {base};
  // Inside `resources`, a shared agent tree or the caller's own space: all
  // of it.
  if (!base.is_root() && (base.scope() == "resources" || base.depth() >= 2)) return {base};
  // `viking://`, `viking://user`, `viking://temp`, `viking://agent`: only
  // the caller's parts.
  std::vector<VikingUri> parts;
  for (VikingUri part :
       {VikingUri::FromSegments({"resources"}), VikingUri::FromSegments({"agent", "skills"}),
        VikingUri::FromSegments({"agent", "endpoints"}), VikingUri::FromSegments({"agent", "tools"}),
        VikingUri::FromSegments({"agent", "payments"}), VikingUri::FromSegments({"user", who.user}),
        VikingUri::FromSegments({"temp", who.user})}) {
    if (base.Contains(part)) parts.push_back(std::move(part));
  }
  return parts;
}

bool IsOwner(const Identity& who, std::string_view account, std::string_view user) {
  return who.account == account && who.user == user;
}

bool CanSeeOwned(const Identity& who, std::string_view account, std::string_view user) {
  return who.role == Role::kRoot || IsOwner(who, account, user);
}

Status CheckReadAccess(const Identity& who, const VikingUri& uri) {
  if (IsAccessible(who, uri)) return Status::Ok();
  // Decided by the URI alone (whose space, which namespace), never by what
  // is stored there: the answer is the same whether the path exists.
  return Denied(uri, "Access denied for " + uri.str());
}

Status CheckWriteAccess(const Identity& who, const VikingUri& uri) {
  SKALD_RETURN_IF_ERROR(CheckReadAccess(who, uri));
  const std::vector<std::string>& s = uri.segments();
  if (s.empty()) {
    return Denied(uri, "Cannot write viking:// itself; write under a scope such as "
                       "viking://resources");
  }
  if (s[0] == "user" && s.size() == 1) {
    return Denied(uri, "Cannot write the viking://user container; use viking://~/... or "
                       "viking://user/{user_id}/...");
  }
  if (s[0] == "session") {
    return Denied(uri, "Cannot write " + uri.str() +
                           ": legacy session URIs are read-only; use the user's own namespace");
  }
  if (s[0] == "agent") {
    if (s.size() == 1) return Denied(uri, "Cannot write the viking://agent root");
    if (!IsSharedAgentTree(s[1])) {
      return Denied(uri, "viking://agent/" + s[1] +
                             " is a deprecated read-only agent namespace; use "
                             "viking://user/{user_id}/peers/" + s[1] + " instead");
    }
  }
  if (who.role != Role::kRoot && s[0] == "temp" && s.size() == 1) {
    return Denied(uri, "viking://temp is read-only for non-root callers");
  }
  return Status::Ok();
}

bool HoldsOtherPeers(const Identity& who, const VikingUri& uri) {
  if (who.actor_peer.empty()) return false;
  const std::vector<std::string>& s = uri.segments();
  // viking://, viking://user, viking://user/{uid}, viking://user/{uid}/peers.
  if (s.empty()) return true;
  if (s[0] != "user") return false;
  return s.size() <= 2 || (s.size() == 3 && s[2] == "peers");
}

Status CheckSubtreeAccess(const Identity& who, const VikingUri& uri) {
  if (!HoldsOtherPeers(who, uri)) return Status::Ok();
  return Denied(uri, "Cannot change " + uri.str() + " as peer '" + who.actor_peer +
                         "': it holds other peers' spaces");
}

Status CheckDeleteAccess(const Identity& who, const VikingUri& uri) {
  SKALD_RETURN_IF_ERROR(CheckReadAccess(who, uri));
  SKALD_RETURN_IF_ERROR(CheckSubtreeAccess(who, uri));
  const std::vector<std::string>& s = uri.segments();
  if (s.empty()) return Denied(uri, "Cannot delete viking:// itself");
  if (s.size() == 1 && (s[0] == "user" || s[0] == "agent")) {
    return Denied(uri, "Cannot delete the " + uri.str() + " container; delete a path inside it");
  }
  if (who.role != Role::kRoot) {
    const bool namespace_root = (s.size() == 1 && s[0] == "resources") ||
                                (s.size() == 2 && s[0] == "user");
    if (namespace_root) {
      return Denied(uri, "Deleting the namespace root " + uri.str() +
                             " requires ROOT; delete a path inside it");
    }
    if (s.size() == 1 && s[0] == "temp") {
      return Denied(uri, "viking://temp is read-only for non-root callers");
    }
  }
  return Status::Ok();
}

}  // namespace skald
