// The add_resource job: import the source into content, then summarize and
// embed it.

#include "ingest/import_job.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <thread>

#include "common/hash.h"
#include "common/thread_name.h"
#include "index/vector_index_set.h"
#include "ingest/file_bodies.h"
#include "ingest/index_catch_up.h"
#include "ingest/ingest_jobs.h"
#include "ingest/semantic_indexer.h"
#include "ingest/source_import.h"
#include "ingest/source_stage.h"
#include "ingest/stage_timings.h"
#include "uri/uri_path.h"
#include "uri/viking_uri.h"

namespace skald {
namespace {

namespace fs = std::filesystem;

// Files written per catalog transaction while importing.
constexpr size_t kImportCommitEvery = 1024;

// parse_mode "no_split": section limits above any file's size.
constexpr int kNoSplitLimit = 1 << 29;

}  // namespace

Status RunImportJob(const IngestServices& services, JobContext& context) {
  const Job& job = context.job();
  auto lock_paths = [&](const std::vector<PathLockRequest>& requests, PathLockGuard* guard) {
    return services.locks->Acquire(requests, std::chrono::milliseconds(services.lock_timeout_ms),
                                   guard);
  };
  nlohmann::json payload = nlohmann::json::parse(job.payload, nullptr, false);
  if (!payload.is_object()) return Status::InvalidArgument("add_resource payload is not JSON");
  auto strings = [&](const char* key) {
    return payload.contains(key) ? StringsOf(payload[key]) : std::vector<std::string>();
  };
  const std::string source_path = payload.value("source_path", "");
  const std::string root_path = payload.value("path", "");
  const std::string temp_file_id = payload.value("temp_file_id", "");
  // The job was authorized when it was queued; it runs as the system.
  Identity who{job.account, job.user, Role::kRoot};
  SKALD_ASSIGN_OR_RETURN(VikingUri root, VikingUri::Parse("viking://" + root_path));

  JobProgress stage = context.Progress();
  StageTimings timings;
  const auto job_start = std::chrono::steady_clock::now();

  ImportOptions import_options;
  import_options.include = strings("include");
  import_options.exclude = strings("exclude");
  import_options.ignore_dirs = strings("ignore_dirs");
  import_options.helpers = services.helpers;
  if (payload.value("parse_mode", "default") == "no_split") {
    // Limits no Markdown file reaches (files are capped at max_file_bytes):
    // every document stays one file.
    import_options.split.max_section_tokens = kNoSplitLimit;
    import_options.split.max_section_chars = kNoSplitLimit;
    import_options.split.min_section_tokens = 0;
  }
  const std::string url = payload.value("url", "");
  StageOptions stage_options;
  if (!services.staging_root.empty()) {
    stage_options.staging_dir = fmt::format("{}/job_{}", services.staging_root, job.id);
  }
  stage_options.fetch.allow_private_networks = services.allow_private_networks;
  stage_options.archive = import_options.archive;
  // The staging directory (a download) goes when the job ends, whatever
  // the outcome (the plan holds the contents). Archives are read into
  // memory, never expanded to disk: their copy cost the tree write up to
  // 0.6 s of a 4 s import (the durability barriers flushed it too).
  RemoveStaging(stage_options.staging_dir);  // left by an interrupted attempt
  struct StagingRemover {
    const std::string& dir;
    ~StagingRemover() { RemoveStaging(dir); }
  } remove_staging_at_end{stage_options.staging_dir};
  Result<ImportPlan> planned = [&]() -> Result<ImportPlan> {
    if (!url.empty()) {
      if (stage_options.staging_dir.empty()) {
        return Status::FailedPrecondition("this database has no staging area for URLs");
      }
      stage("fetching");
    } else if (IsArchiveName(payload.value("display_name", ""))) {
      stage("reading the archive");
    }
    SKALD_ASSIGN_OR_RETURN(
        StagedSource staged,
        StageSource(url, source_path, payload.value("display_name", ""), stage_options));
    stage("parsing");
    StageTimings::Scope timed(&timings, "parse_split");
    return PlanStaged(std::move(staged), import_options);
  }();
  SKALD_ASSIGN_OR_RETURN(ImportPlan plan, std::move(planned));
  // File mode (`to` naming a document): a document that stays one file is
  // written as `file_name` in the root, and nothing else there is touched;
  // one that the splitter made a directory of becomes that directory.
  const std::string file_name = payload.value("file_name", "");
  const bool file_mode = !file_name.empty() && plan.files.size() == 1 && plan.dirs.empty();
  if (file_mode) {
    plan.files[0].path = file_name;
  } else if (!file_name.empty()) {
    root = root.Child(file_name);
  }
  const std::string file_path = file_mode ? fmt::format("{}/{}", root.path(), file_name) : "";
  // A bulk load: the vectors it adds are linked into the graph after it
  // (they are searched exactly meanwhile), so the import keeps both cores
  // (DbOptions::link_after_imports).
  VectorIndexSet::LinkHold hold_links;
  if (services.vectors && services.link_after_imports && plan.files.size() > 1) {
    hold_links = services.vectors->HoldLinks();
  }

  // Write the tree: directories, then files in batches of one content
  // write (one durability barrier) and one catalog transaction each; files
  // whose bytes are unchanged are not rewritten. A source added again into
  // its root (`to`) is synced: what it no longer holds is removed.
  uint64_t written = 0;
  uint64_t unchanged = 0;
  // The plan's bytes, lent to the indexing below (it need not read back
  // what was just written).
  FileBodies bodies(who.account);
  uint64_t removed = 0;
  TreeChanges synced;
  // The indexes take the records up as they are written, beside the
  // summaries and embeddings still to come.
  IndexCatchUp::Follower follower(services.indexes, &timings, &bodies);
  SemanticIndexerOptions indexer_options;
  indexer_options.max_input_tokens = services.embedding_max_input_tokens;
  indexer_options.lock_timeout_ms = services.lock_timeout_ms;
  indexer_options.tags = NormalizeTagsLeniently(strings("tags"));
  indexer_options.tag_mode =
      TagModeOfPayload(payload);
  indexer_options.stop = context.stop_flag();
  indexer_options.model_summarizer = services.model_summarizer;
  indexer_options.timings = &timings;
  indexer_options.records_written = [&follower] { follower.Notify(); };
  indexer_options.file_bodies = &bodies;
  indexer_options.helpers = services.helpers;
  SemanticIndexer indexer(services.content, services.catalog, services.locks, services.embedder,
                          services.summarizer, indexer_options);
  // While the tree is written (file creation and durability barriers, which
  // leave a core idle), a thread summarizes and embeds ahead the files to be
  // indexed (SemanticIndexer::PrepareFiles). Stopped and joined before the
  // indexer runs, and on every way out.
  std::vector<std::string> to_prepare;
  std::atomic<bool> stop_preparing{false};
  std::thread preparer;
  struct PreparerJoiner {
    std::atomic<bool>& stop;
    std::thread& thread;
    ~PreparerJoiner() {
      stop.store(true);
      if (thread.joinable()) thread.join();
    }
  } join_preparer{stop_preparing, preparer};
  {
    PathLockGuard guard;
    SKALD_RETURN_IF_ERROR(lock_paths(
        {{who.account, file_mode ? file_path : std::string(root.path()), PathLockKind::kTree}},
        &guard));
    SKALD_RETURN_IF_ERROR(services.nodes->EnsureDirectories(who, root, /*include_self=*/true));
    StageTimings::Scope listed(&timings, "catalog_write");
    std::map<std::string, CatalogNode, std::less<>> before;
    if (file_mode) {
      SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> there,
                             services.catalog->Get(who.account, file_path));
      if (there) before.emplace(file_path, std::move(*there));
    } else {
      SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> nodes,
                             services.catalog->ListSubtree(who.account, root.path(), 0));
      for (CatalogNode& n : nodes) before.emplace(n.path, std::move(n));
    }
    listed.Stop();
    // The source's directories: one content barrier and one catalog
    // transaction for all of them.
    StageTimings::Scope make_dirs(&timings, "make_dirs");
    std::vector<VikingUri> new_dirs;
    for (const std::string& dir : plan.dirs) {
      std::string path = fmt::format("{}/{}", root.path(), dir);
      if (auto it = before.find(path); it != before.end() && it->second.is_dir) continue;
      SKALD_ASSIGN_OR_RETURN(VikingUri d, VikingUri::Parse("viking://" + path));
      new_dirs.push_back(std::move(d));
      synced.dirs.push_back(std::move(path));
    }
    SKALD_RETURN_IF_ERROR(services.nodes->EnsureDirectories(who, new_dirs));
    make_dirs.Stop();
    std::vector<ContentStore::FileWrite> batch;
    std::vector<std::pair<const CatalogNode*, std::string>> batch_meta;  // existing, hash
    auto write_batch = [&]() -> Status {
      if (batch.empty()) return Status::Ok();
      StageTimings::Scope content_write(&timings, "content_write");
      SKALD_ASSIGN_OR_RETURN(std::vector<ContentAttr> attrs,
                             WriteFilesOnTwoThreads(services.content, who.account, batch,
                                                    services.helpers));
      content_write.Stop();
      StageTimings::Scope catalog_write(&timings, "catalog_write");
      std::vector<CatalogNode> nodes;
      for (size_t j = 0; j < batch.size(); ++j) {
        CatalogNode node;
        node.path = std::string(batch[j].path);
        node.size = batch[j].data.size();
        node.mtime_ns = attrs[j].mtime_ns;
        const CatalogNode* existing = batch_meta[j].first;
        node.ctime_ns = existing ? existing->ctime_ns : attrs[j].mtime_ns;
        node.hash = std::move(batch_meta[j].second);
        synced.files.push_back(node.path);
        nodes.push_back(std::move(node));
      }
      written += nodes.size();
      SKALD_RETURN_IF_ERROR(services.catalog->Apply(who.account, nodes, {}));
      batch.clear();
      batch_meta.clear();
      return Status::Ok();
    };
    // What to write: files whose bytes differ from what is there.
    std::vector<std::string> paths(plan.files.size());
    std::vector<std::string> hashes(plan.files.size());
    std::vector<size_t> to_write;  // indexes in plan.files
    for (size_t i = 0; i < plan.files.size(); ++i) {
      if (context.stopping()) {
        return Status::Unavailable("import interrupted by shutdown; it runs again later");
      }
      const ImportFile& file = plan.files[i];
      paths[i] = fmt::format("{}/{}", root.path(), file.path);
      const std::string& path = paths[i];
      auto it = before.find(path);
      const CatalogNode* existing = it == before.end() ? nullptr : &it->second;
      hashes[i] = file.sha256_hex.empty() ? Sha256Hex(file.content) : file.sha256_hex;
      bodies.Add(path, file.content, hashes[i]);
      if (existing && !existing->is_dir && existing->hash == hashes[i]) {
        ++unchanged;
        synced.unchanged_files.push_back(path);
        continue;
      }
      if (existing && existing->is_dir) {
        return Status::FailedPrecondition(
            fmt::format("viking://{} is a directory, cannot write a file there", path));
      }
      to_write.push_back(i);
      to_prepare.push_back(path);
    }
    if (!to_prepare.empty() && indexer.PreparesAhead()) {
      preparer = std::thread(
          [&] {
            NameThisThread("skald-prepare");
            indexer.PrepareFiles(who.account, to_prepare, stop_preparing);
          });
    }
    for (size_t n = 0; n < to_write.size(); ++n) {
      if (context.stopping()) {
        return Status::Unavailable("import interrupted by shutdown; it runs again later");
      }
      const size_t i = to_write[n];
      auto it = before.find(paths[i]);
      batch.push_back({paths[i], plan.files[i].content});
      batch_meta.emplace_back(it == before.end() ? nullptr : &it->second, std::move(hashes[i]));
      if (batch.size() >= kImportCommitEvery) {
        SKALD_RETURN_IF_ERROR(write_batch());
        stage(fmt::format("writing files {}/{}", n + 1, to_write.size()));
      }
    }
    SKALD_RETURN_IF_ERROR(write_batch());
    // What the source no longer holds (only when adding into an existing
    // root): removed, content first (a crash in between leaves rows without
    // content, which recovery drops), then the nodes and their records.
    std::set<std::string, std::less<>> kept(paths.begin(), paths.end());
    for (const std::string& dir : plan.dirs) kept.insert(fmt::format("{}/{}", root.path(), dir));
    std::vector<std::string> gone;  // (file mode: `before` holds the file at most)
    for (const auto& [path, node] : before) {
      if (kept.count(path) || PathHasHiddenSegment(path)) continue;
      if (!gone.empty() && path.size() > gone.back().size() &&
          path.compare(0, gone.back().size(), gone.back()) == 0 &&
          path[gone.back().size()] == '/') {
        continue;  // below a removed directory
      }
      gone.push_back(path);
    }
    if (!gone.empty()) {
      StageTimings::Scope removing(&timings, "content_write");
      for (const std::string& path : gone) {
        if (Status st = services.content->Remove(who.account, path); !st.ok()) {
          return services.nodes->NoteContentFailure(std::move(st));
        }
      }
      SKALD_RETURN_IF_ERROR(services.catalog->Apply(who.account, {}, gone));
      removed = gone.size();
      synced.removed = std::move(gone);
    }
  }
  // The files are there to read (an add-resource that does not wait for
  // the task returns now, as OpenViking's writes the tree inline); the
  // summaries and embeddings follow.
  context.NotePlaced();
  // Everything the tree write left for indexing was prepared (or is no
  // longer being prepared) before the indexer reads it.
  stop_preparing.store(true);
  if (preparer.joinable()) preparer.join();
  SKALD_ASSIGN_OR_RETURN(IndexStats stats,
                         indexer.IndexChanges(who.account, root.path(), synced, stage));
  // The last labels are written even while the catalog's writer is busy
  // (the progress callback would leave them out): no label follows them.
  auto last_stage = [&](std::string_view label) {
    if (Status st = context.SetStage(label); !st.ok()) {
      spdlog::warn("job progress: {}", st.ToString());
    }
  };
  last_stage("updating indexes");
  {
    // What is left to index once the last records are written (the
    // catch-ups before it are counted in vector_index and lexical_index).
    StageTimings::Scope final_catch_up(&timings, "index_final");
    SKALD_RETURN_IF_ERROR(follower.Finish());
  }
  if (services.vectors) {
    // An index whose new records still wait for the background linker is
    // saved by it once they are linked (VectorIndexSet).
    StageTimings::Scope flush(&timings, "index_flush");
    SKALD_RETURN_IF_ERROR(services.vectors->SaveLinked());
  }
  nlohmann::json timings_ms = nlohmann::json::object();
  for (const auto& [name, ms] : timings.Milliseconds()) timings_ms[name] = std::round(ms);
  timings_ms["total"] = std::round(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - job_start)
          .count());

  nlohmann::json summary = {{"root_uri", file_mode ? UriOfPath(file_path) : root.str()},
                            {"files_written", written},
                            {"files_unchanged", unchanged},
                            {"files_removed", removed},
                            {"files", stats.files},
                            {"directories", stats.directories},
                            {"records_written", stats.records_written},
                            {"records_unchanged", stats.records_unchanged},
                            {"texts_embedded", stats.texts_embedded},
                            {"cache_hits", stats.cache_hits},
                            {"source_bytes", plan.source_bytes},
                            {"warnings", plan.warnings},
                            {"timings_ms", timings_ms}};
  last_stage("done");
  SKALD_RETURN_IF_ERROR(context.Complete(summary.dump()));
  // Only now that the task is complete (it never runs again) is the upload
  // no longer needed.
  if (!temp_file_id.empty()) {
    std::error_code ec;
    fs::path dir = fs::path(source_path).parent_path();
    fs::remove(source_path, ec);
    fs::remove(dir / (temp_file_id + std::string(kUploadMetaSuffix)), ec);
  }
  return Status::Ok();
}

}  // namespace skald
