// /api/v1/snapshot/*: OpenViking's snapshot routes (reference §2.11) over
// Db::SnapshotCommit, SnapshotLog, SnapshotShow, SnapshotShowFile,
// SnapshotDiff, SnapshotRestore and the .ovgitignore calls. Bodies are
// extra="forbid". Show with a `path` answers the file's bytes
// (application/octet-stream, headers X-Snapshot-Oid and X-Snapshot-Size),
// not an envelope.

#include <fmt/format.h>
#include <httplib.h>

#include <cstdlib>

#include "server/http_util.h"
#include "server/routes.h"

namespace skald::server {
namespace {

Json SnapshotActorJson(const SnapshotActorInfo& a) {
  return Json{{"name", a.name},
              {"email", a.email},
              {"time_seconds", a.time_seconds},
              {"tz_offset_seconds", a.tz_offset_seconds}};
}

Json SnapshotCommitJson(const SnapshotCommitInfo& c) {
  return Json{{"oid", c.oid},
              {"tree", c.tree},
              {"parents", c.parents},
              {"author", SnapshotActorJson(c.author)},
              {"committer", SnapshotActorJson(c.committer)},
              {"message", c.message}};
}

// A failed snapshot call, with OpenViking's detail types: a commit that
// lost the race for its branch says it may be retried ({conflict_type:
// git_ref_cas, retryable: true}); a diff over its limits gives them as
// numbers (limit_bytes, limit_lines).
void SnapshotFail(Call& call, const Status& status) {
  Json details = Json::object();
  for (const auto& [key, value] : status.details()) {
    if (key == "limit_bytes" || key == "limit_lines") {
      details[key] = std::strtoull(value.c_str(), nullptr, 10);
    } else {
      details[key] = value;
    }
  }
  if (details.value("conflict_type", "") == "git_ref_cas") details["retryable"] = true;
  call.Fail(status, &details);
}

// An optional list of strings: absent or null → nullopt.
std::optional<std::vector<std::string>> NullableList(const Json& body, BodyReader& b,
                                                     const char* name) {
  auto field = body.find(name);
  if (field == body.end() || field->is_null()) return std::nullopt;
  return b.StringList(name, /*required=*/false);
}

// POST /api/v1/snapshot/commit
//   {message, paths?, file_paths?, branch="main", author_name?, author_email?}
void SnapshotCommit(Call& call) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  SnapshotCommitRequest request;
  request.message = b.RequiredString("message");
  request.paths = NullableList(*body, b, "paths");
  request.file_paths = NullableList(*body, b, "file_paths");
  request.branch = b.String("branch", "main");
  request.author_name = b.OptionalString("author_name");
  request.author_email = b.OptionalString("author_email");
  b.ForbidExtra({"message", "paths", "file_paths", "branch", "author_name", "author_email"});
  if (!errors.empty()) return call.FailValidation(errors);
  Result<SnapshotCommitResult> done = call.db().SnapshotCommit(call.who(), request);
  if (!done.ok()) return SnapshotFail(call, done.status());
  Json result = {{"result", done->created ? "created" : "noop"},
                 {"commit_oid", done->commit_oid},
                 {"ignored", done->ignored}};
  if (done->created) result["changed"] = done->changed;
  call.Ok(result);
}

// GET /api/v1/snapshot/log?branch=main&limit=20&paths=…(repeated)
void SnapshotLog(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  SnapshotLogRequest request;
  request.branch = q.String("branch", "main");
  request.limit = static_cast<int>(q.Int("limit", 20));
  for (const auto& [name, value] : call.query().items()) {
    if (name == "paths") request.paths.push_back(value);
  }
  if (!errors.empty()) return call.FailValidation(errors);
  Result<std::vector<SnapshotCommitInfo>> log = call.db().SnapshotLog(call.who(), request);
  if (!log.ok()) return call.Fail(log.status());
  Json out = Json::array();
  for (const SnapshotCommitInfo& c : *log) out.push_back(SnapshotCommitJson(c));
  call.Ok(out);
}

// GET /api/v1/snapshot/show?target_ref=…[&path=…][&raw=true]
void SnapshotShow(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  const std::string ref = q.RequiredString("target_ref");
  const std::optional<std::string> path = call.query().Get("path");
  const bool raw = q.Bool("raw", true);
  if (!errors.empty()) return call.FailValidation(errors);
  if (!path) {
    Result<SnapshotCommitInfo> commit = call.db().SnapshotShow(call.who(), ref);
    if (!commit.ok()) return call.Fail(commit.status());
    return call.Ok(SnapshotCommitJson(*commit));
  }
  Result<SnapshotBlobContent> file = call.db().SnapshotShowFile(call.who(), ref, *path, raw);
  if (!file.ok()) return call.Fail(file.status());
  call.SetHeader("X-Snapshot-Oid", file->oid);
  call.SetHeader("X-Snapshot-Size", std::to_string(file->bytes.size()));
  call.Bytes(std::move(file->bytes), "application/octet-stream");
}

// GET /api/v1/snapshot/diff?path=…&to=…[&from=…] (`from_ref`, `to_ref` too)
void SnapshotDiff(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  const std::string path = q.RequiredString("path");
  std::optional<std::string> to = call.query().Get("to");
  if (!to) to = call.query().Get("to_ref");
  std::optional<std::string> from = call.query().Get("from");
  if (!from) from = call.query().Get("from_ref");
  q.Bool("raw", true);
  if (!to) {
    q.RequiredString("to");  // the validation error of a missing field
  }
  if (!errors.empty()) return call.FailValidation(errors);
  Result<SnapshotDiffResult> diff =
      call.db().SnapshotDiff(call.who(), path, from.value_or(""), *to);
  if (!diff.ok()) return SnapshotFail(call, diff.status());
  call.Ok(Json{{"path", diff->path},
               {"from_commit", diff->from_commit},
               {"to_commit", diff->to_commit},
               {"change_type", diff->change_type},
               {"diff_text", diff->diff_text}});
}

// POST /api/v1/snapshot/restore {source_commit, project_dir?, branch="main",
//   dry_run=false, message?, author_name?, author_email?}
void SnapshotRestore(Call& call) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  SnapshotRestoreRequest request;
  request.source_commit = b.RequiredString("source_commit");
  request.project_dir = b.OptionalString("project_dir");
  request.branch = b.String("branch", "main");
  request.dry_run = b.Bool("dry_run", false);
  request.message = b.OptionalString("message");
  request.author_name = b.OptionalString("author_name");
  request.author_email = b.OptionalString("author_email");
  b.ForbidExtra({"source_commit", "project_dir", "branch", "dry_run", "message", "author_name",
                 "author_email"});
  if (!errors.empty()) return call.FailValidation(errors);
  Result<SnapshotRestoreResult> done = call.db().SnapshotRestore(call.who(), request);
  if (!done.ok()) return SnapshotFail(call, done.status());
  const SnapshotRestoreResult& r = *done;
  if (r.outcome == SnapshotRestoreOutcome::kNoop) {
    return call.Ok(Json{{"result", "noop"}, {"head", r.head}, {"source", r.source}});
  }
  if (r.outcome == SnapshotRestoreOutcome::kDryRun) {
    Json writes = Json::array();
    for (const auto& w : r.to_write) writes.push_back(Json{{"path", w.path}, {"oid", w.oid}});
    return call.Ok(Json{
        {"result", "dry_run"},
        {"head", r.head},
        {"source", r.source},
        {"diff",
         {{"to_write", writes}, {"to_delete", r.to_delete}, {"unchanged", r.unchanged_paths}}}});
  }
  Json result = {{"result", "applied"},
                 {"new_commit_oid", r.new_commit_oid},
                 {"source_commit", r.source_commit},
                 {"parent_commit", r.parent_commit},
                 {"written", r.written},
                 {"deleted", r.deleted},
                 {"unchanged", r.unchanged},
                 {"written_paths", r.written_paths},
                 {"deleted_paths", r.deleted_paths}};
  if (!r.task_id.empty()) result["task_id"] = r.task_id;
  if (r.failed_writes.empty() && r.failed_deletes.empty()) return call.Ok(result);
  // Partial: the branch moved, some files did not follow. OpenViking answers
  // 500 RESTORE_WRITEBACK_PARTIAL with the whole result as details.
  result.erase("result");
  result["failed_writes"] = r.failed_writes;
  result["failed_deletes"] = r.failed_deletes;
  result["task_id"] = r.task_id.empty() ? Json(nullptr) : Json(r.task_id);
  call.Fail(Status::Internal(fmt::format(
                "snapshot restore partial: {} files not written, {} not deleted; the branch is "
                "at {} (they stay pending: restore again once what blocked them is fixed)",
                r.failed_writes.size(), r.failed_deletes.size(), r.new_commit_oid))
                .WithReason("RESTORE_WRITEBACK_PARTIAL"),
            &result);
}

