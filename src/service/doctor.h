#pragma once

// Doctor: validates a config file and probes each configured model provider
// (embedding, chat, rerank) with one tiny request, without opening a
// workspace. Probes make one attempt with a short timeout: doctor reports an
// outage, it does not wait it out.
//
// Thread safety: RunDoctorChecks is reentrant.

#include <cstdint>
#include <string>
#include <vector>

#include "service/config.h"
#include "skald/status.h"

namespace skald {

struct DoctorCheck {
  std::string name;    // "config", "embedding", "chat (vlm)", "rerank", ...
  std::string status;  // "ok", "FAIL", "not configured"
  std::string detail;  // what worked, or why not
  int64_t millis = -1;  // probe time; -1 when nothing was probed
};

struct DoctorReport {
  bool ok = false;                    // every configured check passed
  Status config_status;               // non-ok when the config could not be loaded/validated
  std::vector<std::string> warnings;  // config warnings (unimplemented sections, ...)
  std::vector<DoctorCheck> checks;
};

// `config_path` "" means the usual lookup (FindConfigFile): $SKALD_CONFIG,
// ~/.skald/skald.conf, else the built-in defaults.
DoctorReport RunDoctorChecks(const std::string& config_path);

}  // namespace skald
