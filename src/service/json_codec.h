#pragma once

// JSON encodings of Db results in OpenViking's wire format (reference §2.2-2.8),
// and the decoding of wire values both front ends accept (time bounds).
// Shared by the server (HTTP `result` payloads) and the CLI (embedded mode
// `--json` output and table rendering), so both print the same thing.
//
// Thread safety: pure functions.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_util.h"
#include "ingest/ingest_jobs.h"
#include "skald/db.h"

namespace skald {

// `ls`/`tree` entry shapes: agent = {uri,size,isDir,modTime(ISO ms),abstract}
// (+rel_path for tree/recursive); original = {name,size,mode,modTime(RFC3339),
// isDir,uri} (+rel_path).
enum class LsOutput { kAgent, kOriginal };

Json LsEntryToJson(const LsEntry& entry, LsOutput output, bool with_rel_path);
// The whole listing; `simple` gives a plain array of URI strings.
Json LsToJson(const std::vector<LsEntry>& entries, LsOutput output, bool simple,
              bool with_rel_path);
// {name,size,mode,modTime,isDir,isLocked,uri} (mode: 420 files / 493 dirs, as RAGFS)
Json StatToJson(const NodeInfo& node);
// {uri, estimated_deleted_count}
Json RmToJson(const RmResult& result);
// {from, to}
Json MvToJson(const MvResult& result);
// {uri,root_uri,context_type,mode,written_bytes,content_updated,semantic_status,vector_status}
Json WriteToJson(const WriteResult& result);
// With `waited` (the request had wait=true): plus OpenViking's `queue_status`.
Json WriteToJson(const WriteResult& result, bool waited);

// OpenViking's `queue_status` after wait=true: what each of its queues
// QueueStatusJson (ingest/ingest_jobs.h): OpenViking's queue_status.
// The fields a glob match object can carry (glob's `extra_fields`), named as
// `fs/ls` output=original names them: uri, name, size, mode, modTime (RFC3339),
// isDir, rel_path, tags, and type ("file" or "directory").
std::span<const std::string_view> EntryFieldNames();
// {matches, count}. Without `fields` each match is its URI (OpenViking's
// answer when neither extra_fields nor include_tags is sent); with them, an
// object holding `uri`, each of `fields` in order, and `tags` when the entry
// carries them. REQUIRES: every name in `fields` is in EntryFieldNames().
Json GlobToJson(const GlobResult& result,
                const std::optional<std::vector<std::string>>& fields = std::nullopt);
// {matches:[{uri,line,content} (+tags when the match has them)], count,
// match_count, files_scanned}
Json GrepToJson(const GrepResult& result);
// {nodes_checked, clean, issues:[{kind,account,uri,detail,repaired}]}
Json FsckToJson(const FsckReport& report);

// One find hit: {context_type,uri,level,score,abstract,tags} (+match_reason
// when set). A non-finite score is written as 0.0.
Json MatchedContextToJson(const MatchedContext& hit);
// {"memories":[M],"resources":[M],"skills":[M],"total":n}, plus
// "provenance" (the RetrievalTrace as an object) when `with_provenance` and the
// result carries a trace.
Json FindResultToJson(const FindResult& result, bool with_provenance);

// search's result: find's, plus `query_plan` {reasoning, queries:[{query,
// context_type (null = every kind), intent, priority}]}.
Json SearchResultToJson(const SearchResult& result, bool with_provenance);
// search, mode "context": {entries, rendered, digest, stats, query_plan}.
Json ContextResultToJson(const ContextResult& result);
// The task dict of GET /api/v1/tasks/{id}: {task_id, task_type, status,
// created_at, updated_at (float epoch seconds), created_at_iso, updated_at_iso
// (UTC, "2026-01-02T03:04:05.123456+00:00"), resource_id, meta:{}, stage,
// result (the stored object, or null), error (string, or null when empty)}.
Json TaskInfoToJson(const TaskInfo& task);
// The add_resource result: {"status":"success", root_uri, temp_uri:"",
// source_path, meta:{}, errors:[...]} (+"warnings" when any). `waited`
// (request.wait) adds "queue_status" (QueueStatusJson); "task_id" comes
// without wait, or when the wait timed out before the task ended.
Json AddResourceResultToJson(const AddResourceResult& result, bool waited);

// POST /api/v1/content/reindex: {status: "completed"|"accepted", uri,
// object_type, mode, scanned_records, rebuilt_records, deleted_records,
// would_delete_records, unsupported_records, failed_records, duration_ms,
// warnings} + task_id when the task has not completed.
Json ReindexResultToJson(const ReindexResult& result);

// POST /api/v1/skills (and PUT): {"status":"success", root_uri, uri, name,
// auxiliary_files} + queue_status (waited) and task_id (no wait, or the
// wait timed out), as AddResourceResultToJson.
Json SkillResultToJson(const SkillResult& result, bool waited);

// Which of a skill's optional fields SkillInfoToJson writes: the abstract,
// and what `read` read (content with content_sha256, files with revision
// when hashed, source as the kept record + tracked, or tracked false).
struct SkillFields {
  bool abstract = false;
  SkillReadOptions read;
};

// One skill of the skill routes: {type, name, uri, root_uri (the skill
// directory, as `uri`), skill_md_uri, description, tags, allowed_tools} +
// the optional fields `fields` names.
Json SkillInfoToJson(const SkillInfo& skill, const SkillFields& fields);

// POST /api/v1/skills/validate: {valid, strict, name, description, tags,
// allowed_tools, body_lines, source_path, skill_dir_name, errors, warnings};
// each finding is {rule, message, field?}.
Json SkillValidationToJson(const SkillValidationReport& report);

// Parses a find/search time bound as OpenViking accepts it: a relative age
// ("30s", "15m", "2h", "7d", "2w"; meaning `now_ns` minus that), a date
// ("2026-01-31"; 00:00 UTC, or the last nanosecond of that day when
// `end_of_day`), or an ISO 8601 date-time ("2026-01-31T12:00:00Z",
// fractional seconds and "+02:00" offsets allowed; no offset means UTC).
// Returns ns since the epoch; InvalidArgument naming the accepted forms
// otherwise.
Result<int64_t> ParseTimeBound(std::string_view text, int64_t now_ns, bool end_of_day);

// The wire error code for a Status: its reason() when set, else the code's
// default ("NOT_FOUND", "INVALID_ARGUMENT", "CONFLICT", ...). kAlreadyExists
// maps to "CONFLICT" for fs operations that report conflicts that way; the
// caller attaches a reason when another code is wanted.
std::string WireErrorCode(const Status& status);
// {"code","message","details"} (details: the Status details as an object, {} when none).
Json ErrorToJson(const Status& status);

}  // namespace skald
