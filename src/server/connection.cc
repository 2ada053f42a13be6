#include "server/connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

namespace skald::server {

class BudgetedStream;

namespace {

using Clock = std::chrono::steady_clock;

// How often a waiting connection looks at whether the server is stopping.
constexpr int kStopCheckMs = 100;
// Body bytes allowed past max_body_bytes for chunk framing ("1000\r\n...\r\n").
int64_t FramingAllowance(int64_t max_body) { return (int64_t{64} << 10) + max_body / 16; }
// On a connection closed with its request body unread, bytes discarded (and
// time waited) so the client can read the response before the close.
constexpr int64_t kLingerBytes = int64_t{64} << 10;
constexpr auto kLingerTime = std::chrono::milliseconds(500);

// What the request handlers tell the connection loop.
struct ConnectionState {
  bool close_after_response = false;
  bool body_limit_hit = false;
  BudgetedStream* stream = nullptr;
};
thread_local ConnectionState* t_connection = nullptr;

void AddressOf(const sockaddr_storage& addr, std::string& ip, int& port) {
  char buf[INET6_ADDRSTRLEN] = {0};
  if (addr.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &in->sin_addr, buf, sizeof(buf));
    port = ntohs(in->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &in6->sin6_addr, buf, sizeof(buf));
    port = ntohs(in6->sin6_port);
  }
  ip = buf;
}

// Waits until `fd` has `events` or `deadline` passes; false on timeout/error.
bool WaitFor(int fd, short events, Clock::time_point deadline) {
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p = {fd, events, 0};
    int r = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1 << 30)));
    if (r > 0) return (p.revents & (events | POLLHUP | POLLERR)) != 0;
    if (r == 0) return false;
    if (errno != EINTR) return false;
  }
}

}  // namespace

// A socket read through a 4 KiB buffer, with a byte budget and deadlines.
class BudgetedStream final : public httplib::Stream {
 public:
  // `listener` is the server's listening socket, INVALID_SOCKET once it stops.
  BudgetedStream(int sock, const ConnectionLimits& limits, const std::atomic<socket_t>& listener)
      : sock_(sock), limits_(limits), listener_(listener) {}

  // A new request starts: header budget and deadline.
  void BeginRequest() {
    remaining_ = limits_.max_header_bytes;
    in_body_ = false;
    exhausted_ = false;
    deadline_ = Clock::now() + limits_.header_timeout;
  }
  void BeginBody(int64_t max_body_bytes, bool whole_reads) {
    remaining_ = max_body_bytes + FramingAllowance(max_body_bytes);
    in_body_ = true;
    whole_reads_ = whole_reads;
    deadline_ = Clock::time_point::max();
  }
  // The budget ran out: a read was refused.
  bool exhausted() const { return exhausted_; }
  bool body_exhausted() const { return in_body_ && exhausted_; }
  bool has_buffered() const { return off_ < size_; }

  bool is_readable() const override { return has_buffered() || WaitReadable(); }
  bool is_writable() const override {
    return WaitFor(sock_, POLLOUT, Clock::now() + limits_.read_timeout);
  }

  ssize_t read(char* ptr, size_t size) override {
    if (!in_body_ || !whole_reads_) return ReadSome(ptr, size);
    size_t got = 0;
    while (got < size) {
      const ssize_t n = ReadSome(ptr + got, size - got);
      if (n <= 0) return got > 0 ? static_cast<ssize_t>(got) : n;
      got += static_cast<size_t>(n);
    }
    return static_cast<ssize_t>(got);
  }

