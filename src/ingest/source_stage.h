#pragma once

// Staging of an add-resource source before it is planned
// (source_import.h): an http(s) URL is downloaded (url_fetch.h) into a
// staging directory private to the job, and an archive — fetched, uploaded
// or local, recognised by its name — is read into memory
// (archive_extract.h): the import writes its files once, with no expanded
// copy on disk for the durability barriers to flush as well.
// An archive whose only top-level entry is one directory ("docs/...", as
// `zip -r docs.zip docs` or a GitHub download makes) is imported from that
// directory, so the resource root does not hold a lone copy of itself.
//
// Thread safety: safe to call concurrently with different staging dirs.

#include <optional>
#include <string>
#include <string_view>

#include "ingest/archive_extract.h"
#include "ingest/source_import.h"
#include "ingest/url_fetch.h"
#include "skald/result.h"

namespace skald {

struct StageOptions {
  // Directory the source may be expanded into; created when needed. The
  // caller removes it (RemoveStaging) when it no longer needs it.
  std::string staging_dir;
  FetchOptions fetch;
  ArchiveLimits archive;
};

// What PlanImport reads.
struct StagedSource {
  std::string path;          // a local file or directory ("" when `tree` is set)
  std::string display_name;  // the name it goes by (a file's name decides its parser)
  std::optional<MemoryTree> tree;  // an archive's files, rooted as described above
};

// Plans `staged` (PlanImport of its tree or of its path).
Result<ImportPlan> PlanStaged(StagedSource staged, const ImportOptions& options);

// `url` non-empty: fetched first (source_path is then ignored). Sources
// that are neither URLs nor archives come back as they are, untouched.
Result<StagedSource> StageSource(std::string_view url, const std::string& source_path,
                                 std::string_view display_name, const StageOptions& options);

// Removes a staging directory and everything in it (missing is fine).
void RemoveStaging(const std::string& staging_dir);

}  // namespace skald
