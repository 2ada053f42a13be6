#pragma once

// RecordStore: the slots of one index generation — per slot the record's id,
// its filterable fields (strings interned), its vector (float32 or int8) and
// its tombstone version — plus the compiled form of a RecordFilter and the
// candidate generators the search planner uses (URI-scope enumeration through
// parent postings, sampling estimates, a full filtered pass).
//
// Slots are append-only; a slot is never rewritten once readers can see it.
// An upsert of an existing id appends a new slot and tombstones the old one.
//
// Thread safety: one writer at a time (the owning index serializes writes);
// any number of concurrent readers. A reader sees slot `s` only when `s` is
// below the slot count of a snapshot it obtained through the owning index
// (which publishes slots under a mutex), or reached it through a graph link
// (published with release/acquire atomics). Tombstones are versioned, so a
// reader holding a snapshot ignores deletes committed after it.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "index/segmented_array.h"
#include "index/vector_index.h"

namespace skald {

class FileWriter;
class FileReader;

// What a reader may see: slots below `slots` whose tombstone (if any) was
// committed after `version`.
struct StoreSnapshot {
  uint64_t version = 0;
  uint32_t slots = 0;
};

// Interned strings: id <-> string. Thread safety: Intern() takes an exclusive
// lock; Find()/Get() take a shared lock.
class StringPool {
 public:
  uint32_t Intern(std::string_view s);
  std::optional<uint32_t> Find(std::string_view s) const;
  std::string Get(uint32_t id) const;
  size_t size() const;
  std::vector<std::string> All() const;
  uint64_t MemoryBytes() const;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> ids_;
  std::vector<std::string> strings_;
};

// Append-only byte storage whose allocations never move. Writer only;
// readers use the returned pointers (published with the slot).
class Arena {
 public:
  void* Allocate(size_t bytes, size_t align);
  uint64_t used() const { return used_; }

 private:
  static constexpr size_t kBlock = 1 << 20;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* cur_ = nullptr;
  size_t left_ = 0;
  uint64_t used_ = 0;
};

// The fixed-size filter fields of one slot (strings interned, URI and tags
// pointing into the arena).
struct SlotAttrs {
  uint32_t account;
  uint32_t owner;
  uint32_t context_type;
  uint8_t level;
  uint8_t reserved;
  uint16_t num_tags;
  uint16_t uri_depth;
  uint16_t reserved2;
  uint32_t uri_len;
  const char* uri;
  const uint32_t* tags;  // sorted tag ids
  int64_t created_ns;
  int64_t updated_ns;
};

// A RecordFilter resolved against one store's dictionaries.
struct CompiledFilter {
  struct Scope {
    std::string uri;      // trailing '/' removed (unless it is "scheme://")
    bool is_root = false;  // "scheme://": every URI of that scheme
    int depth = 0;         // segments in `uri`
    int min_depth = 0;
    int max_depth = -1;  // < 0: unlimited
  };
  bool match_nothing = false;  // some required string is unknown to the store
  bool trivial = true;         // no condition at all
  int64_t account = -1;        // -1 = any
  uint32_t level_mask = 0;     // 0 = any
  std::vector<uint32_t> context_types;
  std::vector<uint32_t> owners;
  std::vector<uint32_t> tags;  // sorted
  std::vector<Scope> scopes;
  bool has_time = false;
  int64_t created_min = 0, created_max = 0, updated_min = 0, updated_max = 0;
};

class RecordStore {
 public:
  RecordStore(int dim, Metric metric, VectorEncoding encoding);
  RecordStore(const RecordStore&) = delete;
  RecordStore& operator=(const RecordStore&) = delete;

  int dim() const { return dim_; }
  Metric metric() const { return metric_; }
  VectorEncoding encoding() const { return encoding_; }

  // ---- writer side ----

  // Appends a slot holding `record` and `vector` (normalized for kCosine,
  // quantized for kInt8); returns its index. Not visible until published by
  // the owner. REQUIRES: vector has dim() finite floats.
  uint32_t Append(const RecordFields& record, const float* vector);
  // Appends a copy of `from`'s slot (vector bits copied as stored).
  // REQUIRES: same dim, metric and encoding.
  uint32_t AppendCopy(const RecordStore& from, uint32_t from_slot);
  // Tombstones `slot` as of `version`.
  void MarkDeleted(uint32_t slot, uint64_t version);
  // Slots appended so far (writer's view).
  uint32_t slots() const { return slots_; }

  // ---- reader side (see the thread-safety contract above) ----

  bool Visible(uint32_t slot, const StoreSnapshot& snap) const {
    if (slot >= snap.slots) return false;
    uint64_t d = std::atomic_ref<uint64_t>(*deleted_at_.at(slot)).load(std::memory_order_acquire);
    return d == 0 || d > snap.version;
  }
  // True when some slot of the chunk holding `slot` has a tombstone.
  bool ChunkHasTombstones(uint32_t slot) const {
    return chunk_tombstones_[SegmentChunkOf(slot)].load(std::memory_order_acquire) != 0;
  }
  uint64_t id(uint32_t slot) const { return *ids_.at(slot); }
  const SlotAttrs& attrs(uint32_t slot) const { return *attrs_.at(slot); }
  const float* vector_f32(uint32_t slot) const { return f32_.at(slot); }
  const int8_t* vector_i8(uint32_t slot) const { return i8_.at(slot); }
  float scale(uint32_t slot) const { return *scales_.at(slot); }
  // Tombstone version of `slot` (0 = live).
  uint64_t deleted_at(uint32_t slot) const {
    return std::atomic_ref<uint64_t>(*deleted_at_.at(slot)).load(std::memory_order_acquire);
  }
  // The vector of `slot` as floats (dequantized for kInt8) into `out`.
  void CopyVector(uint32_t slot, float* out) const;
  // The fields of `slot` with strings resolved.
  RecordFields GetRecord(uint32_t slot) const;

