#include "storage/node_writer.h"

#include <fmt/format.h>

#include <set>
#include <string>

#include "common/env.h"
#include "common/hash.h"

namespace skald {

Status NodeWriter::NoteContentFailure(Status status) {
  if (!ContentChangedDespiteError(status)) return status;
  needs_recovery_ = true;
  Status out(status.code(), status.message());
  if (!status.reason().empty()) out.WithReason(status.reason());
  for (const auto& [key, value] : status.details()) {
    if (key != kContentChangedDetail) out.WithDetail(key, value);
  }
  return out;
}

Status NodeWriter::EnsureDirectories(const Identity& who, const VikingUri& dir, bool include_self) {
  if (!include_self && dir.is_root()) return Status::Ok();
  const VikingUri target = include_self ? dir : dir.Parent();
  return EnsureDirectories(who, std::span<const VikingUri>(&target, 1));
}

Status NodeWriter::EnsureDirectories(const Identity& who, std::span<const VikingUri> dirs) {
  // The missing directories, parents first, each looked up once.
  std::set<std::string, std::less<>> known;
  std::vector<std::string> missing;
  for (const VikingUri& dir : dirs) {
    std::vector<VikingUri> chain;
    for (VikingUri d = dir; !d.is_root() && !known.count(d.path()); d = d.Parent()) {
      chain.push_back(d);
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      SKALD_ASSIGN_OR_RETURN(auto node, catalog_->Get(who.account, it->path()));
      if (node && !node->is_dir) {
        return Status::FailedPrecondition(
            fmt::format("parent is a file, not a directory: {}", it->str()));
      }
      if (!node) missing.emplace_back(it->path());
      known.emplace(it->path());
    }
  }
  if (missing.empty()) return Status::Ok();
  Status made = NoteContentFailure(content_->MakeDirs(who.account, missing));
  if (made.code() == StatusCode::kAlreadyExists) {
    return Status::FailedPrecondition(
        fmt::format("parent is a file, not a directory ({})", made.message()));
  }
  SKALD_RETURN_IF_ERROR(made);
  std::vector<CatalogNode> created;
  for (const std::string& path : missing) {
    Result<ContentAttr> attr = content_->Stat(who.account, path);
    if (!attr.ok()) {
      needs_recovery_ = true;  // made in content, not recorded
      return attr.status();
    }
    CatalogNode n;
    n.path = path;
    n.is_dir = true;
    n.mtime_ns = n.ctime_ns = attr->mtime_ns;
    created.push_back(std::move(n));
  }
  Status recorded = catalog_->Apply(who.account, created, {});
  if (!recorded.ok()) {
    needs_recovery_ = true;  // directories exist in content only
    return recorded;
  }
  return Status::Ok();
}

Result<CatalogNode> NodeWriter::StoreFile(const Identity& who, const VikingUri& uri,
                                          std::string_view bytes,
                                          const std::optional<CatalogNode>& existing,
                                          const std::vector<JobSpec>& jobs,
                                          std::vector<Job>* enqueued) {
  Result<ContentAttr> written = content_->WriteFile(who.account, uri.path(), bytes);
  if (!written.ok()) {
    // A failure after the rename leaves content ahead of the catalog.
    return NoteContentFailure(written.status());
  }
  const ContentAttr& attr = *written;
  CatalogNode node;
  node.path = std::string(uri.path());
  node.size = bytes.size();
  node.mtime_ns = attr.mtime_ns;
  node.ctime_ns = existing ? existing->ctime_ns : attr.mtime_ns;
  node.hash = Sha256Hex(bytes);
  Status recorded = catalog_->Apply(who.account, {node}, {}, jobs, enqueued);
  if (IsDiskFull(recorded) && reserve_ != nullptr && reserve_->Release()) {
    // The bytes are in place: spend the reserve on recording them rather
    // than leaving content the catalog does not know (later writes are
    // refused until space is back).
    recorded = catalog_->Apply(who.account, {node}, {}, jobs, enqueued);
  }
  if (!recorded.ok()) {
    needs_recovery_ = true;  // the bytes are on disk, the catalog does not know
    return recorded;
  }
  return node;
}

}  // namespace skald
