#pragma once

// HnswIndex: approximate nearest-neighbour search on a hierarchical navigable
// small-world graph (Malkov & Yashunin), with filters applied inside the
// graph search and an exact path for selective filters.
//
// Search: greedy descent through the upper layers, then a best-first search
// of layer 0 with a candidate list of size ef. Every node may be traversed,
// but only nodes that are visible in the search's snapshot and pass the
// filter enter the result list, and the search stops only when that list
// holds ef matching nodes and no candidate can improve it — so a filter never
// shrinks the answer the way post-filtering a top-k would.
//
// Planner: before walking the graph with a filter, the index finds out how
// many records pass it — exactly when the URI directory tree or the field
// postings (account, level, context type, owner, tag) list few candidates,
// otherwise by sampling. When few pass (VectorIndexOptions::
// exact_max_candidates / exact_max_fraction) it scores them exactly instead:
// a graph walk would visit ~ef/selectivity nodes to find them.
//
// Writes: inserts link new nodes as in the paper (heuristic neighbour
// selection, M links per upper layer, 2M on layer 0); a large batch is linked
// by HnswParams::build_threads threads with per-node spin locks. With
// HnswParams::max_unlinked, upserts may leave records for LinkPending() to
// link later (off the writer's path); searches score those exactly. Deletes are
// tombstones: the node keeps routing searches but is never returned, and
// Compact() rebuilds the graph without them.
//
// Thread safety: see StoreIndex. Searches read links with acquire loads while
// writers publish them with release stores, so a search never sees a
// half-initialized node.

#include <atomic>
#include <memory>
#include <mutex>

#include "index/store_index.h"

namespace skald {

class HnswIndex final : public StoreIndex {
 public:
  // REQUIRES: options.Validate().ok(), options.kind == "hnsw", kFloat32.
  explicit HnswIndex(VectorIndexOptions options);

  std::string_view Kind() const override { return "hnsw"; }

 protected:
  std::unique_ptr<Generation> NewGeneration() const override;
  void Link(Generation* gen, uint32_t first, uint32_t last) const override;
  uint32_t DeferredLinks() const override {
    return static_cast<uint32_t>(options_.hnsw.max_unlinked);
  }
  void SearchIn(const Generation& gen, const StoreSnapshot& snap, const CompiledFilter& f,
                const SearchOptions& options, float query_scale, QueryScratch* scratch,
                SearchStats* stats) const override;
  Status SaveExtra(const Generation& gen, FileWriter* w) const override;
  Status LoadExtra(Generation* gen, uint32_t slots, FileReader* r) const override;
  uint64_t ExtraMemory(const Generation& gen) const override;

 private:
  struct Graph;
  struct GraphGeneration;

  void InsertNode(GraphGeneration* g, uint32_t slot, QueryScratch* scratch) const;
  void AddLink(GraphGeneration* g, uint32_t node, uint32_t new_node, int layer,
               QueryScratch* scratch) const;
  // Fills scratch->results with up to `ef` nodes closest to `q` on `layer`,
  // starting from `entry`. With `filtered`, only nodes visible in `snap` that
  // pass `f` enter the results. Returns distance computations.
  template <bool kFiltered>
  uint64_t SearchLayer(const GraphGeneration& g, const float* q, uint32_t entry, int layer,
                       size_t ef, const StoreSnapshot* snap, const CompiledFilter* f,
                       QueryScratch* scratch) const;
  // Greedy descent from the entry point to layer `target` + 1... Returns the
  // closest node found on layer `target` + 1.
  uint32_t Descend(const GraphGeneration& g, const float* q, uint32_t entry, int from_layer,
                   int to_layer, uint64_t* dist_count) const;
  // Heuristic neighbour selection over scratch->results (sorted ascending by
  // distance); keeps at most `max_links` in `*selected`.
  void SelectNeighbors(const GraphGeneration& g, std::vector<std::pair<float, uint32_t>>* cands,
                       size_t max_links, std::vector<uint32_t>* selected) const;
};

}  // namespace skald
