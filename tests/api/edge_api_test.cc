// The hostile HTTP edge, against a real `skald serve`: content types, Origin
// and Host checks, CORS, body caps while streaming (chunked and compressed
// bodies), multi-range downloads, slow connections and graceful shutdown
// under load.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <thread>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

// A raw client socket to the server (closed on destruction).
class RawSocket {
 public:
  explicit RawSocket(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ >= 0 && connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~RawSocket() {
    if (fd_ >= 0) close(fd_);
  }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;

  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  // Sends everything; false when the connection failed (or the server closed it).
  bool Send(const std::string& data) {
    size_t off = 0;
    while (off < data.size()) {
      ssize_t n = send(fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }
  // Reads what arrives within `wait` (until the peer closes or goes quiet).
  std::string ReadAvailable(std::chrono::milliseconds wait) {
    std::string out;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p = {fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      char buf[4096];
      ssize_t n = recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }

 private:
  int fd_ = -1;
};

// Status code of a raw HTTP response ("HTTP/1.1 413 ..." -> 413), 0 if none.
int RawStatus(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0 || response.size() < 12) return 0;
  return std::atoi(response.substr(9, 3).c_str());
}

// gzip of `size` zero bytes (a compression bomb: ~1000:1).
std::string GzipZeros(size_t size) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string zeros(1 << 20, '\0');
  std::string out;
  char buf[1 << 16];
  for (size_t done = 0; done < size;) {
    const size_t n = std::min(zeros.size(), size - done);
    done += n;
    z.next_in = reinterpret_cast<Bytef*>(zeros.data());
    z.avail_in = static_cast<uInt>(n);
    const int flush = done == size ? Z_FINISH : Z_NO_FLUSH;
    do {
      z.next_out = reinterpret_cast<Bytef*>(buf);
      z.avail_out = sizeof(buf);
      deflate(&z, flush);
      out.append(buf, sizeof(buf) - z.avail_out);
    } while (z.avail_out == 0);
  }
  deflateEnd(&z);
  return out;
}

class EdgeApiTest : public ApiTest {
 protected:
  // Replaces the fixture's server by one started with `config_json`.
  void RestartWithConfig(const std::string& config_json) {
    client_.reset();
    ASSERT_EQ(server_->Stop(SIGTERM), 0);
    const std::string conf = workspace_->path() + "/edge.conf";
    std::ofstream(conf) << config_json;
    server_ = SkaldProcess::Start(workspace_->path() + "/ws", {"--config", conf});
    ASSERT_NE(server_, nullptr);
    client_ = server_->NewClient();
  }

  std::string Authority() const { return "127.0.0.1:" + std::to_string(server_->port()); }

  int StatUri(const std::string& uri) { return Get("/api/v1/fs/stat?uri=" + Q(uri)).status; }
};

// A body of another type fails validation before it is read (OpenViking's
// FastAPI answers 400 INVALID_ARGUMENT); one without a type is read as JSON.
TEST_F(EdgeApiTest, NonJsonBodiesAreRefused400AndWriteNothing) {
  const std::string dir = Root() + "/from_a_form";
  const std::string body = Json({{"uri", dir}}).dump();
  for (const std::string type : {"text/plain", "application/x-www-form-urlencoded",
                                 "multipart/form-data; boundary=x", "application/jsonp"}) {
    Reply r = Post("/api/v1/fs/mkdir", body, type);
    EXPECT_EQ(r.status, 400) << type << ": " << r.raw;
    EXPECT_EQ(r.Code(), "INVALID_ARGUMENT") << r.raw;
    EXPECT_NE(r.json["error"].value("message", "").find("application/json"), std::string::npos);
    const Json& errors = r.json["error"]["details"]["validation_errors"];
    ASSERT_TRUE(errors.is_array() && errors.size() == 1) << r.raw;
    EXPECT_EQ(errors[0]["loc"], Json::array({"body"})) << r.raw;
  }
  const std::string file = Root() + "/note.md";
  Reply write =
      Post("/api/v1/content/write",
           Json({{"uri", file}, {"content", "x"}, {"mode", "create"}}).dump(), "text/plain");
  EXPECT_EQ(write.status, 400) << write.raw;
  EXPECT_EQ(StatUri(dir), 404);
  EXPECT_EQ(StatUri(file), 404);
  // A JSON body without any Content-Type is read as JSON.
  const std::string untyped = Json({{"uri", dir + "_untyped"}}).dump();
  std::string raw =
      RawHttp(server_->port(), "POST /api/v1/fs/mkdir HTTP/1.1\r\nHost: " + Authority() +
                                   "\r\nContent-Length: " + std::to_string(untyped.size()) +
                                   "\r\nConnection: close\r\n\r\n" + untyped);
  EXPECT_EQ(RawStatus(raw), 200) << raw;
  EXPECT_EQ(StatUri(dir + "_untyped"), 200);
  // And one that is not JSON fails as JSON does.
  raw = RawHttp(server_->port(), "POST /api/v1/fs/mkdir HTTP/1.1\r\nHost: " + Authority() +
                                     "\r\nContent-Length: 8\r\nConnection: close\r\n\r\n"
                                     "uri=x&y=");
  EXPECT_EQ(RawStatus(raw), 400) << raw;
  // JSON types with parameters or a +json suffix are accepted.
  EXPECT_EQ(Post("/api/v1/fs/mkdir", body, "application/json; charset=utf-8").status, 200);
  EXPECT_EQ(
      Post("/api/v1/fs/mkdir", Json({{"uri", dir + "2"}}).dump(), "Application/Merge-Patch+JSON")
          .status,
      200);
  // No body and no Content-Type: not a content-type error (the route's own 400).
  raw = RawHttp(server_->port(), "POST /api/v1/search/glob HTTP/1.1\r\nHost: " + Authority() +
                                     "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(RawStatus(raw), 400) << raw;
}

TEST_F(EdgeApiTest, ForeignOriginIsRefusedAndOwnOriginServed) {
  const std::string uri = Root() + "/csrf.md";
  Reply write = Post("/api/v1/content/write",
                     Json({{"uri", uri}, {"content", "x"}, {"mode", "create"}}).dump(),
                     "application/json", {{"Origin", "http://evil.example"}});
  EXPECT_EQ(write.status, 403) << write.raw;
  EXPECT_EQ(write.Code(), "PERMISSION_DENIED");
  // A body without a type (a "simple" cross-site request, no preflight) is
  // refused by its Origin too.
  const std::string body = Json({{"uri", uri}, {"content", "x"}, {"mode", "create"}}).dump();
  std::string untyped = RawHttp(
      server_->port(), "POST /api/v1/content/write HTTP/1.1\r\nHost: " + Authority() +
                           "\r\nOrigin: http://evil.example\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
  EXPECT_EQ(RawStatus(untyped), 403) << untyped;
  Reply read = Get("/api/v1/fs/ls?uri=" + Q("viking://resources"),
                   {{"Origin", "http://evil.example:" + std::to_string(server_->port())}});
  EXPECT_EQ(read.status, 403) << read.raw;
  EXPECT_EQ(StatUri(uri), 404);

  // The server's own origin is same-origin: served, no CORS headers needed.
  Reply own =
      Get("/api/v1/fs/ls?uri=" + Q("viking://resources"), {{"Origin", "http://" + Authority()}});
  EXPECT_EQ(own.status, 200) << own.raw;
  EXPECT_EQ(own.Header("Access-Control-Allow-Origin"), "");
  // A preflight from a foreign origin is refused as well.
  std::string raw = RawHttp(server_->port(),
                            "OPTIONS /api/v1/content/write HTTP/1.1\r\nHost: " + Authority() +
                                "\r\nOrigin: http://evil.example\r\n"
                                "Access-Control-Request-Method: POST\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(RawStatus(raw), 403) << raw;
}

TEST_F(EdgeApiTest, ConfiguredOriginGetsCorsHeadersAndPreflight) {
  RestartWithConfig(R"({"server": {"cors_origins": ["https://app.example.com"]}})");
  const httplib::Headers from_app = {{"Origin", "https://app.example.com"}};
  Reply r = Get("/api/v1/fs/ls?uri=" + Q("viking://resources"), from_app);
  EXPECT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.Header("Access-Control-Allow-Origin"), "https://app.example.com");
  EXPECT_NE(r.Header("Access-Control-Expose-Headers").find("X-Request-ID"), std::string::npos);

  std::string raw =
      RawHttp(server_->port(), "OPTIONS /api/v1/content/write HTTP/1.1\r\nHost: " + Authority() +
                                   "\r\nOrigin: https://app.example.com\r\n"
                                   "Access-Control-Request-Method: POST\r\n"
                                   "Access-Control-Request-Headers: content-type, x-api-key\r\n"
                                   "Connection: close\r\n\r\n");
  EXPECT_EQ(RawStatus(raw), 204) << raw;
  EXPECT_NE(raw.find("Access-Control-Allow-Origin: https://app.example.com"), std::string::npos)
      << raw;
  EXPECT_NE(raw.find("Access-Control-Allow-Methods: "), std::string::npos) << raw;
  EXPECT_NE(raw.find("POST"), std::string::npos) << raw;
  EXPECT_NE(raw.find("Access-Control-Allow-Headers: content-type, x-api-key"), std::string::npos)
      << raw;

  // Origins not listed stay refused.
  EXPECT_EQ(Get("/health", {{"Origin", "https://other.example.com"}}).status, 403);
}

TEST_F(EdgeApiTest, DevModeRefusesForeignHostHeaders) {
  const std::string port = std::to_string(server_->port());
  auto status_for_host = [&](const std::string& host) {
    return RawStatus(RawHttp(server_->port(),
                             "GET /api/v1/fs/ls?uri=viking%3A%2F%2Fresources "
                             "HTTP/1.1\r\nHost: " +
                                 host + "\r\nConnection: close\r\n\r\n"));
  };
  EXPECT_EQ(status_for_host("rebound.evil.example:" + port), 403);
  EXPECT_EQ(status_for_host("rebound.evil.example"), 403);
  // A loopback name through a tunnel or a local proxy: their port.
  EXPECT_EQ(status_for_host("127.0.0.1:8080"), 200);
  EXPECT_EQ(status_for_host("localhost"), 200);
  EXPECT_EQ(status_for_host("127.0.0.1:" + port), 200);
  EXPECT_EQ(status_for_host("localhost:" + port), 200);
  EXPECT_EQ(status_for_host("LocalHost:" + port), 200);
  EXPECT_EQ(status_for_host("[::1]:" + port), 200);
}

TEST_F(EdgeApiTest, ChunkedBodyIsCutAtTheCapAndTheServerKeepsAnswering) {
  RestartWithConfig(R"({"server": {"max_body_bytes": 1048576}})");
  RawSocket sock(server_->port());
  ASSERT_TRUE(sock.ok());
  int sndbuf = 64 << 10;  // keep client-side buffering small so "sent" ~ "accepted"
  setsockopt(sock.fd(), SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
  timeval timeout{10, 0};
  setsockopt(sock.fd(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  ASSERT_TRUE(sock.Send("POST /api/v1/fs/mkdir HTTP/1.1\r\nHost: " + Authority() +
                        "\r\nContent-Type: application/json\r\n"
                        "Transfer-Encoding: chunked\r\n\r\n"));
  const std::string chunk = "10000\r\n" + std::string(1 << 16, 'x') + "\r\n";
  constexpr int64_t kBody = int64_t{100} << 20;
  int64_t sent = 0;
  while (sent < kBody && sock.Send(chunk)) sent += 1 << 16;
  // The server stopped reading at about the 1 MiB cap (plus what the two
  // kernels buffer on loopback), far short of the 100 MB offered.
  EXPECT_LT(sent, int64_t{24} << 20) << "the server read " << sent << " bytes of a chunked body";
  const std::string reply = sock.ReadAvailable(std::chrono::seconds(2));
  if (!reply.empty()) {
    EXPECT_EQ(RawStatus(reply), 413) << reply.substr(0, 300);
  }
  ExpectHealthy();

  // A declared length over the cap is refused before any body byte is sent.
  RawSocket declared(server_->port());
  ASSERT_TRUE(declared.Send("POST /api/v1/fs/mkdir HTTP/1.1\r\nHost: " + Authority() +
                            "\r\nContent-Type: application/json\r\n"
                            "Content-Length: 104857600\r\n\r\n"));
  const std::string early = declared.ReadAvailable(std::chrono::seconds(5));
  EXPECT_EQ(RawStatus(early), 413) << early.substr(0, 300);
  EXPECT_NE(early.find("RESOURCE_EXHAUSTED"), std::string::npos);
  ExpectHealthy();
}

// A multipart upload whose body arrives in pieces, split inside its first
// boundary line (as a client or proxy writing small pieces does), is read
// whole: cpp-httplib 0.11.4's parser alone answered 400 for every such split.
TEST_F(EdgeApiTest, MultipartUploadSplitInItsFirstBoundaryLineIsAccepted) {
  const std::string boundary = "b0123456789abcdef";
  const std::string body =
      "--" + boundary +
      "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"s.md\"\r\n"
      "Content-Type: application/octet-stream\r\n\r\n# split\n\r\n--" +
      boundary + "--\r\n";
  for (size_t split : {size_t{1}, size_t{5}, boundary.size() + 3, body.size() / 2}) {
    RawSocket sock(server_->port());
    ASSERT_TRUE(sock.ok());
    ASSERT_TRUE(sock.Send("POST /api/v1/resources/temp_upload HTTP/1.1\r\nHost: " + Authority() +
                          "\r\nContent-Type: multipart/form-data; boundary=" + boundary +
                          "\r\nContent-Length: " + std::to_string(body.size()) +
                          "\r\nConnection: close\r\n\r\n" + body.substr(0, split)));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(sock.Send(body.substr(split)));
    const std::string reply = sock.ReadAvailable(std::chrono::seconds(5));
    EXPECT_EQ(RawStatus(reply), 200) << "split at " << split << ": " << reply.substr(0, 300);
    EXPECT_NE(reply.find("upload_"), std::string::npos) << reply.substr(0, 300);
  }
  ExpectHealthy();
}

// `curl -X POST URL` sends neither Content-Length nor Transfer-Encoding:
// the request has no body (RFC 9112 §6.3), and the connection stays usable.
TEST_F(EdgeApiTest, APostWithoutFramingHasAnEmptyBody) {
  RawSocket sock(server_->port());
  ASSERT_TRUE(sock.ok());
  ASSERT_TRUE(sock.Send("POST /api/v1/sessions HTTP/1.1\r\nHost: " + Authority() + "\r\n\r\n"));
  // (ReadAvailable reads for the whole wait: shorter than the keep-alive.)
  const std::string reply = sock.ReadAvailable(std::chrono::seconds(1));
  EXPECT_EQ(RawStatus(reply), 200) << reply.substr(0, 300);
  EXPECT_NE(reply.find("\"session_id\""), std::string::npos) << reply.substr(0, 300);
  // The next request on the same connection is answered too.
  ASSERT_TRUE(sock.Send("GET /health HTTP/1.1\r\nHost: " + Authority() + "\r\n\r\n"));
  const std::string health = sock.ReadAvailable(std::chrono::seconds(1));
  EXPECT_EQ(RawStatus(health), 200) << health.substr(0, 300);
}

TEST_F(EdgeApiTest, CompressedBodiesAreRefusedUnread) {
  const std::string bomb = GzipZeros(size_t{64} << 20);  // 64 MiB of zeros in ~64 KiB
  ASSERT_LT(bomb.size(), size_t{1} << 20);
  Reply r = Post("/api/v1/fs/mkdir", bomb, "application/json", {{"Content-Encoding", "gzip"}});
  EXPECT_EQ(r.status, 415) << r.raw;
  EXPECT_EQ(r.Code(), "UNKNOWN");
  for (const std::string coding : {"deflate", "br", "x-gzip", "gzip, identity"}) {
    Reply other = Post("/api/v1/fs/mkdir", Json({{"uri", Root()}}).dump(), "application/json",
                       {{"Content-Encoding", coding}});
    EXPECT_EQ(other.status, 415) << coding << ": " << other.raw;
  }
  EXPECT_EQ(StatUri(Root()), 404);
  // "identity" is no encoding at all.
  EXPECT_EQ(Post("/api/v1/fs/mkdir", Json({{"uri", Root()}}).dump(), "application/json",
                 {{"Content-Encoding", "identity"}})
                .status,
            200);
  ExpectHealthy();
}

TEST_F(EdgeApiTest, MultiRangeDownloadIsTheWholeBodyOnce) {
  std::string content;
  for (int i = 0; i < 100; ++i) content += "line " + std::to_string(i) + "\n";
  const std::string uri = Root() + "/ranged.md";
  Create(uri, content);
  const std::string path = "/api/v1/content/download?uri=" + Q(uri);

  std::string ranges = "bytes=0-0";
  for (int i = 1; i < 2000; ++i) ranges += ",0-0";
  Reply many = Get(path, {{"Range", ranges}});
  ASSERT_TRUE(many.status == 200 || many.status == 416) << many.status;
  if (many.status == 200) {
    EXPECT_EQ(many.raw, content);
  }

  std::string distinct = "bytes=0-1";
  for (int i = 2; i < 2000; i += 2) distinct += "," + std::to_string(i % 500) + "-";
  Reply spread = Get(path, {{"Range", distinct}});
  ASSERT_TRUE(spread.status == 200 || spread.status == 416) << spread.status;
  if (spread.status == 200) {
    EXPECT_EQ(spread.raw, content);
  }

  // One range still answers just that range.
  Reply one = Get(path, {{"Range", "bytes=0-3"}});
  EXPECT_EQ(one.raw, content.substr(0, 4));
}

TEST_F(EdgeApiTest, SlowAndIdleConnectionsDoNotStarveHealth) {
  const std::string head = "GET /health HTTP/1.1\r\nHost: " + Authority() + "\r\n";
  std::vector<std::unique_ptr<RawSocket>> slow;
  for (int i = 0; i < 200; ++i) {
    slow.push_back(std::make_unique<RawSocket>(server_->port()));
    ASSERT_TRUE(slow.back()->ok());
    slow.back()->Send(i % 2 == 0 ? head.substr(0, 10) : std::string());  // half trickle, half idle
  }
  std::atomic<bool> stop{false};
  std::thread trickler([&] {
    while (!stop) {
      for (size_t i = 0; i < slow.size(); i += 2) slow[i]->Send("X-Slow: 1\r\n");
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
  });
  for (int round = 0; round < 5; ++round) {
    ExpectHealthy();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  stop = true;
  trickler.join();
  slow.clear();
  ExpectHealthy();
}

TEST_F(EdgeApiTest, GracefulShutdownUnderLoadKeepsEveryAcknowledgedWrite) {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::string>> acknowledged;
  std::atomic<bool> stop{false};
  std::atomic<int> count{0};
  std::vector<std::thread> writers;
  const int port = server_->port();
  const std::string root = Root();
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&, w] {
      httplib::Client client("127.0.0.1", port);
      client.set_read_timeout(30);
      for (int i = 0; !stop; ++i) {
        const std::string uri = root + "/w" + std::to_string(w) + "/f" + std::to_string(i) + ".md";
        const std::string content = "writer " + std::to_string(w) + " item " + std::to_string(i);
        auto r = client.Post("/api/v1/content/write",
                             Json({{"uri", uri}, {"content", content}, {"mode", "create"}}).dump(),
                             "application/json");
        if (!r) {
          if (stop) break;
          continue;  // a refused connection while the server stops: not acknowledged
        }
        if (r->status == 200) {
          std::lock_guard<std::mutex> lock(mutex);
          acknowledged.emplace_back(uri, content);
          ++count;
        }
      }
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (count < 40 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  client_.reset();
  const int code = server_->Stop(SIGTERM);  // writers are still sending
  stop = true;
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(code, 0) << "skald serve did not exit cleanly on SIGTERM";

  server_ = SkaldProcess::Start(workspace_->path());
  ASSERT_NE(server_, nullptr);
  client_ = server_->NewClient();
  ASSERT_GE(acknowledged.size(), 40u);
  for (const auto& [uri, content] : acknowledged) {
    Reply r = Get("/api/v1/content/read?uri=" + Q(uri));
    ASSERT_EQ(r.status, 200) << uri << " was acknowledged but is missing after restart";
    EXPECT_EQ(r.json["result"], content) << uri;
  }
}

}  // namespace
}  // namespace skald::apitest
