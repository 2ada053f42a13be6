// Resource routes (reference §2.5): POST /api/v1/resources/temp_upload
// (multipart upload) and POST /api/v1/resources (add_resource, extra="forbid").
// Both answer with the exclude-none envelope, as OpenViking's
// response_from_result does.

#include <fmt/format.h>
#include <httplib.h>

#include <chrono>

#include "common/strings.h"
#include "server/routes.h"
#include "service/json_codec.h"

namespace skald::server {
namespace {

constexpr std::string_view kLocalPathRefused =
    "HTTP server only accepts remote resource URLs or temp-uploaded files";

// A source OpenViking fetches itself rather than reading from the server's disk.
bool IsRemoteSource(std::string_view path) {
  const std::string lower = AsciiLower(path.substr(0, 8));
  for (std::string_view scheme : {"http://", "https://", "ssh://", "git://", "tos://", "git@"}) {
    if (std::string_view(lower).substr(0, scheme.size()) == scheme) return true;
  }
  return false;
}

// include/exclude/ignore_dirs: a comma-separated string (what the `ov` CLI
// sends) or a list of strings. Absent or null -> empty.
std::vector<std::string> PatternList(const Json& body, std::string_view name,
                                     ValidationErrors* errors) {
  std::vector<std::string> out;
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return out;
  auto add = [&](std::string_view text) {
    for (const std::string& piece : Split(text, ',')) {
      if (!Trim(piece).empty()) out.emplace_back(Trim(piece));
    }
  };
  if (it->is_string()) {
    add(it->get_ref<const std::string&>());
    return out;
  }
  if (it->is_array()) {
    bool all_strings = true;
    for (const Json& item : *it) {
      if (!item.is_string()) {
        all_strings = false;
        break;
      }
      add(item.get_ref<const std::string&>());
    }
    if (all_strings) return out;
  }
  errors->Add({"body", std::string(name)}, "Input should be a valid string or a list of strings",
              "string_type");
  return {};
}

// POST /api/v1/resources/temp_upload: multipart `file` (required), form
// fields `telemetry` and `upload_mode` (local|shared; both store locally).
void TempUpload(Call& call) {
  const auto start = std::chrono::steady_clock::now();
  const httplib::Request& req = call.request();
  ValidationErrors errors;
  if (!req.is_multipart_form_data() || !req.has_file("file")) {
    errors.Add({"body", "file"}, "Field required", "missing");
    return call.FailValidation(errors);
  }
  bool telemetry = false;
  if (req.has_file("telemetry")) {
    const std::string value = req.get_file_value("telemetry").content;
    if (!ParseBool(Trim(value), &telemetry)) {
      errors.Add({"body", "telemetry"},
                 "Input should be a valid boolean, unable to interpret input", "bool_parsing");
    }
  }
  if (req.has_file("upload_mode")) {
    const std::string mode = req.get_file_value("upload_mode").content;
    if (mode != "local" && mode != "shared") {
      errors.Add({"body", "upload_mode"}, "Input should be 'local' or 'shared'", "literal_error");
    }
  }
  if (!errors.empty()) return call.FailValidation(errors);

  // By reference: the part may be as large as server.max_upload_bytes.
  const httplib::MultipartFormData& file = req.files.find("file")->second;
  Result<std::string> id = call.db().TempUpload(call.who(), file.filename, file.content);
  if (!id.ok()) return call.Fail(id.status());
  Json result = {{"temp_file_id", *id}};
  if (!telemetry) return call.OkExcludeNone(result);
  Json payload = TelemetryPayload("resources.temp_upload", telemetry, start);
  call.OkExcludeNone(result, &payload);
}

// POST /api/v1/resources (extra="forbid"). Sources: `temp_file_id` (wins)
// or an http(s) `path` (fetched by the import job; non-public hosts 403
// unless allow_private_networks); local paths are refused (403) and other
// remote sources (git, ssh, tos) are not implemented yet (501).
void AddResource(Call& call) {
  const auto start = std::chrono::steady_clock::now();
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  AddResourceRequest request;
  const std::optional<std::string> path = b.OptionalString("path");
  const std::optional<std::string> temp_id = b.OptionalString("temp_file_id");
  (void)b.OptionalString("add_type");  // Skald detects the type from the file
  request.to = b.OptionalString("to").value_or("");
  request.parent = b.OptionalString("parent").value_or("");
  request.create_parent = b.Bool("create_parent", false);
  request.reason = b.String("reason", "");
  request.instruction = b.String("instruction", "");
  request.wait = b.Bool("wait", false);
  request.timeout_s = b.OptionalFloat("timeout");
  (void)b.Bool("strict", false);
  request.source_name = b.OptionalString("source_name").value_or("");
  request.ignore_dirs = PatternList(*body, "ignore_dirs", &errors);
  request.include = PatternList(*body, "include", &errors);
  request.exclude = PatternList(*body, "exclude", &errors);
  (void)b.Bool("directly_upload_media", true);
  if (auto it = body->find("preserve_structure"); it != body->end() && !it->is_null()) {
    (void)b.Bool("preserve_structure", false);
  }
  if (auto it = body->find("args"); it != body->end() && !it->is_null()) {
    if (!it->is_object()) {
      errors.Add({"body", "args"}, "Input should be a valid dictionary", "dict_type");
    } else if (auto mode = it->find("parse_mode"); mode != it->end() && !mode->is_null()) {
      // Other args are parser options of OpenViking's; Skald has none yet.
      if (!mode->is_string() || (*mode != "default" && *mode != "no_split")) {
        errors.Add({"body", "args", "parse_mode"}, "Input should be 'default' or 'no_split'",
                   "literal_error");
      } else {
        request.parse_mode = mode->get<std::string>();
      }
    }
  }
  bool telemetry_summary = false;
  const bool telemetry = b.Telemetry("telemetry", &telemetry_summary);
  const double watch_interval = b.OptionalFloat("watch_interval").value_or(0);
  request.processing_mode =
      b.OptionalLiteral("processing_mode", {"semantic_and_vectors", "vectors_only"})
          .value_or("semantic_and_vectors");
  request.tags = PatternList(*body, "tags", &errors);
  errors.CheckTagList("tags", request.tags);
  request.tag_mode = b.Literal("tag_mode", "replace", {"replace", "append"});
  // OpenViking's watch switch and its own scheduler's flag: accepted (Skald
  // keeps no watches).
  (void)b.Bool("is_active", true);
  (void)b.Bool("internal_task", false);
  b.ForbidExtra({"path",
                 "temp_file_id",
                 "add_type",
                 "to",
                 "parent",
                 "create_parent",
                 "reason",
                 "instruction",
                 "wait",
                 "timeout",
                 "strict",
                 "source_name",
                 "ignore_dirs",
                 "include",
                 "exclude",
                 "directly_upload_media",
                 "preserve_structure",
                 "args",
                 "telemetry",
                 "watch_interval",
                 "processing_mode",
                 "is_active",
                 "internal_task",
                 "tags",
                 "tag_mode"});
  const bool has_temp = temp_id.has_value() && !temp_id->empty();
  if (errors.empty()) {
    if (!has_temp && !path.has_value()) {
      errors.Add({"body"}, "Value error, either 'path' or 'temp_file_id' must be provided",
                 "value_error");
    } else if (!request.to.empty() && !request.parent.empty()) {
      errors.Add({"body"}, "Value error, 'to' and 'parent' cannot be used together", "value_error");
    } else if (watch_interval > 0 && request.to.empty()) {
      // OpenViking's order: a watch needs its target before anything else.
      errors.Add({"body", "watch_interval"},
                 "Value error, watch_interval > 0 requires 'to' to be specified (target URI to "
                 "watch)",
                 "value_error");
    } else if (has_temp && watch_interval > 0) {
      errors.Add({"body", "watch_interval"},
                 "Value error, watch_interval > 0 cannot be used with temp_file_id: uploaded "
                 "content has no source to watch",
                 "value_error");
    }
  }
  if (!errors.empty()) return call.FailValidation(errors);

  if (has_temp) {
    if (!IsWellFormedTempId(*temp_id)) return call.Fail(ForgedTempId(*temp_id));
    request.temp_file_id = *temp_id;
  } else if (Trim(*path).empty()) {
    return call.Fail(Status::InvalidArgument("path must not be empty"));
  } else if (IsRemoteSource(*path)) {
    // Fetched by the import job (http(s)), or refused by Db::AddResource
    // (repositories: a non-public host 403, else not supported yet).
    request.path = std::string(Trim(*path));
  } else {
    return call.Fail(
        Status::PermissionDenied(std::string(kLocalPathRefused)).WithDetail("resource", *path));
  }

  Result<AddResourceResult> added = call.db().AddResource(call.who(), request);
  if (!added.ok()) {
    const Status& status = added.status();
    // An upload that does not exist (or is not the caller's) is refused, not
    // "not found": ids must not be probeable.
    const std::string& id = request.temp_file_id;
    bool about_temp_id = !id.empty() && status.message().find(id) != std::string::npos;
    for (const auto& [key, value] : status.details()) {
      if (!id.empty() && value == id) about_temp_id = true;
    }
    if (status.code() == StatusCode::kNotFound && about_temp_id) {
      return call.Fail(ForgedTempId(request.temp_file_id));
    }
    return call.Fail(status);
  }
  if (request.wait && added->task_status != TaskState::kCompleted) {
    // The wait timed out (OpenViking's 504): the import goes on.
    const std::string& id = added->task_id;
    const std::string after =
        request.timeout_s ? fmt::format(" after {}s", *request.timeout_s) : std::string();
    const Json details = {
        {"task_id", id}, {"timeout", request.timeout_s ? Json(*request.timeout_s) : Json(nullptr)}};
    return call.Fail(
        Status::DeadlineExceeded(fmt::format(
            "Waiting for resource import timed out{}; this does not cancel or fail the "
            "background task, which goes on: follow it with `ov task status {}` or `skald task "
            "{}` (GET /api/v1/tasks/{})",
            after, id, id, id)),
        &details);
  }
  Json result = AddResourceResultToJson(*added, request.wait);
  if (watch_interval > 0) {
    // Accepted, as OpenViking's, but Skald keeps no watches: said, not dropped.
    if (!result.contains("warnings") || !result["warnings"].is_array()) {
      result["warnings"] = Json::array();
    }
    result["warnings"].push_back(
        "watch_interval is not supported by Skald: the resource was added once and is not "
        "watched for changes (add it again to refresh it)");
  }
  if (!telemetry) return call.OkExcludeNone(result);
  Json payload = TelemetryPayload("resources.add_resource", telemetry_summary, start);
  if (payload.contains("summary")) {
    // OpenViking's resource breakdown: the request's time and what it did.
    payload["summary"]["resource"] = {
        {"request", {{"duration_ms", payload["summary"]["duration_ms"]}}},
        {"flags",
         {{"wait", request.wait},
          {"build_index", true},
          {"summarize", true},
          {"watch_enabled", false}}}};
  }
  call.OkExcludeNone(result, &payload);
}

}  // namespace

void RegisterResourceRoutes(Router& router) {
  router.Add("POST", "/api/v1/resources/temp_upload", TempUpload);
  router.Add("POST", "/api/v1/resources", AddResource);
}

}  // namespace skald::server
