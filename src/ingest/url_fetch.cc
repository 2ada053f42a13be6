#include "ingest/url_fetch.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "common/strings.h"
#include "ingest/source_import.h"
#include "model/http_transport.h"

namespace skald {
namespace {

namespace fs = std::filesystem;

bool InV4Range(uint32_t addr, uint32_t net, int bits) {
  const uint32_t mask = bits == 0 ? 0 : ~uint32_t{0} << (32 - bits);
  return (addr & mask) == (net & mask);
}

// IPv4 (host byte order) that is not a public unicast address.
bool IsNonPublicV4(uint32_t a) {
  static constexpr struct {
    uint32_t net;
    int bits;
  } kRanges[] = {
      {0x00000000, 8},   // 0.0.0.0/8 "this network"
      {0x0A000000, 8},   // 10/8
      {0x64400000, 10},  // 100.64/10 carrier-grade NAT
      {0x7F000000, 8},   // 127/8 loopback
      {0xA9FE0000, 16},  // 169.254/16 link-local (cloud metadata)
      {0xAC100000, 12},  // 172.16/12
      {0xC0000000, 24},  // 192.0.0/24 protocol assignments
      {0xC0A80000, 16},  // 192.168/16
      {0xC6120000, 15},  // 198.18/15 benchmarking
      {0xE0000000, 4},   // multicast
      {0xF0000000, 4},   // reserved, broadcast
  };
  for (const auto& r : kRanges) {
    if (InV4Range(a, r.net, r.bits)) return true;
  }
  return false;
}

bool IsNonPublicV6(const in6_addr& addr) {
  const uint8_t* b = addr.s6_addr;
  static constexpr uint8_t kZero[16] = {};
  if (std::memcmp(b, kZero, 15) == 0 && (b[15] == 0 || b[15] == 1)) return true;  // ::, ::1
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d): the embedded address decides.
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  static constexpr uint8_t kNat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
  if (std::memcmp(b, kMapped, 12) == 0 || std::memcmp(b, kNat64, 12) == 0) {
    const uint32_t v4 = (uint32_t{b[12]} << 24) | (uint32_t{b[13]} << 16) | (uint32_t{b[14]} << 8) |
                        uint32_t{b[15]};
    return IsNonPublicV4(v4);
  }
  if ((b[0] & 0xfe) == 0xfc) return true;                  // fc00::/7 unique local
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return true;  // fe80::/10 link-local
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return true;  // fec0::/10 site-local
  if (b[0] == 0xff) return true;                           // multicast
  return false;
}

bool IsNonPublic(const sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    return IsNonPublicV4(ntohl(reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr));
  }
  if (sa->sa_family == AF_INET6) {
    return IsNonPublicV6(reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr);
  }
  return true;  // other families are never fetched from
}

Status PrivateRefused(std::string_view host) {
  return Status::PermissionDenied(
             fmt::format(
                 "{} resolves to a private, loopback or link-local address; only public remote "
                 "resource targets are fetched (set allow_private_networks in the server config "
                 "to allow it)",
                 host))
      .WithReason("PERMISSION_DENIED");
}

struct UrlDeleter {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};
struct CurlFree {
  void operator()(char* p) const { curl_free(p); }
};
using CurlString = std::unique_ptr<char, CurlFree>;

// One part of a parsed URL ("" when absent).
std::string UrlPart(CURLU* url, CURLUPart part, unsigned flags = 0) {
  char* out = nullptr;
  if (curl_url_get(url, part, &out, flags) != CURLUE_OK || out == nullptr) return "";
  CurlString owned(out);
  return std::string(owned.get());
}

struct ParsedUrl {
  std::string scheme;
  std::string host;
  std::string path;  // percent-decoded
};

