#include "service/json_codec.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <string>

#include "common/strings.h"
#include "common/time_util.h"
#include "ingest/skill_definition.h"

namespace skald {
namespace {

std::string_view WriteModeName(WriteMode mode) {
  switch (mode) {
    case WriteMode::kReplace:
      return "replace";
    case WriteMode::kAppend:
      return "append";
    case WriteMode::kCreate:
      return "create";
  }
  return "replace";
}

double FiniteOrZero(double value) { return std::isfinite(value) ? value : 0.0; }

// Seconds since the epoch as a float (Python's time.time() style).
double EpochSeconds(int64_t nanos) { return static_cast<double>(nanos) / 1e9; }

// "2026-01-02T03:04:05.123456+00:00": Python's isoformat() of an aware UTC datetime.
std::string IsoMicros(int64_t nanos) {
  int64_t secs = nanos / 1000000000;
  int64_t rem = nanos % 1000000000;
  if (rem < 0) {
    rem += 1000000000;
    --secs;
  }
  // FormatRfc3339 gives the calendar part (whole seconds); the micros come from `rem`.
  std::string base = FormatRfc3339(secs * 1000000000);  // "YYYY-MM-DDTHH:MM:SSZ"
  base.pop_back();
  return fmt::format("{}.{:06}+00:00", base, rem / 1000);
}

// ---- time bounds ---------------------------------------------------------------

constexpr int64_t kNanosPerSecond = 1000000000;

// Reads exactly `width` decimal digits at s[*pos]; advances *pos.
bool ReadDigits(std::string_view s, size_t* pos, size_t width, int* out) {
  if (*pos + width > s.size()) return false;
  int value = 0;
  for (size_t i = 0; i < width; ++i) {
    char c = s[*pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *pos += width;
  *out = value;
  return true;
}

// "30s", "15m", "2h", "7d", "2w" -> that many nanoseconds.
bool ParseRelativeAge(std::string_view s, int64_t* out) {
  if (s.size() < 2) return false;
  int64_t unit = 0;
  switch (s.back()) {
    case 's':
      unit = kNanosPerSecond;
      break;
    case 'm':
      unit = 60 * kNanosPerSecond;
      break;
    case 'h':
      unit = 3600 * kNanosPerSecond;
      break;
    case 'd':
      unit = 86400 * kNanosPerSecond;
      break;
    case 'w':
      unit = 7 * 86400 * kNanosPerSecond;
      break;
    default:
      return false;
  }
  long long count = 0;
  std::string_view digits = s.substr(0, s.size() - 1);
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
  }
  if (!ParseInt64(digits, &count) || count < 0) return false;
  // Ages beyond ~290 years would overflow; nobody means them.
  if (count > (int64_t{1} << 62) / unit) return false;
  *out = count * unit;
  return true;
}

// "YYYY-MM-DD[(T| )HH:MM[:SS[.frac]][Z|(+|-)HH[:]MM]]" -> ns since the epoch.
bool ParseIsoDateTime(std::string_view s, bool end_of_day, int64_t* out) {
  size_t pos = 0;
  int year = 0;
  int month = 0;
  int day = 0;
  if (!ReadDigits(s, &pos, 4, &year) || pos >= s.size() || s[pos++] != '-' ||
      !ReadDigits(s, &pos, 2, &month) || pos >= s.size() || s[pos++] != '-' ||
      !ReadDigits(s, &pos, 2, &day)) {
    return false;
  }
  const std::chrono::year_month_day date{std::chrono::year{year},
                                         std::chrono::month{static_cast<unsigned>(month)},
                                         std::chrono::day{static_cast<unsigned>(day)}};
  if (!date.ok()) return false;
  const int64_t days = std::chrono::sys_days(date).time_since_epoch().count();
  const int64_t midnight = days * 86400 * kNanosPerSecond;
  if (pos == s.size()) {
    *out = end_of_day ? midnight + 86400 * kNanosPerSecond - 1 : midnight;
    return true;
  }
  if (s[pos] != 'T' && s[pos] != 't' && s[pos] != ' ') return false;
  ++pos;
  int hour = 0;
  int minute = 0;
  int second = 0;
  int64_t fraction_ns = 0;
  if (!ReadDigits(s, &pos, 2, &hour) || pos >= s.size() || s[pos++] != ':' ||
      !ReadDigits(s, &pos, 2, &minute)) {
    return false;
  }
  if (pos < s.size() && s[pos] == ':') {
    ++pos;
    if (!ReadDigits(s, &pos, 2, &second)) return false;
    if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
      ++pos;
      int64_t scale = kNanosPerSecond / 10;
      size_t start = pos;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
        fraction_ns += (s[pos] - '0') * scale;
        scale /= 10;
        ++pos;
      }
      if (pos == start) return false;
    }
  }
  if (hour > 23 || minute > 59 || second > 60) return false;  // 60: a leap second
  int64_t offset_seconds = 0;
  if (pos < s.size()) {
    char sign = s[pos++];
    if (sign == 'Z' || sign == 'z') {
      if (pos != s.size()) return false;
    } else if (sign == '+' || sign == '-') {
      int off_h = 0;
      int off_m = 0;
      if (!ReadDigits(s, &pos, 2, &off_h)) return false;
      if (pos < s.size() && s[pos] == ':') ++pos;
      if (!ReadDigits(s, &pos, 2, &off_m) || pos != s.size() || off_h > 23 || off_m > 59) {
        return false;
      }
      offset_seconds = (off_h * 3600 + off_m * 60) * (sign == '-' ? -1 : 1);
    } else {
      return false;
    }
  }
  const int64_t seconds = int64_t{hour} * 3600 + minute * 60 + second - offset_seconds;
  *out = midnight + seconds * kNanosPerSecond + fraction_ns;
  return true;
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
  if (entry.tags) out["tags"] = *entry.tags;
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

Json WriteToJson(const WriteResult& result, bool waited) {
  Json out = WriteToJson(result);
  if (!waited) {
    if (!result.task_id.empty()) out["task_id"] = result.task_id;
    return out;
  }
  out["queue_status"] = QueueStatusJson(result.vector_status == "completed");
  return out;
}

namespace {

constexpr std::string_view kEntryFieldNames[] = {"uri",   "name",     "size", "mode", "modTime",
                                                 "isDir", "rel_path", "tags", "type"};

// The value of one EntryFieldNames() field of `entry`.
Json EntryField(const LsEntry& entry, std::string_view name) {
  const NodeInfo& node = entry.node;
  if (name == "uri") return node.uri;
  if (name == "name") return node.name;
  if (name == "size") return node.is_dir ? 0 : node.size;
  if (name == "mode") return node.mode;
  if (name == "modTime") return FormatRfc3339(node.mtime_ns);
  if (name == "isDir") return node.is_dir;
  if (name == "rel_path") return entry.rel_path;
  if (name == "tags") return entry.tags.value_or(std::vector<std::string>());
  return node.is_dir ? "directory" : "file";  // "type"
}

}  // namespace

std::span<const std::string_view> EntryFieldNames() { return kEntryFieldNames; }

Json GlobToJson(const GlobResult& result, const std::optional<std::vector<std::string>>& fields) {
  Json matches = Json::array();
  for (const LsEntry& entry : result.matches) {
    if (!fields) {
      matches.push_back(entry.node.uri);
      continue;
    }
    Json match = {{"uri", entry.node.uri}};
    for (const std::string& name : *fields) match[name] = EntryField(entry, name);
    if (entry.tags) match["tags"] = *entry.tags;
    matches.push_back(std::move(match));
  }
  Json out = Json::object();
  out["count"] = matches.size();
  out["matches"] = std::move(matches);
  return out;
}

Json GrepToJson(const GrepResult& result) {
  Json matches = Json::array();
  for (const GrepMatch& match : result.matches) {
    Json item = {{"uri", match.uri}, {"line", match.line}, {"content", match.content}};
    if (match.tags) item["tags"] = *match.tags;
    matches.push_back(std::move(item));
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

Json MatchedContextToJson(const MatchedContext& hit) {
  Json out = Json::object();
  out["context_type"] = std::string(ContextTypeName(hit.context_type));
  out["uri"] = hit.uri;
  out["level"] = hit.level;
  out["score"] = FiniteOrZero(hit.score);
  out["abstract"] = hit.abstract;
  out["tags"] = hit.tags;
  if (!hit.match_reason.empty()) out["match_reason"] = hit.match_reason;
  return out;
}

Json FindResultToJson(const FindResult& result, bool with_provenance) {
  auto hits = [](const std::vector<MatchedContext>& list) {
    Json out = Json::array();
    for (const MatchedContext& hit : list) out.push_back(MatchedContextToJson(hit));
    return out;
  };
  Json out = Json::object();
  out["memories"] = hits(result.memories);
  out["resources"] = hits(result.resources);
  out["skills"] = hits(result.skills);
  out["total"] = result.total();
  if (with_provenance && result.trace.has_value()) {
    const RetrievalTrace& t = *result.trace;
    Json trace = Json::object();
    trace["mode"] = t.mode;
    trace["directories_visited"] = t.directories_visited;
    Json trajectory = Json::array();
    for (size_t i = 0; i < t.directories_visited.size(); ++i) {
      const double score = i < t.directory_scores.size() ? t.directory_scores[i] : 0.0;
      trajectory.push_back({{"uri", t.directories_visited[i]}, {"score", FiniteOrZero(score)}});
    }
    trace["trajectory"] = std::move(trajectory);
    trace["rounds"] = t.rounds;
    trace["stop_reason"] = t.stop_reason;
    trace["candidates_kept"] = t.candidates_kept;
    trace["candidates_dropped"] = t.candidates_dropped;
    trace["reranked"] = t.reranked;
    if (!t.rerank_warning.empty()) trace["rerank_warning"] = t.rerank_warning;
    trace["latency_ms"] = FiniteOrZero(t.latency_ms);
    out["provenance"] = std::move(trace);
  }
  return out;
}

namespace {

Json QueryPlanToJson(const QueryPlan& plan) {
  Json queries = Json::array();
  for (const TypedQuery& q : plan.queries) {
    queries.push_back({{"query", q.query},
                       {"context_type", q.context_type.empty() ? Json() : Json(q.context_type)},
                       {"intent", q.intent},
                       {"priority", q.priority}});
  }
  return {{"reasoning", plan.reasoning}, {"queries", queries}};
}

}  // namespace

Json SearchResultToJson(const SearchResult& result, bool with_provenance) {
  Json out = FindResultToJson(result.found, with_provenance);
  out["query_plan"] = QueryPlanToJson(result.query_plan);
  return out;
}

Json ContextResultToJson(const ContextResult& result) {
  Json entries = Json::array();
  for (const ContextEntry& e : result.entries) {
    Json origin = {{"type", e.origin.type}};
    if (!e.origin.session_id.empty()) origin["session_id"] = e.origin.session_id;
    if (!e.origin.speaker.empty()) origin["speaker"] = e.origin.speaker;
    if (!e.origin.time.empty()) origin["time"] = e.origin.time;
    if (!e.origin.message_ids.empty()) origin["message_ids"] = e.origin.message_ids;
    entries.push_back({{"uri", e.uri},
                       {"category", e.category},
                       {"score", FiniteOrZero(e.score)},
                       {"detail", e.detail},
                       {"text", e.text},
                       {"origin", origin}});
  }
  const ContextStats& s = result.stats;
  return {{"entries", entries},
          {"rendered", result.rendered},
          {"digest", result.digest},
          {"stats",
           {{"candidates", s.candidates},
            {"entries", s.entries},
            {"tokens", s.tokens},
            {"max_tokens", s.max_tokens},
            {"left_out", s.left_out},
            {"over_quota", s.over_quota},
            {"excluded", s.excluded},
            {"repeated_lines", s.repeated_lines},
            // The same counts under OpenViking's names.
            {"returned", s.entries},
            {"used_tokens", s.tokens},
            {"dropped", s.left_out}}},
          {"query_plan", QueryPlanToJson(result.query_plan)}};
}

Json TaskInfoToJson(const TaskInfo& task) {
  Json out = Json::object();
  out["task_id"] = task.task_id;
  out["task_type"] = task.task_type;
  out["status"] = TaskStateName(task.status);
  out["created_at"] = EpochSeconds(task.created_ns);
  out["updated_at"] = EpochSeconds(task.updated_ns);
  out["created_at_iso"] = IsoMicros(task.created_ns);
  out["updated_at_iso"] = IsoMicros(task.updated_ns);
  out["resource_id"] = task.resource_id;
  out["meta"] = Json::object();
  out["stage"] = task.stage;
  Json result(nullptr);
  if (!task.result_json.empty()) {
    // A stored result that does not parse is shown as text rather than lost.
    Result<Json> parsed = ParseJson(task.result_json);
    result = parsed.ok() ? std::move(parsed).value() : Json(task.result_json);
  }
  out["result"] = std::move(result);
  out["error"] = task.error.empty() ? Json(nullptr) : Json(task.error);
  return out;
}

Json AddResourceResultToJson(const AddResourceResult& result, bool waited) {
  Json out = Json::object();
  out["status"] = "success";
  out["root_uri"] = result.root_uri;
  out["temp_uri"] = "";
  out["source_path"] = result.source_path;
  out["meta"] = Json::object();
  out["errors"] = result.errors;
  if (!result.warnings.empty()) out["warnings"] = result.warnings;
  if (waited) out["queue_status"] = QueueStatusJson(result.task_status == TaskState::kCompleted);
  // Without wait, or when the wait timed out: the task to follow.
  if (!waited || !result.task_id.empty()) out["task_id"] = result.task_id;
  return out;
}

Json ReindexResultToJson(const ReindexResult& result) {
  const bool completed = result.task_status == TaskState::kCompleted;
  Json out = {{"status", completed ? "completed" : "accepted"},
              {"uri", result.uri},
              {"object_type", result.object_type},
              {"mode", result.mode},
              {"scanned_records", result.scanned_records},
              {"rebuilt_records", result.rebuilt_records},
              {"deleted_records", result.deleted_records},
              {"would_delete_records", result.would_delete_records},
              {"unsupported_records", result.unsupported_records},
              {"failed_records", result.failed_records},
              {"duration_ms", result.duration_ms},
              {"warnings", result.warnings}};
  if (!result.task_id.empty()) out["task_id"] = result.task_id;
  return out;
}

Json SkillResultToJson(const SkillResult& result, bool waited) {
  Json out = {{"status", "success"},
              {"root_uri", result.root_uri},
              {"uri", result.uri},
              {"name", result.name},
              {"auxiliary_files", result.auxiliary_files}};
  if (waited) out["queue_status"] = QueueStatusJson(result.task_status == TaskState::kCompleted);
  if (!waited || !result.task_id.empty()) out["task_id"] = result.task_id;
  // Every skill installed (a source may hold several; the fields above
  // are the first's).
  if (!result.installed.empty()) out["installed"] = result.installed;
  return out;
}

std::string_view SkillFileKindName(SkillFileKind kind) {
  switch (kind) {
    case SkillFileKind::kDefinition:
      return "definition";
    case SkillFileKind::kSummary:
      return "summary";
    case SkillFileKind::kAuxiliary:
      return "auxiliary";
    case SkillFileKind::kDirectory:
      return "directory";
  }
  return "auxiliary";
}

Json SkillInfoToJson(const SkillInfo& skill, const SkillFields& fields) {
  // OpenViking names a skill by its directory twice: `uri` and `root_uri`.
  Json out = {{"type", "skill"},
              {"name", skill.name},
              {"uri", skill.uri},
              {"root_uri", skill.uri},
              {"skill_md_uri", skill.uri + "/SKILL.md"},
              {"description", skill.description},
              {"tags", skill.tags},
              {"allowed_tools", skill.allowed_tools}};
  if (fields.abstract) out["abstract"] = skill.abstract;
  if (fields.read.overview) out["overview"] = skill.overview;
  if (fields.read.content) {
    out["content"] = skill.content;
    out["content_sha256"] = skill.content_sha256;
  }
  if (fields.read.files) {
    out["files"] = Json::array();
    for (const SkillFile& f : skill.files) {
      Json file = {{"name", f.name},
                   {"uri", f.uri},
                   {"path", f.path},
                   {"is_dir", f.is_dir},
                   {"kind", SkillFileKindName(f.kind)}};
      if (f.size) {
        file["size"] = *f.size;
        file["sha256"] = f.sha256;
      }
      out["files"].push_back(std::move(file));
    }
    if (!skill.revision.empty()) out["revision"] = skill.revision;
  }
  if (fields.read.source) {
    Json source = Json::parse(skill.source_json, nullptr, /*allow_exceptions=*/false);
    if (skill.source_json.empty() || !source.is_object()) {
      out["source"] = {
          {"tracked", false},
          {"message", skill.source_json.empty() ? "Skill source metadata is not tracked yet."
                                                : "Skill source metadata is invalid."}};
    } else {
      source["tracked"] = true;
      source["metadata_uri"] = skill.uri + "/" + std::string(kSkillSourceFile);
      out["source"] = std::move(source);
    }
  }
  return out;
}

Json SkillValidationToJson(const SkillValidationReport& report) {
  auto issues = [](const std::vector<SkillIssue>& list) {
    Json out = Json::array();
    for (const SkillIssue& i : list) {
      Json issue = {{"rule", i.rule}, {"message", i.message}};
      if (!i.field.empty()) issue["field"] = i.field;
      out.push_back(std::move(issue));
    }
    return out;
  };
  return {{"valid", report.valid},
          {"strict", report.strict},
          {"name", report.name},
          {"description", report.description},
          {"tags", report.tags},
          {"allowed_tools", report.allowed_tools},
          {"body_lines", report.body_lines},
          {"source_path", report.source_path},
          {"skill_dir_name", report.skill_dir_name},
          {"errors", issues(report.errors)},
          {"warnings", issues(report.warnings)}};
}

Result<int64_t> ParseTimeBound(std::string_view text, int64_t now_ns, bool end_of_day) {
  std::string_view s = Trim(text);
  int64_t age = 0;
  if (ParseRelativeAge(s, &age)) return now_ns - age;
  int64_t at = 0;
  if (ParseIsoDateTime(s, end_of_day, &at)) return at;
  return Status::InvalidArgument(
      fmt::format("invalid time '{}': use a relative age such as 30m, 2h, 7d or 2w, a date "
                  "YYYY-MM-DD, or an ISO 8601 time such as 2026-01-31T12:00:00Z",
                  text));
}

std::string WireErrorCode(const Status& status) {
  if (!status.reason().empty()) return status.reason();
  switch (status.code()) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kNotFound:
      return "NOT_FOUND";
    case StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    // OpenViking's file system reports an existing target as a conflict
    // (RAGFS AlreadyExists -> ConflictError), e.g. mkdir on an existing dir.
    case StatusCode::kAlreadyExists:
      return "CONFLICT";
    case StatusCode::kPermissionDenied:
      return "PERMISSION_DENIED";
    case StatusCode::kUnauthenticated:
      return "UNAUTHENTICATED";
    case StatusCode::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case StatusCode::kConflict:
      return "CONFLICT";
    case StatusCode::kCorruption:
      return "INTERNAL";
    case StatusCode::kIOError:
      return "INTERNAL";
    case StatusCode::kUnavailable:
      return "UNAVAILABLE";
    case StatusCode::kDeadlineExceeded:
      return "DEADLINE_EXCEEDED";
    case StatusCode::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case StatusCode::kInternal:
      return "INTERNAL";
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
