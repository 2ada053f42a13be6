#include "uri/path_variables.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>
#include <vector>

namespace skald {
namespace {

namespace chr = std::chrono;

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// One `{namespace:key}` occurrence in a string.
struct Placeholder {
  size_t begin = 0;  // offset of '{'
  size_t end = 0;    // one past '}'
  std::string_view ns;
  std::string_view key;
};

// Finds the first placeholder at or after `from`. Mirrors the regex
// `\{([A-Za-z0-9_]+):([A-Za-z0-9_]+)\}` scanned left to right.
std::optional<Placeholder> FindPlaceholder(std::string_view text, size_t from) {
  for (size_t open = text.find('{', from); open != std::string_view::npos;
       open = text.find('{', open + 1)) {
    size_t i = open + 1;
    size_t ns_begin = i;
    while (i < text.size() && IsNameChar(text[i])) ++i;
    if (i == ns_begin || i >= text.size() || text[i] != ':') continue;
    size_t ns_end = i++;
    size_t key_begin = i;
    while (i < text.size() && IsNameChar(text[i])) ++i;
    if (i == key_begin || i >= text.size() || text[i] != '}') continue;
    return Placeholder{open, i + 1, text.substr(ns_begin, ns_end - ns_begin),
                       text.substr(key_begin, i - key_begin)};
  }
  return std::nullopt;
}

std::string TwoDigits(unsigned v) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "%02u", v % 100);
  return buf;
}

std::string DatePath(chr::sys_days day) {
  chr::year_month_day ymd{day};
  return std::to_string(static_cast<int>(ymd.year())) + "/" +
         TwoDigits(static_cast<unsigned>(ymd.month())) + "/" +
         TwoDigits(static_cast<unsigned>(ymd.day()));
}

// Calendar values for one UTC day, computed once per resolution.
class Calendar {
 public:
  explicit Calendar(chr::system_clock::time_point now)
      : day_(chr::floor<chr::days>(now)), ymd_(day_) {
    // ISO 8601: the week belongs to the year that holds its Thursday.
    unsigned c = chr::weekday{day_}.c_encoding();  // 0 = Sunday
    unsigned iso_weekday = c == 0 ? 7 : c;          // 1 = Monday .. 7 = Sunday
    chr::sys_days thursday = day_ + chr::days{4 - static_cast<int>(iso_weekday)};
    chr::year iso_year = chr::year_month_day{thursday}.year();
    chr::sys_days jan1 = chr::year_month_day{iso_year, chr::January, chr::day{1}};
    iso_year_ = static_cast<int>(iso_year);
    iso_week_ = static_cast<unsigned>((thursday - jan1).count() / 7 + 1);
  }

  std::optional<std::string> Lookup(std::string_view key) const {
    const std::string year = std::to_string(static_cast<int>(ymd_.year()));
    const unsigned month = static_cast<unsigned>(ymd_.month());
    const std::string quarter = "Q" + std::to_string((month - 1) / 3 + 1);
    if (key == "today") return DatePath(day_);
    if (key == "yesterday") return DatePath(day_ - chr::days{1});
    if (key == "tomorrow") return DatePath(day_ + chr::days{1});
    if (key == "year") return year;
    if (key == "month") return TwoDigits(month);
    if (key == "day") return TwoDigits(static_cast<unsigned>(ymd_.day()));
    if (key == "ym") return year + "/" + TwoDigits(month);
    if (key == "quarter") return quarter;
    if (key == "yq") return year + "/" + quarter;
    if (key == "week") return TwoDigits(iso_week_);
    if (key == "yw") return std::to_string(iso_year_) + "/w" + TwoDigits(iso_week_);
    return std::nullopt;
  }

 private:
  chr::sys_days day_;
  chr::year_month_day ymd_;
  int iso_year_ = 0;
  unsigned iso_week_ = 0;
};

Status Unresolved(const std::set<std::string>& names) {
  std::string msg = "Cannot resolve variables in URI: ";
  bool first = true;
  for (const std::string& name : names) {
    if (!first) msg += ", ";
    msg += name;
    first = false;
  }
  return Status::InvalidArgument(std::move(msg));
}

}  // namespace

bool HasPathVariables(std::string_view text) { return FindPlaceholder(text, 0).has_value(); }

Result<std::string> ResolvePathVariables(std::string_view text,
                                         std::chrono::system_clock::time_point now) {
  std::optional<Placeholder> next = FindPlaceholder(text, 0);
  if (!next) return std::string(text);
  if (now == chr::system_clock::time_point{}) now = chr::system_clock::now();
  const Calendar calendar(now);

  std::string out;
  out.reserve(text.size());
  std::set<std::string> unresolved;
  size_t copied = 0;
  for (; next; next = FindPlaceholder(text, next->end)) {
    out.append(text.substr(copied, next->begin - copied));
    copied = next->end;
    std::optional<std::string> value;
    if (next->ns == "calendar") value = calendar.Lookup(next->key);
    if (!value) {
      unresolved.insert(std::string(text.substr(next->begin, next->end - next->begin)));
      continue;
    }
    out += *value;
  }
  out.append(text.substr(copied));
  if (!unresolved.empty()) return Unresolved(unresolved);

  // A substitution can complete a placeholder with the text around it; such
  // leftovers would be resolved (or rejected) by the next parse, breaking
  // canonical round-trips, so they are errors here.
  for (auto left = FindPlaceholder(out, 0); left; left = FindPlaceholder(out, left->end)) {
    unresolved.insert(out.substr(left->begin, left->end - left->begin));
  }
  if (!unresolved.empty()) return Unresolved(unresolved);
  return out;
}

}  // namespace skald
