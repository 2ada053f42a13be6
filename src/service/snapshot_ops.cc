// Snapshots of an account's files (snapshot_ops.h).

#include "service/snapshot_ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>

#include "common/hash.h"
#include "common/strings.h"
#include "service/snapshot_rules.h"
#include "session/memory_merge.h"
#include "text/unified_diff.h"
#include "uri/access.h"
#include "uri/uri_path.h"
#include "uri/viking_uri.h"

namespace skald {
namespace {

constexpr std::string_view kDefaultAuthor = "viking-bot";
constexpr std::string_view kDefaultEmail = "bot@viking.local";
// Log filters: at most this many paths, and commits looked at.
constexpr size_t kMaxLogPaths = 32;
constexpr size_t kMaxLogScan = 1000;
// Short ids: at least this many hex digits.
constexpr size_t kMinOidPrefix = 4;
// Diff: each side at most this many bytes.
constexpr size_t kMaxDiffFileBytes = size_t{10} << 20;
// Commit: new blobs stored before the commit once they hold this much.
constexpr size_t kBlobFlushBytes = size_t{64} << 20;
// Commit: at most this many paths and file_paths together.
constexpr size_t kMaxCommitPaths = 1000;
// Log paths: at most this many segments (OpenViking's limit).
constexpr size_t kMaxLogPathDepth = 64;

Status BlobNotFound(std::string_view path) {
  return Status::NotFound(fmt::format("Git blob not found: {}", path))
      .WithDetail("resource", std::string(path))
      .WithDetail("type", "git_blob");
}

// A file whose bytes left the history with their user
// (SnapshotOps::EraseBlobsOnlyUnder).
Status BlobErased(std::string_view path) {
  return Status::NotFound(fmt::format("Git blob not found: {} (erased with its user)", path))
      .WithDetail("resource", std::string(path))
      .WithDetail("type", "git_blob");
}

std::string RefName(std::string_view branch) { return fmt::format("refs/heads/{}", branch); }

bool IsHex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

// Whether the entries at or below `path` that `who` can see differ between
// two trees (equal entries are passed over without a visibility check).
bool Touches(const Identity& who, const SnapshotTree& a, const SnapshotTree& b,
             std::string_view path) {
  auto ia = a.lower_bound(path);
  auto ib = b.lower_bound(path);
  auto within = [&](SnapshotTree::const_iterator it, const SnapshotTree& t) {
    return it != t.end() && it->first.starts_with(path);
  };
  for (;;) {
    // Siblings that only share the prefix ("resources/a-x" for "resources/a").
    while (within(ia, a) && !PathAtOrBelow(ia->first, path)) ++ia;
    while (within(ib, b) && !PathAtOrBelow(ib->first, path)) ++ib;
    const bool has_a = within(ia, a);
    const bool has_b = within(ib, b);
    if (!has_a && !has_b) return false;
    if (has_a && has_b && ia->first == ib->first) {
      if (ia->second != ib->second && VisibleTo(who, ia->first)) return true;
      ++ia;
      ++ib;
      continue;
    }
    // A path only one side has.
    SnapshotTree::const_iterator& only = !has_b || (has_a && ia->first < ib->first) ? ia : ib;
    if (VisibleTo(who, only->first)) return true;
    ++only;
  }
}

uint64_t CountChanges(const SnapshotTree& before, const SnapshotTree& after) {
  uint64_t changed = 0;
  for (const auto& [path, oid] : after) {
    auto it = before.find(path);
    if (it == before.end() || it->second != oid) ++changed;
  }
  for (const auto& [path, oid] : before) changed += after.count(path) ? 0 : 1;
  return changed;
}

// One path a commit records: a directory (or file) with everything below
// it, or with `files_only` a file only.
struct Scope {
  std::string path;
  bool files_only = false;
};

// `scopes` without repeats and without those another directory scope
// covers already.
std::vector<Scope> Collapse(std::vector<Scope> scopes) {
  std::sort(scopes.begin(), scopes.end(), [](const Scope& a, const Scope& b) {
    return a.path != b.path ? a.path < b.path : !a.files_only && b.files_only;
  });
  std::vector<Scope> kept;
  kept.reserve(scopes.size());         // views into it stay valid
  std::vector<std::string_view> dirs;  // kept directory scopes
  for (Scope& scope : scopes) {
    const bool covered = std::any_of(dirs.begin(), dirs.end(), [&](std::string_view dir) {
      return PathAtOrBelow(scope.path, dir);
    });
    if (covered || (!kept.empty() && kept.back().path == scope.path)) continue;
    kept.push_back(std::move(scope));
    if (!kept.back().files_only) dirs.push_back(kept.back().path);
  }
  return kept;
}

SnapshotActorInfo ActorInfo(const SnapshotActor& a) {
  return SnapshotActorInfo{a.name, a.email, a.time_seconds, a.tz_offset_seconds};
}

SnapshotCommitInfo InfoOf(const std::string& oid, const SnapshotCommit& c) {
  return SnapshotCommitInfo{
      oid, c.tree, c.parents, ActorInfo(c.author), ActorInfo(c.committer), c.message};
}

Status RootOnly(const Identity& who, std::string_view what) {
  if (who.role == Role::kRoot) return Status::Ok();
  return Status::PermissionDenied(std::string(what)).WithDetail("resource", "viking://");
}

// The ignore rules are ROOT's and the account administrators'.
Status AdminOnly(const Identity& who) {
  if (who.role == Role::kRoot || who.role == Role::kAdmin) return Status::Ok();
  return Status::PermissionDenied("Managing snapshot ignore rules requires an administrator")
      .WithDetail("resource", std::string(kSnapshotIgnorePath));
}

}  // namespace

Result<std::optional<std::string>> SnapshotOps::Head(std::string_view account,
                                                     std::string_view branch) {
  return s_.catalog->GetSnapshotRef(account, RefName(branch));
}

Result<std::string> SnapshotOps::ResolveCommit(std::string_view account, std::string_view ref,
                                               std::string_view not_found_as) {
  std::string oid;
  if (IsSnapshotOid(ref)) {
    oid = std::string(ref);
  } else if (ref.size() >= kMinOidPrefix && IsHex(ref)) {
    SKALD_ASSIGN_OR_RETURN(std::vector<std::string> found,
                           s_.catalog->SnapshotCommitsWithPrefix(account, ref, 2));
    if (found.size() > 1) {
      return Status::InvalidArgument(fmt::format("ambiguous commit id prefix: {}", ref));
    }
    if (found.size() == 1) oid = found.front();
  }
  if (oid.empty()) {
    const std::string name = ref.starts_with("refs/") ? std::string(ref) : RefName(ref);
    if (!CheckBranch(std::string_view(name).substr(5)).ok()) return RefNotFound(not_found_as);
    SKALD_ASSIGN_OR_RETURN(std::optional<std::string> head,
                           s_.catalog->GetSnapshotRef(account, name));
    if (!head) return RefNotFound(not_found_as);
    oid = std::move(*head);
  }
  SKALD_ASSIGN_OR_RETURN(std::optional<SnapshotObject> object,
                         s_.catalog->GetSnapshotObject(account, oid));
  if (!object || object->kind != SnapshotObjectKind::kCommit) return RefNotFound(not_found_as);
  return oid;
}

Result<SnapshotOps::Loaded> SnapshotOps::Load(std::string_view account, std::string_view oid,
                                              bool with_tree) {
  Loaded out;
  out.oid = std::string(oid);
  SKALD_ASSIGN_OR_RETURN(std::optional<SnapshotObject> commit,
                         s_.catalog->GetSnapshotObject(account, oid));
  if (!commit || commit->kind != SnapshotObjectKind::kCommit) return RefNotFound(oid);
  SKALD_ASSIGN_OR_RETURN(out.commit, DecodeSnapshotCommit(commit->data));
  if (!with_tree) return out;
  SKALD_ASSIGN_OR_RETURN(std::optional<SnapshotObject> tree,
                         s_.catalog->GetSnapshotObject(account, out.commit.tree));
  if (!tree || tree->kind != SnapshotObjectKind::kTree) {
    return Status::Corruption(fmt::format("snapshot commit {} has no tree", oid));
  }
  SKALD_ASSIGN_OR_RETURN(out.tree, DecodeSnapshotTree(tree->data));
  return out;
}

Result<std::string> SnapshotOps::TreePath(const Identity& who, std::string_view text,
                                          PathAccess access) {
  // What snapshots never hold is refused first (400, as OpenViking), then
  // what the caller may not see or change.
  SKALD_ASSIGN_OR_RETURN(VikingUri parsed, s_.resolver->ParseOnly(who, text));
  std::string path(parsed.path());
  if (path.empty()) {
    return Status::InvalidArgument("a snapshot path cannot be the account root")
        .WithDetail("resource", parsed.str());
  }
  if (NeverInSnapshots(path)) {
    return Status::InvalidArgument(fmt::format("{} is not kept in snapshots", parsed.str()))
        .WithDetail("resource", parsed.str());
  }
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, s_.resolver->Resolve(who, text));
  if (access == PathAccess::kWrite) {
    SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, uri));
  } else if (std::vector<VikingUri> parts = VisibleSubtrees(who, uri);
             parts.size() != 1 || parts.front() != uri) {
    // A container of other users' spaces (viking://user for a USER): its
    // history would tell what they changed.
    return Status::PermissionDenied(fmt::format("Access denied for {}", uri.str()))
        .WithDetail("resource", uri.str());
  }
  return std::string(uri.path());
}

