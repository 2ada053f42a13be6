// Upkeep: hourly maintenance, fsck, and the index jobs for repaired nodes.

#include "service/upkeep.h"

#include <spdlog/spdlog.h>

#include "common/env.h"
#include "ingest/ingest_jobs.h"

namespace skald {

bool MaintenanceSchedule::Claim(int64_t now_ns, bool jobs_running) {
  int64_t last = last_run_ns_.load();
  if (last != kNever && now_ns - last < kEveryNs) return false;
  if (jobs_running) {
    // A put-off time from before the last run belongs to that run (a
    // caller that raced with its claim): this run is put off afresh.
    int64_t since = put_off_since_ns_.load();
    if (since == kNever || (last != kNever && since <= last)) {
      put_off_since_ns_.compare_exchange_strong(since, now_ns);
      return false;
    }
    if (now_ns - since < kEveryNs) return false;
  }
  if (!last_run_ns_.compare_exchange_strong(last, now_ns)) return false;  // another caller
  put_off_since_ns_.store(kNever);
  return true;
}

void Upkeep::MaybeRunMaintenance(bool jobs_running) {
  if (!schedule_.Claim(EnvOrDefault(options_.env)->NowNanos(), jobs_running)) return;
  std::shared_lock<std::shared_mutex> running(maintenance_mu_);
  Status st = RunMaintenance();
  if (!st.ok()) spdlog::warn("maintenance: {}", st.ToString());
}

Status Upkeep::RunMaintenance() {
  constexpr int64_t kDayNs = int64_t{24} * 3600 * 1'000'000'000;
  Env* env = EnvOrDefault(options_.env);
  const int64_t now = env->NowNanos();
  // Uploads never imported expire after a day (TempUpload's contract).
  const std::string uploads = options_.workspace + "/temp/upload";
  if (Result<std::vector<std::string>> names = env->ListDir(uploads); names.ok()) {
    for (const std::string& name : *names) {
      Result<FileInfo> info = env->Stat(uploads + "/" + name);
      if (!info.ok()) continue;
      // An upload claimed by an import lives as long as its task may retry.
      bool claimed = name.size() > 8 && name.substr(name.size() - 8) == ".claimed";
      if (now - info->mtime_ns > (claimed ? 7 : 1) * kDayNs) {
        Status removed = env->RemoveFile(uploads + "/" + name);
        (void)removed;  // retried at the next upkeep
      }
    }
  }
  SKALD_ASSIGN_OR_RETURN(uint64_t old_jobs, catalog_->PurgeFinishedJobs(now - 7 * kDayNs));
  // Tombstones can go once every index has applied them and saved that:
  // read the applied sequence first, then save (the saved files reflect at
  // least that much even if a catch-up runs in between).
  int64_t applied = lexical_->applied_seq();
  if (vectors_) applied = std::min(applied, vectors_->MinAppliedSeq());
  if (vectors_) SKALD_RETURN_IF_ERROR(vectors_->SaveAll());
  SKALD_ASSIGN_OR_RETURN(uint64_t tombstones, catalog_->PurgeTombstones(applied));
  if (old_jobs + tombstones > 0) {
    spdlog::info("maintenance: {} finished jobs and {} tombstones purged", old_jobs, tombstones);
  }
  return Status::Ok();
}

Status Upkeep::IndexRepairedNodes(const std::vector<ReconcileIssue>& issues) {
  if (!indexing_) return Status::Ok();
  // Adopted content gets records; a dropped path's records went with its
  // node, and the job refreshes the summaries above it.
  for (const ReconcileIssue& issue : issues) {
    if (!issue.repaired) continue;
    Identity who{issue.account, "", Role::kRoot};  // system work
    if (std::optional<JobSpec> job =
            IndexJobFor(who, issue.path, JobKind::kIndex, kJobPriorityInteractive)) {
      SKALD_ASSIGN_OR_RETURN(Job queued, jobs_->Enqueue(*job));
      (void)queued;
    }
  }
  return Status::Ok();
}

Result<FsckReport> Upkeep::Fsck(bool repair) {
  std::unique_lock<std::shared_mutex> no_jobs(maintenance_mu_);
  ReconcileOptions check;
  check.repair = repair;
  check.verify_hashes = true;
  SKALD_ASSIGN_OR_RETURN(ReconcileReport report, Reconcile(*content_, *catalog_, check));
  no_jobs.unlock();
  if (repair) SKALD_RETURN_IF_ERROR(IndexRepairedNodes(report.issues));
  FsckReport out;
  out.nodes_checked = report.nodes_checked;
  for (ReconcileIssue& issue : report.issues) {
    std::string uri = "viking://" + issue.path;
    out.issues.push_back(FsckIssue{std::move(issue.kind), std::move(issue.account),
                                   std::move(uri), std::move(issue.detail), issue.repaired});
  }
  return out;
}

}  // namespace skald
