#pragma once

// DbImpl: the Db facade over the storage module. Operations are split by
// kind across db_open.cc (lifecycle, recovery, fsck), fs_read.cc,
// fs_write.cc and fs_search.cc.
//
// Thread safety: as Db. Writers take path locks (PathLockManager) for the
// nodes they change; readers take none and rely on atomic renames in the
// content store and SQLite snapshots in the catalog.

#include <mutex>
#include <set>
#include <string>

#include "skald/db.h"
#include "storage/catalog.h"
#include "storage/content_store.h"
#include "storage/path_lock.h"
#include "storage/workspace_lock.h"
#include "uri/viking_uri.h"

namespace skald {

class DbImpl final : public Db {
 public:
  ~DbImpl() override;

  static Result<std::unique_ptr<Db>> OpenImpl(const DbOptions& options);

  Result<std::vector<LsEntry>> Ls(const Identity& who, std::string_view uri,
                                  const LsOptions& options) override;
  Result<std::vector<LsEntry>> Tree(const Identity& who, std::string_view uri,
                                    const LsOptions& options) override;
  Result<NodeInfo> Stat(const Identity& who, std::string_view uri) override;
  Result<std::string> Mkdir(const Identity& who, std::string_view uri,
                            std::string_view description) override;
  Result<RmResult> Rm(const Identity& who, std::string_view uri, bool recursive) override;
  Result<MvResult> Mv(const Identity& who, std::string_view from, std::string_view to) override;
  Result<std::string> Read(const Identity& who, std::string_view uri, int64_t offset,
                           int64_t limit) override;
  Result<Download> DownloadFile(const Identity& who, std::string_view uri) override;
  Result<WriteResult> Write(const Identity& who, const WriteRequest& request) override;
  Result<std::string> Abstract(const Identity& who, std::string_view uri) override;
  Result<std::string> Overview(const Identity& who, std::string_view uri) override;
  Result<GlobResult> Glob(const Identity& who, const GlobRequest& request) override;
  Result<GrepResult> Grep(const Identity& who, const GrepRequest& request) override;
  Result<FsckReport> Fsck(bool repair) override;

 private:
  DbImpl() = default;

  // Parses a caller's URI (with `~` expansion for non-ROOT callers) and
  // checks that the caller may see it; creates the account's preset
  // directories on first use.
  Result<VikingUri> Resolve(const Identity& who, std::string_view text);

  // The catalog node at `uri`, NotFound ("File not found: <uri>") when missing.
  // The root is a virtual directory.
  Result<CatalogNode> GetNode(const Identity& who, const VikingUri& uri);

  // Directory listing shared by Ls and Tree.
  Result<std::vector<LsEntry>> List(const Identity& who, const VikingUri& uri,
                                    const LsOptions& options, bool recursive);
  // Body of a sidecar of directory `dir`, or nullopt when it does not exist.
  Result<std::optional<std::string>> ReadSidecarBody(const Identity& who, const VikingUri& dir,
                                                     std::string_view name);
  // Bytes of the file at `uri`; InvalidArgument (details expected/actual)
  // for a directory, NotFound when missing. `verb` names the operation.
  Result<std::string> ReadFileBytes(const Identity& who, const VikingUri& uri,
                                    std::string_view verb);
  NodeInfo ToNodeInfo(const Identity& who, const VikingUri& uri, const CatalogNode& node) const;

  // Creates the missing directories on the way to (and including, when
  // `include_self`) `dir`, in content and catalog. FailedPrecondition when a
  // file is in the way. REQUIRES: the caller holds a lock covering `dir`.
  Status EnsureDirectories(const Identity& who, const VikingUri& dir, bool include_self);

  // Writes bytes and records them in the catalog (the durable write path).
  Result<CatalogNode> StoreFile(const Identity& who, const VikingUri& uri, std::string_view bytes,
                                const std::optional<CatalogNode>& existing);

  // Locks `requests` within the configured timeout.
  Status Lock(const std::vector<PathLockRequest>& requests, PathLockGuard* guard);

  Status EnsureAccount(const std::string& account);

  DbOptions options_;
  std::unique_ptr<WorkspaceLock> workspace_lock_;
  std::unique_ptr<ContentStore> content_;
  std::unique_ptr<Catalog> catalog_;
  PathLockManager locks_;

  std::mutex accounts_mu_;
  std::set<std::string> ready_accounts_;  // guarded by accounts_mu_
};

// NotFound "File not found: <uri>" with details {type: file, resource: uri}.
Status FileNotFound(const VikingUri& uri);

}  // namespace skald
