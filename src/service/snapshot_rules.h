#pragma once

// The rules of snapshots (service/snapshot_ops.h) that commit, log and
// restore share: which account paths a snapshot never holds, the walks
// over a tree's entries below a directory, and the bounds on what a commit
// keeps. Tree paths are account-relative ("resources/a/b.md"); "" is the
// account root.

#include <optional>
#include <string>
#include <string_view>

#include "skald/types.h"
#include "storage/snapshot_objects.h"

namespace skald {

// The tree path of the account's .ovgitignore (kept in whole-account trees).
inline constexpr std::string_view kSnapshotIgnorePath = ".ovgitignore";

// Kept in every commit and answered by every log: a message is at most
// 64 KiB; a branch name, an author's name and email at most 256 bytes.
inline constexpr size_t kMaxSnapshotMessageBytes = size_t{64} << 10;
inline constexpr size_t kMaxSnapshotNameBytes = 256;

// InvalidArgument unless `branch` follows git's rules for a branch name (as
// OpenViking checks them) and is at most kMaxSnapshotNameBytes long.
Status CheckBranch(std::string_view branch);

// InvalidArgument when a message or an author field is over its bound.
Status CheckCommitText(std::string_view message, const std::optional<std::string>& name,
                       const std::optional<std::string>& email);

// NotFound "Git ref not found" (details resource, type git_ref).
Status RefNotFound(std::string_view ref);

// Paths a snapshot never holds: internal trees (_system, tasks, temp,
// queue, upload), lock files, index files and embedding caches.
bool NeverInSnapshots(std::string_view path);

// True when `path` is `dir` or below it ("" holds everything).
bool PathAtOrBelow(std::string_view path, std::string_view dir);

// `rel` below `dir` ("" rel: `dir` itself).
std::string JoinTreePath(std::string_view dir, std::string_view rel);

// The inverse of JoinTreePath: `path` relative to `dir` ("" for `dir`
// itself). REQUIRES: PathAtOrBelow(path, dir).
std::string RelativeTo(std::string_view path, std::string_view dir);

// The entries of `tree` at or below `dir`, keyed relative to it (a file
// `dir` itself keyed "").
SnapshotTree SnapshotSubtree(const SnapshotTree& tree, std::string_view dir);

// Whether `who` may see the account path `path` (IsAccessible on its URI;
// false for a path that is no URI).
bool VisibleTo(const Identity& who, std::string_view path);

// Removes the entries at or below `dir` that `who` can see.
void EraseVisibleSubtree(const Identity& who, std::string_view dir, SnapshotTree* tree);

}  // namespace skald
