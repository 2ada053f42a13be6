#include "cli/doctor.h"

#include <fmt/format.h>

#include "cli/commands.h"
#include "common/json_util.h"
#include "service/doctor.h"

namespace skald::cli {

int RunDoctor(const std::string& config_path, bool json, std::ostream& out) {
  DoctorReport report = RunDoctorChecks(config_path);
  if (json) {
    Json result = {{"ok", report.ok}, {"warnings", report.warnings}, {"checks", Json::array()}};
    for (const DoctorCheck& c : report.checks) {
      Json item = {{"name", c.name}, {"status", c.status}, {"detail", c.detail}};
      if (c.millis >= 0) item["ms"] = c.millis;
      result["checks"].push_back(std::move(item));
    }
    out << DumpJson(result, 2) << '\n';
  } else {
    for (const std::string& warning : report.warnings) out << "warning: " << warning << '\n';
    for (const DoctorCheck& c : report.checks) {
      out << fmt::format("{:<22} {:<15} {}", c.name, c.status, c.detail);
      if (c.millis >= 0) out << fmt::format(" ({} ms)", c.millis);
      out << '\n';
    }
    out << (report.ok ? "all configured models work\n" : "some checks failed\n");
  }
  out.flush();
  if (!report.config_status.ok()) return kExitUsage;
  return report.ok ? kExitOk : kExitError;
}

}  // namespace skald::cli
