#include "ingest/parsers/markdown_output.h"

#include <algorithm>

#include "common/strings.h"

namespace skald {

std::string MarkdownTable(const std::vector<std::vector<std::string>>& rows) {
  size_t width = 0;
  bool any = false;
  for (const auto& row : rows) {
    width = std::max(width, row.size());
    for (const std::string& cell : row) any = any || !Trim(cell).empty();
  }
  if (!any || width == 0) return "";
  std::string out;
  auto emit = [&](const std::vector<std::string>& row) {
    out += '|';
    for (size_t c = 0; c < width; ++c) {
      std::string cell = c < row.size() ? CollapseWhitespace(row[c]) : "";
      std::string escaped;
      for (char ch : cell) {
        if (ch == '|') escaped += '\\';
        escaped += ch;
      }
      out += ' ' + escaped + " |";
    }
    out += '\n';
  };
  emit(rows[0]);
  out += '|';
  for (size_t c = 0; c < width; ++c) out += " --- |";
  out += '\n';
  for (size_t r = 1; r < rows.size(); ++r) emit(rows[r]);
  return out;
}

void AppendBlock(std::string* out, std::string_view block) {
  std::string_view trimmed = Trim(block);
  if (trimmed.empty()) return;
  if (!out->empty()) {
    while (!out->empty() && out->back() == '\n') out->pop_back();
    *out += "\n\n";
  }
  out->append(trimmed);
  *out += '\n';
}

void SetMarkdown(ParsedDocument* doc, std::string body, std::string_view format) {
  if (!doc->title.empty()) {
    std::string heading = "# " + doc->title;
    if (body.rfind(heading + "\n", 0) != 0) body = heading + "\n\n" + body;
    doc->metadata.emplace_back("title", doc->title);
  }
  doc->markdown = std::move(body);
  doc->metadata.emplace_back("format", std::string(format));
}

}  // namespace skald
