#pragma once

// Images, audio and video: stored as they are (KeepsOriginal), and
// described for the indexer — the file name, its kind and MIME type, its
// size, and for PNG, JPEG and GIF the pixel dimensions read from the
// header — so they are listed, summarized and found by name. The
// description's stem is "{stem}_{ext}" ("photo.png" → "photo_png"): the
// directory a picture imported on its own is placed in, as OpenViking's
// media parsers name it.
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

// "image", "audio" or "video" for a file name whose extension the media
// parser takes; "" otherwise.
std::string_view MediaKindOf(std::string_view name);

// "{stem}_{ext}" for a media file's name, the extension in lower case
// ("Photo.PNG" -> "Photo_png"; "{name}_{kind}" without one): the stem of its
// description and the directory a lone one is imported as.
std::string MediaStem(std::string_view name, std::string_view kind);

}  // namespace skald
