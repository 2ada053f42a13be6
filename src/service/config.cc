#include "service/config.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "model/factory.h"
#include "common/json_util.h"
#include "common/strings.h"
#include "service/config_internal.h"

namespace skald {
namespace {

// How a value is named in error messages.
std::string Describe(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return v.get<bool>() ? "true" : "false";
    case Json::value_t::string: return "string " + DumpJson(v);
    case Json::value_t::array: return "an array";
    case Json::value_t::object: return "an object";
    default: return "number " + DumpJson(v);
  }
}

}  // namespace

// ---- value readers (config_internal.h) ------------------------------------

namespace config_internal {

Status TypeError(const std::string& path, std::string_view expected, const Json& v) {
  return Status::InvalidArgument(
      fmt::format("config key \"{}\" must be {}, got {}", path, expected, Describe(v)));
}

Status UnknownKey(const std::string& path) {
  return Status::InvalidArgument(fmt::format("unknown config key \"{}\"", path));
}

std::string KeyPath(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

// Strings are strict (as in pydantic): a number is not a string.
Status ReadString(const Json& v, const std::string& path, std::string* out) {
  if (!v.is_string()) return TypeError(path, "a string", v);
  *out = v.get<std::string>();
  return Status::Ok();
}

// Integers are lax (as in pydantic): whole floats and numeric strings count,
// so `"port": "${PORT}"` works after variable expansion.
Status ReadInt(const Json& v, const std::string& path, int64_t lo, int64_t hi, int64_t* out) {
  int64_t value = 0;
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() &&
        v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return TypeError(path, "an integer in range", v);
    }
    value = v.get<int64_t>();
  } else if (v.is_number_float()) {
    double d = v.get<double>();
    if (!std::isfinite(d) || std::floor(d) != d || std::fabs(d) > 9e15) {
      return TypeError(path, "an integer", v);
    }
    value = static_cast<int64_t>(d);
  } else if (v.is_string()) {
    long long parsed = 0;
    if (!ParseInt64(Trim(v.get<std::string>()), &parsed)) return TypeError(path, "an integer", v);
    value = parsed;
  } else {
    return TypeError(path, "an integer", v);
  }
  if (value < lo || value > hi) {
    return Status::InvalidArgument(
        fmt::format("config key \"{}\" must be between {} and {}, got {}", path, lo, hi, value));
  }
  *out = value;
  return Status::Ok();
}

Status ReadInt32(const Json& v, const std::string& path, int lo, int hi, int* out) {
  int64_t value = 0;
  SKALD_RETURN_IF_ERROR(ReadInt(v, path, lo, hi, &value));
  *out = static_cast<int>(value);
  return Status::Ok();
}

Status ReadBool(const Json& v, const std::string& path, bool* out) {
  if (v.is_boolean()) {
    *out = v.get<bool>();
    return Status::Ok();
  }
  if (v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1)) {
    *out = v.get<int64_t>() == 1;
    return Status::Ok();
  }
  if (v.is_string() && ParseBool(Trim(v.get<std::string>()), out)) return Status::Ok();
  return TypeError(path, "a boolean", v);
}

Status ReadStringList(const Json& v, const std::string& path, std::vector<std::string>* out) {
  if (!v.is_array()) return TypeError(path, "a list of strings", v);
  std::vector<std::string> values;
  for (size_t i = 0; i < v.size(); ++i) {
    std::string item;
    SKALD_RETURN_IF_ERROR(ReadString(v[i], fmt::format("{}[{}]", path, i), &item));
    values.push_back(std::move(item));
  }
  *out = std::move(values);
  return Status::Ok();
}

Status RequireObject(const Json& v, const std::string& path) {
  if (!v.is_object()) return TypeError(path, "an object", v);
  return Status::Ok();
}

std::string IgnoredKeyWarning(const std::string& path) {
  return fmt::format("key '{}' is not implemented by Skald yet and is ignored", path);
}

// Numbers are lax like integers: numeric strings count.
Status ReadDouble(const Json& v, const std::string& path, double* out) {
  double value = 0;
  if (v.is_number()) {
    value = v.get<double>();
  } else if (!(v.is_string() && ParseDouble(Trim(v.get<std::string>()), &value))) {
    return TypeError(path, "a number", v);
  }
  if (!std::isfinite(value)) return TypeError(path, "a finite number", v);
  *out = value;
  return Status::Ok();
}

