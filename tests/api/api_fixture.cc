#include "api_fixture.h"

#include <algorithm>

#include <cstdio>
#include <fstream>
#include <iterator>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#ifndef SKALD_BINARY
#error "SKALD_BINARY must name the skald executable"
#endif

namespace skald::apitest {
namespace {

constexpr auto kStartTimeout = std::chrono::seconds(30);
constexpr auto kExitTimeout = std::chrono::seconds(30);

std::vector<char*> Argv(std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

// Waits for `pid` up to `timeout`; returns the exit code, -1 for a signal
// death, -2 on timeout.
int WaitFor(pid_t pid, std::chrono::steady_clock::duration timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (r < 0) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return -2;
}

}  // namespace

ExitResult RunSkald(const std::vector<std::string>& args) {
  return ::skald::testing::RunProcess(SKALD_BINARY, args, "", 30);
}

std::unique_ptr<SkaldProcess> SkaldProcess::Start(const std::string& data_dir,
                                                  const std::vector<std::string>& extra_args) {
  int out_pipe[2];
  if (pipe(out_pipe) != 0) {
    ADD_FAILURE() << "pipe failed";
    return nullptr;
  }
  std::vector<std::string> args = {SKALD_BINARY, "serve", "--port", "0", "--data", data_dir};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  pid_t pid = fork();
  if (pid == 0) {
    // The server dies with the test process, also when that is killed
    // before TearDown (a crash, a closed output pipe): no orphan keeps running.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(out_pipe[1], STDOUT_FILENO);
    close(out_pipe[0]);
    close(out_pipe[1]);
    std::vector<char*> argv = Argv(args);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out_pipe[1]);
  std::unique_ptr<SkaldProcess> process(new SkaldProcess());
  process->pid_ = pid;
  process->stdout_fd_ = out_pipe[0];

  std::string line;
  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    pollfd p = {out_pipe[0], POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char buf[512];
    ssize_t n = read(out_pipe[0], buf, sizeof(buf));
    if (n <= 0) break;  // the child exited before listening
    line.append(buf, static_cast<size_t>(n));
  }
  const std::string prefix = "skald: listening on http://";
  size_t at = line.find(prefix);
  size_t space = at == std::string::npos ? std::string::npos : line.find(' ', at + prefix.size());
  size_t colon = space == std::string::npos ? std::string::npos : line.rfind(':', space);
  if (colon == std::string::npos || colon < at + prefix.size()) {
    ADD_FAILURE() << "no listening line from skald serve; got: '" << line << "'";
    return nullptr;
  }
  process->port_ = std::atoi(line.substr(colon + 1, space - colon - 1).c_str());
  process->listening_line_ = line.substr(0, line.find('\n'));
  return process;
}

SkaldProcess::~SkaldProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (stdout_fd_ >= 0) close(stdout_fd_);
}

int SkaldProcess::Stop(int signal_number) {
  if (pid_ <= 0) return -1;
  kill(pid_, signal_number);
  int code = WaitFor(pid_, kExitTimeout);
  if (code == -2) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    code = -1;
  }
  pid_ = -1;
  return code;
}

std::unique_ptr<httplib::Client> SkaldProcess::NewClient() const {
  auto client = std::make_unique<httplib::Client>("127.0.0.1", port_);
  client->set_keep_alive(true);
  client->set_connection_timeout(10);
  client->set_read_timeout(10);
  client->set_write_timeout(10);
  return client;
}

std::string Reply::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

std::string Reply::Code() const {
  if (!json.is_object() || !json.contains("error") || !json["error"].is_object()) return "";
  return json["error"].value("code", "");
}

std::string RawHttp(int port, const std::string& request) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return std::string();
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size())) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p = {fd, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char buf[4096];
      ssize_t n = recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) break;
      response.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  return response;
}

std::string Q(const std::string& value) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Reply ToReply(const httplib::Result& result) {
  Reply reply;
  if (!result) {
    reply.error = "transport error " + std::to_string(static_cast<int>(result.error()));
    return reply;
  }
  reply.status = result->status;
  reply.raw = result->body;
  reply.headers = result->headers;
  reply.json = Json::parse(reply.raw, nullptr, /*allow_exceptions=*/false);
  if (reply.json.is_discarded()) reply.json = Json();
  return reply;
}

void ApiTest::SetUp() { StartServer(std::nullopt); }

void ApiTest::StartServer(const std::optional<Json>& config) {
  // The server closes connections whose body it refuses unread (413, 415);
  // a client still sending then gets EPIPE, which must not kill the test
  // process (real HTTP clients ignore SIGPIPE too).
  signal(SIGPIPE, SIG_IGN);
  workspace_ = std::make_unique<TempDir>();
  std::vector<std::string> args;
  if (config) {
    config_dir_ = std::make_unique<TempDir>();
    const std::string path = config_dir_->path() + "/skald.conf";
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(config->dump().c_str(), f);
    ASSERT_EQ(std::fclose(f), 0);
    args = {"--config", path};
  }
  server_ = SkaldProcess::Start(workspace_->path(), args);
  ASSERT_NE(server_, nullptr);
  client_ = server_->NewClient();
}

