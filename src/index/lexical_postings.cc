#include "index/lexical_postings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <set>

#include "index/lexical_query.h"
#include "uri/uri_path.h"

namespace skald {

namespace {

constexpr size_t kMaxTermBytes = 1 << 16;
constexpr size_t kMaxUriBytes = 1 << 20;

// The node a record sits in, as the scope plan indexes it.
std::string ParentOf(std::string_view uri) { return std::string(UriParent(uri)); }

// A candidate in the top-k heap: worst on top.
struct Ranked {
  double score;
  uint64_t id;
  // std::priority_queue keeps the "largest" on top: the worst candidate.
  bool operator<(const Ranked& o) const {
    return score != o.score ? score > o.score : id < o.id;
  }
};

class TopPostings {
 public:
  explicit TopPostings(int k) : k_(static_cast<size_t>(k)) {}
  // The score a new document must beat (ties: a smaller id wins).
  bool full() const { return heap_.size() >= k_; }
  double threshold() const { return full() ? heap_.top().score : 0.0; }
  bool WouldEnter(double score, uint64_t id) const {
    return score > 0 && (!full() || Ranked{score, id} < heap_.top());
  }
  void Offer(double score, uint64_t id) {
    if (!(score > 0)) return;
    Ranked r{score, id};
    if (!full()) {
      heap_.push(r);
    } else if (r < heap_.top()) {
      heap_.pop();
      heap_.push(r);
    }
  }
  void Drain(std::vector<SearchHit>* out) {
    std::vector<Ranked> all;
    while (!heap_.empty()) {
      all.push_back(heap_.top());
      heap_.pop();
    }
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
      out->push_back({it->id, static_cast<float>(it->score)});
    }
  }

 private:
  size_t k_;
  std::priority_queue<Ranked> heap_;
};

}  // namespace

// Postings ahead of the MaxScore cursor whose slot state is prefetched.
constexpr size_t kPrefetchAhead = 8;

// One query phrase during a search: its postings and statistics.
struct LexicalPartition::Cursor {
  static constexpr uint32_t kNoTerm = std::numeric_limits<uint32_t>::max();
  const std::vector<Posting>* shared = nullptr;  // a term's postings
  std::vector<Posting> owned;                    // or a phrase's, intersected
  uint32_t term = kNoTerm;                       // the term id of a one-term phrase
  size_t pos = 0;
  double idf = 0;
  double bound = 0;  // idf * (k1 + 1): no document gets more from this phrase

  const std::vector<Posting>& list() const { return shared != nullptr ? *shared : owned; }
  bool done() const { return pos >= list().size(); }
  uint32_t slot() const { return list()[pos].slot; }
  const std::array<uint16_t, kLexicalFields>& tf() const { return list()[pos].tf; }
  // Advances to the first posting at or after `slot` (galloping search).
  void SeekTo(uint32_t slot) {
    const auto& v = list();
    if (pos >= v.size() || v[pos].slot >= slot) return;
    size_t step = 1, lo = pos, hi = pos + 1;
    while (hi < v.size() && v[hi].slot < slot) {
      lo = hi;
      step *= 2;
      hi = pos + step;
    }
    hi = std::min(hi, v.size());
    pos = static_cast<size_t>(
        std::lower_bound(v.begin() + static_cast<std::ptrdiff_t>(lo),
                         v.begin() + static_cast<std::ptrdiff_t>(hi), slot,
                         [](const Posting& p, uint32_t s) { return p.slot < s; }) -
        v.begin());
  }
};

void LexicalTermBatch::BeginDocument() {
  docs_.emplace_back();
  current_.clear();
  field_ = 0;
}

void LexicalTermBatch::Term(std::string_view term) {
  ++docs_.back().len[field_];  // an overlong term still counts in the field's length
  if (term.size() > kMaxTermBytes) return;
  const size_t id = terms_.Insert(term);
  LastSeen& seen = terms_.Value(id);
  const auto doc = static_cast<uint32_t>(docs_.size() - 1);
  if (seen.doc != doc) {
    seen.doc = doc;
    seen.pos = static_cast<uint32_t>(current_.size());
    ++seen.docs;
    current_.push_back(LexicalTermFreq{static_cast<uint32_t>(id), {}});
  }
  uint16_t& tf = current_[seen.pos].tf[field_];
  if (tf != 0xFFFF) ++tf;  // saturates, as the index stores it
}

