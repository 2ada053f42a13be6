// Read-only file-system operations: ls, tree, stat, read, download,
// abstract, overview.

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/strings.h"
#include "ingest/sidecar.h"
#include "ingest/source_import.h"
#include "service/fs_engine.h"
#include "service/tag_ops.h"
#include "session/memory_merge.h"
#include "uri/access.h"

namespace skald {
namespace {

// Scopes that appear when listing `viking://`.
bool IsListedScope(std::string_view name) {
  return name == "resources" || name == "user" || name == "agent";
}

bool IsHiddenName(std::string_view name) { return !name.empty() && name.front() == '.'; }

// Depth-first order: a directory's whole subtree comes before its next
// sibling, which plain byte order breaks for names like "a-b" vs "a/c".
bool DepthFirstLess(const std::string& a, const std::string& b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if (a[i] == b[i]) continue;
    if (a[i] == '/') return true;
    if (b[i] == '/') return false;
    return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  }
  return a.size() < b.size();
}

std::string CutAbstract(std::string body, int abs_limit) {
  if (Utf8Length(body) <= static_cast<size_t>(abs_limit)) return body;
  // Below 4 there is no room for "..." (0: no abstract at all).
  if (abs_limit < 4) return std::string(Utf8Prefix(body, static_cast<size_t>(abs_limit)));
  return std::string(Utf8Prefix(body, static_cast<size_t>(abs_limit - 3))) + "...";
}

// Splits into lines that keep their terminators, so joining them restores the text.
std::vector<std::string_view> SplitLinesKeepEnds(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t eol = text.find('\n', start);
    if (eol == std::string_view::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, eol + 1 - start));
    start = eol + 1;
  }
  return lines;
}

}  // namespace

Status FileNotFound(const VikingUri& uri) { return AbsentStatus(uri); }

Result<CatalogNode> FsReader::GetNode(const Identity& who, const VikingUri& uri) {
  if (uri.is_root()) {
    CatalogNode root;
    root.is_dir = true;
    return root;
  }
  SKALD_ASSIGN_OR_RETURN(auto node, catalog_->Get(who.account, uri.path()));
  if (!node) return FileNotFound(uri);
  SKALD_ASSIGN_OR_RETURN(auto seen, SeenBy(who, uri, std::move(*node)));
  if (!seen) return FileNotFound(uri);
  return std::move(*seen);
}

Result<std::optional<CatalogNode>> FsReader::SeenBy(const Identity& who, const VikingUri& uri,
                                                    CatalogNode node) {
  std::vector<VikingUri> parts = VisibleSubtrees(who, uri);
  if (parts.empty()) return std::optional<CatalogNode>();
  if (parts.size() == 1 && parts[0].depth() == uri.depth()) {
    // Visible as a whole; a single hidden entry (the watch-task file) aside.
    if (!IsAccessible(who, uri)) return std::optional<CatalogNode>();
    return std::optional<CatalogNode>(std::move(node));
  }
  // A container above other users' spaces: there for `who` only with their
  // own space in it, and as new as that space.
  std::optional<CatalogNode> own;
  for (const VikingUri& part : parts) {
    SKALD_ASSIGN_OR_RETURN(auto found, catalog_->Get(who.account, part.path()));
    if (found && (!own || found->mtime_ns > own->mtime_ns)) own = std::move(found);
  }
  if (!own) return std::optional<CatalogNode>();
  node.mtime_ns = own->mtime_ns;
  node.ctime_ns = own->ctime_ns;
  return std::optional<CatalogNode>(std::move(node));
}

NodeInfo FsReader::ToNodeInfo(const Identity& who, const VikingUri& uri,
                              const CatalogNode& node) const {
  NodeInfo info;
  info.uri = uri.str();
  info.name = std::string(uri.name());
  info.is_dir = node.is_dir;
  info.size = node.size;
  info.mtime_ns = node.mtime_ns;
  info.mode = node.is_dir ? 0755 : 0644;
  info.is_locked = locks_->IsLocked(who.account, uri.path());
  info.content_hash = node.hash;
  return info;
}

Result<std::optional<std::string>> FsReader::ReadSidecarBody(const Identity& who,
                                                             const VikingUri& dir,
                                                             std::string_view name) {
  if (dir.is_root()) return std::optional<std::string>();
  VikingUri sidecar = dir.Child(name);
  SKALD_ASSIGN_OR_RETURN(auto node, catalog_->Get(who.account, sidecar.path()));
  if (!node || node->is_dir) return std::optional<std::string>();
  auto bytes = content_->ReadFile(who.account, sidecar.path());
  if (bytes.status().code() == StatusCode::kNotFound) return std::optional<std::string>();
  if (!bytes.ok()) return bytes.status();
  return std::optional<std::string>(ParseSidecar(*bytes).body);
}

