// Snapshots of an account's files (snapshot_ops.h).

#include "service/snapshot_ops.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "common/hash.h"
#include "common/strings.h"
#include "ingest/ingest_jobs.h"
#include "text/unified_diff.h"
#include "uri/access.h"
#include "uri/uri_path.h"
#include "uri/viking_uri.h"

namespace skald {
namespace {

constexpr std::string_view kIgnorePath = ".ovgitignore";
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

Status RefNotFound(std::string_view ref) {
  return Status::NotFound(fmt::format("Git ref not found: {}", ref))
      .WithDetail("resource", std::string(ref))
      .WithDetail("type", "git_ref");
}

Status BlobNotFound(std::string_view path) {
  return Status::NotFound(fmt::format("Git blob not found: {}", path))
      .WithDetail("resource", std::string(path))
      .WithDetail("type", "git_blob");
}

// git's rules for a branch name, as OpenViking checks them.
Status CheckBranch(std::string_view branch) {
  const bool bad = branch.empty() || branch.find("..") != std::string_view::npos ||
                   branch.front() == '/' || branch.back() == '/' ||
                   std::any_of(branch.begin(), branch.end(), [](char c) {
                     return static_cast<unsigned char>(c) < 0x20 || c == 0x7F ||
                            std::string_view(" ~^:?[*\\").find(c) != std::string_view::npos;
                   });
  if (bad) return Status::InvalidArgument(fmt::format("invalid branch name: '{}'", branch));
  return Status::Ok();
}

std::string RefName(std::string_view branch) { return fmt::format("refs/heads/{}", branch); }

bool IsHex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

// Paths a snapshot never holds: internal trees, lock and index files.
bool Pruned(std::string_view path) {
  std::vector<std::string_view> segs = PathSegments(path);
  if (segs.empty()) return true;
  static const std::set<std::string_view> kInternal = {"_system", "tasks", "temp", "queue",
                                                       "upload"};
  if (kInternal.count(segs.front())) return true;
  for (size_t i = 0; i < segs.size(); ++i) {
    const std::string_view s = segs[i];
    if (s.starts_with(".path.ovlock") || s.ends_with(".ovlock") || s.find(".ovlock.") != s.npos) {
      return true;
    }
    if (i + 1 < segs.size() && s == "embedding_cache") return true;
  }
  return segs.back().ends_with(".faiss") || segs.back().ends_with(".index");
}

// True when `path` is `dir` or below it ("" holds everything).
bool Under(std::string_view path, std::string_view dir) {
  if (dir.empty()) return true;
  return path == dir ||
         (path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/');
}

// The entries of `tree` at or below `dir`, keyed relative to it (a file
// `dir` itself keyed "").
SnapshotTree Subtree(const SnapshotTree& tree, std::string_view dir) {
  SnapshotTree out;
  for (auto it = tree.lower_bound(dir); it != tree.end() && it->first.starts_with(dir); ++it) {
    if (!Under(it->first, dir)) continue;
    out.emplace(dir.empty()                      ? it->first
                : it->first.size() == dir.size() ? std::string()
                                                 : it->first.substr(dir.size() + 1),
                it->second);
  }
  return out;
}

void EraseUnder(SnapshotTree* tree, std::string_view dir) {
  for (auto it = tree->lower_bound(dir); it != tree->end() && it->first.starts_with(dir);) {
    it = Under(it->first, dir) ? tree->erase(it) : std::next(it);
  }
}

// Whether the entries at or below `path` differ between two trees.
bool Touches(const SnapshotTree& a, const SnapshotTree& b, std::string_view path) {
  return Subtree(a, path) != Subtree(b, path);
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

Result<SnapshotOps::Loaded> SnapshotOps::Load(std::string_view account, std::string_view oid) {
  Loaded out;
  out.oid = std::string(oid);
  SKALD_ASSIGN_OR_RETURN(std::optional<SnapshotObject> commit,
                         s_.catalog->GetSnapshotObject(account, oid));
  if (!commit || commit->kind != SnapshotObjectKind::kCommit) return RefNotFound(oid);
  SKALD_ASSIGN_OR_RETURN(out.commit, DecodeSnapshotCommit(commit->data));
  SKALD_ASSIGN_OR_RETURN(std::optional<SnapshotObject> tree,
                         s_.catalog->GetSnapshotObject(account, out.commit.tree));
  if (!tree || tree->kind != SnapshotObjectKind::kTree) {
    return Status::Corruption(fmt::format("snapshot commit {} has no tree", oid));
  }
  SKALD_ASSIGN_OR_RETURN(out.tree, DecodeSnapshotTree(tree->data));
  return out;
}

Result<std::string> SnapshotOps::TreePath(const Identity& who, std::string_view text, bool write) {
  // What snapshots never hold is refused first (400, as OpenViking), then
  // what the caller may not see or change.
  SKALD_ASSIGN_OR_RETURN(VikingUri parsed, s_.resolver->ParseOnly(who, text));
  std::string path(parsed.path());
  if (path.empty()) {
    return Status::InvalidArgument("a snapshot path cannot be the account root")
        .WithDetail("resource", parsed.str());
  }
  if (Pruned(path)) {
    return Status::InvalidArgument(fmt::format("{} is not kept in snapshots", parsed.str()))
        .WithDetail("resource", parsed.str());
  }
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, s_.resolver->Resolve(who, text));
  if (write) SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, uri));
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
    if (node.is_dir || Pruned(node.path)) continue;
    Result<VikingUri> uri = VikingUri::Parse(UriOfPath(node.path));
    if (!uri.ok() || !IsAccessible(who, *uri)) continue;
    if (rules.Ignored(node.path)) {
      ++*ignored;
      continue;
    }
    SKALD_ASSIGN_OR_RETURN(std::optional<std::string> oid, BlobOf(account, node, blobs));
    if (!oid) continue;
    (*tree)[node.path] = std::move(*oid);
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
  SKALD_RETURN_IF_ERROR(
      s_.catalog->StoreSnapshotCommit(who.account, objects, RefName(branch), head, oid));
  return oid;
}

Result<SnapshotCommitResult> SnapshotOps::Commit(const Identity& who,
                                                 const SnapshotCommitRequest& request) {
  SKALD_RETURN_IF_ERROR(CheckBranch(request.branch));
  const bool whole = !request.paths && !request.file_paths;
  if (whole) SKALD_RETURN_IF_ERROR(RootOnly(who, "Snapshot commit requires explicit paths"));
  SKALD_RETURN_IF_ERROR(s_.resolver->EnsureAccount(who));
  // Every path is checked before anything is read.
  std::vector<std::pair<std::string, bool>> scopes;  // tree path, files only
  for (const auto* list : {&request.paths, &request.file_paths}) {
    if (!*list) continue;
    for (const std::string& text : **list) {
      SKALD_ASSIGN_OR_RETURN(std::string path, TreePath(who, text, /*write=*/true));
      scopes.emplace_back(std::move(path), list == &request.file_paths);
    }
  }
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
      tree[std::string(kIgnorePath)] = blob.oid;
      blobs.emplace(blob.oid, std::move(blob));
    }
  } else {
    tree = before;
    for (const auto& [path, files_only] : scopes) {
      if (files_only) {
        SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node, s_.catalog->Get(account, path));
        if (node && node->is_dir) {
          return Status::FailedPrecondition(
                     fmt::format("{} is a directory; file_paths takes files", UriOfPath(path)))
              .WithDetail("resource", UriOfPath(path));
        }
        tree.erase(path);
      } else {
        EraseUnder(&tree, path);
      }
      SKALD_RETURN_IF_ERROR(AddCurrentFiles(who, path, rules, &tree, &ignored, &blobs));
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
  std::vector<std::string> paths;
  for (const std::string& text : request.paths) {
    SKALD_ASSIGN_OR_RETURN(std::string path, TreePath(who, text, /*write=*/false));
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
      SKALD_ASSIGN_OR_RETURN(current, Load(who.account, *next));
    }
    std::optional<Loaded> parent;
    if (!current->commit.parents.empty()) {
      SKALD_ASSIGN_OR_RETURN(parent, Load(who.account, current->commit.parents.front()));
    }
    bool keep = paths.empty();
    for (size_t i = 0; i < paths.size() && !keep; ++i) {
      keep = Touches(current->tree, parent ? parent->tree : SnapshotTree(), paths[i]);
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
  SKALD_ASSIGN_OR_RETURN(Loaded loaded, Load(who.account, oid));
  return InfoOf(oid, loaded.commit);
}

Result<SnapshotBlobContent> SnapshotOps::ShowFile(const Identity& who, std::string_view ref,
                                                  std::string_view uri, bool raw) {
  SKALD_ASSIGN_OR_RETURN(std::string path, TreePath(who, uri, /*write=*/false));
  SKALD_ASSIGN_OR_RETURN(std::string oid, ResolveCommit(who.account, ref, ref));
  SKALD_ASSIGN_OR_RETURN(Loaded loaded, Load(who.account, oid));
  auto it = loaded.tree.find(path);
  if (it == loaded.tree.end()) {
    if (!Subtree(loaded.tree, path).empty()) {
      return Status::InvalidArgument(fmt::format("{} is a directory in {}", uri, ref))
          .WithDetail("resource", std::string(uri));
    }
    return BlobNotFound(uri);
  }
  SKALD_ASSIGN_OR_RETURN(std::optional<SnapshotObject> blob,
                         s_.catalog->GetSnapshotObject(who.account, it->second));
  if (!blob) return Status::Corruption(fmt::format("snapshot blob {} is missing", it->second));
  if (!raw && !IsValidUtf8(blob->data)) {
    return Status::InvalidArgument("raw=false requires UTF-8 snapshot content");
  }
  return SnapshotBlobContent{it->second, std::move(blob->data)};
}

Result<SnapshotDiffResult> SnapshotOps::Diff(const Identity& who, std::string_view uri,
                                             std::string_view from, std::string_view to) {
  SKALD_ASSIGN_OR_RETURN(std::string path, TreePath(who, uri, /*write=*/false));
  SnapshotDiffResult result;
  result.path = std::string(uri);
  // One side: the file's bytes in `ref`, or nullopt when the commit has none.
  auto side = [&](std::string_view ref, std::string* commit) -> Result<std::optional<std::string>> {
    SKALD_ASSIGN_OR_RETURN(*commit, ResolveCommit(who.account, ref, ref));
    SKALD_ASSIGN_OR_RETURN(Loaded loaded, Load(who.account, *commit));
    auto it = loaded.tree.find(path);
    if (it == loaded.tree.end()) {
      if (!Subtree(loaded.tree, path).empty()) {
        return Status::InvalidArgument(fmt::format("{} is a directory in {}", uri, ref));
      }
      return std::optional<std::string>();
    }
    SKALD_ASSIGN_OR_RETURN(std::optional<SnapshotObject> blob,
                           s_.catalog->GetSnapshotObject(who.account, it->second));
    if (!blob) return Status::Corruption(fmt::format("snapshot blob {} is missing", it->second));
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

Result<std::string> SnapshotOps::GetIgnore(const Identity& who) {
  if (who.role != Role::kRoot && who.role != Role::kAdmin) {
    return Status::PermissionDenied("Managing snapshot ignore rules requires an administrator")
        .WithDetail("resource", std::string(kIgnorePath));
  }
  return s_.catalog->GetSnapshotIgnore(who.account);
}

Status SnapshotOps::SetIgnore(const Identity& who, std::string_view content) {
  SKALD_ASSIGN_OR_RETURN(std::string current, GetIgnore(who));  // the role check
  (void)current;
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
