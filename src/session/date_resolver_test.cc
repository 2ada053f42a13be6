#include "session/date_resolver.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace skald {
namespace {

// 8 May 2023 was a Monday: LoCoMo's first session date.
const CivilDate kMonday{2023, 5, 8};

// The resolved dates of `text`, as strings, in order.
std::vector<std::string> Resolve(std::string_view text, CivilDate ref = kMonday) {
  std::vector<std::string> out;
  for (const ResolvedDate& d : FindDates(text, ref)) out.push_back(d.ToString());
  return out;
}

using V = std::vector<std::string>;

TEST(CivilDateTest, DayArithmeticAndWeekdays) {
  EXPECT_EQ(CivilDate({1970, 1, 1}).ToDays(), 0);
  EXPECT_EQ(CivilDate::FromDays(CivilDate({2024, 2, 29}).ToDays()), CivilDate({2024, 2, 29}));
  EXPECT_EQ(kMonday.Weekday(), 0);
  EXPECT_EQ(CivilDate({2023, 5, 14}).Weekday(), 6);
  EXPECT_EQ(CivilDate({2023, 3, 1}).AddDays(-1).ToString(), "2023-02-28");
  EXPECT_EQ(CivilDate({2024, 3, 1}).AddDays(-1).ToString(), "2024-02-29");
  EXPECT_EQ(CivilDate({2023, 1, 31}).AddMonths(1).ToString(), "2023-02-28");
  EXPECT_EQ(CivilDate({2023, 1, 15}).AddMonths(-2).ToString(), "2022-11-15");
  EXPECT_FALSE(CivilDate({2023, 2, 29}).IsValid());
}

TEST(ParseDateTimeTest, LocomoFormat) {
  Result<CivilDateTime> t = ParseDateTime("1:56 pm on 8 May, 2023");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->ToString(), "2023-05-08T13:56");
  Result<CivilDateTime> midnight = ParseDateTime("12:09 am on 13 September, 2023");
  ASSERT_TRUE(midnight.ok());
  EXPECT_EQ(midnight->ToString(), "2023-09-13T00:09");
  Result<CivilDateTime> noon = ParseDateTime("12:30 pm on 1 January, 2024");
  ASSERT_TRUE(noon.ok());
  EXPECT_EQ(noon->ToString(), "2024-01-01T12:30");
}

TEST(ParseDateTimeTest, IsoAndWordForms) {
  EXPECT_EQ(ParseDateTime("2023-05-08")->ToString(), "2023-05-08T00:00");
  EXPECT_EQ(ParseDateTime("2023-05-08T13:56:01.123Z")->ToString(), "2023-05-08T13:56");
  EXPECT_EQ(ParseDateTime("2023-05-08 07:05")->ToString(), "2023-05-08T07:05");
  EXPECT_EQ(ParseDateTime("8 May 2023")->ToString(), "2023-05-08T00:00");
  EXPECT_EQ(ParseDateTime("May 8, 2023")->ToString(), "2023-05-08T00:00");
}

