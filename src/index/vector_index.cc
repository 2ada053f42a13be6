#include "index/vector_index.h"

#include "index/flat_index.h"
#include "index/hnsw_index.h"

namespace skald {

std::string_view MetricName(Metric metric) {
  switch (metric) {
    case Metric::kCosine:
      return "cosine";
    case Metric::kInnerProduct:
      return "ip";
  }
  return "unknown";
}

std::string_view EncodingName(VectorEncoding encoding) {
  switch (encoding) {
    case VectorEncoding::kFloat32:
      return "float32";
    case VectorEncoding::kInt8:
      return "int8";
  }
  return "unknown";
}

bool RecordFilter::empty() const {
  return account.empty() && level_mask == 0 && context_types.empty() && uri_scopes.empty() &&
         owners.empty() && tags.empty() &&
         created_min == std::numeric_limits<int64_t>::min() &&
         created_max == std::numeric_limits<int64_t>::max() &&
         updated_min == std::numeric_limits<int64_t>::min() &&
         updated_max == std::numeric_limits<int64_t>::max();
}

RecordFilter& RecordFilter::WithLevels(std::initializer_list<int> levels) {
  level_mask = 0;
  for (int l : levels) {
    if (l >= 0 && l < 32) level_mask |= 1u << l;
  }
  return *this;
}

Status RecordFilter::Validate() const {
  for (const auto& s : uri_scopes) {
    if (s.uri.empty()) return Status::InvalidArgument("filter: empty URI scope");
    if (s.max_depth >= 0 && s.max_depth < s.min_depth) {
      return Status::InvalidArgument("filter: URI scope " + s.uri + " has max_depth < min_depth");
    }
  }
  if (created_min > created_max || updated_min > updated_max) {
    return Status::InvalidArgument("filter: empty time range");
  }
  return Status::Ok();
}

Status SearchOptions::Validate() const {
  if (k < 1 || k > 100000) return Status::InvalidArgument("search: k must be in 1..100000");
  if (ef < 0 || ef > 100000) return Status::InvalidArgument("search: ef must be in 0..100000");
  return Status::Ok();
}

Status VectorIndexOptions::Validate() const {
  if (kind != "hnsw" && kind != "flat") {
    return Status::InvalidArgument("vector index kind must be \"hnsw\" or \"flat\", got \"" +
                                   kind + "\"");
  }
  if (dim < 1 || dim > 65536) {
    return Status::InvalidArgument("vector index dim must be in 1..65536, got " +
                                   std::to_string(dim));
  }
  if (metric != Metric::kCosine && metric != Metric::kInnerProduct) {
    return Status::InvalidArgument("vector index metric is invalid");
  }
  if (encoding != VectorEncoding::kFloat32 && encoding != VectorEncoding::kInt8) {
    return Status::InvalidArgument("vector index encoding is invalid");
  }
  if (kind == "hnsw" && encoding != VectorEncoding::kFloat32) {
    return Status::InvalidArgument("the hnsw index stores float32 vectors");
  }
  if (hnsw.m < 2 || hnsw.m > 128) return Status::InvalidArgument("hnsw.m must be in 2..128");
  if (hnsw.ef_construction < 1 || hnsw.ef_construction > 4096) {
    return Status::InvalidArgument("hnsw.ef_construction must be in 1..4096");
  }
  if (hnsw.ef_search < 1 || hnsw.ef_search > 100000) {
    return Status::InvalidArgument("hnsw.ef_search must be in 1..100000");
  }
  if (hnsw.build_threads < 1 || hnsw.build_threads > 256) {
    return Status::InvalidArgument("hnsw.build_threads must be in 1..256");
  }
  if (hnsw.max_unlinked < 0 || hnsw.max_unlinked > (1 << 24)) {
    return Status::InvalidArgument("hnsw.max_unlinked must be in 0..16777216");
  }
  if (!(exact_max_fraction >= 0 && exact_max_fraction <= 1)) {
    return Status::InvalidArgument("exact_max_fraction must be in [0, 1]");
  }
  if (estimate_sample < 16) return Status::InvalidArgument("estimate_sample must be >= 16");
  return Status::Ok();
}

Result<std::unique_ptr<VectorIndex>> NewVectorIndex(const VectorIndexOptions& options) {
  SKALD_RETURN_IF_ERROR(options.Validate());
  if (options.kind == "flat") return std::unique_ptr<VectorIndex>(std::make_unique<FlatIndex>(options));
  return std::unique_ptr<VectorIndex>(std::make_unique<HnswIndex>(options));
}

Result<std::unique_ptr<VectorIndex>> LoadVectorIndex(const std::string& path,
                                                     const VectorIndexOptions& options) {
  SKALD_RETURN_IF_ERROR(options.Validate());
  std::unique_ptr<StoreIndex> index;
  if (options.kind == "flat") {
    index = std::make_unique<FlatIndex>(options);
  } else {
    index = std::make_unique<HnswIndex>(options);
  }
  SKALD_RETURN_IF_ERROR(index->LoadFrom(path));
  return std::unique_ptr<VectorIndex>(std::move(index));
}

}  // namespace skald
