#pragma once

// OpenViking API routes that Skald does not build (yet): a request for one
// answers 501 UNIMPLEMENTED, which OpenViking's clients raise as
// "unimplemented", instead of 404 NOT_FOUND, which they raise as "resource
// not found" (a missing URI). Peripheral routes of the reference
// (shared/reference/openviking-api.md §2); docs/api.md lists them.
//
// Thread safety: pure function.

#include <string_view>

namespace skald::server {

// The message of their 501.
inline constexpr std::string_view kUnbuiltRouteMessage =
    "This OpenViking API route is not implemented by Skald";

// Whether `method` `path` (no query) is such a route.
bool IsUnbuiltOpenVikingRoute(std::string_view method, std::string_view path);

}  // namespace skald::server
