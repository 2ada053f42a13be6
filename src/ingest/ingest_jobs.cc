// The ingest jobs' handlers: index, refresh, reindex (the add_resource
// import is in import_job.cc).

#include "ingest/ingest_jobs.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "ingest/import_job.h"
#include "ingest/index_catch_up.h"
#include "ingest/reindex_job.h"
#include "ingest/semantic_indexer.h"
#include "model/embedder.h"
#include "model/embedder_identity.h"
#include "uri/uri_path.h"

namespace skald {
namespace {

std::string PathOfPayload(const Job& job) {
  nlohmann::json payload = nlohmann::json::parse(job.payload, nullptr, false);
  if (payload.is_object() && payload.contains("path") && payload["path"].is_string()) {
    return payload["path"].get<std::string>();
  }
  return "";
}

Status RunIndexJob(const IngestServices& s, JobContext& context) {
  const Job& job = context.job();
  std::string path = PathOfPayload(job);
  // A content write with tags, or a moved or copied tree carrying its
  // records' tags: an indexer of its own gives them to the records it writes
  // (WithTags, WithCarriedTags).
  nlohmann::json payload = nlohmann::json::parse(job.payload, nullptr, false);
  const bool tagged_write =
      payload.is_object() && payload.contains("tags") && payload["tags"].is_array();
  const bool carries = payload.is_object() && payload.contains("carried_tags") &&
                       payload["carried_tags"].is_object();
  // A pack import's vectors, left for this job (PackOps).
  const std::string packaged =
      payload.is_object() && payload.contains("packaged_vectors") &&
              payload["packaged_vectors"].is_string()
          ? PackVectorsKey(s.embedder->Name(), payload["packaged_vectors"].get<std::string>())
          : std::string();
  if (tagged_write || carries || !packaged.empty()) {
    SemanticIndexerOptions options = s.indexer->options();
    if (tagged_write) {
      options.tags = NormalizeTagsLeniently(StringsOf(payload["tags"]));
      options.tags_given = true;
      options.tag_mode = TagModeOfPayload(payload);
    }
    if (carries) {
      for (const auto& [uri, tags] : payload["carried_tags"].items()) {
        if (tags.is_array()) options.carried_tags[uri] = NormalizeTagsLeniently(StringsOf(tags));
      }
    }
    options.packaged_vectors = packaged;
    SemanticIndexer tagged(s.content, s.catalog, s.locks, s.embedder, s.summarizer,
                           std::move(options));
    SKALD_ASSIGN_OR_RETURN(IndexStats stats,
                           tagged.IndexTree(job.account, path, context.Progress()));
    (void)stats;
    if (!packaged.empty()) {
      // Used once: the records hold them now.
      SKALD_ASSIGN_OR_RETURN(uint64_t dropped,
                             s.catalog->DeleteEmbeddingCacheOf(job.account, packaged));
      (void)dropped;
    }
    return s.indexes->CatchUpIndexes();
  }
  SKALD_ASSIGN_OR_RETURN(IndexStats stats,
                         s.indexer->IndexTree(job.account, path, context.Progress()));
  (void)stats;
  return s.indexes->CatchUpIndexes();
}

Status RunRefreshJob(const IngestServices& s, JobContext& context) {
  const Job& job = context.job();
  std::string path = PathOfPayload(job);
  SKALD_ASSIGN_OR_RETURN(IndexStats stats, s.indexer->RefreshAncestors(job.account, path));
  (void)stats;
  return s.indexes->CatchUpIndexes();
}

Status RunReindexJob(const IngestServices& s, JobContext& context) {
  // After an embedder change: every indexable tree of every account.
  SKALD_ASSIGN_OR_RETURN(std::vector<std::string> accounts, s.catalog->ListAccounts());
  for (const std::string& account : accounts) {
    for (std::string_view top : {"resources", "agent", "user"}) {
      SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node, s.catalog->Get(account, top));
      if (!node) continue;
      SKALD_RETURN_IF_ERROR(context.SetStage(fmt::format("{}: {}", account, top)));
      SKALD_ASSIGN_OR_RETURN(IndexStats stats,
                             s.indexer->IndexTree(account, top, context.Progress()));
      (void)stats;
    }
  }
  SKALD_RETURN_IF_ERROR(s.indexes->CatchUpIndexes());
  SKALD_ASSIGN_OR_RETURN(uint64_t dropped, s.catalog->PurgeEmbeddingCache(s.embedder->Name()));
  (void)dropped;  // vectors of the old embedder are never used again
  SKALD_RETURN_IF_ERROR(s.catalog->SetMeta(kEmbedderReindexMetaKey, ""));
  return s.indexes->CatchUpIndexes();
}

}  // namespace

void RegisterIngestJobs(const IngestServices& services, JobRunner* runner) {
  runner->RegisterHandler(JobKind::kAddResource, [services](JobContext& context) {
    return RunImportJob(services, context);
  });
  runner->RegisterHandler(
      JobKind::kIndex, [services](JobContext& context) { return RunIndexJob(services, context); });
  // A skill's index task is an index job under OpenViking's task type.
  runner->RegisterHandler(JobKind::kAddSkill, [services](JobContext& context) {
    return RunIndexJob(services, context);
  });
  // A content write's index task: completed with the queues it went
  // through, as OpenViking's content_write task reports them.
  runner->RegisterHandler(JobKind::kContentWrite, [services](JobContext& context) {
    SKALD_RETURN_IF_ERROR(RunIndexJob(services, context));
    return context.Complete(nlohmann::json{{"queue_status", QueueStatusJson(true)}}.dump());
  });
  // A snapshot restore's re-indexing of the tree it wrote back, under
  // OpenViking's task type.
  runner->RegisterHandler(JobKind::kSnapshotRestoreReindex, [services](JobContext& context) {
    return RunIndexJob(services, context);
  });
  runner->RegisterHandler(JobKind::kRefresh, [services](JobContext& context) {
    return RunRefreshJob(services, context);
  });
  runner->RegisterHandler(JobKind::kReindex, [services](JobContext& context) {
    return RunReindexJob(services, context);
  });
  runner->RegisterHandler(JobKind::kAdminReindex, [services](JobContext& context) {
    return RunAdminReindexJob(services, context);
  });
}