Result<std::optional<std::string>> SnapshotOps::BlobOf(
    std::string_view account, const CatalogNode& node,
    std::map<std::string, SnapshotObject>* blobs) {
  if (!node.hash.empty()) {
    SKALD_ASSIGN_OR_RETURN(std::optional<std::string> stored,
                           s_.catalog->FindSnapshotBlob(account, node.hash));
    if (stored) return stored;
  }
  Result<std::string> bytes = s_.content->ReadFile(account, node.path);
  if (!bytes.ok()) {
    // Deleted since it was listed: not in this snapshot.
    if (bytes.status().code() == StatusCode::kNotFound) return std::optional<std::string>();
    return bytes.status();
  }
  std::string sha256 = Sha256Hex(*bytes);
  SnapshotObject blob = SnapshotBlob(std::move(*bytes), std::move(sha256));
  std::string oid = blob.oid;
  blobs->emplace(oid, std::move(blob));
  return std::optional<std::string>(std::move(oid));
}

Status SnapshotOps::AddCurrentFiles(const Identity& who, std::string_view path,
                                    const IgnoreRules& rules, SnapshotTree* tree, uint64_t* ignored,
                                    std::map<std::string, SnapshotObject>* blobs) {
  const std::string& account = who.account;
  std::vector<CatalogNode> nodes;
  SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> top, s_.catalog->Get(account, path));
  if (path.empty() || (top && top->is_dir)) {
    SKALD_ASSIGN_OR_RETURN(nodes, s_.catalog->ListSubtree(account, path, 0));
  } else if (top) {
    nodes.push_back(std::move(*top));
  }
  size_t pending_bytes = 0;
  for (const CatalogNode& node : nodes) {
    if (node.is_dir || NeverInSnapshots(node.path)) continue;
    Result<VikingUri> uri = VikingUri::Parse(UriOfPath(node.path));
    if (!uri.ok() || !IsAccessible(who, *uri)) continue;
    if (rules.Ignored(node.path)) {
      ++*ignored;
      continue;
    }
    SKALD_ASSIGN_OR_RETURN(std::optional<std::string> oid, BlobOf(account, node, blobs));
    if (!oid) continue;
    (*tree)[node.path] = std::move(*oid);
    // A file where this one's directories are now is stale: a path is a
    // file or a directory, never both.
    for (std::string_view up = ParentPath(node.path); !up.empty(); up = ParentPath(up)) {
      if (auto it = tree->find(up); it != tree->end()) tree->erase(it);
    }
    // A large first snapshot is stored in parts: what is stored already is
    // only unreferenced until the commit (and found again by the next one).
    pending_bytes += node.size;
    if (pending_bytes >= kBlobFlushBytes) {
      std::vector<SnapshotObject> batch;
      for (auto& [id, blob] : *blobs) batch.push_back(std::move(blob));
      blobs->clear();
      SKALD_RETURN_IF_ERROR(s_.catalog->StoreSnapshotObjects(account, batch));
      pending_bytes = 0;
    }
  }
  return Status::Ok();
}

