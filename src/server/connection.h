#pragma once

// GuardedHttpServer: cpp-httplib's Server with Skald's own per-connection
// loop. cpp-httplib 0.11.4 (Debian's compiled library) reads request lines
// and header lists without a bound, reads chunked bodies to the end whatever
// their size and times out only per recv(), so a connection could make it
// read without limit or hold a thread forever. Here every connection is read
// through a budgeted stream:
//   - the request line and headers must arrive within header_timeout and fit
//     in max_header_bytes (slow or endless headers end the connection);
//   - once the headers are read (MarkHeadersRead(), called from the
//     pre-routing handler with the route's cap: max_body_bytes, or the
//     upload cap for temp_upload) the body may use that cap plus a small
//     allowance for chunk framing; a read past that fails, BodyLimitHit()
//     turns true and the connection is closed after the response: nothing
//     past the cap is read;
//   - any single read or write waits at most read_timeout; an idle
//     keep-alive connection is closed after keep_alive_timeout, and at once
//     when the server stops.
//
// Thread safety: the Server is driven like httplib::Server. The free
// functions act on the connection served by the calling thread (the one
// running the pre-routing, route and error handlers of a request); outside
// such a thread they do nothing / return false.

#include <httplib.h>

#include <chrono>
#include <cstdint>

namespace skald::server {

struct ConnectionLimits {
  std::chrono::seconds read_timeout{30};
  std::chrono::seconds header_timeout{10};
  std::chrono::seconds keep_alive_timeout{5};
  int keep_alive_max_count = 1000;
  int64_t max_header_bytes = int64_t{64} << 10;
  // The body budget is per request: MarkHeadersRead() sets it.
};

class GuardedHttpServer final : public httplib::Server {
 public:
  explicit GuardedHttpServer(ConnectionLimits limits) : limits_(limits) {}

 private:
  // Serves one accepted connection until it closes (runs on a pool thread).
  bool process_and_close_socket(socket_t sock) override;

  const ConnectionLimits limits_;
};

// The current request's headers have been read: from now on its reads count
// against a body budget of `max_body_bytes` (plus the chunk framing allowance).
// `whole_reads`: every body read returns all the bytes asked for (waiting
// for them, within read_timeout), not what one recv() gave; only for a body
// of known length, whose reads never ask past its end. cpp-httplib 0.11.4's
// multipart parser fails (400) when the first boundary line arrives split
// over two reads (fixed upstream in 0.23), which a client or proxy writing
// the body in small pieces can cause.
void MarkHeadersRead(int64_t max_body_bytes, bool whole_reads = false);
// Close the current connection once the response is written (its body, or
// part of it, was left unread).
void CloseConnectionAfterResponse();
// True when the current request's body was cut at the cap.
bool BodyLimitHit();

}  // namespace skald::server
