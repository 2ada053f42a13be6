// Black-box tests of the `skald` binary: embedded (--data) on a fresh
// workspace, then remote (--url) against `skald serve`, checking exit codes,
// readable output, and that --json output is the same in both modes.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/testutil/subprocess.h"
#include "tests/testutil/temp_dir.h"

namespace skald::testing {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using Args = std::vector<std::string>;

const std::string kSkald = SKALD_BIN;

using ::skald::testing::TempDir;

std::string Describe(const ProcessResult& r) {
  return "exit=" + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

// Removes every "modTime" (times differ between two workspaces).
Json WithoutModTimes(Json j) {
  if (j.is_object()) {
    j.erase("modTime");
    for (auto& [key, value] : j.items()) value = WithoutModTimes(value);
  } else if (j.is_array()) {
    for (auto& value : j) value = WithoutModTimes(value);
  }
  return j;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CliTest : public ::testing::Test {
 protected:
  // Holds the empty client config every child process reads.
  inline static std::unique_ptr<TempDir> config_dir_;

  static void SetUpTestSuite() {
    // The children must not pick up a developer's environment or client
    // config (~/.skald/cli.conf): they read an empty one.
    for (const char* name :
         {"SKALD_URL", "SKALD_API_KEY", "SKALD_ACCOUNT", "SKALD_USER", "SKALD_TIMEOUT"}) {
      unsetenv(name);
    }
    config_dir_ = std::make_unique<TempDir>();
    const std::string empty_config = config_dir_->path() + "/cli.conf";
    std::ofstream(empty_config) << "{}";
    setenv("SKALD_CLI_CONFIG", empty_config.c_str(), 1);
  }
  static void TearDownTestSuite() { config_dir_.reset(); }

  // `skald --data <workspace> args...`
  ProcessResult Embedded(const Args& args, const std::string& stdin_data = "") {
    Args full{"--data", workspace_.path() + "/ws"};
    full.insert(full.end(), args.begin(), args.end());
    return RunProcess(kSkald, full, stdin_data);
  }

  ProcessResult Run(const Args& args) { return RunProcess(kSkald, args); }

  TempDir workspace_;
};

TEST_F(CliTest, EmbeddedWorkflow) {
  ProcessResult r = Embedded({"mkdir", "viking://resources/docs"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "created viking://resources/docs\n");

  r = Embedded({"write", "viking://resources/docs/a.md", "--mode", "create", "--content",
                "alpha\nbeta\ngamma\n"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("wrote 17 bytes to viking://resources/docs/a.md (create)"),
            std::string::npos)
      << r.out;
  r = Embedded({"write", "viking://resources/docs/a.md", "--append", "--from-file", "-"},
               "delta\n");
  ASSERT_EQ(r.exit_code, 0) << Describe(r);

  r = Embedded({"ls", "viking://resources/docs"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("SIZE"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("23 B"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("viking://resources/docs/a.md"), std::string::npos) << r.out;
  r = Embedded({"ls", "viking://resources"});
  // Directories end in '/'; the abstract (written in the background) may follow.
  EXPECT_TRUE(std::regex_search(r.out, std::regex("viking://resources/docs/(\n|  )"))) << r.out;

  r = Embedded({"--json", "ls", "viking://resources/docs"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Json ls = Json::parse(r.out);
  ASSERT_TRUE(ls.is_array());
  ASSERT_EQ(ls.size(), 1u);
  EXPECT_EQ(ls[0]["uri"], "viking://resources/docs/a.md");
  EXPECT_EQ(ls[0]["size"], 23);
  EXPECT_EQ(ls[0]["isDir"], false);

  r = Embedded({"read", "viking://resources/docs/a.md"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "alpha\nbeta\ngamma\ndelta\n");
  r = Embedded({"read", "viking://resources/docs/a.md", "--offset", "1", "--limit", "2"});
  EXPECT_EQ(r.out, "beta\ngamma\n") << Describe(r);

  r = Embedded({"mv", "viking://resources/docs/a.md", "viking://resources/docs/b.md"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "moved viking://resources/docs/a.md -> viking://resources/docs/b.md\n");
  r = Embedded({"ls", "--simple", "viking://resources/docs"});
  EXPECT_EQ(r.out, "viking://resources/docs/b.md\n") << Describe(r);

  r = Embedded({"grep", "gam+a", "-u", "viking://resources"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("viking://resources/docs/b.md     3  gamma"), std::string::npos) << r.out;
  r = Embedded(
      {"grep", "GAMMA", "-i", "-u", "viking://resources", "-x", "viking://resources/docs"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out.find("b.md"), std::string::npos) << r.out;

  r = Embedded({"glob", "**/*.md", "-u", "viking://resources"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("viking://resources/docs/b.md\n"), std::string::npos) << r.out;

  r = Embedded({"stat", "viking://resources/docs/b.md"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("type      file"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("23 B (23 bytes)"), std::string::npos) << r.out;

  r = Embedded({"tree", "viking://resources"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("└── docs/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    └── b.md"), std::string::npos) << r.out;

  std::string local = workspace_.path() + "/b-copy.md";
  r = Embedded({"get", "viking://resources/docs/b.md", local});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(Slurp(local), "alpha\nbeta\ngamma\ndelta\n");

  r = Embedded({"rm", "viking://resources/docs"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_EQ(r.err.rfind("error: FAILED_PRECONDITION: ", 0), 0u) << r.err;
  r = Embedded({"rm", "-r", "viking://resources/docs"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("removed viking://resources/docs"), std::string::npos) << r.out;
  r = Embedded({"stat", "viking://resources/docs"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_EQ(r.err.rfind("error: NOT_FOUND: ", 0), 0u) << r.err;

  r = Embedded({"fsck"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("clean"), std::string::npos) << r.out;
}

TEST_F(CliTest, EmbeddedIdentityFlagsFollowTheServersRule) {
  // An id too long for a file name is a usage error, before the workspace is
  // touched (no "File name too long", no host path).
  for (const char* flag : {"--account", "--user"}) {
    ProcessResult r = Embedded({flag, std::string(300, 'a'), "ls", "viking://resources"});
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_NE(r.err.find(flag), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("128 bytes"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(workspace_.path()), std::string::npos) << r.err;
  }
  ProcessResult ok = Embedded({"--account", std::string(128, 'a'), "ls", "viking://resources"});
  EXPECT_EQ(ok.exit_code, 0) << Describe(ok);
}

TEST_F(CliTest, ExitCodes) {
  EXPECT_EQ(Run({"--help"}).exit_code, 0);
  EXPECT_EQ(Run({"ls", "--help"}).exit_code, 0);
  EXPECT_EQ(Run({}).exit_code, 2);                                         // no command
  EXPECT_EQ(Run({"frobnicate"}).exit_code, 2);                             // unknown command
  EXPECT_EQ(Embedded({"ls", "--bogus"}).exit_code, 2);                     // unknown flag
  EXPECT_EQ(Embedded({"stat"}).exit_code, 2);                              // missing argument
  EXPECT_EQ(Embedded({"write", "viking://resources/x.md"}).exit_code, 2);  // no content
  EXPECT_EQ(
      Embedded({"write", "viking://resources/x.md", "--content", "x", "--mode", "bogus"}).exit_code,
      2);
  EXPECT_EQ(
      Embedded({"write", "viking://resources/x.md", "--from-file", "/nonexistent/f"}).exit_code, 2);
  // write sends text: bytes that are not UTF-8 are refused before anything is written.
  ProcessResult r = Embedded({"write", "viking://resources/x.md", "--from-file", "-"},
                             std::string("\xff\xfe\x00", 3));
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("UTF-8"), std::string::npos) << r.err;

  r = Run({"--url", "http://127.0.0.1:1", "fsck"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("--url"), std::string::npos) << r.err;
  EXPECT_EQ(Run({"--url", "ftp://x", "ls"}).exit_code, 2);
  EXPECT_EQ(Run({"--url", "http://127.0.0.1:1", "--data", "/tmp/x", "ls"}).exit_code, 2);

  r = Embedded({"read", "viking://resources/missing.md"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_EQ(r.err.rfind("error: NOT_FOUND: ", 0), 0u) << r.err;
  r = Embedded({"write", "viking://resources/x.md", "--content", "x"});  // replace needs a file
  EXPECT_EQ(r.exit_code, 1) << Describe(r);

  r = Run({"--url", "http://127.0.0.1:1", "--timeout", "5", "ls"});
  EXPECT_EQ(r.exit_code, 3) << Describe(r);
  EXPECT_NE(r.err.find("http://127.0.0.1:1"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

constexpr const char* kLighthouseDoc =
    "# Lighthouse keeping\n\n"
    "The lighthouse keeper trims the wick and polishes the Fresnel lens every evening.\n\n"
    "## Fog\n\nWhen fog rolls in the keeper sounds the foghorn.\n";

// Writes kLighthouseDoc to <dir>/lighthouse.md and returns the path.
std::string WriteLighthouseDoc(const TempDir& dir) {
  const std::string path = dir.path() + "/lighthouse.md";
  std::ofstream(path) << kLighthouseDoc;
  return path;
}

TEST_F(CliTest, AddResourceWaitsAndFindFindsItEmbedded) {
  const std::string doc = WriteLighthouseDoc(workspace_);
  // Embedded add-resource always waits: the work runs in this process.
  ProcessResult r = Embedded({"add-resource", doc, "--tag", "topic=sea"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "added viking://resources/lighthouse (completed)\n") << Describe(r);
  EXPECT_NE(r.err.find("completed"), std::string::npos) << r.err;  // progress on stderr

  r = Embedded({"find", "lighthouse keeper wick"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex("(^|\n)[01]\\.[0-9]{3}  viking://resources/lighthouse/lighthouse\\.md\n")))
      << r.out;
  EXPECT_NE(r.out.find("       Lighthouse keeping"), std::string::npos) << r.out;

  r = Embedded({"--json", "find", "Fresnel lens", "--provenance", "--type", "resource"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Json found = Json::parse(r.out);
  ASSERT_FALSE(found["resources"].empty()) << r.out;
  EXPECT_EQ(found["total"], found["resources"].size());
  EXPECT_TRUE(found["provenance"].is_object()) << r.out;
  r = Embedded({"search", "foghorn", "-u", "viking://resources/lighthouse"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("viking://resources/lighthouse/"), std::string::npos) << r.out;
  r = Embedded({"find", "zebra crossing", "-u", "viking://resources/lighthouse", "-t", "0.99"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "no matches\n");

  r = Embedded({"--json", "tasks", "--status", "completed"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Json tasks = Json::parse(r.out);
  ASSERT_EQ(tasks.size(), 1u) << r.out;
  const std::string task_id = tasks[0]["task_id"];
  EXPECT_EQ(tasks[0]["task_type"], "add_resource");
  r = Embedded({"tasks"});
  EXPECT_NE(r.out.find(task_id + "  add_resource  completed"), std::string::npos) << r.out;
  r = Embedded({"task", task_id});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("status    completed"), std::string::npos) << r.out;
  r = Embedded({"task", "no-such-task"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_EQ(r.err, "error: NOT_FOUND: Task not found or expired\n");
}

TEST_F(CliTest, AddResourceAndFindUsageErrors) {
  // Each failure shows the command's whole output (this test once failed
  // in a loaded full run without saying which step).
  for (const Args& usage :
       {Args{"find", "x", "--after", "someday"}, Args{"find", "x", "--before", "2026-02-30"},
        Args{"find"}, Args{"add-resource"},
        Args{"add-resource", "x.md", "--to", "viking://resources/a", "--parent",
             "viking://resources"},
        Args{"add-resource", "x.md", "--timeout", "-1"}}) {
    ProcessResult u = Embedded(usage);
    EXPECT_EQ(u.exit_code, 2) << usage[0] << " " << (usage.size() > 1 ? usage[1] : "") << ": "
                              << Describe(u);
  }
  ProcessResult r = Embedded({"find", "x", "--limit", "0"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_EQ(r.err.rfind("error: INVALID_ARGUMENT: ", 0), 0u) << Describe(r);
  // Worded as in remote mode (which checks before uploading): the path as given.
  r = Embedded({"add-resource", "missing.md"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_EQ(r.err, "error: add-resource: no such file: missing.md\n") << Describe(r);
  r = Embedded({"tasks", "--status", "bogus"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);

  // Embedded, --timeout stops the progress display only: the task runs in
  // the process, which finishes it before it exits.
  r = Embedded({"--json", "add-resource", WriteLighthouseDoc(workspace_), "--timeout", "0"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.err.find("resumes"), std::string::npos) << r.err;
  if (r.err.find("note: ") != std::string::npos) {
    EXPECT_NE(r.err.find("finishes it before exiting"), std::string::npos) << r.err;
  }
  r = Embedded({"--json", "tasks", "--type", "add_resource"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Json tasks = Json::parse(r.out);
  ASSERT_EQ(tasks.size(), 1u) << Describe(r);
  EXPECT_EQ(tasks[0]["status"], "completed") << Describe(r);
}

// A mistyped --data is one usage error; it never creates directories.
TEST_F(CliTest, DataDirectoryMustBeADirectoryInAnExistingParent) {
  const std::string typo = workspace_.path() + "/typo/ws";
  for (const Args& args :
       {Args{"--data", typo, "ls"}, Args{"--data", typo, "serve", "--port", "0"}}) {
    ProcessResult r = Run(args);
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_EQ(r.err.rfind("error: --data ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_FALSE(fs::exists(workspace_.path() + "/typo"));

  std::ofstream(workspace_.path() + "/file") << "x";
  ProcessResult r = Run({"--data", workspace_.path() + "/file", "ls"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("not a directory"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;

  // A missing workspace in an existing directory is created.
  r = Embedded({"ls"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(r.err.empty()) << r.err;
}

// export, backup, import and restore of OVPack files, embedded: a backup
// restored into another workspace brings the files back; an import over an
// existing tree is an error (exit 1) unless --on-conflict says otherwise; a
// missing package file is a usage error (exit 2).
TEST_F(CliTest, PackCommandsSaveAndLoadPackagesEmbedded) {
  ProcessResult r =
      Embedded({"write", "viking://resources/notes/quokka.md", "--content",
                "# Quokkas\n\nQuokkas live on Rottnest Island.\n", "--mode", "create"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const std::string dir = workspace_.path();
  r = Embedded({"export", "viking://resources/notes", dir + "/notes"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("saved " + dir + "/notes.ovpack"), std::string::npos) << Describe(r);
  EXPECT_EQ(Slurp(dir + "/notes.ovpack").substr(0, 2), "PK");
  r = Embedded({"backup", dir});  // a directory: the package's own name in it
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ASSERT_TRUE(fs::exists(dir + "/openviking-backup.ovpack")) << Describe(r);

  const Args other{"--data", dir + "/other"};
  auto in_other = [&](Args args) {
    args.insert(args.begin(), other.begin(), other.end());
    return RunProcess(kSkald, args);
  };
  r = in_other({"restore", dir + "/openviking-backup.ovpack"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("imported viking://"), std::string::npos) << Describe(r);
  r = in_other({"read", "viking://resources/notes/quokka.md"});
  EXPECT_EQ(r.out, "# Quokkas\n\nQuokkas live on Rottnest Island.\n") << Describe(r);

  r = in_other({"import", dir + "/notes.ovpack", "viking://resources/copy"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  r = in_other({"import", dir + "/notes.ovpack", "viking://resources/copy"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.err.find("CONFLICT"), std::string::npos) << Describe(r);
  r = in_other({"--json", "import", dir + "/notes.ovpack", "viking://resources/copy",
                "--on-conflict", "overwrite"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(Json::parse(r.out)["uri"], "viking://resources/copy/notes") << Describe(r);
  r = in_other({"find", "rottnest quokkas", "--uri", "viking://resources/copy"});
  EXPECT_NE(r.out.find("viking://resources/copy/notes/quokka.md"), std::string::npos)
      << Describe(r);

  r = in_other({"import", dir + "/missing.ovpack", "viking://resources/x"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  r = in_other({"import", dir + "/notes.ovpack", "viking://resources/x", "--on-conflict", "no"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
}

// One server for the remote tests; started and stopped by the fixture.
class CliRemoteTest : public CliTest {
 protected:
  void SetUp() override {
    std::string log = server_dir_.path() + "/server.log";
    ASSERT_TRUE(server_.Start(
        kSkald,
        {"serve", "--host", "127.0.0.1", "--port", "0", "--data", server_dir_.path() + "/ws"},
        log));
    std::string line = server_.WaitForLine("skald: listening on http://", 30);
    ASSERT_FALSE(line.empty()) << "server did not start; log:\n" << Slurp(log);
    size_t start = line.find("http://");
    size_t end = line.find(' ', start);
    url_ = line.substr(start, end - start);
  }
  void TearDown() override { EXPECT_EQ(server_.Stop(), 0); }

  ProcessResult Remote(const Args& args, const std::string& stdin_data = "") {
    Args full{"--url", url_};
    full.insert(full.end(), args.begin(), args.end());
    return RunProcess(kSkald, full, stdin_data);
  }

  TempDir server_dir_;
  BackgroundProcess server_;
  std::string url_;
};

// The same commands against a server: the package goes over HTTP both ways.
TEST_F(CliRemoteTest, PackCommandsWorkRemote) {
  ProcessResult r = Remote({"write", "viking://resources/notes/wombat.md", "--content",
                            "# Wombats\n\nWombats dig burrows.\n", "--mode", "create"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const std::string file = workspace_.path() + "/notes.ovpack";
  r = Remote({"export", "viking://resources/notes", file});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  r = Remote({"--json", "import", file, "viking://resources/copy"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(Json::parse(r.out)["uri"], "viking://resources/copy/notes") << Describe(r);
  r = Remote({"import", file, "viking://resources/copy"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  r = Remote({"backup", workspace_.path() + "/all"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(fs::exists(workspace_.path() + "/all.ovpack")) << Describe(r);
  r = Remote({"restore", workspace_.path() + "/all.ovpack", "--on-conflict", "skip"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  r = Remote({"read", "viking://resources/copy/notes/wombat.md"});
  EXPECT_EQ(r.out, "# Wombats\n\nWombats dig burrows.\n") << Describe(r);
}

TEST_F(CliRemoteTest, SameJsonAsEmbeddedForTheSameSteps) {
  const std::vector<Args> steps = {
      {"mkdir", "viking://resources/docs", "--description", "Design notes"},
      // --wait: the server indexes in the background; waiting makes the
      // summaries the later steps list the same in both modes.
      {"write", "viking://resources/docs/a.md", "--mode", "create", "--content", "one\ntwo\n",
       "--wait"},
      {"write", "viking://resources/docs/a.md", "--append", "--content", "three\n", "--wait"},
      {"write", "viking://resources/docs/sub/c.txt", "--mode", "create", "--content", "x",
       "--wait"},
      {"ls", "viking://resources/docs"},
      {"ls", "-r", "viking://resources"},
      {"ls", "-s", "viking://resources/docs"},
      {"tree", "viking://resources", "-L", "2"},
      {"stat", "viking://resources/docs/a.md"},
      {"read", "viking://resources/docs/a.md", "--offset", "1", "--limit", "1"},
      {"abstract", "viking://resources/docs"},
      {"overview", "viking://resources/docs"},
      {"mv", "viking://resources/docs/a.md", "viking://resources/docs/b.md"},
      {"grep", "t[wh]", "-u", "viking://resources"},
      {"glob", "**/*.md", "-u", "viking://resources"},
      {"rm", "viking://resources/docs/b.md"},
      {"rm", "-r", "viking://resources/docs"},
      {"rm", "viking://resources/never-existed"},
      {"ls", "viking://resources"},
  };
  for (const Args& step : steps) {
    Args json_step{"--json"};
    json_step.insert(json_step.end(), step.begin(), step.end());
    ProcessResult local = Embedded(json_step);
    ProcessResult remote = Remote(json_step);
    std::string what = step[0] + " " + step[1];
    ASSERT_EQ(local.exit_code, 0) << what << "\n" << Describe(local);
    ASSERT_EQ(remote.exit_code, 0) << what << "\n" << Describe(remote);
    Json l = Json::parse(local.out, nullptr, false);
    Json r = Json::parse(remote.out, nullptr, false);
    ASSERT_FALSE(l.is_discarded()) << what << ": " << local.out;
    ASSERT_FALSE(r.is_discarded()) << what << ": " << remote.out;
    EXPECT_EQ(WithoutModTimes(l), WithoutModTimes(r)) << what;
  }
}

TEST_F(CliRemoteTest, RemoteCommandsAndErrorsReadLikeEmbedded) {
  ProcessResult r = Remote({"mkdir", "viking://resources/r"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  r = Remote({"write", "viking://resources/r/f.md", "--mode", "create", "--from-file", "-"},
             "hello\nworld\n");
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  r = Remote({"read", "viking://resources/r/f.md"});
  EXPECT_EQ(r.out, "hello\nworld\n") << Describe(r);
  std::string local = server_dir_.path() + "/f.md";
  r = Remote({"get", "viking://resources/r/f.md", local});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(Slurp(local), "hello\nworld\n");

  // The same failing commands print the same error line in both modes, on the same state.
  ASSERT_EQ(Embedded({"write", "viking://resources/r/f.md", "--mode", "create", "--content", "x"})
                .exit_code,
            0);
  for (const Args& failing : std::vector<Args>{
           {"stat", "viking://resources/missing"},
           {"rm", "viking://resources/r"},
           {"mv", "viking://resources/r", "viking://resources/r/inside"},
           {"write", "viking://resources/r/f.md", "--mode", "create", "--content", "y"},
           {"write", "viking://resources/r/f.bin", "--mode", "create", "--content", "y"},
           {"read", "viking://resources"},
           {"mkdir", "viking://resources"},
           {"grep", "(", "-u", "viking://resources"},
           {"ls", "not-a-uri"},
       }) {
    ProcessResult remote = Remote(failing);
    ProcessResult embedded = Embedded(failing);
    EXPECT_EQ(remote.exit_code, 1) << Describe(remote);
    EXPECT_EQ(embedded.exit_code, 1) << Describe(embedded);
    EXPECT_EQ(remote.err.rfind("error: ", 0), 0u) << remote.err;
    EXPECT_EQ(remote.err, embedded.err) << failing[0] << " " << failing[1];
  }
}

TEST_F(CliRemoteTest, AddResourceUploadsAndFindFindsItRemote) {
  const std::string doc = WriteLighthouseDoc(workspace_);
  ProcessResult r = Remote({"add-resource", doc});  // returns at once with the task
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  std::smatch match;
  ASSERT_TRUE(std::regex_search(
      r.out, match, std::regex("^added viking://resources/lighthouse \\(task ([0-9a-zA-Z-]+);")))
      << r.out;
  const std::string task_id = match[1].str();
  r = Remote({"--json", "add-resource", doc, "--wait", "--parent", "viking://resources/again",
              "--create-parent"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Json waited = Json::parse(r.out);
  EXPECT_EQ(waited["root_uri"], "viking://resources/again/lighthouse") << r.out;
  EXPECT_EQ(waited["queue_status"]["Semantic"]["processed"], 1) << r.out;
  EXPECT_FALSE(waited.contains("task_id")) << r.out;
  EXPECT_NE(r.err.find("completed"), std::string::npos) << r.err;

  // The first import finished too (the server works in the background).
  for (int i = 0; i < 600; ++i) {
    r = Remote({"--json", "task", task_id});
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
    if (Json::parse(r.out)["status"] == "completed") break;
    usleep(100 * 1000);
  }
  EXPECT_EQ(Json::parse(r.out)["status"], "completed") << r.out;

  r = Remote({"find", "lighthouse keeper wick", "-u", "viking://resources/again"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("  viking://resources/again/lighthouse/lighthouse.md\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("viking://resources/lighthouse/"), std::string::npos) << r.out;

  // Embedded on its own workspace with the same content gives the same JSON.
  ASSERT_EQ(Embedded({"add-resource", doc}).exit_code, 0);
  ASSERT_EQ(
      Embedded({"add-resource", doc, "--parent", "viking://resources/again", "--create-parent"})
          .exit_code,
      0);
  const Args query{"--json", "find", "Fresnel lens", "-u", "viking://resources/lighthouse"};
  ProcessResult remote = Remote(query);
  ProcessResult local = Embedded(query);
  ASSERT_EQ(remote.exit_code, 0) << Describe(remote);
  ASSERT_EQ(local.exit_code, 0) << Describe(local);
  EXPECT_EQ(Json::parse(remote.out), Json::parse(local.out));

  r = Remote({"tasks", "--type", "add_resource"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find(task_id), std::string::npos) << r.out;
  r = Remote({"task", "no-such-task"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_EQ(r.err, "error: NOT_FOUND: Task not found or expired\n");

  // A URL is the server's to fetch: a loopback one is refused by default.
  r = Remote({"add-resource", "http://127.0.0.1:9/a.md"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.err.find("allow_private_networks"), std::string::npos) << r.err;
}

TEST_F(CliRemoteTest, AddResourceOfADirectoryUploadsOneZip) {
  const std::string dir = workspace_.path() + "/field-notes";
  std::filesystem::create_directories(dir + "/birds/sea");
  std::filesystem::create_directories(dir + "/.git");
  std::ofstream(dir + "/index.md") << "# Field notes\n\nObservations from the coast.\n";
  std::ofstream(dir + "/birds/sea/puffin.md") << "# Puffins\n\nThe puffinbeak turns orange.\n";
  std::ofstream(dir + "/.git/config") << "[core]\n";
  ProcessResult r = Remote({"--json", "add-resource", dir, "--wait"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Json added = Json::parse(r.out);
  EXPECT_EQ(added["root_uri"], "viking://resources/field-notes") << r.out;
  EXPECT_EQ(added["queue_status"]["Semantic"]["processed"], 1) << r.out;
  r = Remote({"find", "puffinbeak", "-u", "viking://resources/field-notes"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("viking://resources/field-notes/birds/sea/puffin.md"), std::string::npos)
      << r.out;
  // Embedded mode imports the directory itself, to the same tree.
  r = Embedded({"--json", "add-resource", dir});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(Json::parse(r.out)["root_uri"], "viking://resources/field-notes") << r.out;
  const Args tree{"ls", "-r", "viking://resources/field-notes"};
  for (const ProcessResult& listed : {Remote(tree), Embedded(tree)}) {
    ASSERT_EQ(listed.exit_code, 0) << Describe(listed);
    EXPECT_NE(listed.out.find("birds/sea/puffin.md"), std::string::npos) << listed.out;
    EXPECT_NE(listed.out.find("index.md"), std::string::npos) << listed.out;
    EXPECT_EQ(listed.out.find(".git"), std::string::npos) << listed.out;
  }
}

TEST_F(CliRemoteTest, AddSkillFromAFileADirectoryOrText) {
  const std::string dir = workspace_.path() + "/rope-splice";
  fs::create_directories(dir);
  std::ofstream(dir + "/SKILL.md") << "---\nname: rope-splice\ndescription: Splice two ropes "
                                      "with a long splice\n---\n\n# rope-splice\n\nUnlay the "
                                      "strands, then tuck them.\n";
  // Embedded waits for the index task: the skill is found at once.
  ProcessResult r = Embedded({"add-skill", dir});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(std::regex_match(
      r.out, std::regex("added viking://user/[^/]+/skills/rope-splice \\(completed\\)\n")))
      << r.out;
  r = Embedded({"--json", "find", "splice ropes strands", "--type", "skill"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Json found = Json::parse(r.out);
  ASSERT_FALSE(found["skills"].empty()) << r.out;
  EXPECT_NE(found["skills"][0]["uri"].get<std::string>().find("/skills/rope-splice"),
            std::string::npos)
      << r.out;

  r = Remote({"--json", "add-skill", dir + "/SKILL.md", "--wait"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Json added = Json::parse(r.out);
  EXPECT_EQ(added["name"], "rope-splice") << r.out;
  EXPECT_EQ(added["queue_status"]["Semantic"]["processed"], 1) << r.out;
  r = Remote({"--json", "add-skill", "---\nname: knot-check\ndescription: Check a knot\n---\nBody",
              "--wait", "-p", "viking://agent/skills"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(Json::parse(r.out)["uri"], "viking://agent/skills/knot-check") << r.out;

  EXPECT_EQ(Embedded({"add-skill", workspace_.path() + "/missing"}).exit_code, 2);
  std::ofstream(workspace_.path() + "/nameless.md") << "---\ndescription: no name\n---\n";
  r = Remote({"add-skill", workspace_.path() + "/nameless.md"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.err.find("INVALID_ARGUMENT"), std::string::npos) << r.err;
}

TEST_F(CliRemoteTest, EmbeddedOnAServedWorkspaceSuggestsUrl) {
  ProcessResult r = RunProcess(kSkald, {"--data", server_dir_.path() + "/ws", "ls"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  // The error, then the hint; the lock's log line would only repeat the error.
  EXPECT_EQ(r.err.rfind("error: UNAVAILABLE: workspace is in use", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("\nhint: "), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  EXPECT_NE(r.err.find("--url"), std::string::npos) << r.err;
}

// `skald admin ...` against a server in api_key mode (root key in the
// config), and embedded on a workspace (acting as ROOT).
class CliAdminTest : public CliTest {
 protected:
  static constexpr const char* kRootKey = "cli-admin-test-root-key";

  void SetUp() override {
    const std::string config = server_dir_.path() + "/skald.conf";
    std::ofstream(config) << Json{{"server", {{"root_api_key", kRootKey}}}}.dump();
    std::string log = server_dir_.path() + "/server.log";
    ASSERT_TRUE(server_.Start(
        kSkald, {"serve", "--config", config, "--port", "0", "--data", server_dir_.path() + "/ws"},
        log));
    std::string line = server_.WaitForLine("skald: listening on http://", 30);
    ASSERT_FALSE(line.empty()) << "server did not start; log:\n" << Slurp(log);
    size_t start = line.find("http://");
    url_ = line.substr(start, line.find(' ', start) - start);
  }
  void TearDown() override { EXPECT_EQ(server_.Stop(), 0); }

  // `skald --url <server> --api-key <key> [--json] args...`
  ProcessResult As(const std::string& key, const Args& args, bool json = true) {
    Args full{"--url", url_, "--api-key", key};
    if (json) full.push_back("--json");
    full.insert(full.end(), args.begin(), args.end());
    return RunProcess(kSkald, full);
  }

  TempDir server_dir_;
  BackgroundProcess server_;
  std::string url_;
};

TEST_F(CliAdminTest, RemoteAdminCommands) {
  ProcessResult r = As(kRootKey, {"admin", "create-account", "acme", "--admin", "alice"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Json made = Json::parse(r.out);
  EXPECT_EQ(made.value("account_id", ""), "acme");
  const std::string alice = made.value("user_key", "");
  ASSERT_FALSE(alice.empty()) << r.out;

  r = As(kRootKey, {"admin", "create-account", "acme", "--admin", "zed"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.err.find("ALREADY_EXISTS"), std::string::npos) << Describe(r);

  r = As(kRootKey, {"admin", "list-accounts"}, /*json=*/false);
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("acme"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("default"), std::string::npos) << r.out;

  // The account's admin manages its users.
  r = As(alice, {"admin", "register-user", "acme", "bob"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const std::string bob = Json::parse(r.out).value("user_key", "");
  r = As(alice, {"admin", "register-user", "acme", "carl", "--role", "admin"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  r = As(alice, {"admin", "list-users", "acme", "--role", "user"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Json users = Json::parse(r.out);
  ASSERT_EQ(users.size(), 1u) << r.out;
  EXPECT_EQ(users[0].value("user_id", ""), "bob");
  EXPECT_EQ(bob.find(users[0].value("key_prefix", "?")), bob.rfind('.') + 1) << r.out;
  r = As(alice, {"admin", "list-users", "acme", "--name", "c*", "--limit", "5"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(Json::parse(r.out).size(), 1u) << r.out;

  r = As(alice, {"admin", "set-role", "acme", "bob", "admin"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(Json::parse(r.out).value("role", ""), "admin");

  // A new key for bob: the old one fails at once.
  r = As(alice, {"admin", "regenerate-key", "acme", "bob"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const std::string bob2 = Json::parse(r.out).value("user_key", "");
  ASSERT_FALSE(bob2.empty());
  r = As(bob, {"ls", "viking://resources"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.err.find("UNAUTHENTICATED"), std::string::npos) << Describe(r);
  EXPECT_EQ(As(bob2, {"ls", "viking://resources"}).exit_code, 0);

  r = As(alice, {"admin", "remove-user", "acme", "carl"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Json removal = Json::parse(r.out);
  EXPECT_EQ(removal.value("status", ""), "deleting");
  EXPECT_FALSE(removal.value("task_id", "").empty());

  // Without the root key, account commands are refused.
  r = As(alice, {"admin", "list-accounts"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.err.find("PERMISSION_DENIED"), std::string::npos) << Describe(r);

  r = As(kRootKey, {"admin", "delete-account", "acme"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(Json::parse(r.out), Json({{"deleted", true}}));
  EXPECT_EQ(As(bob2, {"ls", "viking://resources"}).exit_code, 1);
}

TEST_F(CliTest, EmbeddedAdminActsAsRoot) {
  ProcessResult r = Embedded({"--json", "admin", "create-account", "acme", "--admin", "alice"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_FALSE(Json::parse(r.out).value("user_key", "").empty()) << r.out;
  r = Embedded({"admin", "register-user", "acme", "bob"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("user_key: "), std::string::npos) << r.out;
  r = Embedded({"--json", "admin", "list-users", "acme"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(Json::parse(r.out).size(), 2u) << r.out;
  r = Embedded({"admin", "register-user", "nope", "bob"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.err.find("NOT_FOUND"), std::string::npos) << Describe(r);
  r = Embedded({"admin", "set-role", "acme", "bob", "root"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.err.find("PERMISSION_DENIED"), std::string::npos) << Describe(r);
  r = Embedded({"admin"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
}

TEST_F(CliRemoteTest, ClientConfigFileThenEnvironmentThenFlags) {
  const std::string conf = workspace_.path() + "/cli.conf";
  std::ofstream(conf) << Json{{"url", url_}, {"output", "json"}, {"timeout", 30}}.dump();
  const std::string previous = getenv("SKALD_CLI_CONFIG");
  setenv("SKALD_CLI_CONFIG", conf.c_str(), 1);

  // The file's url makes a plain command remote, and its output is JSON.
  ProcessResult r = Run({"ls", "viking://resources"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(Json::parse(r.out, nullptr, false).is_array()) << r.out;

  // SKALD_URL overrides the file (nothing listens there: exit 3) ...
  setenv("SKALD_URL", "http://127.0.0.1:1", 1);
  r = Run({"ls", "viking://resources"});
  EXPECT_EQ(r.exit_code, 3) << Describe(r);
  // ... and --url overrides both; -o table overrides the file's output.
  r = Run({"--url", url_, "-o", "table", "ls", "viking://resources"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(Json::parse(r.out, nullptr, false).is_discarded()) << r.out;  // a table
  // --data means embedded whatever the file and the environment say.
  r = Embedded({"ls", "viking://resources"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  unsetenv("SKALD_URL");

  // A misspelt key is a usage error naming it.
  std::ofstream(conf) << R"({"uri": "http://127.0.0.1:1933"})";
  r = Run({"ls", "viking://resources"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("unknown key \"uri\""), std::string::npos) << r.err;
  setenv("SKALD_CLI_CONFIG", previous.c_str(), 1);
}

}  // namespace
}  // namespace skald::testing
