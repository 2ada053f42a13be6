// EmbeddedBackend: runs each command against a skald::Db opened in this
// process and encodes the results with the server's json_codec, so that the
// output is byte-for-byte what a server would have put in `result`.

#include <fmt/format.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "cli/admin_commands.h"
#include "cli/backend.h"
#include "cli/local_file.h"
#include "cli/session_commands.h"
#include "common/time_util.h"
#include "service/json_codec.h"
#include "skald/db.h"

namespace skald::cli {
namespace {

// Where the Db's log lines go in an embedded command: stderr, as
// "skald: warning: ...". While the workspace opens they are held back: a
// failed open is reported once by its error (its log lines — the lock's "in
// use" warning, "cannot create workspace" — would only repeat it), a
// successful one prints them (recovery after a crash, index rebuilds).
class OpenLogSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  // Ends the holding: prints the held lines when `print`, else drops them.
  void Release(bool print) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (print) {
      for (const std::string& line : held_) std::fwrite(line.data(), 1, line.size(), stderr);
    }
    held_.clear();
    holding_ = false;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    if (holding_) {
      held_.emplace_back(formatted.data(), formatted.size());
    } else {
      std::fwrite(formatted.data(), 1, formatted.size(), stderr);
    }
  }
  void flush_() override { std::fflush(stderr); }

 private:
  bool holding_ = true;
  std::vector<std::string> held_;
};

class EmbeddedBackend final : public Backend {
 public:
  EmbeddedBackend(std::unique_ptr<Db> db, std::string data_dir, Identity who)
      : db_(std::move(db)), data_dir_(std::move(data_dir)), who_(std::move(who)) {}

  // A command exits only once the background work it started (indexing
  // after a write, mkdir, mv, rm) is done: nothing stays queued for the next
  // command to pick up in the middle of its own work.
  ~EmbeddedBackend() override {
    Status idle = db_->WaitIdle(int64_t{24} * 3600 * 1000, /*wait_for_retries=*/false);
    if (!idle.ok() && idle.code() != StatusCode::kFailedPrecondition) {
      std::fprintf(stderr, "skald: background work did not finish: %s\n", idle.ToString().c_str());
    }
  }

  std::string Describe() const override { return "workspace " + data_dir_; }

  Result<Json> Ls(const LsArgs& args) override {
    SKALD_ASSIGN_OR_RETURN(auto entries, db_->Ls(who_, args.uri, args.options));
    return LsToJson(entries, LsOutput::kAgent, args.simple, args.options.recursive);
  }

  Result<Json> Tree(const LsArgs& args) override {
    SKALD_ASSIGN_OR_RETURN(auto entries, db_->Tree(who_, args.uri, args.options));
    return LsToJson(entries, LsOutput::kAgent, /*simple=*/false, /*with_rel_path=*/true);
  }

  Result<Json> Stat(const std::string& uri) override {
    SKALD_ASSIGN_OR_RETURN(auto node, db_->Stat(who_, uri));
    return StatToJson(node);
  }

  Result<Json> Mkdir(const std::string& uri, const std::string& description) override {
    SKALD_ASSIGN_OR_RETURN(auto canonical, db_->Mkdir(who_, uri, description));
    return Json{{"uri", canonical}};
  }

  Result<Json> Rm(const std::string& uri, bool recursive) override {
    SKALD_ASSIGN_OR_RETURN(auto result, db_->Rm(who_, uri, recursive));
    return RmToJson(result);
  }

  Result<Json> Mv(const std::string& from, const std::string& to) override {
    SKALD_ASSIGN_OR_RETURN(auto result, db_->Mv(who_, from, to));
    return MvToJson(result);
  }

  Result<Json> Read(const ReadArgs& args) override {
    SKALD_ASSIGN_OR_RETURN(auto text, db_->Read(who_, args.uri, args.offset, args.limit, args.raw));
    return Json(std::move(text));
  }

  Result<Json> Abstract(const std::string& uri) override {
    SKALD_ASSIGN_OR_RETURN(auto text, db_->Abstract(who_, uri));
    return Json(std::move(text));
  }

  Result<Json> Overview(const std::string& uri) override {
    SKALD_ASSIGN_OR_RETURN(auto text, db_->Overview(who_, uri));
    return Json(std::move(text));
  }

  Result<Json> Write(const WriteRequest& request) override {
    SKALD_ASSIGN_OR_RETURN(auto result, db_->Write(who_, request));
    return WriteToJson(result, request.wait);
  }

  Result<std::string> Download(const std::string& uri) override {
    SKALD_ASSIGN_OR_RETURN(auto download, db_->DownloadFile(who_, uri));
    return std::move(download.bytes);
  }

  Result<Json> Glob(const GlobRequest& request) override {
    SKALD_ASSIGN_OR_RETURN(auto result, db_->Glob(who_, request));
    return GlobToJson(result);
  }

  Result<Json> Grep(const GrepRequest& request) override {
    SKALD_ASSIGN_OR_RETURN(auto result, db_->Grep(who_, request));
    return GrepToJson(result);
  }

  Result<Json> Fsck(bool repair) override {
    SKALD_ASSIGN_OR_RETURN(auto report, db_->Fsck(repair));
    return FsckToJson(report);
  }

