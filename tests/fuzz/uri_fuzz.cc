// libFuzzer target for the untrusted-input parsers of src/uri: VikingUri::Parse
// (with and without an identity, with and without internal scopes) and
// GlobPattern (compile + match, checked against a naive reference matcher).
//
// Built two ways (tests/fuzz/CMakeLists.txt):
//   uri_fuzz         clang + -fsanitize=fuzzer,address, when SKALD_BUILD_FUZZ=ON;
//   uri_fuzz_replay  any compiler, linked with replay_main.cc: runs every file
//                    under the given paths once (the corpus as a ctest).
// Any violated invariant prints what broke and aborts.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "uri/access.h"
#include "uri/glob_pattern.h"
#include "uri/viking_uri.h"

namespace {

using skald::GlobPattern;
using skald::Identity;
using skald::Result;
using skald::Role;
using skald::StatusCode;
using skald::UriParseOptions;
using skald::VikingUri;

[[noreturn]] void Fail(const char* what, std::string_view input, std::string_view extra = {}) {
  std::fprintf(stderr, "uri_fuzz invariant violated: %s\n  input (%zu bytes): ", what,
               input.size());
  for (unsigned char c : input) {
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      std::fputc(c, stderr);
    } else {
      std::fprintf(stderr, "\\x%02X", c);
    }
  }
  std::fprintf(stderr, "\n  detail: %.*s\n", static_cast<int>(extra.size()), extra.data());
  std::abort();
}

void CheckParsed(const VikingUri& uri, const UriParseOptions& options, std::string_view input) {
  const std::string& text = uri.str();
  if (text.compare(0, 9, "viking://") != 0) Fail("canonical text lacks the scheme", input, text);
  if (text.size() > skald::kMaxUriBytes) Fail("canonical text too long", input, text);
  std::string_view path = uri.path();
  if (path.find("//") != std::string_view::npos) Fail("'//' in path", input, text);
  if (!path.empty() && (path.back() == '/' || path.front() == '/')) {
    Fail("leading or trailing slash in path", input, text);
  }
  if (path.find('?') != std::string_view::npos) Fail("query kept in path", input, text);
  if (uri.is_root() != path.empty()) Fail("is_root disagrees with path", input, text);
  for (const std::string& segment : uri.segments()) {
    if (!VikingUri::IsValidSegment(segment)) Fail("invalid segment kept", input, segment);
  }
  if (!uri.is_root()) {
    std::string_view scope = uri.scope();
    if (scope == "~" || scope == "session") Fail("alias scope survived", input, text);
    if (uri.name() != uri.segments().back()) Fail("name is not the last segment", input, text);
  }

  // The canonical form re-parses to itself.
  Result<VikingUri> again = VikingUri::Parse(text, options);
  if (!again.ok()) Fail("canonical form does not re-parse", input, again.status().ToString());
  if (*again != uri || again->segments() != uri.segments()) {
    Fail("canonical form re-parses differently", input, again->str());
  }

  // Navigation is consistent.
  VikingUri parent = uri.Parent();
  if (!parent.Contains(uri)) Fail("parent does not contain child", input, parent.str());
  if (!uri.Contains(uri)) Fail("uri does not contain itself", input, text);
  if (!VikingUri().Contains(uri)) Fail("root does not contain uri", input, text);
  if (!uri.is_root()) {
    if (parent.depth() + 1 != uri.depth()) Fail("parent depth", input, parent.str());
    if (uri.Contains(parent)) Fail("uri contains its parent", input, text);
    if (parent.Child(uri.name()) != uri) Fail("Parent().Child(name()) differs", input, text);
  }
  if (VikingUri::FromSegments(uri.segments()) != uri) Fail("FromSegments differs", input, text);

  // Access checks never crash and stay consistent: what cannot be read
  // cannot be written or deleted; ROOT reads everything.
  Identity alice{"acct", "alice", Role::kUser};
  Identity root{"acct", "default", Role::kRoot};
  bool readable = skald::IsAccessible(alice, uri);
  if (!readable && (skald::CheckWriteAccess(alice, uri).ok() ||
                    skald::CheckDeleteAccess(alice, uri).ok())) {
    Fail("unreadable uri is writable or deletable", input, text);
  }
  if (!skald::IsAccessible(root, uri)) Fail("ROOT cannot read", input, text);
  (void)uri.context_type();
}

