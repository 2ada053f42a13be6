#include "service/privacy_ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>

#include "common/strings.h"
#include "common/time_util.h"

namespace skald {
namespace {

constexpr std::string_view kMetaName = ".meta.json";
constexpr std::string_view kCurrentName = "current.json";
constexpr std::string_view kHistoryName = "history";

Status ConfigNotFound(std::string_view category, std::string_view target,
                      std::string_view more = "") {
  const std::string resource = fmt::format("{}/{}{}", category, target, more);
  return Status::NotFound("Privacy config not found: " + resource)
      .WithDetail("resource", resource)
      .WithDetail("type", "privacy config");
}

std::string VersionFileName(int version) { return fmt::format("version_{:03d}.json", version); }

// The version of a history file name ("version_012.json" -> 12), or -1.
int VersionOfFileName(std::string_view name) {
  constexpr std::string_view kPrefix = "version_";
  constexpr std::string_view kSuffix = ".json";
  if (!name.starts_with(kPrefix) || !name.ends_with(kSuffix)) return -1;
  long long v = -1;
  if (!ParseInt64(name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size()), &v) ||
      v < 0 || v > std::numeric_limits<int>::max()) {
    return -1;
  }
  return static_cast<int>(v);
}

// The values in a canonical form (keys sorted at every level: nlohmann's
// object is ordered), to tell an unchanged upsert.
std::string Canonical(const Json& values) { return DumpJson(values); }

}  // namespace

Result<VikingUri> PrivacyOps::RootOf(const Identity& who, std::string_view category,
                                     std::string_view target) const {
  std::vector<std::string> segments = {"user", who.user, "privacy"};
  for (std::string_view name : {category, target}) {
    if (name.empty()) break;
    if (!VikingUri::IsValidSegment(name) || name.front() == '.') {
      return Status::InvalidArgument(fmt::format("invalid privacy config name: {}", name));
    }
    segments.emplace_back(name);
  }
  return VikingUri::FromSegments(std::move(segments));
}

Status PrivacyOps::Lock(const Identity& who, const VikingUri& root, PathLockGuard* guard) {
  return s_.locks->Acquire({{who.account, std::string(root.path()), PathLockKind::kTree}},
                           std::chrono::milliseconds(s_.lock_timeout_ms), guard);
}

Status PrivacyOps::RequireConfig(const Identity& who, const VikingUri& root,
                                 std::string_view category, std::string_view target) const {
  SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node,
                         s_.catalog->Get(who.account, root.path()));
  if (!node || !node->is_dir) return ConfigNotFound(category, target);
  return Status::Ok();
}

Result<std::optional<Json>> PrivacyOps::ReadJson(const Identity& who, const VikingUri& file) const {
  Result<std::string> text = s_.content->ReadFile(who.account, file.path());
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) return std::optional<Json>();
    return text.status();
  }
  Result<Json> parsed = ParseJson(*text);
  if (!parsed.ok() || !parsed->is_object()) {
    return Status::Internal(fmt::format("privacy config file {} is damaged", file.str()));
  }
  return std::optional<Json>(std::move(*parsed));
}

Status PrivacyOps::WriteJson(const Identity& who, const VikingUri& file, const Json& value) {
  SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> existing,
                         s_.catalog->Get(who.account, file.path()));
  SKALD_ASSIGN_OR_RETURN(CatalogNode stored,
                         s_.nodes->StoreFile(who, file, DumpJson(value), existing));
  (void)stored;
  return Status::Ok();
}

