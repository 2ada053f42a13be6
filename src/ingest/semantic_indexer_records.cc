// The semantic indexer's second half: the summarized records are embedded
// (through the embedding cache) and written, those whose node is unchanged,
// in catalog transactions of kUpsertChunk.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>

#include "common/hash.h"
#include "common/thread_name.h"
#include "common/two_threads.h"
#include "ingest/file_bodies.h"
#include "ingest/semantic_indexer.h"
#include "ingest/semantic_indexer_pending.h"
#include "ingest/stage_timings.h"
#include "model/embedder.h"
#include "storage/catalog.h"
#include "storage/path_lock.h"

namespace skald {

using semantic_indexer_internal::kUpsertChunk;

Status SemanticIndexer::Flush(std::string_view account, Pending* pending, IndexStats* stats,
                              const IndexProgress& progress) {
  const std::string embedder_name = embedder_->Name();
  const size_t total = pending->records.size();
  const bool cache = embedder_->worth_caching();
  for (size_t begin = 0; begin < total; begin += static_cast<size_t>(options_.embed_chunk)) {
    SKALD_RETURN_IF_ERROR(CheckStop());
    size_t end = std::min(total, begin + static_cast<size_t>(options_.embed_chunk));
    if (progress) progress(fmt::format("embedding {}/{}", begin, total));
    StageTimings::Scope embed_timed(options_.timings, "embedding");
    const bool packaged = !options_.packaged_vectors.empty() && pending->use_cache;
    std::vector<std::string> hashes;
    if (cache || packaged) {
      for (size_t i = begin; i < end; ++i) hashes.push_back(Sha256Hex(pending->texts[i]));
    }
    std::vector<std::optional<std::vector<float>>> cached(end - begin);
    if (cache && pending->use_cache) {
      SKALD_ASSIGN_OR_RETURN(cached, catalog_->GetCachedEmbeddings(account, embedder_name, hashes));
    }
    if (packaged) {
      // The vectors a pack import brought for exactly these texts (only
      // this import's job reads them: SemanticIndexerOptions).
      SKALD_ASSIGN_OR_RETURN(
          std::vector<std::optional<std::vector<float>>> brought,
          catalog_->GetCachedEmbeddings(account, options_.packaged_vectors, hashes));
      for (size_t j = 0; j < brought.size(); ++j) {
        if (brought[j]) cached[j] = std::move(brought[j]);
      }
    }
    std::vector<size_t> missing;
    std::vector<std::string> missing_texts;
    for (size_t i = begin; i < end; ++i) {
      auto ahead = pending->prepared_vectors.find(i);
      if (ahead != pending->prepared_vectors.end()) {
        pending->records[i].vector = std::move(ahead->second);
        ++stats->texts_embedded;
        continue;
      }
      auto& hit = cached[i - begin];
      // (A cached vector of another size or with a non-finite value, from
      // an older version or a damaged row, is embedded again.)
      if (hit && static_cast<int>(hit->size()) == embedder_->Dimension() &&
          std::all_of(hit->begin(), hit->end(), [](float x) { return std::isfinite(x); })) {
        pending->records[i].vector = std::move(*hit);
        ++stats->cache_hits;
      } else {
        missing.push_back(i);
        missing_texts.push_back(pending->texts[i]);
      }
    }
    if (!missing.empty()) {
      SKALD_ASSIGN_OR_RETURN(std::vector<std::vector<float>> vectors, EmbedTexts(missing_texts));
      if (vectors.size() != missing.size()) {
        return Status::Internal(fmt::format("embedder {} returned {} vectors for {} texts",
                                            embedder_name, vectors.size(), missing.size()));
      }
      if (cache) {
        std::vector<std::string> missing_hashes;
        for (size_t i : missing) missing_hashes.push_back(hashes[i - begin]);
        SKALD_RETURN_IF_ERROR(
            catalog_->PutCachedEmbeddings(account, embedder_name, missing_hashes, vectors));
      }
      for (size_t j = 0; j < missing.size(); ++j) {
        pending->records[missing[j]].vector = std::move(vectors[j]);
      }
      stats->texts_embedded += missing.size();
    }
    embed_timed.Stop();
  }
  if (progress) progress(fmt::format("embedding {}/{}", total, total));
  RecordBatch batch;
  batch.records = std::move(pending->records);
  for (Record& record : batch.records) record.embedder = embedder_name;
  batch.node_paths = std::move(pending->node_paths);
  batch.source_hashes = std::move(pending->source_hashes);
  batch.inherit_tags = std::move(pending->inherit_tags);
  pending->records.clear();
  pending->prepared_vectors.clear();
  pending->texts.clear();
  pending->node_paths.clear();
  pending->source_hashes.clear();
  pending->inherit_tags.clear();
  if (batch.records.empty()) return Status::Ok();
  if (!pending->writer) pending->writer = std::make_unique<RecordWriter>(this, std::string(account));
  return pending->writer->Write(std::move(batch));
}

Status SemanticIndexer::FinishWrites(Pending* pending, IndexStats* stats) {
  if (!pending->writer) return Status::Ok();
  return pending->writer->Finish(stats);
}

Status SemanticIndexer::WriteBatch(std::string_view account, RecordBatch* batch,
                                   IndexStats* stats) {
  StageTimings::Scope record_timed(options_.timings, "record_write");
  std::vector<Record> changed;
  std::vector<std::pair<std::string, std::string>> changed_sources;  // node path, source hash
  std::vector<bool> changed_keep_tags;  // inherits: the tags stored when it is written
  const size_t total = batch->records.size();
  for (size_t begin = 0; begin < total; begin += kUpsertChunk) {
    // A shutdown does not wait for the rest (the job runs again later).
    SKALD_RETURN_IF_ERROR(CheckStop());
    const size_t end = std::min(total, begin + kUpsertChunk);
    // Keep only records that differ from what the catalog has.
    std::map<std::string, std::vector<Record>> existing_by_uri;
    for (size_t i = begin; i < end; ++i) {
      Record& record = batch->records[i];
      auto it = existing_by_uri.find(record.uri);
      if (it == existing_by_uri.end()) {
        SKALD_ASSIGN_OR_RETURN(std::vector<Record> existing,
                               catalog_->GetRecordsByUri(account, record.uri, true));
        it = existing_by_uri.emplace(record.uri, std::move(existing)).first;
      }
      bool stored = false;
      for (const Record& old : it->second) {
        if (old.id != record.id) continue;
        stored = true;
        if (batch->inherit_tags[i]) {
          record.tags = old.tags;
        } else if (options_.tag_mode == TagMode::kAppend) {
          record.tags = MergeTags(old.tags, record.tags);
        }
      }
      if (!stored && batch->inherit_tags[i]) {
        if (auto carried = options_.carried_tags.find(record.uri);
            carried != options_.carried_tags.end()) {
          record.tags = carried->second;
        }
      }
      bool same = false;
      for (const Record& old : it->second) {
        if (old.id == record.id && old.level == record.level && old.abstract == record.abstract &&
            old.tags == record.tags && old.embedder == record.embedder &&
            old.vector == record.vector && old.context_type == record.context_type &&
            old.owner == record.owner) {
          same = true;
        }
      }
      if (same) {
        ++stats->records_unchanged;
      } else {
        changed.push_back(std::move(record));
        changed_sources.emplace_back(batch->node_paths[i], batch->source_hashes[i]);
        changed_keep_tags.push_back(batch->inherit_tags[i]);
      }
    }
    SKALD_RETURN_IF_ERROR(
        WriteCurrentRecords(account, &changed, &changed_sources, &changed_keep_tags, stats));
  }
  return Status::Ok();
}

SemanticIndexer::RecordWriter::RecordWriter(SemanticIndexer* indexer, std::string account)
    : indexer_(indexer), account_(std::move(account)), thread_([this] {
        NameThisThread("skald-records");
        Run();
      }) {}

SemanticIndexer::RecordWriter::~RecordWriter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

Status SemanticIndexer::RecordWriter::Write(RecordBatch batch) {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] { return queue_.size() < kQueued || !error_.ok(); });
  if (!error_.ok()) return error_;
  queue_.push_back(std::move(batch));
  changed_.notify_all();
  return Status::Ok();
}

