// FsReader::CheckConsistency: the index records a subtree's content calls
// for, against those the catalog holds (reference §2.1
// POST /api/v1/system/consistency).

#include <set>
#include <utility>

#include "common/strings.h"
#include "ingest/semantic_indexer.h"
#include "service/fs_engine.h"
#include "uri/access.h"
#include "uri/uri_path.h"

namespace skald {

Result<ConsistencyReport> FsReader::CheckConsistency(const Identity& who, std::string_view text) {
  SKALD_ASSIGN_OR_RETURN(VikingUri base, Resolve(who, text));
  SKALD_ASSIGN_OR_RETURN(CatalogNode base_node, GetNode(who, base));
  std::vector<CatalogNode> nodes;
  if (base_node.is_dir) {
    SKALD_ASSIGN_OR_RETURN(nodes, WalkVisible(who, base, /*max_depth=*/0));
  }
  if (!base.is_root()) nodes.insert(nodes.begin(), std::move(base_node));

  // What the catalog holds of what `who` sees under `base` (for a USER on
  // viking:// or viking://user: their own spaces, never the account's
  // other users): (uri, level).
  std::vector<std::string> scanned;
  for (const VikingUri& part : VisibleSubtrees(who, base)) {
    if (!part.is_root()) {
      scanned.push_back(part.str());
      continue;
    }
    for (const CatalogNode& node : nodes) {  // the root: each scope
      if (node.path.find('/') == std::string::npos) scanned.push_back(UriOfPath(node.path));
    }
  }
  std::set<std::pair<std::string, int>, std::less<>> held;
  for (const std::string& under : scanned) {
    SKALD_RETURN_IF_ERROR(catalog_->ScanRecordsUnder(who.account, under, [&](Record& r) {
      held.emplace(std::move(r.uri), r.level);
      return true;
    }));
  }

  ConsistencyReport report;
  const size_t rel_from = base.is_root() ? 0 : base.path().size() + 1;
  auto expect = [&](const VikingUri& uri, std::string_view path, int level) {
    ++report.expected_count;
    if (held.count(std::make_pair(uri.str(), level))) return;
    ++report.missing_count;
    if (report.missing.size() < kConsistencyShownMissing) {
      const std::string rel(path.size() > rel_from ? path.substr(rel_from) : "");
      report.missing.push_back(MissingRecord{uri.str(), rel, level});
    }
  };
  // `nodes` is in path order, so `missing` is by path (then level).
  for (const CatalogNode& node : nodes) {
    if (!IsIndexedPath(node.path)) continue;
    const VikingUri uri = VikingUri::FromSegments(Split(node.path, '/'));
    if (node.is_dir) {
      // A directory calls for the records of the sidecars it has; a
      // sidecar is read only when its record is missing.
      for (const auto& [name, level] : {std::pair<std::string_view, int>{".abstract.md", 0},
                                        std::pair<std::string_view, int>{".overview.md", 1}}) {
        if (!held.count(std::make_pair(uri.str(), level))) {
          SKALD_ASSIGN_OR_RETURN(std::optional<std::string> body, ReadSidecarBody(who, uri, name));
          if (!body || body->empty()) continue;
        }
        expect(uri, node.path, level);
      }
      continue;
    }
    // A file the indexer passes over (IndexedTextOf: binary, not media)
    // calls for none; read only when its record is missing.
    if (!held.count(std::make_pair(uri.str(), 2))) {
      Result<std::string> bytes = content_->ReadFile(who.account, node.path);
      if (bytes.status().code() == StatusCode::kNotFound) continue;  // deleted meanwhile
      if (!bytes.ok()) return bytes.status();
      std::string description;
      if (!IndexedTextOf(uri.name(), *bytes, &description)) continue;
    }
    expect(uri, node.path, 2);
  }
  return report;
}

}  // namespace skald
