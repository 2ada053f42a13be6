#pragma once

// String helpers on canonical URIs ("viking://resources/a/b") and on URI
// paths (the part after "viking://": "resources/a/b"), for code that holds
// URIs as strings (the catalog, the indexes, the retriever) and must not
// parse them again. The one place for parent / depth / join / is-under
// arithmetic: no other module keeps its own copy.
//
// None of these validate: inputs are expected to be canonical (VikingUri::str()
// or a catalog path). They only look at '/' separators and the "://" of a scheme.
//
// Thread safety: pure functions.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skald {

// ---- Full URIs ("scheme://a/b") ----

// Index just past "://" of `uri` (0 when it has no scheme).
size_t UriSchemeEnd(std::string_view uri);

// `uri` without trailing slashes after its scheme ("viking://a/" -> "viking://a";
// "viking://" stays "viking://").
std::string_view UriTrimTrailingSlashes(std::string_view uri);

// Number of non-empty segments after the scheme ("viking://" 0, "viking://a/b" 2).
int UriDepth(std::string_view uri);

// The parent URI ("viking://a/b" -> "viking://a"; "viking://a" -> "viking://");
// "" for a root ("viking://") or an empty input. Trailing slashes are ignored.
std::string_view UriParent(std::string_view uri);

// True when `uri` is `base` or below it, on segment boundaries
// ("viking://a/b" is within "viking://a", "viking://a/bc" is not). A base
// without a path ("viking://") contains every URI of its scheme. Trailing
// slashes of either are ignored.
bool UriWithin(std::string_view uri, std::string_view base);

// The URIs `min_depth`..`max_depth` segments below `uri` (0 = `uri` itself;
// a negative max_depth = unlimited).
struct UriSpan {
  std::string uri;
  int min_depth = 0;
  int max_depth = -1;
};

// The URIs in both spans: when one span's URI lies within the other's
// (UriWithin), the span at the deeper URI with the depths both allow;
// nullopt when they share none.
std::optional<UriSpan> IntersectSpans(const UriSpan& a, const UriSpan& b);

// ---- URI paths without scheme ("resources/a/b") ----

// The URI of a path: "viking://" + path.
std::string UriOfPath(std::string_view path);

// Parent path ("resources/a/b" -> "resources/a"; "resources" -> "").
std::string_view ParentPath(std::string_view path);

// Last segment of a path ("resources/a/b" -> "b").
std::string_view BaseName(std::string_view path);

// `dir` + "/" + `name`; just `name` when `dir` is "" (the root).
std::string JoinPath(std::string_view dir, std::string_view name);

// The non-empty segments of a path, in order (views into `path`).
std::vector<std::string_view> PathSegments(std::string_view path);

// True when a segment of `path` starts with '.' (a hidden name or a sidecar).
bool PathHasHiddenSegment(std::string_view path);

// Number of leading segments that form the namespace root of `path`
// ("resources" → 1, "agent/skills" → 2, "user/u/memories" → 3,
// "user/u/peers/p/memories" → 5, a session archive
// "user/u/sessions/s/history/archive_001" → 6 for itself, its hidden
// sidecars and its excerpt files); 0 when the path is never indexed (live
// sessions, transcripts, unknown scopes).
int NamespaceRootDepth(std::string_view path);

// True for the paths that get index records: a namespace root or a node
// below it (NamespaceRootDepth), with no hidden segment. (Namespace roots
// are summarized too: hierarchical retrieval starts from them and finds
// their children through their records.)
bool IsIndexedPath(std::string_view path);

// True for the name of a conversation excerpt a commit writes into a
// session archive ("excerpt_0001.md": digits between the prefix and ".md";
// session/archive_excerpts.h).
bool IsSessionExcerptName(std::string_view name);

}  // namespace skald
