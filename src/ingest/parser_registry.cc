#include "ingest/parser.h"
#include "ingest/parsers/docx_parser.h"
#include "ingest/parsers/epub_parser.h"
#include "ingest/parsers/html_parser.h"
#include "ingest/parsers/media_parser.h"
#include "ingest/parsers/pdf_parser.h"
#include "ingest/parsers/pptx_parser.h"
#include "ingest/parsers/xlsx_parser.h"

namespace skald {

const Parser* ParserRegistry::Find(const FileProbe& probe) const {
  if (!probe.extension.empty()) {
    for (const auto& parser : parsers_) {
      if (parser->Accepts(FileProbe{probe.extension, {}})) return parser.get();
    }
  }
  for (const auto& parser : parsers_) {
    if (parser->Accepts(FileProbe{{}, probe.head})) return parser.get();
  }
  return nullptr;
}

ParserRegistry ParserRegistry::BuiltIn() {
  ParserRegistry registry;
  registry.Add(MakeHtmlParser());
  registry.Add(MakePdfParser());
  registry.Add(MakeDocxParser());
  registry.Add(MakePptxParser());
  registry.Add(MakeXlsxParser());
  registry.Add(MakeEpubParser());
  registry.Add(MakeMediaParser());
  return registry;
}

}  // namespace skald
