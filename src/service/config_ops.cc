// The operational parts of the configuration: where the server's config file
// is looked up, and the `server.observability` section.

#include <cstdlib>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "service/config.h"
#include "service/config_internal.h"

namespace skald {

EnvLookup ProcessEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

Result<ConfigSource> FindConfigFile(const std::string& flag_path, const EnvLookup& lookup) {
  const EnvLookup env = lookup ? lookup : ProcessEnv();
  std::error_code ec;
  if (!flag_path.empty()) {
    if (!std::filesystem::exists(flag_path, ec)) {
      return Status::NotFound(fmt::format("config file {} (--config) does not exist", flag_path));
    }
    return ConfigSource{flag_path, "--config"};
  }
  if (std::optional<std::string> named = env("SKALD_CONFIG"); named && !named->empty()) {
    if (!std::filesystem::exists(*named, ec)) {
      return Status::NotFound(
          fmt::format("config file {} ($SKALD_CONFIG) does not exist", *named));
    }
    return ConfigSource{*named, "$SKALD_CONFIG"};
  }
  if (std::optional<std::string> home = env("HOME"); home && !home->empty()) {
    const std::string path = *home + "/.skald/skald.conf";
    if (std::filesystem::exists(path, ec)) return ConfigSource{path, "~/.skald/skald.conf"};
  }
  return ConfigSource{"", "defaults"};
}

Result<Config> LoadServerConfig(const std::string& flag_path, const EnvLookup& lookup,
                                ConfigSource* source) {
  SKALD_ASSIGN_OR_RETURN(ConfigSource found, FindConfigFile(flag_path, lookup));
  Config config;
  if (!found.path.empty()) {
    SKALD_ASSIGN_OR_RETURN(config, LoadConfig(found.path, lookup));
  }
  if (source != nullptr) *source = std::move(found);
  return config;
}

namespace config_internal {

Status ParseObservability(const Json& obj, Config* config) {
  const std::string section = "server.observability";
  if (obj.is_null()) return Status::Ok();
  SKALD_RETURN_IF_ERROR(RequireObject(obj, section));
  static const std::set<std::string> ignored = {"usage_audit", "traces", "logs", "dump_body"};
  for (const auto& [key, v] : obj.items()) {
    const std::string path = KeyPath(section, key);
    if (key == "metrics") {
      if (v.is_null()) continue;
      SKALD_RETURN_IF_ERROR(RequireObject(v, path));
      for (const auto& [metrics_key, mv] : v.items()) {
        const std::string metrics_path = KeyPath(path, metrics_key);
        if (metrics_key == "enabled") {
          SKALD_RETURN_IF_ERROR(ReadBool(mv, metrics_path, &config->server.metrics_enabled));
        } else {
          config->warnings.push_back(IgnoredKeyWarning(metrics_path));
        }
      }
    } else if (ignored.count(key) != 0) {
      config->warnings.push_back(IgnoredKeyWarning(path));
    } else {
      return UnknownKey(path);
    }
  }
  return Status::Ok();
}

}  // namespace config_internal
}  // namespace skald
