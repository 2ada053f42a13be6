#pragma once

// OVPack: OpenViking's package of one tree of the context file system (a
// `.ovpack` file, format version 3), written by pack export and backup and
// read by pack import and restore (service/pack_ops.h). A zip with one
// top-level folder <base>:
//
//   <base>/files/                     the tree's root directory
//   <base>/files/<rel path>           each directory (name ending in '/') and
//                                     file of the tree, dot-files as they are
//   <base>/_ovpack/index_records.jsonl one JSON object per retrieval record
//   <base>/_ovpack/dense.f32          optional: their vectors, float32 LE
//   <base>/_ovpack/manifest.json      kind "openviking.ovpack", format_version
//                                     3, root {name, uri, scope[,
//                                     package_type]}, entries {path, kind,
//                                     size, sha256}, content_sha256, index
//
// Reading checks everything the manifest promises — every file's size and
// SHA-256, the digest over all of them, the entry lists both ways, the
// record and vector files — before anything is handed out, so an import
// either has a whole, unaltered package or writes nothing. The archive's
// own safety (paths escaping the root, links, devices, bombs) is
// ReadArchive's (archive_extract.h).
//
// Thread safety: free functions over values; safe to call concurrently.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/archive_extract.h"
#include "skald/result.h"

namespace skald {

inline constexpr int kOvpackFormatVersion = 3;
inline constexpr std::string_view kOvpackBackupName = "openviking-backup";

// One directory or file of the packaged tree, by its path relative to the
// tree's root ("a/b.md"; never "", the root itself).
struct PackEntry {
  std::string path;
  bool is_dir = false;
  std::string bytes;  // files only
};

// One retrieval record of the tree: of the root (path "") or an entry.
struct PackRecord {
  std::string path;
  bool is_dir = false;
  int level = 2;
  std::string text;           // a directory's L0 or L1 body ("" = none)
  nlohmann::json scalars;     // object: context_type, level, abstract, tags (or null)
  std::vector<float> vector;  // empty = none
};

struct PackRoot {
  std::string name;   // <base>
  std::string uri;    // where the tree was: "viking://resources/x"; "viking://" for a backup
  std::string scope;  // first segment of `uri` ("root" for a backup)
  bool backup = false;
  std::vector<std::string> scopes;  // a backup's top-level scopes
};

// The embedder the vectors of a package were made with.
struct PackEmbedding {
  std::string provider;
  std::string model;
  int dimensions = 0;
};

struct Pack {
  PackRoot root;
  std::vector<PackEntry> entries;  // parents before children
  std::vector<PackRecord> records;
  std::optional<PackEmbedding> embedding;  // set when some record has a vector
};

// The zip bytes of `pack`. InvalidArgument for an unsafe entry path or
// vectors of mixed dimensions.
Result<std::string> WriteOvpack(const Pack& pack);

// Reads and checks the package at `path` (InvalidArgument naming what does
// not hold: "Missing ovpack manifest", "Unsupported ovpack format_version
// 2 ...", "ovpack file sha256 does not match manifest", "ovpack entries do
// not match manifest" with details missing_files, unexpected_directories,
// ...). Records keep their vectors only when the package has them.
Result<Pack> ReadOvpack(const std::string& path, const ArchiveLimits& limits);

// The manifest's content_sha256: SHA-256 of the compact JSON array of
// {path, sha256, size} of every file, sorted by path, keys sorted.
std::string OvpackContentSha256(const std::vector<PackEntry>& entries);

// InvalidArgument unless `rel` is a safe relative path: '/'-separated, no
// empty, "." or ".." segment, no '\\', no leading '/' or drive letter.
Status CheckPackRelPath(std::string_view rel);

}  // namespace skald
