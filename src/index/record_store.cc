#include "index/record_store.h"

#include <algorithm>
#include <cstring>

#include "index/index_file.h"
#include "index/vector_kernels.h"
#include "uri/uri_path.h"

namespace skald {

// ---- StringPool / Arena ----

uint32_t StringPool::Intern(std::string_view s) {
  {
    std::shared_lock lock(mu_);
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
  }
  std::unique_lock lock(mu_);
  auto it = ids_.find(s);
  if (it != ids_.end()) return it->second;
  auto id = static_cast<uint32_t>(strings_.size());
  strings_.emplace_back(s);
  ids_.emplace(std::string(s), id);
  return id;
}

std::optional<uint32_t> StringPool::Find(std::string_view s) const {
  std::shared_lock lock(mu_);
  auto it = ids_.find(s);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

std::string StringPool::Get(uint32_t id) const {
  std::shared_lock lock(mu_);
  return id < strings_.size() ? strings_[id] : std::string();
}

size_t StringPool::size() const {
  std::shared_lock lock(mu_);
  return strings_.size();
}

std::vector<std::string> StringPool::All() const {
  std::shared_lock lock(mu_);
  return strings_;
}

uint64_t StringPool::MemoryBytes() const {
  std::shared_lock lock(mu_);
  uint64_t bytes = 0;
  for (const auto& s : strings_) bytes += 2 * (s.size() + 48);
  return bytes;
}

void* Arena::Allocate(size_t bytes, size_t align) {
  size_t pad = (align - reinterpret_cast<uintptr_t>(cur_) % align) % align;
  if (cur_ == nullptr || pad + bytes > left_) {
    size_t size = std::max(kBlock, bytes + align);
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));  // not zero-filled
    cur_ = blocks_.back().get();
    left_ = size;
    pad = (align - reinterpret_cast<uintptr_t>(cur_) % align) % align;
  }
  char* p = cur_ + pad;
  cur_ = p + bytes;
  left_ -= pad + bytes;
  used_ += pad + bytes;
  return p;
}

// ---- URIs ----

// ---- RecordStore ----

RecordStore::RecordStore(int dim, Metric metric, VectorEncoding encoding)
    : dim_(dim),
      metric_(metric),
      encoding_(encoding),
      f32_(static_cast<size_t>(dim)),
      i8_(static_cast<size_t>(dim)) {}

void RecordStore::FillAttrs(const RecordFields& record, SlotAttrs* a) {
  a->account = accounts_.Intern(record.account);
  a->owner = owners_.Intern(record.owner);
  // Interned by name: the name is what index files store (docs/format).
  a->context_type = context_types_.Intern(ContextTypeName(record.context_type));
  a->level = static_cast<uint8_t>(record.level);
  a->uri_depth = static_cast<uint16_t>(std::min(UriDepth(record.uri), 65535));
  a->uri_len = static_cast<uint32_t>(record.uri.size());
  char* uri = static_cast<char*>(arena_.Allocate(record.uri.size() + 1, 1));
  std::memcpy(uri, record.uri.data(), record.uri.size());
  uri[record.uri.size()] = '\0';
  a->uri = uri;
  std::vector<uint32_t> tags;
  tags.reserve(record.tags.size());
  for (const auto& t : record.tags) tags.push_back(tags_.Intern(t));
  std::sort(tags.begin(), tags.end());
  tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
  a->num_tags = static_cast<uint16_t>(std::min<size_t>(tags.size(), 65535));
  auto* tag_mem = static_cast<uint32_t*>(arena_.Allocate(4 * a->num_tags, 4));
  std::copy_n(tags.begin(), a->num_tags, tag_mem);
  a->tags = tag_mem;
  a->created_ns = record.created_ns;
  a->updated_ns = record.updated_ns;
}

RecordStore::DirNode& RecordStore::DirLocked(std::string_view dir) {
  auto it = dirs_.find(dir);
  if (it != dirs_.end()) return it->second;
  it = dirs_.emplace(std::string(dir), DirNode{}).first;
  std::string_view key = it->first;
  std::string_view parent = UriParent(key);
  if (!parent.empty() && parent != key) {
    DirNode& p = DirLocked(parent);
    p.subdirs.push_back(key);
    it->second.parent = &p;
  }
  return it->second;
}