  // One read: what is buffered, or one recv() into the buffer.
  ssize_t ReadSome(char* ptr, size_t size) {
    if (remaining_ <= 0) {
      exhausted_ = true;
      return -1;
    }
    size = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(size), remaining_));
    if (!has_buffered()) {
      if (!WaitReadable()) return -1;
      // Never buffer past the budget: bytes beyond it stay in the kernel.
      const size_t want = static_cast<size_t>(
          std::min<int64_t>(static_cast<int64_t>(sizeof(buffer_)), remaining_));
      ssize_t n;
      do {
        n = recv(sock_, buffer_, want, 0);
      } while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      off_ = 0;
      size_ = static_cast<size_t>(n);
    }
    const size_t n = std::min(size, size_ - off_);
    std::memcpy(ptr, buffer_ + off_, n);
    off_ += n;
    remaining_ -= static_cast<int64_t>(n);
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do {
      n = send(sock_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    if (getpeername(sock_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) AddressOf(addr, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    if (getsockname(sock_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) AddressOf(addr, ip, port);
  }
  socket_t socket() const override { return sock_; }

 private:
  Clock::time_point ReadDeadline() const {
    return std::min(deadline_, Clock::now() + limits_.read_timeout);
  }

  // Waits for bytes to read. While a request's headers are still arriving
  // nothing has been done for it yet, so a stopping server gives up at once
  // instead of waiting for a slow client.
  bool WaitReadable() const {
    const Clock::time_point deadline = ReadDeadline();
    if (in_body_) return WaitFor(sock_, POLLIN, deadline);
    while (listener_ != INVALID_SOCKET) {
      const auto slice = std::min(deadline, Clock::now() + std::chrono::milliseconds(kStopCheckMs));
      if (WaitFor(sock_, POLLIN, slice)) return true;
      if (Clock::now() >= deadline) return false;
    }
    return false;
  }

  const int sock_;
  const ConnectionLimits& limits_;
  const std::atomic<socket_t>& listener_;
  char buffer_[4096];
  size_t off_ = 0;
  size_t size_ = 0;
  int64_t remaining_ = 0;
  bool in_body_ = false;
  bool whole_reads_ = false;  // body reads wait for every byte asked for (BeginBody)
  bool exhausted_ = false;
  Clock::time_point deadline_ = Clock::time_point::max();
};

namespace {

// Waits for the next request on a keep-alive connection: true when bytes
// arrived, false on idle timeout, peer close or server stop.
bool WaitForNextRequest(const BudgetedStream& stream, int sock, std::chrono::seconds idle,
                        const std::atomic<socket_t>& listener) {
  if (stream.has_buffered()) return true;
  const auto deadline = Clock::now() + idle;
  while (listener != INVALID_SOCKET) {
    const auto slice = std::min(deadline, Clock::now() + std::chrono::milliseconds(kStopCheckMs));
    if (WaitFor(sock, POLLIN, slice)) return true;
    if (Clock::now() >= deadline) return false;
  }
  return false;
}

// Closes a connection whose last request body was left unread: sends FIN
// after the response, discards a little of what is in flight so the client
// can read the response, then closes.
void LingeringClose(int sock) {
  shutdown(sock, SHUT_WR);
  const auto deadline = Clock::now() + kLingerTime;
  int64_t discarded = 0;
  char buf[4096];
  while (discarded < kLingerBytes && WaitFor(sock, POLLIN, deadline)) {
    ssize_t n = recv(sock, buf, sizeof(buf), 0);
    if (n <= 0) break;
    discarded += n;
  }
  close(sock);
}

}  // namespace

bool GuardedHttpServer::process_and_close_socket(socket_t sock) {
  int one = 1;
  setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  BudgetedStream stream(sock, limits_, svr_sock_);
  ConnectionState state;
  state.stream = &stream;
  t_connection = &state;
  bool ret = false;
  for (int count = limits_.keep_alive_max_count; count > 0; --count) {
    if (!WaitForNextRequest(stream, sock, limits_.keep_alive_timeout, svr_sock_)) break;
    stream.BeginRequest();
    state.body_limit_hit = false;
    bool connection_closed = false;
    ret = process_request(stream, /*close_connection=*/count == 1, connection_closed, nullptr);
    if (stream.body_exhausted()) state.body_limit_hit = true;
    if (stream.exhausted()) break;  // unread bytes of this request remain: never parse them
    if (!ret || connection_closed || state.close_after_response || state.body_limit_hit) break;
  }
  t_connection = nullptr;
  if (state.close_after_response || state.body_limit_hit) {
    LingeringClose(sock);
  } else {
    shutdown(sock, SHUT_RDWR);
    close(sock);
  }
  return ret;
}

void MarkHeadersRead(int64_t max_body_bytes, bool whole_reads) {
  if (t_connection != nullptr && t_connection->stream != nullptr) {
    t_connection->stream->BeginBody(max_body_bytes, whole_reads);
  }
}

void CloseConnectionAfterResponse() {
  if (t_connection != nullptr) t_connection->close_after_response = true;
}

bool BodyLimitHit() {
  if (t_connection == nullptr || t_connection->stream == nullptr) return false;
  if (t_connection->stream->body_exhausted()) t_connection->body_limit_hit = true;
  return t_connection->body_limit_hit;
}

}  // namespace skald::server
