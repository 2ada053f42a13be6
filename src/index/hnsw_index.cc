#include "index/hnsw_index.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

#include "index/index_file.h"

namespace skald {
namespace {

constexpr uint32_t kNoNode = 0xffffffffu;
constexpr int kMaxLevel = 16;
constexpr uint32_t kGraphTag = SectionTag("HNSW");
constexpr uint32_t kLinks0Tag = SectionTag("LNK0");
constexpr uint32_t kUpperTag = SectionTag("LNKU");
constexpr float kInf = 3.4e38f;

// Link words are read by searches while writers update them: every access to
// a word another thread may write goes through these (plain moves on x86).
inline uint32_t LoadAcquire(const uint32_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
inline void StoreRelease(uint32_t* p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Level of a slot: floor(-ln(U) / ln(M)), U uniform in (0, 1), derived from
// the seed and the slot so that parallel builds need no shared generator.
int RandomLevel(uint64_t seed, uint32_t slot, double mult) {
  uint64_t h = SplitMix64(seed ^ (uint64_t{slot} * 0xD1B54A32D192ED03ull));
  double u = (double(h >> 11) + 0.5) * (1.0 / 9007199254740992.0);
  return std::min(kMaxLevel, static_cast<int>(-std::log(u) * mult));
}

class SpinLock {
 public:
  explicit SpinLock(uint8_t* flag) : flag_(flag) {
    while (__atomic_exchange_n(flag_, uint8_t{1}, __ATOMIC_ACQUIRE) != 0) {
      while (__atomic_load_n(flag_, __ATOMIC_RELAXED) != 0) std::this_thread::yield();
    }
  }
  ~SpinLock() { __atomic_store_n(flag_, uint8_t{0}, __ATOMIC_RELEASE); }
  SpinLock(const SpinLock&) = delete;
  SpinLock& operator=(const SpinLock&) = delete;

 private:
  uint8_t* flag_;
};

inline void PrefetchVector(const float* v, size_t bytes) {
  const char* p = reinterpret_cast<const char*>(v);
  for (size_t off = 0; off < bytes; off += 64) __builtin_prefetch(p + off, 0, 3);
}

using HeapItem = std::pair<float, uint32_t>;

}  // namespace

// Graph of one generation. Layer-0 rows are [count, id * m0]; a node of
// level L > 0 owns L upper rows of [count, id * m] in the arena.
struct HnswIndex::GraphGeneration : StoreIndex::Generation {
  explicit GraphGeneration(const VectorIndexOptions& o)
      : Generation(o.dim, o.metric, o.encoding),
        m(o.hnsw.m),
        m0(2 * o.hnsw.m),
        links0(static_cast<size_t>(2 * o.hnsw.m + 1)) {}

  uint32_t* Links(uint32_t node, int layer) const {
    return layer == 0 ? links0.at(node) : *upper.at(node) + size_t(layer - 1) * (m + 1);
  }
  int Level(uint32_t node) const { return *levels.at(node); }
  const float* Vec(uint32_t node) const { return store.vector_f32(node); }

  const int m;
  const int m0;
  SegmentedArray<uint32_t> links0;
  SegmentedArray<uint32_t*> upper{1};
  SegmentedArray<uint8_t> levels{1};
  SegmentedArray<uint8_t> locks{1};
  Arena upper_arena;  // written by the single writer before nodes are published
  uint64_t upper_words = 0;
  uint32_t entry = kNoNode;  // atomic access only
  uint32_t nodes = 0;        // nodes with storage; atomic access only
  std::mutex entry_mu;       // held by an insert that raises the top level
};

HnswIndex::HnswIndex(VectorIndexOptions options) : StoreIndex(std::move(options)) {
  InitEmpty();
}

std::unique_ptr<StoreIndex::Generation> HnswIndex::NewGeneration() const {
  return std::make_unique<GraphGeneration>(options_);
}

uint64_t HnswIndex::ExtraMemory(const Generation& gen) const {
  const auto& g = static_cast<const GraphGeneration&>(gen);
  uint64_t n = __atomic_load_n(&g.nodes, __ATOMIC_ACQUIRE);
  return n * (4ull * (g.m0 + 1) + sizeof(uint32_t*) + 2) + 4 * g.upper_words;
}

void HnswIndex::Link(Generation* gen, uint32_t first, uint32_t last) const {
  auto* g = static_cast<GraphGeneration*>(gen);
  if (last <= first) return;
  g->links0.Reserve(last);
  g->upper.Reserve(last);
  g->levels.Reserve(last);
  g->locks.Reserve(last);
  const double mult = 1.0 / std::log(double(g->m));
  for (uint32_t s = first; s < last; ++s) {
    int level = RandomLevel(options_.hnsw.seed, s, mult);
    *g->levels.at(s) = static_cast<uint8_t>(level);
    if (level > 0) {
      size_t words = size_t(level) * (g->m + 1);
      auto* rows = static_cast<uint32_t*>(g->upper_arena.Allocate(4 * words, 64));
      std::memset(rows, 0, 4 * words);
      *g->upper.at(s) = rows;
      g->upper_words += words;
    }
  }
  __atomic_store_n(&g->nodes, last, __ATOMIC_RELEASE);

  uint32_t count = last - first;
  int threads = std::clamp<int>(static_cast<int>(count / 1024), 1, options_.hnsw.build_threads);
  if (threads <= 1) {
    auto scratch = scratch_.Acquire();
    for (uint32_t s = first; s < last; ++s) InsertNode(g, s, &*scratch);
    return;
  }
  std::atomic<uint32_t> next{first};
  auto worker = [&] {
    auto scratch = scratch_.Acquire();
    for (uint32_t s = next.fetch_add(1); s < last; s = next.fetch_add(1)) {
      InsertNode(g, s, &*scratch);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

void HnswIndex::InsertNode(GraphGeneration* g, uint32_t slot, QueryScratch* scratch) const {
  const float* q = g->Vec(slot);
  const int level = g->Level(slot);
  std::unique_lock entry_lock(g->entry_mu);
  uint32_t entry = __atomic_load_n(&g->entry, __ATOMIC_ACQUIRE);
  if (entry == kNoNode) {
    __atomic_store_n(&g->entry, slot, __ATOMIC_RELEASE);
    return;
  }
  const int top = g->Level(entry);
  if (level <= top) entry_lock.unlock();

  uint64_t dist_count = 0;
  uint32_t cur = top > level ? Descend(*g, q, entry, top, level, &dist_count) : entry;
  const size_t ef = static_cast<size_t>(options_.hnsw.ef_construction);
  for (int layer = std::min(level, top); layer >= 0; --layer) {
    SearchLayer<false>(*g, q, cur, layer, ef, nullptr, nullptr, scratch);
    auto& cands = scratch->results;
    std::sort(cands.begin(), cands.end());
    cands.erase(std::remove_if(cands.begin(), cands.end(),
                               [slot](const HeapItem& c) { return c.second == slot; }),
                cands.end());
    if (cands.empty()) continue;
    cur = cands.front().second;
    std::vector<uint32_t>& selected = scratch->selected;
    SelectNeighbors(*g, &cands, static_cast<size_t>(g->m), &selected);
    uint32_t* own = g->Links(slot, layer);
    {
      SpinLock lock(g->locks.at(slot));
      for (size_t i = 0; i < selected.size(); ++i) StoreRelease(own + 1 + i, selected[i]);
      StoreRelease(own, static_cast<uint32_t>(selected.size()));
    }
    for (uint32_t n : selected) AddLink(g, n, slot, layer, scratch);
  }
  if (level > top) __atomic_store_n(&g->entry, slot, __ATOMIC_RELEASE);
}

void HnswIndex::AddLink(GraphGeneration* g, uint32_t node, uint32_t new_node, int layer,
                        QueryScratch* scratch) const {
  const size_t cap = static_cast<size_t>(layer == 0 ? g->m0 : g->m);
  const size_t dim = static_cast<size_t>(options_.dim);
  const auto dot = GetVectorKernels().dot_f32;
  uint32_t* row = g->Links(node, layer);
  SpinLock lock(g->locks.at(node));
  uint32_t count = std::min<uint32_t>(LoadAcquire(row), static_cast<uint32_t>(cap));
  for (uint32_t i = 0; i < count; ++i) {
    if (LoadAcquire(row + 1 + i) == new_node) return;
  }
  if (count < cap) {
    StoreRelease(row + 1 + count, new_node);
    StoreRelease(row, count + 1);
    return;
  }
  // Full: keep the best `cap` of the old links plus the new one, by the heuristic.
  auto& cands = scratch->prune;
  cands.clear();
  const float* v = g->Vec(node);
  cands.emplace_back(-dot(v, g->Vec(new_node), dim), new_node);
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t n = LoadAcquire(row + 1 + i);
    cands.emplace_back(-dot(v, g->Vec(n), dim), n);
  }
  std::sort(cands.begin(), cands.end());
  std::vector<uint32_t>& kept = scratch->pruned;
  SelectNeighbors(*g, &cands, cap, &kept);
  for (size_t i = 0; i < kept.size(); ++i) StoreRelease(row + 1 + i, kept[i]);
  StoreRelease(row, static_cast<uint32_t>(kept.size()));
}

void HnswIndex::SelectNeighbors(const GraphGeneration& g, std::vector<HeapItem>* cands,
                                size_t max_links, std::vector<uint32_t>* selected) const {
  selected->clear();
  if (cands->size() <= max_links) {
    for (const auto& c : *cands) selected->push_back(c.second);
    return;
  }
  const size_t dim = static_cast<size_t>(options_.dim);
  const auto dot = GetVectorKernels().dot_f32;
  for (const auto& [dist, e] : *cands) {
    if (selected->size() >= max_links) break;
    const float* ve = g.Vec(e);
    bool keep = true;
    for (uint32_t r : *selected) {
      // e is closer to an already kept neighbour than to the base: r covers it.
      if (-dot(ve, g.Vec(r), dim) < dist) {
        keep = false;
        break;
      }
    }
    if (keep) selected->push_back(e);
  }
}

uint32_t HnswIndex::Descend(const GraphGeneration& g, const float* q, uint32_t entry,
                            int from_layer, int to_layer, uint64_t* dist_count) const {
  const size_t dim = static_cast<size_t>(options_.dim);
  const auto dot = GetVectorKernels().dot_f32;
  uint32_t cur = entry;
  float cur_dist = -dot(q, g.Vec(cur), dim);
  ++*dist_count;
  for (int layer = from_layer; layer > to_layer; --layer) {
    const uint32_t cap = static_cast<uint32_t>(g.m);
    for (bool changed = true; changed;) {
      changed = false;
      const uint32_t* row = g.Links(cur, layer);
      uint32_t count = std::min(LoadAcquire(row), cap);
      for (uint32_t j = 0; j < count; ++j) {
        uint32_t n = LoadAcquire(row + 1 + j);
        float d = -dot(q, g.Vec(n), dim);
        ++*dist_count;
        if (d < cur_dist) {
          cur_dist = d;
          cur = n;
          changed = true;
        }
      }
    }
  }
  return cur;
}

template <bool kFiltered>
uint64_t HnswIndex::SearchLayer(const GraphGeneration& g, const float* q, uint32_t entry,
                                int layer, size_t ef, const StoreSnapshot* snap,
                                const CompiledFilter* f, QueryScratch* scratch) const {
  const size_t dim = static_cast<size_t>(options_.dim);
  const size_t vec_bytes = dim * sizeof(float);
  const auto dot = GetVectorKernels().dot_f32;
  const RecordStore& store = g.store;
  const uint32_t cap = static_cast<uint32_t>(layer == 0 ? g.m0 : g.m);

  // Visited marks: epoch-stamped, so no clearing between queries.
  const uint32_t nodes = __atomic_load_n(&g.nodes, __ATOMIC_ACQUIRE);
  auto& visited = scratch->visited;
  if (visited.size() < nodes) {
    visited.assign(nodes + nodes / 4 + 1024, 0);
    scratch->visited_epoch = 0;
  }
  if (++scratch->visited_epoch == 0) {
    std::fill(visited.begin(), visited.end(), 0);
    scratch->visited_epoch = 1;
  }
  const uint8_t epoch = scratch->visited_epoch;
  uint8_t* marks = visited.data();

  auto passes = [&](uint32_t n) {
    if constexpr (!kFiltered) {
      return true;
    } else {
      if (n >= snap->slots) return false;
      if (store.ChunkHasTombstones(n) && !store.Visible(n, *snap)) return false;
      return f->trivial || store.Matches(*f, n);
    }
  };

  auto& frontier = scratch->frontier;  // max-heap on -distance: top = closest
  auto& results = scratch->results;    // max-heap on distance: top = farthest kept
  frontier.clear();
  results.clear();
  uint64_t dist_count = 1;
  float d0 = -dot(q, g.Vec(entry), dim);
  marks[entry] = epoch;
  frontier.emplace_back(-d0, entry);
  if (passes(entry)) results.emplace_back(d0, entry);
  float bound = results.size() >= ef ? results.front().first : kInf;

  uint32_t fresh[512];  // unvisited neighbours of the node being expanded
  while (!frontier.empty()) {
    auto [neg_dist, c] = frontier.front();
    if (-neg_dist > bound) break;
    std::pop_heap(frontier.begin(), frontier.end());
    frontier.pop_back();
    // The next node to expand is likely the new top: start loading its links.
    if (!frontier.empty()) {
      const char* next_row = reinterpret_cast<const char*>(g.Links(frontier.front().second, layer));
      __builtin_prefetch(next_row, 0, 3);
      __builtin_prefetch(next_row + 64, 0, 3);
    }

    const uint32_t* row = g.Links(c, layer);
    uint32_t count = std::min(LoadAcquire(row), cap);
    uint32_t k = 0;
    for (uint32_t j = 0; j < count; ++j) {
      uint32_t n = LoadAcquire(row + 1 + j);
      if (n >= nodes || marks[n] == epoch) continue;
      marks[n] = epoch;
      fresh[k++] = n;
      __builtin_prefetch(g.Vec(n), 0, 3);
    }
    for (uint32_t j = 0; j < k; ++j) {
      if (j + 1 < k) PrefetchVector(g.Vec(fresh[j + 1]), vec_bytes);
      uint32_t n = fresh[j];
      float d = -dot(q, g.Vec(n), dim);
      ++dist_count;
      if (results.size() < ef || d < bound) {
        frontier.emplace_back(-d, n);
        std::push_heap(frontier.begin(), frontier.end());
        if (passes(n)) {
          results.emplace_back(d, n);
          std::push_heap(results.begin(), results.end());
          if (results.size() > ef) {
            std::pop_heap(results.begin(), results.end());
            results.pop_back();
          }
          if (results.size() >= ef) bound = results.front().first;
        }
      }
    }
  }
  return dist_count;
}

void HnswIndex::SearchIn(const Generation& gen, const StoreSnapshot& snap,
                         const CompiledFilter& f, const SearchOptions& options,
                         float /*query_scale*/, QueryScratch* scratch, SearchStats* stats) const {
  const auto& g = static_cast<const GraphGeneration&>(gen);
  const float* q = scratch->query.data();
  auto& cands = scratch->candidates;
  cands.clear();
  const uint64_t limit = std::max<uint64_t>(
      options_.exact_max_candidates, uint64_t(options_.exact_max_fraction * double(size())));

  if (options.exact) {
    if (!f.trivial && g.store.CollectCheaply(f, snap, snap.slots / 4 + 64, &cands)) {
      stats->path = SearchPath::kExactCandidates;
      stats->distance_computations = ExactScanSlots(g.store, cands, 1.0f, scratch);
    } else {
      stats->path = SearchPath::kExactScan;
      stats->distance_computations = ExactScanAll(g.store, snap, f, 1.0f, scratch);
    }
    stats->estimated_matches = stats->distance_computations;
    return;
  }
  if (!f.trivial) {
    // Known exactly when the URI tree or the field postings list at most
    // `limit` slots (listing more costs about as much as the graph walk).
    if (g.store.CollectCheaply(f, snap, limit + 64, &cands)) {
      stats->estimated_matches = cands.size();
      if (cands.size() <= limit) {
        stats->path = SearchPath::kExactCandidates;
        stats->distance_computations = ExactScanSlots(g.store, cands, 1.0f, scratch);
        return;
      }
    } else {
      stats->estimated_matches = g.store.EstimateMatches(f, snap, options_.estimate_sample);
      const uint64_t scan_limit = std::max<uint64_t>(
          options_.exact_max_candidates,
          uint64_t(options_.exact_max_fraction / 4 * double(size())));
      if (stats->estimated_matches <= scan_limit) {
        stats->path = SearchPath::kExactScan;
        stats->distance_computations = ExactScanAll(g.store, snap, f, 1.0f, scratch);
        return;
      }
    }
  }

  // The graph answers for the slots linked when the search starts; the
  // slots after them (left for LinkPending) are scored exactly, so a slot
  // linked meanwhile is counted once.
  const uint32_t linked = std::min(snap.slots, LinkedSlots(g));
  stats->path = SearchPath::kGraph;
  uint64_t dist_count = 0;
  uint32_t entry = __atomic_load_n(&g.entry, __ATOMIC_ACQUIRE);
  if (entry != kNoNode && linked > 0) {
    const size_t k = static_cast<size_t>(options.k);
    const size_t ef = std::max<size_t>(
        k, static_cast<size_t>(options.ef > 0 ? options.ef : options_.hnsw.ef_search));
    StoreSnapshot graph_snap = snap;
    graph_snap.slots = linked;
    uint32_t start = Descend(g, q, entry, g.Level(entry), 0, &dist_count);
    dist_count += SearchLayer<true>(g, q, start, 0, ef, &graph_snap, &f, scratch);
    for (const auto& [d, n] : scratch->results) scratch->top.Push(-d, n, g.store.id(n));
  }
  if (linked < snap.slots) {
    cands.clear();
    for (uint32_t n = linked; n < snap.slots; ++n) {
      if (g.store.ChunkHasTombstones(n) && !g.store.Visible(n, snap)) continue;
      if (!f.trivial && !g.store.Matches(f, n)) continue;
      cands.push_back(n);
    }
    dist_count += ExactScanSlots(g.store, cands, 1.0f, scratch);
  }
  stats->distance_computations = dist_count;
}

// ---- persistence ----

Status HnswIndex::SaveExtra(const Generation& gen, FileWriter* w) const {
  const auto& g = static_cast<const GraphGeneration&>(gen);
  // The graph's nodes: slots [0, linked); the rest wait for links (format
  // version 2 says how many nodes there are, as LoadExtra reads it).
  const uint32_t nodes = gen.linked;
  w->BeginSection(kGraphTag);
  w->PutU32(static_cast<uint32_t>(g.m));
  w->PutU32(static_cast<uint32_t>(g.m0));
  w->PutU32(nodes == 0 ? kNoNode : __atomic_load_n(&g.entry, __ATOMIC_ACQUIRE));
  if (w->version() >= kIndexFormatPartlyLinked) w->PutU32(nodes);
  for (uint32_t s = 0; s < nodes;) {
    uint32_t run = std::min(SegmentedArray<uint8_t>::RunLength(s), nodes - s);
    w->PutBytes(g.levels.at(s), run);
    s += run;
  }
  SKALD_RETURN_IF_ERROR(w->EndSection());
  w->BeginSection(kLinks0Tag);
  for (uint32_t s = 0; s < nodes;) {
    uint32_t run = std::min(SegmentedArray<uint32_t>::RunLength(s), nodes - s);
    w->PutBytes(g.links0.at(s), 4 * size_t(g.m0 + 1) * run);
    s += run;
  }
  SKALD_RETURN_IF_ERROR(w->EndSection());
  w->BeginSection(kUpperTag);
  for (uint32_t s = 0; s < nodes; ++s) {
    int level = g.Level(s);
    if (level > 0) w->PutBytes(*g.upper.at(s), 4 * size_t(level) * (g.m + 1));
  }
  return w->EndSection();
}

Status HnswIndex::LoadExtra(Generation* gen, uint32_t slots, FileReader* r) const {
  auto* g = static_cast<GraphGeneration*>(gen);
  auto bad = [&](const std::string& what) {
    return Status::Corruption("vector index file: " + what);
  };
  SKALD_RETURN_IF_ERROR(r->BeginSection(kGraphTag));
  uint32_t m = 0, m0 = 0, entry = 0;
  SKALD_RETURN_IF_ERROR(r->GetU32(&m));
  SKALD_RETURN_IF_ERROR(r->GetU32(&m0));
  SKALD_RETURN_IF_ERROR(r->GetU32(&entry));
  // Slots [0, nodes) are in the graph; version 2 may leave the rest waiting
  // for links.
  uint32_t nodes = slots;
  if (r->version() >= kIndexFormatPartlyLinked) {
    SKALD_RETURN_IF_ERROR(r->GetU32(&nodes));
    if (nodes > slots) return bad("more graph nodes than slots");
  }
  if (r->remaining() != nodes) return bad("level table size mismatch");
  g->levels.Reserve(nodes);
  for (uint32_t s = 0; s < nodes;) {
    uint32_t run = std::min(SegmentedArray<uint8_t>::RunLength(s), nodes - s);
    SKALD_RETURN_IF_ERROR(r->GetBytes(g->levels.at(s), run));
    s += run;
  }
  SKALD_RETURN_IF_ERROR(r->EndSection());  // checksum verified: the fields can be trusted
  if (m != static_cast<uint32_t>(g->m) || m0 != static_cast<uint32_t>(g->m0)) {
    return Status::FailedPrecondition(std::string("vector index file has graph degree M=") +
                                      std::to_string(m) + ", the index is configured for M=" +
                                      std::to_string(g->m));
  }
  g->links0.Reserve(nodes);
  g->upper.Reserve(nodes);
  g->locks.Reserve(nodes);
  int top = -1;
  for (uint32_t s = 0; s < nodes; ++s) {
    if (g->Level(s) > kMaxLevel) return bad("node level out of range");
    top = std::max(top, g->Level(s));
  }
  if (nodes == 0 ? entry != kNoNode : (entry >= nodes || g->Level(entry) != top)) {
    return bad("bad entry point");
  }

  auto check_row = [&](const uint32_t* row, uint32_t cap) {
    if (row[0] > cap) return false;
    for (uint32_t j = 1; j <= row[0]; ++j) {
      if (row[j] >= nodes) return false;
    }
    return true;
  };
  SKALD_RETURN_IF_ERROR(r->BeginSection(kLinks0Tag));
  if (r->remaining() != 4ull * (m0 + 1) * nodes) return bad("layer-0 link table size mismatch");
  for (uint32_t s = 0; s < nodes;) {
    uint32_t run = std::min(SegmentedArray<uint32_t>::RunLength(s), nodes - s);
    SKALD_RETURN_IF_ERROR(r->GetBytes(g->links0.at(s), 4 * size_t(m0 + 1) * run));
    s += run;
  }
  SKALD_RETURN_IF_ERROR(r->EndSection());
  for (uint32_t s = 0; s < nodes; ++s) {
    if (!check_row(g->links0.at(s), m0)) return bad("layer-0 links of node " + std::to_string(s));
  }

  SKALD_RETURN_IF_ERROR(r->BeginSection(kUpperTag));
  for (uint32_t s = 0; s < nodes; ++s) {
    int level = g->Level(s);
    if (level == 0) continue;
    size_t words = size_t(level) * (m + 1);
    if (r->remaining() < 4 * words) return bad("upper link table too short");
    auto* rows = static_cast<uint32_t*>(g->upper_arena.Allocate(4 * words, 64));
    SKALD_RETURN_IF_ERROR(r->GetBytes(rows, 4 * words));
    for (int l = 0; l < level; ++l) {
      const uint32_t* row = rows + size_t(l) * (m + 1);
      bool ok = check_row(row, m);
      // A link on layer l + 1 must point at a node that exists on that layer.
      for (uint32_t j = 1; ok && j <= row[0]; ++j) ok = g->Level(row[j]) > l;
      if (!ok) return bad("upper links of node " + std::to_string(s));
    }
    *g->upper.at(s) = rows;
    g->upper_words += words;
  }
  SKALD_RETURN_IF_ERROR(r->EndSection());
  g->entry = entry;
  g->nodes = nodes;
  gen->linked = nodes;
  return Status::Ok();
}

}  // namespace skald
