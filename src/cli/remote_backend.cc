// RemoteBackend: sends exactly the requests OpenViking's `ov` CLI sends
// (reference §2.2-2.4, §3.3) and unwraps the {"status","result","error"}
// envelope.

#include "cli/remote_backend.h"

#include <fmt/format.h>
#include <httplib.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <utility>

#include "cli/admin_commands.h"
#include "cli/backend.h"
#include "cli/dir_zip.h"
#include "cli/local_file.h"
#include "cli/session_commands.h"
#include "common/strings.h"
#include "server/auth.h"

namespace skald::cli {
namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

std::string BoolParam(bool b) { return b ? "true" : "false"; }

std::string_view WriteModeName(WriteMode mode) {
  switch (mode) {
    case WriteMode::kReplace:
      return "replace";
    case WriteMode::kAppend:
      return "append";
    case WriteMode::kCreate:
      return "create";
  }
  return "replace";
}

// Why a request got no HTTP response, in words a user can act on.
std::string DescribeTransportError(httplib::Error error, double timeout_seconds) {
  switch (error) {
    case httplib::Error::Connection:
      return "could not connect (is `skald serve` running there?)";
    case httplib::Error::ConnectionTimeout:
      return fmt::format("connection timed out after {}s", timeout_seconds);
    case httplib::Error::Read:
      return fmt::format("no complete response within {}s (timeout or connection closed)",
                         timeout_seconds);
    case httplib::Error::Write:
      return "the connection broke while sending the request";
    case httplib::Error::SSLConnection:
    case httplib::Error::SSLLoadingCerts:
    case httplib::Error::SSLServerVerification:
      return "TLS handshake failed (" + httplib::to_string(error) + ")";
    default:
      return "request failed (" + httplib::to_string(error) + ")";
  }
}

// Sources the server fetches itself (not uploaded from here).
bool IsRemoteUrl(std::string_view path) {
  const std::string lower = AsciiLower(path.substr(0, 8));
  for (std::string_view scheme : {"http://", "https://", "ssh://", "git://", "tos://", "git@"}) {
    if (std::string_view(lower).substr(0, scheme.size()) == scheme) return true;
  }
  return false;
}

struct HttpReply {
  int status = 0;
  std::string body;
};

class RemoteBackend final : public Backend {
 public:
  RemoteBackend(RemoteOptions options, ServerUrl url)
      : options_(std::move(options)), url_(std::move(url)), client_(url_.scheme_host_port) {
    // Paths and queries are percent-encoded here; httplib must not re-encode.
    client_.set_url_encode(false);
    auto whole = static_cast<time_t>(options_.timeout_seconds);
    auto micros = static_cast<time_t>(
        std::llround((options_.timeout_seconds - static_cast<double>(whole)) * 1e6));
    client_.set_connection_timeout(whole, micros);
    client_.set_read_timeout(whole, micros);
    client_.set_write_timeout(whole, micros);
    if (!options_.api_key.empty()) headers_.emplace("X-API-Key", options_.api_key);
    if (!options_.account.empty()) headers_.emplace("X-OpenViking-Account", options_.account);
    if (!options_.user.empty()) headers_.emplace("X-OpenViking-User", options_.user);
  }

  std::string Describe() const override { return "server " + options_.url; }

  Result<Json> Ls(const LsArgs& args) override {
    const LsOptions& o = args.options;
    return GetJson("/api/v1/fs/ls", {{"uri", args.uri},
                                     {"simple", BoolParam(args.simple)},
                                     {"recursive", BoolParam(o.recursive)},
                                     {"output", "agent"},
                                     {"abs_limit", std::to_string(o.abs_limit)},
                                     {"show_all_hidden", BoolParam(o.show_all_hidden)},
                                     {"node_limit", std::to_string(o.node_limit)}});
  }

  Result<Json> Tree(const LsArgs& args) override {
    const LsOptions& o = args.options;
    return GetJson("/api/v1/fs/tree", {{"uri", args.uri},
                                       {"output", "agent"},
                                       {"abs_limit", std::to_string(o.abs_limit)},
                                       {"show_all_hidden", BoolParam(o.show_all_hidden)},
                                       {"node_limit", std::to_string(o.node_limit)},
                                       {"level_limit", std::to_string(o.level_limit)}});
  }

