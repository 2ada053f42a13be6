// Snapshot objects: encodings and ids (snapshot_objects.h).

#include "storage/snapshot_objects.h"

#include <nlohmann/json.hpp>

#include "common/hash.h"

namespace skald {
namespace {

using Json = nlohmann::json;

Json ActorJson(const SnapshotActor& a) {
  return Json{{"name", a.name},
              {"email", a.email},
              {"time_seconds", a.time_seconds},
              {"tz_offset_seconds", a.tz_offset_seconds}};
}

bool ReadActor(const Json& j, SnapshotActor* a) {
  if (!j.is_object()) return false;
  const auto name = j.find("name");
  const auto email = j.find("email");
  const auto time = j.find("time_seconds");
  const auto tz = j.find("tz_offset_seconds");
  if (name == j.end() || !name->is_string() || email == j.end() || !email->is_string() ||
      time == j.end() || !time->is_number_integer() || tz == j.end() || !tz->is_number_integer()) {
    return false;
  }
  a->name = name->get<std::string>();
  a->email = email->get<std::string>();
  a->time_seconds = time->get<int64_t>();
  a->tz_offset_seconds = tz->get<int32_t>();
  return true;
}

}  // namespace

bool IsSnapshotOid(std::string_view text) {
  if (text.size() != kNullSnapshotOid.size()) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

SnapshotObject SnapshotBlob(std::string bytes, std::string sha256) {
  SnapshotObject o;
  o.oid = GitObjectId("blob", bytes);
  o.kind = SnapshotObjectKind::kBlob;
  o.sha256 = std::move(sha256);
  o.data = std::move(bytes);
  return o;
}

SnapshotObject SnapshotTreeObject(const SnapshotTree& tree) {
  SnapshotObject o;
  o.kind = SnapshotObjectKind::kTree;
  for (const auto& [path, oid] : tree) {
    o.data.append(oid).append(" ").append(path).push_back('\0');
  }
  o.oid = GitObjectId("tree", o.data);
  return o;
}

SnapshotObject SnapshotCommitObject(const SnapshotCommit& commit) {
  SnapshotObject o;
  o.kind = SnapshotObjectKind::kCommit;
  // nlohmann::json orders keys: one commit, one encoding, one id.
  o.data = Json{{"tree", commit.tree},
                {"parents", commit.parents},
                {"author", ActorJson(commit.author)},
                {"committer", ActorJson(commit.committer)},
                {"message", commit.message}}
               .dump(-1, ' ', false, Json::error_handler_t::replace);
  o.oid = GitObjectId("commit", o.data);
  return o;
}

Result<SnapshotTree> DecodeSnapshotTree(std::string_view data) {
  SnapshotTree tree;
  while (!data.empty()) {
    const size_t end = data.find('\0');
    const size_t oid_size = kNullSnapshotOid.size();
    if (end == std::string_view::npos || end < oid_size + 2 || data[oid_size] != ' ' ||
        !IsSnapshotOid(data.substr(0, oid_size))) {
      return Status::Corruption("snapshot tree object is damaged");
    }
    tree.emplace(std::string(data.substr(oid_size + 1, end - oid_size - 1)),
                 std::string(data.substr(0, oid_size)));
    data.remove_prefix(end + 1);
  }
  return tree;
}

Result<SnapshotCommit> DecodeSnapshotCommit(std::string_view data) {
  const Json j = Json::parse(data, nullptr, /*allow_exceptions=*/false);
  SnapshotCommit c;
  const auto damaged = [] { return Status::Corruption("snapshot commit object is damaged"); };
  if (!j.is_object()) return damaged();
  const auto tree = j.find("tree");
  const auto parents = j.find("parents");
  const auto message = j.find("message");
  if (tree == j.end() || !tree->is_string() || parents == j.end() || !parents->is_array() ||
      message == j.end() || !message->is_string()) {
    return damaged();
  }
  c.tree = tree->get<std::string>();
  for (const Json& p : *parents) {
    if (!p.is_string()) return damaged();
    c.parents.push_back(p.get<std::string>());
  }
  c.message = message->get<std::string>();
  if (!ReadActor(j.value("author", Json()), &c.author) ||
      !ReadActor(j.value("committer", Json()), &c.committer)) {
    return damaged();
  }
  return c;
}

}  // namespace skald
