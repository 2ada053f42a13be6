#pragma once

// VectorIndexSet: one VectorIndex per account, persisted under
// `<workspace>/index/<account>/vectors.skvi`, kept current from the catalog.
//
// Open() loads each account's file. A file that is missing, corrupt (any
// checksum or structural check fails), or built for another embedder,
// dimension, metric or kind is reported and the index is rebuilt from the
// vectors stored in the catalog (Catalog::ScanRecords), then saved. A clean
// file is used as is, and CatchUp() applies the catalog changes recorded
// after the sequence number saved in it (RecordsChangedSince, tombstones
// included). The index files are caches: deleting them only costs a rebuild.
//
// Catalog records whose embedder or dimension differ from the set's options
// are not indexed (they are counted in skipped_records()).
//
// Feeding: the catalog is the source of truth. Whoever writes records to the
// catalog calls CatchUp() afterwards (cheap when little changed); nothing
// writes to these indexes directly, so each index's applied_seq() is exact.
// To force a rebuild, delete the account's file and reopen the set.
//
// Linking off the writer's path: with HnswParams::max_unlinked > 0 a
// catch-up leaves new records for a background thread of the lowest CPU
// priority to link into the graph (searches score them exactly meanwhile),
// so the linking takes the cores an import leaves idle instead of holding
// the import up; that thread saves an index once it is whole again.
//
// Bulk loads: while a LinkHold is out (HoldLinks()), that thread links only
// what exceeds half of max_unlinked, so a bulk import keeps both cores and
// keeps half of the limit as room before an upsert links inline; the rest
// is linked once the last hold is released. Searches meanwhile score the
// unlinked records exactly, as at any other time. A hold covers every
// account.
//
// Thread safety: safe for concurrent use. ForAccount() returns a pointer that
// stays valid for the set's lifetime (indexes are never dropped or replaced
// after Open); searches on it may run concurrently with CatchUp() and SaveAll().

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "index/vector_index.h"
#include "skald/result.h"

namespace skald {

class Catalog;
struct Record;

struct VectorIndexSetOptions {
  // Directory holding one sub-directory per account (`<workspace>/index`).
  std::string dir;
  // Options of every account's index (embedder and dim must be set).
  VectorIndexOptions index;
  // Records fetched per RecordsChangedSince call during catch-up.
  int catch_up_batch = 2000;
  // Save an index right after rebuilding it, so the next open loads it.
  bool save_after_rebuild = true;
  // With index.hnsw.max_unlinked > 0: a background thread links what the
  // catch-ups leave unlinked (see "Linking off the writer's path"). Off, it
  // waits until an upsert passes max_unlinked or a set with the thread
  // links it; it is saved waiting meanwhile, and searches score it exactly.
  bool background_linker = true;

  Status Validate() const;
};

// What Open() did for one account.
struct IndexOpenReport {
  enum class Action { kLoaded, kRebuilt };
  std::string account;
  Action action = Action::kLoaded;
  std::string reason;        // why a rebuild was needed (the load error), "" when loaded
  uint64_t records = 0;      // live records after open
  int64_t applied_seq = 0;   // catalog sequence the index reflected before catch-up
};

class VectorIndexSet {
 public:
  // Defers background linking while it lives (see "Bulk loads" above).
  // Movable; releasing the last hold wakes the linker.
  class LinkHold {
   public:
    LinkHold() = default;
    LinkHold(LinkHold&& other) noexcept : set_(std::exchange(other.set_, nullptr)) {}
    LinkHold& operator=(LinkHold&& other) noexcept;
    LinkHold(const LinkHold&) = delete;
    LinkHold& operator=(const LinkHold&) = delete;
    ~LinkHold() { Release(); }
    void Release();

   private:
    friend class VectorIndexSet;
    explicit LinkHold(VectorIndexSet* set) : set_(set) {}
    VectorIndexSet* set_ = nullptr;
  };

  // REQUIRES: `catalog` outlives the set.
  static Result<std::unique_ptr<VectorIndexSet>> Open(const VectorIndexSetOptions& options,
                                                      Catalog* catalog);
  ~VectorIndexSet();
  VectorIndexSet(const VectorIndexSet&) = delete;
  VectorIndexSet& operator=(const VectorIndexSet&) = delete;

