#include <gtest/gtest.h>

#include "common/hash.h"
#include "common/json_util.h"
#include "common/strings.h"
#include "common/time_util.h"
#include "skald/result.h"

namespace skald {
namespace {

TEST(StatusTest, CarriesCodeReasonAndDetails) {
  Status s = Status::InvalidArgument("bad").WithReason("INVALID_URI").WithDetail("uri", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.reason(), "INVALID_URI");
  ASSERT_EQ(s.details().size(), 1u);
  EXPECT_EQ(s.details()[0].second, "x");
  EXPECT_EQ(s.ToString(), "invalid_argument: bad");
}

Result<int> Half(int v) {
  if (v % 2) return Status::InvalidArgument("odd");
  return v / 2;
}

Result<int> Quarter(int v) {
  SKALD_ASSIGN_OR_RETURN(int h, Half(v));
  return Half(h);
}

TEST(ResultTest, AssignOrReturnPropagatesErrors) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_EQ(Quarter(6).status().message(), "odd");
  Result<int> from_ok_status(Status::Ok());
  EXPECT_FALSE(from_ok_status.ok());
}

TEST(StringsTest, ValidatesUtf8) {
  EXPECT_TRUE(IsValidUtf8("héllo 中文 🎉"));
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("abc\xE4\xB8"));       // truncated
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // > U+10FFFF
}

TEST(StringsTest, ParsesBoolsLikeFastApi) {
  bool b = false;
  EXPECT_TRUE(ParseBool("TRUE", &b));
  EXPECT_TRUE(b);
  EXPECT_TRUE(ParseBool("off", &b));
  EXPECT_FALSE(b);
  EXPECT_FALSE(ParseBool("maybe", &b));
}

TEST(StringsTest, TruncatesOnCodePointBoundary) {
  EXPECT_EQ(TruncateUtf8("中文", 4), "中");
  EXPECT_EQ(Utf8Prefix("中文abc", 3), "中文a");
  EXPECT_EQ(Utf8Length("中文abc"), 5u);
}

TEST(HashTest, KnownVectors) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
}

TEST(TimeTest, FormatsUtc) {
  int64_t t = 1764473521123LL * 1000000;  // 2025-11-30T03:32:01.123Z
  EXPECT_EQ(FormatIsoMillis(t), "2025-11-30T03:32:01.123Z");
  EXPECT_EQ(FormatRfc3339(t), "2025-11-30T03:32:01Z");
}

TEST(JsonTest, MalformedInputIsAnError) {
  EXPECT_FALSE(ParseJson("{\"a\":").ok());
  EXPECT_FALSE(ParseJson("\"\xff\"").ok());
  EXPECT_EQ((*ParseJson("{\"a\":1}"))["a"], 1);
}

}  // namespace
}  // namespace skald
