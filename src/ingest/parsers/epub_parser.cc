#include "ingest/parsers/epub_parser.h"

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "common/strings.h"
#include "ingest/parsers/html_parser.h"
#include "ingest/parsers/markdown_output.h"
#include "ingest/parsers/zip_parts.h"
#include "ingest/text_encoding.h"

namespace skald {
namespace {

bool IsChapterType(std::string_view media_type) {
  return media_type == "application/xhtml+xml" || media_type == "text/html" ||
         media_type == "application/x-dtbook+xml";
}

class EpubParser : public Parser {
 public:
  std::string_view Name() const override { return "epub"; }

  bool Accepts(const FileProbe& probe) const override { return probe.extension == ".epub"; }

  Result<ParsedDocument> Parse(const ParseInput& input) const override {
    SKALD_ASSIGN_OR_RETURN(ZipParts zip, ZipParts::Read(input.bytes, "EPUB", [](std::string_view p) {
      std::string lower = AsciiLower(p);
      for (std::string_view ext : {".xml", ".opf", ".xhtml", ".html", ".htm"}) {
        if (lower.size() >= ext.size() && lower.substr(lower.size() - ext.size()) == ext) return true;
      }
      return false;
    }));
    const std::string* container = zip.Get("META-INF/container.xml");
    if (container == nullptr) return Status::InvalidArgument("not an EPUB file (no META-INF/container.xml)");
    pugi::xml_document cdoc;
    SKALD_RETURN_IF_ERROR(LoadXml(*container, "META-INF/container.xml", &cdoc));
    std::string opf_path;
    for (pugi::xpath_node root : cdoc.select_nodes("//*[local-name()='rootfile']")) {
      opf_path = ResolvePart("", root.node().attribute("full-path").value());
      break;
    }
    const std::string* opf = opf_path.empty() ? nullptr : zip.Get(opf_path);
    if (opf == nullptr) return Status::InvalidArgument("corrupt EPUB file (its package document is missing)");
    pugi::xml_document package;
    SKALD_RETURN_IF_ERROR(LoadXml(*opf, opf_path, &package));
    pugi::xml_node pkg = package.document_element();
    pugi::xml_node metadata = ChildNamed(pkg, "metadata");

    ParsedDocument doc;
    doc.title = CollapseWhitespace(ChildNamed(metadata, "title").text().get());
    std::vector<std::string> authors;
    for (pugi::xml_node node : metadata.children()) {
      if (LocalName(node) == "creator") authors.push_back(CollapseWhitespace(node.text().get()));
    }
    std::map<std::string, std::pair<std::string, std::string>> manifest;  // id → (part, media type)
    for (pugi::xml_node item : ChildNamed(pkg, "manifest").children()) {
      if (LocalName(item) != "item") continue;
      manifest[item.attribute("id").value()] = {ResolvePart(opf_path, item.attribute("href").value()),
                                                item.attribute("media-type").value()};
    }
    std::string body;
    if (!doc.title.empty()) AppendBlock(&body, "# " + doc.title);
    if (!authors.empty()) AppendBlock(&body, "**Author:** " + Join(authors, ", "));
    int chapters = 0;
    for (pugi::xml_node ref : ChildNamed(pkg, "spine").children()) {
      if (LocalName(ref) != "itemref") continue;
      std::string idref = ref.attribute("idref").value();
      auto it = manifest.find(idref);
      if (it == manifest.end() || !IsChapterType(it->second.second)) continue;
      const std::string* chapter = zip.Get(it->second.first);
      if (chapter == nullptr) {
        doc.warnings.push_back(fmt::format("chapter {} is missing", it->second.first));
        continue;
      }
      Result<std::string> markdown = HtmlToMarkdown(ToUtf8(*chapter).text, nullptr);
      if (!markdown.ok()) {
        doc.warnings.push_back(
            fmt::format("chapter {} skipped: {}", it->second.first, markdown.status().message()));
        continue;
      }
      if (Trim(*markdown).empty()) continue;
      ++chapters;
      AppendBlock(&body, *markdown);
    }
    if (chapters == 0) return Status::InvalidArgument("the EPUB book has no text chapters");
    SetMarkdown(&doc, std::move(body), "EPUB");  // the title heading is there already
    doc.metadata.emplace_back("chapters", std::to_string(chapters));
    if (!authors.empty()) doc.metadata.emplace_back("authors", Join(authors, ", "));
    return doc;
  }
};

}  // namespace

std::unique_ptr<Parser> MakeEpubParser() { return std::make_unique<EpubParser>(); }

}  // namespace skald
