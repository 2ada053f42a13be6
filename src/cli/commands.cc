// The `skald` command line. Each subcommand turns its flags into one Backend
// call whose JSON `result` is printed by one renderer (or raw with --json).
// Flag names mirror OpenViking's `ov` CLI where the command exists there.

#include "cli/commands.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/admin_commands.h"
#include "cli/backend.h"
#include "cli/client_config.h"
#include "cli/command_runs.h"
#include "cli/doctor.h"
#include "cli/local_file.h"
#include "cli/output.h"
#include "cli/pack_commands.h"
#include "cli/session_commands.h"
#include "cli/task_wait.h"
#include "common/strings.h"
#include "common/time_util.h"
#include "server/serve_main.h"
#include "service/json_codec.h"
#include "uri/viking_uri.h"
namespace skald::cli {
namespace {

void AddListFlags(CLI::App* sub, LsArgs* args, bool tree) {
  sub->add_option("uri", args->uri, "Directory URI")->capture_default_str();
  sub->add_option("-l,--abs-limit", args->options.abs_limit,
                  "Cut directory abstracts to this many characters")
      ->capture_default_str();
  sub->add_flag("-a,--all", args->options.show_all_hidden, "Show hidden (dot) files");
  sub->add_option("-n,--node-limit,--limit", args->options.node_limit, "Maximum number of entries")
      ->capture_default_str();
  if (tree) {
    sub->add_option("-L,--level-limit", args->options.level_limit, "Maximum depth")
        ->capture_default_str();
  } else {
    sub->add_flag("-s,--simple", args->simple, "Print URIs only");
    sub->add_flag("-r,--recursive", args->options.recursive,
                  "List the subtree (3 levels deep) instead of direct children");
  }
}

}  // namespace

int RunCli(int argc, char** argv) {
  CLI::App app{"skald: a context database for AI agents (OpenViking HTTP API v1 compatible)",
               "skald"};
  app.fallthrough();  // global flags may follow the subcommand; set before adding any
  app.require_subcommand(1);
  app.footer(
      "Modes: embedded (--data DIR, default ./skald-data; opens the workspace in this process) "
      "or remote (--url URL, $SKALD_URL or \"url\" in ~/.skald/cli.conf; talks to `skald serve`).\n"
      "Exit codes: 0 ok, 1 error reported by the database/server, 2 usage or config error, "
      "3 server unreachable.");

  GlobalFlags flags;
  CLI::Option* data_opt =
      app.add_option("--data", flags.data, "Workspace directory (embedded mode)")
          ->capture_default_str();
  CLI::Option* url_opt =
      app.add_option("--url", flags.url, "Server URL, e.g. http://127.0.0.1:1933 (env SKALD_URL)");
  url_opt->excludes(data_opt);
  // Client settings also come from ~/.skald/cli.conf and SKALD_* variables
  // (cli/client_config.h); the flags below win over both.
  ClientSettingsLayer given;
  app.add_option("--api-key", given.api_key, "API key sent as X-API-Key (env SKALD_API_KEY)");
  app.add_option("--account", given.account,
                 "Account (X-OpenViking-Account remotely; the identity embedded; env "
                 "SKALD_ACCOUNT)");
  app.add_option("--user", given.user,
                 "User (X-OpenViking-User remotely; the identity embedded; env SKALD_USER)");
  app.add_flag("--json", flags.json, "Print the raw `result` JSON (same as -o json)");
  app.add_option("-o,--output", given.output, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  app.add_option("--timeout", given.timeout,
                 "Remote request timeout in seconds (default 60; env SKALD_TIMEOUT)");

  CommandArgs a;
  std::function<int()> action;

  CLI::App* ls = app.add_subcommand("ls", "List a directory")->alias("list");
  a.ls.options.node_limit = 256;  // the `ov` CLI's default (the HTTP default is 1000)
  AddListFlags(ls, &a.ls, /*tree=*/false);
  ls->callback([&] {
    action = [&] {
      return Execute(
          flags, [&](Backend& b) { return b.Ls(a.ls); }, RenderLs);
    };
  });

  CLI::App* tree = app.add_subcommand("tree", "Show a directory tree");
  a.tree.options.abs_limit = 128;
  a.tree.options.node_limit = 256;
  AddListFlags(tree, &a.tree, /*tree=*/true);
  tree->callback([&] {
    action = [&] {
      return Execute(
          flags, [&](Backend& b) { return b.Tree(a.tree); },
          [&](const Json& r, std::ostream& o) { RenderTree(r, a.tree.uri, o); });
    };
  });

  CLI::App* stat = app.add_subcommand("stat", "Show a file's or directory's metadata");
  stat->add_option("uri", a.uri, "URI")->required();
  stat->callback([&] {
    action = [&] {
      return Execute(
          flags, [&](Backend& b) { return b.Stat(a.uri); },
          [&](const Json& r, std::ostream& o) { RenderStat(r, a.uri, o); });
    };
  });

  CLI::App* mkdir = app.add_subcommand("mkdir", "Create a directory (and its parents)");
  mkdir->add_option("uri", a.uri, "Directory URI")->required();
  mkdir->add_option("--description", a.description, "Text for the directory's abstract");
  mkdir->callback([&] {
    action = [&] {
      return Execute(
          flags, [&](Backend& b) { return b.Mkdir(a.uri, a.description); }, RenderMkdir);
    };
  });

  CLI::App* rm = app.add_subcommand("rm", "Delete a file, or a directory with -r")
                     ->alias("del")
                     ->alias("delete");
  rm->add_option("uri", a.uri, "URI")->required();
  rm->add_flag("-r,--recursive", a.recursive, "Delete a directory and everything in it");
  rm->callback([&] {
    action = [&] {
      return Execute(
          flags, [&](Backend& b) { return b.Rm(a.uri, a.recursive); }, RenderRm);
    };
  });

  CLI::App* mv = app.add_subcommand("mv", "Move or rename a file or directory")->alias("rename");
  mv->add_option("from", a.uri, "Source URI")->required();
  mv->add_option("to", a.to_uri, "Destination URI")->required();
  mv->callback([&] {
    action = [&] {
      return Execute(
          flags, [&](Backend& b) { return b.Mv(a.uri, a.to_uri); }, RenderMv);
    };
  });

  CLI::App* read = app.add_subcommand("read", "Print a file (optionally a range of lines)");
  read->add_option("uri", a.read.uri, "File URI")->required();
  read->add_option("--offset", a.read.offset, "First line to print (0-based)")
      ->capture_default_str();
  read->add_option("--limit", a.read.limit, "Number of lines (-1 = to the end)")
      ->capture_default_str();
  read->add_flag("--raw", a.read.raw, "A memory file with its provenance header");
  read->callback([&] {
    action = [&] {
      return Execute(
          flags, [&](Backend& b) { return b.Read(a.read); }, RenderTextForTerminal);
    };
  });

  CLI::App* abstract = app.add_subcommand("abstract", "Print a directory's L0 abstract");
  abstract->add_option("uri", a.uri, "Directory URI")->required();
  abstract->callback([&] {
    action = [&] {
      return Execute(
          flags, [&](Backend& b) { return b.Abstract(a.uri); }, RenderTextForTerminal);
    };
  });

  CLI::App* overview = app.add_subcommand("overview", "Print a directory's L1 overview");
  overview->add_option("uri", a.uri, "Directory URI")->required();
  overview->callback([&] {
    action = [&] {
      return Execute(
          flags, [&](Backend& b) { return b.Overview(a.uri); }, RenderTextForTerminal);
    };
  });

  CLI::App* write = app.add_subcommand("write", "Write a text file");
  write->add_option("uri", a.uri, "File URI")->required();
  CLI::Option* content_opt = write->add_option("--content", a.content, "The text to write");
  CLI::Option* file_opt =
      write->add_option("--from-file", a.from_file, "Read the text from a local file (- = stdin)");
  content_opt->excludes(file_opt);
  write->add_option("--mode", a.mode, "replace (file must exist), append, or create (must not)")
      ->check(CLI::IsMember({"replace", "append", "create"}))
      ->capture_default_str();
  write->add_flag("--append", a.append, "Same as --mode append");
  write->add_flag("--wait", a.write_wait,
                  "Return once the file is summarized and searchable (embedded mode always "
                  "finishes that work before exiting)");
  write->callback([&] { action = [&] { return RunWrite(flags, a); }; });

  CLI::App* get = app.add_subcommand("get", "Download a file to a local path");
  get->add_option("uri", a.uri, "File URI")->required();
  get->add_option("local-path", a.local_path, "Local file or directory (- = stdout)")->required();
  get->callback([&] { action = [&] { return SaveDownload(flags, a.uri, a.local_path); }; });

  CLI::App* glob = app.add_subcommand("glob", "Find files whose path matches a glob pattern");
  glob->add_option("pattern", a.glob.pattern, "Pattern, e.g. **/*.md")->required();
  glob->add_option("-u,--uri", a.glob.uri, "Directory to search")->capture_default_str();
  glob->add_option("-n,--node-limit", a.glob.node_limit, "Maximum number of matches")
      ->capture_default_str();
  glob->add_option("--tag", a.glob.tags, "Only entries tagged k=v (repeatable)")
      ->allow_extra_args(false);
  glob->callback([&] {
    action = [&] {
      return Execute(
          flags, [&](Backend& b) { return b.Glob(a.glob); }, RenderGlob);
    };
  });

  CLI::App* grep = app.add_subcommand("grep", "Search file lines with a regular expression");
  a.grep.uri = "viking://";
  grep->add_option("pattern", a.grep.pattern, "RE2 regular expression")->required();
  grep->add_option("-u,--uri", a.grep.uri, "Directory to search")->capture_default_str();
  grep->add_option("-x,--exclude-uri", a.grep.exclude_uri, "Subtree to skip");
  grep->add_flag("-i,--ignore-case", a.grep.case_insensitive, "Case-insensitive match");
  grep->add_option("-n,--node-limit", a.grep.node_limit, "Maximum number of matches")
      ->capture_default_str();
  grep->add_option("-L,--level-limit", a.grep.level_limit, "Maximum directory depth")
      ->capture_default_str();
  grep->add_option("--tag", a.grep.tags, "Only files tagged k=v (repeatable)")
      ->allow_extra_args(false);
  grep->callback([&] {
    action = [&] {
      return Execute(
          flags, [&](Backend& b) { return b.Grep(a.grep); }, RenderGrep);
    };
  });

  CLI::App* add = app.add_subcommand(
      "add-resource",
      "Import a local file or directory as a resource: parsed to markdown, summarized and "
      "embedded by a background task. Embedded mode always waits until it is searchable (the "
      "work runs in this process); remote mode uploads one file (a directory as one zip) and "
      "returns at once unless --wait.");
  add->add_option(
         "path", a.add.path,
         "Local file, directory (remote mode: zipped and uploaded) or archive, or an http(s) URL")
      ->required();
  CLI::Option* to_opt =
      add->add_option("--to", a.add.to,
                      "Exact URI of the resource (a single document becomes that file; ending "
                      "in '/': a directory to put it in); an existing root is synced (only what "
                      "changed is redone, what the source lost is removed)");
  CLI::Option* parent_opt = add->add_option(
      "--parent", a.add.parent, "Directory to create the resource in (default viking://resources)");
  to_opt->excludes(parent_opt);
  add->add_flag("--create-parent", a.add.create_parent, "Create --parent when it is missing");
  add->add_option("--reason", a.add.reason, "Why this resource is added (kept with it)");
  add->add_option("--instruction", a.add.instruction, "Processing instruction for summaries");
  add->add_flag("--wait", a.add.wait, "Remote mode: wait until the resource is searchable");
  add->add_option("--timeout", a.add_timeout,
                  "Stop waiting after this many seconds (the task goes on)");
  add->add_option("--include", a.add.include, "Directories: only files matching this glob")
      ->allow_extra_args(false);
  add->add_option("--exclude", a.add.exclude, "Directories: skip files matching this glob")
      ->allow_extra_args(false);
  add->add_option("--ignore-dirs", a.add.ignore_dirs, "Directories: skip directories so named")
      ->allow_extra_args(false);
  add->add_option("--tag", a.add.tags, "Tag k=v set on every record of the resource")
      ->allow_extra_args(false);
  add->add_option("--parse-mode", a.add.parse_mode,
                  "default (large Markdown split into sections) or no_split (kept whole)")
      ->check(CLI::IsMember({"default", "no_split"}));
  add->add_option("--processing-mode", a.add.processing_mode,
                  "semantic_and_vectors (default) or vectors_only")
      ->check(CLI::IsMember({"semantic_and_vectors", "vectors_only"}));
  add->callback([&] { action = [&] { return RunAddResource(flags, a); }; });

  CLI::App* reindex = app.add_subcommand(
      "reindex",
      "Bring the records of a tree back in line with its content: embed again, summarize "
      "again, or delete the records whose content is gone");
  reindex->add_option("uri", a.reindex.uri, "URI of the tree (or node) to reindex")->required();
  reindex
      ->add_option("--mode", a.reindex.mode,
                   "vectors_only (default), semantic_and_vectors or prune_orphans")
      ->check(CLI::IsMember({"vectors_only", "semantic_and_vectors", "prune_orphans"}));
  reindex
      ->add_option("--wait", a.reindex.wait,
                   "Wait until the task completed (true, the default, or false)")
      ->expected(0, 1)
      ->default_str("true");
  reindex->add_option("--timeout", a.reindex.timeout_s,
                      "Stop waiting after this many seconds (the task goes on)");
  reindex->add_flag("--dry-run", a.reindex.dry_run, "Count what would be done, change nothing");
  reindex
      ->add_option("--recursive", a.reindex.recursive,
                   "The node and everything below it (true, the default) or the node alone")
      ->expected(0, 1)
      ->default_str("true");
  reindex->callback([&] {
    action = [&] {
      return Execute(
          flags, [&](Backend& b) { return b.Reindex(a.reindex); }, RenderReindex);
    };
  });

  CLI::App* add_skill = app.add_subcommand(
      "add-skill",
      "Store a skill (SKILL.md with name and description) so that find and search with "
      "context type skill return it. Embedded mode waits until it is searchable.");
  add_skill
      ->add_option("source", a.skill_source,
                   "A SKILL.md file, a directory holding one, or SKILL.md text")
      ->required();
  add_skill->add_flag("--wait", a.skill.wait, "Remote mode: wait until the skill is searchable");
  add_skill->add_option("--timeout", a.skill.timeout_s,
                        "Stop waiting after this many seconds (the task goes on)");
  add_skill->add_option("-p,--parent", a.skill.target_uri,
                        "Skills root: viking://agent/skills (shared by the account) instead of "
                        "your own viking://user/<you>/skills");
  add_skill->callback([&] { action = [&] { return RunAddSkill(flags, a); }; });

  auto add_find_flags = [&](CLI::App* sub) {
    sub->add_option("query", a.find.request.query, "What to look for")->required();
    sub->add_option("-u,--uri", a.find.request.target_uris, "Directory to search (repeatable)")
        ->allow_extra_args(false);
    sub->add_option("--type,--context-type", a.find.request.context_types,
                    "resource, memory or skill (repeatable; default all)")
        ->allow_extra_args(false);
    sub->add_option("-n,--limit,--node-limit", a.find.request.limit, "Maximum number of hits")
        ->capture_default_str();
    sub->add_option("-t,--threshold", a.find.request.score_threshold,
                    "Only hits scoring above this (0-1)");
    sub->add_option("-L,--level", a.find.request.levels,
                    "0 abstract, 1 overview, 2 file (repeatable; default all)")
        ->allow_extra_args(false);
    sub->add_option("--tag", a.find.request.tags, "Only hits tagged k=v (repeatable)")
        ->allow_extra_args(false);
    sub->add_option("--after", a.find.since, "Modified after: 2h, 7d, 2026-01-31 or ISO 8601");
    sub->add_option("--before", a.find.until, "Modified before (same forms as --after)");
    sub->add_flag("--provenance,--trace", a.find.request.include_provenance,
                  "Also print how the search ran (THINKING: the directories visited, as a tree)");
    sub->add_option("--retrieval-mode", a.find_mode,
                    "quick (one search), thinking (directory by directory) or auto (default)")
        ->check(CLI::IsMember({"auto", "quick", "thinking"}));
  };
  CLI::App* find = app.add_subcommand("find", "Semantic and lexical search of the context");
  add_find_flags(find);
  find->callback([&] { action = [&] { return RunFind(flags, a); }; });
  CLI::App* search = app.add_subcommand(
      "search", "Like find, with intent analysis that reads the session (--session-id)");
  add_find_flags(search);
  search->add_option("--session-id", a.find.session_id,
                     "Session whose recent messages complete follow-up questions");
  search->callback([&] {
    a.find.search = true;
    action = [&] { return RunFind(flags, a); };
  });

  CLI::App* tasks = app.add_subcommand("tasks", "List background tasks, newest first");
  tasks->add_option("--status", a.tasks_status, "pending, running, completed or failed")
      ->check(CLI::IsMember({"pending", "running", "completed", "failed"}));
  tasks->add_option("--type", a.tasks.task_type, "Task type, e.g. add_resource");
  tasks->add_option("--resource", a.tasks.resource_id, "Only tasks working on this URI");
  tasks->add_option("-n,--limit", a.tasks.limit, "Maximum number of tasks (0-200)")
      ->capture_default_str();
  tasks->callback([&] {
    action = [&] {
      return Execute(
          flags,
          [&](Backend& b) -> Result<Json> {
            if (!a.tasks_status.empty()) {
              a.tasks.status = ParseTaskState(a.tasks_status);
              if (!a.tasks.status) {
                return Status::InvalidArgument(
                    fmt::format("unknown task status '{}'", a.tasks_status));
              }
            }
            return b.ListTasks(a.tasks);
          },
          RenderTasks);
    };
  });
  CLI::App* task = app.add_subcommand("task", "Show one background task");
  task->add_option("id", a.task_id, "Task id")->required();
  task->callback([&] {
    action = [&] {
      return Execute(
          flags, [&](Backend& b) { return b.GetTask(a.task_id); }, RenderTask);
    };
  });

  AddAdminCommands(
      app,
      [&](const AdminRequest& request) {
        return Execute(
            flags, [&](Backend& b) { return b.Admin(request); }, RenderAdmin);
      },
      &action);

  AddSessionCommands(
      app,
      [&](const SessionRequest& request) {
        return Execute(
            flags, [&](Backend& b) { return b.Session(request); }, RenderSession);
      },
      [&](const std::string& text) {
        return Execute(
            flags, [&](Backend& b) { return AddMemory(b, text); }, RenderSession);
      },
      &action);

  AddPackCommands(
      app, [&](const Operation& op) { return Execute(flags, op, RenderPack); }, &action);

  CLI::App* fsck = app.add_subcommand(
      "fsck", "Check the workspace's content against its catalog (embedded only)");
  fsck->add_flag("--repair", a.repair, "Bring the catalog in line with the files on disk");
  fsck->callback([&] { action = [&] { return RunFsck(flags, a.repair); }; });

  CLI::App* serve = app.add_subcommand("serve", "Run the HTTP server (OpenViking API v1)");
  serve->add_option("--config", a.config_path, "JSON config file (see docs/config.md)");
  serve->add_option("--host", a.host, "Address to bind (default from config: 127.0.0.1)");
  serve->add_option("--port", a.port, "Port (default from config: 1933; 0 = any free port)");
  serve->add_flag("--reindex-embeddings", a.reindex_embeddings,
                  "Accept a workspace built with another embedder and record the configured one "
                  "(its vectors must be rebuilt)");
  serve->callback([&] { action = [&] { return RunServeCommand(flags, a); }; });

  CLI::App* doctor = app.add_subcommand(
      "doctor", "Check the config and probe each configured model provider (no server)");
  doctor->add_option("--config", a.config_path, "JSON config file (see docs/config.md)");
  doctor->callback(
      [&] { action = [&] { return RunDoctor(a.config_path, flags.json, std::cout); }; });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }

  flags.data_given = data_opt->count() > 0;
  if (serve->parsed() && url_opt->count() > 0) {
    return ReportError(UsageError("serve runs a server on a workspace (--data); --url is for "
                                  "client commands"),
                       flags);
  }
  if (!serve->parsed() && !doctor->parsed()) {
    if (url_opt->count() > 0) given.url = flags.url;
    Result<ClientSettings> settings = ResolveClientSettings(given);
    if (!settings.ok()) return ReportError(settings.status(), flags);
    // An explicit --data means embedded, whatever url the config or env give.
    if (!flags.data_given) flags.url = settings->url;
    flags.api_key = settings->api_key;
    flags.account = settings->account;
    flags.user = settings->user;
    flags.timeout_seconds = settings->timeout;
    flags.json = flags.json || settings->output == "json";
  }
  if (!action) return ReportError(UsageError("no command given; see --help"), flags);
  return action();
}

}  // namespace skald::cli