// Optional strings (pydantic `Optional[str]`): null reads as "".
Status ReadOptString(const Json& v, const std::string& path, std::string* out) {
  if (v.is_null()) {
    out->clear();
    return Status::Ok();
  }
  return ReadString(v, path, out);
}

Status ReadStringMap(const Json& v, const std::string& path,
                     std::map<std::string, std::string>* out) {
  out->clear();
  if (v.is_null()) return Status::Ok();
  if (!v.is_object()) return TypeError(path, "an object of strings", v);
  for (const auto& [key, item] : v.items()) {
    SKALD_RETURN_IF_ERROR(ReadString(item, KeyPath(path, key), &(*out)[key]));
  }
  return Status::Ok();
}

Status ReadSeconds(const Json& v, const std::string& path, std::chrono::milliseconds* out) {
  double seconds = 0;
  SKALD_RETURN_IF_ERROR(ReadDouble(v, path, &seconds));
  *out = std::chrono::milliseconds(static_cast<int64_t>(std::llround(seconds * 1000.0)));
  return Status::Ok();
}

}  // namespace config_internal

namespace {

using config_internal::IgnoredKeyWarning;
using config_internal::KeyPath;
using config_internal::ParseEmbedding;
using config_internal::ParseLlm;
using config_internal::ParseRerank;
using config_internal::ReadBool;
using config_internal::ReadDouble;
using config_internal::ReadInt;
using config_internal::ReadInt32;
using config_internal::ReadString;
using config_internal::ReadStringList;
using config_internal::RequireObject;
using config_internal::UnknownKey;

// ---- sections (model sections: config_models.cc) --------------------------

// OpenViking `server` keys Skald accepts without implementing them.
const std::set<std::string>& IgnoredServerKeys() {
  static const std::set<std::string> keys = {
      "oidc", "ldap", "with_bot", "bot_api_url", "api_key_watch_enabled",
      "api_key_watch_interval_seconds", "usage_reporter", "public_base_url",
      "upload_signed_ttl_seconds", "temp_upload", "user_config_defaults", "agent_evolution",
      "tool_output_externalization", "executor_threads"};
  return keys;
}

Status ParseServer(const Json& obj, Config* config) {
  SKALD_RETURN_IF_ERROR(RequireObject(obj, "server"));
  ServerConfig& s = config->server;
  for (const auto& [key, v] : obj.items()) {
    const std::string path = KeyPath("server", key);
    if (key == "host") {
      SKALD_RETURN_IF_ERROR(ReadString(v, path, &s.host));
    } else if (key == "port") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, std::numeric_limits<int>::min(),
                                      std::numeric_limits<int>::max(), &s.port));
    } else if (key == "workers") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, std::numeric_limits<int>::min(),
                                      std::numeric_limits<int>::max(), &s.workers));
      if (s.workers > 1) {
        config->warnings.push_back(fmt::format(
            "server.workers={} is ignored: Skald serves from one process (see server.threads)",
            s.workers));
      }
    } else if (key == "timeout_keep_alive") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, std::numeric_limits<int>::min(),
                                      std::numeric_limits<int>::max(), &s.timeout_keep_alive));
    } else if (key == "auth_mode") {
      if (v.is_null()) {
        s.auth_mode.clear();
      } else {
        SKALD_RETURN_IF_ERROR(ReadString(v, path, &s.auth_mode));
      }
    } else if (key == "root_api_key") {
      if (v.is_null()) {
        s.root_api_key.reset();
      } else {
        std::string value;
        SKALD_RETURN_IF_ERROR(ReadString(v, path, &value));
        s.root_api_key = std::move(value);
      }
    } else if (key == "cors_origins") {
      SKALD_RETURN_IF_ERROR(ReadStringList(v, path, &s.cors_origins));
    } else if (key == "profile_enabled") {
      SKALD_RETURN_IF_ERROR(ReadBool(v, path, &s.profile_enabled));
      if (s.profile_enabled) config->warnings.push_back(IgnoredKeyWarning(path));
    } else if (key == "threads") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, std::numeric_limits<int>::min(),
                                      std::numeric_limits<int>::max(), &s.threads));
    } else if (key == "max_connections") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, std::numeric_limits<int>::min(),
                                      std::numeric_limits<int>::max(), &s.max_connections));
    } else if (key == "read_timeout") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, std::numeric_limits<int>::min(),
                                      std::numeric_limits<int>::max(), &s.read_timeout));
    } else if (key == "header_timeout") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, std::numeric_limits<int>::min(),
                                      std::numeric_limits<int>::max(), &s.header_timeout));
    } else if (key == "keep_alive_max_count") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, std::numeric_limits<int>::min(),
                                      std::numeric_limits<int>::max(), &s.keep_alive_max_count));
    } else if (key == "max_body_bytes") {
      SKALD_RETURN_IF_ERROR(ReadInt(v, path, std::numeric_limits<int64_t>::min(),
                                    std::numeric_limits<int64_t>::max(), &s.max_body_bytes));
    } else if (key == "max_upload_bytes") {
      SKALD_RETURN_IF_ERROR(ReadInt(v, path, std::numeric_limits<int64_t>::min(),
                                    std::numeric_limits<int64_t>::max(), &s.max_upload_bytes));
    } else if (key == "access_log") {
      SKALD_RETURN_IF_ERROR(ReadBool(v, path, &s.access_log));
    } else if (key == "observability") {
      SKALD_RETURN_IF_ERROR(config_internal::ParseObservability(v, config));
    } else if (IgnoredServerKeys().count(key) != 0) {
      config->warnings.push_back(IgnoredKeyWarning(path));
    } else {
      return UnknownKey(path);
    }
  }
  // Configs written when `threads` was the fixed pool size keep working: the
  // pool may grow at least to it.
  if (!obj.contains("max_connections") && s.threads > s.max_connections) {
    s.max_connections = s.threads;
  }
  return Status::Ok();
}

