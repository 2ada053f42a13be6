#pragma once

// The file-system operations behind the Db facade, on URIs the facade has
// already resolved and access-checked (DbImpl):
//
// - FsReader: ls/tree, stat, read, download, abstract, overview
//   (fs_read.cc) and glob/grep (fs_search.cc);
// - FsWriter: mkdir, rm, mv, cp, write (fs_write.cc), each with the follow-up
//   index job it commits together with its change (the outbox).
//
// Every mutation follows one order: lock the paths, change the content
// store (atomic renames, fsync'd), then record the result in one catalog
// transaction, then acknowledge. A crash before the catalog commit leaves
// content ahead of the catalog, which startup recovery reconciles; a crash
// after it loses nothing that was acknowledged.
//
// Thread safety: safe for concurrent use. Writers take path locks
// (PathLockManager) for the nodes they change; readers take none and rely
// on atomic renames in the content store and SQLite snapshots in the
// catalog. Everything passed in is borrowed and must outlive the object.

#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/index_catch_up.h"
#include "service/uri_resolver.h"
#include "skald/db.h"
#include "storage/catalog.h"
#include "storage/content_store.h"
#include "storage/job_runner.h"
#include "storage/node_writer.h"
#include "storage/path_lock.h"
#include "uri/viking_uri.h"

namespace skald {

// InvalidArgument when a segment uses the prefix reserved for Skald's
// temporary files.
Status CheckNotReserved(const VikingUri& uri);

// The top-level context directory a URI belongs to: the first directory
// below the scope root (resources/<x>, user/<u>/<kind>/<x>, agent/skills/<x>);
// a file directly in a scope root belongs to its parent.
VikingUri ContextRoot(const VikingUri& uri);

// NotFound "File not found: <uri>" with details {type: file, resource: uri}
// (uri/access.h AbsentStatus: an invisible path answers the same).
Status FileNotFound(const VikingUri& uri);

class FsReader {
 public:
  FsReader(UriResolver* resolver, ContentStore* content, Catalog* catalog,
           const PathLockManager* locks)
      : resolver_(resolver), content_(content), catalog_(catalog), locks_(locks) {}

  // The catalog node at `uri` as `who` sees it (SeenBy), NotFound ("File
  // not found: <uri>") when missing or hidden. The root is a virtual
  // directory.
  Result<CatalogNode> GetNode(const Identity& who, const VikingUri& uri);

  // Directory listing shared by Ls (`recursive` as asked) and Tree (always).
  Result<std::vector<LsEntry>> List(const Identity& who, const VikingUri& uri,
                                    const LsOptions& options, bool recursive);
  Result<NodeInfo> Stat(const Identity& who, const VikingUri& uri);
  // Lines [offset, offset + limit) of the file (limit -1: to the end); of
  // a memory file's text without its header unless `raw`.
  // REQUIRES: offset >= 0, limit >= -1.
  Result<std::string> Read(const Identity& who, const VikingUri& uri, int64_t offset,
                           int64_t limit, bool raw);
  Result<Download> DownloadFile(const Identity& who, const VikingUri& uri);
  // The L0/L1 sidecar body of the directory `uri` (or the directory a file
  // is in); a placeholder when it does not exist yet.
  Result<std::string> Abstract(const Identity& who, const VikingUri& uri);
  Result<std::string> Overview(const Identity& who, const VikingUri& uri);

  // Search over names and contents; these resolve the request's URIs
  // themselves (request validation comes first).
  Result<GlobResult> Glob(const Identity& who, const GlobRequest& request);
  Result<GrepResult> Grep(const Identity& who, const GrepRequest& request);

  // Db::CheckConsistency (fs_consistency.cc).
  Result<ConsistencyReport> CheckConsistency(const Identity& who, std::string_view uri);

