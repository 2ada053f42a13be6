// White-space helpers of skald_text (text_util.h).

#include "text/text_util.h"

#include <algorithm>

namespace skald {

std::string CollapseSpace(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  // Word by word: each run of other bytes appended at once.
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    while (i < n && IsSpace(text[i])) ++i;
    const size_t word = i;
    while (i < n && !IsSpace(text[i])) ++i;
    if (i == word) break;
    if (!out.empty()) out += ' ';
    out.append(text.data() + word, i - word);
  }
  return out;
}

bool IsCollapsedSpace(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    // (Every IsSpace character is at most ' '.)
    if (static_cast<unsigned char>(text[i]) > ' ' || !IsSpace(text[i])) continue;
    if (text[i] != ' ' || i == 0 || i + 1 == text.size() || text[i + 1] == ' ') return false;
  }
  return true;
}

std::string OneLine(std::string_view s) {
  std::string out(s);
  std::replace(out.begin(), out.end(), '\n', ' ');
  std::replace(out.begin(), out.end(), '\r', ' ');
  return out;
}

}  // namespace skald