void FuzzUri(std::string_view input) {
  static const Identity kAlice{"acct", "alice", Role::kUser};
  static const Identity kAdminNamedMemories{"acct", "memories", Role::kAdmin};
  static const Identity kRoot{"acct", "default", Role::kRoot};
  const Identity* identities[] = {nullptr, &kAlice, &kAdminNamedMemories, &kRoot};
  for (const Identity* who : identities) {
    for (bool internal : {false, true}) {
      UriParseOptions options;
      options.identity = who;
      options.allow_internal_scopes = internal;
      // A fixed clock keeps {calendar:...} results reproducible.
      options.now = std::chrono::system_clock::time_point(std::chrono::hours(24 * 20580 + 7));
      Result<VikingUri> r = VikingUri::Parse(input, options);
      if (r.ok()) {
        CheckParsed(*r, options, input);
        continue;
      }
      const skald::Status& s = r.status();
      if (s.code() == StatusCode::kInvalidArgument) {
        if (s.reason() != skald::kInvalidUriReason) Fail("InvalidArgument without reason", input);
        if (s.message().rfind("Invalid URI: ", 0) != 0) Fail("bad message", input, s.message());
      } else if (s.code() != StatusCode::kPermissionDenied) {
        Fail("unexpected status code", input, s.ToString());
      }
      if (s.message().size() > 2 * skald::kMaxUriBytes) Fail("huge message", input, s.message());
    }
  }
}

// Naive reference for patterns without classes or escapes: exponential, so
// only used on small inputs. Same semantics as GlobPattern (see its header).
bool NaiveSegment(std::string_view p, std::u32string_view n, bool at_start) {
  if (at_start && !n.empty() && n[0] == U'.' && (p.empty() || p[0] != '.')) return false;
  if (p.empty()) return n.empty();
  if (p[0] == '*') {
    for (size_t k = 0; k <= n.size(); ++k) {
      if (NaiveSegment(p.substr(1), n.substr(k), false)) return true;
    }
    return false;
  }
  if (n.empty()) return false;
  if (p[0] == '?') return NaiveSegment(p.substr(1), n.substr(1), false);
  return static_cast<char32_t>(static_cast<unsigned char>(p[0])) == n[0] &&
         NaiveSegment(p.substr(1), n.substr(1), false);
}

bool NaivePath(const std::vector<std::string>& p, size_t i, const std::vector<std::string>& n,
               size_t j) {
  if (i == p.size()) return j == n.size();
  if (p[i] == "**") {
    if (NaivePath(p, i + 1, n, j)) return true;
    return j < n.size() && n[j][0] != '.' && NaivePath(p, i, n, j + 1);
  }
  if (j == n.size()) return false;
  std::u32string name;
  for (unsigned char c : n[j]) name.push_back(c);
  return NaiveSegment(p[i], name, true) && NaivePath(p, i + 1, n, j + 1);
}

std::vector<std::string> Pieces(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find('/', start);
    if (end == std::string_view::npos) end = s.size();
    std::string piece(s.substr(start, end - start));
    if (!piece.empty() && piece != ".") out.push_back(std::move(piece));
    start = end + 1;
  }
  return out;
}

// Input "pattern\npath": compile, match, and compare with the reference.
void FuzzGlob(std::string_view input) {
  size_t nl = input.find('\n');
  if (nl == std::string_view::npos) return;
  std::string_view pattern = input.substr(0, nl);
  std::string_view path = input.substr(nl + 1);
  Result<GlobPattern> g = GlobPattern::Compile(pattern);
  if (!g.ok()) {
    if (g.status().code() != StatusCode::kInvalidArgument) Fail("glob: bad code", input);
    return;
  }
  bool got = g->Matches(path);
  if (g->anchored() && g->literal_prefix().size() > pattern.size()) {
    Fail("glob: literal prefix longer than pattern", input);
  }
  // Reference comparison for small ASCII inputs without classes or escapes.
  if (pattern.size() > 24 || path.size() > 40) return;
  for (unsigned char c : input) {
    if (c >= 0x80 || c == '[' || c == '\\') return;
  }
  std::vector<std::string> p = Pieces(pattern);
  // `**` only as a whole segment; elsewhere it is a plain star.
  std::vector<std::string> collapsed;
  for (std::string& seg : p) {
    if (seg != "**") {
      std::string single;
      for (char c : seg) {
        if (!(c == '*' && !single.empty() && single.back() == '*')) single.push_back(c);
      }
      seg = single;
    }
    collapsed.push_back(seg);
  }
  if (pattern[0] != '/' && (collapsed.empty() || collapsed[0] != "**")) {
    collapsed.insert(collapsed.begin(), "**");
  }
  std::vector<std::string> n = Pieces(path);
  bool want = !n.empty() && NaivePath(collapsed, 0, n, 0);
  if (got != want) Fail(got ? "glob: matched, reference did not" : "glob: missed a match", input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  FuzzUri(input);
  FuzzGlob(input);
  return 0;
}