Result<std::vector<CatalogNode>> FsReader::WalkVisible(const Identity& who, const VikingUri& base,
                                                       int max_depth) {
  // Descendants of `path` down to `depth` (direct children by their index).
  auto descendants = [&](std::string_view path, int depth) {
    return depth == 1 ? catalog_->ListChildren(who.account, path)
                      : catalog_->ListSubtree(who.account, path, depth);
  };
  std::vector<VikingUri> parts = VisibleSubtrees(who, base);
  std::vector<CatalogNode> rows;
  if (parts.size() == 1 && parts[0].depth() == base.depth()) {
    SKALD_ASSIGN_OR_RETURN(rows, descendants(base.path(), max_depth));
  } else {
    // Only the caller's parts, with the containers between `base` and them
    // (`user` above user/{uid}); the names of other users' spaces are
    // never read.
    std::set<std::string> seen;
    for (const VikingUri& part : parts) {
      const int below = static_cast<int>(part.depth() - base.depth());
      for (size_t d = base.depth() + 1; d <= part.depth(); ++d) {
        if (max_depth > 0 && static_cast<int>(d - base.depth()) > max_depth) break;
        std::vector<std::string> prefix(part.segments().begin(),
                                        part.segments().begin() + static_cast<long>(d));
        VikingUri dir = VikingUri::FromSegments(std::move(prefix));
        if (!seen.insert(std::string(dir.path())).second) continue;
        SKALD_ASSIGN_OR_RETURN(auto node, catalog_->Get(who.account, dir.path()));
        if (node) rows.push_back(std::move(*node));
      }
      if (max_depth > 0 && below >= max_depth) continue;
      SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> subtree,
                             descendants(part.path(), max_depth > 0 ? max_depth - below : 0));
      for (CatalogNode& row : subtree) rows.push_back(std::move(row));
    }
    std::sort(rows.begin(), rows.end(),
              [](const CatalogNode& a, const CatalogNode& b) { return a.path < b.path; });
  }
  // Containers show as SeenBy says; single entries may still be hidden.
  std::vector<CatalogNode> visible;
  visible.reserve(rows.size());
  for (CatalogNode& row : rows) {
    VikingUri uri = VikingUri::FromSegments(Split(row.path, '/'));
    SKALD_ASSIGN_OR_RETURN(auto shown, SeenBy(who, uri, std::move(row)));
    if (shown) visible.push_back(std::move(*shown));
  }
  return visible;
}

Result<std::vector<LsEntry>> FsReader::List(const Identity& who, const VikingUri& uri,
                                            const LsOptions& options, bool recursive) {
  SKALD_RETURN_IF_ERROR(options.Validate());
  SKALD_ASSIGN_OR_RETURN(CatalogNode base, GetNode(who, uri));
  std::vector<std::pair<VikingUri, CatalogNode>> found;
  if (!base.is_dir) {
    found.emplace_back(uri, base);
  } else {
    SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> rows,
                           WalkVisible(who, uri, recursive ? options.level_limit : 1));
    for (CatalogNode& row : rows) {
      VikingUri child = VikingUri::FromSegments(Split(row.path, '/'));
      if (uri.is_root() && !IsListedScope(child.segments().front())) continue;
      // Hidden files are skipped unless asked for; directories always show,
      // but nothing below a hidden directory's name is hidden by that alone.
      if (!row.is_dir && IsHiddenName(child.name()) && !options.show_all_hidden) continue;
      found.emplace_back(std::move(child), std::move(row));
    }
  }

  switch (options.sort_by) {
    case SortBy::kNone:
    case SortBy::kName:
      std::stable_sort(found.begin(), found.end(), [&](const auto& a, const auto& b) {
        return recursive ? DepthFirstLess(a.second.path, b.second.path)
                         : a.first.name() < b.first.name();
      });
      break;
    case SortBy::kMtime:
      std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
        return a.second.mtime_ns < b.second.mtime_ns;
      });
      break;
  }
  if (options.descending) std::reverse(found.begin(), found.end());
  // Tags: the filter applies before the limit; the tags of the entries kept
  // are shown with include_tags (or a filter).
  const std::vector<std::string> wanted = NormalizeTagsLeniently(options.tags);
  const bool with_tags = options.include_tags || !options.tags.empty();
  std::vector<std::vector<std::string>> tags_of;
  if (with_tags) {
    std::vector<std::pair<VikingUri, CatalogNode>> kept;
    for (auto& entry : found) {
      if (kept.size() == static_cast<size_t>(options.node_limit)) break;
      SKALD_ASSIGN_OR_RETURN(auto tags,
                             TagsIfMatching(*catalog_, who.account, entry.first.str(), wanted));
      if (!tags) continue;
      tags_of.push_back(std::move(*tags));
      kept.push_back(std::move(entry));
    }
    found = std::move(kept);
  }
  if (found.size() > static_cast<size_t>(options.node_limit)) found.resize(options.node_limit);

  std::vector<LsEntry> out;
  out.reserve(found.size());
  size_t base_len = uri.is_root() ? 0 : uri.path().size() + 1;
  for (size_t i = 0; i < found.size(); ++i) {
    auto& [child, row] = found[i];
    LsEntry entry;
    if (with_tags) entry.tags = std::move(tags_of[i]);
    entry.node = ToNodeInfo(who, child, row);
    entry.rel_path = base.is_dir ? row.path.substr(std::min(base_len, row.path.size()))
                                 : std::string(child.name());
    if (row.is_dir) {
      SKALD_ASSIGN_OR_RETURN(auto body, ReadSidecarBody(who, child, kAbstractName));
      entry.abstract = body ? CutAbstract(std::move(*body), options.abs_limit)
                            : AbstractPlaceholder(child.str());
    }
    out.push_back(std::move(entry));
  }
  return out;
}