Status SemanticIndexer::RecordWriter::Error() {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

Status SemanticIndexer::RecordWriter::Finish(IndexStats* stats) {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] { return queue_.empty() && !busy_; });
  stats->records_written += stats_.records_written;
  stats->records_unchanged += stats_.records_unchanged;
  stats->records_stale += stats_.records_stale;
  stats_ = IndexStats{};
  return error_;
}

void SemanticIndexer::RecordWriter::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    changed_.wait(lock, [&] { return !queue_.empty() || stop_; });
    if (queue_.empty()) return;  // stopping, and nothing left
    RecordBatch batch = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    const bool failed = !error_.ok();
    lock.unlock();
    IndexStats counts;
    // After an error nothing more is written: the pass fails with it.
    Status st = failed ? Status::Ok() : indexer_->WriteBatch(account_, &batch, &counts);
    lock.lock();
    if (!st.ok() && error_.ok()) error_ = std::move(st);
    stats_.records_written += counts.records_written;
    stats_.records_unchanged += counts.records_unchanged;
    stats_.records_stale += counts.records_stale;
    busy_ = false;
    changed_.notify_all();
  }
}

Result<std::vector<std::vector<float>>> SemanticIndexer::EmbedTexts(
    const std::vector<std::string>& texts) {
  // HTTP embedders batch and parallelize their requests themselves; the
  // built-in one computes on the calling thread, so a large chunk is split
  // over two threads (one request's worth of batching is not at stake).
  constexpr size_t kSplitFrom = 64;
  if (embedder_->provider() != "hashing" || texts.size() < kSplitFrom || !HasSecondCore()) {
    return embedder_->Embed(texts, EmbedKind::kDocument);
  }
  auto [first, second] =
      OnTwoHalves(options_.helpers, std::span<const std::string>(texts),
                  [&](std::span<const std::string> part) {
        return embedder_->Embed(part, EmbedKind::kDocument);
      });
  SKALD_RETURN_IF_ERROR(first.status());
  SKALD_RETURN_IF_ERROR(second.status());
  std::vector<std::vector<float>> out = std::move(*first);
  for (std::vector<float>& v : *second) out.push_back(std::move(v));
  return out;
}

