#include "service/relation_ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/json_util.h"
#include "common/time_util.h"

namespace skald {
namespace {

std::string MetaKey(std::string_view account, std::string_view from) {
  return fmt::format("relations/{}/{}", account, from);
}

// The stored entries of `from` (an empty array when none). A value that is
// not an array of objects is Corruption: it was written by this class only.
Result<Json> LoadEntries(Catalog* catalog, std::string_view account, std::string_view from) {
  SKALD_ASSIGN_OR_RETURN(std::optional<std::string> stored,
                         catalog->GetMeta(MetaKey(account, from)));
  if (!stored) return Json::array();
  Result<Json> parsed = ParseJson(*stored);
  if (!parsed.ok() || !parsed->is_array()) {
    return Status::Corruption(fmt::format("the relations of {} are not a JSON array", from));
  }
  for (const Json& entry : *parsed) {
    if (!entry.is_object() || !entry.contains("uris") || !entry["uris"].is_array()) {
      return Status::Corruption(fmt::format("a relation entry of {} has no uris list", from));
    }
  }
  return *parsed;
}

}  // namespace

Result<std::vector<RelationLink>> RelationOps::List(std::string_view account,
                                                    std::string_view from) {
  SKALD_ASSIGN_OR_RETURN(Json entries, LoadEntries(catalog_, account, from));
  std::vector<RelationLink> out;
  for (const Json& entry : entries) {
    const std::string reason = entry.value("reason", "");
    for (const Json& uri : entry["uris"]) {
      if (uri.is_string()) out.push_back({uri.get<std::string>(), reason});
    }
  }
  return out;
}

Result<std::vector<std::string>> RelationOps::LinksTo(std::string_view account,
                                                      std::string_view uri) {
  const std::string prefix = fmt::format("relations/{}", account);
  SKALD_ASSIGN_OR_RETURN(auto rows, catalog_->ListMetaTree(prefix));
  std::vector<std::string> from;
  const Json target = std::string(uri);
  for (const auto& [key, value] : rows) {
    if (key.size() <= prefix.size() + 1) continue;
    Result<Json> entries = ParseJson(value);
    if (!entries.ok() || !entries->is_array()) continue;
    for (const Json& entry : *entries) {
      const auto uris = entry.find("uris");
      if (entry.is_object() && uris != entry.end() && uris->is_array() &&
          std::find(uris->begin(), uris->end(), target) != uris->end()) {
        from.push_back(key.substr(prefix.size() + 1));
        break;
      }
    }
  }
  return from;
}

Status RelationOps::Link(std::string_view account, std::string_view from,
                         const std::vector<std::string>& to, std::string_view reason,
                         int64_t now_ns) {
  if (to.empty()) return Status::InvalidArgument("to_uris must name at least one URI");
  std::lock_guard<std::mutex> lock(mu_);
  SKALD_ASSIGN_OR_RETURN(Json entries, LoadEntries(catalog_, account, from));
  // Ids link_1, link_2, ...: the smallest one not in use.
  std::set<std::string> used;
  for (const Json& entry : entries) used.insert(entry.value("id", ""));
  int n = 1;
  while (used.count(fmt::format("link_{}", n)) != 0) ++n;
  entries.push_back({{"id", fmt::format("link_{}", n)},
                     {"uris", to},
                     {"reason", std::string(reason)},
                     {"created_at", FormatIsoMillis(now_ns)}});
  return catalog_->SetMeta(MetaKey(account, from), entries.dump());
}

Status RelationOps::Unlink(std::string_view account, std::string_view from, std::string_view to) {
  std::lock_guard<std::mutex> lock(mu_);
  SKALD_ASSIGN_OR_RETURN(Json entries, LoadEntries(catalog_, account, from));
  for (auto entry = entries.begin(); entry != entries.end(); ++entry) {
    Json& uris = (*entry)["uris"];
    auto hit = std::find(uris.begin(), uris.end(), Json(std::string(to)));
    if (hit == uris.end()) continue;
    uris.erase(hit);
    if (uris.empty()) entries.erase(entry);
    return catalog_->SetMeta(MetaKey(account, from), entries.dump());
  }
  return Status::Ok();
}

Status RelationOps::DropTree(std::string_view account, std::string_view uri) {
  std::lock_guard<std::mutex> lock(mu_);
  SKALD_ASSIGN_OR_RETURN(uint64_t dropped, catalog_->DeleteMetaTree(MetaKey(account, uri)));
  (void)dropped;
  return Status::Ok();
}

Status RelationOps::MoveTree(std::string_view account, std::string_view from, std::string_view to) {
  std::lock_guard<std::mutex> lock(mu_);
  SKALD_ASSIGN_OR_RETURN(uint64_t moved,
                         catalog_->MoveMetaTree(MetaKey(account, from), MetaKey(account, to)));
  (void)moved;
  return Status::Ok();
}

}  // namespace skald
