#pragma once

// Document parsers: turn a file that is not Markdown (HTML, PDF, office
// documents, EPUB, media) into Markdown text, which source import then
// splits like any .md file (reference internals §1.3: every document parser
// converts to Markdown and hands it to the markdown path). Each parser lives
// in its own file under ingest/parsers/; ParserRegistry picks one per file.
//
// Contract of every parser: Parse never throws and never crashes on bad
// input — a corrupt, encrypted or truncated file is an error Status whose
// message names the problem (not a host path); output is valid UTF-8.
//
// Thread safety: parsers and a filled registry are immutable; Parse may be called from several
// threads at once.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skald/result.h"

namespace skald {

// What a parser is offered to decide whether it takes a file.
struct FileProbe {
  std::string_view extension;  // lower case with the dot (".pdf"); "" when none
  std::string_view head;       // the first bytes of the file (up to kProbeBytes)
};

// How much of a file FileProbe::head holds at most.
inline constexpr size_t kProbeBytes = 512;

// The bytes handed to Parse.
struct ParseInput {
  std::string_view name;   // the file's name (no directories), for titles and messages
  std::string_view bytes;  // the whole file, or its first HeadBytes() bytes
  uint64_t file_size = 0;  // the file's size on disk
};

// A parser's result.
struct ParsedDocument {
  // The document's title when the file states one (HTML <title>, DOCX core
  // properties, EPUB dc:title); "" otherwise. The Markdown starts with it
  // as "# title" already.
  std::string title;
  // The document as Markdown, valid UTF-8, never empty.
  std::string markdown;
  // The output file's stem when it should differ from the source's stem
  // (media: "photo_png", the directory a lone picture is imported as); "" =
  // the source name without its extension.
  std::string stem;
  // Facts about the source ("pages" → "3", "format" → "PDF"), in order.
  std::vector<std::pair<std::string, std::string>> metadata;
  // Things lost on the way (a sheet truncated, a chapter that failed), one
  // line each, without the file name (the caller prefixes it).
  std::vector<std::string> warnings;
};

class Parser {
 public:
  virtual ~Parser() = default;
  // A short lower-case name ("html", "pdf").
  virtual std::string_view Name() const = 0;
  // Whether this parser takes the file: by `probe.extension` when it is
  // not empty (head unused), else by the magic bytes of `probe.head`.
  virtual bool Accepts(const FileProbe& probe) const = 0;
  // 0 = Parse needs the whole file (subject to the import's size limit);
  // n > 0 = the first n bytes are enough, whatever the file's size (media
  // headers).
  virtual size_t HeadBytes() const { return 0; }
  // true: the file itself is stored as it is (images, audio, video), and
  // Parse gives only its description, which the indexer summarizes in its
  // place (semantic_indexer.cc); false: Parse's Markdown is stored.
  virtual bool KeepsOriginal() const { return false; }
  virtual Result<ParsedDocument> Parse(const ParseInput& input) const = 0;
};

// An ordered set of parsers: the first that accepts a file parses it.
class ParserRegistry {
 public:
  ParserRegistry() = default;
  ParserRegistry(ParserRegistry&&) = default;
  ParserRegistry& operator=(ParserRegistry&&) = default;

  void Add(std::unique_ptr<Parser> parser) { parsers_.push_back(std::move(parser)); }

  // The parser for `probe`, or nullptr when none accepts it: the first
  // parser that claims probe.extension; when none does (or it is ""), the
  // first that recognizes probe.head's magic bytes ("" head: none).
  const Parser* Find(const FileProbe& probe) const;

  // A registry of every built-in parser: HTML, PDF, DOCX, PPTX, XLSX,
  // EPUB, media (cheap to build: one per import).
  static ParserRegistry BuiltIn();

 private:
  std::vector<std::unique_ptr<Parser>> parsers_;
};

}  // namespace skald
