#pragma once

// Search tags: the "key=value" labels a record carries and a find or search
// can require (reference §2.3 set_tags, §2.4 find `tags`). One set of rules
// for every path that takes tags (add-resource, content/write, reindex,
// set_tags, find/search, listings):
//
//   - a tag is trimmed and lower-cased (ASCII letters);
//   - it must hold exactly one '=' with a non-empty key and value;
//   - a key is said once: a later tag with the same key replaces the earlier
//     one's value, at the earlier one's position ("a=1", "b=2", "a=3" →
//     "a=3", "b=2").
//
// Filters (find, search) reject a malformed tag (400); paths that store tags
// drop it, as OpenViking does since its tags became keyed.
//
// Thread safety: pure functions.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"
#include "skald/status.h"

namespace skald {

// Bounds of a request's tag list (OpenViking's request bounds): a list is
// copied onto every record a request touches.
inline constexpr size_t kMaxTagsPerRequest = 64;
inline constexpr size_t kMaxTagChars = 1024;  // code points of one raw tag

enum class TagMode {
  kReplace,  // the node's tags become the given ones
  kAppend,   // the given ones are merged in by key (theirs win)
};

// "replace" | "append"; InvalidArgument "unsupported tag mode: <m>" else.
Result<TagMode> ParseTagMode(std::string_view mode);
std::string_view TagModeName(TagMode mode);

// `tags` normalised by the rules above; the first malformed tag is an
// InvalidArgument naming it.
Result<std::vector<std::string>> NormalizeTags(std::span<const std::string> tags);

// `tags` normalised, malformed ones dropped.
std::vector<std::string> NormalizeTagsLeniently(std::span<const std::string> tags);

// `existing` (normalised leniently) with `incoming` merged in by key:
// an incoming tag replaces the value of an existing one with its key, at
// that position; new keys follow in order.
std::vector<std::string> MergeTags(std::span<const std::string> existing,
                                   std::span<const std::string> incoming);

// The tags a node ends up with: `incoming` for kReplace, MergeTags for
// kAppend. Both sides normalised leniently.
std::vector<std::string> ApplyTags(std::span<const std::string> existing,
                                   std::span<const std::string> incoming, TagMode mode);

}  // namespace skald
