#include "ingest/parsers/pptx_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/strings.h"
#include "ingest/parsers/markdown_output.h"
#include "ingest/parsers/zip_parts.h"

namespace skald {
namespace {

// The text of a DrawingML paragraph (a:p): its a:t runs, a:br as a space.
std::string ParagraphText(const pugi::xml_node& p) {
  std::string text;
  for (pugi::xpath_node found : p.select_nodes(".//*")) {
    pugi::xml_node node = found.node();
    std::string_view name = LocalName(node);
    if (name == "t") text += node.text().get();
    if (name == "br") text += ' ';
  }
  return CollapseWhitespace(text);
}

// The placeholder type of a shape ("title", "body"...); "" when it has
// none (a plain text box) or none is named.
std::string_view PlaceholderType(const pugi::xml_node& sp) {
  return ChildNamed(ChildNamed(ChildNamed(sp, "nvSpPr"), "nvPr"), "ph").attribute("type").value();
}

bool IsTitleShape(const pugi::xml_node& sp) {
  std::string_view type = PlaceholderType(sp);
  return type == "title" || type == "ctrTitle";
}

// The speaker notes of a slide: the body placeholder of the notes slide its
// relationships name (ppt/notesSlides/…), one line per paragraph; "" when
// it has none. The notes page's slide image, number and header are not
// notes.
std::string SpeakerNotes(const ZipParts& zip, const std::string& slide_part) {
  for (const auto& [id, target] : Relationships(zip, slide_part)) {
    if (target.rfind("ppt/notesSlides/", 0) != 0) continue;
    const std::string* part = zip.Get(target);
    pugi::xml_document xml;
    if (part == nullptr || !LoadXml(*part, target, &xml).ok()) return "";
    std::string notes;
    for (pugi::xml_node sp :
         ChildNamed(ChildNamed(xml.document_element(), "cSld"), "spTree").children()) {
      if (LocalName(sp) != "sp" || PlaceholderType(sp) != "body") continue;
      for (pugi::xml_node p : ChildNamed(sp, "txBody").children()) {
        if (LocalName(p) != "p") continue;
        std::string text = ParagraphText(p);
        if (text.empty()) continue;
        if (text[0] == '#' || text[0] == '>') text = "\\" + text;
        notes += text + "\n";
      }
    }
    return notes;
  }
  return "";
}

struct SlideText {
  std::string title;
  std::string body;
};

// Walks shapes in z-order: text bodies become paragraphs, tables tables.
void Shapes(const pugi::xml_node& tree, SlideText* slide, int depth = 0) {
  for (pugi::xml_node shape : tree.children()) {
    std::string_view name = LocalName(shape);
    if (name == "sp") {
      pugi::xml_node body = ChildNamed(shape, "txBody");
      std::vector<std::string> lines;
      for (pugi::xml_node p : body.children()) {
        if (LocalName(p) != "p") continue;
        std::string text = ParagraphText(p);
        if (!text.empty()) lines.push_back(std::move(text));
      }
      if (lines.empty()) continue;
      if (IsTitleShape(shape) && slide->title.empty()) {
        slide->title = Join(lines, " ");
        continue;
      }
      std::string block;
      for (std::string& line : lines) {
        if (line[0] == '#' || line[0] == '>') line = "\\" + line;
        block += line + "\n";
      }
      AppendBlock(&slide->body, block);
    } else if (name == "graphicFrame") {
      for (pugi::xpath_node tbl : shape.select_nodes(".//*[local-name()='tbl']")) {
        std::vector<std::vector<std::string>> rows;
        for (pugi::xml_node tr : tbl.node().children()) {
          if (LocalName(tr) != "tr") continue;
          std::vector<std::string> row;
          for (pugi::xml_node tc : tr.children()) {
            if (LocalName(tc) != "tc") continue;
            std::vector<std::string> parts;
            for (pugi::xpath_node p : tc.select_nodes(".//*[local-name()='p']")) {
              std::string text = ParagraphText(p.node());
              if (!text.empty()) parts.push_back(std::move(text));
            }
            row.push_back(Join(parts, " "));
          }
          rows.push_back(std::move(row));
        }
        AppendBlock(&slide->body, MarkdownTable(rows));
      }
    } else if (name == "grpSp" && depth < 16) {
      Shapes(shape, slide, depth + 1);
    }
  }
}

// Slide parts in presentation order: p:sldIdLst through the
// presentation's relationships; failing that, slideN.xml by N.
std::vector<std::string> SlideOrder(const ZipParts& zip) {
  std::vector<std::string> order;
  const std::string* pres = zip.Get("ppt/presentation.xml");
  pugi::xml_document doc;
  if (pres != nullptr && LoadXml(*pres, "ppt/presentation.xml", &doc).ok()) {
    auto rels = Relationships(zip, "ppt/presentation.xml");
    for (pugi::xml_node id : ChildNamed(doc.document_element(), "sldIdLst").children()) {
      auto it = rels.find(std::string(RelationshipId(id)));
      if (it != rels.end() && zip.Get(it->second) != nullptr) order.push_back(it->second);
    }
  }
  if (!order.empty()) return order;
  std::vector<std::pair<long long, std::string>> numbered;
  for (const auto& [path, text] : zip.parts()) {
    std::string_view p = path;
    if (p.rfind("ppt/slides/slide", 0) != 0 || p.size() < 21 || p.substr(p.size() - 4) != ".xml") continue;
    long long n = 0;
    if (ParseInt64(p.substr(16, p.size() - 20), &n)) numbered.emplace_back(n, path);
  }
  std::sort(numbered.begin(), numbered.end());
  for (auto& [n, path] : numbered) order.push_back(std::move(path));
  return order;
}

class PptxParser : public Parser {
 public:
  std::string_view Name() const override { return "pptx"; }

