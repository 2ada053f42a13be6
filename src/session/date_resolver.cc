#include "session/date_resolver.h"

#include <array>
#include <cctype>

#include <fmt/format.h>

namespace skald {
namespace {

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

constexpr std::array<std::string_view, 12> kMonths = {"january", "february", "march",
                                                      "april",   "may",      "june",
                                                      "july",    "august",   "september",
                                                      "october", "november", "december"};
constexpr std::array<std::string_view, 7> kWeekdays = {"monday", "tuesday",  "wednesday",
                                                       "thursday", "friday", "saturday",
                                                       "sunday"};

// Month number (1-12) for a full or three-letter English month name ("sept"
// too), 0 otherwise.
int MonthNumber(std::string_view w) {
  for (size_t i = 0; i < kMonths.size(); ++i) {
    if (w == kMonths[i]) return static_cast<int>(i) + 1;
    // "may" is both; short forms only for the others to avoid "mar", "jun" noise.
    if (w.size() == 3 && kMonths[i].substr(0, 3) == w && w != "mar") return static_cast<int>(i) + 1;
  }
  if (w == "sept") return 9;
  return 0;
}

// 0-6 for a weekday name or its short form ("tues", "fri"), -1 otherwise.
int WeekdayNumber(std::string_view w) {
  static constexpr std::array<std::string_view, 10> kShort = {
      "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun"};
  static constexpr std::array<int, 10> kShortDay = {0, 1, 1, 2, 3, 3, 3, 4, 5, 6};
  for (size_t i = 0; i < kWeekdays.size(); ++i) {
    if (w == kWeekdays[i]) return static_cast<int>(i);
  }
  for (size_t i = 0; i < kShort.size(); ++i) {
    if (w == kShort[i]) return kShortDay[i];
  }
  return -1;
}

bool AllDigits(std::string_view w) {
  if (w.empty()) return false;
  for (char c : w) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

int ToInt(std::string_view w) {
  int v = 0;
  for (char c : w) {
    v = v * 10 + (c - '0');
    if (v > 100000) return -1;
  }
  return v;
}

// "8", "8th", "1st", "22nd", "3rd" → day number; 0 when not a day.
int DayNumber(std::string_view w) {
  size_t n = 0;
  while (n < w.size() && std::isdigit(static_cast<unsigned char>(w[n]))) ++n;
  if (n == 0 || n > 2) return 0;
  std::string_view suffix = w.substr(n);
  if (!suffix.empty() && suffix != "st" && suffix != "nd" && suffix != "rd" && suffix != "th") {
    return 0;
  }
  int d = ToInt(w.substr(0, n));
  return d >= 1 && d <= 31 ? d : 0;
}

// Small counts: digits, "one".."twelve", "a"/"an", "couple".
int CountWord(std::string_view w) {
  static constexpr std::array<std::string_view, 13> kNums = {
      "zero", "one", "two",   "three", "four",   "five",  "six",
      "seven", "eight", "nine", "ten", "eleven", "twelve"};
  for (size_t i = 0; i < kNums.size(); ++i) {
    if (w == kNums[i]) return static_cast<int>(i);
  }
  if (w == "a" || w == "an") return 1;
  if (AllDigits(w) && w.size() <= 3) return ToInt(w);
  return -1;
}

struct Word {
  std::string text;  // lower-case
  size_t begin = 0;
  size_t end = 0;
};

// Lower-case ASCII words (letters and digits); every other byte separates.
// Also splits "2023-05-08"-style ISO dates as one word (digits and dashes).
std::vector<Word> Words(std::string_view text) {
  std::vector<Word> out;
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (!std::isalnum(c)) {
      ++i;
      continue;
    }
    size_t j = i;
    std::string w;
    while (j < text.size()) {
      unsigned char d = static_cast<unsigned char>(text[j]);
      // Digits joined by dashes ("2023-05-08") stay one word.
      bool iso_dash = d == '-' && !w.empty() && std::isdigit(static_cast<unsigned char>(w.back())) &&
                      std::isdigit(static_cast<unsigned char>(w[0])) && j + 1 < text.size() &&
                      std::isdigit(static_cast<unsigned char>(text[j + 1]));
      if (!std::isalnum(d) && !iso_dash) break;
      w.push_back(static_cast<char>(std::tolower(d)));
      ++j;
    }
    out.push_back({std::move(w), i, j});
    i = j;
  }
  return out;
}

CivilDate WeekStart(const CivilDate& d) { return d.AddDays(-d.Weekday()); }

// Parses "YYYY-MM-DD" (exactly) into `out`.
bool ParseIsoDate(std::string_view w, CivilDate* out) {
  if (w.size() != 10 || w[4] != '-' || w[7] != '-') return false;
  if (!AllDigits(w.substr(0, 4)) || !AllDigits(w.substr(5, 2)) || !AllDigits(w.substr(8, 2))) {
    return false;
  }
  CivilDate d{ToInt(w.substr(0, 4)), ToInt(w.substr(5, 2)), ToInt(w.substr(8, 2))};
  if (!d.IsValid()) return false;
  *out = d;
  return true;
}

bool IsYear(std::string_view w) { return w.size() == 4 && AllDigits(w) && w[0] >= '1' && w[0] <= '2'; }

// Tries to match a date expression starting at words[i]; on success fills
// `out` (span included) and returns the number of words consumed.
size_t MatchAt(const std::vector<Word>& words, size_t i, const CivilDate& ref, ResolvedDate* out) {
  auto w = [&](size_t k) -> std::string_view {
    return i + k < words.size() ? std::string_view(words[i + k].text) : std::string_view();
  };
  auto done = [&](CivilDate d, DateGranularity g, size_t n) {
    out->date = d;
    out->granularity = g;
    out->begin = words[i].begin;
    out->end = words[i + n - 1].end;
    return n;
  };
  std::string_view w0 = w(0);
  if (w0 == "today" || w0 == "tonight") return done(ref, DateGranularity::kDay, 1);
  if (w0 == "yesterday") return done(ref.AddDays(-1), DateGranularity::kDay, 1);
  if (w0 == "tomorrow") return done(ref.AddDays(1), DateGranularity::kDay, 1);
  if (w0 == "this" && (w(1) == "morning" || w(1) == "afternoon" || w(1) == "evening")) {
    return done(ref, DateGranularity::kDay, 2);
  }
  if (w0 == "last" && w(1) == "night") return done(ref.AddDays(-1), DateGranularity::kDay, 2);

  // last/this/next/on <weekday|weekend|week|month|year|monthname>
  if (w0 == "last" || w0 == "this" || w0 == "next" || w0 == "on" || w0 == "past") {
    int shift = w0 == "last" || w0 == "past" ? -1 : (w0 == "next" ? 1 : 0);
    std::string_view w1 = w(1);
    int wd = WeekdayNumber(w1);
    if (wd >= 0) {
      CivilDate d;
      if (shift < 0) {
        int back = (ref.Weekday() - wd + 7) % 7;
        d = ref.AddDays(-(back == 0 ? 7 : back));
      } else if (shift > 0) {
        int fwd = (wd - ref.Weekday() + 7) % 7;
        d = ref.AddDays(fwd == 0 ? 7 : fwd);
      } else {
        d = WeekStart(ref).AddDays(wd);
      }
      return done(d, DateGranularity::kDay, 2);
    }
    if (w0 == "on") return 0;
    if (w1 == "weekend") {
      return done(WeekStart(ref).AddDays(5 + 7 * shift), DateGranularity::kWeekend, 2);
    }
    if (w1 == "week") return done(WeekStart(ref).AddDays(7 * shift), DateGranularity::kWeek, 2);
    if (w1 == "month") {
      CivilDate first{ref.year, ref.month, 1};
      return done(first.AddMonths(shift), DateGranularity::kMonth, 2);
    }
    if (w1 == "year") return done({ref.year + shift, 1, 1}, DateGranularity::kYear, 2);
    int m = MonthNumber(w1);
    if (m > 0 && (w1.size() > 3 || w1 == "may")) {
      int year = ref.year + (shift < 0 && m >= ref.month ? -1 : 0) +
                 (shift > 0 && m <= ref.month ? 1 : 0);
      return done({year, m, 1}, DateGranularity::kMonth, 2);
    }
    return 0;
  }

  // N units ago / in N units / a couple of units ago
  {
    size_t k = 0;
    bool in_future = false;
    if (w0 == "in") {
      in_future = true;
      k = 1;
    }
    int n = -1;
    if (w(k) == "a" && w(k + 1) == "couple" && w(k + 2) == "of") {
      n = 2;
      k += 3;
    } else if (w(k) == "couple" && w(k + 1) == "of") {
      n = 2;
      k += 2;
    } else {
      n = CountWord(w(k));
      if (n >= 0) ++k;
    }
    if (n >= 0) {
      std::string_view unit = w(k);
      if (!unit.empty() && unit.back() == 's') unit.remove_suffix(1);
      bool ago = w(k + 1) == "ago";
      if ((ago && !in_future) || (in_future && !ago)) {
        int sign = ago ? -1 : 1;
        size_t used = k + 1 + (ago ? 1 : 0);
        if (unit == "day") return done(ref.AddDays(sign * n), DateGranularity::kDay, used);
        if (unit == "week") return done(ref.AddDays(sign * 7 * n), DateGranularity::kDay, used);
        if (unit == "weekend") {
          return done(WeekStart(ref).AddDays(5 + sign * 7 * n), DateGranularity::kWeekend, used);
        }
        if (unit == "month") {
          CivilDate first{ref.year, ref.month, 1};
          return done(first.AddMonths(sign * n), DateGranularity::kMonth, used);
        }
        if (unit == "year") return done({ref.year + sign * n, 1, 1}, DateGranularity::kYear, used);
      }
    }
  }

  // ISO date.
  CivilDate iso;
  if (ParseIsoDate(w0, &iso)) return done(iso, DateGranularity::kDay, 1);

  // "8 May 2023", "8th of May", "8 May"
  if (int day = DayNumber(w0); day > 0) {
    size_t k = 1;
    if (w(k) == "of") ++k;
    int m = MonthNumber(w(k));
    if (m > 0) {
      int year = ref.year;
      size_t used = k + 1;
      if (IsYear(w(k + 1))) {
        year = ToInt(w(k + 1));
        ++used;
      }
      CivilDate d{year, m, day};
      if (d.IsValid()) return done(d, DateGranularity::kDay, used);
    }
    return 0;
  }

  // "May 8, 2023", "May 8th", "May 2022", "in May", "in May 2022", "in 2022"
  size_t k = 0;
  if (w0 == "in" || w0 == "during" || w0 == "since") k = 1;
  int m = MonthNumber(w(k));
  if (m > 0 && (w(k).size() > 3 || w(k) == "may")) {
    if (int day = DayNumber(w(k + 1)); day > 0) {
      int year = ref.year;
      size_t used = k + 2;
      if (IsYear(w(k + 2))) {
        year = ToInt(w(k + 2));
        ++used;
      }
      CivilDate d{year, m, day};
      if (d.IsValid()) return done(d, DateGranularity::kDay, used);
      return 0;
    }
    if (IsYear(w(k + 1))) return done({ToInt(w(k + 1)), m, 1}, DateGranularity::kMonth, k + 2);
    // A bare month name needs "in": "may" alone is usually the verb.
    if (k == 1) return done({ref.year, m, 1}, DateGranularity::kMonth, 2);
    return 0;
  }
  if (k == 1 && IsYear(w(1))) return done({ToInt(w(1)), 1, 1}, DateGranularity::kYear, 2);
  return 0;
}

}  // namespace

long long CivilDate::ToDays() const {
  // Howard Hinnant's days_from_civil.
  long long y = year - (month <= 2 ? 1 : 0);
  long long era = (y >= 0 ? y : y - 399) / 400;
  long long yoe = y - era * 400;
  long long mp = (month + 9) % 12;
  long long doy = (153 * mp + 2) / 5 + day - 1;
  long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

CivilDate CivilDate::FromDays(long long z) {
  z += 719468;
  long long era = (z >= 0 ? z : z - 146096) / 146097;
  long long doe = z - era * 146097;
  long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  long long y = yoe + era * 400;
  long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  long long mp = (5 * doy + 2) / 153;
  long long d = doy - (153 * mp + 2) / 5 + 1;
  long long m = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<int>(y + (m <= 2 ? 1 : 0)), static_cast<int>(m), static_cast<int>(d)};
}

int CivilDate::Weekday() const {
  long long z = ToDays();  // 1970-01-01 was a Thursday (3).
  return static_cast<int>(((z % 7) + 7 + 3) % 7);
}

CivilDate CivilDate::AddMonths(int n) const {
  long long total = static_cast<long long>(year) * 12 + (month - 1) + n;
  int y = static_cast<int>(total >= 0 ? total / 12 : (total - 11) / 12);
  int m = static_cast<int>(total - static_cast<long long>(y) * 12) + 1;
  int d = day > DaysInMonth(y, m) ? DaysInMonth(y, m) : day;
  return {y, m, d};
}

std::string CivilDate::ToString() const { return fmt::format("{:04d}-{:02d}-{:02d}", year, month, day); }

bool CivilDate::IsValid() const {
  return month >= 1 && month <= 12 && day >= 1 && day <= DaysInMonth(year, month);
}

std::string CivilDateTime::ToString() const {
  return fmt::format("{}T{:02d}:{:02d}", date.ToString(), hour, minute);
}

std::string ResolvedDate::ToString() const {
  switch (granularity) {
    case DateGranularity::kDay:
      return date.ToString();
    case DateGranularity::kWeekend:
      return "weekend of " + date.ToString();
    case DateGranularity::kWeek:
      return "week of " + date.ToString();
    case DateGranularity::kMonth:
      return fmt::format("{:04d}-{:02d}", date.year, date.month);
    case DateGranularity::kYear:
      return fmt::format("{:04d}", date.year);
  }
  return date.ToString();
}

Result<CivilDateTime> ParseDateTime(std::string_view text) {
  auto bad = [&]() {
    return Status::InvalidArgument(fmt::format("unrecognized date/time '{}'", text.substr(0, 64)));
  };
  // ISO 8601 first: "YYYY-MM-DD[T| ]HH:MM[:SS[.fff]][Z|±hh:mm]".
  CivilDate iso;
  if (text.size() >= 10 && ParseIsoDate(text.substr(0, 10), &iso)) {
    CivilDateTime out{iso, 0, 0};
    std::string_view rest = text.substr(10);
    if (!rest.empty() && (rest[0] == 'T' || rest[0] == ' ') && rest.size() >= 6 &&
        AllDigits(rest.substr(1, 2)) && rest[3] == ':' && AllDigits(rest.substr(4, 2))) {
      out.hour = ToInt(rest.substr(1, 2));
      out.minute = ToInt(rest.substr(4, 2));
      if (out.hour > 23 || out.minute > 59) return bad();
    } else if (!rest.empty()) {
      return bad();
    }
    return out;
  }
  // Word forms: an optional "H:MM am|pm [on]" then "D Month[,] YYYY" or "Month D[,] YYYY".
  std::vector<Word> words = Words(text);
  size_t i = 0;
  CivilDateTime out;
  if (!words.empty() && AllDigits(words[0].text) && words[0].end < text.size() &&
      text[words[0].end] == ':' && words.size() > 1 && AllDigits(words[1].text)) {
    int h = ToInt(words[0].text);
    int m = ToInt(words[1].text);
    i = 2;
    if (i < words.size() && (words[i].text == "am" || words[i].text == "pm")) {
      if (h < 1 || h > 12) return bad();
      if (words[i].text == "pm" && h != 12) h += 12;
      if (words[i].text == "am" && h == 12) h = 0;
      ++i;
    }
    if (h > 23 || m > 59) return bad();
    out.hour = h;
    out.minute = m;
    if (i < words.size() && words[i].text == "on") ++i;
  }
  auto at = [&](size_t k) -> std::string_view {
    return k < words.size() ? std::string_view(words[k].text) : std::string_view();
  };
  int day = DayNumber(at(i));
  int month = 0;
  int year = 0;
  if (day > 0 && MonthNumber(at(i + 1)) > 0 && IsYear(at(i + 2))) {
    month = MonthNumber(at(i + 1));
    year = ToInt(at(i + 2));
    i += 3;
  } else if (MonthNumber(at(i)) > 0 && DayNumber(at(i + 1)) > 0 && IsYear(at(i + 2))) {
    month = MonthNumber(at(i));
    day = DayNumber(at(i + 1));
    year = ToInt(at(i + 2));
    i += 3;
  } else {
    return bad();
  }
  if (i != words.size()) return bad();
  out.date = {year, month, day};
  if (!out.date.IsValid()) return bad();
  return out;
}

std::vector<ResolvedDate> FindDates(std::string_view text, const CivilDate& reference) {
  std::vector<Word> words = Words(text);
  std::vector<ResolvedDate> out;
  for (size_t i = 0; i < words.size();) {
    ResolvedDate d;
    size_t n = MatchAt(words, i, reference, &d);
    if (n > 0) {
      out.push_back(d);
      i += n;
    } else {
      ++i;
    }
  }
  return out;
}

bool NamedDate::Covers(const CivilDate& date) const {
  if (year != 0 && date.year != year) return false;
  if (date.month != month) return false;
  return granularity != DateGranularity::kDay || date.day == day;
}

std::vector<NamedDate> FindNamedDates(std::string_view text) {
  // Explicit expressions resolve the same against any reference; the
  // reference only supplies a year the text leaves out, which is dropped.
  const CivilDate reference{2000, 6, 15};
  std::vector<NamedDate> out;
  for (const ResolvedDate& found : FindDates(text, reference)) {
    if (found.granularity != DateGranularity::kDay && found.granularity != DateGranularity::kMonth) {
      continue;
    }
    bool names_month = false;
    bool names_year = false;
    bool relative = false;
    const std::vector<Word> words = Words(text.substr(found.begin, found.end - found.begin));
    for (const Word& w : words) {
      CivilDate iso;
      if (ParseIsoDate(w.text, &iso)) names_month = names_year = true;
      if (MonthNumber(w.text) > 0 && (w.text.size() > 3 || w.text == "may")) names_month = true;
      if (IsYear(w.text)) names_year = true;
      if (w.text == "last" || w.text == "this" || w.text == "next" || w.text == "past") relative = true;
    }
    if (!names_month || relative) continue;
    NamedDate named;
    named.granularity = found.granularity;
    named.year = names_year ? found.date.year : 0;
    named.month = found.date.month;
    named.day = found.granularity == DateGranularity::kDay ? found.date.day : 0;
    out.push_back(named);
  }
  return out;
}

}  // namespace skald
