#pragma once

// Images, audio and video: not read as content, but recorded as a small
// Markdown file so they are listed, summarized and findable by name — the
// file name, its kind and MIME type, its size, and for PNG, JPEG and GIF
// the pixel dimensions read from the header. The output stem is
// "{stem}_{ext}" ("photo.png" → "photo_png.md"), so a picture never takes
// the name of the document it illustrates. Only the first HeadBytes() of a
// file are read, so large videos are recorded too.
//
// Thread safety: the parser is immutable.

#include <cstdint>
#include <memory>
#include <string_view>

#include "ingest/parser.h"

namespace skald {

// Takes the image, audio and video extensions of the reference (§1.3) and,
// for files without an extension, PNG/JPEG/GIF magic bytes.
std::unique_ptr<Parser> MakeMediaParser();

struct ImageSize {
  uint32_t width = 0;
  uint32_t height = 0;
};

// Dimensions from a PNG, GIF or JPEG header; {0, 0} when `head` is none
// of those or is cut before the dimensions.
ImageSize ImageDimensions(std::string_view head);

}  // namespace skald
