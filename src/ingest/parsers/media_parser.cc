#include "ingest/parsers/media_parser.h"

#include <fmt/format.h>

#include <string>

#include "common/strings.h"
#include "ingest/text_encoding.h"

namespace skald {
namespace {

struct MediaType {
  std::string_view extension;
  std::string_view kind;  // "image", "audio", "video"
  std::string_view mime;
};

constexpr MediaType kMediaTypes[] = {
    {".png", "image", "image/png"},       {".jpg", "image", "image/jpeg"},
    {".jpeg", "image", "image/jpeg"},     {".gif", "image", "image/gif"},
    {".bmp", "image", "image/bmp"},       {".webp", "image", "image/webp"},
    {".svg", "image", "image/svg+xml"},   {".tiff", "image", "image/tiff"},
    {".tif", "image", "image/tiff"},      {".ico", "image", "image/vnd.microsoft.icon"},
    {".heic", "image", "image/heic"},     {".mp3", "audio", "audio/mpeg"},
    {".wav", "audio", "audio/wav"},       {".ogg", "audio", "audio/ogg"},
    {".flac", "audio", "audio/flac"},     {".aac", "audio", "audio/aac"},
    {".m4a", "audio", "audio/mp4"},       {".opus", "audio", "audio/opus"},
    {".mp4", "video", "video/mp4"},       {".avi", "video", "video/x-msvideo"},
    {".mov", "video", "video/quicktime"}, {".mkv", "video", "video/x-matroska"},
    {".webm", "video", "video/webm"},     {".flv", "video", "video/x-flv"},
    {".wmv", "video", "video/x-ms-wmv"},
};

const MediaType* ByExtension(std::string_view ext) {
  for (const MediaType& t : kMediaTypes) {
    if (t.extension == ext) return &t;
  }
  return nullptr;
}

const MediaType* ByMagic(std::string_view head) {
  if (head.substr(0, 8) == "\x89PNG\r\n\x1a\n") return ByExtension(".png");
  if (head.substr(0, 3) == "\xFF\xD8\xFF") return ByExtension(".jpg");
  if (head.substr(0, 6) == "GIF87a" || head.substr(0, 6) == "GIF89a") return ByExtension(".gif");
  return nullptr;
}

uint32_t Be16(std::string_view s, size_t at) {
  return (static_cast<uint32_t>(static_cast<unsigned char>(s[at])) << 8) |
         static_cast<unsigned char>(s[at + 1]);
}

uint32_t Be32(std::string_view s, size_t at) { return (Be16(s, at) << 16) | Be16(s, at + 2); }

uint32_t Le16(std::string_view s, size_t at) {
  return (static_cast<uint32_t>(static_cast<unsigned char>(s[at + 1])) << 8) |
         static_cast<unsigned char>(s[at]);
}

ImageSize JpegDimensions(std::string_view s) {
  size_t i = 2;
  while (i + 4 <= s.size()) {
    if (static_cast<unsigned char>(s[i]) != 0xFF) return {};
    auto marker = static_cast<unsigned char>(s[i + 1]);
    if (marker == 0xFF) {  // fill byte
      ++i;
      continue;
    }
    if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
      i += 2;  // markers without a length
      continue;
    }
    uint32_t length = Be16(s, i + 2);
    if (length < 2) return {};
    bool sof =
        marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (sof) {
      if (i + 9 > s.size()) return {};
      return {Be16(s, i + 7), Be16(s, i + 5)};
    }
    if (marker == 0xDA || marker == 0xD9) return {};  // image data before any frame header
    i += 2 + length;
  }
  return {};
}

std::string HumanSize(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  if (bytes < (uint64_t{1} << 20))
    return fmt::format("{:.1f} KiB ({} bytes)", bytes / 1024.0, bytes);
  if (bytes < (uint64_t{1} << 30)) {
    return fmt::format("{:.1f} MiB ({} bytes)", bytes / 1048576.0, bytes);
  }
  return fmt::format("{:.1f} GiB ({} bytes)", bytes / 1073741824.0, bytes);
}

std::string LowerExtensionOf(std::string_view name) {
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return "";
  return AsciiLower(name.substr(dot));
}

class MediaParser : public Parser {
 public:
  std::string_view Name() const override { return "media"; }

  bool Accepts(const FileProbe& probe) const override {
    if (!probe.extension.empty()) return ByExtension(probe.extension) != nullptr;
    return ByMagic(probe.head) != nullptr;
  }

  bool KeepsOriginal() const override { return true; }

  Result<ParsedDocument> Parse(const ParseInput& input) const override {
    std::string ext = LowerExtensionOf(input.name);
    const MediaType* type = ByExtension(ext);
    if (type == nullptr) type = ByMagic(input.bytes);
    if (type == nullptr) return Status::InvalidArgument("not a known image, audio or video format");
    ParsedDocument doc;
    std::string name = RepairName(input.name);
    doc.stem = MediaStem(name, type->kind);
    std::string kind(type->kind);
    std::string format(type->extension.substr(1));
    for (char& c : format) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    // One sentence the summarizer takes whole: kind, format, dimensions,
    // size, MIME type.
    std::string facts = fmt::format("{} file ({})",
                                    kind == "image"   ? "Image"
                                    : kind == "audio" ? "Audio"
                                                      : "Video",
                                    format);
    doc.metadata.emplace_back("kind", kind);
    doc.metadata.emplace_back("mime", std::string(type->mime));
    doc.metadata.emplace_back("size", std::to_string(input.file_size));
    if (kind == "image") {
      ImageSize size = ImageDimensions(input.bytes);
      if (size.width > 0 && size.height > 0) {
        facts += fmt::format(", {} x {} pixels", size.width, size.height);
        doc.metadata.emplace_back("width", std::to_string(size.width));
        doc.metadata.emplace_back("height", std::to_string(size.height));
      }
    }
    doc.markdown = fmt::format("# {}\n\n{}, {}, type {}.\n", name, facts,
                               HumanSize(input.file_size), type->mime);
    doc.title = name;
    return doc;
  }

 private:
  static std::string RepairName(std::string_view name) { return RepairUtf8(name); }
};

}  // namespace

ImageSize ImageDimensions(std::string_view s) {
  if (s.substr(0, 8) == "\x89PNG\r\n\x1a\n" && s.size() >= 24 && s.substr(12, 4) == "IHDR") {
    return {Be32(s, 16), Be32(s, 20)};
  }
  if ((s.substr(0, 6) == "GIF87a" || s.substr(0, 6) == "GIF89a") && s.size() >= 10) {
    return {Le16(s, 6), Le16(s, 8)};
  }
  if (s.substr(0, 3) == "\xFF\xD8\xFF") return JpegDimensions(s);
  return {};
}

std::string_view MediaKindOf(std::string_view name) {
  const MediaType* type = ByExtension(LowerExtensionOf(name));
  return type == nullptr ? std::string_view() : type->kind;
}

std::string MediaStem(std::string_view name, std::string_view kind) {
  const std::string ext = LowerExtensionOf(name);
  if (ext.empty()) return fmt::format("{}_{}", name, kind);
  return fmt::format("{}_{}", name.substr(0, name.size() - ext.size()), ext.substr(1));
}

std::unique_ptr<Parser> MakeMediaParser() { return std::make_unique<MediaParser>(); }

}  // namespace skald
