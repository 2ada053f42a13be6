// Skill routes (reference §2.5 POST /api/v1/skills, §2.6): add, list, find,
// validate, get, update and delete. Add and update answer with the
// exclude-none envelope (OpenViking's response_from_result), the others
// with the default one. The work is the service's (service/skill_ops.h).

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "common/strings.h"
#include "server/routes.h"
#include "service/json_codec.h"
#include "uri/viking_uri.h"

namespace skald::server {
namespace {

constexpr std::string_view kSkillPrefix = "/api/v1/skills/";
// The largest `source_metadata` (compact JSON) a skill keeps.
constexpr size_t kMaxSourceMetadataBytes = 64 * 1024;

// A target_uri given but empty names no skills root. A route that acts on
// one skill refuses it rather than fall back to the caller's own root: a
// delete or an update must not reach a skill the caller did not name.
Status EmptyTargetError() {
  return Status::InvalidArgument("target URI cannot be empty: name a skills root or omit it")
      .WithDetail("field", "target_uri");
}

// A one-line `data` naming a file or folder of the caller's machine
// ("/home/me/skill", "~/skills/x", "./x", "file:///..."), not SKILL.md text.
bool LooksLikeLocalPath(std::string_view data) {
  data = Trim(data);
  if (data.empty() || data.find('\n') != std::string_view::npos) return false;
  return data.starts_with('/') || data.starts_with("~/") || data == "~" ||
         data.starts_with("./") || data.starts_with("../") || data.starts_with("file://");
}

// The body of add (POST /api/v1/skills) and update (PUT
// /api/v1/skills/{name}); nullopt once an error response is written.
// `for_update`: the request names an existing skill (PUT).
std::optional<SkillRequest> ReadSkillRequest(Call& call, bool for_update, bool* telemetry,
                                             bool* summary) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return std::nullopt;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  SkillRequest request;
  const std::optional<std::string> temp_id = b.OptionalString("temp_file_id");
  request.wait = b.Bool("wait", false);
  request.timeout_s = b.OptionalFloat("timeout");
  const std::optional<std::string> target = b.OptionalString("target_uri");
  request.target_uri = target.value_or("");
  const bool empty_target = target.has_value() && Trim(*target).empty();
  if (auto it = body->find("source_metadata"); it != body->end() && !it->is_null()) {
    if (!it->is_object()) {
      errors.Add({"body", "source_metadata"}, "Input should be a valid dictionary", "dict_type");
    } else {
      request.source_metadata_json = it->dump();
      // Kept with every skill of the request: a description, not a payload.
      if (request.source_metadata_json.size() > kMaxSourceMetadataBytes) {
        errors.Add({"body", "source_metadata"},
                   fmt::format("source_metadata is larger than {} bytes as JSON",
                               kMaxSourceMetadataBytes),
                   "too_long");
      }
    }
  }
  request.list_only = b.Bool("list_only", false);
  // `skills`: the names to install from a source of several (ov add-skill -s).
  if (auto it = body->find("skills"); it != body->end() && !it->is_null()) {
    if (!it->is_array()) {
      errors.Add({"body", "skills"}, "Input should be a valid list", "list_type");
    } else {
      for (size_t i = 0; i < it->size(); ++i) {
        if (!(*it)[i].is_string()) {
          errors.Add({"body", "skills", std::to_string(i)}, "Input should be a valid string",
                     "string_type");
          continue;
        }
        request.skills.push_back((*it)[i].get<std::string>());
      }
    }
  }
  *telemetry = b.Telemetry("telemetry", summary);
  b.ForbidExtra({"data", "temp_file_id", "wait", "timeout", "source_metadata", "target_uri",
                 "telemetry", "list_only", "skills"});
  auto data = body->find("data");
  const bool has_data = data != body->end() && !data->is_null();
  const bool has_temp = temp_id.has_value() && !temp_id->empty();
  if (errors.empty() && !has_data && !has_temp) {
    errors.Add({"body"}, "Value error, either 'data' or 'temp_file_id' must be provided",
               "value_error");
  }
  if (!errors.empty()) {
    call.FailValidation(errors);
    return std::nullopt;
  }
  if (empty_target && for_update) {
    call.Fail(EmptyTargetError());
    return std::nullopt;
  }
  if (!has_temp && data->is_string() && LooksLikeLocalPath(data->get<std::string>())) {
    call.Fail(Status::PermissionDenied(
                  "the server does not read local paths: upload the skill (POST "
                  "/api/v1/resources/temp_upload, then its temp_file_id) or send its SKILL.md "
                  "text")
                  .WithDetail("resource", data->get<std::string>()));
    return std::nullopt;
  }
  if (has_temp) {
    if (!IsWellFormedTempId(*temp_id)) {
      call.Fail(ForgedTempId(*temp_id));
      return std::nullopt;
    }
    request.temp_file_id = *temp_id;
  } else {
    request.data_json = data->dump();
  }
  return request;
}

void AnswerSkillResult(Call& call, const SkillRequest& request, Result<SkillResult> done,
                       std::string_view operation, bool telemetry, bool summary,
                       std::chrono::steady_clock::time_point start) {
  if (!done.ok()) {
    const Status& status = done.status();
    if (!request.temp_file_id.empty() && status.code() == StatusCode::kPermissionDenied &&
        status.message().find(request.temp_file_id) != std::string::npos) {
      return call.Fail(ForgedTempId(request.temp_file_id));
    }
    return call.Fail(status);
  }
  if (request.list_only) {
    // What the source holds, for the client to choose from.
    Json listing = {{"skills", Json::array()}, {"total", done->listed.size()}};
    for (const SkillResult::Listed& skill : done->listed) {
      listing["skills"].push_back(
          {{"name", skill.name}, {"description", skill.description}, {"path", skill.path}});
    }
    return call.Ok(listing);
  }
  Json result = SkillResultToJson(*done, request.wait);
  if (!request.update_name.empty()) result["action"] = "update";
  if (!telemetry) return call.OkExcludeNone(result);
  Json payload = TelemetryPayload(operation, summary, start);
  call.OkExcludeNone(result, &payload);
}

// POST /api/v1/skills: {data | temp_file_id, wait, timeout, source_metadata,
// target_uri, telemetry, list_only, skills}.
void AddSkill(Call& call) {
  const auto start = std::chrono::steady_clock::now();
  bool telemetry = false;
  bool summary = false;
  std::optional<SkillRequest> request = ReadSkillRequest(call, false, &telemetry, &summary);
  if (!request) return;
  AnswerSkillResult(call, *request, call.db().AddSkill(call.who(), *request), "resources.add_skill",
                    telemetry, summary, start);
}

// PUT /api/v1/skills/{name}: as add, for an existing skill of that name.
void UpdateSkill(Call& call) {
  const auto start = std::chrono::steady_clock::now();
  bool telemetry = false;
  bool summary = false;
  std::optional<SkillRequest> request = ReadSkillRequest(call, true, &telemetry, &summary);
  if (!request) return;
  request->update_name = PathParameter(call, kSkillPrefix);
  AnswerSkillResult(call, *request, call.db().AddSkill(call.who(), *request),
                    "skills.update", telemetry, summary, start);
}

// The roots a listing or find reports: the target when given, else the
// caller's own skills root and the account's agent root.
void RootsJson(const Call& call, const std::string& target, Json* out) {
  if (!target.empty()) {
    (*out)["root_uri"] = target;
  } else {
    (*out)["root_uris"] = {"viking://user/" + call.who().user + "/skills",
                           "viking://agent/skills"};
  }
}

// GET /api/v1/skills?node_limit=1000&target_uri=
void ListSkills(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  // 0: no limit (OpenViking's API tests list every skill with it).
  const int64_t limit = q.Int("node_limit", 1000);
  const std::string target = q.String("target_uri", "");
  if (errors.empty() && limit < 0) {
    errors.Add({"query", "node_limit"}, "Input should be greater than or equal to 0",
               "greater_than_equal");
  }
  if (!errors.empty()) return call.FailValidation(errors);
  Result<std::vector<SkillInfo>> skills = call.db().ListSkills(call.who(), target, limit);
  if (!skills.ok()) return call.Fail(skills.status());
  Json out = Json::object();
  RootsJson(call, target, &out);
  out["skills"] = Json::array();
  SkillFields fields;
  fields.abstract = true;
  for (const SkillInfo& s : *skills) out["skills"].push_back(SkillInfoToJson(s, fields));
  out["total"] = skills->size();
  call.Ok(out);
}

// GET /api/v1/skills/{name}?target_uri=&include_content=&include_files=true
// &include_integrity=false&include_source=false&level=
// `level` picks one layer (0 abstract, 1 overview, 2 content); without it
// the abstract and overview come, and the content unless include_content
// is false. include_content=true adds the content to any level.
void GetSkill(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  const std::optional<std::string> target = call.query().Get("target_uri");
  const std::optional<int64_t> level = q.OptionalInt("level");
  const bool include_files = q.Bool("include_files", true);
  const bool include_integrity = q.Bool("include_integrity", false);
  const bool include_source = q.Bool("include_source", false);
  std::optional<bool> include_content;
  if (call.query().Get("include_content").has_value()) {
    include_content = q.Bool("include_content", false);
  }
  if (!errors.empty()) return call.FailValidation(errors);
  if (level.has_value() && (*level < 0 || *level > 2)) {
    return call.Fail(Status::InvalidArgument("Skill show level must be 0, 1, or 2")
                         .WithDetail("field", "level"));
  }
  if (target.has_value() && Trim(*target).empty()) return call.Fail(EmptyTargetError());
  SkillFields fields;
  fields.abstract = !level.has_value() || *level == 0;
  fields.read.overview = !level.has_value() || *level == 1;
  fields.read.content = level == 2 || include_content == true ||
                        (!level.has_value() && include_content != false);
  fields.read.files = include_files;
  fields.read.integrity = include_files && include_integrity;
  fields.read.source = include_source;
  Result<SkillInfo> skill = call.db().GetSkill(call.who(), PathParameter(call, kSkillPrefix),
                                               target.value_or(""), fields.read);
  if (!skill.ok()) return call.Fail(skill.status());
  call.Ok(SkillInfoToJson(*skill, fields));
}

// DELETE /api/v1/skills/{name}?target_uri=
void DeleteSkill(Call& call) {
  const std::optional<std::string> target = call.query().Get("target_uri");
  if (target.has_value() && Trim(*target).empty()) return call.Fail(EmptyTargetError());
  Result<SkillInfo> gone =
      call.db().DeleteSkill(call.who(), PathParameter(call, kSkillPrefix), target.value_or(""));
  if (!gone.ok()) return call.Fail(gone.status());
  // The skill's privacy config (category "skill") goes with it.
  Result<bool> privacy = call.db().DeletePrivacyConfig(call.who(), "skill", gone->name);
  if (!privacy.ok()) return call.Fail(privacy.status());
  call.Ok({{"name", gone->name},
           {"uri", gone->uri},
           {"root_uri", gone->uri},
           {"privacy_deleted", *privacy}});
}

// The skills root and the skill name of a URI inside a skill:
// viking://user/{uid}/skills/{name}/... or viking://agent/skills/{name}/...
bool SkillOfUri(std::string_view uri, std::string* root, std::string* name) {
  Result<VikingUri> parsed = VikingUri::Parse(uri);
  if (!parsed.ok()) return false;
  const std::vector<std::string>& s = parsed->segments();
  size_t at = 0;  // the name's segment
  if (s.size() >= 3 && s[0] == "agent" && s[1] == "skills") {
    at = 2;
  } else if (s.size() >= 4 && s[0] == "user" && s[2] == "skills") {
    at = 3;
  } else {
    return false;
  }
  VikingUri skills_root = *parsed;
  while (skills_root.depth() > at) skills_root = skills_root.Parent();
  *root = skills_root.str();
  *name = s[at];
  return true;
}

// A skill hit as OpenViking's skill routes show it: the hit (uri, level,
// score, abstract, ...) with the skill it is in, `skill`: {type, name,
// root_uri, skill_md_uri, description, tags, allowed_tools}.
Json SkillHitToJson(const MatchedContext& hit, const SkillInfo& skill) {
  Json out = MatchedContextToJson(hit);
  out["type"] = "skill";
  out["name"] = skill.name;
  out["root_uri"] = skill.uri;
  out["skill_md_uri"] = skill.uri + "/SKILL.md";
  out["description"] = skill.description;
  out["tags"] = skill.tags;
  out["allowed_tools"] = skill.allowed_tools;
  return out;
}

// POST /api/v1/skills/find: {query, limit=10, score_threshold?, level?,
// telemetry, target_uri?} -> {root_uri(s), skills, total}.
void FindSkills(Call& call) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  FindRequest request;
  request.query = b.RequiredString("query");
  const int limit = static_cast<int>(b.Int("limit", 10));
  request.limit = limit;
  request.score_threshold = b.OptionalFloat("score_threshold");
  const std::string target = b.OptionalString("target_uri").value_or("");
  bool summary = false;
  (void)b.Telemetry("telemetry", &summary);
  if (auto it = body->find("level"); it != body->end() && !it->is_null()) {
    const Json levels = it->is_array() ? *it : Json::array({*it});
    for (const Json& l : levels) {
      if (!l.is_number_integer()) {
        errors.Add({"body", "level"}, "Input should be a valid integer", "int_type");
        break;
      }
      request.levels.push_back(l.get<int>());
    }
  }
  b.ForbidExtra({"query", "limit", "score_threshold", "level", "telemetry", "target_uri"});
  if (!errors.empty()) return call.FailValidation(errors);
  request.context_types = {"skill"};
  request.target_uris =
      target.empty() ? std::vector<std::string>{"viking://user/" + call.who().user + "/skills",
                                                "viking://agent/skills"}
                     : std::vector<std::string>{target};
  // Several hits may fall in one skill: ask for more, keep `limit` skills.
  if (limit >= 1 && limit <= 1000) request.limit = std::min(1000, limit * 4);
  Result<FindResult> found = call.db().Find(call.who(), request);
  if (!found.ok()) return call.Fail(found.status());
  Json out = Json::object();
  RootsJson(call, target, &out);
  out["skills"] = Json::array();
  // One hit per skill (its best; hits come best first), as a listing of
  // skills: two files of one skill are one answer. Each skill is read once.
  std::set<std::string> seen;
  for (const MatchedContext& hit : found->skills) {
    if (out["skills"].size() >= static_cast<size_t>(limit)) break;
    std::string root, name;
    if (!SkillOfUri(hit.uri, &root, &name)) {
      out["skills"].push_back(MatchedContextToJson(hit));
      continue;
    }
    if (!seen.insert(root + "/" + name).second) continue;
    Result<SkillInfo> skill = call.db().GetSkill(call.who(), name, root, SkillReadOptions());
    if (!skill.ok() && skill.status().code() == StatusCode::kNotFound) continue;  // deleted meanwhile
    if (!skill.ok()) return call.Fail(skill.status());
    out["skills"].push_back(SkillHitToJson(hit, *skill));
  }
  out["total"] = out["skills"].size();
  call.Ok(out);
}