  Result<Json> Stat(const std::string& uri) override {
    return GetJson("/api/v1/fs/stat", {{"uri", uri}});
  }

  Result<Json> Mkdir(const std::string& uri, const std::string& description) override {
    Json body{{"uri", uri}};
    if (!description.empty()) body["description"] = description;
    return PostJson("/api/v1/fs/mkdir", body);
  }

  Result<Json> Rm(const std::string& uri, bool recursive) override {
    SKALD_ASSIGN_OR_RETURN(
        HttpReply reply,
        Send("DELETE", "/api/v1/fs", {{"uri", uri}, {"recursive", BoolParam(recursive)}}, ""));
    return UnwrapEnvelope(reply.status, reply.body, options_.url);
  }

  Result<Json> Mv(const std::string& from, const std::string& to) override {
    return PostJson("/api/v1/fs/mv", Json{{"from_uri", from}, {"to_uri", to}});
  }

  Result<Json> Read(const ReadArgs& args) override {
    Params params{{"uri", args.uri}};
    if (args.offset != 0) params.emplace_back("offset", std::to_string(args.offset));
    if (args.limit != -1) params.emplace_back("limit", std::to_string(args.limit));
    if (args.raw) params.emplace_back("raw", "true");
    return GetJson("/api/v1/content/read", params);
  }

  Result<Json> Abstract(const std::string& uri) override {
    return GetJson("/api/v1/content/abstract", {{"uri", uri}});
  }

  Result<Json> Overview(const std::string& uri) override {
    return GetJson("/api/v1/content/overview", {{"uri", uri}});
  }

  Result<Json> Write(const WriteRequest& request) override {
    Json body{
        {"uri", request.uri}, {"content", request.content}, {"mode", WriteModeName(request.mode)}};
    if (request.wait) body["wait"] = true;
    if (request.timeout_s) body["timeout"] = *request.timeout_s;
    return PostJson("/api/v1/content/write", body);
  }

  Result<std::string> Download(const std::string& uri) override {
    SKALD_ASSIGN_OR_RETURN(HttpReply reply,
                           Send("GET", "/api/v1/content/download", {{"uri", uri}}, ""));
    if (reply.status >= 200 && reply.status < 300) return std::move(reply.body);
    // Errors come as an envelope; UnwrapEnvelope turns it into the Status.
    Result<Json> unwrapped = UnwrapEnvelope(reply.status, reply.body, options_.url);
    if (!unwrapped.ok()) return unwrapped.status();
    return Status::Internal(fmt::format("download from {} answered HTTP {} without an error",
                                        options_.url, reply.status));
  }

  Result<skald::Download> ExportPack(const std::string& uri, bool include_vectors) override {
    Json body{{"include_vectors", include_vectors}};
    if (!uri.empty()) body["uri"] = uri;
    SKALD_ASSIGN_OR_RETURN(HttpReply reply,
                           Send("POST", uri.empty() ? "/api/v1/pack/backup" : "/api/v1/pack/export",
                                {}, DumpJson(body)));
    if (reply.status >= 200 && reply.status < 300) {
      // The package's name: the leaf of the URI as the server reads it (no
      // query, no trailing '/'), as the server names its attachment.
      std::string leaf = uri.substr(0, uri.find('?'));
      while (leaf.size() > 1 && leaf.back() == '/') leaf.pop_back();
      leaf = leaf.substr(leaf.rfind('/') + 1);
      std::string name = uri.empty() ? "openviking-backup" : leaf.empty() ? "export" : leaf;
      return skald::Download{name + ".ovpack", std::move(reply.body)};
    }
    Result<Json> unwrapped = UnwrapEnvelope(reply.status, reply.body, options_.url);
    if (!unwrapped.ok()) return unwrapped.status();
    return Status::Internal(fmt::format("pack export from {} answered HTTP {} without an error",
                                        options_.url, reply.status));
  }

  Result<Json> ImportPack(const std::string& filename, const std::string& bytes,
                          PackImportRequest request, bool restore) override {
    SKALD_ASSIGN_OR_RETURN(std::string id, UploadBytes(bytes, filename));
    Json body{{"temp_file_id", id},
              {"on_conflict", request.on_conflict},
              {"vector_mode", request.vector_mode}};
    if (!restore) body["parent"] = request.parent;
    return PostJson(restore ? "/api/v1/pack/restore" : "/api/v1/pack/import", body);
  }

