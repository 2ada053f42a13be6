#pragma once

// Wall-clock helpers. Times are carried as int64 nanoseconds since the Unix epoch.
//
// Thread safety: pure functions (NowNanos reads the system clock).

#include <cstdint>
#include <string>

namespace skald {

int64_t NowNanos();

// "2026-11-30T03:32:01.123Z" (UTC, millisecond precision) — the agent `ls` format.
std::string FormatIsoMillis(int64_t nanos);

// "2026-11-30T03:32:01Z" (UTC, RFC 3339, whole seconds) — the original `ls` format.
std::string FormatRfc3339(int64_t nanos);

}  // namespace skald
