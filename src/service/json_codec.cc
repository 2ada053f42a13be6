#include "service/json_codec.h"

#include <string>

#include "common/time_util.h"

namespace skald {
namespace {

std::string_view WriteModeName(WriteMode mode) {
  switch (mode) {
    case WriteMode::kReplace: return "replace";
    case WriteMode::kAppend: return "append";
    case WriteMode::kCreate: return "create";
  }
  return "replace";
}

}  // namespace

Json LsEntryToJson(const LsEntry& entry, LsOutput output, bool with_rel_path) {
  const NodeInfo& node = entry.node;
  Json out = Json::object();
  if (output == LsOutput::kAgent) {
    out["uri"] = node.uri;
    out["size"] = node.is_dir ? 0 : node.size;
    out["isDir"] = node.is_dir;
    out["modTime"] = FormatIsoMillis(node.mtime_ns);
    out["abstract"] = node.is_dir ? entry.abstract : std::string();
  } else {
    out["name"] = node.name;
    out["size"] = node.is_dir ? 0 : node.size;
    out["mode"] = node.mode;
    out["modTime"] = FormatRfc3339(node.mtime_ns);
    out["isDir"] = node.is_dir;
    out["uri"] = node.uri;
  }
  if (with_rel_path) out["rel_path"] = entry.rel_path;
  return out;
}

Json LsToJson(const std::vector<LsEntry>& entries, LsOutput output, bool simple,
              bool with_rel_path) {
  Json out = Json::array();
  for (const LsEntry& entry : entries) {
    if (simple) {
      out.push_back(entry.node.uri);
    } else {
      out.push_back(LsEntryToJson(entry, output, with_rel_path));
    }
  }
  return out;
}

Json StatToJson(const NodeInfo& node) {
  Json out = Json::object();
  out["name"] = node.name;
  out["size"] = node.is_dir ? 0 : node.size;
  out["mode"] = node.mode;
  out["modTime"] = FormatRfc3339(node.mtime_ns);
  out["isDir"] = node.is_dir;
  out["isLocked"] = node.is_locked;
  out["uri"] = node.uri;
  return out;
}

Json RmToJson(const RmResult& result) {
  Json out = Json::object();
  out["uri"] = result.uri;
  out["estimated_deleted_count"] = result.deleted_count;
  return out;
}

Json MvToJson(const MvResult& result) {
  Json out = Json::object();
  out["from"] = result.from;
  out["to"] = result.to;
  return out;
}

Json WriteToJson(const WriteResult& result) {
  Json out = Json::object();
  out["uri"] = result.uri;
  out["root_uri"] = result.root_uri;
  out["context_type"] = std::string(ContextTypeName(result.context_type));
  out["mode"] = std::string(WriteModeName(result.mode));
  out["written_bytes"] = result.written_bytes;
  out["content_updated"] = result.content_updated;
  out["semantic_status"] = result.semantic_status;
  out["vector_status"] = result.vector_status;
  return out;
}

Json GlobToJson(const GlobResult& result) {
  Json out = Json::object();
  out["matches"] = result.matches;
  out["count"] = result.matches.size();
  return out;
}

Json GrepToJson(const GrepResult& result) {
  Json matches = Json::array();
  for (const GrepMatch& match : result.matches) {
    matches.push_back({{"uri", match.uri}, {"line", match.line}, {"content", match.content}});
  }
  Json out = Json::object();
  out["matches"] = std::move(matches);
  out["count"] = result.matches.size();
  out["match_count"] = result.match_count;
  out["files_scanned"] = result.files_scanned;
  return out;
}

Json FsckToJson(const FsckReport& report) {
  Json issues = Json::array();
  for (const FsckIssue& issue : report.issues) {
    issues.push_back({{"kind", issue.kind},
                      {"account", issue.account},
                      {"uri", issue.uri},
                      {"detail", issue.detail},
                      {"repaired", issue.repaired}});
  }
  Json out = Json::object();
  out["nodes_checked"] = report.nodes_checked;
  out["clean"] = report.clean();
  out["issues"] = std::move(issues);
  return out;
}

std::string WireErrorCode(const Status& status) {
  if (!status.reason().empty()) return status.reason();
  switch (status.code()) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kNotFound: return "NOT_FOUND";
    case StatusCode::kInvalidArgument: return "INVALID_ARGUMENT";
    // OpenViking's file system reports an existing target as a conflict
    // (RAGFS AlreadyExists -> ConflictError), e.g. mkdir on an existing dir.
    case StatusCode::kAlreadyExists: return "CONFLICT";
    case StatusCode::kPermissionDenied: return "PERMISSION_DENIED";
    case StatusCode::kUnauthenticated: return "UNAUTHENTICATED";
    case StatusCode::kFailedPrecondition: return "FAILED_PRECONDITION";
    case StatusCode::kConflict: return "CONFLICT";
    case StatusCode::kCorruption: return "INTERNAL";
    case StatusCode::kIOError: return "INTERNAL";
    case StatusCode::kUnavailable: return "UNAVAILABLE";
    case StatusCode::kDeadlineExceeded: return "DEADLINE_EXCEEDED";
    case StatusCode::kResourceExhausted: return "RESOURCE_EXHAUSTED";
    case StatusCode::kInternal: return "INTERNAL";
  }
  return "UNKNOWN";
}

Json ErrorToJson(const Status& status) {
  Json details = Json::object();
  for (const auto& [key, value] : status.details()) details[key] = value;
  Json out = Json::object();
  out["code"] = WireErrorCode(status);
  out["message"] = status.message();
  out["details"] = std::move(details);
  return out;
}

}  // namespace skald
