// The admin_reindex job: re-embed, re-summarize or prune the records of one
// tree.

#include "ingest/reindex_job.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/tags.h"
#include "index/vector_index_set.h"
#include "ingest/index_catch_up.h"
#include "ingest/ingest_jobs.h"
#include "ingest/semantic_indexer.h"
#include "uri/uri_path.h"

namespace skald {
namespace {

constexpr std::string_view kScheme = "viking://";

// A record's node is gone, or lies where nothing is ever indexed.
bool Orphan(const Record& record, const std::optional<CatalogNode>& node) {
  std::string_view path = std::string_view(record.uri).substr(kScheme.size());
  return !node || NamespaceRootDepth(path) == 0 || PathHasHiddenSegment(path);
}

}  // namespace

Status RunAdminReindexJob(const IngestServices& services, JobContext& context) {
  const Job& job = context.job();
  nlohmann::json payload = nlohmann::json::parse(job.payload, nullptr, false);
  if (!payload.is_object()) return Status::InvalidArgument("admin_reindex payload is not JSON");
  const std::string path = payload.value("path", "");
  const std::string mode = payload.value("mode", std::string(kReindexVectorsOnly));
  const bool dry_run = payload.value("dry_run", false);
  const bool recursive = payload.value("recursive", true);
  if (mode != kReindexVectorsOnly && mode != kReindexSemanticAndVectors &&
      mode != kReindexPruneOrphans) {
    return Status::InvalidArgument(fmt::format("unknown reindex mode: {}", mode));
  }
  const std::string uri = UriOfPath(path);
  JobProgress stage = context.Progress();

  // The records of the tree (or of the node alone).
  auto in_tree = [&](const Record& r) {
    return r.uri == uri || (recursive && r.uri.size() > uri.size() &&
                            r.uri.compare(0, uri.size(), uri) == 0 && r.uri[uri.size()] == '/');
  };
  stage("scanning records");
  std::vector<Record> records;
  SKALD_RETURN_IF_ERROR(
      services.catalog->ScanRecords(job.account, /*include_deleted=*/false, [&](const Record& r) {
        if (in_tree(r)) records.push_back(r);
        return Status::Ok();
      }));
  uint64_t scanned = records.size();
  uint64_t rebuilt = 0;
  uint64_t deleted = 0;
  uint64_t would_delete = 0;
  uint64_t unsupported = 0;
  std::vector<std::string> warnings;

  // Orphans: counted in every mode, deleted by prune_orphans.
  std::vector<std::string> orphan_uris;
  std::vector<Record> live;
  for (Record& r : records) {
    if (r.uri.rfind(kScheme, 0) != 0) continue;
    SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node,
                           services.catalog->Get(job.account, r.uri.substr(kScheme.size())));
    if (Orphan(r, node)) {
      ++would_delete;
      if (orphan_uris.empty() || orphan_uris.back() != r.uri) orphan_uris.push_back(r.uri);
    } else {
      live.push_back(std::move(r));
    }
  }

  SemanticIndexerOptions options;
  options.max_input_tokens = services.embedding_max_input_tokens;
  options.lock_timeout_ms = services.lock_timeout_ms;
  options.model_summarizer = services.model_summarizer;
  options.stop = context.stop_flag();
  options.helpers = services.helpers;
  SemanticIndexer indexer(services.content, services.catalog, services.locks, services.embedder,
                          services.summarizer, options);
  if (mode == kReindexPruneOrphans) {
    if (!dry_run) {
      stage("deleting orphan records");
      for (const std::string& orphan : orphan_uris) {
        SKALD_ASSIGN_OR_RETURN(uint64_t n,
                               services.catalog->DeleteRecordsUnder(job.account, orphan));
        deleted += n;
      }
    }
  } else if (!dry_run) {
    if (would_delete > 0) {
      warnings.push_back(fmt::format(
          "{} records have no content any more; prune_orphans deletes them", would_delete));
    }
    if (mode == kReindexVectorsOnly) {
      stage("embedding");
      size_t count = live.size();
      SKALD_ASSIGN_OR_RETURN(IndexStats stats,
                             indexer.Reembed(job.account, std::move(live), stage));
      unsupported = stats.skipped_files;
      rebuilt = count - stats.skipped_files;
    } else {
      stage("summarizing");
      SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node,
                             services.catalog->Get(job.account, path));
      if (!node) return Status::NotFound(fmt::format("{} no longer exists", uri));
      IndexStats stats;
      if (recursive || !node->is_dir) {
        SKALD_ASSIGN_OR_RETURN(stats, indexer.IndexTree(job.account, path, stage));
      } else {
        // The directory's own summaries (and its ancestors'), its entries as they are.
        SKALD_ASSIGN_OR_RETURN(stats, indexer.IndexChanges(job.account, path, {}, stage));
      }
      unsupported = stats.skipped_files;
      // The records of the tree now (the ancestors refreshed on the way are not counted).
      SKALD_RETURN_IF_ERROR(services.catalog->ScanRecords(job.account, /*include_deleted=*/false,
                                                          [&](const Record& r) {
                                                            if (in_tree(r)) ++rebuilt;
                                                            return Status::Ok();
                                                          }));
    }
  }
  // Tags the request gave: onto every record of the tree, now rebuilt.
  if (!dry_run && mode != kReindexPruneOrphans && payload.contains("tags") &&
      payload["tags"].is_array()) {
    stage("tagging");
    std::vector<Record> now;
    if (recursive) {
      SKALD_ASSIGN_OR_RETURN(now, services.catalog->GetRecordsUnder(job.account, uri));
    } else {
      SKALD_ASSIGN_OR_RETURN(now, services.catalog->GetRecordsByUri(job.account, uri));
    }
    SKALD_ASSIGN_OR_RETURN(uint64_t tagged,
                           RetagRecords(*services.catalog, job.account, now,
                                        StringsOf(payload["tags"]), TagModeOfPayload(payload)));
    (void)tagged;
  }
  if (!dry_run) {
    stage("updating indexes");
    SKALD_RETURN_IF_ERROR(services.indexes->CatchUpIndexes());
    if (services.vectors) SKALD_RETURN_IF_ERROR(services.vectors->SaveLinked());
  }
  nlohmann::json result = {
      {"scanned_records", scanned},
      {"rebuilt_records", rebuilt},
      {"deleted_records", deleted},
      {"would_delete_records", mode == kReindexPruneOrphans ? would_delete : 0},
      {"unsupported_records", unsupported},
      {"failed_records", 0},
      {"warnings", warnings}};
  stage("done");
  return context.Complete(result.dump());
}

}  // namespace skald
