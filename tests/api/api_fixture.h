#pragma once

// Black-box fixture for the HTTP API tests: runs the real `skald serve`
// binary as a child process on an ephemeral port and a fresh workspace, and
// talks to it with cpp-httplib's client.
//
// Thread safety: a SkaldProcess is driven by one test thread; Client objects
// may be created per thread.

#include <httplib.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/testutil/subprocess.h"
#include "tests/testutil/temp_dir.h"

namespace skald::apitest {

using Json = nlohmann::json;

// Fresh temporary directories and child processes come from tests/testutil.
using TempDir = ::skald::testing::TempDir;
using ExitResult = ::skald::testing::ProcessResult;

// Runs `skald args...` and waits for it (at most 30 s).
ExitResult RunSkald(const std::vector<std::string>& args);

// One running `skald serve` child process.
class SkaldProcess {
 public:
  // Starts `skald serve --port 0 --data <data_dir> <extra_args...>` and waits
  // for its "skald: listening on" line. Fails the test (and returns null)
  // when the line does not arrive within 30 s.
  static std::unique_ptr<SkaldProcess> Start(const std::string& data_dir,
                                             const std::vector<std::string>& extra_args = {});
  // Kills the child (SIGKILL) if it is still running.
  ~SkaldProcess();

  int port() const { return port_; }
  const std::string& listening_line() const { return listening_line_; }
  // Sends `signal_number` and waits for the exit (at most 30 s); returns the
  // exit code, or -1 when the child died from a signal or did not exit.
  int Stop(int signal_number = SIGTERM);
  // A client bound to this server (keep-alive, 10 s timeouts).
  std::unique_ptr<httplib::Client> NewClient() const;

 private:
  SkaldProcess() = default;
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  int port_ = 0;
  std::string listening_line_;
};

// A decoded reply.
struct Reply {
  int status = 0;          // 0 when the request failed at the transport level
  std::string error;       // transport error, if any
  std::string raw;         // body bytes
  Json json;               // parsed body (null when not JSON)
  httplib::Headers headers;

  std::string Header(const std::string& name) const;
  // The error envelope's code ("" when absent).
  std::string Code() const;
};

// Decodes a cpp-httplib result (status 0 and `error` set on a transport failure).
Reply ToReply(const httplib::Result& result);

// Sends `request` (a complete HTTP/1.1 request, "Connection: close"
// advised) to 127.0.0.1:port over a plain socket and returns every byte of
// the response, undecoded (cpp-httplib's client decodes header values).
std::string RawHttp(int port, const std::string& request);

// Percent-encodes a query-string value.
std::string Q(const std::string& value);

// Base fixture: one server per test (fresh workspace), helpers for requests.
class ApiTest : public ::testing::Test {
 protected:
  // Starts a server with no config file.
  void SetUp() override;
  void TearDown() override;
  // Starts the server on a fresh workspace, with `config` written to a
  // config file (`--config`) when given. Fixtures whose SetUp calls this
  // instead choose the configuration.
  void StartServer(const std::optional<Json>& config);

  Reply Get(const std::string& path_and_query, const httplib::Headers& headers = {});
  Reply Post(const std::string& path, const std::string& body,
             const std::string& content_type = "application/json",
             const httplib::Headers& headers = {});
  Reply PostJson(const std::string& path, const Json& body) { return Post(path, body.dump()); }
  Reply Delete(const std::string& path_and_query);
  Reply Put(const std::string& path, const std::string& body);

  // Convenience wrappers that assert success.
  void Mkdir(const std::string& uri);
  void Create(const std::string& uri, const std::string& content);

  // Sessions (as user default): adds a user message (from `peer` when given).
  void Say(const std::string& session, const std::string& text, const std::string& peer = "");
  // Commits the session, waits for the background work and expects the
  // commit accepted and its task completed; returns the task's result.
  Json CommitAndWait(const std::string& session);
  // File URIs under viking://user/default/memories/<type>.
  std::vector<std::string> MemoryFiles(const std::string& type);
  // File URIs below `uri` (recursively, sorted); expects the tree to answer 200.
  std::vector<std::string> FilesUnder(const std::string& uri);
  // Uploads `bytes` as `filename` (POST /api/v1/resources/temp_upload, as
  // ov does) and expects 200; returns the temp_file_id ("" on failure).
  std::string UploadTemp(const std::string& bytes, const std::string& filename);
  // The bytes of the file at `path` ("" when it cannot be read).
  static std::string ReadBytes(const std::string& path);

  // Polls GET /api/v1/tasks/{id} until the task is completed, failed or
  // cancelled (at most `max_polls` x 100 ms) and returns it; fails the test
  // when it does not finish.
  Json WaitForTask(const std::string& task_id, int max_polls = 1200);

  // Asserts that /health still answers 200 {"healthy":true}.
  void ExpectHealthy();

  // "viking://resources/<test name>" — a per-test root directory name.
  std::string Root() const;

  std::unique_ptr<TempDir> workspace_;
  std::unique_ptr<TempDir> config_dir_;  // with StartServer(config)
  std::unique_ptr<SkaldProcess> server_;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace skald::apitest
