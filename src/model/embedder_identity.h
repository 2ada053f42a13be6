#pragma once

// The embedder identity of a workspace: the (provider, model, dimension)
// that made its vectors, stored in the catalog's metadata (key "embedder",
// a JSON object; docs/format/catalog.md). Vectors of different embedders
// live in different spaces, so a workspace is never silently reopened with
// another embedder: the check refuses, with a message that says to reindex,
// unless the caller asked for the reindex.
//
// Thread safety: CheckEmbedderIdentity runs during open, before the
// workspace is shared; Catalog calls are themselves thread-safe.

#include <memory>
#include <string>
#include <string_view>

#include "model/embedder.h"
#include "skald/result.h"
#include "storage/catalog.h"

namespace skald {

inline constexpr std::string_view kEmbedderMetaKey = "embedder";
// Set (to the previous identity's JSON) when the identity was replaced with
// reindexing allowed; the reindex job clears it when every vector is remade.
inline constexpr std::string_view kEmbedderReindexMetaKey = "embedder_reindex_from";

struct EmbedderIdentity {
  std::string provider;
  std::string model;
  int dimension = 0;

  static EmbedderIdentity Of(const Embedder& embedder);
  // {"provider":"...","model":"...","dimension":N}
  std::string ToJson() const;
  // Corruption when `json` is not such an object.
  static Result<EmbedderIdentity> FromJson(std::string_view json);
  // "provider=openai model=text-embedding-3-small dimension=1536"
  std::string Describe() const;
  bool operator==(const EmbedderIdentity&) const = default;
};

enum class EmbedderCheck {
  kRecorded,        // none was stored, or no vector exists yet: `embedder`'s is now
  kUnchanged,       // the stored identity is `embedder`'s
  kReindexRequired  // it differed, allow_reindex was set: replaced, reindex pending
};

// Compares `embedder` with the identity stored in `catalog`. While the
// catalog holds no record (no vector was ever written) any identity is
// simply recorded. Otherwise a different identity is FailedPrecondition naming both and saying to
// reindex, unless `allow_reindex`: then the new identity is stored, kEmbedderReindexMetaKey records
// the old one and kReindexRequired is returned. `workspace` only appears in messages.
Result<EmbedderCheck> CheckEmbedderIdentity(Catalog& catalog, const Embedder& embedder,
                                            bool allow_reindex, std::string_view workspace);

// The embedder for an open that configured none (e.g. `skald ls --data DIR`):
// the built-in hashing embedder with the workspace's recorded dimension (512
// for a new workspace), or null when the workspace records another embedder,
// whose endpoint and key only a configuration can supply; such a workspace
// still opens, and only what needs embeddings is unavailable.
Result<std::unique_ptr<Embedder>> EmbedderForUnconfiguredOpen(Catalog& catalog);

}  // namespace skald