Result<std::string> SnapshotOps::Record(const Identity& who, std::string_view branch,
                                        const std::optional<std::string>& head,
                                        const SnapshotTree& tree, std::string_view message,
                                        const std::optional<std::string>& name,
                                        const std::optional<std::string>& email,
                                        std::map<std::string, SnapshotObject>* blobs) {
  std::vector<SnapshotObject> objects;
  for (auto& [id, blob] : *blobs) objects.push_back(std::move(blob));
  blobs->clear();
  SnapshotObject tree_object = SnapshotTreeObject(tree);
  SnapshotCommit commit;
  commit.tree = tree_object.oid;
  if (head) commit.parents.push_back(*head);
  commit.author.name = name && !name->empty() ? *name : std::string(kDefaultAuthor);
  commit.author.email = email && !email->empty() ? *email : std::string(kDefaultEmail);
  commit.author.time_seconds = s_.env->NowNanos() / 1'000'000'000;
  commit.committer = commit.author;
  commit.message = std::string(message);
  SnapshotObject commit_object = SnapshotCommitObject(commit);
  std::string oid = commit_object.oid;
  objects.push_back(std::move(tree_object));
  objects.push_back(std::move(commit_object));
  Status stored = s_.catalog->StoreSnapshotCommit(who.account, objects, RefName(branch), head, oid);
  if (stored.code() == StatusCode::kConflict) {
    // The branch moved under this commit: the caller may try again.
    return std::move(stored).WithDetail("conflict_type", "git_ref_cas");
  }
  SKALD_RETURN_IF_ERROR(stored);
  return oid;
}