// POST /api/v1/skills/validate: {data, strict=false, source_path?,
// skill_dir_name?, target_uri?} -> the validation report.
void ValidateSkill(Call& call) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  const bool strict = b.Bool("strict", false);
  const std::string source_path = b.OptionalString("source_path").value_or("");
  const std::string dir_name = b.OptionalString("skill_dir_name").value_or("");
  (void)b.OptionalString("target_uri");
  b.ForbidExtra({"data", "strict", "source_path", "skill_dir_name", "target_uri"});
  auto data = body->find("data");
  if (errors.empty() && (data == body->end() || data->is_null())) {
    errors.Add({"body", "data"}, "Field required", "missing");
  }
  if (!errors.empty()) return call.FailValidation(errors);
  Result<SkillValidationReport> report =
      call.db().ValidateSkill(call.who(), data->dump(), strict, dir_name);
  if (!report.ok()) return call.Fail(report.status());
  report->source_path = source_path;
  call.Ok(SkillValidationToJson(*report));
}

}  // namespace

void RegisterSkillRoutes(Router& router) {
  router.Add("POST", "/api/v1/skills", AddSkill);
  router.Add("GET", "/api/v1/skills", ListSkills);
  router.Add("POST", "/api/v1/skills/find", FindSkills);
  router.Add("POST", "/api/v1/skills/validate", ValidateSkill);
  router.AddWithParameter("GET", std::string(kSkillPrefix), GetSkill);
  router.AddWithParameter("PUT", std::string(kSkillPrefix), UpdateSkill);
  router.AddWithParameter("DELETE", std::string(kSkillPrefix), DeleteSkill);
}

}  // namespace skald::server
