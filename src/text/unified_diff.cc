// Line diffs in unified format (unified_diff.h).

#include "text/unified_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace skald {
namespace {

constexpr size_t kContext = 3;

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    end = end == std::string_view::npos ? text.size() : end + 1;
    lines.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return lines;
}

enum class Op : char { kKeep = ' ', kRemove = '-', kAdd = '+' };

// The shortest edit script turning a[0..n) into b[0..m) (Myers), or nullopt
// past `max_edits`. Each step: an op and, for keep/remove, a's line; for
// add, b's line.
bool ShortestScript(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b,
                    size_t max_edits, std::vector<Op>* ops) {
  const int n = static_cast<int>(a.size());
  const int m = static_cast<int>(b.size());
  const int max = std::min(n + m, static_cast<int>(max_edits));
  const int offset = max + 1;
  std::vector<int> v(2 * max + 3, 0);
  std::vector<std::vector<int>> trace;
  int found = -1;
  for (int d = 0; d <= max && found < 0; ++d) {
    trace.push_back(std::vector<int>(v.begin() + offset - d, v.begin() + offset + d + 1));
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
                  ? v[offset + k + 1]
                  : v[offset + k - 1] + 1;
      int y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return false;
  // Walk back through the saved frontiers (trace[d] holds V before step d,
  // for k in [-d, d]).
  std::vector<Op> reversed;
  int x = n, y = m;
  for (int d = found; d > 0; --d) {
    const std::vector<int>& prev = trace[d];  // V after step d-1, k in [-d, d]
    auto at = [&](int k) { return prev[k + d]; };
    const int k = x - y;
    const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
    const int prev_k = down ? k + 1 : k - 1;
    const int prev_x = at(prev_k);
    const int prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) {
      reversed.push_back(Op::kKeep);
      --x, --y;
    }
    reversed.push_back(down ? Op::kAdd : Op::kRemove);
    x = prev_x, y = prev_y;
  }
  while (x > 0 && y > 0) {
    reversed.push_back(Op::kKeep);
    --x, --y;
  }
  ops->assign(reversed.rbegin(), reversed.rend());
  return true;
}

std::string Range(size_t start, size_t length) {
  // difflib's unified ranges: 1-based, ",1" left out, an empty range at
  // the line before it.
  if (length == 1) return fmt::format("{}", start + 1);
  return fmt::format("{},{}", length == 0 ? start : start + 1, length);
}

}  // namespace

Result<std::string> UnifiedDiff(std::string_view before, std::string_view after,
                                std::string_view from_label, std::string_view to_label,
                                const UnifiedDiffLimits& limits) {
  if (before == after) return std::string();
  const std::vector<std::string_view> a = Lines(before);
  const std::vector<std::string_view> b = Lines(after);
  if (a.size() > limits.max_lines || b.size() > limits.max_lines) {
    return Status::ResourceExhausted(
               fmt::format("snapshot diff: more than {} lines", limits.max_lines))
        .WithDetail("limit_lines", std::to_string(limits.max_lines));
  }
  // The common start and end, then the middle.
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head &&
         a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) {
    ++tail;
  }
  const std::vector<std::string_view> mid_a(a.begin() + head, a.end() - tail);
  const std::vector<std::string_view> mid_b(b.begin() + head, b.end() - tail);
  std::vector<Op> ops(head, Op::kKeep);
  std::vector<Op> middle;
  if (!ShortestScript(mid_a, mid_b, kMaxExactEdits, &middle)) {
    middle.assign(mid_a.size(), Op::kRemove);
    middle.insert(middle.end(), mid_b.size(), Op::kAdd);
  }
  ops.insert(ops.end(), middle.begin(), middle.end());
  ops.insert(ops.end(), tail, Op::kKeep);

  // Each op's line numbers in a and b.
  std::vector<size_t> ia(ops.size() + 1), ib(ops.size() + 1);
  for (size_t i = 0; i < ops.size(); ++i) {
    ia[i + 1] = ia[i] + (ops[i] != Op::kAdd ? 1 : 0);
    ib[i + 1] = ib[i] + (ops[i] != Op::kRemove ? 1 : 0);
  }
  std::string out = fmt::format("--- {}\n+++ {}\n", from_label, to_label);
  size_t i = 0;
  while (i < ops.size()) {
    while (i < ops.size() && ops[i] == Op::kKeep) ++i;
    if (i == ops.size()) break;
    // A hunk: from kContext keeps before the change to kContext keeps after
    // the last change that is not followed by more than 2 * kContext keeps.
    const size_t begin = i >= kContext ? i - kContext : 0;
    size_t end = i;
    while (end < ops.size()) {
      size_t keeps = 0;
      size_t j = end;
      while (j < ops.size() && ops[j] != Op::kKeep) ++j;
      while (j + keeps < ops.size() && ops[j + keeps] == Op::kKeep) ++keeps;
      end = j;
      if (j + keeps == ops.size() || keeps > 2 * kContext) {
        end = std::min(ops.size(), j + kContext);
        break;
      }
      end = j + keeps;
    }
    out += fmt::format("@@ -{} +{} @@\n", Range(ia[begin], ia[end] - ia[begin]),
                       Range(ib[begin], ib[end] - ib[begin]));
    for (size_t k = begin; k < end; ++k) {
      const std::string_view line = ops[k] == Op::kAdd ? b[ib[k]] : a[ia[k]];
      out.push_back(static_cast<char>(ops[k]));
      out.append(line);
      if (!line.ends_with('\n')) out += "\n\\ No newline at end of file\n";
    }
    if (out.size() > limits.max_output_bytes) {
      return Status::ResourceExhausted(
                 fmt::format("snapshot diff: more than {} bytes", limits.max_output_bytes))
          .WithDetail("limit_bytes", std::to_string(limits.max_output_bytes));
    }
    i = end;
  }
  return out;
}

}  // namespace skald
