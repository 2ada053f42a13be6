#include "ingest/source_stage.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>

namespace skald {
namespace {

namespace fs = std::filesystem;

// The one visible top-level directory of an expanded archive, or the
// directory itself when there are several entries (or one file).
fs::path ImportRoot(const fs::path& tree) {
  std::error_code ec;
  fs::path only;
  int visible = 0;
  for (fs::directory_iterator it(tree, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;  // the import skips hidden entries too
    if (++visible > 1) return tree;
    only = it->path();
  }
  if (visible == 1 && fs::is_directory(fs::symlink_status(only, ec))) return only;
  return tree;
}

}  // namespace

Result<StagedSource> StageSource(std::string_view url, const std::string& source_path,
                                 std::string_view display_name, const StageOptions& options) {
  StagedSource staged{source_path, std::string(display_name)};
  if (!url.empty()) {
    SKALD_ASSIGN_OR_RETURN(
        FetchedFile fetched,
        FetchUrl(std::string(url), options.staging_dir + "/fetch", options.fetch));
    staged = {fetched.path, fetched.name};
  }
  std::error_code ec;
  if (!IsArchiveName(staged.display_name) || !fs::is_regular_file(staged.path, ec)) {
    return staged;
  }
  const fs::path tree = fs::path(options.staging_dir) / "tree";
  fs::remove_all(tree, ec);
  Result<ArchiveStats> stats = ExtractArchive(staged.path, tree.string(), options.archive);
  if (!stats.ok()) {
    const Status& st = stats.status();
    return Status(st.code(), fmt::format("{}: {}", staged.display_name, st.message()));
  }
  spdlog::debug("staged archive {}: {} files, {} directories, {} bytes", staged.display_name,
                stats->files, stats->directories, stats->bytes);
  staged.path = ImportRoot(tree).string();
  staged.display_name = ArchiveStem(staged.display_name);
  return staged;
}

void RemoveStaging(const std::string& staging_dir) {
  if (staging_dir.empty()) return;
  std::error_code ec;
  fs::remove_all(staging_dir, ec);
  if (ec) spdlog::warn("cannot remove the staging directory {}: {}", staging_dir, ec.message());
}

}  // namespace skald
