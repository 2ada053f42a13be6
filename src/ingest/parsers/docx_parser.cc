#include "ingest/parsers/docx_parser.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "common/strings.h"
#include "ingest/parsers/markdown_output.h"
#include "ingest/parsers/zip_parts.h"

namespace skald {
namespace {

// Style id → heading level (1–6) of the paragraph styles that are headings.
std::map<std::string, int> HeadingStyles(const ZipParts& zip) {
  std::map<std::string, int> levels;
  const std::string* text = zip.Get("word/styles.xml");
  pugi::xml_document doc;
  if (text == nullptr || !LoadXml(*text, "word/styles.xml", &doc).ok()) return levels;
  for (pugi::xml_node style : doc.document_element().children()) {
    if (LocalName(style) != "style") continue;
    std::string id = AttrNamed(style, "styleId").value();
    std::string name = AsciiLower(AttrNamed(ChildNamed(style, "name"), "val").value());
    if (name == "title") {
      levels[id] = 1;
    } else if (name.rfind("heading ", 0) == 0 && name.size() == 9 && name[8] >= '1' && name[8] <= '9') {
      levels[id] = std::min(6, name[8] - '0');
    }
  }
  return levels;
}

// The text of a paragraph (or any subtree) in document order.
void RunText(const pugi::xml_node& node, std::string* out) {
  for (pugi::xml_node child : node.children()) {
    if (child.type() != pugi::node_element) continue;
    std::string_view name = LocalName(child);
    if (name == "pPr" || name == "rPr" || name == "instrText" || name == "delText" ||
        name == "del" || name == "footnoteReference") {
      continue;
    }
    if (name == "t") {
      *out += child.text().get();
    } else if (name == "tab") {
      *out += ' ';
    } else if (name == "br" || name == "cr") {
      *out += '\n';
    } else if (name == "p") {
      if (!out->empty()) *out += ' ';
      RunText(child, out);
    } else {
      RunText(child, out);
    }
  }
}

class DocxConverter {
 public:
  explicit DocxConverter(std::map<std::string, int> styles) : styles_(std::move(styles)) {}

  void Body(const pugi::xml_node& body, int depth = 0) {
    for (pugi::xml_node child : body.children()) {
      std::string_view name = LocalName(child);
      if (name == "p") {
        Paragraph(child);
      } else if (name == "tbl") {
        Table(child);
      } else if ((name == "sdt" || name == "sdtContent" || name == "customXml") && depth < 32) {
        Body(name == "sdt" ? ChildNamed(child, "sdtContent") : child, depth + 1);
      }
    }
  }

  std::string& out() { return out_; }

 private:
  void Paragraph(const pugi::xml_node& p) {
    std::string text;
    RunText(p, &text);
    pugi::xml_node props = ChildNamed(p, "pPr");
    int level = 0;
    if (auto it = styles_.find(AttrNamed(ChildNamed(props, "pStyle"), "val").value());
        it != styles_.end()) {
      level = it->second;
    }
    if (pugi::xml_node outline = ChildNamed(props, "outlineLvl"); outline && level == 0) {
      int lvl = AttrNamed(outline, "val").as_int(9);
      if (lvl >= 0 && lvl < 6) level = lvl + 1;
    }
    if (level > 0) {
      std::string heading = CollapseWhitespace(text);
      if (!heading.empty()) AppendBlock(&out_, std::string(static_cast<size_t>(level), '#') + " " + heading);
      last_was_item_ = false;
      return;
    }
    std::string para;
    for (const std::string& line : Split(text, '\n')) {
      std::string collapsed = CollapseWhitespace(line);
      if (collapsed.empty()) continue;
      if (!para.empty()) para += '\n';
      para += collapsed;
    }
    if (para.empty()) return;
    if (ChildNamed(props, "numPr")) {
      // Consecutive list items form one list block.
      if (last_was_item_) {
        out_ += "- " + CollapseWhitespace(para) + "\n";
      } else {
        AppendBlock(&out_, "- " + CollapseWhitespace(para));
      }
      last_was_item_ = true;
      return;
    }
    if (para[0] == '#' || para[0] == '>') para = "\\" + para;
    AppendBlock(&out_, para);
    last_was_item_ = false;
  }

  void Table(const pugi::xml_node& tbl) {
    std::vector<std::vector<std::string>> rows;
    for (pugi::xml_node tr : tbl.children()) {
      if (LocalName(tr) != "tr") continue;
      std::vector<std::string> row;
      for (pugi::xml_node tc : tr.children()) {
        if (LocalName(tc) != "tc") continue;
        std::string cell;
        RunText(tc, &cell);
        row.push_back(CollapseWhitespace(cell));
      }
      rows.push_back(std::move(row));
    }
    AppendBlock(&out_, MarkdownTable(rows));
    last_was_item_ = false;
  }

  std::map<std::string, int> styles_;
  std::string out_;
  bool last_was_item_ = false;
};

class DocxParser : public Parser {
 public:
  std::string_view Name() const override { return "docx"; }

  bool Accepts(const FileProbe& probe) const override {
    return probe.extension == ".docx" || probe.extension == ".docm";
  }

  Result<ParsedDocument> Parse(const ParseInput& input) const override {
    SKALD_ASSIGN_OR_RETURN(ZipParts zip, ZipParts::Read(input.bytes, "DOCX", [](std::string_view p) {
      return p == "word/document.xml" || p == "word/styles.xml" || p == "docProps/core.xml";
    }));
    const std::string* main = zip.Get("word/document.xml");
    if (main == nullptr) return Status::InvalidArgument("not a DOCX file (no word/document.xml)");
    pugi::xml_document xml;
    SKALD_RETURN_IF_ERROR(LoadXml(*main, "word/document.xml", &xml));
    DocxConverter converter(HeadingStyles(zip));
    converter.Body(ChildNamed(xml.document_element(), "body"));
    std::string& body = converter.out();
    if (Trim(body).empty()) return Status::InvalidArgument("the DOCX document has no text");
    ParsedDocument doc;
    doc.title = CoreTitle(zip);
    SetMarkdown(&doc, std::move(body), "DOCX");
    return doc;
  }
};

}  // namespace

std::unique_ptr<Parser> MakeDocxParser() { return std::make_unique<DocxParser>(); }

}  // namespace skald
