#pragma once

// Path variables: `{namespace:key}` placeholders in URI text, resolved before
// the URI is validated (reference §6 "Path variables").
//
// The only namespace is `calendar`, computed in UTC from the given instant:
//   today      2026/05/07      yesterday  2026/05/06      tomorrow  2026/05/08
//   year       2026            month      05              day       07
//   ym         2026/05         quarter    Q2              yq        2026/Q2
//   week       19 (ISO week, two digits)
//   yw         2026/w19 (ISO week-numbering year, so 2027-01-01 gives 2026/w53)
// These formats follow OpenViking's CalendarVariableProvider; OpenViking uses
// the server's local time, Skald uses UTC so results do not depend on the
// host's time zone.
//
// Thread safety: pure functions (reading the system clock when `now` is the
// epoch).

#include <chrono>
#include <string>
#include <string_view>

#include "skald/result.h"

namespace skald {

// True when `text` contains at least one `{namespace:key}` placeholder, where
// namespace and key are non-empty runs of [A-Za-z0-9_]. Other braces are
// ordinary characters.
bool HasPathVariables(std::string_view text);

// Replaces every `{namespace:key}` placeholder in `text`. `now` is the instant
// calendar values are computed from; the epoch value means "read the system
// clock". Substitution is a single pass: text produced by a substitution is
// not scanned again, but if the result still contains a placeholder (e.g.
// "{{calendar:year}x:y}" becomes "{2026x:y}") that is reported as unresolved
// too, so a resolved string never holds a placeholder.
// Errors: InvalidArgument "Cannot resolve variables in URI: {a:b}, {c:d}"
// (sorted, deduplicated) when a namespace or key is unknown.
Result<std::string> ResolvePathVariables(std::string_view text,
                                         std::chrono::system_clock::time_point now);

}  // namespace skald