namespace {
constexpr uint64_t kPostingAccount = 1;
constexpr uint64_t kPostingLevel = 2;
constexpr uint64_t kPostingContextType = 3;
constexpr uint64_t kPostingOwner = 4;
constexpr uint64_t kPostingTag = 5;
constexpr uint64_t PostingKey(uint64_t field, uint32_t value) { return field << 32 | value; }
}  // namespace

void RecordStore::AddPostings(uint32_t slot) {
  const SlotAttrs& a = attrs(slot);
  std::unique_lock lock(postings_mu_);
  DirNode& dir = DirLocked(UriParent(std::string_view(a.uri, a.uri_len)));
  dir.slots.push_back(slot);
  for (DirNode* d = &dir; d != nullptr; d = d->parent) ++d->subtree_slots;
  field_postings_[PostingKey(kPostingAccount, a.account)].push_back(slot);
  field_postings_[PostingKey(kPostingLevel, a.level)].push_back(slot);
  field_postings_[PostingKey(kPostingContextType, a.context_type)].push_back(slot);
  field_postings_[PostingKey(kPostingOwner, a.owner)].push_back(slot);
  for (uint16_t i = 0; i < a.num_tags; ++i) {
    field_postings_[PostingKey(kPostingTag, a.tags[i])].push_back(slot);
  }
  posting_entries_ += 5 + a.num_tags;
}

uint64_t RecordStore::BestPostingsLocked(const CompiledFilter& f, PostingGroup* best) const {
  uint64_t best_size = UINT64_MAX;
  PostingGroup group;
  auto add = [&](uint64_t field, uint32_t value) {
    auto it = field_postings_.find(PostingKey(field, value));
    if (it != field_postings_.end()) group.push_back(&it->second);
  };
  auto consider = [&] {
    uint64_t size = 0;
    for (const auto* list : group) size += list->size();
    if (size < best_size) {
      best_size = size;
      *best = group;
    }
    group.clear();
  };
  if (f.account >= 0) {
    add(kPostingAccount, static_cast<uint32_t>(f.account));
    consider();
  }
  if (f.level_mask != 0) {
    for (uint32_t level = 0; level < 32; ++level) {
      if ((f.level_mask >> level) & 1) add(kPostingLevel, level);
    }
    consider();
  }
  if (!f.context_types.empty()) {
    for (uint32_t v : f.context_types) add(kPostingContextType, v);
    consider();
  }
  if (!f.owners.empty()) {
    for (uint32_t v : f.owners) add(kPostingOwner, v);
    consider();
  }
  for (uint32_t tag : f.tags) {
    add(kPostingTag, tag);
    consider();
  }
  return best_size;
}

uint64_t RecordStore::PostingBound(const CompiledFilter& f) const {
  if (f.match_nothing) return 0;
  PostingGroup group;
  std::shared_lock lock(postings_mu_);
  return BestPostingsLocked(f, &group);
}

bool RecordStore::CollectFromPostings(const CompiledFilter& f, const StoreSnapshot& snap,
                                      size_t budget, std::vector<uint32_t>* out) const {
  if (f.match_nothing) return true;
  PostingGroup group;
  std::shared_lock lock(postings_mu_);
  uint64_t size = BestPostingsLocked(f, &group);
  if (size == UINT64_MAX || size > budget) return false;
  // Each slot has one value per single-valued field, so the lists of a group
  // are disjoint and no slot is listed twice.
  for (const auto* list : group) {
    for (uint32_t slot : *list) {
      if (slot >= snap.slots) break;  // lists are in slot order
      if (Visible(slot, snap) && Matches(f, slot)) out->push_back(slot);
    }
  }
  return true;
}

uint32_t RecordStore::AppendSlot(const RecordFields& record) {
  uint32_t slot = slots_;
  ids_.Reserve(slot + 1);
  attrs_.Reserve(slot + 1);
  deleted_at_.Reserve(slot + 1);
  if (encoding_ == VectorEncoding::kFloat32) {
    f32_.Reserve(slot + 1);
  } else {
    i8_.Reserve(slot + 1);
    scales_.Reserve(slot + 1);
  }
  *ids_.at(slot) = record.key;
  FillAttrs(record, attrs_.at(slot));
  AddPostings(slot);
  return slot;
}