Result<ParsedUrl> ParseHttpUrl(std::string_view text) {
  if (!IsHttpUrl(text)) {
    return Status::InvalidArgument(fmt::format("only http(s) URLs can be fetched: {}", text));
  }
  std::unique_ptr<CURLU, UrlDeleter> url(curl_url());
  if (!url) return Status::ResourceExhausted("out of memory parsing a URL");
  const std::string copy(text);
  if (curl_url_set(url.get(), CURLUPART_URL, copy.c_str(), 0) != CURLUE_OK) {
    return Status::InvalidArgument(fmt::format("not a valid URL: {}", text));
  }
  ParsedUrl parsed{AsciiLower(UrlPart(url.get(), CURLUPART_SCHEME)),
                   UrlPart(url.get(), CURLUPART_HOST),
                   UrlPart(url.get(), CURLUPART_PATH, CURLU_URLDECODE)};
  if (parsed.host.empty())
    return Status::InvalidArgument(fmt::format("URL without a host: {}", text));
  return parsed;
}

// What one fetch carries through libcurl's callbacks.
struct Transfer {
  bool allow_private = false;
  bool refused = false;  // a connection to a non-public address was refused
  std::FILE* out = nullptr;
  uint64_t bytes = 0;
  uint64_t max_bytes = 0;
  bool too_large = false;
  bool write_failed = false;
};

curl_socket_t OpenSocket(void* user, curlsocktype purpose, curl_sockaddr* address) {
  auto* t = static_cast<Transfer*>(user);
  if (purpose != CURLSOCKTYPE_IPCXN) return CURL_SOCKET_BAD;
  if (!t->allow_private && IsNonPublic(&address->addr)) {
    t->refused = true;
    return CURL_SOCKET_BAD;
  }
  return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

size_t WriteBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (t->bytes + n > t->max_bytes) {
    t->too_large = true;
    return 0;  // aborts the transfer
  }
  if (std::fwrite(data, 1, n, t->out) != n) {
    t->write_failed = true;
    return 0;
  }
  t->bytes += n;
  return n;
}

struct EasyDeleter {
  void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};

// An extension for a name that has none, from the content type.
std::string ExtensionFor(std::string_view content_type) {
  const std::string type = AsciiLower(Trim(content_type.substr(0, content_type.find(';'))));
  if (type == "text/html" || type == "application/xhtml+xml") return ".html";
  if (type == "text/markdown" || type == "text/x-markdown") return ".md";
  if (type == "text/plain") return ".txt";
  if (type == "application/pdf") return ".pdf";
  if (type == "application/zip") return ".zip";
  if (type == "application/json") return ".json";
  return "";
}

}  // namespace

bool IsHttpUrl(std::string_view text) {
  const std::string lower = AsciiLower(text.substr(0, 8));
  return lower.rfind("http://", 0) == 0 || lower.rfind("https://", 0) == 0;
}

Result<std::string> UrlFileName(std::string_view url, bool* from_path) {
  SKALD_ASSIGN_OR_RETURN(ParsedUrl parsed, ParseHttpUrl(url));
  std::string_view path = parsed.path;
  const size_t slash = path.rfind('/');
  std::string_view last = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const bool named = !Trim(last).empty();
  if (from_path != nullptr) *from_path = named;
  return named ? std::string(last) : parsed.host;
}

Status CheckUrlAllowed(std::string_view url, bool allow_private_networks) {
  SKALD_RETURN_IF_ERROR(CurlGlobalInit());
  SKALD_ASSIGN_OR_RETURN(ParsedUrl parsed, ParseHttpUrl(url));
  if (allow_private_networks) return Status::Ok();
  std::string host = parsed.host;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0) {
    return Status::NotFound(
        fmt::format("cannot resolve the host of {}: {}", url, ::gai_strerror(rc)));
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owned(found, &::freeaddrinfo);
  for (const addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    if (IsNonPublic(ai->ai_addr)) return PrivateRefused(parsed.host);
  }
  return Status::Ok();
}

