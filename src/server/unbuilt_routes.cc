#include "server/unbuilt_routes.h"

#include <array>

namespace skald::server {
namespace {

struct UnbuiltRoute {
  std::string_view methods;  // space-separated; "*" = any
  // Segments separated by '/': "*" matches one segment, a final "**" the
  // rest of the path (none included).
  std::string_view pattern;
};

constexpr std::array<UnbuiltRoute, 16> kUnbuilt = {{
    {"*", "/mcp"},  // OpenViking's MCP server (Streamable HTTP)
    {"*", "/api/v1/acl/**"},
    {"*", "/api/v1/user-settings/**"},
    {"*", "/api/v1/stats/**"},
    {"*", "/api/v1/console/**"},
    {"*", "/api/v1/agent-evolution/**"},
    {"*", "/api/v1/openviking-assets/**"},
    {"*", "/api/v1/auth/**"},  // OAuth
    {"*", "/api/v1/debug/vector/**"},
    {"*", "/api/v1/system/sync/**"},
    {"POST", "/api/v1/content/batch-write"},
    {"POST", "/api/v1/admin/migrate"},
    {"*", "/api/v1/admin/agent-evolution"},
    {"*", "/api/v1/admin/accounts/*/settings"},
    {"*", "/api/v1/admin/accounts/*/users/*/settings"},
    {"*", "/.well-known/oauth-protected-resource"},
}};

bool HasMethod(std::string_view methods, std::string_view method) {
  if (methods == "*") return true;
  while (!methods.empty()) {
    const size_t space = methods.find(' ');
    if (methods.substr(0, space) == method) return true;
    if (space == std::string_view::npos) break;
    methods.remove_prefix(space + 1);
  }
  return false;
}

// The next segment of `*s` (which starts with '/'), removed from it.
std::string_view NextSegment(std::string_view* s) {
  s->remove_prefix(1);
  const size_t end = s->find('/');
  std::string_view segment = s->substr(0, end);
  s->remove_prefix(end == std::string_view::npos ? s->size() : end);
  return segment;
}

bool Matches(std::string_view pattern, std::string_view path) {
  while (!pattern.empty()) {
    if (pattern == "/**") return true;
    if (path.empty() || path.front() != '/') return false;
    const std::string_view want = NextSegment(&pattern);
    const std::string_view got = NextSegment(&path);
    if (want != "*" ? want != got : got.empty()) return false;
  }
  return path.empty();
}

}  // namespace

bool IsUnbuiltOpenVikingRoute(std::string_view method, std::string_view path) {
  for (const UnbuiltRoute& r : kUnbuilt) {
    if (HasMethod(r.methods, method) && Matches(r.pattern, path)) return true;
  }
  return false;
}

}  // namespace skald::server
