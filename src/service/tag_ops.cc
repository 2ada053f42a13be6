#include "service/tag_ops.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <utility>

#include "ingest/ingest_jobs.h"
#include "uri/access.h"
#include "uri/uri_path.h"

namespace skald {
namespace {

// Nodes of `account` in the subtree at `scope` that can have records (no
// dot-files: sidecars, hidden control files).
Result<std::set<std::string>> IndexableUrisUnder(Catalog& catalog, std::string_view account,
                                                 const VikingUri& scope) {
  std::set<std::string> uris;
  uris.insert(scope.str());
  SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> nodes,
                         catalog.ListSubtree(account, scope.path(), 0));
  for (const CatalogNode& node : nodes) {
    const std::string_view path = node.path;
    const size_t slash = path.rfind('/');
    const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (name.starts_with('.')) continue;
    uris.insert(UriOfPath(node.path));
  }
  return uris;
}

}  // namespace

Result<SetTagsResult> TagOps::Set(const Identity& who, const VikingUri& uri,
                                  std::span<const VikingUri> scopes,
                                  std::span<const std::string> tags, TagMode mode,
                                  std::string root_uri) {
  SetTagsResult result;
  result.uri = uri.str();
  result.root_uri = std::move(root_uri);
  result.context_type = std::string(ContextTypeName(uri.context_type()));
  result.tags = NormalizeTagsLeniently(tags);
  result.mode = std::string(TagModeName(mode));

  const std::string_view account = who.account;
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Record> records;
  std::set<std::string> targets;  // the nodes whose records are set
  if (scopes.empty()) {
    SKALD_ASSIGN_OR_RETURN(records, catalog_->GetRecordsByUri(account, uri.str()));
    targets.insert(uri.str());
  } else {
    for (const VikingUri& scope : scopes) {
      SKALD_ASSIGN_OR_RETURN(std::vector<Record> under,
                             catalog_->GetRecordsUnder(account, scope.str()));
      for (Record& r : under) records.push_back(std::move(r));
      SKALD_ASSIGN_OR_RETURN(std::set<std::string> nodes,
                             IndexableUrisUnder(*catalog_, account, scope));
      targets.merge(nodes);
    }
    std::erase_if(targets, [&](const std::string& node) {
      Result<VikingUri> parsed = VikingUri::Parse(node);
      return !parsed.ok() || !IsAccessible(who, *parsed);
    });
  }

  std::erase_if(records, [&](const Record& r) { return !targets.contains(r.uri); });
  std::set<std::string> tagged;
  for (const Record& r : records) {
    result.updated_uris.push_back(r.uri);
    tagged.insert(r.uri);
  }
  result.skipped_count = targets.size() - tagged.size();
  SKALD_ASSIGN_OR_RETURN(uint64_t written,
                         RetagRecords(*catalog_, account, records, result.tags, mode));
  // The tags are committed; an index that cannot catch up now applies them
  // at its next catch-up.
  if (written > 0 && indexes_ != nullptr) {
    if (Status caught_up = indexes_->CatchUpIndexes(); !caught_up.ok()) {
      spdlog::warn("set_tags {}: the indexes will apply the tags later: {}", uri.str(),
                   caught_up.ToString());
    }
  }
  return result;
}

Result<std::vector<std::string>> NodeTags(Catalog& catalog, std::string_view account,
                                          std::string_view uri) {
  SKALD_ASSIGN_OR_RETURN(std::vector<Record> records, catalog.GetRecordsByUri(account, uri));
  std::vector<std::string> seen;
  for (const Record& r : records) {
    for (std::string& tag : NormalizeTagsLeniently(r.tags)) {
      if (std::find(seen.begin(), seen.end(), tag) == seen.end()) seen.push_back(std::move(tag));
    }
  }
  return seen;
}

Result<std::optional<std::vector<std::string>>> TagsIfMatching(
    Catalog& catalog, std::string_view account, std::string_view uri,
    std::span<const std::string> wanted) {
  SKALD_ASSIGN_OR_RETURN(std::vector<std::string> tags, NodeTags(catalog, account, uri));
  for (const std::string& tag : wanted) {
    if (std::find(tags.begin(), tags.end(), tag) == tags.end()) {
      return std::optional<std::vector<std::string>>();
    }
  }
  return std::optional<std::vector<std::string>>(std::move(tags));
}

Result<NodeAttrs> TagOps::Attrs(std::string_view account, const VikingUri& uri) {
  NodeAttrs attrs;
  attrs.uri = uri.str();
  attrs.context_type = std::string(ContextTypeName(uri.context_type()));
  SKALD_ASSIGN_OR_RETURN(attrs.tags, NodeTags(*catalog_, account, uri.str()));
  return attrs;
}

}  // namespace skald