  Result<Json> Glob(const GlobRequest& request) override {
    Json body{
        {"pattern", request.pattern}, {"uri", request.uri}, {"node_limit", request.node_limit}};
    if (!request.tags.empty()) body["tags"] = request.tags;
    return PostJson("/api/v1/search/glob", body);
  }

  Result<Json> Grep(const GrepRequest& request) override {
    Json body{{"uri", request.uri},
              {"pattern", request.pattern},
              {"case_insensitive", request.case_insensitive},
              {"node_limit", request.node_limit},
              {"level_limit", request.level_limit}};
    if (!request.exclude_uri.empty()) body["exclude_uri"] = request.exclude_uri;
    if (!request.tags.empty()) body["tags"] = request.tags;
    return PostJson("/api/v1/search/grep", body);
  }

  Result<Json> AddResource(const AddResourceRequest& request) override {
    Json body = Json::object();
    if (IsRemoteUrl(request.path)) {
      body["path"] = request.path;  // the server decides whether it can fetch it
    } else {
      std::string source_name = request.source_name;
      SKALD_ASSIGN_OR_RETURN(std::string temp_id, Upload(request.path, &source_name));
      body["temp_file_id"] = temp_id;
      if (!source_name.empty()) body["source_name"] = source_name;
    }
    if (!request.to.empty()) body["to"] = request.to;
    if (!request.parent.empty()) body["parent"] = request.parent;
    if (request.create_parent) body["create_parent"] = true;
    if (IsRemoteUrl(request.path) && !request.source_name.empty()) {
      body["source_name"] = request.source_name;
    }
    if (request.parse_mode != "default") body["args"] = {{"parse_mode", request.parse_mode}};
    if (request.processing_mode != "semantic_and_vectors") {
      body["processing_mode"] = request.processing_mode;
    }
    body["reason"] = request.reason;
    body["instruction"] = request.instruction;
    // The `ov` CLI sends these as comma-separated strings.
    if (!request.include.empty()) body["include"] = Join(request.include, ",");
    if (!request.exclude.empty()) body["exclude"] = Join(request.exclude, ",");
    if (!request.ignore_dirs.empty()) body["ignore_dirs"] = Join(request.ignore_dirs, ",");
    if (!request.tags.empty()) body["tags"] = request.tags;
    body["wait"] = false;
    return PostJson("/api/v1/resources", body);
  }

  Result<Json> Reindex(const ReindexRequest& request) override {
    Json body{{"uri", request.uri},
              {"mode", request.mode},
              {"wait", request.wait},
              {"dry_run", request.dry_run},
              {"recursive", request.recursive}};
    if (request.timeout_s.has_value()) body["timeout"] = *request.timeout_s;
    return PostJson("/api/v1/content/reindex", body);
  }

  Result<Json> AddSkill(const SkillRequest& request) override {
    Json data = Json::parse(request.data_json, nullptr, /*allow_exceptions=*/false);
    if (data.is_discarded()) return UsageError("add-skill: the skill data is not valid JSON");
    Json body{{"data", std::move(data)}, {"wait", request.wait}};
    if (request.timeout_s.has_value()) body["timeout"] = *request.timeout_s;
    if (!request.target_uri.empty()) body["target_uri"] = request.target_uri;
    return PostJson("/api/v1/skills", body);
  }

  Result<Json> Find(const FindArgs& args) override {
    const FindRequest& r = args.request;
    Json body{{"query", r.query}, {"limit", r.limit}};
    if (!r.target_uris.empty()) body["target_uri"] = r.target_uris;
    if (!r.context_types.empty()) body["context_type"] = r.context_types;
    if (r.score_threshold.has_value()) body["score_threshold"] = *r.score_threshold;
    if (!r.levels.empty()) body["level"] = r.levels;
    if (!r.tags.empty()) body["tags"] = r.tags;
    if (!args.since.empty()) body["since"] = args.since;
    if (!args.until.empty()) body["until"] = args.until;
    if (r.time_field != "updated_at") body["time_field"] = r.time_field;
    if (r.include_provenance) body["include_provenance"] = true;
    if (r.mode != RetrievalMode::kAuto) body["retrieval_mode"] = RetrievalModeName(r.mode);
    if (args.search && !args.session_id.empty()) body["session_id"] = args.session_id;
    return PostJson(args.search ? "/api/v1/search/search" : "/api/v1/search/find", body);
  }

