#pragma once

// StoreIndex: the machinery FlatIndex and HnswIndex share — generations of
// storage, versioned snapshots, upsert/delete bookkeeping, compaction,
// persistence of the record store, and the search/count entry points.
//
// Concurrency model:
//  * A Generation holds one RecordStore (and, in HNSW, the graph). Slots are
//    append-only; an upsert appends and tombstones the old slot.
//  * Writers are serialized by write_mu_. A write batch gets version v =
//    version_ + 1; its tombstones are stamped v; it commits by publishing
//    (version_, committed_slots_) under snap_mu_.
//  * A search copies (generation, version, slot count) under snap_mu_ and then
//    runs without locks: it sees slots below the count whose tombstone is
//    absent or newer than its version — exactly the batches committed before
//    it started.
//  * Compact() copies the live slots into a new generation and links them
//    without holding write_mu_; writes made meanwhile are logged and replayed
//    before the new generation is swapped in. Searches holding the old one
//    keep it alive (shared_ptr).
//  * Linking (HNSW: into the graph) may lag the appends: slots [0, linked)
//    are linked, the rest wait for LinkPending() — up to DeferredLinks() of
//    them; an upsert that would leave more links the oldest of them until
//    DeferredLinks() are left. Linking holds
//    link_mu_, not write_mu_, so appends go on meanwhile; SearchIn scores
//    the unlinked slots of its snapshot exactly.
//
// Thread safety: all public methods are safe to call concurrently.

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "index/exact_scan.h"
#include "index/record_store.h"
#include "index/vector_index.h"

namespace skald {

class StoreIndex : public VectorIndex {
 public:
  ~StoreIndex() override;

  const std::string& embedder() const override { return options_.embedder; }
  int dim() const override { return options_.dim; }
  Metric metric() const override { return options_.metric; }

  Status Upsert(std::span<const RecordFields> records, std::span<const float> vectors) override;
  using VectorIndex::Upsert;
  Result<uint64_t> Delete(std::span<const uint64_t> ids) override;
  Status Search(std::span<const float> query, const RecordFilter& filter,
                const SearchOptions& options, std::vector<SearchHit>* hits,
                SearchStats* stats) const override;
  Result<uint64_t> Count(const RecordFilter& filter) const override;
  uint64_t size() const override { return live_.load(std::memory_order_relaxed); }
  uint64_t deleted() const override { return dead_.load(std::memory_order_relaxed); }
  Status Compact() override;
  uint64_t MemoryBytes() const override;
  int64_t applied_seq() const override { return applied_seq_.load(std::memory_order_acquire); }
  void set_applied_seq(int64_t seq) override {
    applied_seq_.store(seq, std::memory_order_release);
  }
  // Saves what is linked as linked and what waits for links as waiting.
  Status Save(const std::string& path) const override;
  uint64_t pending_links() const override;
  uint64_t LinkPending(uint64_t max_records) override;

  const VectorIndexOptions& options() const { return options_; }

  // Reads `path` into this (new, empty) index. See LoadVectorIndex.
  Status LoadFrom(const std::string& path);

 protected:
  struct Generation {
    Generation(int dim, Metric metric, VectorEncoding encoding)
        : store(dim, metric, encoding) {}
    virtual ~Generation() = default;
    RecordStore store;
    // id -> live slot. Writer-only (write_mu_, or private during Compact).
    std::unordered_map<uint64_t, uint32_t> slot_of;
    // Slots [0, linked) are linked. Written under link_mu_ (or privately
    // during Compact and load), read with atomic loads.
    uint32_t linked = 0;
  };

  explicit StoreIndex(VectorIndexOptions options);
  // Installs an empty generation. Subclass constructors call it last.
  void InitEmpty() { Publish(NewGeneration(), 0); }

  virtual std::unique_ptr<Generation> NewGeneration() const = 0;
  // Makes slots [first, last) of `gen` (already appended to its store)
  // searchable — HNSW links them into its graph. Called by the single writer
  // of `gen`.
  virtual void Link(Generation* gen, uint32_t first, uint32_t last) const = 0;
  // Slots an upsert may leave unlinked (0 = link every upsert at once).
  virtual uint32_t DeferredLinks() const { return 0; }
  // Slots [0, linked) of `gen` visible to a search (atomic load).
  static uint32_t LinkedSlots(const Generation& gen) {
    return __atomic_load_n(&gen.linked, __ATOMIC_ACQUIRE);
  }
  // Finds the best scratch->top.k slots visible in `snap` that pass `f`
  // (scratch->top is Reset and the query prepared by the caller).
  virtual void SearchIn(const Generation& gen, const StoreSnapshot& snap, const CompiledFilter& f,
                        const SearchOptions& options, float query_scale, QueryScratch* scratch,
                        SearchStats* stats) const = 0;
  // Kind-specific sections after the record store. SaveExtra saves the
  // links of slots [0, gen.linked) (REQUIRES: link_mu_ held), in the file
  // version w was created with (kIndexFormatPartlyLinked when gen.linked <
  // the slots saved); LoadExtra reads them back, and lowers gen->linked
  // (set to `slots` before the call) when the file leaves slots waiting for
  // links.
  virtual Status SaveExtra(const Generation& gen, FileWriter* w) const = 0;
  virtual Status LoadExtra(Generation* gen, uint32_t slots, FileReader* r) const = 0;
  virtual uint64_t ExtraMemory(const Generation& gen) const = 0;

  const VectorIndexOptions options_;
  mutable ScratchPool scratch_;

 private:
  struct PendingWrite {
    std::vector<RecordFields> records;  // upsert when non-empty
    std::vector<float> vectors;
    std::vector<uint64_t> deletes;  // delete otherwise
  };

  struct Snapshot {
    std::shared_ptr<const Generation> gen;
    StoreSnapshot snap;
  };
  Snapshot TakeSnapshot() const;

  // Applies an upsert to `gen` with version `version`. Returns the number of
  // new ids and of replaced ones. REQUIRES: exclusive write access to gen.
  void ApplyUpsert(Generation* gen, std::span<const RecordFields> records,
                   std::span<const float> vectors, uint64_t version, uint64_t* added,
                   uint64_t* replaced) const;
  uint64_t ApplyDelete(Generation* gen, std::span<const uint64_t> ids, uint64_t version) const;
  // Links the slots of `gen` from its `linked` up to `last`. REQUIRES:
  // link_mu_ held, or `gen` private to the caller.
  void LinkThrough(Generation* gen, uint32_t last) const;
  void Publish(std::shared_ptr<Generation> gen, uint64_t version);

  mutable std::mutex write_mu_;  // serializes writers, Save and Compact's swap
  mutable std::mutex link_mu_;   // serializes linking; taken after write_mu_ when both
  mutable std::mutex snap_mu_;   // readers copy the three fields below under it
  // Changed only while holding both mutexes, so writers may read them under
  // write_mu_ alone.
  std::shared_ptr<Generation> gen_;  // GUARDED_BY(snap_mu_, write_mu_): current generation
  uint64_t version_ = 0;             // GUARDED_BY(snap_mu_, write_mu_): last committed version
  uint32_t committed_slots_ = 0;     // GUARDED_BY(snap_mu_, write_mu_): gen_ slots at version_

  bool compacting_ = false;            // GUARDED_BY(write_mu_)
  std::vector<PendingWrite> pending_;  // GUARDED_BY(write_mu_): writes made during Compact
  std::mutex compact_mu_;              // one Compact at a time

  std::atomic<uint64_t> live_{0};
  std::atomic<uint64_t> dead_{0};
  std::atomic<int64_t> applied_seq_{0};
};

}  // namespace skald