uint32_t RecordStore::Append(const RecordFields& record, const float* vector) {
  uint32_t slot = AppendSlot(record);
  if (encoding_ == VectorEncoding::kFloat32) {
    float* v = f32_.at(slot);
    std::memcpy(v, vector, sizeof(float) * dim_);
    if (metric_ == Metric::kCosine) NormalizeL2(v, dim_);
  } else {
    std::vector<float> tmp(vector, vector + dim_);
    if (metric_ == Metric::kCosine) NormalizeL2(tmp.data(), dim_);
    *scales_.at(slot) = QuantizeInt8(tmp.data(), dim_, i8_.at(slot));
  }
  slots_ = slot + 1;
  return slot;
}

uint32_t RecordStore::AppendCopy(const RecordStore& from, uint32_t from_slot) {
  uint32_t slot = AppendSlot(from.GetRecord(from_slot));
  if (encoding_ == VectorEncoding::kFloat32) {
    std::memcpy(f32_.at(slot), from.vector_f32(from_slot), sizeof(float) * dim_);
  } else {
    std::memcpy(i8_.at(slot), from.vector_i8(from_slot), dim_);
    *scales_.at(slot) = from.scale(from_slot);
  }
  slots_ = slot + 1;
  return slot;
}

void RecordStore::MarkDeleted(uint32_t slot, uint64_t version) {
  std::atomic_ref<uint64_t>(*deleted_at_.at(slot)).store(version, std::memory_order_release);
  chunk_tombstones_[SegmentChunkOf(slot)].fetch_add(1, std::memory_order_release);
}

void RecordStore::CopyVector(uint32_t slot, float* out) const {
  if (encoding_ == VectorEncoding::kFloat32) {
    std::memcpy(out, f32_.at(slot), sizeof(float) * dim_);
  } else {
    const int8_t* c = i8_.at(slot);
    float s = scale(slot);
    for (int i = 0; i < dim_; ++i) out[i] = c[i] * s;
  }
}

RecordFields RecordStore::GetRecord(uint32_t slot) const {
  const SlotAttrs& a = attrs(slot);
  RecordFields r;
  r.key = id(slot);
  r.account = accounts_.Get(a.account);
  r.level = a.level;
  // Only ContextTypeName() values are ever interned.
  r.context_type =
      ParseContextType(context_types_.Get(a.context_type)).value_or(ContextType::kResource);
  r.uri.assign(a.uri, a.uri_len);
  r.owner = owners_.Get(a.owner);
  for (uint16_t i = 0; i < a.num_tags; ++i) r.tags.push_back(tags_.Get(a.tags[i]));
  r.created_ns = a.created_ns;
  r.updated_ns = a.updated_ns;
  return r;
}

// ---- filters ----

CompiledFilter RecordStore::Compile(const RecordFilter& filter) const {
  CompiledFilter f;
  f.trivial = filter.empty();
  if (f.trivial) return f;
  if (!filter.account.empty()) {
    auto id = accounts_.Find(filter.account);
    if (!id) f.match_nothing = true;
    f.account = id.value_or(0);
  }
  f.level_mask = filter.level_mask;
  auto resolve = [&](const StringPool& pool, const std::vector<std::string>& names,
                     std::vector<uint32_t>* out) {
    for (const auto& n : names) {
      if (auto id = pool.Find(n)) out->push_back(*id);
    }
    // A value named twice must not add its posting list twice.
    std::sort(out->begin(), out->end());
    out->erase(std::unique(out->begin(), out->end()), out->end());
    if (!names.empty() && out->empty()) f.match_nothing = true;
  };
  std::vector<std::string> type_names;
  for (ContextType type : filter.context_types) type_names.emplace_back(ContextTypeName(type));
  resolve(context_types_, type_names, &f.context_types);
  resolve(owners_, filter.owners, &f.owners);
  for (const auto& t : filter.tags) {
    auto id = tags_.Find(t);
    if (!id) {
      f.match_nothing = true;
      break;
    }
    f.tags.push_back(*id);
  }
  std::sort(f.tags.begin(), f.tags.end());
  f.tags.erase(std::unique(f.tags.begin(), f.tags.end()), f.tags.end());
  for (const auto& s : filter.uri_scopes) {
    CompiledFilter::Scope scope;
    std::string_view uri = s.uri;
    size_t start = UriSchemeEnd(uri);
    while (uri.size() > start && uri.back() == '/') uri.remove_suffix(1);
    scope.uri = std::string(uri);
    scope.is_root = uri.size() == start;
    scope.depth = UriDepth(uri);
    scope.min_depth = std::max(0, s.min_depth);
    scope.max_depth = s.max_depth;
    f.scopes.push_back(std::move(scope));
  }
  f.has_time = filter.created_min != std::numeric_limits<int64_t>::min() ||
               filter.created_max != std::numeric_limits<int64_t>::max() ||
               filter.updated_min != std::numeric_limits<int64_t>::min() ||
               filter.updated_max != std::numeric_limits<int64_t>::max();
  f.created_min = filter.created_min;
  f.created_max = filter.created_max;
  f.updated_min = filter.updated_min;
  f.updated_max = filter.updated_max;
  return f;
}