Result<SnapshotCommitResult> SnapshotOps::Commit(const Identity& who,
                                                 const SnapshotCommitRequest& request) {
  SKALD_RETURN_IF_ERROR(CheckBranch(request.branch));
  SKALD_RETURN_IF_ERROR(
      CheckCommitText(request.message, request.author_name, request.author_email));
  const bool whole = !request.paths && !request.file_paths;
  if (whole) SKALD_RETURN_IF_ERROR(RootOnly(who, "Snapshot commit requires explicit paths"));
  const size_t given = (request.paths ? request.paths->size() : 0) +
                       (request.file_paths ? request.file_paths->size() : 0);
  if (given > kMaxCommitPaths) {
    return Status::InvalidArgument(
        fmt::format("at most {} paths and file_paths in one commit", kMaxCommitPaths));
  }
  SKALD_RETURN_IF_ERROR(s_.resolver->EnsureAccount(who));
  // Every path is checked before anything is read.
  std::vector<Scope> scopes;
  for (const auto* list : {&request.paths, &request.file_paths}) {
    if (!*list) continue;
    for (const std::string& text : **list) {
      SKALD_ASSIGN_OR_RETURN(std::string path, TreePath(who, text, PathAccess::kWrite));
      const bool files_only = list == &request.file_paths;
      if (files_only) {
        SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node,
                               s_.catalog->Get(who.account, path));
        if (node && node->is_dir) {
          return Status::FailedPrecondition(
                     fmt::format("{} is a directory; file_paths takes files", UriOfPath(path)))
              .WithDetail("resource", UriOfPath(path));
        }
      }
      scopes.push_back({std::move(path), files_only});
    }
  }
  scopes = Collapse(std::move(scopes));
  const std::string& account = who.account;
  SKALD_ASSIGN_OR_RETURN(std::string ignore_text, s_.catalog->GetSnapshotIgnore(account));
  SKALD_ASSIGN_OR_RETURN(IgnoreRules rules, IgnoreRules::Parse(ignore_text));
  SKALD_ASSIGN_OR_RETURN(std::optional<std::string> head, Head(account, request.branch));
  SnapshotTree before;
  if (head) {
    SKALD_ASSIGN_OR_RETURN(Loaded loaded, Load(account, *head));
    before = std::move(loaded.tree);
  }
  SnapshotTree tree;
  uint64_t ignored = 0;
  std::map<std::string, SnapshotObject> blobs;
  if (whole) {
    SKALD_RETURN_IF_ERROR(AddCurrentFiles(who, "", rules, &tree, &ignored, &blobs));
    if (!ignore_text.empty()) {
      SnapshotObject blob = SnapshotBlob(ignore_text, Sha256Hex(ignore_text));
      tree[std::string(kSnapshotIgnorePath)] = blob.oid;
      blobs.emplace(blob.oid, std::move(blob));
    }
  } else {
    // What the caller cannot see stays as the last commit has it.
    tree = before;
    for (const Scope& scope : scopes) {
      // (Entries below a file scope are stale: it was a directory once.)
      EraseVisibleSubtree(who, scope.path, &tree);
      SKALD_RETURN_IF_ERROR(AddCurrentFiles(who, scope.path, rules, &tree, &ignored, &blobs));
    }
  }
  SnapshotCommitResult result;
  result.ignored = ignored;
  result.changed = CountChanges(before, tree);
  if (result.changed == 0) {
    // Nothing to record: no commit. (Blobs read are dropped; a later
    // commit finds the files by their hash again.)
    result.commit_oid = head ? *head : std::string(kNullSnapshotOid);
    return result;
  }
  SKALD_ASSIGN_OR_RETURN(result.commit_oid,
                         Record(who, request.branch, head, tree, request.message,
                                request.author_name, request.author_email, &blobs));
  result.created = true;
  return result;
}

