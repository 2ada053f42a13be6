#pragma once

// TagOps: the search tags of nodes (set_tags, attrs). Tags live on the
// records a node has in the catalog (a file's L2, a directory's L0 and L1),
// as OpenViking keeps them on its vector records: find and search filter on
// them (RecordFilter::tags), re-indexing keeps them (the semantic indexer
// inherits a record's tags unless the request gives new ones), and removing
// the node removes them. Setting them changes only the tags column, with a
// new change sequence number, and brings the indexes' filters up to it.
//
// URIs arrive resolved and access-checked, the node known to exist (DbImpl):
// this class only reads and writes records. Thread safety: safe for
// concurrent use; set_tags calls take turns. A set_tags that lands
// while an indexing job is rewriting the same record can be undone by that
// job, which carries the tags it read before.

#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/tags.h"
#include "ingest/index_catch_up.h"
#include "skald/db.h"
#include "storage/catalog.h"
#include "uri/viking_uri.h"

namespace skald {

// The search tags of the node `uri`: those of its records in level order,
// each once (normalised; malformed stored tags left out).
Result<std::vector<std::string>> NodeTags(Catalog& catalog, std::string_view account,
                                          std::string_view uri);

// NodeTags of `uri` when they hold every tag of `wanted` (normalised, as
// NormalizeTags gives them; empty: any node), nullopt when one is missing.
// What listings, glob and grep filter on and show.
Result<std::optional<std::vector<std::string>>> TagsIfMatching(Catalog& catalog,
                                                               std::string_view account,
                                                               std::string_view uri,
                                                               std::span<const std::string> wanted);

class TagOps {
 public:
  TagOps(Catalog* catalog, IndexCatchUp* indexes) : catalog_(catalog), indexes_(indexes) {}

  // Sets or merges `tags` (normalised leniently) on the records of the node
  // `uri` or, with `scopes` non-empty, on the records of every node in those
  // subtrees (the recursive case: the parts of `uri`'s subtree the caller
  // may see, `uri` included). `root_uri` is reported as given.
  // Nodes `who` may not see one by one (uri/access.h IsAccessible: another
  // peer's space under an actor peer) are left alone.
  Result<SetTagsResult> Set(const Identity& who, const VikingUri& uri,
                            std::span<const VikingUri> scopes, std::span<const std::string> tags,
                            TagMode mode, std::string root_uri);

  // The node's tags: those of its records in level order, each key once.
  Result<NodeAttrs> Attrs(std::string_view account, const VikingUri& uri);

 private:
  Catalog* const catalog_;
  IndexCatchUp* const indexes_;  // null without indexes
  // Serializes set_tags' read-merge-write, so that two appends to one node
  // both land.
  std::mutex mu_;
};

}  // namespace skald