void LexicalTermBatch::EndDocument() {
  docs_.back().terms.assign(current_.begin(), current_.end());
}

uint32_t LexicalPartition::TermId(std::string_view term) {
  bool inserted = false;
  const auto id = static_cast<uint32_t>(dict_.Insert(term, &inserted));
  if (inserted) postings_.emplace_back();
  return id;
}

void LexicalPartition::Add(const RecordFields& r, LexicalTermBatch* batch, size_t doc_index) {
  if (batch->ids_for_ != this) {
    batch->ids_for_ = this;
    batch->ids_.assign(batch->terms_.size(), LexicalTermBatch::kNone);
  }
  LexicalTermBatch::Document& counted = batch->docs_[doc_index];
  Doc doc;
  doc.fields = r;
  doc.fields.account.clear();
  doc.depth = UriDepth(r.uri);
  doc.terms = std::move(counted.terms);
  // Terms are in order of first occurrence: new terms get their ids in the
  // order adding the tokens one by one gives them.
  for (TermFreq& t : doc.terms) {
    uint32_t& id = batch->ids_[t.term];
    if (id == LexicalTermBatch::kNone) {
      id = TermId(batch->terms_.Key(t.term));
      // Room for the batch's postings of the term at once (at least
      // doubling: batches of a few records must not regrow it each time).
      std::vector<Posting>& list = postings_[id];
      const size_t needed = list.size() + batch->terms_.Value(t.term).docs;
      if (needed > list.capacity()) list.reserve(std::max(needed, 2 * list.capacity()));
    }
    t.term = id;
  }
  Append(std::move(doc), counted.len);
  Index(static_cast<uint32_t>(docs_.size() - 1));
}

void LexicalPartition::Append(Doc doc, const std::array<uint32_t, kLexicalFields>& len) {
  slots_.push_back({doc.fields.key, len, false});
  docs_.push_back(std::move(doc));
}

void LexicalPartition::Index(uint32_t slot) {
  Doc& doc = docs_[slot];
  SlotState& state = slots_[slot];
  state.alive = true;
  for (const TermFreq& t : doc.terms) {
    postings_[t.term].push_back({slot, t.tf});
    ++dict_.Value(t.term);
  }
  postings_total_ += doc.terms.size();
  for (int c = 0; c < kLexicalFields; ++c) total_len_[c] += state.len[c];
  slot_of_[doc.fields.key] = slot;
  by_uri_[doc.fields.uri].push_back(slot);
  by_parent_[ParentOf(doc.fields.uri)].push_back(slot);
  ++live_;
}

bool LexicalPartition::Remove(uint64_t key) {
  auto found = slot_of_.find(key);
  if (found == slot_of_.end()) return false;
  const uint32_t slot = found->second;
  slot_of_.erase(found);
  Doc& doc = docs_[slot];
  SlotState& state = slots_[slot];
  state.alive = false;
  for (const TermFreq& t : doc.terms) --dict_.Value(t.term);
  dead_postings_ += doc.terms.size();
  for (int c = 0; c < kLexicalFields; ++c) total_len_[c] -= state.len[c];
  // by_uri_ and by_parent_ keep the dead slot until Compact() (removing it
  // from a directory of n children would cost O(n) per delete).
  doc.terms.clear();
  doc.terms.shrink_to_fit();
  --live_;
  return true;
}

bool LexicalPartition::NeedsCompaction() const {
  const uint64_t dead_docs = docs_.size() - live_;
  return (dead_postings_ > 4096 && dead_postings_ > postings_total_ - dead_postings_) ||
         (dead_docs > 4096 && dead_docs > live_);
}

void LexicalPartition::Compact() {
  std::vector<Doc> docs;
  std::vector<SlotState> slots;
  docs.reserve(live_);
  slots.reserve(live_);
  for (size_t slot = 0; slot < docs_.size(); ++slot) {
    if (!slots_[slot].alive) continue;
    docs.push_back(std::move(docs_[slot]));
    slots.push_back(slots_[slot]);
    slots.back().alive = false;  // Index() revives it
  }
  // Term ids stay: a term without live documents keeps an empty list.
  docs_ = std::move(docs);
  slots_ = std::move(slots);
  for (auto& list : postings_) list.clear();
  for (size_t term = 0; term < dict_.size(); ++term) dict_.Value(term) = 0;
  slot_of_.clear();
  by_uri_.clear();
  by_parent_.clear();
  live_ = 0;
  dead_postings_ = 0;
  postings_total_ = 0;
  total_len_ = {};
  IndexFrom(0);
}