bool RecordStore::MatchesExceptScopes(const CompiledFilter& f, const SlotAttrs& a) const {
  if (f.account >= 0 && a.account != static_cast<uint32_t>(f.account)) return false;
  if (f.level_mask != 0 && (a.level >= 32 || !((f.level_mask >> a.level) & 1))) return false;
  if (!f.context_types.empty() &&
      std::find(f.context_types.begin(), f.context_types.end(), a.context_type) ==
          f.context_types.end()) {
    return false;
  }
  if (!f.owners.empty() &&
      std::find(f.owners.begin(), f.owners.end(), a.owner) == f.owners.end()) {
    return false;
  }
  if (!f.tags.empty() && !std::includes(a.tags, a.tags + a.num_tags, f.tags.begin(), f.tags.end())) {
    return false;
  }
  if (f.has_time && (a.created_ns < f.created_min || a.created_ns > f.created_max ||
                     a.updated_ns < f.updated_min || a.updated_ns > f.updated_max)) {
    return false;
  }
  return true;
}

bool RecordStore::ScopeMatches(const CompiledFilter::Scope& scope, const SlotAttrs& a) const {
  std::string_view u(a.uri, a.uri_len);
  const std::string& s = scope.uri;
  if (u.size() < s.size() || std::memcmp(u.data(), s.data(), s.size()) != 0) return false;
  if (!scope.is_root && u.size() > s.size() && u[s.size()] != '/') return false;
  int rel = int{a.uri_depth} - scope.depth;
  return rel >= scope.min_depth && (scope.max_depth < 0 || rel <= scope.max_depth);
}

bool RecordStore::Matches(const CompiledFilter& f, uint32_t slot) const {
  if (f.trivial) return true;
  if (f.match_nothing) return false;
  const SlotAttrs& a = attrs(slot);
  if (!MatchesExceptScopes(f, a)) return false;
  if (f.scopes.empty()) return true;
  for (const auto& scope : f.scopes) {
    if (ScopeMatches(scope, a)) return true;
  }
  return false;
}

uint64_t RecordStore::ScopeBoundLocked(const CompiledFilter& f) const {
  if (f.scopes.empty()) return UINT64_MAX;
  uint64_t bound = 0;
  for (const auto& scope : f.scopes) {
    auto it = dirs_.find(scope.uri);
    if (it != dirs_.end()) {
      bound += scope.max_depth == 1 ? it->second.slots.size() : it->second.subtree_slots;
    }
    if (scope.min_depth == 0) bound += 2;  // the node's own L0/L1 records (if live)
  }
  return bound;
}

