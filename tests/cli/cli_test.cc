// Black-box tests of the `skald` binary: embedded (--data) on a fresh
// workspace, then remote (--url) against `skald serve`, checking exit codes,
// readable output, and that --json output is the same in both modes.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
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
  static void SetUpTestSuite() {
    // The children must not pick up a developer's environment.
    unsetenv("SKALD_URL");
    unsetenv("SKALD_API_KEY");
  }

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
  EXPECT_NE(r.out.find("viking://resources/docs/\n"), std::string::npos) << r.out;

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

TEST_F(CliRemoteTest, SameJsonAsEmbeddedForTheSameSteps) {
  const std::vector<Args> steps = {
      {"mkdir", "viking://resources/docs", "--description", "Design notes"},
      {"write", "viking://resources/docs/a.md", "--mode", "create", "--content", "one\ntwo\n"},
      {"write", "viking://resources/docs/a.md", "--append", "--content", "three\n"},
      {"write", "viking://resources/docs/sub/c.txt", "--mode", "create", "--content", "x"},
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

TEST_F(CliRemoteTest, EmbeddedOnAServedWorkspaceSuggestsUrl) {
  ProcessResult r = RunProcess(kSkald, {"--data", server_dir_.path() + "/ws", "ls"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.err.find("in use"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--url"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace skald::testing
