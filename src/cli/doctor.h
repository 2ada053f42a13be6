#pragma once

// `skald doctor [--config FILE]`: validates the configuration and probes
// every configured model provider with one tiny request (embedding, chat,
// query planner, rerank), printing what works and what does not. It starts
// no server and opens no workspace.
//
// Thread safety: called once per process from RunCli.

#include <ostream>
#include <string>

namespace skald::cli {

// Returns kExitOk when the config is valid and every configured provider
// answered correctly, kExitUsage for a config that does not load or
// validate, kExitError when a provider check failed. `json` prints one JSON
// object instead of lines.
int RunDoctor(const std::string& config_path, bool json, std::ostream& out);

}  // namespace skald::cli