Result<std::vector<SnapshotCommitInfo>> SnapshotOps::Log(const Identity& who,
                                                         const SnapshotLogRequest& request) {
  SKALD_RETURN_IF_ERROR(CheckBranch(request.branch));
  if (request.limit < 1 || request.limit > 500) {
    return Status::InvalidArgument("limit must be between 1 and 500");
  }
  if (request.paths.empty()) {
    SKALD_RETURN_IF_ERROR(RootOnly(who, "Snapshot log requires explicit paths"));
  }
  if (request.paths.size() > kMaxCommitPaths) {
    return Status::InvalidArgument(
        fmt::format("at most {} log paths in a request, {} different ({} given)",
                    kMaxCommitPaths, kMaxLogPaths, request.paths.size()));
  }
  std::vector<std::string> paths;
  for (const std::string& text : request.paths) {
    SKALD_ASSIGN_OR_RETURN(std::string path, TreePath(who, text, PathAccess::kReadAll));
    if (PathSegments(path).size() > kMaxLogPathDepth) {
      return Status::InvalidArgument(
          fmt::format("a log path has at most {} segments", kMaxLogPathDepth));
    }
    if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
  }
  if (paths.size() > kMaxLogPaths) {
    return Status::InvalidArgument(fmt::format("at most {} log paths", kMaxLogPaths));
  }
  SKALD_ASSIGN_OR_RETURN(std::optional<std::string> head, Head(who.account, request.branch));
  if (!head) return RefNotFound(request.branch);
  std::vector<SnapshotCommitInfo> out;
  std::optional<std::string> next = head;
  size_t scanned = 0;
  std::optional<Loaded> current;
  while (next && out.size() < static_cast<size_t>(request.limit)) {
    if (!paths.empty() && ++scanned > kMaxLogScan) {
      return Status::InvalidArgument(
          fmt::format("the log filter looked at {} commits without reaching the limit; narrow it",
                      kMaxLogScan));
    }
    if (!current) {
      SKALD_ASSIGN_OR_RETURN(current, Load(who.account, *next, /*with_tree=*/!paths.empty()));
    }
    std::optional<Loaded> parent;
    if (!current->commit.parents.empty()) {
      SKALD_ASSIGN_OR_RETURN(parent, Load(who.account, current->commit.parents.front(),
                                          /*with_tree=*/!paths.empty()));
    }
    bool keep = paths.empty();
    const bool same_tree = parent && parent->commit.tree == current->commit.tree;
    for (size_t i = 0; i < paths.size() && !keep && !same_tree; ++i) {
      keep = Touches(who, current->tree, parent ? parent->tree : SnapshotTree(), paths[i]);
    }
    if (keep) out.push_back(InfoOf(current->oid, current->commit));
    next = parent ? std::optional<std::string>(parent->oid) : std::nullopt;
    current = std::move(parent);
  }
  return out;
}