Status ParseStorage(const Json& obj, Config* config) {
  SKALD_RETURN_IF_ERROR(RequireObject(obj, "storage"));
  static const std::set<std::string> ignored = {"skip_process_lock", "agfs", "transaction",
                                                "vectordb"};
  for (const auto& [key, v] : obj.items()) {
    const std::string path = KeyPath("storage", key);
    if (key == "workspace") {
      SKALD_RETURN_IF_ERROR(ReadString(v, path, &config->storage.workspace));
    } else if (ignored.count(key) != 0) {
      config->warnings.push_back(IgnoredKeyWarning(path));
    } else {
      return UnknownKey(path);
    }
  }
  return Status::Ok();
}

Status ParseLog(const Json& obj, Config* config) {
  SKALD_RETURN_IF_ERROR(RequireObject(obj, "log"));
  static const std::set<std::string> ignored = {"format", "rotation", "rotation_days",
                                                "rotation_interval"};
  for (const auto& [key, v] : obj.items()) {
    const std::string path = KeyPath("log", key);
    if (key == "level") {
      SKALD_RETURN_IF_ERROR(ReadString(v, path, &config->log.level));
    } else if (key == "output") {
      SKALD_RETURN_IF_ERROR(ReadString(v, path, &config->log.output));
    } else if (ignored.count(key) != 0) {
      config->warnings.push_back(IgnoredKeyWarning(path));
    } else {
      return UnknownKey(path);
    }
  }
  return Status::Ok();
}

// `retrieval`: Skald implements the scoring keys and the query planner's
// timeout; OpenViking's rewrite timeout, intent switch and memory
// association are accepted and ignored.
Status ParseRetrieval(const Json& obj, Config* config) {
  SKALD_RETURN_IF_ERROR(RequireObject(obj, "retrieval"));
  static const std::set<std::string> ignored = {"recall_rewrite_timeout_s", "enable_intent",
                                                "memory_association"};
  RetrievalOptions& r = config->retrieval;
  for (const auto& [key, v] : obj.items()) {
    const std::string path = KeyPath("retrieval", key);
    if (key == "hotness_alpha") {
      SKALD_RETURN_IF_ERROR(ReadDouble(v, path, &r.hotness_alpha));
    } else if (key == "recall_intent_timeout_s") {
      SKALD_RETURN_IF_ERROR(ReadDouble(v, path, &config->intent_timeout_s));
    } else if (key == "score_propagation_alpha") {
      SKALD_RETURN_IF_ERROR(ReadDouble(v, path, &r.score_propagation_alpha));
    } else if (key == "hybrid_weight") {
      double weight = 0;
      SKALD_RETURN_IF_ERROR(ReadDouble(v, path, &weight));
      r.hybrid_weight = weight;
    } else if (key == "mode") {
      std::string name;
      SKALD_RETURN_IF_ERROR(ReadString(v, path, &name));
      std::optional<RetrievalMode> mode = ParseRetrievalMode(name);
      if (!mode) {
        return Status::InvalidArgument(
            fmt::format("{} must be \"auto\", \"quick\" or \"thinking\", not \"{}\"", path, name));
      }
      r.mode = *mode;
    } else if (key == "lexical_index") {
      SKALD_RETURN_IF_ERROR(ReadString(v, path, &r.lexical_index));
    } else if (ignored.count(key) != 0) {
      config->warnings.push_back(IgnoredKeyWarning(path));
    } else {
      return UnknownKey(path);
    }
  }
  return Status::Ok();
}