  CompiledFilter Compile(const RecordFilter& filter) const;
  bool Matches(const CompiledFilter& f, uint32_t slot) const;

  // Appends to `out` the visible slots matching `f`, found by walking the
  // directory tree below f's URI scopes. Returns false (leaving `out` unspecified) when
  // `f` has no URI scope or more than `budget` slots would have to be examined.
  bool EnumerateScopes(const CompiledFilter& f, const StoreSnapshot& snap, size_t budget,
                       std::vector<uint32_t>* out) const;
  // Upper bound on the slots matching `f` given by the field postings: the
  // size of the most selective field condition's postings (account, levels,
  // context types, owners, one tag). UINT64_MAX when `f` has no such condition.
  uint64_t PostingBound(const CompiledFilter& f) const;
  // Appends the visible slots matching `f`, found through the postings of its
  // most selective field condition. Returns false (leaving `out` unchanged)
  // when `f` has no such condition or it lists more than `budget` slots.
  bool CollectFromPostings(const CompiledFilter& f, const StoreSnapshot& snap, size_t budget,
                           std::vector<uint32_t>* out) const;
  // Appends the visible slots matching `f` when some index finds them by
  // examining at most `budget` slots: the URI tree (EnumerateScopes) or the
  // field postings (CollectFromPostings). Returns false, `out` unchanged, when
  // neither applies within budget.
  bool CollectCheaply(const CompiledFilter& f, const StoreSnapshot& snap, size_t budget,
                      std::vector<uint32_t>* out) const;
  // Estimated number of visible slots matching `f`, from a strided sample.
  uint64_t EstimateMatches(const CompiledFilter& f, const StoreSnapshot& snap,
                           uint32_t sample) const;
  // Appends every visible slot matching `f` (a pass over all slots).
  void CollectMatches(const CompiledFilter& f, const StoreSnapshot& snap,
                      std::vector<uint32_t>* out) const;

  uint64_t MemoryBytes() const;

  // ---- persistence (index_file.cc formats; see docs/format/vector-index.md) ----
  Status WriteTo(FileWriter* w, uint32_t slots) const;
  // Loads `slots` slots written by WriteTo into this (empty) store.
  Status ReadFrom(FileReader* r, uint32_t slots);

 private:
  bool ScopeMatches(const CompiledFilter::Scope& scope, const SlotAttrs& a) const;
  bool MatchesExceptScopes(const CompiledFilter& f, const SlotAttrs& a) const;
  using PostingGroup = std::vector<const std::vector<uint32_t>*>;
  uint32_t AppendSlot(const RecordFields& record);
  bool EnumerateScopesImpl(const CompiledFilter& f, const StoreSnapshot& snap, size_t budget,
                           std::vector<uint32_t>* out) const;
  void FillAttrs(const RecordFields& record, SlotAttrs* a);
  // Adds `slot` to the directory tree and the field postings.
  void AddPostings(uint32_t slot);
  // REQUIRES: postings_mu_ held. The smallest posting group of `f` and its size.
  uint64_t BestPostingsLocked(const CompiledFilter& f, PostingGroup* group) const;
  // REQUIRES: postings_mu_ held. Upper bound on the slots f's URI scopes
  // cover below their roots (UINT64_MAX without scopes).
  uint64_t ScopeBoundLocked(const CompiledFilter& f) const;

  const int dim_;
  const Metric metric_;
  const VectorEncoding encoding_;

  uint32_t slots_ = 0;  // writer's count
  SegmentedArray<uint64_t> ids_{1};
  SegmentedArray<SlotAttrs> attrs_{1};
  SegmentedArray<uint64_t> deleted_at_{1};
  SegmentedArray<float> f32_;
  SegmentedArray<int8_t> i8_;
  SegmentedArray<float> scales_{1};
  std::array<std::atomic<uint32_t>, SegmentedArray<uint64_t>::kMaxChunks> chunk_tombstones_{};

  StringPool accounts_, context_types_, owners_, tags_;
  Arena arena_;

  // The directory tree of the records' URIs: per directory, the slots whose
  // URI is directly below it (tombstoned included) and its sub-directories
  // (whether or not they have records of their own). Keys are stable
  // (node-based map), so sub-directory views point into them.
  struct DirNode {
    std::vector<uint32_t> slots;
    std::vector<std::string_view> subdirs;
    DirNode* parent = nullptr;
    uint64_t subtree_slots = 0;  // slots at any depth below this directory
  };
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  DirNode& DirLocked(std::string_view dir);
  mutable std::shared_mutex postings_mu_;  // guards dirs_ and field_postings_
  std::unordered_map<std::string, DirNode, Hash, std::equal_to<>> dirs_;
  // (field << 32 | value id) -> slots with that value, in slot order
  // (tombstoned included). Fields: see kPosting* in record_store.cc.
  std::unordered_map<uint64_t, std::vector<uint32_t>> field_postings_;
  uint64_t posting_entries_ = 0;
};

}  // namespace skald