  Result<Json> AddResource(const AddResourceRequest& request) override {
    AddResourceRequest started = request;
    started.wait = false;
    // The Db may run the import on another thread after the cwd changed;
    // an absolute path also makes source_path unambiguous.
    std::error_code ec;
    if (!started.path.empty() && started.path.find("://") == std::string::npos) {
      // Worded as in remote mode (which checks before uploading), naming the
      // path as given.
      if (!std::filesystem::exists(started.path, ec)) {
        return UsageError(fmt::format("add-resource: no such file: {}", started.path));
      }
      std::filesystem::path absolute = std::filesystem::absolute(started.path, ec);
      if (!ec) started.path = absolute.lexically_normal().string();
    }
    SKALD_ASSIGN_OR_RETURN(auto result, db_->AddResource(who_, started));
    return AddResourceResultToJson(result, /*waited=*/false);
  }

  Result<Json> Reindex(const ReindexRequest& request) override {
    ReindexRequest waited = request;
    waited.wait = true;  // the task runs in this process
    SKALD_ASSIGN_OR_RETURN(ReindexResult result, db_->Reindex(who_, waited));
    return ReindexResultToJson(result);
  }

  Result<Json> AddSkill(const SkillRequest& request) override {
    SkillRequest waited = request;
    waited.wait = true;  // the index task runs in this process
    SKALD_ASSIGN_OR_RETURN(SkillResult result, db_->AddSkill(who_, waited));
    return SkillResultToJson(result, /*waited=*/true);
  }

  Result<Json> Find(const FindArgs& args) override {
    FindRequest request = args.request;
    const int64_t now = NowNanos();
    if (!args.since.empty()) {
      SKALD_ASSIGN_OR_RETURN(request.since_ns, ParseTimeBound(args.since, now, false));
    }
    if (!args.until.empty()) {
      SKALD_ASSIGN_OR_RETURN(request.until_ns, ParseTimeBound(args.until, now, true));
    }
    // The server validates before calling the Db; so does embedded mode, so
    // that both report the same errors.
    SKALD_RETURN_IF_ERROR(request.Validate());
    if (args.search) {
      SearchRequest search{request, args.session_id};
      SKALD_ASSIGN_OR_RETURN(SearchResult searched, db_->Search(who_, search));
      return SearchResultToJson(searched, request.include_provenance);
    }
    SKALD_ASSIGN_OR_RETURN(auto result, db_->Find(who_, request));
    return FindResultToJson(result, request.include_provenance);
  }

  void PauseForTask(const std::string& task_id, std::chrono::milliseconds at_most) override {
    // An error (the task went away) shows at the next GetTask.
    (void)db_->WaitTask(who_, task_id, at_most.count());
  }

  Result<Json> GetTask(const std::string& task_id) override {
    Result<TaskInfo> task = db_->GetTask(who_, task_id);
    if (!task.ok() && task.status().code() == StatusCode::kNotFound) {
      // The server's wording (reference §2.8), so both modes print the same error.
      return Status::NotFound("Task not found or expired")
          .WithDetail("resource", task_id)
          .WithDetail("type", "task");
    }
    if (!task.ok()) return task.status();
    return TaskInfoToJson(*task);
  }

  Result<Json> ListTasks(const TaskFilter& filter) override {
    SKALD_ASSIGN_OR_RETURN(auto tasks, db_->ListTasks(who_, filter));
    Json out = Json::array();
    for (const TaskInfo& task : tasks) out.push_back(TaskInfoToJson(task));
    return out;
  }

  Result<Json> Admin(const AdminRequest& request) override {
    return RunAdminOnDb(*db_, who_, request);
  }

  Result<Json> Session(const SessionRequest& request) override {
    return RunSessionOnDb(*db_, who_, request);
  }

  Result<skald::Download> ExportPack(const std::string& uri, bool include_vectors) override {
    if (uri.empty()) return db_->BackupPack(who_, include_vectors);
    return db_->ExportPack(who_, uri, include_vectors);
  }

  Result<Json> ImportPack(const std::string& filename, const std::string& bytes,
                          PackImportRequest request, bool restore) override {
    SKALD_ASSIGN_OR_RETURN(request.temp_file_id, db_->TempUpload(who_, filename, bytes));
    SKALD_ASSIGN_OR_RETURN(std::string uri, restore ? db_->RestorePack(who_, request)
                                                    : db_->ImportPack(who_, request));
    return Json{{"uri", uri}};  // (indexed before the process exits: ~EmbeddedBackend)
  }

 private:
  std::unique_ptr<Db> db_;
  std::string data_dir_;
  Identity who_;
};

}  // namespace

Result<std::unique_ptr<Backend>> OpenEmbeddedBackend(const std::string& data_dir,
                                                     const Identity& who) {
  DbOptions options;
  options.workspace = data_dir;
  // The process closes the workspace right after its command: vectors left
  // unlinked stay so (saved so, scored exactly) for a server to link, with
  // no CPU spent on links the close would not keep.
  options.link_in_background = false;
  if (Status valid = options.Validate(); !valid.ok()) {
    return UsageError("--data: " + valid.message());
  }
  SKALD_RETURN_IF_ERROR(CheckWorkspaceDir(data_dir));
  auto sink = std::make_shared<OpenLogSink>();
  auto logger = std::make_shared<spdlog::logger>("skald", sink);
  logger->set_pattern("skald: %l: %v");
  logger->set_level(spdlog::level::warn);
  spdlog::set_default_logger(logger);
  Result<std::unique_ptr<Db>> db = Db::Open(options);
  sink->Release(/*print=*/db.ok());
  if (!db.ok()) {
    if (IsWorkspaceInUse(db.status())) return db.status();  // ReportError adds the hint
    return Status(db.status().code(),
                  fmt::format("cannot open workspace {}: {}", data_dir, db.status().message()))
        .WithReason(db.status().reason());
  }
  return std::unique_ptr<Backend>(
      std::make_unique<EmbeddedBackend>(std::move(db).value(), data_dir, who));
}

}  // namespace skald::cli