Status SemanticIndexer::CheckStop() const {
  if (options_.stop != nullptr && options_.stop->load()) {
    return Status::Unavailable("indexing interrupted by shutdown; the job runs again later");
  }
  return Status::Ok();
}

Status SemanticIndexer::WriteCurrentRecords(
    std::string_view account, std::vector<Record>* records,
    std::vector<std::pair<std::string, std::string>>* sources, std::vector<bool>* keep_tags,
    IndexStats* stats) {
  if (records->empty()) return Status::Ok();
  // Under exact locks on the nodes (writes and deletes of them wait), keep
  // only records whose node is still what was summarized.
  std::vector<PathLockRequest> requests;
  std::set<std::string> seen;
  for (const auto& [path, hash] : *sources) {
    if (seen.insert(path).second) requests.push_back({std::string(account), path, PathLockKind::kExact});
  }
  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(
      locks_->Acquire(requests, std::chrono::milliseconds(options_.lock_timeout_ms), &guard));
  std::vector<Record> current;
  std::vector<bool> keep;                     // per record of `current`
  std::vector<const FileBodies::Body*> lent;  // per record of `current`: its file's lent bytes
  for (size_t i = 0; i < records->size(); ++i) {
    const auto& [path, hash] = (*sources)[i];
    SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node, catalog_->Get(account, path));
    bool is_file = !hash.empty();
    bool valid = node && node->is_dir != is_file && (!is_file || node->hash == hash);
    if (valid) {
      const FileBodies::Body* body =
          is_file && options_.file_bodies ? options_.file_bodies->Find(account, path) : nullptr;
      lent.push_back(body != nullptr && body->sha256_hex == hash ? body : nullptr);
      current.push_back(std::move((*records)[i]));
      keep.push_back((*keep_tags)[i]);
    } else {
      ++stats->records_stale;
    }
  }
  records->clear();
  sources->clear();
  keep_tags->clear();
  if (current.empty()) return Status::Ok();
  stats->records_written += current.size();
  SKALD_RETURN_IF_ERROR(catalog_->UpsertRecords(account, &current, keep));
  // Before the catch-up is told: the text of each file record written from
  // lent bytes is taken from them, not read back.
  for (size_t i = 0; i < current.size(); ++i) {
    if (lent[i] != nullptr && current[i].level == 2) {
      options_.file_bodies->NoteRecord(current[i].seq, lent[i]);
    }
  }
  if (options_.records_written) options_.records_written();
  return Status::Ok();
}

}  // namespace skald
