#include "uri/access.h"

#include <string>

namespace skald {
namespace {

constexpr std::string_view kWatchTaskControlUri = "viking://resources/.watch_tasks.json";

bool IsSharedAgentTree(std::string_view name) {
  return name == "skills" || name == "endpoints" || name == "tools" || name == "payments";
}

Status Denied(const VikingUri& uri, std::string why) {
  return Status::PermissionDenied(std::move(why)).WithDetail("resource", uri.str());
}

}  // namespace

bool IsAccessible(const Identity& who, const VikingUri& uri) {
  if (who.role == Role::kRoot || uri.is_root()) return true;
  const std::vector<std::string>& s = uri.segments();
  const std::string_view scope = s[0];
  if (scope == "resources") return uri.str() != kWatchTaskControlUri;
  if (scope == "agent") return true;
  // The `user` and `temp` containers are visible; below them only one's own.
  if (scope == "user" || scope == "temp") return s.size() == 1 || s[1] == who.user;
  return false;
}

Status CheckReadAccess(const Identity& who, const VikingUri& uri) {
  if (IsAccessible(who, uri)) return Status::Ok();
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

Status CheckDeleteAccess(const Identity& who, const VikingUri& uri) {
  SKALD_RETURN_IF_ERROR(CheckReadAccess(who, uri));
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
