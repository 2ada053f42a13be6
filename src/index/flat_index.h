#pragma once

// FlatIndex: exact search. Every query scans the vectors that pass its filter
// (float32 or int8, cosine or inner product) with the runtime-dispatched SIMD
// kernels of vector_kernels.h; unfiltered blocks are scored with one batched
// kernel call per 256 contiguous rows, filtered blocks evaluate the filter
// first and score only the rows that pass. A filter whose matches the URI
// tree or the field postings list cheaply (a small subtree, a rare owner, tag
// or context type) scores just those records.
// It is also the reference the ANN index's recall is measured against.
//
// Thread safety: see StoreIndex — concurrent searches, counts and writes.

#include <memory>

#include "index/store_index.h"

namespace skald {

class FlatIndex final : public StoreIndex {
 public:
  // REQUIRES: options.Validate().ok() and options.kind == "flat".
  explicit FlatIndex(VectorIndexOptions options);

  std::string_view Kind() const override { return "flat"; }

 protected:
  std::unique_ptr<Generation> NewGeneration() const override;
  void Link(Generation*, uint32_t, uint32_t) const override {}
  void SearchIn(const Generation& gen, const StoreSnapshot& snap, const CompiledFilter& f,
                const SearchOptions& options, float query_scale, QueryScratch* scratch,
                SearchStats* stats) const override;
  Status SaveExtra(const Generation&, FileWriter*) const override {
    return Status::Ok();
  }
  Status LoadExtra(Generation*, uint32_t, FileReader*) const override { return Status::Ok(); }
  uint64_t ExtraMemory(const Generation&) const override { return 0; }
};

}  // namespace skald