Result<std::vector<std::string>> PrivacyOps::List(const Identity& who, std::string_view category) {
  SKALD_ASSIGN_OR_RETURN(VikingUri dir, RootOf(who, category, ""));
  SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> children,
                         s_.catalog->ListChildren(who.account, dir.path()));
  std::vector<std::string> names;
  for (const CatalogNode& n : children) {
    std::string name(BaseName(n.path));
    if (n.is_dir && !name.starts_with(".")) names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<Json> PrivacyOps::Get(const Identity& who, std::string_view category,
                             std::string_view target) {
  SKALD_ASSIGN_OR_RETURN(VikingUri root, RootOf(who, category, target));
  SKALD_ASSIGN_OR_RETURN(std::optional<Json> current, ReadJson(who, root.Child(kCurrentName)));
  if (!current) return ConfigNotFound(category, target);
  SKALD_ASSIGN_OR_RETURN(std::optional<Json> meta, ReadJson(who, root.Child(kMetaName)));
  return Json{{"meta", meta ? *meta : Json()}, {"current", *current}};
}

Result<std::vector<int>> PrivacyOps::Versions(const Identity& who, std::string_view category,
                                              std::string_view target) {
  SKALD_ASSIGN_OR_RETURN(VikingUri root, RootOf(who, category, target));
  SKALD_RETURN_IF_ERROR(RequireConfig(who, root, category, target));
  SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> files,
                         s_.catalog->ListChildren(who.account, root.Child(kHistoryName).path()));
  std::vector<int> versions;
  for (const CatalogNode& f : files) {
    const int v = VersionOfFileName(BaseName(f.path));
    if (!f.is_dir && v >= 0) versions.push_back(v);
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

Result<Json> PrivacyOps::Version(const Identity& who, std::string_view category,
                                 std::string_view target, int version) {
  SKALD_ASSIGN_OR_RETURN(VikingUri root, RootOf(who, category, target));
  SKALD_RETURN_IF_ERROR(RequireConfig(who, root, category, target));
  if (version < 0) return ConfigNotFound(category, target, fmt::format("/versions/{}", version));
  SKALD_ASSIGN_OR_RETURN(std::optional<Json> snapshot,
                         ReadJson(who, root.Child(kHistoryName).Child(VersionFileName(version))));
  if (!snapshot) return ConfigNotFound(category, target, fmt::format("/versions/{}", version));
  return *snapshot;
}

Result<Json> PrivacyOps::Upsert(const Identity& who, std::string_view category,
                                std::string_view target, const Json& values,
                                const std::string& change_reason, const Json& labels) {
  if (!values.is_object()) return Status::InvalidArgument("values must be an object");
  if (!labels.is_null() && !labels.is_object()) {
    return Status::InvalidArgument("labels must be an object");
  }
  SKALD_ASSIGN_OR_RETURN(VikingUri root, RootOf(who, category, target));
  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(Lock(who, root, &guard));
  SKALD_RETURN_IF_ERROR(s_.nodes->EnsureDirectories(who, root.Child(kHistoryName), true));
  SKALD_ASSIGN_OR_RETURN(std::optional<Json> meta, ReadJson(who, root.Child(kMetaName)));
  SKALD_ASSIGN_OR_RETURN(std::optional<Json> current, ReadJson(who, root.Child(kCurrentName)));
  const std::string now = FormatIsoMillis(NowNanos());
  Json m = meta ? *meta
                : Json{{"category", std::string(category)},
                       {"target_key", std::string(target)},
                       {"active_version", 0},
                       {"latest_version", 0},
                       {"created_at", now},
                       {"labels", Json::object()}};
  m["updated_at"] = now;
  m["updated_by"] = who.user;
  m["last_accessed_at"] = now;
  if (labels.is_object()) m["labels"] = labels;
  const bool unchanged = current && current->contains("values") &&
                         Canonical((*current)["values"]) == Canonical(values);
  Json snapshot;
  if (unchanged) {
    snapshot = *current;
  } else {
    const int latest = m.value("latest_version", 0);
    const int version = std::max(0, latest) + 1;
    snapshot = Json{{"version", version},
                    {"category", std::string(category)},
                    {"target_key", std::string(target)},
                    {"values", values},
                    {"created_at", now},
                    {"created_by", who.user},
                    {"change_reason", change_reason}};
    SKALD_RETURN_IF_ERROR(
        WriteJson(who, root.Child(kHistoryName).Child(VersionFileName(version)), snapshot));
    SKALD_RETURN_IF_ERROR(WriteJson(who, root.Child(kCurrentName), snapshot));
    m["active_version"] = version;
    m["latest_version"] = version;
  }
  SKALD_RETURN_IF_ERROR(WriteJson(who, root.Child(kMetaName), m));
  return snapshot;
}

Result<Json> PrivacyOps::Activate(const Identity& who, std::string_view category,
                                  std::string_view target, int version) {
  SKALD_ASSIGN_OR_RETURN(VikingUri root, RootOf(who, category, target));
  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(Lock(who, root, &guard));
  SKALD_RETURN_IF_ERROR(RequireConfig(who, root, category, target));
  SKALD_ASSIGN_OR_RETURN(std::optional<Json> meta, ReadJson(who, root.Child(kMetaName)));
  std::optional<Json> snapshot;
  if (version >= 0) {
    SKALD_ASSIGN_OR_RETURN(snapshot,
                           ReadJson(who, root.Child(kHistoryName).Child(VersionFileName(version))));
  }
  if (!snapshot || !meta) {
    return ConfigNotFound(category, target, fmt::format("/versions/{}", version));
  }
  const std::string now = FormatIsoMillis(NowNanos());
  (*meta)["active_version"] = version;
  (*meta)["updated_at"] = now;
  (*meta)["updated_by"] = who.user;
  (*meta)["last_accessed_at"] = now;
  SKALD_RETURN_IF_ERROR(WriteJson(who, root.Child(kCurrentName), *snapshot));
  SKALD_RETURN_IF_ERROR(WriteJson(who, root.Child(kMetaName), *meta));
  return *snapshot;
}

Result<bool> PrivacyOps::Delete(const Identity& who, std::string_view category,
                                std::string_view target) {
  SKALD_ASSIGN_OR_RETURN(VikingUri root, RootOf(who, category, target));
  SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node,
                         s_.catalog->Get(who.account, root.path()));
  if (!node) return false;
  SKALD_RETURN_IF_ERROR(s_.writer->Rm(who, root, /*recursive=*/true).status());
  return true;
}

}  // namespace skald
