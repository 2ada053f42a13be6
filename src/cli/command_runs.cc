// What the `skald` subcommands run (command_runs.h).

#include "cli/command_runs.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <tuple>

#include <fmt/format.h>

#include "cli/client_config.h"
#include "cli/commands.h"
#include "cli/doctor.h"
#include "cli/local_file.h"
#include "cli/task_wait.h"
#include "common/strings.h"
#include "common/time_util.h"
#include "server/serve_main.h"
#include "service/json_codec.h"
#include "uri/viking_uri.h"

namespace skald::cli {

// Prints a failed Status the same way in both modes and picks the exit code.
int ReportError(const Status& status, const GlobalFlags& flags) {
  if (status.reason() == kUsageErrorReason) {
    std::cerr << "error: " << status.message() << '\n';
    return kExitUsage;
  }
  if (status.reason() == kConnectionErrorReason) {
    std::cerr << "error: " << status.message() << '\n';
    return kExitConnection;
  }
  std::cerr << "error: " << WireErrorCode(status) << ": " << status.message() << '\n';
  if (flags.url.empty() && IsWorkspaceInUse(status)) {
    std::cerr << "hint: another process (usually `skald serve`) holds " << flags.data
              << "/LOCK. Talk to that server instead, e.g. `skald --url http://127.0.0.1:1933 "
                 "...`, or stop it first.\n";
  }
  return kExitError;
}

namespace {

Result<std::unique_ptr<Backend>> OpenBackend(const GlobalFlags& flags) {
  if (!flags.url.empty()) {
    RemoteOptions options;
    options.url = flags.url;
    options.api_key = flags.api_key;
    options.account = flags.account;
    options.user = flags.user;
    options.timeout_seconds = flags.timeout_seconds;
    return MakeRemoteBackend(options);
  }
  // Embedded = dev mode: ROOT, with the asserted account/user, which pass
  // the rule the server applies to its identity headers.
  for (const auto& [flag, id, is_account] :
       {std::tuple{"--account", &flags.account, true}, std::tuple{"--user", &flags.user, false}}) {
    if (!id->empty() && !IsValidIdentifier(*id, is_account)) {
      return UsageError(fmt::format(
          "invalid {} '{}': ids match ^[a-zA-Z0-9_.@-]+$ with at most one '@', have at most {} "
          "bytes{}",
          flag, id->size() > 64 ? id->substr(0, 64) + "..." : *id, kMaxIdentifierBytes,
          is_account ? " and do not start with '_'" : ""));
    }
  }
  Identity who;
  if (!flags.account.empty()) who.account = flags.account;
  if (!flags.user.empty()) who.user = flags.user;
  who.role = Role::kRoot;
  return OpenEmbeddedBackend(flags.data, who);
}

}  // namespace

// read/abstract/overview print the text exactly; on a terminal a missing
// final newline is added so the prompt does not run into the text.
void RenderTextForTerminal(const Json& result, std::ostream& out) {
  RenderText(result, out);
  if (result.is_string() && isatty(STDOUT_FILENO) == 1) {
    const std::string& text = result.get_ref<const std::string&>();
    if (!text.empty() && text.back() != '\n') out << '\n';
  }
}

using Operation = std::function<Result<Json>(Backend&)>;
using Renderer = std::function<void(const Json&, std::ostream&)>;

// Opens the backend, runs `op`, prints its result.
int Execute(const GlobalFlags& flags, const Operation& op, const Renderer& render) {
  Result<std::unique_ptr<Backend>> backend = OpenBackend(flags);
  if (!backend.ok()) return ReportError(backend.status(), flags);
  Result<Json> result = op(**backend);
  if (!result.ok()) return ReportError(result.status(), flags);
  if (flags.json) {
    std::cout << DumpJson(*result, 2) << '\n';
  } else {
    render(*result, std::cout);
  }
  std::cout.flush();
  return kExitOk;
}

namespace {

Result<WriteMode> ParseWriteMode(const std::string& mode, bool append) {
  WriteMode parsed = WriteMode::kReplace;
  if (mode == "append") {
    parsed = WriteMode::kAppend;
  } else if (mode == "create") {
    parsed = WriteMode::kCreate;
  } else if (mode != "replace") {
    return UsageError("--mode must be replace, append or create, not '" + mode + "'");
  }
  if (append) {
    if (parsed != WriteMode::kReplace && parsed != WriteMode::kAppend) {
      return UsageError("--append contradicts --mode " + mode);
    }
    parsed = WriteMode::kAppend;
  }
  return parsed;
}

}  // namespace


// Writes downloaded bytes to stdout ("-") or atomically to a file.
int SaveDownload(const GlobalFlags& flags, const std::string& uri, const std::string& local_path) {
  Result<std::unique_ptr<Backend>> backend = OpenBackend(flags);
  if (!backend.ok()) return ReportError(backend.status(), flags);
  Result<std::string> bytes = (*backend)->Download(uri);
  if (!bytes.ok()) return ReportError(bytes.status(), flags);
  if (local_path == "-") {
    std::cout.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
    std::cout.flush();
    return kExitOk;
  }
  std::string path = ResolveDownloadPath(uri, local_path);
  if (Status written = WriteFileAtomically(path, *bytes); !written.ok()) {
    std::cerr << "error: cannot write " << path << ": " << written.message() << '\n';
    return kExitError;
  }
  Json result{{"uri", uri}, {"path", path}, {"bytes", bytes->size()}};
  if (flags.json) {
    std::cout << DumpJson(result, 2) << '\n';
  } else {
    RenderGet(result, std::cout);
  }
  return kExitOk;
}

int RunWrite(const GlobalFlags& flags, CommandArgs& a) {
  Result<WriteMode> mode = ParseWriteMode(a.mode, a.append);
  if (!mode.ok()) return ReportError(mode.status(), flags);
  WriteRequest request;
  request.uri = a.uri;
  request.mode = *mode;
  request.wait = a.write_wait;
  if (a.content) {
    request.content = *a.content;
  } else if (a.from_file) {
    Result<std::string> text = ReadLocalInput(*a.from_file);
    if (!text.ok())
      return ReportError(UsageError("--from-file: " + text.status().message()), flags);
    request.content = std::move(*text);
  } else {
    return ReportError(UsageError("write needs --content TEXT or --from-file PATH (- = stdin)"),
                       flags);
  }
  if (!IsValidUtf8(request.content)) {
    return ReportError(UsageError("write sends text and the content is not valid UTF-8; "
                                  "binary files cannot be written"),
                       flags);
  }
  return Execute(
      flags, [&](Backend& b) { return b.Write(request); }, RenderWrite);
}

int RunFsck(const GlobalFlags& flags, bool repair) {
  // A RemoteBackend answers Fsck with a usage error explaining why.
  Result<std::unique_ptr<Backend>> backend = OpenBackend(flags);
  if (!backend.ok()) return ReportError(backend.status(), flags);
  Result<Json> report = (*backend)->Fsck(repair);
  if (!report.ok()) return ReportError(report.status(), flags);
  if (flags.json) {
    std::cout << DumpJson(*report, 2) << '\n';
  } else {
    RenderFsck(*report, std::cout);
  }
  // Like fsck(8): issues left unrepaired make the run fail.
  size_t unrepaired = 0;
  if (auto it = report->find("issues"); it != report->end() && it->is_array()) {
    for (const Json& issue : *it) {
      auto fixed = issue.find("repaired");
      if (fixed == issue.end() || !fixed->is_boolean() || !fixed->get<bool>()) ++unrepaired;
    }
  }
  return unrepaired == 0 ? kExitOk : kExitError;
}

namespace {

// The error a failed task reports: its `error` text as PROCESSING_ERROR (the
// code OpenViking's add_resource uses for a failed import).
Status TaskFailure(const Json& task) {
  std::string message = "the task failed";
  if (auto it = task.find("error"); it != task.end() && it->is_string()) message = *it;
  std::string status = "failed";
  if (auto it = task.find("status"); it != task.end() && it->is_string()) status = *it;
  if (status == "cancelled") message = "the task was cancelled";
  return Status::Internal(std::move(message)).WithReason("PROCESSING_ERROR");
}

}  // namespace

// add-resource: start the import, then (always embedded, with --wait remote)
// follow its task to the end showing the stage on stderr. The printed result
// is the wire's wait=true shape: task_id replaced by queue_status.
int RunAddResource(const GlobalFlags& flags, CommandArgs& a) {
  if (a.add_timeout.has_value() && !(*a.add_timeout >= 0 && std::isfinite(*a.add_timeout))) {
    return ReportError(UsageError("--timeout must be a number of seconds >= 0"), flags);
  }
  Result<std::unique_ptr<Backend>> backend = OpenBackend(flags);
  if (!backend.ok()) return ReportError(backend.status(), flags);
  Result<Json> started = (*backend)->AddResource(a.add);
  if (!started.ok()) return ReportError(started.status(), flags);
  Json result = std::move(started).value();
  const bool embedded = flags.url.empty();
  std::string task_id;
  if (auto it = result.find("task_id"); it != result.end() && it->is_string()) task_id = *it;

  if ((a.add.wait || embedded) && !task_id.empty()) {
    std::optional<std::chrono::milliseconds> timeout;
    if (a.add_timeout.has_value()) {
      timeout = std::chrono::milliseconds(std::llround(*a.add_timeout * 1000.0));
    }
    // (Embedded, the pause between polls ends as the task does.)
    Result<TaskWaitOutcome> waited =
        WaitForTask(**backend, task_id, timeout, std::cerr, isatty(STDERR_FILENO) == 1);
    if (!waited.ok()) return ReportError(waited.status(), flags);
    std::string status = "unknown";
    if (auto it = waited->task.find("status"); it != waited->task.end() && it->is_string()) {
      status = *it;
    }
    if (status == "failed" || status == "cancelled") {
      return ReportError(TaskFailure(waited->task), flags);
    }
    if (status == "completed") result.erase("task_id");
    result["queue_status"] = QueueStatusJson(status == "completed");
    if (waited->timed_out && embedded) {  // ~EmbeddedBackend waits for it
      std::cerr << "note: task " << task_id << " is still " << status << " after "
                << *a.add_timeout
                << "s; it runs in this process, which finishes it before exiting\n";
    } else if (waited->timed_out) {
      std::cerr << "note: task " << task_id << " is still " << status << " after " << *a.add_timeout
                << "s; `skald task " << task_id << "` follows it\n";
    }
  }
  if (flags.json) {
    std::cout << DumpJson(result, 2) << '\n';
  } else {
    RenderAddResource(result, std::cout);
  }
  std::cout.flush();
  return kExitOk;
}

// add-skill SOURCE: a SKILL.md file, a directory holding one, or the
// SKILL.md text itself, sent as the skill's data.
int RunAddSkill(const GlobalFlags& flags, CommandArgs& a) {
  std::error_code ec;
  std::string path = a.skill_source;
  if (std::filesystem::is_directory(path, ec)) path = (std::filesystem::path(path) / "SKILL.md").string();
  std::string text;
  if (std::filesystem::exists(path, ec)) {
    Result<std::string> bytes = ReadLocalInput(path);
    if (!bytes.ok()) return ReportError(UsageError("add-skill: " + bytes.status().message()), flags);
    text = std::move(bytes).value();
  } else if (Trim(a.skill_source).substr(0, 3) == "---") {
    text = a.skill_source;
  } else {
    return ReportError(
        UsageError(fmt::format("add-skill: {} is neither a SKILL.md file, a directory holding one, "
                               "nor SKILL.md text (which opens with '---')",
                               path)),
        flags);
  }
  a.skill.data_json = Json(text).dump();
  return Execute(
      flags, [&](Backend& b) { return b.AddSkill(a.skill); }, RenderAddResource);
}

// find/search: the time bounds are checked here so both modes refuse the
// same input with the same usage error.
int RunFind(const GlobalFlags& flags, CommandArgs& a) {
  const int64_t now = NowNanos();
  auto check = [&](const char* flag, const std::string& text, bool end_of_day) {
    if (text.empty()) return Status::Ok();
    Result<int64_t> at = ParseTimeBound(text, now, end_of_day);
    return at.ok() ? Status::Ok() : UsageError(std::string(flag) + ": " + at.status().message());
  };
  if (Status bad = check("--after", a.find.since, false); !bad.ok()) return ReportError(bad, flags);
  if (Status bad = check("--before", a.find.until, true); !bad.ok()) return ReportError(bad, flags);
  a.find.request.mode = ParseRetrievalMode(a.find_mode).value_or(RetrievalMode::kAuto);
  return Execute(
      flags, [&](Backend& b) { return b.Find(a.find); }, RenderFind);
}

int RunServeCommand(const GlobalFlags& flags, const CommandArgs& a) {
  ServeArgs args;
  args.config_path = a.config_path;
  args.host = a.host;
  args.port = a.port;
  args.reindex_embeddings = a.reindex_embeddings;
  if (flags.data_given) {
    if (Status dir = CheckWorkspaceDir(flags.data); !dir.ok()) return ReportError(dir, flags);
    args.data_dir = flags.data;
  }
  return RunServe(args);
}


}  // namespace skald::cli