Result<FetchedFile> FetchUrl(const std::string& url, const std::string& dest_dir,
                             const FetchOptions& options) {
  SKALD_RETURN_IF_ERROR(CurlGlobalInit());
  SKALD_ASSIGN_OR_RETURN(ParsedUrl parsed, ParseHttpUrl(url));
  SKALD_ASSIGN_OR_RETURN(std::string name, UrlFileName(url));
  std::error_code ec;
  fs::create_directories(dest_dir, ec);
  if (ec)
    return Status::IOError(fmt::format("cannot create the staging directory: {}", ec.message()));
  // Saved under a fixed name; the caller gets the real one separately.
  const fs::path target = fs::path(dest_dir) / "download";
  std::unique_ptr<std::FILE, decltype(&std::fclose)> out(std::fopen(target.c_str(), "wbe"),
                                                         &std::fclose);
  if (!out) return Status::IOError("cannot create the download file");

  std::unique_ptr<CURL, EasyDeleter> easy(curl_easy_init());
  if (!easy) return Status::ResourceExhausted("out of memory starting a download");
  Transfer t;
  t.allow_private = options.allow_private_networks;
  t.out = out.get();
  t.max_bytes = options.max_bytes;
  CURL* h = easy.get();
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(h, CURLOPT_MAXREDIRS, options.max_redirects);
  curl_easy_setopt(h, CURLOPT_NOPROXY, "*");  // the address check must see the real peer
  curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, &OpenSocket);
  curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, &t);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &WriteBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(options.max_bytes));
  curl_easy_setopt(h, CURLOPT_TIMEOUT, options.timeout_s);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, options.connect_timeout_s);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // what libcurl can decode
  curl_easy_setopt(h, CURLOPT_USERAGENT, "skald-fetch/1");
  const CURLcode code = curl_easy_perform(h);
  out.reset();
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  if (t.refused) return PrivateRefused(parsed.host);
  if (t.too_large || code == CURLE_FILESIZE_EXCEEDED) {
    return Status::ResourceExhausted(
        fmt::format("{} is larger than the {} byte download limit", url, options.max_bytes));
  }
  if (t.write_failed) return Status::IOError("cannot write the download file");
  if (code == CURLE_OPERATION_TIMEDOUT) {
    return Status::DeadlineExceeded(
        fmt::format("fetching {} took longer than {} s", url, options.timeout_s));
  }
  if (code == CURLE_TOO_MANY_REDIRECTS) {
    return Status::InvalidArgument(
        fmt::format("{} redirects more than {} times", url, options.max_redirects));
  }
  if (code == CURLE_UNSUPPORTED_PROTOCOL) {
    return Status::InvalidArgument(fmt::format("{} redirects to a scheme other than http(s)", url));
  }
  if (code == CURLE_COULDNT_RESOLVE_HOST || code == CURLE_COULDNT_CONNECT) {
    // Retrying for an hour would not help a mistyped host or a closed port.
    return Status::NotFound(fmt::format("cannot fetch {}: {}", url, curl_easy_strerror(code)));
  }
  if (code != CURLE_OK) {
    return Status::Unavailable(fmt::format("cannot fetch {}: {}", url, curl_easy_strerror(code)));
  }
  if (status == 404 || status == 410) {
    return Status::NotFound(fmt::format("{} answered HTTP {}", url, status));
  }
  if (status == 429 || status >= 500) {
    return Status::Unavailable(fmt::format("{} answered HTTP {}", url, status));
  }
  if (status < 200 || status >= 300) {
    return Status::InvalidArgument(fmt::format("{} answered HTTP {}", url, status));
  }
  FetchedFile file;
  file.path = target.string();
  const char* type = nullptr;
  curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &type);
  file.content_type = type != nullptr ? type : "";
  // The final URL names the file (a redirect from "/latest" to "/v2.md").
  const char* effective = nullptr;
  curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &effective);
  if (effective != nullptr) {
    if (Result<std::string> final_name = UrlFileName(effective); final_name.ok()) {
      name = *final_name;
    }
  }
  const std::string ext = ExtensionFor(file.content_type);
  if (!ext.empty() && fs::path(name).extension().empty()) name += ext;
  if (!ext.empty() && name == parsed.host) name += ext;  // "example.com" -> "example.com.html"
  file.name = name;
  return file;
}

}  // namespace skald