Result<SnapshotCommitInfo> SnapshotOps::Show(const Identity& who, std::string_view ref) {
  SKALD_RETURN_IF_ERROR(RootOnly(who, "Snapshot show requires an explicit path"));
  SKALD_ASSIGN_OR_RETURN(std::string oid, ResolveCommit(who.account, ref, ref));
  SKALD_ASSIGN_OR_RETURN(Loaded loaded, Load(who.account, oid, /*with_tree=*/false));
  return InfoOf(oid, loaded.commit);
}

Result<SnapshotBlobContent> SnapshotOps::ShowFile(const Identity& who, std::string_view ref,
                                                  std::string_view uri, bool raw) {
  SKALD_ASSIGN_OR_RETURN(std::string path, TreePath(who, uri, PathAccess::kReadAll));
  SKALD_ASSIGN_OR_RETURN(std::string oid, ResolveCommit(who.account, ref, ref));
  SKALD_ASSIGN_OR_RETURN(Loaded loaded, Load(who.account, oid));
  auto it = loaded.tree.find(path);
  if (it == loaded.tree.end()) {
    if (!SnapshotSubtree(loaded.tree, path).empty()) {
      return Status::InvalidArgument(fmt::format("{} is a directory in {}", uri, ref))
          .WithDetail("resource", std::string(uri));
    }
    return BlobNotFound(uri);
  }
  SKALD_ASSIGN_OR_RETURN(std::optional<SnapshotObject> blob,
                         s_.catalog->GetSnapshotObject(who.account, it->second));
  if (!blob) return BlobErased(uri);
  if (!raw && !IsValidUtf8(blob->data)) {
    return Status::InvalidArgument("raw=false requires UTF-8 snapshot content");
  }
  if (!raw) {
    // A memory as content/read gives it: without its provenance header.
    Result<VikingUri> parsed = VikingUri::Parse(UriOfPath(path));
    if (parsed.ok() && parsed->context_type() == ContextType::kMemory) {
      if (Result<MemoryRecord> memory = ParseMemoryFile(blob->data); memory.ok()) {
        blob->data = std::move(memory->memory.text) + '\n';
      }
    }
  }
  return SnapshotBlobContent{it->second, std::move(blob->data)};
}