bool RecordStore::CollectCheaply(const CompiledFilter& f, const StoreSnapshot& snap,
                                 size_t budget, std::vector<uint32_t>* out) const {
  if (f.trivial) return false;
  if (f.match_nothing) return true;
  uint64_t scope_bound, posting_bound;
  {
    std::shared_lock lock(postings_mu_);
    PostingGroup group;
    scope_bound = ScopeBoundLocked(f);
    posting_bound = BestPostingsLocked(f, &group);
  }
  // Walk whichever index promises fewer slots; give up at once when neither
  // fits the budget (the bounds are cheap, the walks are not).
  if (scope_bound <= posting_bound) {
    if (scope_bound <= budget && EnumerateScopes(f, snap, budget, out)) return true;
    return posting_bound <= budget && CollectFromPostings(f, snap, budget, out);
  }
  if (posting_bound <= budget && CollectFromPostings(f, snap, budget, out)) return true;
  return scope_bound <= budget && EnumerateScopes(f, snap, budget, out);
}

bool RecordStore::EnumerateScopes(const CompiledFilter& f, const StoreSnapshot& snap,
                                  size_t budget, std::vector<uint32_t>* out) const {
  size_t first = out->size();
  bool done = EnumerateScopesImpl(f, snap, budget, out);
  if (!done) out->resize(first);
  return done;
}

bool RecordStore::EnumerateScopesImpl(const CompiledFilter& f, const StoreSnapshot& snap,
                                      size_t budget, std::vector<uint32_t>* out) const {
  if (f.scopes.empty() || f.trivial) return false;
  if (f.match_nothing) return true;
  size_t examined = 0;
  size_t first_out = out->size();
  std::shared_lock lock(postings_mu_);
  auto consider = [&](uint32_t slot, int rel, const CompiledFilter::Scope& scope) {
    if (rel < scope.min_depth || slot >= snap.slots || !Visible(slot, snap)) return;
    if (MatchesExceptScopes(f, attrs(slot))) out->push_back(slot);
  };
  std::vector<std::string_view> frontier, next;
  for (const auto& scope : f.scopes) {
    if (scope.min_depth == 0 && !scope.is_root) {
      auto it = dirs_.find(UriParent(scope.uri));
      if (it != dirs_.end()) {
        for (uint32_t slot : it->second.slots) {
          if (++examined > budget) return false;
          if (slot < snap.slots &&
              std::string_view(attrs(slot).uri, attrs(slot).uri_len) == scope.uri) {
            consider(slot, 0, scope);
          }
        }
      }
    }
    frontier.assign(1, scope.uri);
    for (int depth = 1; !frontier.empty() && (scope.max_depth < 0 || depth <= scope.max_depth);
         ++depth) {
      next.clear();
      for (std::string_view dir : frontier) {
        auto it = dirs_.find(dir);
        if (it == dirs_.end()) continue;
        examined += 1 + it->second.slots.size();
        if (examined > budget) return false;
        for (uint32_t slot : it->second.slots) consider(slot, depth, scope);
        if (scope.max_depth < 0 || depth < scope.max_depth) {
          next.insert(next.end(), it->second.subdirs.begin(), it->second.subdirs.end());
        }
      }
      frontier.swap(next);
    }
  }
  if (f.scopes.size() > 1) {
    std::sort(out->begin() + first_out, out->end());
    out->erase(std::unique(out->begin() + first_out, out->end()), out->end());
  }
  return true;
}

uint64_t RecordStore::EstimateMatches(const CompiledFilter& f, const StoreSnapshot& snap,
                                      uint32_t sample) const {
  if (f.match_nothing) return 0;
  uint32_t n = snap.slots;
  if (n == 0) return 0;
  if (n <= sample) {
    uint64_t count = 0;
    for (uint32_t s = 0; s < n; ++s) count += Visible(s, snap) && Matches(f, s);
    return count;
  }
  double stride = double(n) / sample;
  uint64_t hits = 0;
  for (uint32_t i = 0; i < sample; ++i) {
    auto s = static_cast<uint32_t>((i + 0.5) * stride);
    hits += Visible(s, snap) && Matches(f, s);
  }
  return static_cast<uint64_t>(double(hits) * n / sample);
}

void RecordStore::CollectMatches(const CompiledFilter& f, const StoreSnapshot& snap,
                                 std::vector<uint32_t>* out) const {
  if (f.match_nothing) return;
  for (uint32_t s = 0; s < snap.slots; ++s) {
    if (Visible(s, snap) && Matches(f, s)) out->push_back(s);
  }
}

