#pragma once

// The snapshot types of the Db facade (skald/db.h): OpenViking's
// git-style snapshots of an account's files (reference §2.11, internals
// §5.5; service/snapshot_ops.h). Ids are 40 hex digits; paths inside a
// snapshot are account-relative ("resources/a/b.md").

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skald {

struct SnapshotCommitRequest {
  std::string message;
  // The URIs whose current state the commit records (directories or files;
  // everything else is kept from the branch's last commit). nullopt: the
  // whole account (ROOT only). An empty list records nothing (a noop).
  std::optional<std::vector<std::string>> paths;
  // Files only (a directory is refused), recorded as `paths` are.
  std::optional<std::vector<std::string>> file_paths;
  std::string branch = "main";
  std::optional<std::string> author_name;
  std::optional<std::string> author_email;
};

struct SnapshotCommitResult {
  bool created = false;    // false: nothing changed ("noop"), no commit made
  std::string commit_oid;  // the new commit, or the branch's head (40 zeros: none)
  uint64_t changed = 0;    // files added, changed or removed
  uint64_t ignored = 0;    // files left out by .ovgitignore
};

struct SnapshotActorInfo {
  std::string name;
  std::string email;
  int64_t time_seconds = 0;
  int32_t tz_offset_seconds = 0;
};

struct SnapshotCommitInfo {
  std::string oid;
  std::string tree;
  std::vector<std::string> parents;
  SnapshotActorInfo author;
  SnapshotActorInfo committer;
  std::string message;
};

struct SnapshotLogRequest {
  std::string branch = "main";
  int limit = 20;  // 1..500
  // Only commits that changed one of these URIs (at most 32); required for
  // callers other than ROOT.
  std::vector<std::string> paths;
};

struct SnapshotBlobContent {
  std::string oid;
  std::string bytes;
};

struct SnapshotDiffResult {
  std::string path;         // the URI asked for
  std::string from_commit;  // "" when no `from` was given
  std::string to_commit;
  std::string change_type;  // added, deleted, modified, unchanged
  std::string diff_text;    // unified diff ("" when unchanged)
};

struct SnapshotRestoreRequest {
  std::string source_commit;  // id, unique id prefix (4+ digits), or branch
  // The directory to restore (nullopt: the whole account, ROOT only).
  std::optional<std::string> project_dir;
  std::string branch = "main";
  bool dry_run = false;
  std::optional<std::string> message;
  std::optional<std::string> author_name;
  std::optional<std::string> author_email;
};

enum class SnapshotRestoreOutcome {
  kApplied,  // files written back (and the branch moved when its tree changed)
  kNoop,     // the files and the branch are as the source has them already
  kDryRun,   // the plan only
};

struct SnapshotRestoreResult {
  SnapshotRestoreOutcome outcome = SnapshotRestoreOutcome::kApplied;
  // applied
  std::string new_commit_oid;
  std::string source_commit;
  std::string parent_commit;
  uint64_t written = 0;
  uint64_t deleted = 0;
  uint64_t unchanged = 0;
  std::vector<std::string> written_paths;  // account-relative
  std::vector<std::string> deleted_paths;
  // Files the write-back could not change (a partial restore: the branch
  // has moved already; running the restore again finishes it).
  std::vector<std::string> failed_writes;
  std::vector<std::string> failed_deletes;
  std::string task_id;  // the re-indexing task; "" when none
  // noop and dry_run
  std::string head;
  std::string source;
  // dry_run: relative to the restored directory
  struct Write {
    std::string path;
    std::string oid;
  };
  std::vector<Write> to_write;
  std::vector<std::string> to_delete;
  std::vector<std::string> unchanged_paths;
};

}  // namespace skald