// OpenViking sections Skald does not implement yet. The value is the set of
// keys OpenViking accepts in it when that set is small and stable across
// OpenViking versions (so a misspelt key is still caught); null means
// "contents not checked" (large or fast-changing schemas).
const std::vector<std::pair<std::string, std::optional<std::set<std::string>>>>&
UnimplementedSections() {
  static const std::vector<std::pair<std::string, std::optional<std::set<std::string>>>>
      sections = {
          {"grep", std::set<std::string>{"engine", "switch_to_remote_threshold"}},
          {"bot", std::nullopt}, {"encryption", std::nullopt}, {"git", std::nullopt},
          {"memory", std::nullopt}, {"oauth", std::nullopt}, {"telemetry", std::nullopt},
          {"prompts", std::nullopt}, {"ingest", std::nullopt}, {"queue_workers", std::nullopt},
          {"reindex", std::nullopt}, {"parser_api", std::nullopt}, {"connector", std::nullopt},
          {"semantic", std::nullopt}, {"parsers", std::nullopt}, {"pdf", std::nullopt},
          {"code", std::nullopt}, {"image", std::nullopt}, {"audio", std::nullopt},
          {"video", std::nullopt}, {"markdown", std::nullopt}, {"excel", std::nullopt},
          {"html", std::nullopt}, {"text", std::nullopt}, {"directory", std::nullopt},
          {"feishu", std::nullopt}, {"webfeed", std::nullopt},
      };
  return sections;
}

// OpenViking top-level scalar settings Skald does not implement yet.
const std::set<std::string>& UnimplementedScalars() {
  static const std::set<std::string> keys = {"default_account",     "default_user",
                                             "default_agent",       "enable_watch_scheduler",
                                             "auto_generate_l0",    "auto_generate_l1",
                                             "default_search_mode", "default_search_limit",
                                             "language_fallback",   "output_language_override"};
  return keys;
}

Status ParseUnimplementedSection(const std::string& name,
                                 const std::optional<std::set<std::string>>& known,
                                 const Json& v, Config* config) {
  if (v.is_null()) return Status::Ok();
  SKALD_RETURN_IF_ERROR(RequireObject(v, name));
  if (known.has_value()) {
    for (const auto& [key, unused] : v.items()) {
      if (known->count(key) == 0) return UnknownKey(KeyPath(name, key));
    }
  }
  config->warnings.push_back(
      fmt::format("section '{}' is not implemented by Skald yet and is ignored", name));
  return Status::Ok();
}

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

Result<std::string> ExpandEnvVars(std::string_view text, const EnvLookup& lookup) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '$' || i + 1 >= text.size()) {
      out += text[i++];
      continue;
    }
    if (text[i + 1] == '$') {  // `$$` = a literal `$`
      out += '$';
      i += 2;
      continue;
    }
    size_t name_begin = 0;
    size_t name_end = 0;
    size_t token_end = 0;
    if (text[i + 1] == '{') {
      size_t close = text.find('}', i + 2);
      if (close == std::string_view::npos) {
        out += text[i++];
        continue;
      }
      name_begin = i + 2;
      name_end = close;
      token_end = close + 1;
    } else {
      size_t j = i + 1;
      while (j < text.size() && IsIdentChar(text[j])) ++j;
      if (j == i + 1) {
        out += text[i++];
        continue;
      }
      name_begin = i + 1;
      name_end = j;
      token_end = j;
    }
    std::string name(text.substr(name_begin, name_end - name_begin));
    std::optional<std::string> value = lookup ? lookup(name) : std::nullopt;
    if (!value.has_value()) {
      return Status::InvalidArgument(fmt::format(
          "environment variable \"{}\" is not set (the config refers to it as {}); set it, or "
          "write $$ for a literal $",
          name, text.substr(i, token_end - i)));
    }
    out += *value;
    i = token_end;
  }
  return out;
}

std::string Config::EffectiveAuthMode() const {
  if (!server.auth_mode.empty()) return server.auth_mode;
  if (server.root_api_key.has_value() && !server.root_api_key->empty()) return "api_key";
  return "dev";
}