void LexicalPartition::IndexFrom(uint32_t first) {
  // Push-back growth of every list would copy each about twice, and the
  // discarded blocks are most of the allocator's work.
  std::vector<uint32_t> added(postings_.size(), 0);
  for (size_t slot = first; slot < docs_.size(); ++slot) {
    for (const TermFreq& t : docs_[slot].terms) ++added[t.term];
  }
  for (size_t term = 0; term < postings_.size(); ++term) {
    if (added[term] > 0) postings_[term].reserve(postings_[term].size() + added[term]);
  }
  for (auto slot = first; slot < docs_.size(); ++slot) Index(slot);
}

// Named, not anonymous: CompiledFilter (declared in the header) holds these.
namespace lexical_scope {

// A URI scope with what every check needs computed once per search, with
// the semantics of the FTS5 index's SQL (lexical_sql.cc): the node itself
// or a URI that starts with "base/" ("scheme://" holds every URI of the
// scheme; a scope of only slashes every URI), and depth bounds.
struct CompiledScope {
  std::string base;    // trailing slashes trimmed; "" = any URI
  std::string prefix;  // base + "/" (base itself for "scheme://")
  int min_depth = 0;   // absolute
  int max_depth = -1;  // absolute; -1 = unlimited

  explicit CompiledScope(const UriScope& scope) {
    const std::string_view trimmed = UriTrimTrailingSlashes(scope.uri);
    base = std::string(trimmed);
    const int depth = UriDepth(base);
    if (!base.empty()) prefix = base.size() == UriSchemeEnd(base) ? base : base + "/";
    min_depth = depth + std::max(0, scope.min_depth);
    max_depth = scope.max_depth < 0 ? -1 : depth + scope.max_depth;
  }
  bool Contains(std::string_view uri, int depth) const {
    if (depth < min_depth || (max_depth >= 0 && depth > max_depth)) return false;
    return base.empty() || uri == base || uri.starts_with(prefix);
  }
};

}  // namespace lexical_scope

struct LexicalPartition::CompiledFilter {
  const RecordFilter* filter = nullptr;
  std::vector<lexical_scope::CompiledScope> scopes;

  explicit CompiledFilter(const RecordFilter& f) : filter(&f) {
    for (const UriScope& scope : f.uri_scopes) scopes.emplace_back(scope);
  }
};

bool LexicalPartition::Matches(const Doc& doc, const CompiledFilter& compiled,
                               bool check_scopes) const {
  const RecordFilter& f = *compiled.filter;
  const RecordFields& r = doc.fields;
  if (f.level_mask != 0 && (r.level < 0 || r.level > 31 || !((f.level_mask >> r.level) & 1u))) {
    return false;
  }
  if (!f.context_types.empty() &&
      std::find(f.context_types.begin(), f.context_types.end(), r.context_type) ==
          f.context_types.end()) {
    return false;
  }
  if (!f.owners.empty() && std::find(f.owners.begin(), f.owners.end(), r.owner) == f.owners.end()) {
    return false;
  }
  for (const std::string& tag : f.tags) {
    if (std::find(r.tags.begin(), r.tags.end(), tag) == r.tags.end()) return false;
  }
  if (r.created_ns < f.created_min || r.created_ns > f.created_max) return false;
  if (r.updated_ns < f.updated_min || r.updated_ns > f.updated_max) return false;
  if (compiled.scopes.empty() || !check_scopes) return true;
  for (const lexical_scope::CompiledScope& scope : compiled.scopes) {
    if (scope.Contains(r.uri, doc.depth)) return true;
  }
  return false;
}

