#pragma once

// Source import: turns a local file or directory into the file tree of a
// resource — the parse step of add-resource (reference internals §1.3). The
// result is a plan (directories and file contents relative to the new
// resource's root); writing it and summarizing it are separate steps.
//
// Markdown and plain-text files go through the markdown splitter (small
// documents stay one file, large ones become a directory of sections).
// Documents a parser takes (ingest/parser.h: HTML, PDF, DOCX, PPTX, XLSX,
// EPUB by extension, or by magic bytes when the extension says nothing)
// become Markdown that takes the same path, named after the source's stem
// ("report.pdf" → "report.md" or "report/"); images, audio and video become
// a metadata file "{stem}_{ext}.md" (only their headers are read, whatever
// their size). A document its parser rejects (corrupt, encrypted, no text)
// is skipped with a warning giving the reason. Other text files (code,
// JSON, YAML, TOML, CSV, ...) are copied whole; text that is not UTF-8 is
// transcoded (ICU's charset detection) or repaired (U+FFFD), with a
// warning. Binary files and formats without a parser (archives inside a
// directory, legacy .doc/.xls/.ppt) are skipped with a warning naming them.
// (An archive that is the source itself is read into memory and planned
// from there: source_stage.h.) Directory
// imports skip hidden entries, symbolic links, empty files, files larger
// than max_file_bytes and well-known build/vendor directories.
//
// Thread safety: pure functions apart from reading the source.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/archive_extract.h"
#include "skald/result.h"
#include "text/markdown_splitter.h"

namespace skald {

class HelperPool;

struct ImportOptions {
  MarkdownSplitOptions split;
  // Glob patterns (uri/glob_pattern.h syntax) matched against the path of a
  // file relative to the imported directory: only matching files are
  // imported (empty = all), and matching files are left out.
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  // Directory names to skip besides the built-in list (.git, node_modules, ...).
  std::vector<std::string> ignore_dirs;
  // Larger files are skipped (OpenViking: 10 MiB).
  uint64_t max_file_bytes = uint64_t{10} << 20;
  // Files imported from one directory at most; more is an error (a typo'd
  // path like "/" should not start importing a whole disk).
  uint64_t max_files = 100000;
  // Bytes one import may hold (the plan keeps them in memory until they
  // are written); more text is ResourceExhausted.
  uint64_t max_total_bytes = uint64_t{2} << 30;
  // Pictures, recordings and videos one import keeps whole (counted in
  // max_total_bytes too); past it, in source order, each is stored as its
  // description instead, with a warning.
  uint64_t max_media_bytes = uint64_t{1} << 30;
  // Archives (zip, tar, tar.gz) are expanded before they are planned:
  // entries, expanded bytes and the expansion ratio are capped there
  // (archive_extract.h; defaults: 100,000 entries, 1 GiB, 100x past 8 MiB).
  ArchiveLimits archive;
  // Helper threads of the owner (Db) that read and split files beside the
  // planning thread; null: a thread is started for each group of files.
  // Borrowed.
  HelperPool* helpers = nullptr;

  Status Validate() const;
};

struct ImportFile {
  std::string path;  // relative to the resource root, "/"-separated, valid URI segments
  std::string content;
  // SHA-256 of `content` (hex), computed where the file was read (two at
  // a time); empty when it was not.
  std::string sha256_hex = {};
};

struct ImportPlan {
  std::string root_name;              // default name of the resource root directory
  std::vector<std::string> dirs;      // relative directories to create, parents first
  std::vector<ImportFile> files;      // in source order
  std::vector<std::string> warnings;  // one line per skipped file, with the reason
  uint64_t source_files = 0;          // files looked at
  uint64_t source_bytes = 0;          // bytes of the files imported
};

// Reads `source_path` (a file or a directory) and plans its resource tree.
// `display_name` names a single file when the path does not (temp uploads:
// the original file name); "" = the path's last component.
// NotFound when the path does not exist; InvalidArgument for other kinds of
// files (devices, sockets) or a directory with nothing importable.
Result<ImportPlan> PlanImport(const std::string& source_path, std::string_view display_name,
                              const ImportOptions& options);

// Plans the files of `tree` (an archive read into memory: ReadArchive) as
// PlanImport plans a directory holding them, with root name `root_name`.
// The plan takes the files' bytes from the tree (moved, not copied).
Result<ImportPlan> PlanImport(MemoryTree tree, std::string_view root_name,
                              const ImportOptions& options);

// A name usable as one URI segment: `name` itself when valid, else
// SanitizePathSegment(name).
std::string SegmentFor(std::string_view name);

// Text worth importing or indexing: valid UTF-8 without NUL bytes.
bool LooksLikeText(std::string_view bytes);

// A file name without its last extension ("a.tar.gz" -> "a.tar"; ".env"
// and names without a dot stay as they are).
std::string StemOf(std::string_view name);

}  // namespace skald