uint64_t RecordStore::MemoryBytes() const {
  uint64_t per_slot = sizeof(uint64_t) * 2 + sizeof(SlotAttrs) + 4;  // id, tombstone, attrs, dir
  if (encoding_ == VectorEncoding::kFloat32) {
    per_slot += sizeof(float) * dim_;
  } else {
    per_slot += dim_ + sizeof(float);
  }
  uint64_t bytes = per_slot * slots_ + arena_.used();
  bytes += accounts_.MemoryBytes() + context_types_.MemoryBytes() + owners_.MemoryBytes() +
           tags_.MemoryBytes();
  std::shared_lock lock(postings_mu_);
  bytes += dirs_.size() * 128 + field_postings_.size() * 64 + posting_entries_ * 4;
  return bytes;
}

// ---- persistence ----

namespace {
constexpr uint32_t kDictTag = SectionTag("DICT");
constexpr uint32_t kSlotTag = SectionTag("SLOT");
constexpr uint32_t kVecsTag = SectionTag("VECS");
constexpr uint32_t kMaxUriBytes = 1 << 16;
}  // namespace

Status RecordStore::WriteTo(FileWriter* w, uint32_t slots) const {
  ByteBuilder dict;
  for (const StringPool* pool : {&accounts_, &context_types_, &owners_, &tags_}) {
    std::vector<std::string> all = pool->All();
    dict.U32(static_cast<uint32_t>(all.size()));
    for (const auto& s : all) dict.String(s);
  }
  w->BeginSection(kDictTag);
  w->PutBytes(dict.bytes().data(), dict.bytes().size());
  SKALD_RETURN_IF_ERROR(w->EndSection());

  w->BeginSection(kSlotTag);
  // Built in pieces so a large store does not need one huge buffer.
  ByteBuilder b;
  for (uint32_t s = 0; s < slots; ++s) {
    const SlotAttrs& a = attrs(s);
    b.U64(id(s));
    b.U8(deleted_at(s) == 0 ? 1 : 0);
    b.U8(a.level);
    b.U32(a.account);
    b.U32(a.owner);
    b.U32(a.context_type);
    b.I64(a.created_ns);
    b.I64(a.updated_ns);
    b.String(std::string_view(a.uri, a.uri_len));
    b.U32(a.num_tags);
    b.Raw(a.tags, 4 * size_t{a.num_tags});
    if (b.bytes().size() >= (1 << 20) || s + 1 == slots) {
      w->PutBytes(b.bytes().data(), b.bytes().size());
      b = ByteBuilder();
    }
  }
  SKALD_RETURN_IF_ERROR(w->EndSection());

  w->BeginSection(kVecsTag);
  for (uint32_t s = 0; s < slots;) {
    uint32_t run = std::min(SegmentedArray<float>::RunLength(s), slots - s);
    if (encoding_ == VectorEncoding::kFloat32) {
      w->PutBytes(f32_.at(s), sizeof(float) * dim_ * size_t{run});
    } else {
      w->PutBytes(i8_.at(s), size_t(dim_) * run);
      w->PutBytes(scales_.at(s), sizeof(float) * run);
    }
    s += run;
  }
  return w->EndSection();
}