bool LexicalPartition::ScopeCandidates(const RecordFilter& filter, size_t limit,
                                       std::vector<uint32_t>* slots) const {
  if (filter.uri_scopes.empty()) return false;
  for (const UriScope& scope : filter.uri_scopes) {
    if (scope.max_depth < 0 || scope.max_depth > 1) return false;
    if (UriTrimTrailingSlashes(scope.uri).size() <= UriSchemeEnd(scope.uri)) return false;
  }
  for (const UriScope& scope : filter.uri_scopes) {
    const std::string base(UriTrimTrailingSlashes(scope.uri));
    for (int rel = std::max(0, scope.min_depth); rel <= scope.max_depth; ++rel) {
      const auto& map = rel == 0 ? by_uri_ : by_parent_;
      auto it = map.find(base);
      if (it == map.end()) continue;
      slots->insert(slots->end(), it->second.begin(), it->second.end());
      if (slots->size() > limit) return false;
    }
  }
  std::sort(slots->begin(), slots->end());
  slots->erase(std::unique(slots->begin(), slots->end()), slots->end());
  return true;
}

void LexicalPartition::Search(const std::vector<LexicalPhrase>& phrases,
                              const RecordFilter& filter, const Bm25Params& params, int k,
                              std::vector<SearchHit>* out) const {
  if (live_ == 0 || k < 1) return;
  const auto rows = static_cast<double>(live_);
  std::array<double, kLexicalFields> avg{};
  for (int c = 0; c < kLexicalFields; ++c) {
    avg[c] = total_len_[c] > 0 ? static_cast<double>(total_len_[c]) / rows : 1.0;
  }

  // Phrases -> cursors (a repeated phrase counts once).
  std::vector<Cursor> cursors;
  cursors.reserve(phrases.size());
  std::set<LexicalPhrase> seen;
  size_t total_postings = 0;
  for (const LexicalPhrase& phrase : phrases) {
    if (phrase.empty() || !seen.insert(phrase).second) continue;
    std::vector<uint32_t> ids;
    for (const std::string& term : phrase) {
      const size_t id = dict_.IndexOf(term);
      if (id == FlatStringMap<uint32_t>::npos || dict_.Value(id) == 0) break;
      ids.push_back(static_cast<uint32_t>(id));
    }
    if (ids.size() != phrase.size()) continue;  // a term no live document has
    Cursor cursor;
    int64_t df = 0;
    if (ids.size() == 1) {
      cursor.shared = &postings_[ids[0]];
      cursor.term = ids[0];
      df = dict_.Value(ids[0]);
    } else {
      // Live documents holding every term; per field the least frequent one.
      std::vector<const std::vector<Posting>*> lists;
      for (uint32_t id : ids) lists.push_back(&postings_[id]);
      std::sort(lists.begin(), lists.end(), [](auto* a, auto* b) { return a->size() < b->size(); });
      for (const Posting& p : *lists[0]) {
        if (!slots_[p.slot].alive) continue;
        Posting merged = p;
        bool all = true;
        for (size_t i = 1; i < lists.size() && all; ++i) {
          auto hit = std::lower_bound(lists[i]->begin(), lists[i]->end(), p.slot,
                                      [](const Posting& q, uint32_t s) { return q.slot < s; });
          all = hit != lists[i]->end() && hit->slot == p.slot;
          if (all) {
            for (int c = 0; c < kLexicalFields; ++c) {
              merged.tf[c] = std::min(merged.tf[c], hit->tf[c]);
            }
          }
        }
        if (all) cursor.owned.push_back(merged);
      }
      df = static_cast<int64_t>(cursor.owned.size());
      if (df == 0) continue;
    }
    cursor.idf = Bm25Idf(rows, static_cast<double>(df));
    cursor.bound = cursor.idf * (params.k1 + 1);
    total_postings += cursor.list().size();
    cursors.push_back(std::move(cursor));
  }
  if (cursors.empty()) return;

  // The weight of one occurrence per field of a document.
  auto norms = [&](const SlotState& state) {
    std::array<double, kLexicalFields> n{};
    for (int c = 0; c < kLexicalFields; ++c) {
      n[c] = params.weights[c] /
             (1.0 - params.b + params.b * static_cast<double>(state.len[c]) / avg[c]);
    }
    return n;
  };
  auto contribution = [&](const Cursor& cursor, const std::array<uint16_t, kLexicalFields>& tf,
                          const std::array<double, kLexicalFields>& n) {
    double t = 0;
    for (int c = 0; c < kLexicalFields; ++c) t += tf[c] * n[c];
    return t > 0 ? cursor.idf * t * (params.k1 + 1.0) / (t + params.k1) : 0.0;
  };

  const CompiledFilter compiled(filter);
  TopPostings top(k);
  std::vector<uint32_t> candidates;
  if (ScopeCandidates(filter, total_postings / 4, &candidates)) {
    // Candidates ascend, so each posting list is walked forward once; a
    // directory's children were mostly added together, so their postings
    // lie side by side. The candidates came from the scopes' node maps: only
    // the filter's other conditions are left to check.
    for (uint32_t slot : candidates) {
      if (!slots_[slot].alive || !Matches(docs_[slot], compiled, /*check_scopes=*/false)) {
        continue;
      }
      const auto n = norms(slots_[slot]);
      double score = 0;
      for (Cursor& cursor : cursors) {
        cursor.SeekTo(slot);
        if (cursor.done() || cursor.slot() != slot) continue;
        score += contribution(cursor, cursor.tf(), n);
      }
      top.Offer(score, slots_[slot].key);
    }
    top.Drain(out);
    return;
  }

  // MaxScore, document at a time.
  std::sort(cursors.begin(), cursors.end(),
            [](const Cursor& a, const Cursor& b) { return a.bound < b.bound; });
  std::vector<double> prefix(cursors.size() + 1, 0.0);  // prefix[i] = sum of bounds [0, i)
  for (size_t i = 0; i < cursors.size(); ++i) prefix[i + 1] = prefix[i] + cursors[i].bound;
  size_t essential = 0;  // cursors[essential..] drive the candidates
  while (true) {
    uint32_t slot = std::numeric_limits<uint32_t>::max();
    for (size_t i = essential; i < cursors.size(); ++i) {
      if (!cursors[i].done()) slot = std::min(slot, cursors[i].slot());
    }
    if (slot == std::numeric_limits<uint32_t>::max()) break;
    const SlotState& state = slots_[slot];
    if (!state.alive) {
      for (size_t i = essential; i < cursors.size(); ++i) {
        if (!cursors[i].done() && cursors[i].slot() == slot) ++cursors[i].pos;
      }
      continue;
    }
    const auto n = norms(state);
    double score = 0;
    for (size_t i = essential; i < cursors.size(); ++i) {
      Cursor& cursor = cursors[i];
      if (cursor.done() || cursor.slot() != slot) continue;
      score += contribution(cursor, cursor.tf(), n);
      ++cursor.pos;
      // The slot state of a posting further on is a cache miss to come:
      // ask for it now (postings are read in order, their slots are not
      // evenly spaced, so the hardware does not guess them).
      if (const auto& list = cursor.list(); cursor.pos + kPrefetchAhead < list.size()) {
        __builtin_prefetch(&slots_[list[cursor.pos + kPrefetchAhead].slot]);
      }
    }
    const double threshold = top.threshold();
    if (top.full() && score + prefix[essential] < threshold) continue;
    bool bounded_out = false;
    for (size_t i = essential; i-- > 0;) {
      if (top.full() && score + prefix[i + 1] < threshold) {
        bounded_out = true;
        break;
      }
      Cursor& cursor = cursors[i];
      cursor.SeekTo(slot);
      if (!cursor.done() && cursor.slot() == slot) {
        score += contribution(cursor, cursor.tf(), n);
      }
    }
    // The filter last: only a document that would enter the top k is checked.
    if (bounded_out || !top.WouldEnter(score, state.key) || !Matches(docs_[slot], compiled)) {
      continue;
    }
    top.Offer(score, state.key);
    if (top.full()) {
      // Terms whose bounds together stay below the k-th score cannot lift
      // a document on their own.
      while (essential < cursors.size() && prefix[essential + 1] < top.threshold()) ++essential;
    }
  }
  top.Drain(out);
}

