#include "ingest/parsers/zip_parts.h"

#include <archive.h>
#include <archive_entry.h>
#include <fmt/format.h>

#include <memory>
#include <vector>

#include "common/strings.h"

namespace skald {

Result<ZipParts> ZipParts::Read(std::string_view bytes, std::string_view what,
                                const std::function<bool(std::string_view)>& want) {
  std::unique_ptr<archive, int (*)(archive*)> ar(archive_read_new(), archive_read_free);
  if (!ar) return Status::Internal("cannot allocate a zip reader");
  archive_read_support_format_zip_seekable(ar.get());
  if (archive_read_open_memory(ar.get(), bytes.data(), bytes.size()) != ARCHIVE_OK) {
    return Status::InvalidArgument(fmt::format("not a valid {} file (not a zip container)", what));
  }
  ZipParts zip;
  uint64_t total = 0;
  archive_entry* entry = nullptr;
  while (true) {
    int rc = archive_read_next_header(ar.get(), &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) {
      return Status::InvalidArgument(fmt::format("corrupt {} file (its zip directory is damaged)", what));
    }
    const char* raw_name = archive_entry_pathname(entry);
    if (raw_name == nullptr || archive_entry_filetype(entry) != AE_IFREG) continue;
    std::string name = raw_name;
    while (!name.empty() && name[0] == '/') name.erase(0, 1);
    if (!want(name)) continue;
    if (archive_entry_is_encrypted(entry)) {
      return Status::InvalidArgument(fmt::format("the {} file is encrypted", what));
    }
    std::string data;
    char buffer[64 * 1024];
    while (true) {
      la_ssize_t n = archive_read_data(ar.get(), buffer, sizeof(buffer));
      if (n == 0) break;
      if (n < 0) {
        return Status::InvalidArgument(
            fmt::format("corrupt {} file (part {} cannot be decompressed)", what, name));
      }
      data.append(buffer, static_cast<size_t>(n));
      total += static_cast<uint64_t>(n);
      if (data.size() > kMaxPartBytes || total > kMaxTotalBytes) {
        return Status::InvalidArgument(fmt::format(
            "the {} file is too large uncompressed (over {} MiB)", what,
            (data.size() > kMaxPartBytes ? kMaxPartBytes : kMaxTotalBytes) >> 20));
      }
    }
    zip.parts_[name] = std::move(data);
  }
  return zip;
}

const std::string* ZipParts::Get(std::string_view path) const {
  auto it = parts_.find(path);
  return it == parts_.end() ? nullptr : &it->second;
}

Status LoadXml(std::string_view text, std::string_view name, pugi::xml_document* doc) {
  pugi::xml_parse_result parsed = doc->load_buffer(text.data(), text.size(),
                                                   pugi::parse_default | pugi::parse_ws_pcdata_single);
  if (!parsed) {
    return Status::InvalidArgument(
        fmt::format("{} is not well-formed XML ({})", name, parsed.description()));
  }
  return Status::Ok();
}

std::string_view LocalName(const pugi::xml_node& node) {
  std::string_view name = node.name();
  size_t colon = name.find(':');
  return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

pugi::xml_node ChildNamed(const pugi::xml_node& node, std::string_view local) {
  for (pugi::xml_node child : node.children()) {
    if (child.type() == pugi::node_element && LocalName(child) == local) return child;
  }
  return {};
}

pugi::xml_attribute AttrNamed(const pugi::xml_node& node, std::string_view local) {
  for (pugi::xml_attribute attr : node.attributes()) {
    std::string_view name = attr.name();
    size_t colon = name.find(':');
    if ((colon == std::string_view::npos ? name : name.substr(colon + 1)) == local) return attr;
  }
  return {};
}

std::string_view RelationshipId(const pugi::xml_node& node) {
  for (pugi::xml_attribute attr : node.attributes()) {
    std::string_view name = attr.name();
    size_t colon = name.find(':');
    if (colon != std::string_view::npos && name.substr(colon + 1) == "id") return attr.value();
  }
  return {};
}

namespace {

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

std::string ResolvePart(std::string_view from_part, std::string_view target) {
  std::string decoded = PercentDecode(target.substr(0, target.find('#')));
  std::vector<std::string> parts;
  if (decoded.empty() || decoded[0] != '/') {
    size_t slash = from_part.rfind('/');
    if (slash != std::string_view::npos) parts = Split(from_part.substr(0, slash), '/');
  }
  for (const std::string& seg : Split(decoded, '/')) {
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(seg);
  }
  return Join(parts, "/");
}

std::string CoreTitle(const ZipParts& zip) {
  const std::string* core = zip.Get("docProps/core.xml");
  pugi::xml_document props;
  if (core == nullptr || !LoadXml(*core, "docProps/core.xml", &props).ok()) return "";
  return CollapseWhitespace(ChildNamed(props.document_element(), "title").text().get());
}

std::map<std::string, std::string> Relationships(const ZipParts& zip, std::string_view part) {
  std::map<std::string, std::string> rels;
  size_t slash = part.rfind('/');
  std::string dir = slash == std::string_view::npos ? "" : std::string(part.substr(0, slash + 1));
  std::string file(slash == std::string_view::npos ? part : part.substr(slash + 1));
  const std::string* text = zip.Get(dir + "_rels/" + file + ".rels");
  if (text == nullptr) return rels;
  pugi::xml_document doc;
  if (!LoadXml(*text, "relationships", &doc).ok()) return rels;
  for (pugi::xml_node rel : doc.document_element().children()) {
    if (LocalName(rel) != "Relationship") continue;
    if (std::string_view(rel.attribute("TargetMode").value()) == "External") continue;
    rels[rel.attribute("Id").value()] = ResolvePart(part, rel.attribute("Target").value());
  }
  return rels;
}

}  // namespace skald