  Result<Json> GetTask(const std::string& task_id) override {
    return GetJson("/api/v1/tasks/" + PercentEncode(task_id), {});
  }

  Result<Json> ListTasks(const TaskFilter& filter) override {
    Params params{{"limit", std::to_string(filter.limit)}};
    if (!filter.task_type.empty()) params.emplace_back("task_type", filter.task_type);
    if (filter.status) params.emplace_back("status", std::string(TaskStateName(*filter.status)));
    if (!filter.resource_id.empty()) params.emplace_back("resource_id", filter.resource_id);
    return GetJson("/api/v1/tasks", params);
  }

  Result<Json> Admin(const AdminRequest& request) override {
    const AdminHttpCall call = AdminToHttp(request);
    SKALD_ASSIGN_OR_RETURN(HttpReply reply, Send(call.method, call.path, call.params, call.body));
    return UnwrapEnvelope(reply.status, reply.body, options_.url);
  }

  Result<Json> Session(const SessionRequest& request) override {
    SKALD_ASSIGN_OR_RETURN(SessionHttpCall call, SessionToHttp(request));
    SKALD_ASSIGN_OR_RETURN(HttpReply reply, Send(call.method, call.path, call.params, call.body));
    return UnwrapEnvelope(reply.status, reply.body, options_.url);
  }

  Result<Json> Fsck(bool /*repair*/) override {
    return UsageError(
        "fsck checks a workspace's files directly and has no HTTP API; it cannot run with "
        "--url. Stop the server (fsck needs the workspace LOCK) and run `skald --data "
        "<workspace> fsck` on the server machine.");
  }

 private:
  Result<Json> GetJson(const std::string& path, const Params& params) {
    SKALD_ASSIGN_OR_RETURN(HttpReply reply, Send("GET", path, params, ""));
    return UnwrapEnvelope(reply.status, reply.body, options_.url);
  }

  Result<Json> PostJson(const std::string& path, const Json& body) {
    SKALD_ASSIGN_OR_RETURN(HttpReply reply, Send("POST", path, {}, DumpJson(body)));
    return UnwrapEnvelope(reply.status, reply.body, options_.url);
  }