Status RecordStore::ReadFrom(FileReader* r, uint32_t slots) {
  if (slots_ != 0) return Status::Internal("RecordStore::ReadFrom into a non-empty store");
  auto bad = [&](const std::string& what) {
    return Status::Corruption("vector index file: " + what);
  };
  std::string payload;
  SKALD_RETURN_IF_ERROR(r->ReadSection(kDictTag, &payload));
  ByteCursor dict(payload);
  size_t pool_sizes[4] = {0, 0, 0, 0};
  StringPool* targets[4] = {&accounts_, &context_types_, &owners_, &tags_};
  for (int p = 0; p < 4; ++p) {
    uint32_t n = 0;
    if (!dict.U32(&n) || n > dict.remaining() / 4) return bad("dictionary size out of range");
    for (uint32_t i = 0; i < n; ++i) {
      std::string_view str;
      if (!dict.String(&str, kMaxUriBytes)) return bad("dictionary truncated");
      if (targets[p]->Intern(str) != i) return bad("duplicate dictionary entry");
    }
    pool_sizes[p] = n;
  }
  if (dict.remaining() != 0) return bad("dictionary has trailing bytes");

  SKALD_RETURN_IF_ERROR(r->ReadSection(kSlotTag, &payload));
  constexpr uint64_t kMinSlotBytes = 8 + 1 + 1 + 4 + 4 + 4 + 8 + 8 + 4 + 4;
  if (payload.size() < kMinSlotBytes * slots) return bad("slot section shorter than its slots");
  ids_.Reserve(slots);
  attrs_.Reserve(slots);
  deleted_at_.Reserve(slots);
  ByteCursor in(payload);
  for (uint32_t s = 0; s < slots; ++s) {
    SlotAttrs& a = *attrs_.at(s);
    uint8_t live = 0;
    uint32_t num_tags = 0;
    std::string_view uri;
    if (!in.U64(ids_.at(s)) || !in.U8(&live) || !in.U8(&a.level) || !in.U32(&a.account) ||
        !in.U32(&a.owner) || !in.U32(&a.context_type) || !in.I64(&a.created_ns) ||
        !in.I64(&a.updated_ns) || !in.String(&uri, kMaxUriBytes) || !in.U32(&num_tags)) {
      return bad("slot " + std::to_string(s) + " truncated");
    }
    if (live > 1 || a.level > 7 || a.account >= pool_sizes[0] ||
        a.context_type >= pool_sizes[1] || a.owner >= pool_sizes[2] || num_tags > 65535 ||
        num_tags * 4ull > in.remaining()) {
      return bad("slot " + std::to_string(s) + " out of range");
    }
    auto* t = static_cast<uint32_t*>(arena_.Allocate(4 * size_t{num_tags}, 4));
    in.Raw(t, 4 * size_t{num_tags});
    for (uint32_t i = 0; i < num_tags; ++i) {
      if (t[i] >= pool_sizes[3] || (i > 0 && t[i] <= t[i - 1])) {
        return bad("slot " + std::to_string(s) + " has bad tags");
      }
    }
    a.tags = t;
    a.num_tags = static_cast<uint16_t>(num_tags);
    a.uri_len = static_cast<uint32_t>(uri.size());
    char* u = static_cast<char*>(arena_.Allocate(uri.size() + 1, 1));
    std::memcpy(u, uri.data(), uri.size());
    u[uri.size()] = '\0';
    a.uri = u;
    a.uri_depth = static_cast<uint16_t>(std::min(UriDepth(uri), 65535));
    if (!live) {
      *deleted_at_.at(s) = 1;  // tombstoned before the first snapshot
      chunk_tombstones_[SegmentChunkOf(s)].fetch_add(1, std::memory_order_relaxed);
    }
    AddPostings(s);
  }
  if (in.remaining() != 0) return bad("slot section has trailing bytes");
  payload = std::string();

  SKALD_RETURN_IF_ERROR(r->BeginSection(kVecsTag));
  uint64_t row_bytes = encoding_ == VectorEncoding::kFloat32 ? sizeof(float) * dim_
                                                              : dim_ + sizeof(float);
  if (r->remaining() != row_bytes * slots) return bad("vector section size mismatch");
  if (encoding_ == VectorEncoding::kFloat32) {
    f32_.Reserve(slots);
  } else {
    i8_.Reserve(slots);
    scales_.Reserve(slots);
  }
  for (uint32_t s = 0; s < slots;) {
    uint32_t run = std::min(SegmentedArray<float>::RunLength(s), slots - s);
    if (encoding_ == VectorEncoding::kFloat32) {
      SKALD_RETURN_IF_ERROR(r->GetBytes(f32_.at(s), sizeof(float) * dim_ * size_t{run}));
    } else {
      SKALD_RETURN_IF_ERROR(r->GetBytes(i8_.at(s), size_t(dim_) * run));
      SKALD_RETURN_IF_ERROR(r->GetBytes(scales_.at(s), sizeof(float) * run));
    }
    s += run;
  }
  SKALD_RETURN_IF_ERROR(r->EndSection());
  slots_ = slots;
  return Status::Ok();
}

}  // namespace skald
