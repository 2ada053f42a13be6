#pragma once

// The CLI's client settings (url, api_key, account, user, timeout, output)
// and where they come from, in increasing precedence:
//
//   1. the client config file: $SKALD_CLI_CONFIG when set and non-empty
//      (it must exist), else ~/.skald/cli.conf when it exists — a JSON object
//      with only the keys above (any other key is an error naming it);
//   2. the environment: SKALD_URL, SKALD_API_KEY, SKALD_ACCOUNT, SKALD_USER,
//      SKALD_TIMEOUT (seconds);
//   3. the command-line flags.
//
// Thread safety: pure functions apart from reading the file.

#include <optional>
#include <string>
#include <string_view>

#include "service/config.h"
#include "skald/result.h"

namespace skald::cli {

// Settings one source gives; nullopt = that source does not set it.
struct ClientSettingsLayer {
  std::optional<std::string> url;
  std::optional<std::string> api_key;
  std::optional<std::string> account;
  std::optional<std::string> user;
  std::optional<double> timeout;       // seconds, > 0
  std::optional<std::string> output;   // "table" or "json"
};

// The effective settings.
struct ClientSettings {
  std::string url;      // "" = none (embedded mode unless --url)
  std::string api_key;
  std::string account;
  std::string user;
  double timeout = 60;
  std::string output = "table";
  std::string config_path;  // the client config file read, "" when none
};

// Parses client config JSON text; `origin` names the file in errors.
// InvalidArgument (with kUsageErrorReason) for bad JSON, a non-object,
// an unknown key, a wrong type, timeout <= 0 or an unknown output.
Result<ClientSettingsLayer> ParseClientConfig(std::string_view text, const std::string& origin);

// The client config file's path: $SKALD_CLI_CONFIG, else
// $HOME/.skald/cli.conf; "" when neither applies. `*explicit_choice` says
// whether it came from $SKALD_CLI_CONFIG (then it must exist).
std::string ClientConfigPath(const EnvLookup& env, bool* explicit_choice);

// File < environment < `flags`. A usage error (kUsageErrorReason) for a bad
// file, a $SKALD_CLI_CONFIG naming a missing file, or a bad SKALD_TIMEOUT.
// `env` null = the process environment.
Result<ClientSettings> ResolveClientSettings(const ClientSettingsLayer& flags,
                                             const EnvLookup& env = nullptr);

}  // namespace skald::cli