nlohmann::json QueueStatusJson(bool completed) {
  const nlohmann::json queue = {{"processed", completed ? 1 : 0},
                                {"requeue_count", 0},
                                {"error_count", 0},
                                {"errors", nlohmann::json::array()}};
  return {{"Semantic", queue}, {"Embedding", queue}};
}

std::optional<JobSpec> IndexJobFor(const Identity& who, std::string_view path, JobKind kind,
                                   int priority) {
  int root = NamespaceRootDepth(path);
  if (root == 0) return std::nullopt;
  JobSpec spec;
  spec.kind = kind;
  spec.account = who.account;
  spec.user = who.user;
  spec.resource_id = fmt::format("viking://{}", path);
  spec.priority = priority;
  spec.max_attempts = kModelJobAttempts;
  spec.payload = nlohmann::json{{"path", path}}.dump();
  return spec;
}

std::vector<std::string> StringsOf(const nlohmann::json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const nlohmann::json& item : list) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

Result<uint64_t> RetagRecords(Catalog& catalog, std::string_view account,
                              const std::vector<Record>& records, std::span<const std::string> tags,
                              TagMode mode) {
  // In transactions of a bounded size: a subtree of a million records does
  // not hold the catalog's writer for the whole of it.
  constexpr size_t kChunk = 2048;
  std::vector<uint64_t> keys;
  uint64_t written = 0;
  for (size_t begin = 0; begin < records.size(); begin += kChunk) {
    keys.clear();
    for (size_t i = begin; i < std::min(records.size(), begin + kChunk); ++i) {
      keys.push_back(records[i].key);
    }
    SKALD_ASSIGN_OR_RETURN(uint64_t n, catalog.ApplyRecordTags(account, keys, tags, mode));
    written += n;
  }
  return written;
}

TagMode TagModeOfPayload(const nlohmann::json& payload) {
  if (!payload.is_object()) return TagMode::kReplace;
  auto it = payload.find("tag_mode");
  return it != payload.end() && it->is_string() && *it == "append" ? TagMode::kAppend
                                                                   : TagMode::kReplace;
}

std::string PackVectorsKey(std::string_view embedder_name, std::string_view batch) {
  return fmt::format("{}#ovpack:{}", embedder_name, batch);
}

JobSpec WithPackagedVectors(JobSpec spec, std::string_view batch) {
  nlohmann::json payload = nlohmann::json::parse(spec.payload, nullptr, false);
  if (!payload.is_object()) payload = nlohmann::json::object();
  payload["packaged_vectors"] = batch;
  spec.payload = payload.dump();
  return spec;
}

Result<uint64_t> DropUnclaimedPackagedVectors(Catalog& catalog) {
  constexpr std::string_view kBatchMark = "#ovpack:";
  SKALD_ASSIGN_OR_RETURN(auto keys, catalog.EmbeddingCacheKeysWith(kBatchMark));
  if (keys.empty()) return uint64_t{0};
  std::set<std::string> claimed;  // batches named by a job still to run or running
  for (JobState state : {JobState::kPending, JobState::kRunning}) {
    JobFilter filter;
    filter.state = state;
    filter.limit = 0;
    SKALD_ASSIGN_OR_RETURN(std::vector<Job> jobs, catalog.ListJobs(filter));
    for (const Job& job : jobs) {
      nlohmann::json payload = nlohmann::json::parse(job.payload, nullptr, false);
      if (payload.is_object() && payload.contains("packaged_vectors") &&
          payload["packaged_vectors"].is_string()) {
        claimed.insert(payload["packaged_vectors"].get<std::string>());
      }
    }
  }
  uint64_t dropped = 0;
  for (const auto& [account, key] : keys) {
    const size_t mark = key.rfind(kBatchMark);
    if (mark != std::string::npos && claimed.count(key.substr(mark + kBatchMark.size()))) continue;
    SKALD_ASSIGN_OR_RETURN(uint64_t n, catalog.DeleteEmbeddingCacheOf(account, key));
    dropped += n;
  }
  return dropped;
}

JobSpec WithCarriedTags(JobSpec spec, const std::map<std::string, std::vector<std::string>>& tags) {
  if (tags.empty()) return spec;
  nlohmann::json payload = nlohmann::json::parse(spec.payload, nullptr, false);
  if (!payload.is_object()) payload = nlohmann::json::object();
  payload["carried_tags"] = tags;
  spec.payload = payload.dump();
  return spec;
}

JobSpec WithTags(JobSpec spec, const std::vector<std::string>& tags, TagMode mode) {
  nlohmann::json payload = nlohmann::json::parse(spec.payload, nullptr, false);
  if (!payload.is_object()) payload = nlohmann::json::object();
  payload["tags"] = tags;
  payload["tag_mode"] = TagModeName(mode);
  spec.payload = payload.dump();
  return spec;
}

}  // namespace skald