void ApiTest::TearDown() {
  client_.reset();
  if (server_ != nullptr) {
    EXPECT_EQ(server_->Stop(SIGTERM), 0) << "skald serve did not shut down cleanly";
  }
}

Reply ApiTest::Get(const std::string& path_and_query, const httplib::Headers& headers) {
  return ToReply(client_->Get(path_and_query, headers));
}

Reply ApiTest::Post(const std::string& path, const std::string& body,
                    const std::string& content_type, const httplib::Headers& headers) {
  return ToReply(client_->Post(path, headers, body, content_type));
}

Reply ApiTest::Delete(const std::string& path_and_query) {
  return ToReply(client_->Delete(path_and_query));
}

Reply ApiTest::Put(const std::string& path, const std::string& body) {
  return ToReply(client_->Put(path, body, "application/json"));
}

void ApiTest::Mkdir(const std::string& uri) {
  Reply r = PostJson("/api/v1/fs/mkdir", {{"uri", uri}});
  ASSERT_EQ(r.status, 200) << r.raw;
}

void ApiTest::Create(const std::string& uri, const std::string& content) {
  Reply r = PostJson("/api/v1/content/write", {{"uri", uri}, {"content", content}, {"mode", "create"}});
  ASSERT_EQ(r.status, 200) << r.raw;
}

void ApiTest::Say(const std::string& session, const std::string& text, const std::string& peer) {
  Json body{{"role", "user"}, {"content", text}};
  if (!peer.empty()) body["peer_id"] = peer;
  Reply r = PostJson("/api/v1/sessions/" + session + "/messages", body);
  ASSERT_EQ(r.status, 200) << r.raw;
}

Json ApiTest::CommitAndWait(const std::string& session) {
  Reply r = PostJson("/api/v1/sessions/" + session + "/commit", Json::object());
  EXPECT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.json["result"].value("status", ""), "accepted") << r.raw;
  const std::string task = r.json["result"].value("task_id", "");
  EXPECT_FALSE(task.empty()) << r.raw;
  Reply waited = PostJson("/api/v1/system/wait", {{"timeout", 60}});
  EXPECT_EQ(waited.status, 200) << waited.raw;
  Reply state = Get("/api/v1/tasks/" + task);
  EXPECT_EQ(state.status, 200) << state.raw;
  EXPECT_EQ(state.json["result"].value("status", ""), "completed") << state.raw;
  return state.json["result"]["result"];
}

std::vector<std::string> ApiTest::MemoryFiles(const std::string& type) {
  Reply r = Get("/api/v1/fs/tree?uri=" + Q("viking://user/default/memories/" + type) +
                "&level_limit=6&output=original");
  std::vector<std::string> out;
  if (r.status != 200) return out;
  for (const Json& e : r.json["result"]) {
    if (!e.value("isDir", true)) out.push_back(e.value("uri", ""));
  }
  return out;
}

std::vector<std::string> ApiTest::FilesUnder(const std::string& uri) {
  Reply r = Get("/api/v1/fs/tree?uri=" + Q(uri) + "&level_limit=10&output=original");
  EXPECT_EQ(r.status, 200) << r.raw;
  std::vector<std::string> out;
  for (const Json& e : r.json["result"]) {
    if (!e.value("isDir", true)) out.push_back(e.value("uri", ""));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string ApiTest::UploadTemp(const std::string& bytes, const std::string& filename) {
  Reply r = ToReply(client_->Post(
      "/api/v1/resources/temp_upload",
      httplib::MultipartFormDataItems{{"file", bytes, filename, "application/octet-stream"}}));
  EXPECT_EQ(r.status, 200) << r.raw;
  if (r.status != 200) return "";
  return r.json["result"].value("temp_file_id", "");
}

std::string ApiTest::ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

Json ApiTest::WaitForTask(const std::string& task_id, int max_polls) {
  Json task;
  for (int i = 0; i < max_polls; ++i) {
    Reply r = Get("/api/v1/tasks/" + task_id);
    EXPECT_EQ(r.status, 200) << r.raw;
    if (r.status != 200) return Json();
    task = r.json["result"];
    const std::string status = task.value("status", "");
    if (status == "completed" || status == "failed" || status == "cancelled") return task;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ADD_FAILURE() << "task " << task_id << " did not finish; last state: " << task.dump();
  return task;
}

void ApiTest::ExpectHealthy() {
  // A fresh connection: the previous request may have closed the old one.
  std::unique_ptr<httplib::Client> fresh = server_->NewClient();
  Reply r = ToReply(fresh->Get("/health"));
  ASSERT_EQ(r.status, 200) << r.error;
  EXPECT_EQ(r.json.value("healthy", false), true) << r.raw;
}

std::string ApiTest::Root() const {
  return std::string("viking://resources/") +
         ::testing::UnitTest::GetInstance()->current_test_info()->name();
}

}  // namespace skald::apitest
