#include "storage/reconcile.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "common/hash.h"
#include "uri/uri_path.h"

namespace skald {
namespace {

Status ReconcileAccount(ContentStore& content, Catalog& catalog, const std::string& account,
                        const ReconcileOptions& options, ReconcileReport* report) {
  SKALD_ASSIGN_OR_RETURN(std::vector<ContentEntry> on_disk, content.Scan(account));
  SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> rows, catalog.ListSubtree(account, "", 0));
  std::map<std::string, const CatalogNode*> by_path;
  // Nodes with a segment too long for a file name, by (parent path, stored
  // name): the scan sees the shortened name, the catalog the real one.
  std::map<std::pair<std::string, std::string>, const CatalogNode*> by_stored_name;
  for (const CatalogNode& n : rows) {
    by_path.emplace(n.path, &n);
    std::string_view name = BaseName(n.path);
    if (name.size() > kMaxStoredSegmentBytes) {
      by_stored_name.emplace(
          std::make_pair(std::string(ParentPath(n.path)), StoredSegmentName(name)), &n);
    }
  }
  // The path of every directory seen on disk, stored path -> path (they
  // differ below a shortened name); a directory missing here was skipped.
  std::map<std::string, std::string, std::less<>> dir_paths;

  std::vector<CatalogNode> upserts;
  std::vector<std::string> deletes;
  std::set<std::string> seen;
  auto add_issue = [&](std::string kind, const std::string& path, std::string detail) {
    report->issues.push_back(
        ReconcileIssue{std::move(kind), account, path, std::move(detail), options.repair});
  };
  auto node_from_disk = [&](const ContentEntry& e, int64_t ctime) -> Result<CatalogNode> {
    CatalogNode n;
    n.path = e.path;
    n.is_dir = e.is_dir;
    n.size = e.size;
    n.mtime_ns = e.mtime_ns;
    n.ctime_ns = ctime ? ctime : e.mtime_ns;
    if (!e.is_dir) {
      SKALD_ASSIGN_OR_RETURN(std::string bytes, content.ReadFile(account, e.path));
      n.size = bytes.size();
      n.hash = Sha256Hex(bytes);
    }
    return n;
  };

  for (ContentEntry e : on_disk) {
    ++report->nodes_checked;
    // Map the stored path back to the path (scan order: parents first).
    const std::string stored_path = e.path;
    std::string_view stored_parent = ParentPath(stored_path);
    std::string stored_name(BaseName(stored_path));
    std::string parent;
    if (!stored_parent.empty()) {
      auto dir = dir_paths.find(stored_parent);
      if (dir == dir_paths.end()) continue;  // below an unnamed directory: reported there
      parent = dir->second;
    }
    if (IsShortenedSegmentName(stored_name)) {
      auto named = by_stored_name.find(std::make_pair(parent, stored_name));
      if (named == by_stored_name.end()) {
        // The full name lives only in the catalog; without a row it is lost
        // (a crash between the content change and its catalog commit). The
        // bytes stay where they are for the operator, and are never adopted
        // under the shortened name, which is not a name a URI can have.
        report->issues.push_back(ReconcileIssue{
            "unnamed_content", account, parent.empty() ? stored_name : parent + "/" + stored_name,
            fmt::format("{} on disk under a shortened name that no catalog node has; the full "
                        "name is unknown, so it is not adopted (move or delete it by hand)",
                        e.is_dir ? "directory" : "file"),
            false});
        continue;
      }
      e.path = named->second->path;
    } else {
      e.path = parent.empty() ? stored_name : parent + "/" + stored_name;
    }
    if (e.is_dir) dir_paths.emplace(stored_path, e.path);
    seen.insert(e.path);
    auto it = by_path.find(e.path);
    if (it == by_path.end()) {
      add_issue("untracked_content", e.path,
                e.is_dir ? "directory on disk is not in the catalog"
                         : fmt::format("file on disk ({} bytes) is not in the catalog", e.size));
      SKALD_ASSIGN_OR_RETURN(CatalogNode n, node_from_disk(e, 0));
      upserts.push_back(std::move(n));
      continue;
    }
    const CatalogNode& row = *it->second;
    if (row.is_dir != e.is_dir) {
      add_issue("kind_mismatch", e.path,
                fmt::format("catalog says {}, disk has a {}", row.is_dir ? "directory" : "file",
                            e.is_dir ? "directory" : "file"));
      SKALD_ASSIGN_OR_RETURN(CatalogNode n, node_from_disk(e, row.ctime_ns));
      deletes.push_back(e.path);  // drops stale children of a former directory too
      upserts.push_back(std::move(n));
      continue;
    }
    if (e.is_dir) continue;
    bool stat_differs = row.size != e.size || row.mtime_ns != e.mtime_ns;
    bool recent = e.mtime_ns >= options.rehash_modified_since_ns;
    if (!stat_differs && !recent && !options.verify_hashes) continue;
    SKALD_ASSIGN_OR_RETURN(CatalogNode n, node_from_disk(e, row.ctime_ns));
    if (n.hash != row.hash || n.size != row.size) {
      bool size_changed = n.size != row.size;
      add_issue(size_changed ? "size_mismatch" : "hash_mismatch", e.path,
                size_changed ? fmt::format("catalog {} bytes, disk {} bytes", row.size, n.size)
                             : "bytes on disk differ from the recorded hash");
      upserts.push_back(std::move(n));
    } else if (row.mtime_ns != n.mtime_ns) {
      add_issue("mtime_mismatch", e.path, "same bytes, stale modification time");
      upserts.push_back(std::move(n));
    }
  }
  for (const CatalogNode& row : rows) {
    if (seen.count(row.path)) continue;
    ++report->nodes_checked;
    add_issue("missing_content", row.path,
              row.is_dir ? "directory in the catalog is missing on disk"
                         : "file in the catalog is missing on disk");
    deletes.push_back(row.path);
  }
  if (options.repair && (!upserts.empty() || !deletes.empty())) {
    SKALD_RETURN_IF_ERROR(catalog.Apply(account, upserts, deletes));
  }
  return Status::Ok();
}

}  // namespace

Result<ReconcileReport> Reconcile(ContentStore& content, Catalog& catalog,
                                  const ReconcileOptions& options) {
  ReconcileReport report;
  if (options.repair) {
    SKALD_ASSIGN_OR_RETURN(report.leftovers_removed, content.CleanLeftovers());
  }
  SKALD_ASSIGN_OR_RETURN(std::vector<std::string> disk_accounts, content.ListAccounts());
  SKALD_ASSIGN_OR_RETURN(std::vector<std::string> catalog_accounts, catalog.ListAccounts());
  std::set<std::string> accounts(disk_accounts.begin(), disk_accounts.end());
  accounts.insert(catalog_accounts.begin(), catalog_accounts.end());
  for (const std::string& account : accounts) {
    SKALD_RETURN_IF_ERROR(ReconcileAccount(content, catalog, account, options, &report));
  }
  return report;
}

}  // namespace skald
