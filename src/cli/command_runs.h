#pragma once

// What the `skald` subcommands run (commands.cc declares their flags):
// opening the embedded or remote backend, running one call and printing its
// result, and the commands with more to do than one call (write, get,
// add-resource, add-skill, find/search, fsck, serve). Internal to the CLI.
//
// Thread safety: called once per process, from RunCli.

#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "cli/backend.h"
#include "cli/output.h"
#include "common/json_util.h"

namespace skald::cli {

constexpr const char* kDefaultDataDir = "./skald-data";

// The flags before the subcommand.
struct GlobalFlags {
  std::string data = kDefaultDataDir;
  bool data_given = false;  // --data appeared on the command line
  std::string url;          // "" = embedded mode
  std::string api_key;
  std::string account;
  std::string user;
  bool json = false;
  double timeout_seconds = 60;
};

// Everything the subcommands parse into; lives as long as the CLI::App.
struct CommandArgs {
  LsArgs ls;
  LsArgs tree;
  std::string uri;
  std::string to_uri;
  std::string description;
  bool recursive = false;
  ReadArgs read;
  // write
  std::optional<std::string> content;
  std::optional<std::string> from_file;
  std::string mode = "replace";
  bool append = false;
  bool write_wait = false;
  // get
  std::string local_path;
  GlobRequest glob;
  GrepRequest grep;
  bool repair = false;
  // add-resource
  AddResourceRequest add;
  std::optional<double> add_timeout;
  // reindex
  ReindexRequest reindex;
  // add-skill
  SkillRequest skill;
  std::string skill_source;
  // find / search
  FindArgs find;
  std::string find_mode = "auto";
  // tasks / task
  TaskFilter tasks;
  std::string tasks_status;  // --status as typed; parsed into tasks.status
  std::string task_id;
  // serve
  std::string config_path;
  std::optional<std::string> host;
  std::optional<int> port;
  bool reindex_embeddings = false;
};

using Operation = std::function<Result<Json>(Backend&)>;
using Renderer = std::function<void(const Json&, std::ostream&)>;

// Prints a failed Status the same way in both modes and picks the exit code.
int ReportError(const Status& status, const GlobalFlags& flags);
// read/abstract/overview print the text exactly; on a terminal a missing
// final newline is added so the prompt does not run into the text.
void RenderTextForTerminal(const Json& result, std::ostream& out);
// Opens the backend, runs `op`, prints its result; returns the exit code.
int Execute(const GlobalFlags& flags, const Operation& op, const Renderer& render);

// Writes downloaded bytes to stdout ("-") or atomically to a file.
int SaveDownload(const GlobalFlags& flags, const std::string& uri, const std::string& local_path);
int RunWrite(const GlobalFlags& flags, CommandArgs& a);
int RunFsck(const GlobalFlags& flags, bool repair);
// add-resource: start the import, then (always embedded, with --wait remote)
// follow its task to the end showing the stage on stderr.
int RunAddResource(const GlobalFlags& flags, CommandArgs& a);
// add-skill SOURCE: a SKILL.md file, a directory holding one, or its text.
int RunAddSkill(const GlobalFlags& flags, CommandArgs& a);
// find/search, with the time bounds checked the same way in both modes.
int RunFind(const GlobalFlags& flags, CommandArgs& a);
int RunServeCommand(const GlobalFlags& flags, const CommandArgs& a);

}  // namespace skald::cli