  // Uploads the local file `path` with POST /api/v1/resources/temp_upload
  // and returns its temp_file_id. A directory is zipped first (the server
  // expands it as a tree) and, unless `*source_name` is set, the resource
  // takes the directory's name; a file sends its own name, as `ov` does.
  Result<std::string> Upload(const std::string& path, std::string* source_name) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
      return UsageError(fmt::format("add-resource: no such file: {}", path));
    }
    std::string filename = fs::path(path).filename().string();
    std::string upload_path = path;
    std::string zip_path;
    if (fs::is_directory(st)) {
      const std::string dir_name = fs::weakly_canonical(fs::path(path), ec).filename().string();
      zip_path =
          (fs::temp_directory_path(ec) / fmt::format("skald-upload-{}.zip", RandomFileSuffix()))
              .string();
      // A server on this machine gets the files stored, not deflated: the
      // upload costs next to nothing there, the compression ~0.2 s of CPU
      // for 8 MB of text, on a core the server's import wants.
      Result<ZipStats> zipped = ZipDirectory(path, zip_path, !server::IsLoopbackHost(url_.host));
      if (!zipped.ok() || zipped->files == 0) {
        fs::remove(zip_path, ec);
        return UsageError(fmt::format("add-resource: {}", zipped.ok() ? path + " holds no files"
                                                                      : zipped.status().message()));
      }
      upload_path = zip_path;
      filename = (dir_name.empty() ? "upload" : dir_name) + ".zip";
      if (source_name->empty()) *source_name = dir_name;
    }
    Result<std::string> bytes = ReadLocalInput(upload_path);
    if (!zip_path.empty()) fs::remove(zip_path, ec);
    if (!bytes.ok()) return UsageError("add-resource: " + bytes.status().message());
    return UploadBytes(std::move(bytes).value(), filename);
  }

  // POST /api/v1/resources/temp_upload of `bytes` as `filename`: its temp_file_id.
  Result<std::string> UploadBytes(std::string bytes, const std::string& filename) {
    httplib::MultipartFormDataItems items = {
        {"file", std::move(bytes), filename, "application/octet-stream"}};
    httplib::Result res =
        client_.Post(url_.base_path + "/api/v1/resources/temp_upload", headers_, items);
    if (!res) return TransportError(res.error());
    SKALD_ASSIGN_OR_RETURN(Json result, UnwrapEnvelope(res->status, res->body, options_.url));
    auto id = result.is_object() ? result.find("temp_file_id") : result.end();
    if (!result.is_object() || id == result.end() || !id->is_string()) {
      return Status::Internal(
          fmt::format("temp_upload on {} answered without a temp_file_id", options_.url));
    }
    return id->get<std::string>();
  }

  Status TransportError(httplib::Error error) const {
    return Status::Unavailable(fmt::format("cannot reach the server at {}: {}", options_.url,
                                           DescribeTransportError(error, options_.timeout_seconds)))
        .WithReason(std::string(kConnectionErrorReason));
  }

  Result<HttpReply> Send(std::string_view method, const std::string& path, const Params& params,
                         const std::string& body) {
    std::string target = url_.base_path + path;
    if (!params.empty()) target += "?" + BuildQuery(params);
    httplib::Result res =
        method == "GET"     ? client_.Get(target, headers_)
        : method == "POST"  ? client_.Post(target, headers_, body, "application/json")
        : method == "PUT"   ? client_.Put(target, headers_, body, "application/json")
        : method == "PATCH" ? client_.Patch(target, headers_, body, "application/json")
                            : client_.Delete(target, headers_);
    if (!res) return TransportError(res.error());
    return HttpReply{res->status, std::move(res->body)};
  }

  RemoteOptions options_;
  ServerUrl url_;
  httplib::Client client_;
  httplib::Headers headers_;
};

// The start of an unexpected body, for an error message.
std::string TruncateForMessage(std::string_view body) {
  std::string_view cut = TruncateUtf8(body, 200);
  std::string out(cut);
  if (cut.size() < body.size()) out += "...";
  return out;
}

bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

}  // namespace

Result<ServerUrl> ParseServerUrl(std::string_view url) {
  std::string_view rest;
  std::string_view scheme;
  if (url.substr(0, 7) == "http://") {
    scheme = "http://";
  } else if (url.substr(0, 8) == "https://") {
    scheme = "https://";
  } else {
    return UsageError(fmt::format(
        "--url '{}' must start with http:// or https:// (e.g. http://127.0.0.1:1933)", url));
  }
  rest = url.substr(scheme.size());
  size_t slash = rest.find('/');
  std::string_view host_port = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  if (host_port.empty() || host_port.front() == ':') {
    return UsageError(fmt::format("--url '{}' has no host", url));
  }
  for (char c : host_port) {
    if (c == '?' || c == '#' || c == '@' || c == ' ') {
      return UsageError(fmt::format("--url '{}' is not of the form http://host:port", url));
    }
  }
  // host, [v6-address] or either with :port (1-65535).
  std::string_view port;
  std::string_view host = host_port;
  if (host_port.front() == '[') {
    size_t close = host_port.find(']');
    if (close == std::string_view::npos || close == 1 ||
        (close + 1 < host_port.size() && host_port[close + 1] != ':')) {
      return UsageError(fmt::format("--url '{}' is not of the form http://host:port", url));
    }
    host = host_port.substr(1, close - 1);
    if (close + 1 < host_port.size()) port = host_port.substr(close + 2);
  } else if (size_t colon = host_port.find(':'); colon != std::string_view::npos) {
    host = host_port.substr(0, colon);
    port = host_port.substr(colon + 1);
    if (port.find(':') != std::string_view::npos) {
      return UsageError(fmt::format(
          "--url '{}' is not of the form http://host:port (write an IPv6 address in [])", url));
    }
  }
  const bool digits =
      port.size() <= 5 && port.find_first_not_of("0123456789") == std::string_view::npos;
  const int port_number = digits && !port.empty() ? std::stoi(std::string(port)) : 0;
  if (host_port.back() == ':' || (!port.empty() && (port_number < 1 || port_number > 65535))) {
    return UsageError(fmt::format("--url '{}': the port must be a number from 1 to 65535", url));
  }
  if (path.find_first_of("?# ") != std::string_view::npos) {
    return UsageError(fmt::format("--url '{}' must not carry a query or fragment", url));
  }
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  return ServerUrl{std::string(scheme) + std::string(host_port), std::string(path),
                   std::string(host)};
}