 private:
  Result<VikingUri> Resolve(const Identity& who, std::string_view text) {
    return resolver_->Resolve(who, text);
  }
  // How the node `node` at `uri` appears to `who` (the one existence rule
  // over uri/access.h VisibleSubtrees): nullopt when `who` may not see it;
  // a container of per-user spaces (`viking://user`) seen by a non-ROOT
  // caller exists only while the caller's own space in it does, with that
  // space's times — as if no other user's space were there; any other node
  // as stored.
  Result<std::optional<CatalogNode>> SeenBy(const Identity& who, const VikingUri& uri,
                                            CatalogNode node);
  // The descendants of `base` (not `base` itself) that `who` may see, at most
  // `max_depth` levels below it (0 = unlimited), ordered by path. Walks only
  // the caller's visible subtrees (VisibleSubtrees): a non-ROOT walk of
  // `viking://` or `viking://user` never enters another user's space.
  Result<std::vector<CatalogNode>> WalkVisible(const Identity& who, const VikingUri& base,
                                               int max_depth);
  // Body of a sidecar of directory `dir`, or nullopt when it does not exist.
  Result<std::optional<std::string>> ReadSidecarBody(const Identity& who, const VikingUri& dir,
                                                     std::string_view name);
  // Bytes of the file at `uri`; InvalidArgument (details expected/actual)
  // for a directory, NotFound when missing. `verb` names the operation.
  Result<std::string> ReadFileBytes(const Identity& who, const VikingUri& uri,
                                    std::string_view verb);
  NodeInfo ToNodeInfo(const Identity& who, const VikingUri& uri, const CatalogNode& node) const;

  UriResolver* const resolver_;
  ContentStore* const content_;
  Catalog* const catalog_;
  const PathLockManager* const locks_;
};

// What FsWriter works with; every pointer borrowed.
struct FsWriterServices {
  ContentStore* content = nullptr;
  Catalog* catalog = nullptr;
  PathLockManager* locks = nullptr;
  NodeWriter* nodes = nullptr;
  IndexCatchUp* indexes = nullptr;
  JobRunner* runner = nullptr;
  DiskReserve* reserve = nullptr;  // null = none; released by Rm on a nearly full disk
  // False without an embedder: changes queue no index jobs.
  bool indexing = false;
  int lock_timeout_ms = 5000;
};

class FsWriter {
 public:
  explicit FsWriter(const FsWriterServices& services)
      : content_(services.content),
        catalog_(services.catalog),
        locks_(services.locks),
        nodes_(services.nodes),
        indexes_(services.indexes),
        runner_(services.runner),
        reserve_(services.reserve),
        indexing_(services.indexing),
        lock_timeout_ms_(services.lock_timeout_ms) {}

  // Creates the directory `uri` (and its missing parents); a non-empty
  // `description` becomes its abstract. REQUIRES: access checked.
  Result<std::string> Mkdir(const Identity& who, const VikingUri& uri,
                            std::string_view description);
  // Deletes `uri` (a non-empty directory only when `recursive`); idempotent.
  Result<RmResult> Rm(const Identity& who, const VikingUri& uri, bool recursive);
  // Moves `from` to `to` (which must not exist).
  Result<MvResult> Mv(const Identity& who, const VikingUri& from, const VikingUri& to);
  // Copies `from` to `to` (Db::Cp's rules). REQUIRES: access checked.
  Result<CpResult> Cp(const Identity& who, const VikingUri& from, const VikingUri& to,
                      bool recursive);
  // Creates, replaces or appends to the file `uri`. `no_fsck` is the
  // caller's shared hold of the maintenance lock; it is released before
  // waiting for the index job (request.wait).
  Result<WriteResult> Write(const Identity& who, const VikingUri& uri, const WriteRequest& request,
                            std::shared_lock<std::shared_mutex>& no_fsck);

 private:
  // Cp's step after the files: the source files' records re-keyed to the
  // copy (with their vectors), counted in `result`.
  Status CarryRecords(const Identity& who, const VikingUri& from, const VikingUri& to,
                      CpResult* result);
  Status Lock(const std::vector<PathLockRequest>& requests, PathLockGuard* guard);
  // The nodes at both ends of a move or copy, with both trees locked into
  // `guard`; NotFound when `from` is missing.
  struct SourceAndTarget {
    CatalogNode source;
    std::optional<CatalogNode> target;  // nullopt when `to` does not exist
  };
  Result<SourceAndTarget> LockSourceAndTarget(const Identity& who, const VikingUri& from,
                                              const VikingUri& to, PathLockGuard* guard);

  ContentStore* const content_;
  Catalog* const catalog_;
  PathLockManager* const locks_;
  NodeWriter* const nodes_;
  IndexCatchUp* const indexes_;
  JobRunner* const runner_;
  DiskReserve* const reserve_;
  const bool indexing_;
  const int lock_timeout_ms_;
};

}  // namespace skald
