#pragma once

// Record: the one retrieval record of Skald (reference internals §2.9) — per
// directory an L0 (abstract) and an L1 (overview) record, per file an L2
// record. The catalog stores it (with its vector, so every index can be
// rebuilt without re-embedding), the vector and lexical indexes keep its
// RecordFields, the semantic indexer writes it and the retriever reads it
// back for hits. One type, passed as is between those modules.
//
// Thread safety: value types.

#include <cstdint>
#include <string>
#include <vector>

#include "skald/types.h"

namespace skald {

// The key and the filterable fields of a record: what both indexes store
// per record and what a RecordFilter (index/vector_index.h) looks at.
struct RecordFields {
  uint64_t key = 0;      // catalog-assigned, stable while the record exists; the index id
  std::string account;   // tenant (filled in by the catalog); the index partition
  std::string uri;       // the node the record describes ("viking://resources/a")
  int level = 2;         // 0 abstract, 1 overview, 2 file (indexes accept 0..7)
  ContextType context_type = ContextType::kResource;
  std::string owner;     // owner user id ("" for account-shared content)
  std::vector<std::string> tags;  // "k=v"
  int64_t created_ns = 0;
  int64_t updated_ns = 0;
};

// A whole record: the fields plus what the catalog keeps besides them.
// A Record is-a RecordFields, so it can be handed to an index as it is.
struct Record : RecordFields {
  std::string id;          // md5("account:uri[/.abstract.md|/.overview.md]"), as OpenViking
  std::string parent_uri;  // the parent directory of `uri`
  std::string abstract;    // the text the record stands for (shown in results)
  std::string embedder;    // identity of the embedder that made `vector`
  std::vector<float> vector;
  int64_t active_count = 0;  // times used (hotness)
  int64_t seq = 0;           // change sequence number of the last change (catalog-assigned)
  bool deleted = false;      // a tombstone: kept so that indexes can catch up on deletes
};

}  // namespace skald
