#include "ingest/parsers/media_parser.h"

#include <gtest/gtest.h>

namespace skald {
namespace {

std::string Png(uint32_t w, uint32_t h) {
  std::string s = "\x89PNG\r\n\x1a\n";
  s += std::string("\0\0\0\x0dIHDR", 8);
  for (uint32_t v : {w, h}) {
    for (int shift = 24; shift >= 0; shift -= 8) s += static_cast<char>((v >> shift) & 0xFF);
  }
  s += std::string("\x08\x02\0\0\0", 5);
  return s;
}

std::string Jpeg(uint16_t w, uint16_t h) {
  std::string s = "\xFF\xD8";
  s += "\xFF\xE0";  // APP0 (JFIF), 16 bytes long
  s += std::string("\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00", 16);
  s += "\xFF\xC0";  // SOF0
  s += std::string("\x00\x11\x08", 3);
  s += static_cast<char>(h >> 8);
  s += static_cast<char>(h & 0xFF);
  s += static_cast<char>(w >> 8);
  s += static_cast<char>(w & 0xFF);
  s += std::string(10, '\x01');
  return s;
}

TEST(MediaParserTest, ImageDimensionsFromHeaders) {
  ImageSize png = ImageDimensions(Png(640, 480));
  EXPECT_EQ(png.width, 640u);
  EXPECT_EQ(png.height, 480u);
  ImageSize gif = ImageDimensions(std::string("GIF89a\x20\x03\x58\x02\0\0", 12));
  EXPECT_EQ(gif.width, 800u);
  EXPECT_EQ(gif.height, 600u);
  ImageSize jpeg = ImageDimensions(Jpeg(1024, 768));
  EXPECT_EQ(jpeg.width, 1024u);
  EXPECT_EQ(jpeg.height, 768u);
  EXPECT_EQ(ImageDimensions("\x89PNG\r\n").width, 0u);  // cut short
  EXPECT_EQ(ImageDimensions(Jpeg(5, 5).substr(0, 12)).width, 0u);
}

TEST(MediaParserTest, ImageIsKeptAndDescribed) {
  std::string png = Png(32, 16);
  auto doc = MakeMediaParser()->Parse(ParseInput{"Team Photo.png", png, 123456});
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->stem, "Team Photo_png");
  EXPECT_TRUE(MakeMediaParser()->KeepsOriginal());
  EXPECT_EQ(doc->markdown,
            "# Team Photo.png\n\nImage file (PNG), 32 x 16 pixels, 120.6 KiB (123456 bytes), type "
            "image/png.\n");
  EXPECT_EQ(MediaKindOf("Team Photo.PNG"), "image");
  EXPECT_EQ(MediaKindOf("talk.mkv"), "video");
  EXPECT_EQ(MediaKindOf("notes.md"), "");
}

TEST(MediaParserTest, AudioAndVideoByExtensionImagesByMagic) {
  auto parser = MakeMediaParser();
  EXPECT_TRUE(parser->Accepts({".mp3", ""}));
  EXPECT_TRUE(parser->Accepts({".mkv", ""}));
  EXPECT_FALSE(parser->Accepts({".txt", ""}));
  EXPECT_TRUE(parser->Accepts({"", Png(1, 1)}));
  auto video = parser->Parse(ParseInput{"talk.mp4", "....ftypisom", uint64_t{3} << 30});
  ASSERT_TRUE(video.ok());
  EXPECT_EQ(video->stem, "talk_mp4");
  EXPECT_NE(video->markdown.find("Video file (MP4)"), std::string::npos) << video->markdown;
  EXPECT_NE(video->markdown.find("3.0 GiB"), std::string::npos) << video->markdown;
}

}  // namespace
}  // namespace skald