uint64_t LexicalPartition::Count(const RecordFilter& filter) const {
  const CompiledFilter compiled(filter);
  uint64_t n = 0;
  for (size_t slot = 0; slot < docs_.size(); ++slot) {
    n += slots_[slot].alive && Matches(docs_[slot], compiled) ? 1 : 0;
  }
  return n;
}

void LexicalPartition::Save(FileWriter* file) const {
  // Written through a bounded buffer: the partition's bytes are never all
  // in memory at once (and the buffer's pages are reused, not faulted in).
  constexpr size_t kChunkBytes = 64 << 10;
  ByteBuilder chunk;
  ByteBuilder* const out = &chunk;
  // Hands the buffer to the file once it holds `at_least` bytes (>= 1).
  auto spill = [&](size_t at_least) {
    if (chunk.bytes().size() < at_least) return;
    file->PutBytes(chunk.bytes().data(), chunk.bytes().size());
    chunk.Clear();
  };
  // Terms that live documents use, renumbered densely.
  std::vector<uint32_t> remap(dict_.size(), std::numeric_limits<uint32_t>::max());
  std::vector<uint32_t> used;
  for (size_t slot = 0; slot < docs_.size(); ++slot) {
    if (!slots_[slot].alive) continue;
    for (const TermFreq& t : docs_[slot].terms) {
      if (remap[t.term] == std::numeric_limits<uint32_t>::max()) {
        remap[t.term] = static_cast<uint32_t>(used.size());
        used.push_back(t.term);
      }
    }
  }
  out->U32(static_cast<uint32_t>(used.size()));
  for (uint32_t term : used) {
    out->String(dict_.Key(term));
    spill(kChunkBytes);
  }
  out->U64(live_);
  for (size_t slot = 0; slot < docs_.size(); ++slot) {
    if (!slots_[slot].alive) continue;
    const Doc& doc = docs_[slot];
    const RecordFields& r = doc.fields;
    out->U64(r.key);
    out->String(r.uri);
    out->U8(static_cast<uint8_t>(r.level));
    out->U8(static_cast<uint8_t>(r.context_type));
    out->String(r.owner);
    out->U32(static_cast<uint32_t>(r.tags.size()));
    for (const std::string& tag : r.tags) out->String(tag);
    out->I64(r.created_ns);
    out->I64(r.updated_ns);
    for (int c = 0; c < kLexicalFields; ++c) out->U32(slots_[slot].len[c]);
    out->U32(static_cast<uint32_t>(doc.terms.size()));
    for (const TermFreq& t : doc.terms) {
      out->U32(remap[t.term]);
      out->Raw(t.tf.data(), sizeof(t.tf));
    }
    spill(kChunkBytes);
  }
  spill(1);
}

