#include "storage/tree_swap.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/file_util.h"
#include "common/json_util.h"

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

Status TreeSwap::Commit() {
  Json plan = {{"version", kPlanVersion}, {"targets", Json::array()}};
  for (const Target& t : targets_) {
    plan["targets"].push_back({{"path", t.path}, {"staged", t.staged}});
  }
  SKALD_ASSIGN_OR_RETURN(
      ContentAttr written,
      content_->WriteFile(account_, root_ + "/" + std::string(kPlanName), DumpJson(plan)));
  (void)written;
  committed_ = true;
  return Status::Ok();
}

Status TreeSwap::Apply() {
  for (size_t i = 0; i < targets_.size(); ++i) {
    const Target& t = targets_[i];
    const std::string staged = StagedPath(i, "");
    const std::string old = fmt::format("{}/old/{}", root_, i);
    Status error;
    // Done: the staged tree went into place, or (nothing staged) the
    // target is gone.
    const bool staged_waits = t.staged && Exists(*content_, account_, staged, &error);
    SKALD_RETURN_IF_ERROR(error);
    if (t.staged && !staged_waits) continue;
    const bool there = Exists(*content_, account_, t.path, &error);
    SKALD_RETURN_IF_ERROR(error);
    if (there) {
      // The old tree out of the way. Already moved aside once, a target can
      // only hold something that arrived since: nothing does under the
      // caller's locks, and recovery runs alone.
      const bool moved_aside = Exists(*content_, account_, old, &error);
      SKALD_RETURN_IF_ERROR(error);
      SKALD_RETURN_IF_ERROR(moved_aside ? content_->Remove(account_, t.path)
                                        : content_->Rename(account_, t.path, old));
    }
    if (t.staged) SKALD_RETURN_IF_ERROR(content_->Rename(account_, staged, t.path));
  }
  return Status::Ok();
}

Status TreeSwap::Finish() {
  SKALD_RETURN_IF_ERROR(content_->Remove(account_, root_));
  finished_ = true;
  return Status::Ok();
}

Result<uint64_t> RecoverTreeSwaps(ContentStore& content) {
  uint64_t found = 0;
  const std::string prefix = fmt::format("{}{}", kTempNamePrefix, kSwapInfix);
  SKALD_ASSIGN_OR_RETURN(std::vector<std::string> accounts, content.ListAccounts());
  for (const std::string& account : accounts) {
    SKALD_ASSIGN_OR_RETURN(std::vector<std::string> names, content.ListStoredNames(account, ""));
    for (const std::string& name : names) {
      if (!name.starts_with(prefix)) continue;
      ++found;
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
      const Status unreadable = Status::Internal(
          fmt::format("the plan of an interrupted tree swap in account {} is unreadable", account));
      Result<Json> plan = ParseJson(*plan_text);
      if (!plan.ok() || !plan->is_object() || !plan->contains("targets") ||
          !(*plan)["targets"].is_array() || !plan->contains("version") ||
          (*plan)["version"] != kPlanVersion) {
        return unreadable;
      }
      for (const Json& t : (*plan)["targets"]) {
        if (!t.is_object() || !t.contains("path") || !t["path"].is_string() ||
            !t.contains("staged") || !t["staged"].is_boolean()) {
          return unreadable;
        }
        swap.AddTarget(t["path"].get<std::string>(), t["staged"].get<bool>());
      }
      swap.committed_ = true;
      spdlog::warn("finishing an interrupted tree swap of {} targets in account {}",
                   swap.targets_.size(), account);
      SKALD_RETURN_IF_ERROR(swap.Apply());
      SKALD_RETURN_IF_ERROR(swap.Finish());
    }
  }
  return found;
}

}  // namespace skald