Result<NodeInfo> FsReader::Stat(const Identity& who, const VikingUri& uri) {
  SKALD_ASSIGN_OR_RETURN(CatalogNode node, GetNode(who, uri));
  return ToNodeInfo(who, uri, node);
}

Result<std::string> FsReader::ReadFileBytes(const Identity& who, const VikingUri& uri,
                                            std::string_view verb) {
  SKALD_ASSIGN_OR_RETURN(CatalogNode node, GetNode(who, uri));
  if (node.is_dir) {
    return Status::InvalidArgument(fmt::format("Cannot {} directory as file: {}", verb, uri.str()))
        .WithDetail("expected", "file")
        .WithDetail("actual", "directory")
        .WithDetail("resource", uri.str());
  }
  auto bytes = content_->ReadFile(who.account, uri.path());
  if (bytes.status().code() == StatusCode::kNotFound) return FileNotFound(uri);
  return bytes;
}

Result<std::string> FsReader::Read(const Identity& who, const VikingUri& uri, int64_t offset,
                                   int64_t limit, bool raw) {
  SKALD_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(who, uri, "read"));
  if (!raw && uri.context_type() == ContextType::kMemory && bytes.starts_with("---\n")) {
    // A memory's provenance header is Skald's bookkeeping: callers read the
    // memory itself (OpenViking strips its internal fields the same way).
    if (Result<MemoryRecord> memory = ParseMemoryFile(bytes); memory.ok()) {
      bytes = std::move(memory->memory.text);
      bytes += '\n';
    }
  }
  // Bytes that are not text (a stored picture, recording or video) are not
  // lines to read: content/download gives them back as they are.
  if (!LooksLikeText(bytes)) {
    return Status::InvalidArgument(
               fmt::format("{} is not text; download it instead (content/download)", uri.str()))
        .WithDetail("resource", uri.str());
  }
  if (offset == 0 && limit == -1) return bytes;
  std::vector<std::string_view> lines = SplitLinesKeepEnds(bytes);
  std::string out;
  size_t begin = std::min(static_cast<size_t>(offset), lines.size());
  size_t end =
      limit < 0 ? lines.size() : std::min(lines.size(), begin + static_cast<size_t>(limit));
  for (size_t i = begin; i < end; ++i) out += lines[i];
  return out;
}

Result<Download> FsReader::DownloadFile(const Identity& who, const VikingUri& uri) {
  SKALD_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(who, uri, "download"));
  return Download{std::string(uri.name()), std::move(bytes)};
}

Result<std::string> FsReader::Abstract(const Identity& who, const VikingUri& uri) {
  SKALD_ASSIGN_OR_RETURN(CatalogNode node, GetNode(who, uri));
  VikingUri dir = node.is_dir ? uri : uri.Parent();
  SKALD_ASSIGN_OR_RETURN(auto body, ReadSidecarBody(who, dir, kAbstractName));
  return body ? std::move(*body) : AbstractPlaceholder(dir.str());
}

Result<std::string> FsReader::Overview(const Identity& who, const VikingUri& uri) {
  SKALD_ASSIGN_OR_RETURN(CatalogNode node, GetNode(who, uri));
  VikingUri dir = node.is_dir ? uri : uri.Parent();
  SKALD_ASSIGN_OR_RETURN(auto body, ReadSidecarBody(who, dir, kOverviewName));
  return body ? std::move(*body) : OverviewPlaceholder(dir.str());
}

}  // namespace skald
