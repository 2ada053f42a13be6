// Client settings: ~/.skald/cli.conf < SKALD_* environment < flags.

#include "cli/client_config.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "cli/backend.h"
#include "common/json_util.h"
#include "common/strings.h"

namespace skald::cli {
namespace {

constexpr const char* kKnownKeys = "url, api_key, account, user, timeout, output";

Status BadOutput(const std::string& where, const std::string& value) {
  return UsageError(
      fmt::format("{}: output must be \"table\" or \"json\", not \"{}\"", where, value));
}

Status BadTimeout(const std::string& where) {
  return UsageError(fmt::format("{}: timeout must be a number of seconds > 0", where));
}

}  // namespace

Result<ClientSettingsLayer> ParseClientConfig(std::string_view text, const std::string& origin) {
  Result<Json> parsed = ParseJson(text);
  if (!parsed.ok()) {
    return UsageError(fmt::format("client config {}: {}", origin, parsed.status().message()));
  }
  if (!parsed->is_object()) {
    return UsageError(fmt::format("client config {}: must be a JSON object", origin));
  }
  ClientSettingsLayer layer;
  for (const auto& [key, v] : parsed->items()) {
    const std::string where = fmt::format("client config {}: \"{}\"", origin, key);
    std::optional<std::string>* text_field = nullptr;
    if (key == "url") {
      text_field = &layer.url;
    } else if (key == "api_key") {
      text_field = &layer.api_key;
    } else if (key == "account") {
      text_field = &layer.account;
    } else if (key == "user") {
      text_field = &layer.user;
    } else if (key == "output") {
      text_field = &layer.output;
    } else if (key == "timeout") {
      if (v.is_null()) continue;
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0) {
        return BadTimeout(where);
      }
      layer.timeout = v.get<double>();
      continue;
    } else {
      return UsageError(fmt::format("client config {}: unknown key \"{}\" (known keys: {})",
                                    origin, key, kKnownKeys));
    }
    if (v.is_null()) continue;
    if (!v.is_string()) return UsageError(where + " must be a string");
    *text_field = v.get<std::string>();
  }
  if (layer.output && *layer.output != "table" && *layer.output != "json") {
    return BadOutput(fmt::format("client config {}", origin), *layer.output);
  }
  return layer;
}

std::string ClientConfigPath(const EnvLookup& env, bool* explicit_choice) {
  *explicit_choice = false;
  if (std::optional<std::string> named = env("SKALD_CLI_CONFIG"); named && !named->empty()) {
    *explicit_choice = true;
    return *named;
  }
  if (std::optional<std::string> home = env("HOME"); home && !home->empty()) {
    return *home + "/.skald/cli.conf";
  }
  return std::string();
}

Result<ClientSettings> ResolveClientSettings(const ClientSettingsLayer& flags,
                                             const EnvLookup& lookup) {
  const EnvLookup env = lookup ? lookup : ProcessEnv();
  ClientSettings out;

  // 1. the file
  bool explicit_choice = false;
  const std::string path = ClientConfigPath(env, &explicit_choice);
  ClientSettingsLayer file;
  std::error_code ec;
  if (!path.empty() && std::filesystem::exists(path, ec)) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return UsageError(fmt::format("cannot read client config {}", path));
    std::ostringstream text;
    text << in.rdbuf();
    SKALD_ASSIGN_OR_RETURN(file, ParseClientConfig(text.str(), path));
    out.config_path = path;
  } else if (explicit_choice) {
    return UsageError(fmt::format("client config {} ($SKALD_CLI_CONFIG) does not exist", path));
  }

  // 2. the environment
  ClientSettingsLayer environment;
  auto read = [&](const char* name) -> std::optional<std::string> {
    std::optional<std::string> value = env(name);
    if (value && value->empty()) return std::nullopt;  // set but empty = not set
    return value;
  };
  environment.url = read("SKALD_URL");
  environment.api_key = read("SKALD_API_KEY");
  environment.account = read("SKALD_ACCOUNT");
  environment.user = read("SKALD_USER");
  if (std::optional<std::string> timeout = read("SKALD_TIMEOUT")) {
    double seconds = 0;
    if (!ParseDouble(Trim(*timeout), &seconds) || !std::isfinite(seconds) || seconds <= 0) {
      return BadTimeout("SKALD_TIMEOUT");
    }
    environment.timeout = seconds;
  }

  // 3. the flags win; each later layer overrides the earlier ones.
  for (const ClientSettingsLayer* layer :
       std::initializer_list<const ClientSettingsLayer*>{&file, &environment, &flags}) {
    if (layer->url) out.url = *layer->url;
    if (layer->api_key) out.api_key = *layer->api_key;
    if (layer->account) out.account = *layer->account;
    if (layer->user) out.user = *layer->user;
    if (layer->timeout) out.timeout = *layer->timeout;
    if (layer->output) out.output = *layer->output;
  }
  if (flags.timeout && !(std::isfinite(*flags.timeout) && *flags.timeout > 0)) {
    return BadTimeout("--timeout");
  }
  if (out.output != "table" && out.output != "json") return BadOutput("--output", out.output);
  return out;
}

}  // namespace skald::cli