TEST(ParseDateTimeTest, RejectsWhatIsNoDate) {
  EXPECT_FALSE(ParseDateTime("").ok());
  EXPECT_FALSE(ParseDateTime("hello").ok());
  EXPECT_FALSE(ParseDateTime("31 February, 2023").ok());
  EXPECT_FALSE(ParseDateTime("13:00 pm on 8 May, 2023").ok());
  EXPECT_FALSE(ParseDateTime("2023-13-01").ok());
  EXPECT_FALSE(ParseDateTime("8 May, 2023 and more").ok());
  Result<CivilDateTime> bad = ParseDateTime("soon");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

TEST(FindDatesTest, DaysRelativeToTheReference) {
  EXPECT_EQ(Resolve("I went to a support group yesterday."), V{"2023-05-07"});
  EXPECT_EQ(Resolve("Today was great"), V{"2023-05-08"});
  EXPECT_EQ(Resolve("see you tomorrow"), V{"2023-05-09"});
  EXPECT_EQ(Resolve("last night we ate out"), V{"2023-05-07"});
  EXPECT_EQ(Resolve("two days ago I ran"), V{"2023-05-06"});
  EXPECT_EQ(Resolve("I moved 3 days ago"), V{"2023-05-05"});
  EXPECT_EQ(Resolve("a week ago"), V{"2023-05-01"});
  EXPECT_EQ(Resolve("a couple of days ago"), V{"2023-05-06"});
  EXPECT_EQ(Resolve("in two weeks"), V{"2023-05-22"});
}

TEST(FindDatesTest, Weekdays) {
  EXPECT_EQ(Resolve("last Saturday I went hiking"), V{"2023-05-06"});
  // On a Monday, "last Monday" is a week back, not today.
  EXPECT_EQ(Resolve("last Monday"), V{"2023-05-01"});
  EXPECT_EQ(Resolve("next Friday"), V{"2023-05-12"});
  EXPECT_EQ(Resolve("next Monday"), V{"2023-05-15"});
  EXPECT_EQ(Resolve("on Wednesday"), V{"2023-05-10"});
  EXPECT_EQ(Resolve("this Sunday"), V{"2023-05-14"});
  EXPECT_EQ(Resolve("I joined a group last Tues"), V{"2023-05-02"});
  EXPECT_EQ(Resolve("a poetry reading last Fri"), V{"2023-05-05"});
  // From a Thursday: the Saturday just gone.
  EXPECT_EQ(Resolve("last Saturday", {2023, 5, 25}), V{"2023-05-20"});
}

TEST(FindDatesTest, WeeksWeekendsMonthsYears) {
  EXPECT_EQ(Resolve("this weekend"), V{"weekend of 2023-05-13"});
  EXPECT_EQ(Resolve("last weekend"), V{"weekend of 2023-05-06"});
  EXPECT_EQ(Resolve("two weekends ago"), V{"weekend of 2023-04-29"});
  EXPECT_EQ(Resolve("last week"), V{"week of 2023-05-01"});
  EXPECT_EQ(Resolve("next week"), V{"week of 2023-05-15"});
  EXPECT_EQ(Resolve("next month"), V{"2023-06"});
  EXPECT_EQ(Resolve("last month"), V{"2023-04"});
  EXPECT_EQ(Resolve("next month", {2023, 12, 20}), V{"2024-01"});
  EXPECT_EQ(Resolve("last year"), V{"2022"});
  EXPECT_EQ(Resolve("three years ago"), V{"2020"});
  EXPECT_EQ(Resolve("in May"), V{"2023-05"});
  EXPECT_EQ(Resolve("last May"), V{"2022-05"});
  EXPECT_EQ(Resolve("next June"), V{"2023-06"});
  EXPECT_EQ(Resolve("in 2022"), V{"2022"});
  EXPECT_EQ(Resolve("in June 2021"), V{"2021-06"});
}

TEST(FindDatesTest, ExplicitDates) {
  EXPECT_EQ(Resolve("on 8 May 2023"), V{"2023-05-08"});
  EXPECT_EQ(Resolve("the 4th of July"), V{"2023-07-04"});
  EXPECT_EQ(Resolve("May 20th"), V{"2023-05-20"});
  EXPECT_EQ(Resolve("on June 3, 2022 we met"), V{"2022-06-03"});
  EXPECT_EQ(Resolve("deadline 2023-06-01"), V{"2023-06-01"});
}

TEST(FindDatesTest, SeveralExpressionsAndSpans) {
  std::string text = "Yesterday I called; next week I fly.";
  std::vector<ResolvedDate> dates = FindDates(text, kMonday);
  ASSERT_EQ(dates.size(), 2u);
  EXPECT_EQ(text.substr(dates[0].begin, dates[0].end - dates[0].begin), "Yesterday");
  EXPECT_EQ(text.substr(dates[1].begin, dates[1].end - dates[1].begin), "next week");
  EXPECT_EQ(dates[1].granularity, DateGranularity::kWeek);
}

TEST(FindDatesTest, NoFalsePositives) {
  EXPECT_TRUE(Resolve("I may go there one day").empty());
  EXPECT_TRUE(Resolve("We have two dogs and a cat").empty());
  EXPECT_TRUE(Resolve("I was on a roll").empty());
  EXPECT_TRUE(Resolve("the last time we spoke").empty());
  EXPECT_TRUE(Resolve("").empty());
}

// The named dates of `text` as "YYYY-MM-DD" / "YYYY-MM" (year 0 = none named).
std::vector<std::string> Named(std::string_view text) {
  std::vector<std::string> out;
  for (const NamedDate& d : FindNamedDates(text)) {
    out.push_back(d.granularity == DateGranularity::kDay
                      ? fmt::format("{:04d}-{:02d}-{:02d}", d.year, d.month, d.day)
                      : fmt::format("{:04d}-{:02d}", d.year, d.month));
  }
  return out;
}

TEST(FindNamedDatesTest, ExplicitDaysAndMonthsOnly) {
  EXPECT_EQ(Named("What painting did Melanie show to Caroline on October 13, 2023?"),
            V({"2023-10-13"}));
  EXPECT_EQ(Named("What did Gina find for her store on 1 February, 2023?"), V({"2023-02-01"}));
  EXPECT_EQ(Named("What did Maria do the week before 2023-08-03?"), V({"2023-08-03"}));
  EXPECT_EQ(Named("When did Melanie go camping in June?"), V({"0000-06"}));
  EXPECT_EQ(Named("What workout class did Maria start in December 2023?"), V({"2023-12"}));
  EXPECT_EQ(Named("Who did she meet on May 8th?"), V({"0000-05-08"}));
  // Relative expressions and bare years need a reference: none.
  EXPECT_EQ(Named("What did she do yesterday, last week, next month and last May?"), V{});
  EXPECT_EQ(Named("How many times did she go to the beach in 2023?"), V{});
  EXPECT_EQ(Named("You may go now."), V{});
  EXPECT_EQ(Named(""), V{});
}

TEST(FindNamedDatesTest, CoversDaysAndMonths) {
  const std::vector<NamedDate> day = FindNamedDates("on 7 July, 2023");
  ASSERT_EQ(day.size(), 1u);
  EXPECT_TRUE(day[0].Covers({2023, 7, 7}));
  EXPECT_FALSE(day[0].Covers({2023, 7, 8}));
  EXPECT_FALSE(day[0].Covers({2022, 7, 7}));
  const std::vector<NamedDate> month = FindNamedDates("in June");
  ASSERT_EQ(month.size(), 1u);
  EXPECT_TRUE(month[0].Covers({2023, 6, 30}));
  EXPECT_TRUE(month[0].Covers({2019, 6, 1}));
  EXPECT_FALSE(month[0].Covers({2023, 7, 1}));
}

}  // namespace
}  // namespace skald
