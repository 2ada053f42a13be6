#pragma once

// JobKind: what a background job does. Inside the core a job's kind is this
// enum; its name is only the text stored in the catalog's `jobs.kind` column
// (and shown as a task's `task_type` at the JSON edge).
//
// Every module that runs background work adds its kinds here and registers
// a handler for each with the JobRunner (storage/job_runner.h): ingest
// registers add_resource/index/refresh/reindex; sessions and skills will
// add theirs. Stored names never change: workspaces keep their queued jobs
// across upgrades.
//
// Thread safety: pure functions.

#include <optional>
#include <span>
#include <string_view>

namespace skald {

enum class JobKind {
  kAddResource,    // "add_resource": import a source into a resource tree (ingest/import_job.h)
  kIndex,          // "index": summarize and embed a subtree, then its ancestors
  kRefresh,        // "refresh": refresh the summaries above a changed path
  kReindex,        // "reindex": re-embed every record after an embedder change
  kUserDelete,     // "user_delete": remove a deleted user's data (service/account_registry.h)
  kSessionCommit,  // "session_commit": phase 2 of a session commit (session/session_store.h)
  kAdminReindex,   // "admin_reindex": POST /content/reindex of one tree (ingest/reindex_job.h)
  kAddSkill,       // "add_skill": an `index` of a skill just written (service/skill_ops.h)
  kContentWrite,   // "content_write": an `index` of a file written through content/write
  kSnapshotRestoreReindex,  // "snapshot_restore_reindex": an `index` of a restored tree
  // A stored kind this binary does not know (a job written by a newer
  // version, or a damaged row). Never enqueued; Job::kind_name keeps the
  // stored text for messages.
  kUnknown,
};

// The stored name of `kind` ("add_resource", "index", "refresh", "reindex",
// "user_delete", "session_commit", "admin_reindex", "add_skill", "content_write",
// "snapshot_restore_reindex";
// "unknown" for kUnknown, which has no stored name of its own).
std::string_view JobKindName(JobKind kind);

// Every kind this binary knows (kUnknown excluded).
std::span<const JobKind> KnownJobKinds();

// Inverse of JobKindName; nullopt for a name this binary does not know (a
// job written by a newer version, or a damaged row).
std::optional<JobKind> ParseJobKind(std::string_view name);

}  // namespace skald
