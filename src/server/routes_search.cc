// Search routes without a model (reference §2.4): glob and grep. Unknown
// body fields are ignored there (no extra="forbid").

#include <limits>

#include "server/routes.h"
#include "service/json_codec.h"

namespace skald::server {
namespace {

// `node_limit: Optional[int] = 256`: null means "no limit".
int NodeLimit(const std::optional<int64_t>& value) {
  return value.has_value() ? ClampToInt(*value) : std::numeric_limits<int>::max();
}

// Body {pattern, uri="viking://", node_limit=256}.
void Glob(Call& call) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  GlobRequest request;
  request.pattern = b.RequiredString("pattern");
  request.uri = b.String("uri", "viking://");
  request.node_limit = NodeLimit(b.NullableInt("node_limit", 256));
  if (!errors.empty()) return call.FailValidation(errors);

  Result<GlobResult> result = call.db().Glob(call.who(), request);
  if (!result.ok()) return call.Fail(result.status());
  call.Ok(GlobToJson(*result));
}

// Body {uri, pattern, exclude_uri?, case_insensitive=false, node_limit=256, level_limit=10}.
void Grep(Call& call) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  GrepRequest request;
  request.uri = b.RequiredString("uri");
  request.exclude_uri = b.OptionalString("exclude_uri").value_or("");
  request.pattern = b.RequiredString("pattern");
  request.case_insensitive = b.Bool("case_insensitive", false);
  request.node_limit = NodeLimit(b.NullableInt("node_limit", 256));
  request.level_limit = ClampToInt(b.Int("level_limit", 10));
  if (!errors.empty()) return call.FailValidation(errors);

  Result<GrepResult> result = call.db().Grep(call.who(), request);
  if (!result.ok()) return call.Fail(result.status());
  call.Ok(GrepToJson(*result));
}

}  // namespace

void RegisterSearchRoutes(Router& router) {
  router.Add("POST", "/api/v1/search/glob", Glob);
  router.Add("POST", "/api/v1/search/grep", Grep);
}

}  // namespace skald::server