Status Config::Validate() const {
  if (server.host.empty()) return Status::InvalidArgument("server.host must not be empty");
  if (server.port < 0 || server.port > 65535) {
    return Status::InvalidArgument(
        fmt::format("server.port must be between 0 and 65535, got {}", server.port));
  }
  if (server.workers < 1) {
    return Status::InvalidArgument(
        fmt::format("server.workers must be at least 1, got {}", server.workers));
  }
  if (server.timeout_keep_alive < 1) {
    return Status::InvalidArgument(fmt::format(
        "server.timeout_keep_alive must be at least 1 second, got {}", server.timeout_keep_alive));
  }
  if (server.threads < 1 || server.threads > 4096) {
    return Status::InvalidArgument(
        fmt::format("server.threads must be between 1 and 4096, got {}", server.threads));
  }
  if (server.max_connections < server.threads || server.max_connections > 16384) {
    return Status::InvalidArgument(fmt::format(
        "server.max_connections must be between server.threads ({}) and 16384, got {}",
        server.threads, server.max_connections));
  }
  if (server.read_timeout < 1) {
    return Status::InvalidArgument(fmt::format(
        "server.read_timeout must be at least 1 second, got {}", server.read_timeout));
  }
  if (server.header_timeout < 1) {
    return Status::InvalidArgument(fmt::format(
        "server.header_timeout must be at least 1 second, got {}", server.header_timeout));
  }
  if (server.keep_alive_max_count < 1) {
    return Status::InvalidArgument(fmt::format(
        "server.keep_alive_max_count must be at least 1, got {}", server.keep_alive_max_count));
  }
  if (server.max_upload_bytes < 1024) {
    return Status::InvalidArgument(fmt::format(
        "server.max_upload_bytes must be at least 1024, got {}", server.max_upload_bytes));
  }
  if (server.max_body_bytes < 1024) {
    return Status::InvalidArgument(fmt::format(
        "server.max_body_bytes must be at least 1024, got {}", server.max_body_bytes));
  }
  if (server.root_api_key.has_value() && server.root_api_key->empty()) {
    return Status::InvalidArgument(
        "server.root_api_key must not be empty (remove it to run in dev mode)");
  }
  const std::string mode = EffectiveAuthMode();
  const bool loopback =
      server.host == "127.0.0.1" || server.host == "localhost" || server.host == "::1";
  const bool has_root_key = server.root_api_key.has_value();
  if (mode != "dev" && mode != "api_key" && mode != "trusted") {
    return Status::InvalidArgument(fmt::format(
        "server.auth_mode \"{}\" is not supported by Skald: use \"dev\", \"api_key\" or "
        "\"trusted\" (or leave it out: api_key when server.root_api_key is set, else dev)",
        mode));
  }
  if (mode == "api_key" && !has_root_key) {
    return Status::InvalidArgument(
        "server.auth_mode \"api_key\" needs server.root_api_key");
  }
  if (mode == "dev" && !loopback) {
    return Status::InvalidArgument(fmt::format(
        "server.host \"{}\" is not a loopback address: dev mode (no root_api_key) serves "
        "unauthenticated requests and only binds 127.0.0.1, localhost or ::1",
        server.host));
  }
  if (mode == "trusted" && !has_root_key && !loopback) {
    return Status::InvalidArgument(fmt::format(
        "server.host \"{}\" is not a loopback address: trusted mode off loopback needs "
        "server.root_api_key",
        server.host));
  }
  if (storage.workspace.empty()) {
    return Status::InvalidArgument("storage.workspace must not be empty");
  }
  static const std::set<std::string> levels = {"debug", "info", "warning", "warn",
                                               "error", "critical", "fatal"};
  if (levels.count(AsciiLower(log.level)) == 0) {
    return Status::InvalidArgument(fmt::format(
        "log.level \"{}\" is not one of DEBUG, INFO, WARNING, ERROR, CRITICAL", log.level));
  }
  if (log.output.empty()) return Status::InvalidArgument("log.output must not be empty");
  SKALD_RETURN_IF_ERROR(embedding.Validate());
  SKALD_RETURN_IF_ERROR(vlm.Validate());
  SKALD_RETURN_IF_ERROR(query_planner.Validate());
  SKALD_RETURN_IF_ERROR(retrieval.Validate());
  if (!(intent_timeout_s > 0) || intent_timeout_s > 600) {
    return Status::InvalidArgument(fmt::format(
        "retrieval.recall_intent_timeout_s must be > 0 and <= 600, got {}", intent_timeout_s));
  }
  return rerank.Validate();
}

