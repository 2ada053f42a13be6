#pragma once

// UnifiedDiff: the line diff of two texts in unified format (as `diff -u` and
// git print it), for snapshot diffs (service/snapshot_ops.h).
//
// Lines are compared whole, their '\n' included, so a last line without one
// differs from the same line with one ("\ No newline at end of file" marks
// it, as git does). The edit script is the shortest (Myers' algorithm) while
// the two texts differ in at most kMaxExactEdits lines past their common
// start and end; beyond that the differing middle is shown as removed, then
// added (a correct, not the shortest, diff). Hunks carry 3 lines of context
// and are headed "@@ -a,b +c,d @@" with Python difflib's ranges (",1" left
// out, an empty side at the line before it).
//
// Thread safety: pure functions.

#include <cstddef>
#include <string>
#include <string_view>

#include "skald/result.h"

namespace skald {

struct UnifiedDiffLimits {
  size_t max_lines = 100000;  // per side
  size_t max_output_bytes = size_t{20} << 20;
};

// Past which the shortest script is not searched for (see above).
inline constexpr size_t kMaxExactEdits = 2048;

// "--- <from_label>\n+++ <to_label>\n" and the hunks turning `before` into
// `after`; "" when they are equal. ResourceExhausted (detail limit_lines or
// limit_bytes) when a side has more than max_lines lines or the diff would
// pass max_output_bytes.
Result<std::string> UnifiedDiff(std::string_view before, std::string_view after,
                                std::string_view from_label, std::string_view to_label,
                                const UnifiedDiffLimits& limits = {});

}  // namespace skald