// GET /api/v1/snapshot/ignore → the rules as a string ("" when none).
void SnapshotGetIgnore(Call& call) {
  Result<std::string> content = call.db().GetSnapshotIgnore(call.who());
  if (!content.ok()) return call.Fail(content.status());
  call.Ok(Json(*content));
}

// PUT /api/v1/snapshot/ignore {content} → null.
void SnapshotPutIgnore(Call& call) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  const std::string content = b.RequiredString("content");
  b.ForbidExtra({"content"});
  if (!errors.empty()) return call.FailValidation(errors);
  if (Status st = call.db().SetSnapshotIgnore(call.who(), content); !st.ok()) {
    return call.Fail(st);
  }
  call.Ok(Json(nullptr));
}

// DELETE /api/v1/snapshot/ignore → null (also when there were no rules).
void SnapshotDeleteIgnore(Call& call) {
  if (Status st = call.db().SetSnapshotIgnore(call.who(), ""); !st.ok()) return call.Fail(st);
  call.Ok(Json(nullptr));
}

}  // namespace

void RegisterSnapshotRoutes(Router& router) {
  router.Add("POST", "/api/v1/snapshot/commit", SnapshotCommit);
  router.Add("GET", "/api/v1/snapshot/log", SnapshotLog);
  router.Add("GET", "/api/v1/snapshot/show", SnapshotShow);
  router.Add("GET", "/api/v1/snapshot/diff", SnapshotDiff);
  router.Add("POST", "/api/v1/snapshot/restore", SnapshotRestore);
  router.Add("GET", "/api/v1/snapshot/ignore", SnapshotGetIgnore);
  router.Add("PUT", "/api/v1/snapshot/ignore", SnapshotPutIgnore);
  router.Add("DELETE", "/api/v1/snapshot/ignore", SnapshotDeleteIgnore);
}

}  // namespace skald::server