Result<Config> ParseConfig(std::string_view text, const EnvLookup& lookup) {
  SKALD_ASSIGN_OR_RETURN(const std::string expanded,
                         ExpandEnvVars(text, lookup ? lookup : ProcessEnv()));
  Result<Json> parsed = ParseJson(expanded);
  if (!parsed.ok()) return parsed.status();
  const Json& root = *parsed;
  if (!root.is_object()) {
    return Status::InvalidArgument("the configuration must be a JSON object, got " +
                                   Describe(root));
  }
  Config config;
  for (const auto& [key, v] : root.items()) {
    if (key == "server") {
      SKALD_RETURN_IF_ERROR(ParseServer(v, &config));
    } else if (key == "storage") {
      SKALD_RETURN_IF_ERROR(ParseStorage(v, &config));
    } else if (key == "log") {
      SKALD_RETURN_IF_ERROR(ParseLog(v, &config));
    } else if (key == "embedding") {
      SKALD_RETURN_IF_ERROR(ParseEmbedding(v, &config));
    } else if (key == "vlm") {
      SKALD_RETURN_IF_ERROR(ParseLlm(v, "vlm", &config.vlm, &config));
    } else if (key == "query_planner") {
      SKALD_RETURN_IF_ERROR(ParseLlm(v, "query_planner", &config.query_planner, &config));
    } else if (key == "rerank") {
      SKALD_RETURN_IF_ERROR(ParseRerank(v, &config));
    } else if (key == "retrieval") {
      SKALD_RETURN_IF_ERROR(ParseRetrieval(v, &config));
    } else if (key == "allow_private_networks") {
      if (!v.is_null()) SKALD_RETURN_IF_ERROR(ReadBool(v, key, &config.allow_private_networks));
    } else if (UnimplementedScalars().count(key) != 0) {
      config.warnings.push_back(IgnoredKeyWarning(key));
    } else {
      bool found = false;
      for (const auto& [name, known] : UnimplementedSections()) {
        if (name != key) continue;
        SKALD_RETURN_IF_ERROR(ParseUnimplementedSection(name, known, v, &config));
        found = true;
        break;
      }
      if (!found) return UnknownKey(key);
    }
  }
  return config;
}

Result<Config> LoadConfig(const std::string& path, const EnvLookup& lookup) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(fmt::format("cannot read config file {}", path));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Status::IOError(fmt::format("cannot read config file {}", path));
  Result<Config> config = ParseConfig(buffer.str(), lookup);
  if (!config.ok()) {
    return Status(config.status().code(),
                  fmt::format("config file {}: {}", path, config.status().message()));
  }
  return config;
}

Result<DbOptions> DbOptionsFromConfig(const Config& config, bool reindex_on_embedder_change) {
  DbOptions options;
  options.workspace = config.storage.workspace;
  options.allow_private_networks = config.allow_private_networks;
  SKALD_ASSIGN_OR_RETURN(std::unique_ptr<Embedder> embedder, NewEmbedder(config.embedding));
  options.embedder = std::move(embedder);
  options.reindex_on_embedder_change = reindex_on_embedder_change;
  SKALD_ASSIGN_OR_RETURN(std::unique_ptr<Reranker> reranker, NewReranker(config.rerank));
  options.reranker = std::move(reranker);
  SKALD_ASSIGN_OR_RETURN(std::unique_ptr<Llm> llm, NewLlm(config.vlm));  // null when none
  options.llm = std::move(llm);
  // The planner answers a search: one attempt, within the intent timeout.
  LlmConfig planner = config.QueryPlanner();
  if (planner.configured()) {
    planner.timeout = std::min(planner.timeout, config.intent_timeout_s);
    planner.max_retries = 0;
    SKALD_ASSIGN_OR_RETURN(std::unique_ptr<Llm> planner_llm, NewLlm(planner));
    options.query_planner = std::move(planner_llm);
  }
  options.retrieval = config.retrieval;
  options.retrieval.score_threshold = config.rerank.threshold;
  options.retrieval.rerank_max_input_tokens = config.rerank.max_input_tokens;
  options.embedding_max_input_tokens = config.embedding.max_input_tokens;
  SKALD_RETURN_IF_ERROR(options.Validate());
  return options;
}

}  // namespace skald
