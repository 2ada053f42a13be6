#pragma once

// The objects of an account's snapshot history (service/snapshot_ops.h),
// stored in the catalog (Catalog::StoreSnapshotCommit and the other
// snapshot calls):
//   blob    one file's bytes;
//   tree    the files of one snapshot: account-relative path -> blob id;
//   commit  a tree, its parent commits, author, committer and message.
// An object's id is git's object id of its encoding (GitObjectId: 40 hex
// digits), so ids look and compare like OpenViking's. Trees and commits use
// Skald's own encodings (a tree is "<blob id> <path>\0" per file, sorted by
// path; a commit is a JSON object), not git's: nothing outside Skald reads
// them. Directories are not objects: a tree lists files only.
//
// Thread safety: pure functions and value types.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"

namespace skald {

enum class SnapshotObjectKind { kBlob = 1, kTree = 2, kCommit = 3 };

// The id of no commit (a branch without commits).
inline constexpr std::string_view kNullSnapshotOid = "0000000000000000000000000000000000000000";

// A snapshot's files: account-relative path ("resources/a/b.md") -> blob id.
using SnapshotTree = std::map<std::string, std::string, std::less<>>;

struct SnapshotActor {
  std::string name;
  std::string email;
  int64_t time_seconds = 0;
  int32_t tz_offset_seconds = 0;
};

struct SnapshotCommit {
  std::string tree;  // tree id
  std::vector<std::string> parents;
  SnapshotActor author;
  SnapshotActor committer;
  std::string message;
};

struct SnapshotObject {
  std::string oid;
  SnapshotObjectKind kind = SnapshotObjectKind::kBlob;
  std::string sha256;  // of a blob's bytes (finds a stored blob for a file); "" otherwise
  std::string data;    // the encoding (a blob: the bytes)
};

// The object of each kind; `sha256` is Sha256Hex(bytes) (the catalog's file
// hash), given by callers that have it.
SnapshotObject SnapshotBlob(std::string bytes, std::string sha256);
SnapshotObject SnapshotTreeObject(const SnapshotTree& tree);
SnapshotObject SnapshotCommitObject(const SnapshotCommit& commit);

// Corruption for data that is not such an encoding.
Result<SnapshotTree> DecodeSnapshotTree(std::string_view data);
Result<SnapshotCommit> DecodeSnapshotCommit(std::string_view data);

// True for 40 lower-case hex digits.
bool IsSnapshotOid(std::string_view text);

}  // namespace skald
