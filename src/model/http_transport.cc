#include "model/http_transport.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <array>
#include <atomic>
#include <mutex>

#include "common/strings.h"

namespace skald {

std::string HttpResponse::Header(std::string_view name) const {
  const std::string wanted = AsciiLower(name);
  for (const auto& [key, value] : headers) {
    if (AsciiLower(key) == wanted) return value;
  }
  return "";
}

Status CurlTransportOptions::Validate() const {
  if (max_idle_connections < 1) {
    return Status::InvalidArgument("max_idle_connections must be at least 1");
  }
  return Status::Ok();
}

// libcurl 7.88 is built thread-safe (CURL_VERSION_THREADSAFE), so this may
// run on any thread.
Status CurlGlobalInit() {
  static const CURLcode code = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (code != CURLE_OK) {
    return Status::Unavailable(
        fmt::format("libcurl initialization failed: {}", curl_easy_strerror(code)));
  }
  return Status::Ok();
}

namespace {

size_t AppendBody(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

// Collects the headers of the final response (a new status line, e.g.
// after "100 Continue", starts over).
size_t AppendHeader(char* data, size_t size, size_t count, void* user) {
  auto* headers = static_cast<HttpHeaders*>(user);
  std::string_view line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {
    headers->clear();
    return size * count;
  }
  const size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    headers->emplace_back(std::string(Trim(line.substr(0, colon))),
                          std::string(Trim(line.substr(colon + 1))));
  }
  return size * count;
}

struct EasyDeleter {
  void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};
using EasyHandle = std::unique_ptr<CURL, EasyDeleter>;

struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using Slist = std::unique_ptr<curl_slist, SlistDeleter>;

class CurlTransport final : public HttpTransport {
 public:
  explicit CurlTransport(CurlTransportOptions options) : options_(std::move(options)) {}

  ~CurlTransport() override {
    idle_.clear();  // easy handles go before the share they use
    if (share_ != nullptr) curl_share_cleanup(share_);
  }

  Status Init() {
    share_ = curl_share_init();
    if (share_ == nullptr) return Status::Unavailable("curl_share_init failed");
    curl_share_setopt(share_, CURLSHOPT_LOCKFUNC, &CurlTransport::Lock);
    curl_share_setopt(share_, CURLSHOPT_UNLOCKFUNC, &CurlTransport::Unlock);
    curl_share_setopt(share_, CURLSHOPT_USERDATA, this);
    for (curl_lock_data data :
         {CURL_LOCK_DATA_CONNECT, CURL_LOCK_DATA_DNS, CURL_LOCK_DATA_SSL_SESSION}) {
      if (curl_share_setopt(share_, CURLSHOPT_SHARE, data) != CURLSHE_OK) {
        return Status::Unavailable("libcurl cannot share its connection cache");
      }
    }
    return Status::Ok();
  }

  Result<HttpResponse> Send(const HttpRequest& request) override {
    EasyHandle easy = Acquire();
    if (!easy) return Status::Unavailable("curl_easy_init failed");
    CURL* e = easy.get();
    curl_easy_reset(e);

    Slist headers;
    for (const auto& [name, value] : request.headers) {
      curl_slist* next = curl_slist_append(headers.get(), (name + ": " + value).c_str());
      if (next == nullptr) return Status::ResourceExhausted("out of memory building headers");
      (void)headers.release();
      headers.reset(next);
    }
    // No "Expect: 100-continue" round trip before large bodies.
    if (curl_slist* next = curl_slist_append(headers.get(), "Expect:"); next != nullptr) {
      (void)headers.release();
      headers.reset(next);
    }

    HttpResponse response;
    const long timeout_ms = static_cast<long>(std::max<int64_t>(1, request.timeout.count()));
    const long connect_ms = static_cast<long>(
        std::max<int64_t>(1, std::min(request.connect_timeout.count(), request.timeout.count())));
    curl_easy_setopt(e, CURLOPT_SHARE, share_);
    curl_easy_setopt(e, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_MAXCONNECTS, static_cast<long>(options_.max_idle_connections));
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");  // whatever libcurl can decode
    curl_easy_setopt(e, CURLOPT_USERAGENT, options_.user_agent.c_str());
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, options_.verify_tls ? 1L : 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, options_.verify_tls ? 2L : 0L);
    if (!options_.ca_file.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, options_.ca_file.c_str());
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &AppendBody);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &response.body);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &AppendHeader);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &response.headers);
    if (request.method == "POST") {
      curl_easy_setopt(e, CURLOPT_POST, 1L);
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
    } else if (request.method != "GET") {
      return Status::InvalidArgument("unsupported HTTP method " + request.method);
    }

    const CURLcode code = curl_easy_perform(e);
    long connects = 0;
    if (curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK && connects > 0) {
      connections_opened_ += static_cast<uint64_t>(connects);
    }
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, nullptr);
    if (code != CURLE_OK) {
      Release(std::move(easy));
      const std::string what =
          fmt::format("{} {}: {}", request.method, request.url, curl_easy_strerror(code));
      if (code == CURLE_OPERATION_TIMEDOUT) {
        return Status::DeadlineExceeded(
            fmt::format("{} (timeout {} ms)", what, request.timeout.count()));
      }
      return Status::Unavailable(what);
    }
    long status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    response.status = static_cast<int>(status);
    Release(std::move(easy));
    return response;
  }

  uint64_t connections_opened() const override { return connections_opened_.load(); }

 private:
  static void Lock(CURL*, curl_lock_data data, curl_lock_access, void* user) {
    static_cast<CurlTransport*>(user)->locks_[LockIndex(data)].lock();
  }
  static void Unlock(CURL*, curl_lock_data data, void* user) {
    static_cast<CurlTransport*>(user)->locks_[LockIndex(data)].unlock();
  }
  static size_t LockIndex(curl_lock_data data) {
    const auto index = static_cast<size_t>(data);
    return index < kLockSlots ? index : 0;
  }

  EasyHandle Acquire() {
    {
      std::lock_guard<std::mutex> lock(pool_mu_);
      if (!idle_.empty()) {
        EasyHandle easy = std::move(idle_.back());
        idle_.pop_back();
        return easy;
      }
    }
    return EasyHandle(curl_easy_init());
  }

  void Release(EasyHandle easy) {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (idle_.size() < static_cast<size_t>(options_.max_idle_connections)) {
      idle_.push_back(std::move(easy));
    }
  }

  static constexpr size_t kLockSlots = CURL_LOCK_DATA_LAST;
  const CurlTransportOptions options_;
  CURLSH* share_ = nullptr;
  std::array<std::mutex, kLockSlots> locks_;
  std::mutex pool_mu_;
  std::vector<EasyHandle> idle_;  // GUARDED_BY(pool_mu_)
  std::atomic<uint64_t> connections_opened_{0};
};

}  // namespace

Result<std::unique_ptr<HttpTransport>> NewCurlTransport(const CurlTransportOptions& options) {
  SKALD_RETURN_IF_ERROR(options.Validate());
  SKALD_RETURN_IF_ERROR(CurlGlobalInit());
  auto transport = std::make_unique<CurlTransport>(options);
  SKALD_RETURN_IF_ERROR(transport->Init());
  return std::unique_ptr<HttpTransport>(std::move(transport));
}

}  // namespace skald
