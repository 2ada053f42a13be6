#pragma once

// The parts of a zip container (DOCX, PPTX, XLSX, EPUB) read into memory
// with libarchive, and the XML plumbing the office parsers share (loading a
// part with pugixml, OOXML relationships, local element names).
//
// Limits against zip bombs: a part larger than kMaxPartBytes, or parts that
// add up to more than kMaxTotalBytes uncompressed, make Read fail.
//
// Thread safety: a ZipParts is immutable after Read.

#include <pugixml.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "skald/result.h"

namespace skald {

inline constexpr uint64_t kMaxPartBytes = uint64_t{64} << 20;
inline constexpr uint64_t kMaxTotalBytes = uint64_t{256} << 20;

class ZipParts {
 public:
  // Reads the regular members whose path `want` accepts (others are
  // skipped unread). InvalidArgument when `bytes` is not a readable zip
  // file (`what` names the format in the message: "DOCX"), an encrypted
  // member or a member over the limits.
  static Result<ZipParts> Read(std::string_view bytes, std::string_view what,
                               const std::function<bool(std::string_view)>& want);

  // The member at `path` (no leading '/'), or nullptr.
  const std::string* Get(std::string_view path) const;
  const std::map<std::string, std::string, std::less<>>& parts() const { return parts_; }

 private:
  std::map<std::string, std::string, std::less<>> parts_;
};

// Parses `text` (the part `name`) into `doc`; InvalidArgument naming the
// part when it is not well-formed XML.
Status LoadXml(std::string_view text, std::string_view name, pugi::xml_document* doc);

// An element's name without its namespace prefix ("w:p" → "p").
std::string_view LocalName(const pugi::xml_node& node);

// The first child element of `node` whose local name is `local`.
pugi::xml_node ChildNamed(const pugi::xml_node& node, std::string_view local);

// The attribute of `node` whose local name is `local` ("r:id" → "id").
pugi::xml_attribute AttrNamed(const pugi::xml_node& node, std::string_view local);

// A relationship target resolved against the part that refers to it:
// ("ppt/presentation.xml", "slides/slide1.xml") → "ppt/slides/slide1.xml";
// absolute targets ("/xl/x.xml") lose their '/'; "." and ".." are folded;
// %XX escapes are decoded.
std::string ResolvePart(std::string_view from_part, std::string_view target);

// The relationship id of `node` (its prefixed "r:id" attribute; an
// unprefixed "id" is the element's own id), "" when none.
std::string_view RelationshipId(const pugi::xml_node& node);

// The title in an OOXML package's core properties (docProps/core.xml),
// white space collapsed; "" when there is none.
std::string CoreTitle(const ZipParts& zip);

// The OOXML relationships of `part` (read from "dir/_rels/name.rels"):
// relationship id → resolved part path. Empty when the part has none.
std::map<std::string, std::string> Relationships(const ZipParts& zip, std::string_view part);

}  // namespace skald