  // The account's index, created empty on first use.
  Result<VectorIndex*> ForAccount(std::string_view account);
  // The account's index, or nullptr when the account has none yet.
  VectorIndex* Find(std::string_view account) const;

  // Applies every catalog change after the indexes' applied sequence numbers.
  // Returns the number of records applied. Serialized with other CatchUp calls.
  Result<uint64_t> CatchUp();

  // Saves every index changed since its last save (what waits for links is
  // saved waiting: VectorIndex::Save).
  Status SaveAll();
  // Like SaveAll, but an index with records waiting for links is left to
  // the background linker, which saves it once they are linked, or (a set
  // without a linker) to the SaveAll of the close.
  Status SaveLinked();
  // Stops the background linker (after its current step of 64 records) for
  // good: what still waits for links is saved waiting. For a close, before
  // SaveAll, so that the linker takes no core from it.
  void StopLinker();
  // Records of every index waiting for links (VectorIndex::pending_links).
  uint64_t PendingLinks() const;
  // A hold on background linking for a bulk load (see "Bulk loads").
  [[nodiscard]] LinkHold HoldLinks();

  // Compacts every index whose tombstones exceed `max_deleted_fraction` of its
  // slots (searches and catch-up continue meanwhile). Returns how many were
  // compacted. Meant for a periodic maintenance job; SaveAll() persists them.
  Result<int> CompactIfNeeded(double max_deleted_fraction = 0.25);

  // Lowest catalog sequence every index has applied: tombstones up to it may
  // be purged from the catalog.
  int64_t MinAppliedSeq() const;

  const std::vector<IndexOpenReport>& open_report() const { return report_; }
  uint64_t skipped_records() const { return skipped_.load(); }
  std::vector<std::string> Accounts() const;

  // `<dir>/<escaped account>/vectors.skvi` (bytes outside [A-Za-z0-9._-] and
  // a leading '.' are written as %XX).
  static std::string PathFor(const std::string& dir, std::string_view account);

 private:
  struct Entry {
    std::unique_ptr<VectorIndex> index;
    // GUARDED_BY(catch_up_mu_) once Open returns:
    int64_t saved_seq = -1;  // applied_seq at the last save (-1 = never saved)
    uint64_t saved_changes = 0;
    // Records that waited for links when it was last saved (or loaded): the
    // linker saves the index again once it has linked them.
    uint64_t saved_pending = 0;
    std::atomic<uint64_t> changes{0};  // writes applied since creation
    // Changed since its last save. REQUIRES: catch_up_mu_ held.
    bool Unsaved() const {
      return saved_seq != index->applied_seq() || saved_changes != changes.load();
    }
  };

  VectorIndexSet(VectorIndexSetOptions options, Catalog* catalog);
  Status OpenAccount(const std::string& account);
  Status RebuildFromCatalog(const std::string& account, Entry* entry);
  Status SaveEntry(const std::string& account, Entry* entry);
  Status SaveChanged(bool skip_pending_links);
  // The background linker (runs when options_.background_linker and
  // options_.index.hnsw.max_unlinked > 0).
  void LinkerLoop();
  void WakeLinker();
  Result<Entry*> EntryFor(std::string_view account);
  // True when the record's vector was made by this set's embedder and dimension.
  bool Indexable(const Record& r) const;

  const VectorIndexSetOptions options_;
  Catalog* const catalog_;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> entries_;  // GUARDED_BY(mu_)
  std::mutex catch_up_mu_;                                    // one CatchUp/SaveAll at a time
  std::vector<IndexOpenReport> report_;
  std::atomic<uint64_t> skipped_{0};
  std::atomic<int64_t> set_seq_{0};  // every account is caught up through this sequence

  std::mutex linker_mu_;
  std::condition_variable linker_cv_;
  bool linker_wake_ = false;  // GUARDED_BY(linker_mu_)
  bool linker_stop_ = false;  // GUARDED_BY(linker_mu_)
  std::atomic<int> link_holds_{0};
  std::atomic<bool> stopping_{false};
  std::thread linker_;
};

}  // namespace skald
