#include "uri/uri_path.h"

#include <algorithm>

namespace skald {

size_t UriSchemeEnd(std::string_view uri) {
  size_t p = uri.find("://");
  return p == std::string_view::npos ? 0 : p + 3;
}

std::string_view UriTrimTrailingSlashes(std::string_view uri) {
  const size_t start = UriSchemeEnd(uri);
  while (uri.size() > start && uri.back() == '/') uri.remove_suffix(1);
  return uri;
}

int UriDepth(std::string_view uri) {
  int depth = 0;
  bool in_segment = false;
  for (size_t i = UriSchemeEnd(uri); i < uri.size(); ++i) {
    if (uri[i] == '/') {
      in_segment = false;
    } else if (!in_segment) {
      in_segment = true;
      ++depth;
    }
  }
  return depth;
}

std::string_view UriParent(std::string_view uri) {
  size_t start = UriSchemeEnd(uri);
  while (uri.size() > start && uri.back() == '/') uri.remove_suffix(1);
  if (uri.size() <= start) return {};
  size_t slash = uri.rfind('/');
  if (slash == std::string_view::npos || slash < start) return uri.substr(0, start);
  while (slash > start && uri[slash - 1] == '/') --slash;
  return uri.substr(0, std::max(slash, start));
}

bool UriWithin(std::string_view uri, std::string_view base) {
  uri = UriTrimTrailingSlashes(uri);
  base = UriTrimTrailingSlashes(base);
  if (uri.size() < base.size() || uri.substr(0, base.size()) != base) return false;
  if (base.size() == UriSchemeEnd(base)) return true;  // the root contains everything
  return uri.size() == base.size() || uri[base.size()] == '/';
}

std::optional<UriSpan> IntersectSpans(const UriSpan& a, const UriSpan& b) {
  const bool b_in_a = UriWithin(b.uri, a.uri);
  if (!b_in_a && !UriWithin(a.uri, b.uri)) return std::nullopt;
  const UriSpan& deep = b_in_a ? b : a;
  const UriSpan& shallow = b_in_a ? a : b;
  // The shallow span's depths, counted from the deeper URI, are k less.
  const int k = UriDepth(deep.uri) - UriDepth(shallow.uri);
  if (shallow.max_depth >= 0 && shallow.max_depth < k) return std::nullopt;
  UriSpan out{deep.uri, std::max({deep.min_depth, shallow.min_depth - k, 0}), deep.max_depth};
  if (shallow.max_depth >= 0) {
    out.max_depth =
        out.max_depth < 0 ? shallow.max_depth - k : std::min(out.max_depth, shallow.max_depth - k);
  }
  if (out.max_depth >= 0 && out.min_depth > out.max_depth) return std::nullopt;
  return out;
}

std::string UriOfPath(std::string_view path) {
  std::string out = "viking://";
  out += path;
  return out;
}

std::string_view ParentPath(std::string_view path) {
  size_t pos = path.rfind('/');
  return pos == std::string_view::npos ? std::string_view() : path.substr(0, pos);
}

std::string_view BaseName(std::string_view path) {
  size_t pos = path.rfind('/');
  return pos == std::string_view::npos ? path : path.substr(pos + 1);
}

std::string JoinPath(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (!out.empty()) out += '/';
  out += name;
  return out;
}

std::vector<std::string_view> PathSegments(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

bool PathHasHiddenSegment(std::string_view path) {
  for (std::string_view seg : PathSegments(path)) {
    if (seg.front() == '.') return true;
  }
  return false;
}

int NamespaceRootDepth(std::string_view path) {
  std::vector<std::string_view> segs = PathSegments(path);
  if (segs.empty()) return 0;
  if (segs[0] == "resources") return 1;
  if (segs[0] == "agent") return segs.size() >= 2 && segs[1] == "skills" ? 2 : 0;
  if (segs[0] != "user" || segs.size() < 3) return 0;
  if (segs[2] == "memories" || segs[2] == "resources" || segs[2] == "skills") return 3;
  if (segs[2] == "peers" && segs.size() >= 5 && segs[4] != "sessions") return 5;
  // A session archive: its excerpts (and sidecars) are indexed, never its
  // transcript nor the live session.
  if (segs[2] == "sessions" && segs.size() >= 6 && segs[4] == "history" &&
      segs[5].substr(0, 8) == "archive_") {
    if (segs.size() == 6) return 6;
    if (segs.size() == 7 && (segs[6].front() == '.' || IsSessionExcerptName(segs[6]))) return 6;
  }
  return 0;
}

bool IsIndexedPath(std::string_view path) {
  const int root = NamespaceRootDepth(path);
  return root > 0 && static_cast<int>(PathSegments(path).size()) >= root &&
         !PathHasHiddenSegment(path);
}

bool IsSessionExcerptName(std::string_view name) {
  constexpr std::string_view kPrefix = "excerpt_";
  constexpr std::string_view kSuffix = ".md";
  if (name.size() <= kPrefix.size() + kSuffix.size()) return false;
  if (name.substr(0, kPrefix.size()) != kPrefix) return false;
  if (name.substr(name.size() - kSuffix.size()) != kSuffix) return false;
  for (char c : name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size())) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace skald
