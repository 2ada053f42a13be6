#include "index/store_index.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "index/index_file.h"

namespace skald {
namespace {

constexpr size_t kMaxFieldBytes = 65535;

Status ValidateRecord(const RecordFields& r) {
  if (r.level < 0 || r.level > 7) {
    return Status::InvalidArgument("record " + std::to_string(r.key) + ": level " +
                                   std::to_string(r.level) + " is outside 0..7");
  }
  if (r.uri.size() > kMaxFieldBytes || r.account.size() > kMaxFieldBytes ||
      r.owner.size() > kMaxFieldBytes || r.tags.size() > kMaxFieldBytes) {
    return Status::InvalidArgument("record " + std::to_string(r.key) +
                                   ": a field exceeds 65535 bytes (or tags)");
  }
  for (const auto& t : r.tags) {
    if (t.size() > kMaxFieldBytes) {
      return Status::InvalidArgument("record " + std::to_string(r.key) + ": tag too long");
    }
  }
  return Status::Ok();
}

}  // namespace

StoreIndex::StoreIndex(VectorIndexOptions options) : options_(std::move(options)) {}

StoreIndex::~StoreIndex() = default;

StoreIndex::Snapshot StoreIndex::TakeSnapshot() const {
  std::lock_guard lock(snap_mu_);
  return Snapshot{gen_, StoreSnapshot{version_, committed_slots_}};
}

void StoreIndex::Publish(std::shared_ptr<Generation> gen, uint64_t version) {
  std::lock_guard lock(snap_mu_);
  committed_slots_ = gen->store.slots();
  gen_ = std::move(gen);
  version_ = version;
}

void StoreIndex::ApplyUpsert(Generation* gen, std::span<const RecordFields> records,
                             std::span<const float> vectors, uint64_t version, uint64_t* added,
                             uint64_t* replaced) const {
  const size_t dim = static_cast<size_t>(options_.dim);
  for (size_t i = 0; i < records.size(); ++i) {
    uint32_t slot = gen->store.Append(records[i], vectors.data() + i * dim);
    auto [it, inserted] = gen->slot_of.try_emplace(records[i].key, slot);
    if (inserted) {
      ++*added;
    } else {
      gen->store.MarkDeleted(it->second, version);
      it->second = slot;
      ++*replaced;
    }
  }
  const uint32_t slots = gen->store.slots();
  if (slots - LinkedSlots(*gen) > DeferredLinks()) {
    // Only what passes the limit (the oldest first): the bound holds, and
    // the writer waits for its own excess, not for everything waiting.
    std::lock_guard link_lock(link_mu_);
    LinkThrough(gen, slots - DeferredLinks());
  }
}

void StoreIndex::LinkThrough(Generation* gen, uint32_t last) const {
  const uint32_t first = gen->linked;
  if (last <= first) return;
  Link(gen, first, last);
  __atomic_store_n(&gen->linked, last, __ATOMIC_RELEASE);
}

uint64_t StoreIndex::pending_links() const {
  Snapshot s = TakeSnapshot();
  uint32_t linked = LinkedSlots(*s.gen);
  return s.snap.slots > linked ? s.snap.slots - linked : 0;
}

uint64_t StoreIndex::LinkPending(uint64_t max_records) {
  std::lock_guard link_lock(link_mu_);
  // Committed slots only: their vectors are written and never move.
  Snapshot s = TakeSnapshot();
  auto* gen = const_cast<Generation*>(s.gen.get());
  const uint32_t first = gen->linked;
  if (s.snap.slots <= first) return 0;
  const uint32_t last = static_cast<uint32_t>(
      std::min<uint64_t>(s.snap.slots, uint64_t{first} + max_records));
  LinkThrough(gen, last);
  return last - first;
}

uint64_t StoreIndex::ApplyDelete(Generation* gen, std::span<const uint64_t> ids,
                                 uint64_t version) const {
  uint64_t removed = 0;
  for (uint64_t id : ids) {
    auto it = gen->slot_of.find(id);
    if (it == gen->slot_of.end()) continue;
    gen->store.MarkDeleted(it->second, version);
    gen->slot_of.erase(it);
    ++removed;
  }
  return removed;
}

Status StoreIndex::Upsert(std::span<const RecordFields> records, std::span<const float> vectors) {
  const size_t dim = static_cast<size_t>(options_.dim);
  if (vectors.size() != records.size() * dim) {
    return Status::InvalidArgument("upsert: " + std::to_string(records.size()) +
                                   " records need " + std::to_string(records.size() * dim) +
                                   " floats, got " + std::to_string(vectors.size()));
  }
  for (float x : vectors) {
    if (!std::isfinite(x)) return Status::InvalidArgument("upsert: vector has a non-finite value");
  }
  std::unordered_set<uint64_t> ids;
  for (const auto& r : records) {
    SKALD_RETURN_IF_ERROR(ValidateRecord(r));
    if (!ids.insert(r.key).second) {
      return Status::InvalidArgument("upsert: id " + std::to_string(r.key) +
                                     " appears twice in one batch");
    }
  }
  if (records.empty()) return Status::Ok();

  std::lock_guard lock(write_mu_);
  if (gen_->store.slots() + records.size() >= SegmentedArray<float>::kMaxRows) {
    return Status::ResourceExhausted("vector index is full; compact it");
  }
  uint64_t version = version_ + 1;  // version_ only changes under write_mu_
  uint64_t added = 0, replaced = 0;
  ApplyUpsert(gen_.get(), records, vectors, version, &added, &replaced);
  if (compacting_) {
    pending_.push_back(PendingWrite{std::vector<RecordFields>(records.begin(), records.end()),
                                    std::vector<float>(vectors.begin(), vectors.end()),
                                    {}});
  }
  Publish(gen_, version);
  live_.fetch_add(added, std::memory_order_relaxed);
  dead_.fetch_add(replaced, std::memory_order_relaxed);
  return Status::Ok();
}

Result<uint64_t> StoreIndex::Delete(std::span<const uint64_t> ids) {
  std::lock_guard lock(write_mu_);
  uint64_t version = version_ + 1;
  uint64_t removed = ApplyDelete(gen_.get(), ids, version);
  if (removed == 0) return uint64_t{0};
  if (compacting_) pending_.push_back(PendingWrite{{}, {}, {ids.begin(), ids.end()}});
  Publish(gen_, version);
  live_.fetch_sub(removed, std::memory_order_relaxed);
  dead_.fetch_add(removed, std::memory_order_relaxed);
  return removed;
}

Status StoreIndex::Search(std::span<const float> query, const RecordFilter& filter,
                          const SearchOptions& options, std::vector<SearchHit>* hits,
                          SearchStats* stats) const {
  hits->clear();
  if (query.size() != static_cast<size_t>(options_.dim)) {
    return Status::InvalidArgument("search: query has " + std::to_string(query.size()) +
                                   " dimensions, the index " + std::to_string(options_.dim));
  }
  for (float x : query) {
    if (!std::isfinite(x)) return Status::InvalidArgument("search: query has a non-finite value");
  }
  SKALD_RETURN_IF_ERROR(options.Validate());
  SKALD_RETURN_IF_ERROR(filter.Validate());
  SearchStats local;
  SearchStats* st = stats ? stats : &local;
  *st = SearchStats{};

  Snapshot s = TakeSnapshot();
  CompiledFilter f = s.gen->store.Compile(filter);
  if (f.match_nothing || s.snap.slots == 0) return Status::Ok();
  auto scratch = scratch_.Acquire();
  float query_scale = PrepareQuery(s.gen->store, query.data(), &*scratch);
  scratch->top.Reset(static_cast<size_t>(options.k));
  SearchIn(*s.gen, s.snap, f, options, query_scale, &*scratch, st);
  auto& best = scratch->top.SortBest();
  hits->reserve(best.size());
  for (const auto& b : best) hits->push_back(SearchHit{b.id, b.score});
  return Status::Ok();
}

Result<uint64_t> StoreIndex::Count(const RecordFilter& filter) const {
  SKALD_RETURN_IF_ERROR(filter.Validate());
  Snapshot s = TakeSnapshot();
  CompiledFilter f = s.gen->store.Compile(filter);
  if (f.match_nothing) return uint64_t{0};
  if (f.trivial) {
    uint64_t n = 0;
    for (uint32_t slot = 0; slot < s.snap.slots; ++slot) n += s.gen->store.Visible(slot, s.snap);
    return n;
  }
  auto scratch = scratch_.Acquire();
  scratch->candidates.clear();
  if (!s.gen->store.CollectCheaply(f, s.snap, s.snap.slots / 2 + 64, &scratch->candidates)) {
    s.gen->store.CollectMatches(f, s.snap, &scratch->candidates);
  }
  return uint64_t{scratch->candidates.size()};
}

Status StoreIndex::Compact() {
  std::lock_guard compact_lock(compact_mu_);
  std::shared_ptr<const Generation> old;
  std::vector<uint32_t> live;
  {
    std::lock_guard lock(write_mu_);
    if (dead_.load() == 0) return Status::Ok();
    compacting_ = true;
    pending_.clear();
    old = gen_;
    live.reserve(gen_->slot_of.size());
    for (const auto& [id, slot] : gen_->slot_of) live.push_back(slot);
  }
  // Old slots are immutable, so they can be copied without the lock.
  std::sort(live.begin(), live.end());
  std::shared_ptr<Generation> fresh = NewGeneration();
  for (uint32_t slot : live) {
    uint32_t s = fresh->store.AppendCopy(old->store, slot);
    fresh->slot_of.emplace(fresh->store.id(s), s);
  }
  LinkThrough(fresh.get(), fresh->store.slots());

  std::lock_guard lock(write_mu_);
  uint64_t version = version_ + 1;
  uint64_t added = 0, replaced = 0;
  for (const auto& w : pending_) {
    if (!w.records.empty()) {
      ApplyUpsert(fresh.get(), w.records, w.vectors, version, &added, &replaced);
    } else {
      ApplyDelete(fresh.get(), w.deletes, version);
    }
  }
  pending_.clear();
  compacting_ = false;
  uint64_t now_live = fresh->slot_of.size();
  uint64_t now_dead = fresh->store.slots() - now_live;
  Publish(std::move(fresh), version);
  live_.store(now_live, std::memory_order_relaxed);
  dead_.store(now_dead, std::memory_order_relaxed);
  return Status::Ok();
}

uint64_t StoreIndex::MemoryBytes() const {
  Snapshot s = TakeSnapshot();
  return s.gen->store.MemoryBytes() + ExtraMemory(*s.gen) + s.gen->slot_of.size() * 32;
}

Status StoreIndex::Save(const std::string& path) const {
  // Holding write_mu_ freezes the generation (no appends, no tombstones),
  // and link_mu_ its links. What waits for links is saved as waiting (a
  // file of format version 2), not linked first: the linking is left to a
  // linker, in this process or the next, and a close does not wait for it.
  std::lock_guard lock(write_mu_);
  std::lock_guard link_lock(link_mu_);
  const Generation& gen = *gen_;
  const uint32_t version =
      gen.linked < gen.store.slots() ? kIndexFormatPartlyLinked : kIndexFormatWhole;
  SKALD_ASSIGN_OR_RETURN(auto w, FileWriter::Create(path, options_.env, version));
  IndexFileHeader h;
  h.kind = std::string(Kind());
  h.embedder = options_.embedder;
  h.dim = static_cast<uint32_t>(options_.dim);
  h.metric = static_cast<uint32_t>(options_.metric);
  h.encoding = static_cast<uint32_t>(options_.encoding);
  h.applied_seq = applied_seq();
  h.slots = gen.store.slots();
  h.live = gen.slot_of.size();
  WriteHeader(w.get(), h);
  SKALD_RETURN_IF_ERROR(w->EndSection());
  SKALD_RETURN_IF_ERROR(gen.store.WriteTo(w.get(), h.slots));
  SKALD_RETURN_IF_ERROR(SaveExtra(gen, w.get()));
  return w->Commit();
}

Status StoreIndex::LoadFrom(const std::string& path) {
  SKALD_ASSIGN_OR_RETURN(auto r, FileReader::Open(path, options_.env));
  IndexFileHeader h;
  SKALD_RETURN_IF_ERROR(ReadHeader(r.get(), &h));
  SKALD_RETURN_IF_ERROR(r->EndSection());
  auto mismatch = [&](const std::string& what, const std::string& file_value,
                      const std::string& wanted) {
    return Status::FailedPrecondition("vector index file was built with " + what +
                                      " " + file_value + ", the index is configured for " + wanted);
  };
  if (h.kind != Kind()) return mismatch("kind", h.kind, std::string(Kind()));
  if (h.embedder != options_.embedder) return mismatch("embedder", h.embedder, options_.embedder);
  if (h.dim != static_cast<uint32_t>(options_.dim)) {
    return mismatch("dimension", std::to_string(h.dim), std::to_string(options_.dim));
  }
  if (h.metric != static_cast<uint32_t>(options_.metric)) {
    return mismatch("metric", std::to_string(h.metric), std::string(MetricName(options_.metric)));
  }
  if (h.encoding != static_cast<uint32_t>(options_.encoding)) {
    return mismatch("encoding", std::to_string(h.encoding),
                    std::string(EncodingName(options_.encoding)));
  }
  if (h.slots >= SegmentedArray<float>::kMaxRows || h.live > h.slots) {
    return Status::Corruption("vector index file: slot counts out of range");
  }
  std::shared_ptr<Generation> gen = NewGeneration();
  SKALD_RETURN_IF_ERROR(gen->store.ReadFrom(r.get(), h.slots));
  gen->linked = h.slots;  // unless LoadExtra finds fewer linked (format version 2)
  SKALD_RETURN_IF_ERROR(LoadExtra(gen.get(), h.slots, r.get()));
  SKALD_RETURN_IF_ERROR(r->Finish());
  for (uint32_t s = 0; s < h.slots; ++s) {
    if (gen->store.deleted_at(s) != 0) continue;
    if (!gen->slot_of.emplace(gen->store.id(s), s).second) {
      return Status::Corruption("vector index file: id " +
                                std::to_string(gen->store.id(s)) + " is live twice");
    }
  }
  if (gen->slot_of.size() != h.live) {
    return Status::Corruption("vector index file: live count mismatch");
  }
  std::lock_guard lock(write_mu_);
  live_.store(h.live);
  dead_.store(h.slots - h.live);
  applied_seq_.store(h.applied_seq);
  Publish(std::move(gen), 1);  // tombstones loaded from the file carry version 1
  return Status::Ok();
}

}  // namespace skald
