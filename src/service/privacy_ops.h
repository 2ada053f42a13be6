#pragma once

// PrivacyOps: OpenViking's privacy configs — per user, named by a category
// and a target key (e.g. "skill" / a skill's name), a map of values kept
// in numbered versions with one active. Stored in the caller's own space,
// viking://user/{uid}/privacy/{category}/{target_key}/:
//   .meta.json                {category, target_key, active_version,
//                              latest_version, created_at, updated_at,
//                              updated_by, last_accessed_at, labels}
//   current.json              the active version's snapshot
//   history/version_NNN.json  every version's snapshot {version, category,
//                             target_key, values, created_at, created_by,
//                             change_reason}
// The privacy subtree is never indexed (uri_path.h NamespaceRootDepth) and
// not writable through content/write. Values are kept and returned as given
// (no masking, as in OpenViking).
//
// Upsert replaces the whole value map: values equal to the active ones
// change nothing (the active snapshot is answered); others become version
// latest + 1 and active. Activate makes an earlier version the active one
// (no new version). Every change holds the config's tree lock.
//
// Thread safety: safe for concurrent use; everything passed in is borrowed.

#include <string>
#include <string_view>
#include <vector>

#include "common/json_util.h"
#include "service/fs_engine.h"
#include "storage/catalog.h"
#include "storage/content_store.h"
#include "storage/node_writer.h"
#include "storage/path_lock.h"

namespace skald {

// `json` dumped (an error passes through): the Db facade answers JSON text.
inline Result<std::string> DumpedJson(Result<Json> json) {
  if (!json.ok()) return json.status();
  return DumpJson(*json);
}

struct PrivacyOpsServices {
  Catalog* catalog = nullptr;
  ContentStore* content = nullptr;
  NodeWriter* nodes = nullptr;
  FsWriter* writer = nullptr;
  PathLockManager* locks = nullptr;
  int lock_timeout_ms = 5000;
};

class PrivacyOps {
 public:
  explicit PrivacyOps(PrivacyOpsServices services) : s_(std::move(services)) {}

  // The caller's categories (category empty) or the target keys of
  // `category`, sorted; [] when there are none.
  Result<std::vector<std::string>> List(const Identity& who, std::string_view category);
  // {"meta", "current"} of a config; NotFound "Privacy config not found:
  // c/t" when it has no active version.
  Result<Json> Get(const Identity& who, std::string_view category, std::string_view target);
  // Its version numbers, ascending.
  Result<std::vector<int>> Versions(const Identity& who, std::string_view category,
                                    std::string_view target);
  // One version's snapshot (NotFound ".../versions/N" when missing).
  Result<Json> Version(const Identity& who, std::string_view category, std::string_view target,
                       int version);
  // Makes `values` (an object) the active values; `labels` (an object or
  // null = keep) replace the config's labels. Answers the active snapshot.
  Result<Json> Upsert(const Identity& who, std::string_view category, std::string_view target,
                      const Json& values, const std::string& change_reason, const Json& labels);
  // Makes `version` the active one; answers its snapshot.
  Result<Json> Activate(const Identity& who, std::string_view category, std::string_view target,
                        int version);
  // Removes a config; false when there was none.
  Result<bool> Delete(const Identity& who, std::string_view category, std::string_view target);

 private:
  // viking://user/{uid}/privacy[/category[/target]], the names checked.
  Result<VikingUri> RootOf(const Identity& who, std::string_view category,
                           std::string_view target) const;
  // NotFound "Privacy config not found: c/t" unless the config's directory is there.
  Status RequireConfig(const Identity& who, const VikingUri& root, std::string_view category,
                       std::string_view target) const;
  Result<std::optional<Json>> ReadJson(const Identity& who, const VikingUri& file) const;
  Status WriteJson(const Identity& who, const VikingUri& file, const Json& value);
  Status Lock(const Identity& who, const VikingUri& root, PathLockGuard* guard);

  PrivacyOpsServices s_;
};

}  // namespace skald
