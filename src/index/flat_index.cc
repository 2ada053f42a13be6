#include "index/flat_index.h"

namespace skald {

FlatIndex::FlatIndex(VectorIndexOptions options) : StoreIndex(std::move(options)) {
  InitEmpty();
}

std::unique_ptr<StoreIndex::Generation> FlatIndex::NewGeneration() const {
  return std::make_unique<Generation>(options_.dim, options_.metric, options_.encoding);
}

void FlatIndex::SearchIn(const Generation& gen, const StoreSnapshot& snap,
                         const CompiledFilter& f, const SearchOptions&, float query_scale,
                         QueryScratch* scratch, SearchStats* stats) const {
  scratch->candidates.clear();
  // A filter whose matches the URI tree or the field postings list cheaply
  // (a small subtree, a rare owner or tag) scores just those records.
  if (!f.trivial &&
      gen.store.CollectCheaply(f, snap, snap.slots / 4 + 64, &scratch->candidates)) {
    stats->path = SearchPath::kExactCandidates;
    stats->estimated_matches = scratch->candidates.size();
    stats->distance_computations = ExactScanSlots(gen.store, scratch->candidates, query_scale,
                                                  scratch);
    return;
  }
  stats->path = SearchPath::kExactScan;
  stats->distance_computations = ExactScanAll(gen.store, snap, f, query_scale, scratch);
  stats->estimated_matches = stats->distance_computations;
}

}  // namespace skald
