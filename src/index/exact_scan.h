#pragma once

// Exact (brute-force) search over a RecordStore snapshot, shared by FlatIndex
// and by HnswIndex's small-candidate path, plus the per-thread scratch and
// the bounded top-k heap both use.
//
// Thread safety: the functions are reentrant; a QueryScratch belongs to one
// thread at a time (ScratchPool hands them out); ScratchPool is thread-safe.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "index/record_store.h"
#include "index/vector_kernels.h"

namespace skald {

// A scored slot; ordered best-first by (score desc, id asc) for determinism.
struct ScoredSlot {
  float score;
  uint32_t slot;
  uint64_t id;
};

inline bool BetterThan(const ScoredSlot& a, const ScoredSlot& b) {
  return a.score > b.score || (a.score == b.score && a.id < b.id);
}

// The k best items seen. Keeps a heap whose top is the worst kept item.
// Thread safety: none (per-thread scratch).
class TopK {
 public:
  void Reset(size_t k) {
    k_ = k;
    heap_.clear();
    if (heap_.capacity() < k + 1) heap_.reserve(k + 1);
  }
  size_t size() const { return heap_.size(); }
  bool full() const { return heap_.size() >= k_; }
  // Items scoring at or below this cannot enter (when full).
  float threshold() const { return full() ? heap_.front().score : -3.4e38f; }
  void Push(float score, uint32_t slot, uint64_t id) {
    ScoredSlot s{score, slot, id};
    if (heap_.size() < k_) {
      heap_.push_back(s);
      std::push_heap(heap_.begin(), heap_.end(), BetterThan);
    } else if (k_ > 0 && BetterThan(s, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), BetterThan);
      heap_.back() = s;
      std::push_heap(heap_.begin(), heap_.end(), BetterThan);
    }
  }
  // Sorts the kept items best-first (the heap is consumed).
  std::vector<ScoredSlot>& SortBest() {
    std::sort(heap_.begin(), heap_.end(), BetterThan);
    return heap_;
  }

 private:
  size_t k_ = 0;
  std::vector<ScoredSlot> heap_;
};

// Buffers one search needs; reused across queries so the search loop does
// not allocate once warmed up.
struct QueryScratch {
  std::vector<float> query;        // prepared (normalized) query
  std::vector<int8_t> query_i8;    // quantized query (kInt8 stores)
  std::vector<float> block_f32;    // batch scores
  std::vector<int32_t> block_i32;
  std::vector<uint32_t> candidates;
  TopK top;
  // HNSW traversal state (see hnsw_index.cc).
  std::vector<uint8_t> visited;  // epoch marks (1 byte/node keeps them cache-resident)
  uint8_t visited_epoch = 0;
  std::vector<std::pair<float, uint32_t>> frontier;  // candidate heap
  std::vector<std::pair<float, uint32_t>> results;   // result heap
  std::vector<std::pair<float, uint32_t>> prune;     // neighbour pruning candidates
  std::vector<uint32_t> selected;                    // neighbours chosen for a new node
  std::vector<uint32_t> pruned;                      // neighbours kept after pruning
};

class ScratchPool {
 public:
  class Lease {
   public:
    Lease(ScratchPool* pool, std::unique_ptr<QueryScratch> s) : pool_(pool), s_(std::move(s)) {}
    ~Lease() { pool_->Return(std::move(s_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    QueryScratch* operator->() const { return s_.get(); }
    QueryScratch& operator*() const { return *s_; }

   private:
    ScratchPool* pool_;
    std::unique_ptr<QueryScratch> s_;
  };

  Lease Acquire() {
    std::unique_ptr<QueryScratch> s;
    {
      std::lock_guard lock(mu_);
      if (!free_.empty()) {
        s = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (!s) s = std::make_unique<QueryScratch>();
    return Lease(this, std::move(s));
  }

 private:
  void Return(std::unique_ptr<QueryScratch> s) {
    std::lock_guard lock(mu_);
    if (free_.size() < 64) free_.push_back(std::move(s));
  }
  std::mutex mu_;
  std::vector<std::unique_ptr<QueryScratch>> free_;
};

// Copies `query` into scratch->query, normalized for kCosine, and quantizes it
// into scratch->query_i8 for kInt8 stores. Returns the query's int8 scale.
float PrepareQuery(const RecordStore& store, const float* query, QueryScratch* scratch);

// Scans every visible slot of `snap` that passes `filter` and keeps the k best
// in scratch->top. REQUIRES: PrepareQuery was called. Returns rows scored.
uint64_t ExactScanAll(const RecordStore& store, const StoreSnapshot& snap,
                      const CompiledFilter& filter, float query_scale, QueryScratch* scratch);

// Scores the given slots (already filtered and visible) into scratch->top.
uint64_t ExactScanSlots(const RecordStore& store, const std::vector<uint32_t>& slots,
                        float query_scale, QueryScratch* scratch);

}  // namespace skald
