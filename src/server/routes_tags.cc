// Tag routes (reference §2.2 fs/attrs, §2.3 set_tags): a node's "k=v"
// search tags, read and set. Rules of the tags themselves: common/tags.h.

#include <chrono>

#include "server/routes.h"

namespace skald::server {
namespace {

Json SetTagsResultToJson(const SetTagsResult& r) {
  return Json{{"uri", r.uri},
              {"updated_uris", r.updated_uris},
              {"root_uri", r.root_uri},
              {"context_type", r.context_type},
              {"tags", r.tags},
              {"mode", r.mode},
              {"success_count", r.updated_uris.size()},
              {"skipped_count", r.skipped_count},
              {"failed_count", 0},
              {"tags_updated", !r.updated_uris.empty()}};
}

// POST /api/v1/content/set_tags and /api/v1/fs/attrs/set_tags: body {uri,
// tags, mode ("replace"), recursive (false), telemetry} (extra="forbid");
// answered with the exclude-none envelope.
void SetTags(Call& call) {
  const auto start = std::chrono::steady_clock::now();
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  SetTagsRequest request;
  request.uri = b.RequiredString("uri");
  std::optional<std::vector<std::string>> tags = b.StringList("tags", true);
  request.mode = b.String("mode", "replace");
  request.recursive = b.Bool("recursive", false);
  bool summary = false;
  const bool telemetry = b.Telemetry("telemetry", &summary);
  b.ForbidExtra({"uri", "tags", "mode", "recursive", "telemetry"});
  if (tags) errors.CheckTagList("tags", *tags);
  if (!errors.empty()) return call.FailValidation(errors);
  request.tags = std::move(*tags);

  Result<SetTagsResult> done = call.db().SetTags(call.who(), request);
  if (!done.ok()) return call.Fail(done.status());
  Json result = SetTagsResultToJson(*done);
  if (!telemetry) return call.OkExcludeNone(result);
  Json payload = TelemetryPayload("content.set_tags", summary, start);
  call.OkExcludeNone(result, &payload);
}

// GET /api/v1/fs/attrs?uri=: {uri, context_type, attrs: {tags}}.
void Attrs(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  const std::string uri = q.RequiredString("uri");
  if (!errors.empty()) return call.FailValidation(errors);
  Result<NodeAttrs> attrs = call.db().Attrs(call.who(), uri);
  if (!attrs.ok()) return call.Fail(attrs.status());
  call.Ok(Json{{"uri", attrs->uri},
               {"context_type", attrs->context_type},
               {"attrs", Json{{"tags", attrs->tags}}}});
}

}  // namespace

void RegisterTagRoutes(Router& router) {
  router.Add("POST", "/api/v1/content/set_tags", SetTags);
  router.Add("POST", "/api/v1/fs/attrs/set_tags", SetTags);
  router.Add("GET", "/api/v1/fs/attrs", Attrs);
}

}  // namespace skald::server
