#include "index/exact_scan.h"

#include <cstring>

namespace skald {
namespace {

constexpr uint32_t kBlock = 256;

}  // namespace

float PrepareQuery(const RecordStore& store, const float* query, QueryScratch* scratch) {
  size_t dim = static_cast<size_t>(store.dim());
  scratch->query.assign(query, query + dim);
  if (store.metric() == Metric::kCosine) NormalizeL2(scratch->query.data(), dim);
  if (store.encoding() != VectorEncoding::kInt8) return 1.0f;
  scratch->query_i8.resize(dim);
  return QuantizeInt8(scratch->query.data(), dim, scratch->query_i8.data());
}

uint64_t ExactScanAll(const RecordStore& store, const StoreSnapshot& snap,
                      const CompiledFilter& filter, float query_scale, QueryScratch* scratch) {
  if (filter.match_nothing) return 0;
  const VectorKernels& kernels = GetVectorKernels();
  const size_t dim = static_cast<size_t>(store.dim());
  const bool f32 = store.encoding() == VectorEncoding::kFloat32;
  const float* q = scratch->query.data();
  const int8_t* q8 = scratch->query_i8.data();
  scratch->block_f32.resize(kBlock);
  scratch->block_i32.resize(kBlock);
  float* scores = scratch->block_f32.data();
  int32_t* iscores = scratch->block_i32.data();
  TopK& top = scratch->top;
  uint32_t rows_idx[kBlock];
  uint64_t scored = 0;

  for (uint32_t start = 0; start < snap.slots;) {
    uint32_t n = std::min({kBlock, SegmentedArray<float>::RunLength(start), snap.slots - start});
    bool dense = filter.trivial && !store.ChunkHasTombstones(start);
    if (dense) {
      // Contiguous rows, no per-row condition: one batched kernel call.
      if (f32) {
        kernels.dot_f32_batch(q, store.vector_f32(start), n, dim, scores);
      } else {
        kernels.dot_i8_batch(q8, store.vector_i8(start), n, dim, iscores);
        for (uint32_t i = 0; i < n; ++i) {
          scores[i] = query_scale * store.scale(start + i) * static_cast<float>(iscores[i]);
        }
      }
      scored += n;
      float threshold = top.threshold();
      for (uint32_t i = 0; i < n; ++i) {
        if (scores[i] >= threshold) {
          top.Push(scores[i], start + i, store.id(start + i));
          threshold = top.threshold();
        }
      }
    } else {
      // Evaluate the filter first, then score only the rows that pass.
      uint32_t m = 0;
      for (uint32_t i = 0; i < n; ++i) {
        uint32_t s = start + i;
        if (store.Visible(s, snap) && store.Matches(filter, s)) rows_idx[m++] = s;
      }
      for (uint32_t j = 0; j < m; ++j) {
        uint32_t s = rows_idx[j];
        float score = f32 ? kernels.dot_f32(q, store.vector_f32(s), dim)
                          : query_scale * store.scale(s) *
                                static_cast<float>(kernels.dot_i8(q8, store.vector_i8(s), dim));
        if (score >= top.threshold()) top.Push(score, s, store.id(s));
      }
      scored += m;
    }
    start += n;
  }
  return scored;
}

uint64_t ExactScanSlots(const RecordStore& store, const std::vector<uint32_t>& slots,
                        float query_scale, QueryScratch* scratch) {
  const VectorKernels& kernels = GetVectorKernels();
  const size_t dim = static_cast<size_t>(store.dim());
  const bool f32 = store.encoding() == VectorEncoding::kFloat32;
  const float* q = scratch->query.data();
  const int8_t* q8 = scratch->query_i8.data();
  TopK& top = scratch->top;
  // Candidates are scattered: prefetch whole vectors a few rows ahead so
  // several DRAM fetches are in flight at once.
  constexpr size_t kAhead = 6;
  const size_t row_bytes = f32 ? dim * sizeof(float) : dim;
  auto prefetch = [&](uint32_t s) {
    const char* p = f32 ? reinterpret_cast<const char*>(store.vector_f32(s))
                        : reinterpret_cast<const char*>(store.vector_i8(s));
    for (size_t off = 0; off < row_bytes; off += 64) __builtin_prefetch(p + off);
  };
  for (size_t i = 0; i < std::min(kAhead, slots.size()); ++i) prefetch(slots[i]);
  for (size_t i = 0; i < slots.size(); ++i) {
    uint32_t s = slots[i];
    if (i + kAhead < slots.size()) prefetch(slots[i + kAhead]);
    float score = f32 ? kernels.dot_f32(q, store.vector_f32(s), dim)
                      : query_scale * store.scale(s) *
                            static_cast<float>(kernels.dot_i8(q8, store.vector_i8(s), dim));
    if (score >= top.threshold()) top.Push(score, s, store.id(s));
  }
  return slots.size();
}

}  // namespace skald
