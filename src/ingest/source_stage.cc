#include "ingest/source_stage.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>

namespace skald {
namespace {

namespace fs = std::filesystem;

// The top-level entry of a path in an archive.
std::string_view TopOf(std::string_view path) { return path.substr(0, path.find('/')); }

// The archive re-rooted at its one visible top-level directory, when it
// has one and nothing else visible at the top (the import skips hidden
// entries too); else as it is.
MemoryTree ImportRoot(MemoryTree tree) {
  std::string only;
  bool several = false;
  auto visit = [&](std::string_view path) {
    std::string_view top = TopOf(path);
    if (top.empty() || top[0] == '.' || several) return;
    if (only.empty()) {
      only = std::string(top);
    } else if (top != only) {
      several = true;
    }
  };
  for (const std::string& dir : tree.dirs) visit(dir);
  for (const auto& [path, bytes] : tree.files) visit(path);
  if (several || only.empty() || tree.dirs.count(only) == 0) return tree;
  const std::string prefix = only + "/";
  MemoryTree rooted;
  rooted.stats = tree.stats;
  for (const std::string& dir : tree.dirs) {
    if (dir.compare(0, prefix.size(), prefix) == 0) rooted.dirs.insert(dir.substr(prefix.size()));
  }
  while (!tree.files.empty()) {
    auto node = tree.files.extract(tree.files.begin());  // the bytes move, uncopied
    if (node.key().compare(0, prefix.size(), prefix) != 0) continue;  // hidden, at the top
    node.key() = node.key().substr(prefix.size());
    rooted.files.insert(std::move(node));
  }
  return rooted;
}

}  // namespace

Result<StagedSource> StageSource(std::string_view url, const std::string& source_path,
                                 std::string_view display_name, const StageOptions& options) {
  StagedSource staged{source_path, std::string(display_name), std::nullopt};
  if (!url.empty()) {
    SKALD_ASSIGN_OR_RETURN(
        FetchedFile fetched,
        FetchUrl(std::string(url), options.staging_dir + "/fetch", options.fetch));
    staged = {fetched.path, fetched.name, std::nullopt};
  }
  std::error_code ec;
  if (!IsArchiveName(staged.display_name) || !fs::is_regular_file(staged.path, ec)) {
    return staged;
  }
  Result<MemoryTree> tree = ReadArchive(staged.path, options.archive);
  if (!tree.ok()) {
    const Status& st = tree.status();
    return Status(st.code(), fmt::format("{}: {}", staged.display_name, st.message()));
  }
  spdlog::debug("read archive {}: {} files, {} directories, {} bytes", staged.display_name,
                tree->stats.files, tree->stats.directories, tree->stats.bytes);
  staged.tree = ImportRoot(std::move(tree).value());
  staged.path.clear();
  staged.display_name = ArchiveStem(staged.display_name);
  return staged;
}

Result<ImportPlan> PlanStaged(StagedSource staged, const ImportOptions& options) {
  if (staged.tree) return PlanImport(std::move(*staged.tree), staged.display_name, options);
  return PlanImport(staged.path, staged.display_name, options);
}

void RemoveStaging(const std::string& staging_dir) {
  if (staging_dir.empty()) return;
  std::error_code ec;
  fs::remove_all(staging_dir, ec);
  if (ec) spdlog::warn("cannot remove the staging directory {}: {}", staging_dir, ec.message());
}

}  // namespace skald
