// The rules of snapshots (snapshot_rules.h).

#include "service/snapshot_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <vector>

#include "uri/access.h"
#include "uri/uri_path.h"
#include "uri/viking_uri.h"

namespace skald {

Status CheckBranch(std::string_view branch) {
  const bool bad = branch.empty() || branch.size() > kMaxSnapshotNameBytes ||
                   branch.find("..") != std::string_view::npos || branch.front() == '/' ||
                   branch.back() == '/' || std::any_of(branch.begin(), branch.end(), [](char c) {
                     return static_cast<unsigned char>(c) < 0x20 || c == 0x7F ||
                            std::string_view(" ~^:?[*\\").find(c) != std::string_view::npos;
                   });
  if (bad) return Status::InvalidArgument(fmt::format("invalid branch name: '{}'", branch));
  return Status::Ok();
}

Status CheckCommitText(std::string_view message, const std::optional<std::string>& name,
                       const std::optional<std::string>& email) {
  if (message.size() > kMaxSnapshotMessageBytes) {
    return Status::InvalidArgument(
        fmt::format("a commit message is at most {} KiB", kMaxSnapshotMessageBytes >> 10));
  }
  for (const auto* field : {&name, &email}) {
    if (*field && (*field)->size() > kMaxSnapshotNameBytes) {
      return Status::InvalidArgument(
          fmt::format("author_name and author_email are at most {} bytes", kMaxSnapshotNameBytes));
    }
  }
  return Status::Ok();
}

Status RefNotFound(std::string_view ref) {
  return Status::NotFound(fmt::format("Git ref not found: {}", ref))
      .WithDetail("resource", std::string(ref))
      .WithDetail("type", "git_ref");
}

bool NeverInSnapshots(std::string_view path) {
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

bool PathAtOrBelow(std::string_view path, std::string_view dir) {
  if (dir.empty()) return true;
  return path == dir ||
         (path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/');
}

std::string JoinTreePath(std::string_view dir, std::string_view rel) {
  return rel.empty() ? std::string(dir) : JoinPath(dir, rel);
}

std::string RelativeTo(std::string_view path, std::string_view dir) {
  if (dir.empty()) return std::string(path);
  return path.size() <= dir.size() ? std::string() : std::string(path.substr(dir.size() + 1));
}

SnapshotTree SnapshotSubtree(const SnapshotTree& tree, std::string_view dir) {
  SnapshotTree out;
  // Entries at or below `dir` start with it and are contiguous in order.
  for (auto it = tree.lower_bound(dir); it != tree.end() && it->first.starts_with(dir); ++it) {
    if (PathAtOrBelow(it->first, dir)) out.emplace(RelativeTo(it->first, dir), it->second);
  }
  return out;
}

bool VisibleTo(const Identity& who, std::string_view path) {
  if (who.role == Role::kRoot && who.actor_peer.empty()) return true;  // the common case, cheap
  Result<VikingUri> uri = VikingUri::Parse(UriOfPath(path));
  return uri.ok() && IsAccessible(who, *uri);
}

void EraseVisibleSubtree(const Identity& who, std::string_view dir, SnapshotTree* tree) {
  for (auto it = tree->lower_bound(dir); it != tree->end() && it->first.starts_with(dir);) {
    const bool erase = PathAtOrBelow(it->first, dir) && VisibleTo(who, it->first);
    it = erase ? tree->erase(it) : std::next(it);
  }
}

}  // namespace skald
