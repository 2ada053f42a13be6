// Content routes (reference §2.3): read, abstract, overview, download, write,
// reindex.

#include <algorithm>
#include <chrono>

#include "server/routes.h"
#include "service/json_codec.h"

namespace skald::server {
namespace {

void Read(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  const std::string uri = q.RequiredString("uri");
  const int64_t offset = q.Int("offset", 0);
  const int64_t limit = q.Int("limit", -1);
  // Without `raw`, a memory file is read without its provenance header.
  const bool raw = q.Bool("raw", false);
  if (!errors.empty()) return call.FailValidation(errors);

  Result<std::string> text = call.db().Read(call.who(), uri, offset, limit, raw);
  if (!text.ok()) return call.Fail(text.status());
  call.Ok(Json(*text));
}

template <Result<std::string> (Db::*kMethod)(const Identity&, std::string_view)>
void SidecarRoute(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  const std::string uri = q.RequiredString("uri");
  if (!errors.empty()) return call.FailValidation(errors);

  Result<std::string> text = (call.db().*kMethod)(call.who(), uri);
  if (!text.ok()) return call.Fail(text.status());
  call.Ok(Json(*text));
}

void Download(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  const std::string uri = q.RequiredString("uri");
  if (!errors.empty()) return call.FailValidation(errors);

  Result<skald::Download> file = call.db().DownloadFile(call.who(), uri);
  if (!file.ok()) return call.Fail(file.status());
  call.SetHeader("Content-Disposition",
                 ContentDispositionAttachment(file->name.empty() ? "download" : file->name));
  call.Bytes(std::move(file->bytes), "application/octet-stream");
}


// Body {uri, content, mode, wait, timeout, telemetry, processing_mode, tags,
// tag_mode} (extra="forbid"); answered with the exclude-none envelope.
void Write(Call& call) {
  const auto start = std::chrono::steady_clock::now();
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  WriteRequest request;
  request.uri = b.RequiredString("uri");
  request.content = b.RequiredString("content");
  const std::string mode = b.Literal("mode", "replace", {"replace", "append", "create"});
  const bool wait = b.Bool("wait", false);
  request.wait = wait;
  request.timeout_s = b.OptionalFloat("timeout");
  bool telemetry_summary = false;
  const bool telemetry = b.Telemetry("telemetry", &telemetry_summary);
  // Accepted and validated; Skald has one processing path so far.
  (void)b.OptionalLiteral("processing_mode", {"semantic_and_vectors", "vectors_only"});
  // `ov write --tags`: the file's tags, replaced or merged in ("clear":
  // none left).
  if (auto tags = body->find("tags"); tags != body->end() && !tags->is_null()) {
    request.tags = b.StringList("tags", false);
    if (request.tags) errors.CheckTagList("tags", *request.tags);
  }
  const std::string tag_mode = b.Literal("tag_mode", "replace", {"replace", "append", "clear"});
  if (tag_mode == "clear") {
    request.tags = std::vector<std::string>();
  } else {
    request.tag_mode = tag_mode;
  }
  b.ForbidExtra({"uri", "content", "mode", "wait", "timeout", "telemetry", "processing_mode",
                 "tags", "tag_mode"});
  if (!errors.empty()) return call.FailValidation(errors);

  request.mode = mode == "append"   ? WriteMode::kAppend
                 : mode == "create" ? WriteMode::kCreate
                                    : WriteMode::kReplace;
  Result<WriteResult> written = call.db().Write(call.who(), request);
  if (!written.ok()) return call.Fail(written.status());

  Json result = WriteToJson(*written, wait);
  if (!telemetry) return call.OkExcludeNone(result);
  Json payload = TelemetryPayload("content.write", telemetry_summary, start);
  call.OkExcludeNone(result, &payload);
}

// Body {uri, mode, wait, timeout, dry_run, recursive, force, tags, tag_mode}
// (extra="forbid").
void Reindex(Call& call) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  ReindexRequest request;
  request.uri = b.RequiredString("uri");
  request.mode =
      b.Literal("mode", "vectors_only", {"vectors_only", "semantic_and_vectors", "prune_orphans"});
  request.wait = b.Bool("wait", true);
  request.timeout_s = b.OptionalFloat("timeout");
  request.dry_run = b.Bool("dry_run", false);
  request.recursive = b.Bool("recursive", true);
  // Accepted: every mode already redoes each record it covers, changed or not.
  (void)b.Bool("force", false);
  // Tags for the rebuilt records (none: they keep theirs).
  if (auto tags = body->find("tags"); tags != body->end() && !tags->is_null()) {
    request.tags = b.StringList("tags", false);
    if (request.tags) errors.CheckTagList("tags", *request.tags);
  }
  request.tag_mode = b.OptionalLiteral("tag_mode", {"replace", "append"}).value_or("replace");
  b.ForbidExtra(
      {"uri", "mode", "wait", "timeout", "dry_run", "recursive", "force", "tags", "tag_mode"});
  if (!errors.empty()) return call.FailValidation(errors);

  Result<ReindexResult> done = call.db().Reindex(call.who(), request);
  if (!done.ok()) return call.Fail(done.status());
  call.Ok(ReindexResultToJson(*done));
}

}  // namespace

void RegisterContentRoutes(Router& router) {
  router.Add("GET", "/api/v1/content/read", Read);
  router.Add("GET", "/api/v1/content/abstract", SidecarRoute<&Db::Abstract>);
  router.Add("GET", "/api/v1/content/overview", SidecarRoute<&Db::Overview>);
  router.Add("GET", "/api/v1/content/download", Download);
  router.Add("POST", "/api/v1/content/write", Write);
  router.Add("POST", "/api/v1/content/reindex", Reindex);
}

}  // namespace skald::server
