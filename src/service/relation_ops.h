#pragma once

// RelationOps: links between nodes (OpenViking's relations: "this resource
// relates to those, because ..."). The links of a node are a list of entries
// {id, uris, reason, created_at}, as OpenViking keeps them; Relations()
// flattens them to one (uri, reason) per linked URI. They are kept in the
// catalog's meta table under "relations/<account>/<node URI>". Like
// OpenViking's per-node `.relations.json`, a node's links follow it when it
// moves (MoveTree) and go when it is removed (DropTree); links *to* a moved
// or removed node are left as they are. Deleting the account deletes them
// (Catalog::PurgeAccount). Skald never reads them for retrieval, and
// Db::Relations shows a caller only the linked URIs they may see.
//
// URIs arrive resolved and access-checked (DbImpl): this class only keeps
// the lists. Thread safety: safe for concurrent use; one mutex serializes
// the read-modify-write of a list. The catalog is borrowed.

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "skald/db.h"
#include "storage/catalog.h"

namespace skald {

class RelationOps {
 public:
  explicit RelationOps(Catalog* catalog) : catalog_(catalog) {}

  // Every (uri, reason) linked from `from` of `account`, entries in the
  // order they were made.
  Result<std::vector<RelationLink>> List(std::string_view account, std::string_view from);
  // Appends one entry linking `from` to `to` (REQUIRES: `to` not empty).
  Status Link(std::string_view account, std::string_view from, const std::vector<std::string>& to,
              std::string_view reason, int64_t now_ns);
  // The nodes that link to `uri` (each once, by URI).
  Result<std::vector<std::string>> LinksTo(std::string_view account, std::string_view uri);
  // Removes `to` from the first entry that names it; an entry left without
  // URIs goes. Nothing to remove is Ok.
  Status Unlink(std::string_view account, std::string_view from, std::string_view to);

  // The nodes at and below `uri` were removed: their links go.
  Status DropTree(std::string_view account, std::string_view uri);
  // The nodes at and below `from` moved to `to`: their links follow them.
  Status MoveTree(std::string_view account, std::string_view from, std::string_view to);

 private:
  Catalog* const catalog_;
  std::mutex mu_;  // serializes Link/Unlink's read-modify-write
};

}  // namespace skald
