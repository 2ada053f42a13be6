#include "common/tags.h"

#include <unordered_map>

#include <fmt/format.h>

#include "common/strings.h"

namespace skald {
namespace {

// The normalised form of `raw`, or the reason it is malformed.
Result<std::string> NormalizeTag(std::string_view raw) {
  std::string tag = AsciiLower(Trim(raw));
  if (tag.empty()) return Status::InvalidArgument("search tag must be a non-empty k=v string");
  const size_t eq = tag.find('=');
  if (eq == std::string::npos || tag.find('=', eq + 1) != std::string::npos) {
    return Status::InvalidArgument(
        fmt::format("invalid search tag '{}': expected strict k=v format", raw));
  }
  if (eq == 0 || eq + 1 == tag.size()) {
    return Status::InvalidArgument(
        fmt::format("invalid search tag '{}': key and value must both be non-empty", raw));
  }
  return tag;
}

std::string_view KeyOf(std::string_view tag) { return tag.substr(0, tag.find('=')); }

// Normalised tags, one per key (a later value replaces an earlier one's,
// at its position), found by key in constant time.
class KeyedTags {
 public:
  void Put(std::string tag) {
    std::string key(KeyOf(tag));
    auto [it, added] = index_.try_emplace(std::move(key), tags_.size());
    if (added) {
      tags_.push_back(std::move(tag));
    } else {
      tags_[it->second] = std::move(tag);
    }
  }
  std::vector<std::string> Take() { return std::move(tags_); }

 private:
  std::vector<std::string> tags_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace

Result<TagMode> ParseTagMode(std::string_view mode) {
  if (mode == "replace") return TagMode::kReplace;
  if (mode == "append") return TagMode::kAppend;
  return Status::InvalidArgument(fmt::format("unsupported tag mode: {}", mode));
}

std::string_view TagModeName(TagMode mode) {
  return mode == TagMode::kAppend ? "append" : "replace";
}

Result<std::vector<std::string>> NormalizeTags(std::span<const std::string> tags) {
  KeyedTags out;
  for (const std::string& raw : tags) {
    SKALD_ASSIGN_OR_RETURN(std::string tag, NormalizeTag(raw));
    out.Put(std::move(tag));
  }
  return out.Take();
}

std::vector<std::string> NormalizeTagsLeniently(std::span<const std::string> tags) {
  KeyedTags out;
  for (const std::string& raw : tags) {
    Result<std::string> tag = NormalizeTag(raw);
    if (tag.ok()) out.Put(std::move(*tag));
  }
  return out.Take();
}

std::vector<std::string> MergeTags(std::span<const std::string> existing,
                                   std::span<const std::string> incoming) {
  KeyedTags out;
  for (std::span<const std::string> side : {existing, incoming}) {
    for (const std::string& raw : side) {
      Result<std::string> tag = NormalizeTag(raw);
      if (tag.ok()) out.Put(std::move(*tag));
    }
  }
  return out.Take();
}

std::vector<std::string> ApplyTags(std::span<const std::string> existing,
                                   std::span<const std::string> incoming, TagMode mode) {
  if (mode == TagMode::kAppend) return MergeTags(existing, incoming);
  return NormalizeTagsLeniently(incoming);
}

}  // namespace skald
