#include "storage/tree_swap.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/file_util.h"
#include "common/json_util.h"
#include "uri/uri_path.h"

namespace skald {
namespace {

// The staging areas' names: kTempNamePrefix + this + a random suffix.
constexpr std::string_view kSwapInfix = "swap-";
constexpr std::string_view kPlanName = "plan.json";
constexpr int kPlanVersion = 1;

bool Exists(ContentStore& content, std::string_view account, std::string_view path, Status* error) {
  Result<ContentAttr> attr = content.Stat(account, path);
  if (attr.ok()) return true;
  if (attr.status().code() != StatusCode::kNotFound) *error = attr.status();
  return false;
}

Json JobToJson(const JobSpec& job) {
  Json j = {{"kind", std::string(JobKindName(job.kind))},
            {"account", job.account},
            {"user", job.user},
            {"resource_id", job.resource_id},
            {"payload", job.payload},
            {"priority", job.priority},
            {"max_attempts", job.max_attempts}};
  // (Named jobs are queued once: recovery finds them queued already.)
  if (!job.task_id.empty()) j["task_id"] = job.task_id;
  return j;
}

std::optional<JobSpec> JobOfJson(const Json& j) {
  if (!j.is_object()) return std::nullopt;
  for (const char* key : {"kind", "account", "user", "resource_id", "payload"}) {
    if (!j.contains(key) || !j[key].is_string()) return std::nullopt;
  }
  for (const char* key : {"priority", "max_attempts"}) {
    if (!j.contains(key) || !j[key].is_number_integer()) return std::nullopt;
  }
  std::optional<JobKind> kind = ParseJobKind(j["kind"].get<std::string>());
  if (!kind) return std::nullopt;
  JobSpec job;
  job.kind = *kind;
  job.account = j["account"].get<std::string>();
  job.user = j["user"].get<std::string>();
  job.resource_id = j["resource_id"].get<std::string>();
  job.payload = j["payload"].get<std::string>();
  job.priority = j["priority"].get<int>();
  job.max_attempts = std::max(1, j["max_attempts"].get<int>());
  if (j.contains("task_id")) {
    if (!j["task_id"].is_string()) return std::nullopt;
    job.task_id = j["task_id"].get<std::string>();
  }
  return job;
}

}  // namespace

Result<std::unique_ptr<TreeSwap>> TreeSwap::Begin(ContentStore* content, std::string account) {
  std::string root = fmt::format("{}{}{}", kTempNamePrefix, kSwapInfix, RandomFileSuffix());
  const std::vector<std::string> dirs = {root, root + "/new", root + "/old"};
  SKALD_RETURN_IF_ERROR(content->MakeDirs(account, dirs));
  return std::unique_ptr<TreeSwap>(new TreeSwap(content, std::move(account), std::move(root)));
}

TreeSwap::~TreeSwap() {
  if (finished_ || committed_) return;  // a committed swap is recovery's to finish
  if (Status removed = content_->Remove(account_, root_); !removed.ok()) {
    spdlog::warn("could not remove an abandoned staging area: {}", removed.ToString());
  }
}

size_t TreeSwap::AddTarget(std::string path, bool staged) {
  targets_.push_back(Target{std::move(path), staged});
  return targets_.size() - 1;
}

std::string TreeSwap::StagedPath(size_t target, std::string_view rel) const {
  if (rel.empty()) return fmt::format("{}/new/{}", root_, target);
  return fmt::format("{}/new/{}/{}", root_, target, rel);
}

Status TreeSwap::Commit(const std::vector<JobSpec>& jobs) {
  Json plan = {{"version", kPlanVersion}, {"targets", Json::array()}, {"jobs", Json::array()}};
  for (const Target& t : targets_) {
    plan["targets"].push_back({{"path", t.path}, {"staged", t.staged}});
  }
  for (const JobSpec& job : jobs) plan["jobs"].push_back(JobToJson(job));
  SKALD_ASSIGN_OR_RETURN(
      ContentAttr written,
      content_->WriteFile(account_, root_ + "/" + std::string(kPlanName), DumpJson(plan)));
  (void)written;
  jobs_ = jobs;
  committed_ = true;
  return Status::Ok();
}

Status TreeSwap::EnsureParents(std::string_view path) {
  std::vector<std::string> missing;
  for (std::string_view p = ParentPath(path); !p.empty(); p = ParentPath(p)) {
    Status error;
    if (Exists(*content_, account_, p, &error)) break;
    SKALD_RETURN_IF_ERROR(error);
    missing.emplace(missing.begin(), p);
  }
  if (missing.empty()) return Status::Ok();
  return content_->MakeDirs(account_, missing);
}

Status TreeSwap::Apply() {
  for (size_t i = 0; i < targets_.size(); ++i) {
    const Target& t = targets_[i];
    const std::string staged = StagedPath(i, "");
    const std::string old = fmt::format("{}/old/{}", root_, i);
    Status error;
    // Done: the staged tree went into place.
    const bool staged_waits = t.staged && Exists(*content_, account_, staged, &error);
    SKALD_RETURN_IF_ERROR(error);
    if (t.staged && !staged_waits) continue;
    const bool there = Exists(*content_, account_, t.path, &error);
    SKALD_RETURN_IF_ERROR(error);
    const bool set_aside = Exists(*content_, account_, old, &error);
    SKALD_RETURN_IF_ERROR(error);
    if (there && set_aside) {
      // Something arrived after the old tree was set aside: nothing can
      // under the caller's locks or in recovery, and nothing is removed.
      spdlog::warn("tree swap: {} changed during the swap; left as it is", t.path);
      continue;
    }
    if (there) SKALD_RETURN_IF_ERROR(content_->Rename(account_, t.path, old));
    if (t.staged) {
      SKALD_RETURN_IF_ERROR(EnsureParents(t.path));
      SKALD_RETURN_IF_ERROR(content_->Rename(account_, staged, t.path));
    }
  }
  return Status::Ok();
}

Status TreeSwap::RollBack() {
  for (size_t n = targets_.size(); n > 0; --n) {
    const size_t i = n - 1;
    const Target& t = targets_[i];
    const std::string staged = StagedPath(i, "");
    const std::string old = fmt::format("{}/old/{}", root_, i);
    Status error;
    const bool set_aside = Exists(*content_, account_, old, &error);
    SKALD_RETURN_IF_ERROR(error);
    const bool staged_waits = t.staged && Exists(*content_, account_, staged, &error);
    SKALD_RETURN_IF_ERROR(error);
    const bool there = Exists(*content_, account_, t.path, &error);
    SKALD_RETURN_IF_ERROR(error);
    // The new tree (in place when it is no longer staged) back out.
    if (t.staged && !staged_waits && there) {
      SKALD_RETURN_IF_ERROR(content_->Rename(account_, t.path, staged));
    }
    if (set_aside) SKALD_RETURN_IF_ERROR(content_->Rename(account_, old, t.path));
  }
  SKALD_RETURN_IF_ERROR(content_->Remove(account_, root_ + "/" + std::string(kPlanName)));
  committed_ = false;
  return Status::Ok();
}

Status TreeSwap::Finish() {
  Status removed = content_->Remove(account_, root_);
  if (!removed.ok()) {
    // Without its plan the rest is a leftover like any other.
    Status plan_removed = content_->Remove(account_, root_ + "/" + std::string(kPlanName));
    if (!plan_removed.ok()) return removed;
    spdlog::warn("a pack import's staging area stays until the next recovery: {}",
                 removed.ToString());
  }
  finished_ = true;
  return Status::Ok();
}

Result<std::vector<RecoveredSwap>> RecoverTreeSwaps(ContentStore& content) {
  std::vector<RecoveredSwap> recovered;
  const std::string prefix = fmt::format("{}{}", kTempNamePrefix, kSwapInfix);
  SKALD_ASSIGN_OR_RETURN(std::vector<std::string> accounts, content.ListAccounts());
  for (const std::string& account : accounts) {
    SKALD_ASSIGN_OR_RETURN(std::vector<std::string> names, content.ListStoredNames(account, ""));
    for (const std::string& name : names) {
      if (!name.starts_with(prefix)) continue;
      TreeSwap swap(&content, account, name);
      Result<std::string> plan_text =
          content.ReadFile(account, name + "/" + std::string(kPlanName));
      if (!plan_text.ok() && plan_text.status().code() != StatusCode::kNotFound) {
        return plan_text.status();
      }
      if (!plan_text.ok()) {
        // Never committed: the old trees stand; the destructor drops it.
        spdlog::warn("discarding an uncommitted tree swap in account {}", account);
        continue;
      }
      const Status unreadable = Status::Internal(fmt::format(
          "the plan of an interrupted tree swap ({}) in account {} is unreadable", name, account));
      Result<Json> plan = ParseJson(*plan_text);
      if (!plan.ok() || !plan->is_object() || !plan->contains("targets") ||
          !(*plan)["targets"].is_array() || !plan->contains("version") ||
          (*plan)["version"] != kPlanVersion) {
        return unreadable;
      }
      RecoveredSwap done;
      done.account = account;
      for (const Json& t : (*plan)["targets"]) {
        if (!t.is_object() || !t.contains("path") || !t["path"].is_string() ||
            !t.contains("staged") || !t["staged"].is_boolean()) {
          return unreadable;
        }
        swap.AddTarget(t["path"].get<std::string>(), t["staged"].get<bool>());
        done.targets.push_back(t["path"].get<std::string>());
      }
      if (plan->contains("jobs") && (*plan)["jobs"].is_array()) {
        for (const Json& j : (*plan)["jobs"]) {
          // A job that does not read back is left out (the trees still go
          // in place; reconcile's own jobs index them), never a failed open.
          std::optional<JobSpec> job = JobOfJson(j);
          if (!job) {
            spdlog::warn("tree swap {}: a job of its plan is unreadable; skipped", name);
            done.jobs_complete = false;
            continue;
          }
          done.jobs.push_back(std::move(*job));
        }
      }
      swap.committed_ = true;
      spdlog::warn("finishing an interrupted tree swap of {} targets in account {}",
                   swap.targets_.size(), account);
      if (Status applied = swap.Apply(); !applied.ok()) {
        return Status(applied.code(), fmt::format("finishing the interrupted tree swap {} in "
                                                  "account {}: {}",
                                                  name, account, applied.message()));
      }
      SKALD_RETURN_IF_ERROR(swap.Finish());
      recovered.push_back(std::move(done));
    }
  }
  return recovered;
}

}  // namespace skald