  bool Accepts(const FileProbe& probe) const override {
    return probe.extension == ".pptx" || probe.extension == ".pptm";
  }

  Result<ParsedDocument> Parse(const ParseInput& input) const override {
    SKALD_ASSIGN_OR_RETURN(ZipParts zip, ZipParts::Read(input.bytes, "PPTX", [](std::string_view p) {
      return p == "ppt/presentation.xml" || p == "ppt/_rels/presentation.xml.rels" ||
             p == "docProps/core.xml" ||
             (p.rfind("ppt/slides/", 0) == 0 && p.find('/', 11) == std::string_view::npos) ||
             (p.rfind("ppt/slides/_rels/", 0) == 0 && p.find('/', 17) == std::string_view::npos) ||
             (p.rfind("ppt/notesSlides/", 0) == 0 && p.find('/', 16) == std::string_view::npos);
    }));
    std::vector<std::string> slides = SlideOrder(zip);
    if (slides.empty()) return Status::InvalidArgument("not a PPTX file (no slides found)");
    ParsedDocument doc;
    std::string body;
    int with_text = 0;
    for (size_t i = 0; i < slides.size(); ++i) {
      pugi::xml_document xml;
      Status loaded = LoadXml(*zip.Get(slides[i]), slides[i], &xml);
      if (!loaded.ok()) {
        doc.warnings.push_back(fmt::format("slide {} skipped: {}", i + 1, loaded.message()));
        continue;
      }
      SlideText slide;
      Shapes(ChildNamed(ChildNamed(xml.document_element(), "cSld"), "spTree"), &slide);
      const std::string notes = SpeakerNotes(zip, slides[i]);
      if (slide.title.empty() && Trim(slide.body).empty() && notes.empty()) continue;
      ++with_text;
      std::string section = fmt::format("## Slide {}", i + 1);
      if (!slide.title.empty()) section += "\n\n### " + slide.title;
      if (!Trim(slide.body).empty()) section += "\n\n" + std::string(Trim(slide.body));
      if (!notes.empty()) section += "\n\n#### Notes\n\n" + std::string(Trim(notes));
      AppendBlock(&body, section);
    }
    if (with_text == 0) return Status::InvalidArgument("the PPTX presentation has no text");
    doc.title = CoreTitle(zip);
    SetMarkdown(&doc, std::move(body), "PPTX");
    doc.metadata.emplace_back("slides", std::to_string(slides.size()));
    return doc;
  }
};

}  // namespace

std::unique_ptr<Parser> MakePptxParser() { return std::make_unique<PptxParser>(); }

}  // namespace skald