Result<SnapshotDiffResult> SnapshotOps::Diff(const Identity& who, std::string_view uri,
                                             std::string_view from, std::string_view to) {
  SKALD_ASSIGN_OR_RETURN(std::string path, TreePath(who, uri, PathAccess::kReadAll));
  SnapshotDiffResult result;
  result.path = std::string(uri);
  // One side: the file's bytes in `ref`, or nullopt when the commit has none.
  auto side = [&](std::string_view ref, std::string* commit) -> Result<std::optional<std::string>> {
    SKALD_ASSIGN_OR_RETURN(*commit, ResolveCommit(who.account, ref, ref));
    SKALD_ASSIGN_OR_RETURN(Loaded loaded, Load(who.account, *commit));
    auto it = loaded.tree.find(path);
    if (it == loaded.tree.end()) {
      if (!SnapshotSubtree(loaded.tree, path).empty()) {
        return Status::InvalidArgument(fmt::format("{} is a directory in {}", uri, ref));
      }
      return std::optional<std::string>();
    }
    SKALD_ASSIGN_OR_RETURN(std::optional<SnapshotObject> blob,
                           s_.catalog->GetSnapshotObject(who.account, it->second));
    if (!blob) return BlobErased(uri);
    if (blob->data.size() > kMaxDiffFileBytes) {
      return Status::ResourceExhausted(
                 fmt::format("{} is over {} MiB in {}", uri, kMaxDiffFileBytes >> 20, ref))
          .WithDetail("limit_bytes", std::to_string(kMaxDiffFileBytes))
          .WithDetail("path", std::string(uri));
    }
    if (!IsValidUtf8(blob->data)) {
      return Status::InvalidArgument("snapshot diff only supports UTF-8 text files");
    }
    return std::optional<std::string>(std::move(blob->data));
  };
  std::optional<std::string> before;
  if (!from.empty()) {
    SKALD_ASSIGN_OR_RETURN(before, side(from, &result.from_commit));
  }
  SKALD_ASSIGN_OR_RETURN(std::optional<std::string> after, side(to, &result.to_commit));
  if (!before && !after) return BlobNotFound(uri);
  result.change_type = !before             ? "added"
                       : !after            ? "deleted"
                       : *before == *after ? "unchanged"
                                           : "modified";
  SKALD_ASSIGN_OR_RETURN(result.diff_text,
                         UnifiedDiff(before.value_or(""), after.value_or(""),
                                     fmt::format("{}@{}", uri, result.from_commit),
                                     fmt::format("{}@{}", uri, result.to_commit)));
  return result;
}

Result<uint64_t> SnapshotOps::EraseBlobsOnlyUnder(std::string_view account,
                                                  std::string_view prefix) {
  if (prefix.empty()) return Status::InvalidArgument("erasing needs a path below the root");
  // Every tree of every commit (reachable from a branch or not), each once.
  SKALD_ASSIGN_OR_RETURN(std::vector<std::string> commits,
                         s_.catalog->SnapshotCommitsWithPrefix(
                             account, "", std::numeric_limits<int64_t>::max()));
  std::set<std::string> trees;
  for (const std::string& oid : commits) {
    SKALD_ASSIGN_OR_RETURN(Loaded loaded, Load(account, oid, /*with_tree=*/false));
    trees.insert(loaded.commit.tree);
  }
  std::set<std::string> under, elsewhere;
  for (const std::string& tree_oid : trees) {
    SKALD_ASSIGN_OR_RETURN(std::optional<SnapshotObject> object,
                           s_.catalog->GetSnapshotObject(account, tree_oid));
    if (!object) continue;
    SKALD_ASSIGN_OR_RETURN(SnapshotTree tree, DecodeSnapshotTree(object->data));
    for (const auto& [path, blob] : tree) {
      (PathAtOrBelow(path, prefix) ? under : elsewhere).insert(blob);
    }
  }
  std::vector<std::string> doomed;
  for (const std::string& blob : under) {
    if (!elsewhere.count(blob)) doomed.push_back(blob);
  }
  SKALD_RETURN_IF_ERROR(s_.catalog->DeleteSnapshotBlobs(account, doomed));
  SKALD_RETURN_IF_ERROR(DropPendingUnder(account, prefix));
  return static_cast<uint64_t>(doomed.size());
}

Result<std::string> SnapshotOps::GetIgnore(const Identity& who) {
  SKALD_RETURN_IF_ERROR(AdminOnly(who));
  return s_.catalog->GetSnapshotIgnore(who.account);
}

Status SnapshotOps::SetIgnore(const Identity& who, std::string_view content) {
  SKALD_RETURN_IF_ERROR(AdminOnly(who));
  if (content.size() > kMaxIgnoreBytes) {
    return Status::InvalidArgument(
        fmt::format("ignore file too large: .ovgitignore is {} bytes, "
                    "limit {} bytes",
                    content.size(), kMaxIgnoreBytes));
  }
  if (!IsValidUtf8(content)) return Status::InvalidArgument(".ovgitignore must be UTF-8 text");
  SKALD_RETURN_IF_ERROR(s_.resolver->EnsureAccount(who));
  return s_.catalog->SetSnapshotIgnore(who.account, content);
}

}  // namespace skald
