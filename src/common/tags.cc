#include "common/tags.h"

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

// Adds normalised `tag` to `out`, replacing the value of a tag with its key.
void PutKeyed(std::string tag, std::vector<std::string>* out) {
  const std::string_view key = KeyOf(tag);
  for (std::string& have : *out) {
    if (KeyOf(have) == key) {
      have = std::move(tag);
      return;
    }
  }
  out->push_back(std::move(tag));
}

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
  std::vector<std::string> out;
  for (const std::string& raw : tags) {
    SKALD_ASSIGN_OR_RETURN(std::string tag, NormalizeTag(raw));
    PutKeyed(std::move(tag), &out);
  }
  return out;
}

std::vector<std::string> NormalizeTagsLeniently(std::span<const std::string> tags) {
  std::vector<std::string> out;
  for (const std::string& raw : tags) {
    Result<std::string> tag = NormalizeTag(raw);
    if (tag.ok()) PutKeyed(std::move(*tag), &out);
  }
  return out;
}

std::vector<std::string> MergeTags(std::span<const std::string> existing,
                                   std::span<const std::string> incoming) {
  std::vector<std::string> out = NormalizeTagsLeniently(existing);
  for (std::string& tag : NormalizeTagsLeniently(incoming)) PutKeyed(std::move(tag), &out);
  return out;
}

std::vector<std::string> ApplyTags(std::span<const std::string> existing,
                                   std::span<const std::string> incoming, TagMode mode) {
  if (mode == TagMode::kAppend) return MergeTags(existing, incoming);
  return NormalizeTagsLeniently(incoming);
}

}  // namespace skald
