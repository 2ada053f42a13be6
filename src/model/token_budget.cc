#include "model/token_budget.h"

#include <vector>

#include "common/strings.h"

namespace skald {
namespace {

// Decodes the code point at text[i]; sets *len to its byte length (1 for
// an invalid byte, which then counts as one ordinary code point).
uint32_t DecodeAt(std::string_view text, size_t i, size_t* len) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  size_t n = b0 < 0x80           ? 1
             : (b0 >> 5) == 0x6  ? 2
             : (b0 >> 4) == 0xE  ? 3
             : (b0 >> 3) == 0x1E ? 4
                                 : 0;
  if (n == 0 || i + n > text.size()) {
    *len = 1;
    return 0xFFFD;
  }
  uint32_t cp = n == 1 ? b0 : n == 2 ? (b0 & 0x1F) : n == 3 ? (b0 & 0x0F) : (b0 & 0x07);
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xC0) != 0x80) {
      *len = 1;
      return 0xFFFD;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  *len = n;
  return cp;
}

// Quarter-token units of one code point (OpenViking's weights).
int Units(uint32_t cp) {
  if (cp >= 0x4E00 && cp <= 0x9FFF) return 6;
  if (cp < 0x1100) return 1;
  if (cp <= 0x11FF || (cp >= 0x3000 && cp <= 0x30FF) || (cp >= 0x3130 && cp <= 0x318F) ||
      (cp >= 0x31F0 && cp <= 0x31FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
      (cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0xF900 && cp <= 0xFAFF) ||
      (cp >= 0xFF00 && cp <= 0xFFEF) || (cp >= 0x20000 && cp <= 0x2EBEF)) {
    return 6;
  }
  if (cp > 0xFFFF) return 8;
  return 1;
}

struct CodePoint {
  size_t begin;
  int units;
};

std::vector<CodePoint> CodePoints(std::string_view text) {
  std::vector<CodePoint> out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t len = 1;
    const uint32_t cp = DecodeAt(text, i, &len);
    out.push_back({i, Units(cp)});
    i += len;
  }
  return out;
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t' ||
                        s.back() == '\r' || s.back() == '\f' || s.back() == '\v')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t' ||
                        s.front() == '\r' || s.front() == '\f' || s.front() == '\v')) {
    s.remove_prefix(1);
  }
  return s;
}

}  // namespace

int64_t EstimateTokens(std::string_view text) {
  int64_t units = 0;
  for (size_t i = 0; i < text.size();) {
    size_t len = 1;
    units += Units(DecodeAt(text, i, &len));
    i += len;
  }
  return (units + 3) / 4;
}

std::string_view TokenBudgetPrefix(std::string_view text, int64_t max_tokens) {
  if (max_tokens <= 0) return text.substr(0, 0);
  const int64_t max_units = max_tokens * 4;
  // No code point weighs more than 2 units per byte (Units: 6 for 3 bytes,
  // 8 for 4), so a text this short fits without being decoded.
  if (static_cast<int64_t>(text.size()) <= max_units / 2) return text;
  int64_t units = 0;
  for (size_t i = 0; i < text.size();) {
    size_t len = 1;
    const int u = Units(DecodeAt(text, i, &len));
    if (units + u > max_units) return text.substr(0, i);
    units += u;
    i += len;
  }
  return text;
}

std::string TruncateToTokenBudget(std::string_view text, int64_t max_tokens,
                                  std::string_view marker) {
  if (text.empty() || EstimateTokens(text) <= max_tokens) return std::string(text);
  if (max_tokens <= 0) return "";
  int64_t marker_tokens = EstimateTokens(marker);
  if (marker_tokens >= max_tokens) {
    marker = "";
    marker_tokens = 0;
  }
  const int64_t content = max_tokens - marker_tokens;
  const int64_t head_tokens = content * 3 / 4;
  const int64_t tail_tokens = content - head_tokens;
  const std::string_view head = TokenBudgetPrefix(text, head_tokens);
  const std::string_view rest = text.substr(head.size());
  const std::vector<CodePoint> points = CodePoints(rest);
  size_t tail_begin = rest.size();
  int64_t units = 0;
  for (size_t k = points.size(); k > 0; --k) {
    if (units + points[k - 1].units > tail_tokens * 4) break;
    units += points[k - 1].units;
    tail_begin = points[k - 1].begin;
  }
  std::string out(TrimRight(head));
  out += marker;
  out += TrimLeft(rest.substr(tail_begin));
  return out;
}

}  // namespace skald
