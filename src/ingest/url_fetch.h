#pragma once

// Fetching an http(s) URL for add-resource, with libcurl, into a staging
// directory.
//
// Server-side request forgery defence: unless allow_private_networks, a URL
// is refused (PermissionDenied) when its host resolves to any loopback,
// private (RFC 1918, CGNAT, unique-local), link-local, multicast,
// unspecified or reserved address. The check runs on the addresses libcurl
// actually connects to (an open-socket callback), so it holds for every
// redirect hop and for DNS answers that change between the check and the
// connection; proxies from the environment are not used. Only http and
// https are fetched, redirects included.
//
// Size and time are capped (FetchOptions); over either the fetch fails with
// ResourceExhausted / DeadlineExceeded. HTTP 4xx answers, a host that does
// not resolve and a refused connection are NotFound or InvalidArgument (no
// retry helps); 5xx, 429 and other transport failures are Unavailable (the
// job retries them).
//
// Thread safety: functions are safe to call concurrently.

#include <cstdint>
#include <string>
#include <string_view>

#include "skald/result.h"

namespace skald {

struct FetchOptions {
  bool allow_private_networks = false;
  // Largest body accepted (the import then caps each file at 10 MiB, but an
  // archive may be larger).
  uint64_t max_bytes = uint64_t{256} << 20;
  // Whole transfer, and the connection phase alone.
  long timeout_s = 300;
  long connect_timeout_s = 20;
  long max_redirects = 5;
};

struct FetchedFile {
  std::string path;          // the downloaded file, in the destination directory
  std::string name;          // its file name (from the URL, with an extension from its type)
  std::string content_type;  // as the server sent it ("" when none)
};

// True for "http://" and "https://" URLs (case-insensitive scheme).
bool IsHttpUrl(std::string_view text);

// The file name a URL's resource goes by: its last path segment,
// percent-decoded ("guide.md"), or its host when the path is empty or ends
// in "/" ("example.com"); `*from_path` (optional) tells which. InvalidArgument
// for a URL libcurl cannot parse.
Result<std::string> UrlFileName(std::string_view url, bool* from_path = nullptr);

// Checks a URL before anything is queued: http(s), parseable, its host
// resolves, and (unless allow_private_networks) none of its addresses is
// non-public. PermissionDenied naming the host otherwise; NotFound when it
// does not resolve.
Status CheckUrlAllowed(std::string_view url, bool allow_private_networks);

// Downloads `url` into `dest_dir` (created when missing).
Result<FetchedFile> FetchUrl(const std::string& url, const std::string& dest_dir,
                             const FetchOptions& options);

}  // namespace skald