bool LexicalPartition::Load(ByteCursor* in) {
  uint32_t terms = 0;
  if (!in->U32(&terms) || terms > in->remaining()) return false;
  for (uint32_t i = 0; i < terms; ++i) {
    std::string_view term;
    if (!in->String(&term, kMaxTermBytes)) return false;
    if (TermId(term) != i) return false;  // a repeated term
  }
  uint64_t count = 0;
  if (!in->U64(&count) || count > in->remaining()) return false;
  for (uint64_t d = 0; d < count; ++d) {
    Doc doc;
    std::array<uint32_t, kLexicalFields> len{};
    RecordFields& r = doc.fields;
    std::string_view text;
    uint8_t level = 0, type = 0;
    uint32_t tags = 0, n = 0;
    if (!in->U64(&r.key) || !in->String(&text, kMaxUriBytes)) return false;
    r.uri = std::string(text);
    if (!in->U8(&level) || !in->U8(&type) || !in->String(&text, kMaxUriBytes)) return false;
    if (level > 31 || type > static_cast<uint8_t>(ContextType::kSkill)) return false;
    r.level = level;
    r.context_type = static_cast<ContextType>(type);
    r.owner = std::string(text);
    if (!in->U32(&tags) || tags > in->remaining()) return false;
    for (uint32_t t = 0; t < tags; ++t) {
      if (!in->String(&text, kMaxUriBytes)) return false;
      r.tags.emplace_back(text);
    }
    if (!in->I64(&r.created_ns) || !in->I64(&r.updated_ns)) return false;
    for (int c = 0; c < kLexicalFields; ++c) {
      if (!in->U32(&len[c])) return false;
    }
    if (!in->U32(&n) || n > in->remaining()) return false;
    doc.terms.resize(n);
    for (TermFreq& t : doc.terms) {
      if (!in->U32(&t.term) || t.term >= terms || !in->Raw(t.tf.data(), sizeof(t.tf))) {
        return false;
      }
    }
    doc.depth = UriDepth(r.uri);
    Append(std::move(doc), len);
  }
  // A key twice is malformed (slot_of_ holds the loaded keys: Load starts empty).
  const auto first = static_cast<uint32_t>(docs_.size() - count);
  for (auto slot = first; slot < docs_.size(); ++slot) {
    if (!slot_of_.emplace(slots_[slot].key, slot).second) return false;
  }
  IndexFrom(first);
  return true;
}

}  // namespace skald
