// Search over file names and contents: glob and grep.

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <utility>

#include "common/strings.h"
#include "common/tags.h"
#include "ingest/parsers/media_parser.h"
#include "service/fs_engine.h"
#include "service/tag_ops.h"
#include "uri/glob_pattern.h"
#include "uri/uri_path.h"

namespace skald {
namespace {

bool LooksBinary(std::string_view bytes) {
  return bytes.substr(0, 8192).find('\0') != std::string_view::npos;
}

bool IsPublicScope(std::string_view scope) {
  return scope == "resources" || scope == "user" || scope == "agent";
}

}  // namespace

Result<GlobResult> FsReader::Glob(const Identity& who, const GlobRequest& request) {
  SKALD_RETURN_IF_ERROR(request.Validate());
  SKALD_ASSIGN_OR_RETURN(GlobPattern pattern, GlobPattern::Compile(request.pattern));
  SKALD_ASSIGN_OR_RETURN(VikingUri base, Resolve(who, request.uri));
  SKALD_ASSIGN_OR_RETURN(CatalogNode base_node, GetNode(who, base));
  if (!base_node.is_dir) {
    return Status::InvalidArgument(fmt::format("glob needs a directory: {}", base.str()));
  }
  // Walk only below the pattern's literal prefix, and no deeper than it reaches.
  std::string walk_root(base.path());
  if (!pattern.literal_prefix().empty()) {
    walk_root =
        walk_root.empty() ? pattern.literal_prefix() : walk_root + "/" + pattern.literal_prefix();
  }
  int max_depth = 0;
  if (!pattern.recursive()) {
    size_t prefix_segments =
        pattern.literal_prefix().empty() ? 0 : Split(pattern.literal_prefix(), '/').size();
    max_depth = static_cast<int>(pattern.segment_count() - prefix_segments);
    if (max_depth <= 0) max_depth = 1;
  }
  std::vector<CatalogNode> rows;
  if (walk_root == base.path()) {
    SKALD_ASSIGN_OR_RETURN(rows, WalkVisible(who, base, max_depth));
  } else {
    VikingUri start_uri = VikingUri::FromSegments(Split(walk_root, '/'));
    SKALD_ASSIGN_OR_RETURN(auto start, catalog_->Get(who.account, walk_root));
    if (start) {
      SKALD_ASSIGN_OR_RETURN(start, SeenBy(who, start_uri, std::move(*start)));
    }
    if (start) {
      rows.push_back(*start);
      SKALD_ASSIGN_OR_RETURN(auto below, WalkVisible(who, start_uri, max_depth));
      rows.insert(rows.end(), below.begin(), below.end());
    }
  }
  size_t base_len = base.is_root() ? 0 : base.path().size() + 1;
  std::vector<std::pair<VikingUri, const CatalogNode*>> found;
  for (const CatalogNode& row : rows) {
    std::string_view rel = std::string_view(row.path).substr(std::min(base_len, row.path.size()));
    if (rel.empty() || PathHasHiddenSegment(rel)) continue;
    if (!pattern.Matches(rel)) continue;
    VikingUri uri = VikingUri::FromSegments(Split(row.path, '/'));
    if (base.is_root() && !IsPublicScope(uri.scope())) continue;
    found.emplace_back(std::move(uri), &row);
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first.str() < b.first.str(); });
  // The tag filter applies before the limit.
  const std::vector<std::string> wanted = NormalizeTagsLeniently(request.tags);
  const bool with_tags = request.include_tags || !wanted.empty();
  GlobResult result;
  for (const auto& [uri, row] : found) {
    if (result.matches.size() == static_cast<size_t>(request.node_limit)) break;
    LsEntry entry;
    if (with_tags) {
      SKALD_ASSIGN_OR_RETURN(entry.tags, TagsIfMatching(*catalog_, who.account, uri.str(), wanted));
      if (!entry.tags) continue;
    }
    entry.node = ToNodeInfo(who, uri, *row);
    entry.rel_path = row->path.substr(std::min(base_len, row->path.size()));
    result.matches.push_back(std::move(entry));
  }
  return result;
}

Result<GrepResult> FsReader::Grep(const Identity& who, const GrepRequest& request) {
  SKALD_RETURN_IF_ERROR(request.Validate());
  RE2::Options re_options;
  re_options.set_case_sensitive(!request.case_insensitive);
  re_options.set_log_errors(false);
  RE2 re(request.pattern, re_options);
  if (!re.ok()) {
    return Status::InvalidArgument(
        fmt::format("Invalid regular expression '{}': {}", request.pattern, re.error()));
  }
  SKALD_ASSIGN_OR_RETURN(VikingUri base, Resolve(who, request.uri));
  std::optional<VikingUri> exclude;
  if (!request.exclude_uri.empty()) {
    // Only narrows what is searched: an exclusion naming something the
    // caller cannot see excludes nothing they could see (no check needed,
    // and no answer that would tell it apart from a missing path).
    SKALD_ASSIGN_OR_RETURN(exclude, resolver_->ParseOnly(who, request.exclude_uri));
  }
  SKALD_ASSIGN_OR_RETURN(CatalogNode base_node, GetNode(who, base));
  std::vector<CatalogNode> files;
  if (base_node.is_dir) {
    SKALD_ASSIGN_OR_RETURN(files, WalkVisible(who, base, request.level_limit));
  } else {
    base_node.path = std::string(base.path());
    files.push_back(base_node);
  }
  size_t base_len = base.is_root() ? 0 : base.path().size() + 1;
  // Files whose tags do not match are not scanned (nor counted as scanned).
  const std::vector<std::string> wanted = NormalizeTagsLeniently(request.tags);
  const bool with_tags = request.include_tags || !wanted.empty();
  GrepResult result;
  for (const CatalogNode& row : files) {
    if (row.is_dir) continue;
    VikingUri uri = VikingUri::FromSegments(Split(row.path, '/'));
    std::string_view rel =
        base_node.is_dir ? std::string_view(row.path).substr(std::min(base_len, row.path.size()))
                         : std::string_view();
    if (PathHasHiddenSegment(rel)) continue;
    if (exclude && exclude->Contains(uri)) continue;
    if (base.is_root() && !IsPublicScope(uri.scope())) continue;
    // A picture, recording or video is never read as lines of text.
    if (!MediaKindOf(uri.name()).empty()) continue;
    std::optional<std::vector<std::string>> tags;
    if (with_tags) {
      SKALD_ASSIGN_OR_RETURN(tags, TagsIfMatching(*catalog_, who.account, uri.str(), wanted));
      if (!tags) continue;
    }
    auto bytes = content_->ReadFile(who.account, row.path);
    if (bytes.status().code() == StatusCode::kNotFound) continue;  // deleted meanwhile
    if (!bytes.ok()) return bytes.status();
    ++result.files_scanned;
    if (LooksBinary(*bytes)) continue;
    std::string_view text = *bytes;
    int64_t line_no = 0;
    size_t start = 0;
    while (start < text.size()) {
      size_t eol = text.find('\n', start);
      std::string_view line =
          text.substr(start, eol == std::string_view::npos ? std::string_view::npos : eol - start);
      ++line_no;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (RE2::PartialMatch(line, re)) {
        ++result.match_count;
        if (result.matches.size() < static_cast<size_t>(request.node_limit)) {
          result.matches.push_back(GrepMatch{uri.str(), line_no, std::string(line), tags});
        }
      }
      if (eol == std::string_view::npos) break;
      start = eol + 1;
    }
  }
  return result;
}

}  // namespace skald
