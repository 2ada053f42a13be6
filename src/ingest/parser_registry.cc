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

const ParserRegistry& ParserRegistry::Default() {
  static const ParserRegistry* registry = [] {
    auto* r = new ParserRegistry();
    r->Add(MakeHtmlParser());
    r->Add(MakePdfParser());
    r->Add(MakeDocxParser());
    r->Add(MakePptxParser());
    r->Add(MakeXlsxParser());
    r->Add(MakeEpubParser());
    r->Add(MakeMediaParser());
    return r;
  }();
  return *registry;
}

}  // namespace skald
