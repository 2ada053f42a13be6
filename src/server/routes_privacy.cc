// /api/v1/privacy-configs*: OpenViking's privacy configs (reference §2.12)
// over the Db's privacy calls (service/privacy_ops.h). GETs list the
// categories, a category's target keys, a config ({meta, current}), its
// versions and one version; POST upserts a config ({values, change_reason,
// labels}, extra="forbid") and POST .../activate makes a version active
// ({version}).

#include <httplib.h>

#include "server/http_util.h"
#include "server/routes.h"

namespace skald::server {
namespace {

constexpr std::string_view kPrefix = "/api/v1/privacy-configs/";

// A JSON text the Db answered, as the envelope's result.
void OkJsonText(Call& call, Result<std::string> text) {
  if (!text.ok()) return call.Fail(text.status());
  Result<Json> parsed = ParseJson(*text);
  if (!parsed.ok()) return call.Fail(parsed.status());
  call.Ok(*parsed);
}

void OkNames(Call& call, Result<std::vector<std::string>> names) {
  if (!names.ok()) return call.Fail(names.status());
  call.Ok(Json(*names));
}

// A `{version}` path segment: a non-negative integer, else a 400 as a
// validation error of the path.
std::optional<int> VersionParameter(Call& call, const std::string& text) {
  int v = 0;
  bool digits = !text.empty() && text.size() <= 9;
  for (char c : text) {
    digits = digits && c >= '0' && c <= '9';
    if (digits) v = v * 10 + (c - '0');
  }
  if (digits) return v;
  ValidationErrors errors;
  errors.Add({"path", "version"},
             "Input should be a valid integer, unable to parse string as an "
             "integer",
             "int_parsing");
  call.FailValidation(errors);
  return std::nullopt;
}

// GET /api/v1/privacy-configs
void ListCategories(Call& call) { OkNames(call, call.db().ListPrivacyConfigs(call.who(), "")); }

// GET /api/v1/privacy-configs/{category}
void ListTargets(Call& call) {
  OkNames(call, call.db().ListPrivacyConfigs(call.who(), PathParameter(call, kPrefix)));
}

// GET /api/v1/privacy-configs/{category}/{target_key}
void GetConfig(Call& call) {
  std::vector<std::string> p = PatternParameters(call, "/api/v1/privacy-configs/{}/{}");
  OkJsonText(call, call.db().GetPrivacyConfig(call.who(), p[0], p[1]));
}

// GET /api/v1/privacy-configs/{category}/{target_key}/versions
void ListVersions(Call& call) {
  std::vector<std::string> p = PatternParameters(call, "/api/v1/privacy-configs/{}/{}/versions");
  Result<std::vector<int>> versions = call.db().PrivacyConfigVersions(call.who(), p[0], p[1]);
  if (!versions.ok()) return call.Fail(versions.status());
  call.Ok(Json(*versions));
}

// GET /api/v1/privacy-configs/{category}/{target_key}/versions/{version}
void GetVersion(Call& call) {
  std::vector<std::string> p = PatternParameters(call, "/api/v1/privacy-configs/{}/{}/versions/{}");
  std::optional<int> version = VersionParameter(call, p[2]);
  if (!version) return;
  OkJsonText(call, call.db().GetPrivacyConfigVersion(call.who(), p[0], p[1], *version));
}

// POST /api/v1/privacy-configs/{category}/{target_key} {values, change_reason="", labels?}
void Upsert(Call& call) {
  std::vector<std::string> p = PatternParameters(call, "/api/v1/privacy-configs/{}/{}");
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  std::optional<Json> values = b.Object("values", /*required=*/true);
  const std::string change_reason = b.String("change_reason", "");
  std::optional<Json> labels = b.Object("labels", /*required=*/false);
  b.ForbidExtra({"values", "change_reason", "labels"});
  if (!errors.empty()) return call.FailValidation(errors);
  OkJsonText(call,
             call.db().UpsertPrivacyConfig(call.who(), p[0], p[1], DumpJson(*values), change_reason,
                                           labels ? DumpJson(*labels) : std::string()));
}

// POST /api/v1/privacy-configs/{category}/{target_key}/activate {version}
void Activate(Call& call) {
  std::vector<std::string> p = PatternParameters(call, "/api/v1/privacy-configs/{}/{}/activate");
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  const int64_t version = b.RequiredInt("version");
  b.ForbidExtra({"version"});
  if (!errors.empty()) return call.FailValidation(errors);
  if (version < 0 || version > 999999999) {
    return call.Fail(Status::NotFound("Privacy config not found: " + p[0] + "/" + p[1] +
                                      "/versions/" + std::to_string(version)));
  }
  OkJsonText(call,
             call.db().ActivatePrivacyConfig(call.who(), p[0], p[1], static_cast<int>(version)));
}

}  // namespace

void RegisterPrivacyRoutes(Router& router) {
  router.Add("GET", "/api/v1/privacy-configs", ListCategories);
  router.AddWithParameter("GET", std::string(kPrefix), ListTargets);
  router.AddPattern("GET", "/api/v1/privacy-configs/{}/{}", GetConfig);
  router.AddPattern("POST", "/api/v1/privacy-configs/{}/{}", Upsert);
  router.AddPattern("GET", "/api/v1/privacy-configs/{}/{}/versions", ListVersions);
  router.AddPattern("GET", "/api/v1/privacy-configs/{}/{}/versions/{}", GetVersion);
  router.AddPattern("POST", "/api/v1/privacy-configs/{}/{}/activate", Activate);
}

}  // namespace skald::server
