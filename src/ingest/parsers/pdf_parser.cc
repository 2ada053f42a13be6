#include "ingest/parsers/pdf_parser.h"

#include <fmt/format.h>
#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-page.h>
#include <spdlog/spdlog.h>

#include <climits>
#include <mutex>

#include "common/strings.h"
#include "ingest/parsers/markdown_output.h"
#include "ingest/text_encoding.h"

namespace skald {
namespace {

std::string Utf8Of(const poppler::ustring& s) {
  poppler::byte_array bytes = s.to_utf8();
  std::string out(bytes.begin(), bytes.end());
  while (!out.empty() && out.back() == '\0') out.pop_back();
  return IsValidUtf8(out) ? out : RepairUtf8(out);
}

// Poppler reports syntax errors on stderr by default: into the debug log.
void QuietPoppler() {
  static std::once_flag once;
  std::call_once(once, [] {
    poppler::set_debug_error_function(
        [](const std::string& message, void*) { spdlog::debug("poppler: {}", message); }, nullptr);
  });
}

// Page text as paragraphs: form feeds dropped, trailing spaces trimmed,
// runs of blank lines folded into one.
std::string CleanPageText(std::string_view text) {
  std::string out;
  int blank = 0;
  for (std::string line : Split(text, '\n')) {
    for (char& c : line) {
      if (c == '\f' || c == '\r') c = ' ';
    }
    std::string_view trimmed = Trim(line);
    if (trimmed.empty()) {
      ++blank;
      continue;
    }
    if (!out.empty()) out += blank > 0 ? "\n\n" : "\n";
    blank = 0;
    // A line that would read as a Markdown heading stays text.
    if (trimmed[0] == '#') out += '\\';
    out.append(trimmed);
  }
  return out;
}

class PdfParser : public Parser {
 public:
  std::string_view Name() const override { return "pdf"; }

  bool Accepts(const FileProbe& probe) const override {
    if (!probe.extension.empty()) return probe.extension == ".pdf";
    return probe.head.substr(0, 5) == "%PDF-";
  }

  Result<ParsedDocument> Parse(const ParseInput& input) const override {
    QuietPoppler();
    if (input.bytes.size() > static_cast<size_t>(INT_MAX)) {
      return Status::InvalidArgument("the PDF file is too large");
    }
    if (input.bytes.substr(0, 1024).find("%PDF-") == std::string_view::npos) {
      return Status::InvalidArgument("not a PDF file (no %PDF- header)");
    }
    std::unique_ptr<poppler::document> pdf(poppler::document::load_from_raw_data(
        input.bytes.data(), static_cast<int>(input.bytes.size())));
    if (!pdf) return Status::InvalidArgument("corrupt PDF file (poppler cannot open it)");
    if (pdf->is_locked()) {
      return Status::InvalidArgument("the PDF file is encrypted (password-protected)");
    }
    ParsedDocument doc;
    doc.title = CollapseWhitespace(Utf8Of(pdf->get_title()));
    int pages = pdf->pages();
    std::string body;
    int with_text = 0;
    for (int i = 0; i < pages; ++i) {
      std::unique_ptr<poppler::page> page(pdf->create_page(i));
      if (!page) {
        doc.warnings.push_back(fmt::format("page {} cannot be read", i + 1));
        continue;
      }
      std::string text = CleanPageText(Utf8Of(page->text()));
      if (text.empty()) continue;
      ++with_text;
      AppendBlock(&body, fmt::format("## Page {}\n\n{}", i + 1, text));
    }
    if (with_text == 0) {
      return Status::InvalidArgument(fmt::format(
          "the PDF has no extractable text ({} pages; scanned images are not read)", pages));
    }
    if (with_text < pages) {
      doc.warnings.push_back(fmt::format("{} of {} pages have no text", pages - with_text, pages));
    }
    SetMarkdown(&doc, std::move(body), "PDF");
    doc.metadata.emplace_back("pages", std::to_string(pages));
    return doc;
  }
};

}  // namespace

std::unique_ptr<Parser> MakePdfParser() { return std::make_unique<PdfParser>(); }

}  // namespace skald
