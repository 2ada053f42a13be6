// White-space helpers of skald_text (text_util.h).

#include "text/text_util.h"

#include <algorithm>

namespace skald {

std::string CollapseSpace(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool space = false;
  for (char c : text) {
    if (IsSpace(c)) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
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
