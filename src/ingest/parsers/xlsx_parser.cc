#include "ingest/parsers/xlsx_parser.h"

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "common/strings.h"
#include "ingest/parsers/markdown_output.h"
#include "ingest/parsers/zip_parts.h"

namespace skald {
namespace {

// Text of a string item (<si> or <is>): its <t>, or its rich-text runs'.
std::string StringItem(const pugi::xml_node& si) {
  std::string text;
  for (pugi::xml_node child : si.children()) {
    std::string_view name = LocalName(child);
    if (name == "t") text += child.text().get();
    if (name == "r") text += ChildNamed(child, "t").text().get();
  }
  return text;
}

std::vector<std::string> SharedStrings(const ZipParts& zip, const std::string& path) {
  std::vector<std::string> strings;
  const std::string* text = zip.Get(path);
  pugi::xml_document doc;
  if (text == nullptr || !LoadXml(*text, path, &doc).ok()) return strings;
  for (pugi::xml_node si : doc.document_element().children()) {
    if (LocalName(si) == "si") strings.push_back(StringItem(si));
  }
  return strings;
}

// Column index (0-based) of a cell reference ("C7" → 2); -1 if malformed.
int ColumnOf(std::string_view ref) {
  int col = 0;
  size_t i = 0;
  for (; i < ref.size() && ref[i] >= 'A' && ref[i] <= 'Z'; ++i) {
    col = col * 26 + (ref[i] - 'A' + 1);
    if (col > 1 << 20) return -1;
  }
  return i == 0 ? -1 : col - 1;
}

struct Sheet {
  std::string name;
  std::string part;
};

struct SheetTable {
  std::vector<std::vector<std::string>> rows;
  bool rows_cut = false;
  bool columns_cut = false;
};

SheetTable ReadSheet(const pugi::xml_node& worksheet, const std::vector<std::string>& shared) {
  SheetTable table;
  for (pugi::xml_node row : ChildNamed(worksheet, "sheetData").children()) {
    if (LocalName(row) != "row") continue;
    if (static_cast<int>(table.rows.size()) >= kMaxSheetRows) {
      table.rows_cut = true;
      break;
    }
    std::vector<std::string> cells;
    int next = 0;
    for (pugi::xml_node c : row.children()) {
      if (LocalName(c) != "c") continue;
      int col = ColumnOf(c.attribute("r").value());
      if (col < 0) col = next;
      next = col + 1;
      if (col >= kMaxSheetColumns) {
        table.columns_cut = true;
        continue;
      }
      std::string_view type = c.attribute("t").value();
      std::string value;
      if (type == "s") {
        long long index = -1;
        if (ParseInt64(Trim(ChildNamed(c, "v").text().get()), &index) && index >= 0 &&
            index < static_cast<long long>(shared.size())) {
          value = shared[static_cast<size_t>(index)];
        }
      } else if (type == "inlineStr") {
        value = StringItem(ChildNamed(c, "is"));
      } else if (type == "b") {
        value = std::string_view(ChildNamed(c, "v").text().get()) == "1" ? "TRUE" : "FALSE";
      } else {
        value = ChildNamed(c, "v").text().get();
      }
      if (static_cast<int>(cells.size()) <= col) cells.resize(static_cast<size_t>(col) + 1);
      cells[static_cast<size_t>(col)] = CollapseWhitespace(value);
    }
    // Blank rows between data are kept as blank rows; leading ones dropped.
    bool blank = true;
    for (const std::string& cell : cells) blank = blank && cell.empty();
    if (blank && table.rows.empty()) continue;
    table.rows.push_back(std::move(cells));
  }
  while (!table.rows.empty()) {
    bool blank = true;
    for (const std::string& cell : table.rows.back()) blank = blank && cell.empty();
    if (!blank) break;
    table.rows.pop_back();
  }
  return table;
}

class XlsxParser : public Parser {
 public:
  std::string_view Name() const override { return "xlsx"; }

  bool Accepts(const FileProbe& probe) const override {
    return probe.extension == ".xlsx" || probe.extension == ".xlsm";
  }

  Result<ParsedDocument> Parse(const ParseInput& input) const override {
    SKALD_ASSIGN_OR_RETURN(ZipParts zip, ZipParts::Read(input.bytes, "XLSX", [](std::string_view p) {
      if (p == "docProps/core.xml") return true;
      return p.rfind("xl/", 0) == 0 && (p.size() > 4 && (p.substr(p.size() - 4) == ".xml" ||
                                                         p.substr(p.size() - 5) == ".rels")) &&
             p.find("/media/") == std::string_view::npos;
    }));
    const std::string* workbook = zip.Get("xl/workbook.xml");
    if (workbook == nullptr) return Status::InvalidArgument("not an XLSX file (no xl/workbook.xml)");
    pugi::xml_document book;
    SKALD_RETURN_IF_ERROR(LoadXml(*workbook, "xl/workbook.xml", &book));
    auto rels = Relationships(zip, "xl/workbook.xml");
    std::string shared_path = "xl/sharedStrings.xml";
    std::vector<Sheet> sheets;
    for (pugi::xml_node sheet : ChildNamed(book.document_element(), "sheets").children()) {
      if (LocalName(sheet) != "sheet") continue;
      auto it = rels.find(std::string(RelationshipId(sheet)));
      if (it != rels.end()) sheets.push_back({CollapseWhitespace(sheet.attribute("name").value()), it->second});
    }
    for (const auto& [id, part] : rels) {
      if (part.size() >= 17 && part.substr(part.size() - 17) == "sharedStrings.xml") shared_path = part;
    }
    if (sheets.empty()) return Status::InvalidArgument("the XLSX workbook has no sheets");
    std::vector<std::string> shared = SharedStrings(zip, shared_path);
    ParsedDocument doc;
    std::string body;
    std::vector<std::string> names;
    for (const Sheet& sheet : sheets) names.push_back(sheet.name);
    AppendBlock(&body, "**Sheets:** " + Join(names, ", "));
    bool any = false;
    for (const Sheet& sheet : sheets) {
      const std::string* text = zip.Get(sheet.part);
      pugi::xml_document xml;
      if (text == nullptr || !LoadXml(*text, sheet.part, &xml).ok()) {
        doc.warnings.push_back(fmt::format("sheet {} skipped (missing or not XML)", sheet.name));
        continue;
      }
      SheetTable table = ReadSheet(xml.document_element(), shared);
      std::string markdown = MarkdownTable(table.rows);
      std::string section = "## Sheet: " + sheet.name + "\n\n";
      section += markdown.empty() ? "(empty sheet)" : markdown;
      AppendBlock(&body, section);
      any = any || !markdown.empty();
      if (table.rows_cut) {
        AppendBlock(&body, fmt::format("(rows after the first {} not shown)", kMaxSheetRows));
        doc.warnings.push_back(fmt::format("sheet {} cut at {} rows", sheet.name, kMaxSheetRows));
      }
      if (table.columns_cut) {
        doc.warnings.push_back(fmt::format("sheet {} cut at {} columns", sheet.name, kMaxSheetColumns));
      }
    }
    if (!any) return Status::InvalidArgument("the XLSX workbook has no cell values");
    doc.title = CoreTitle(zip);
    SetMarkdown(&doc, std::move(body), "XLSX");
    doc.metadata.emplace_back("sheets", std::to_string(sheets.size()));
    return doc;
  }
};

}  // namespace

std::unique_ptr<Parser> MakeXlsxParser() { return std::make_unique<XlsxParser>(); }

}  // namespace skald
