#include "storage/job_kind.h"

#include <array>
#include <utility>

namespace skald {
namespace {

constexpr std::array<std::pair<JobKind, std::string_view>, 10> kNames = {{
    {JobKind::kAddResource, "add_resource"},
    {JobKind::kIndex, "index"},
    {JobKind::kRefresh, "refresh"},
    {JobKind::kReindex, "reindex"},
    {JobKind::kUserDelete, "user_delete"},
    {JobKind::kSessionCommit, "session_commit"},
    {JobKind::kAdminReindex, "admin_reindex"},
    {JobKind::kAddSkill, "add_skill"},
    {JobKind::kContentWrite, "content_write"},
    {JobKind::kSnapshotRestoreReindex, "snapshot_restore_reindex"},
}};

constexpr std::array<JobKind, kNames.size()> kKnown = {
    JobKind::kAddResource,  JobKind::kIndex,      JobKind::kRefresh,
    JobKind::kReindex,      JobKind::kUserDelete, JobKind::kSessionCommit,
    JobKind::kAdminReindex, JobKind::kAddSkill,   JobKind::kContentWrite,
    JobKind::kSnapshotRestoreReindex};

}  // namespace

std::span<const JobKind> KnownJobKinds() { return kKnown; }

std::string_view JobKindName(JobKind kind) {
  for (const auto& [k, name] : kNames) {
    if (k == kind) return name;
  }
  return "unknown";
}

std::optional<JobKind> ParseJobKind(std::string_view name) {
  for (const auto& [k, n] : kNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

}  // namespace skald