std::string PercentEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (IsUnreserved(c)) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

std::string BuildQuery(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [key, value] : params) {
    if (!out.empty()) out.push_back('&');
    out += PercentEncode(key);
    out.push_back('=');
    out += PercentEncode(value);
  }
  return out;
}

StatusCode StatusCodeFromWire(std::string_view code) {
  if (code == "NOT_FOUND") return StatusCode::kNotFound;
  if (code == "INVALID_ARGUMENT" || code == "INVALID_URI" || code == "UNSUPPORTED_URI" ||
      code == "UNSUPPORTED_MODE" || code == "INVALID_FILTER") {
    return StatusCode::kInvalidArgument;
  }
  if (code == "ALREADY_EXISTS") return StatusCode::kAlreadyExists;
  if (code == "CONFLICT" || code == "ABORTED" || code == "WRITE_CONFLICT") {
    return StatusCode::kConflict;
  }
  if (code == "PERMISSION_DENIED") return StatusCode::kPermissionDenied;
  if (code == "UNAUTHENTICATED") return StatusCode::kUnauthenticated;
  if (code == "FAILED_PRECONDITION") return StatusCode::kFailedPrecondition;
  if (code == "UNAVAILABLE" || code == "MODEL_UNAVAILABLE") return StatusCode::kUnavailable;
  if (code == "DEADLINE_EXCEEDED") return StatusCode::kDeadlineExceeded;
  if (code == "RESOURCE_EXHAUSTED") return StatusCode::kResourceExhausted;
  if (code == "CORRUPTION") return StatusCode::kCorruption;
  return StatusCode::kInternal;
}

Result<Json> UnwrapEnvelope(int http_status, std::string_view body, std::string_view url) {
  auto not_an_envelope = [&](std::string_view why) {
    std::string excerpt(TruncateForMessage(body));
    return Status::Internal(fmt::format("unexpected response from {} (HTTP {}): {}{}", url,
                                        http_status, why, excerpt.empty() ? "" : ": " + excerpt));
  };
  Result<Json> parsed = ParseJson(body);
  if (!parsed.ok() || !parsed->is_object()) return not_an_envelope("not a JSON envelope");
  const Json& envelope = *parsed;
  auto status_it = envelope.find("status");
  auto error_it = envelope.find("error");
  bool has_error = error_it != envelope.end() && error_it->is_object();
  bool status_ok = status_it != envelope.end() && status_it->is_string() &&
                   status_it->get_ref<const std::string&>() == "ok";
  if (status_ok && !has_error && http_status >= 200 && http_status < 300) {
    auto result_it = envelope.find("result");
    return result_it == envelope.end() ? Json(nullptr) : *result_it;
  }
  if (!has_error) return not_an_envelope("no error object in a failed response");
  const Json& error = *error_it;
  std::string code = "UNKNOWN";
  std::string message;
  if (auto it = error.find("code"); it != error.end() && it->is_string()) code = *it;
  if (auto it = error.find("message"); it != error.end() && it->is_string()) message = *it;
  Status status(StatusCodeFromWire(code), std::move(message));
  status.WithReason(code);
  if (auto it = error.find("details"); it != error.end() && it->is_object()) {
    for (const auto& [key, value] : it->items()) {
      status.WithDetail(key, value.is_string() ? value.get<std::string>() : DumpJson(value));
    }
  }
  return status;
}

Result<std::unique_ptr<Backend>> MakeRemoteBackend(const RemoteOptions& options) {
  SKALD_ASSIGN_OR_RETURN(ServerUrl url, ParseServerUrl(options.url));
  if (!(options.timeout_seconds > 0) || !std::isfinite(options.timeout_seconds)) {
    return UsageError(fmt::format("--timeout must be a positive number of seconds, not {}",
                                  options.timeout_seconds));
  }
  return std::unique_ptr<Backend>(std::make_unique<RemoteBackend>(options, std::move(url)));
}

}  // namespace skald::cli
