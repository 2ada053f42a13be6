#pragma once
// Date resolution for memory extraction: parses a conversation's own date
// ("1:56 pm on 8 May, 2023", ISO 8601, "8 May 2023", "May 8, 2023") and
// resolves the date expressions found in a message ("yesterday", "last
// Saturday", "two weeks ago", "next month", "in May", "in 2022", explicit
// dates) against it. Calendar arithmetic is proleptic Gregorian on civil dates;
// no time zones are involved (a session's date is taken as written).
//
// Thread safety: pure functions.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"

namespace skald {

// A calendar date. Valid when 1 <= month <= 12 and day exists in that month.
struct CivilDate {
  int year = 1970;
  int month = 1;
  int day = 1;

  // Days since 1970-01-01 (negative before).
  long long ToDays() const;
  static CivilDate FromDays(long long days);
  // 0 = Monday … 6 = Sunday.
  int Weekday() const;
  CivilDate AddDays(long long n) const { return FromDays(ToDays() + n); }
  // Same day `n` months later (or earlier), clamped to the month's last day.
  CivilDate AddMonths(int n) const;
  // "YYYY-MM-DD".
  std::string ToString() const;
  bool IsValid() const;

  friend bool operator==(const CivilDate&, const CivilDate&) = default;
};

// A calendar date with a time of day (24 h clock).
struct CivilDateTime {
  CivilDate date;
  int hour = 0;
  int minute = 0;

  // "YYYY-MM-DDTHH:MM".
  std::string ToString() const;
  friend bool operator==(const CivilDateTime&, const CivilDateTime&) = default;
};

// Parses a session or message date: LoCoMo's "1:56 pm on 8 May, 2023",
// ISO 8601 ("2023-05-08", "2023-05-08T13:56", "2023-05-08T13:56:01.5Z";
// fractional seconds and zone suffixes are accepted and ignored), "8 May 2023",
// "May 8, 2023". Returns InvalidArgument naming the text for anything else.
Result<CivilDateTime> ParseDateTime(std::string_view text);

// How precise a resolved date is; `date` is then the first day of that span
// (the Monday of a week, the 1st of a month, 1 January of a year).
enum class DateGranularity { kDay, kWeekend, kWeek, kMonth, kYear };

// One date expression found in a text.
struct ResolvedDate {
  CivilDate date;
  DateGranularity granularity = DateGranularity::kDay;
  size_t begin = 0;  // byte span of the expression in the text
  size_t end = 0;

  // "2023-05-07" (day), "weekend of 2023-05-06", "week of 2023-05-01",
  // "2023-05" (month), "2023" (year).
  std::string ToString() const;
};

// Finds every date expression in `text` (English, case-insensitive) and
// resolves it against `reference`, in text order, without overlaps:
//   today, tonight, this morning/afternoon/evening → reference;
//   yesterday, last night → −1 day; tomorrow → +1 day;
//   N days/weeks/months/years ago (digits or one…twelve, "a", "a couple of")
//   and "in N days/weeks" → shifted (weeks by 7 days, months and years on the
//   calendar), day granularity for days and weeks, else month/year;
//   last <weekday> → the latest such day strictly before the reference;
//   next <weekday> → the first strictly after; this/on <weekday> → the one in
//   the reference's Monday-to-Sunday week;
//   last/this/next weekend → that Saturday (weekend granularity);
//   last/this/next week|month|year → that span (week, month, year granularity);
//   "in May" / "in May 2022" / "last May" → that month (without a year: the
//   reference's year, or the previous year after "last");
//   "in 2022" → that year; "8 May 2023", "May 8, 2023", "May 8th", "2023-05-08"
//   → that day ("May 8" without a year takes the reference's year).
std::vector<ResolvedDate> FindDates(std::string_view text, const CivilDate& reference);

// A day or month that a text names outright, with no reference date needed:
// "October 13, 2023", "13 October 2023", "2023-10-13", "May 8th", "in June",
// "in December 2023", "May 2022". Relative expressions ("yesterday", "last
// week", "next month", "last May", "in 2022") are not named dates.
struct NamedDate {
  DateGranularity granularity = DateGranularity::kDay;  // kDay or kMonth
  int year = 0;                                         // 0 when the text names none
  int month = 1;
  int day = 0;  // 0 for a month

  // Whether `date` falls on this day or in this month (any year when none
  // was named).
  bool Covers(const CivilDate& date) const;
};

// The named dates of `text` (English, case-insensitive), in text order.
std::vector<NamedDate> FindNamedDates(std::string_view text);

}  // namespace skald
