#include "ingest/text_encoding.h"

#include <gtest/gtest.h>

#include "common/strings.h"

namespace skald {
namespace {

TEST(TextEncodingTest, ValidUtf8IsUnchangedAndItsBomDropped) {
  Utf8Text t = ToUtf8("caf\xC3\xA9 au lait");
  EXPECT_EQ(t.text, "caf\xC3\xA9 au lait");
  EXPECT_TRUE(t.charset.empty());
  EXPECT_FALSE(t.repaired);
  EXPECT_EQ(ToUtf8("\xEF\xBB\xBFhello").text, "hello");
}

TEST(TextEncodingTest, Latin1TextIsDetectedAndDecoded) {
  std::string latin1 =
      "Le caf\xE9 est pr\xEAt. Les \xE9l\xE8ves arrivent \xE0 l'\xE9" "cole \xE0 huit heures et "
      "demie, apr\xE8s le petit d\xE9jeuner. La r\xE9union commence \xE0 neuf heures.\n";
  Utf8Text t = ToUtf8(latin1);
  EXPECT_TRUE(IsValidUtf8(t.text));
  EXPECT_FALSE(t.charset.empty());
  EXPECT_NE(t.text.find("caf\xC3\xA9"), std::string::npos) << t.text << " from " << t.charset;
}

TEST(TextEncodingTest, Utf16WithBomIsDecoded) {
  std::string utf16("\xFF\xFEh\0i\0!\0", 8);
  EXPECT_TRUE(PlausiblyText(utf16));
  Utf8Text t = ToUtf8(utf16);
  EXPECT_EQ(t.text, "hi!");
  EXPECT_EQ(t.charset, "UTF-16LE");
}

TEST(TextEncodingTest, RepairReplacesOnlyInvalidBytes) {
  EXPECT_EQ(RepairUtf8("a\xFF" "b\xC3\xA9\xC3"), "a\xEF\xBF\xBD" "b\xC3\xA9\xEF\xBF\xBD");
  EXPECT_EQ(RepairUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  for (int b = 0; b < 256; ++b) {
    std::string s(3, static_cast<char>(b));
    EXPECT_TRUE(IsValidUtf8(ToUtf8(s).text)) << b;
  }
}

TEST(TextEncodingTest, BinaryIsNotPlausiblyText) {
  EXPECT_FALSE(PlausiblyText(std::string("ab\0cd", 5)));
  EXPECT_FALSE(PlausiblyText("\x01\x02\x03\x04\x05 some text"));
  EXPECT_TRUE(PlausiblyText("plain caf\xE9 text\n"));
}

}  // namespace
}  // namespace skald
