// Search routes (reference §2.4). glob and grep need no model and ignore
// unknown body fields; find and search (list mode) run Db::Find and forbid
// unknown fields (extra="forbid").

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <initializer_list>
#include <limits>
#include <span>
#include <string_view>

#include "common/strings.h"
#include "common/tags.h"
#include "common/time_util.h"
#include "server/routes.h"
#include "server/search_filter.h"
#include "service/json_codec.h"

namespace skald::server {
namespace {

// Ceilings of grep and glob (the values OpenViking's search-bounds change
// uses): a match list or a walk that large is not an answer.
constexpr int64_t kMaxNodeLimit = 10'000;
constexpr int64_t kMaxLevelLimit = 32;

// `node_limit: Optional[int] = 256`: null means "no limit"; at most
// kMaxNodeLimit otherwise.
int NodeLimit(const std::optional<int64_t>& value, ValidationErrors* errors) {
  if (!value.has_value()) return std::numeric_limits<int>::max();
  errors->CheckAtMost("body", "node_limit", *value, kMaxNodeLimit);
  return ClampToInt(*value);
}

// ---- shared body fields -----------------------------------------------------

void AddFieldError(ValidationErrors* errors, std::string_view name, std::string message,
                   std::string type) {
  errors->Add({"body", std::string(name)}, std::move(message), std::move(type));
}

// `str | list[str]` (a string becomes a one-element list; "" an empty one).
// Absent or null -> empty.
std::vector<std::string> StringOrList(const Json& body, std::string_view name,
                                      ValidationErrors* errors) {
  std::vector<std::string> out;
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return out;
  if (it->is_string()) {
    if (!it->get_ref<const std::string&>().empty()) out.push_back(it->get<std::string>());
    return out;
  }
  if (it->is_array()) {
    for (const Json& item : *it) {
      if (!item.is_string()) {
        AddFieldError(errors, name, "Input should be a valid string or a list of strings",
                      "string_type");
        return {};
      }
      if (!item.get_ref<const std::string&>().empty()) out.push_back(item.get<std::string>());
    }
    return out;
  }
  AddFieldError(errors, name, "Input should be a valid string or a list of strings", "string_type");
  return out;
}

// `level: int | str | list[int]`; a string may list levels with commas ("0,1").
std::vector<int> Levels(const Json& body, ValidationErrors* errors) {
  std::vector<int> out;
  auto it = body.find("level");
  if (it == body.end() || it->is_null()) return out;
  auto bad = [&] {
    AddFieldError(errors, "level",
                  "Input should be an integer, a list of integers or a string such as \"0,1\"",
                  "int_type");
    return std::vector<int>();
  };
  auto add_int = [&](const Json& v) {
    if (!v.is_number_integer()) return false;
    out.push_back(ClampToInt(v.get<int64_t>()));
    return true;
  };
  if (it->is_number_integer()) {
    add_int(*it);
  } else if (it->is_array()) {
    for (const Json& v : *it) {
      if (!add_int(v)) return bad();
    }
  } else if (it->is_string()) {
    for (const std::string& piece : Split(it->get_ref<const std::string&>(), ',')) {
      long long level = 0;
      if (!ParseInt64(Trim(piece), &level)) return bad();
      out.push_back(ClampToInt(level));
    }
  } else {
    return bad();
  }
  return out;
}

// "k=v" tags: `tags: list[str]` (a comma-separated string is accepted too).
std::vector<std::string> Tags(const Json& body, ValidationErrors* errors) {
  std::vector<std::string> tags;
  auto it = body.find("tags");
  if (it != body.end() && it->is_string()) {
    for (const std::string& piece : Split(it->get_ref<const std::string&>(), ',')) {
      if (!Trim(piece).empty()) tags.emplace_back(Trim(piece));
    }
  } else {
    tags = StringOrList(body, "tags", errors);
  }
  errors->CheckTagList("tags", tags);
  if (!errors->empty()) return {};
  // Normalised (trimmed, lower-cased, one value per key); a malformed tag
  // is an error here, where it would silently match nothing.
  Result<std::vector<std::string>> normalized = NormalizeTags(tags);
  if (!normalized.ok()) {
    AddFieldError(errors, "tags", normalized.status().message(), "value_error");
    return {};
  }
  return std::move(*normalized);
}

// ---- glob / grep ------------------------------------------------------------

// glob's `extra_fields: Optional[list[str]]`: the names of EntryFieldNames()
// it holds; other names are left out of the answer, as `fs/ls` leaves them
// (`ov glob -f` sends whatever columns its user names). Absent or null ->
// nullopt; not a list of strings -> a validation error.
std::optional<std::vector<std::string>> ExtraFields(const Json& body, BodyReader& b) {
  auto it = body.find("extra_fields");
  if (it == body.end() || it->is_null()) return std::nullopt;
  std::optional<std::vector<std::string>> fields = b.StringList("extra_fields", false);
  if (!fields) return std::nullopt;
  const std::span<const std::string_view> known = EntryFieldNames();
  std::erase_if(*fields, [&](const std::string& name) {
    return std::find(known.begin(), known.end(), name) == known.end();
  });
  return fields;
}

// Body {pattern, uri="viking://", node_limit=256, tags?, include_tags=false,
// extra_fields?}. Matches are URI strings unless extra_fields or include_tags
// asks for objects.
void Glob(Call& call) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  GlobRequest request;
  request.pattern = b.RequiredString("pattern");
  request.uri = b.String("uri", "viking://");
  request.node_limit = NodeLimit(b.NullableInt("node_limit", 256), &errors);
  request.tags = Tags(*body, &errors);
  request.include_tags = b.Bool("include_tags", false);
  std::optional<std::vector<std::string>> fields = ExtraFields(*body, b);
  if (!errors.empty()) return call.FailValidation(errors);
  if (fields && std::find(fields->begin(), fields->end(), "tags") != fields->end()) {
    request.include_tags = true;
  }
  if (request.include_tags && !fields) fields.emplace();

  Result<GlobResult> result = call.db().Glob(call.who(), request);
  if (!result.ok()) return call.Fail(result.status());
  call.Ok(GlobToJson(*result, fields));
}

// Body {uri, pattern, exclude_uri?, case_insensitive=false, node_limit=256, level_limit=10,
// tags?, include_tags=false}.
void Grep(Call& call) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  GrepRequest request;
  request.uri = b.RequiredString("uri");
  request.exclude_uri = b.OptionalString("exclude_uri").value_or("");
  request.pattern = b.RequiredString("pattern");
  request.case_insensitive = b.Bool("case_insensitive", false);
  request.node_limit = NodeLimit(b.NullableInt("node_limit", 256), &errors);
  request.level_limit = ClampToInt(b.Int("level_limit", 10));
  errors.CheckAtMost("body", "level_limit", request.level_limit, kMaxLevelLimit);
  request.tags = Tags(*body, &errors);
  request.include_tags = b.Bool("include_tags", false);
  if (!errors.empty()) return call.FailValidation(errors);

  Result<GrepResult> result = call.db().Grep(call.who(), request);
  if (!result.ok()) return call.Fail(result.status());
  call.Ok(GrepToJson(*result));
}

// ---- find / search ----------------------------------------------------------

// Fields find and search share.
struct FindBody {
  FindRequest request;
  std::optional<std::string> image_url;
  bool telemetry = false;
  bool telemetry_summary = false;
  // `read_content`: each hit also carries its file's text (list mode only).
  bool read_content = false;
};

// Reads the fields common to find and search into `out`; problems go to `errors`.
void ReadFindFields(const Json& body, BodyReader& b, ValidationErrors* errors, FindBody* out) {
  FindRequest& r = out->request;
  r.query = b.String("query", "");
  out->image_url = b.OptionalString("image_url");
  r.target_uris = StringOrList(body, "target_uri", errors);
  r.context_types = StringOrList(body, "context_type", errors);
  const int64_t limit = b.Int("limit", 10);
  const std::optional<int64_t> node_limit = b.NullableInt("node_limit", std::nullopt);
  r.limit = ClampToInt(node_limit.value_or(limit));
  r.score_threshold = b.OptionalFloat("score_threshold");
  r.include_provenance = b.Bool("include_provenance", false);
  r.tags = Tags(body, errors);
  r.levels = Levels(body, errors);
  r.time_field =
      b.OptionalLiteral("time_field", {"updated_at", "created_at"}).value_or("updated_at");
  const int64_t now = NowNanos();
  for (const char* name : {"since", "until"}) {
    std::optional<std::string> text = b.OptionalString(name);
    if (!text.has_value()) continue;
    const bool is_until = std::string_view(name) == "until";
    Result<int64_t> at = ParseTimeBound(*text, now, /*end_of_day=*/is_until);
    if (!at.ok()) {
      AddFieldError(errors, name, at.status().message(), "value_error");
      continue;
    }
    (is_until ? r.until_ns : r.since_ns) = *at;
  }
  if (auto it = body.find("filter"); it != body.end() && !it->is_null() && !it->is_object()) {
    AddFieldError(errors, "filter", "Input should be a valid dictionary", "dict_type");
  }
  out->telemetry = b.Telemetry("telemetry", &out->telemetry_summary);
  out->read_content = b.Bool("read_content", false);
  // Skald's extension: QUICK or THINKING for this call (default: retrieval.mode).
  if (std::optional<std::string> mode =
          b.OptionalLiteral("retrieval_mode", {"auto", "quick", "thinking"})) {
    r.mode = ParseRetrievalMode(*mode).value_or(RetrievalMode::kAuto);
  }
}

// `read_content` bounds: a hit's text is cut at 256 KiB, and once the
// answer holds 4 MiB of content the remaining hits get none; either way the
// hit says "content_truncated": true.
constexpr size_t kMaxHitContentBytes = 256 << 10;
constexpr size_t kMaxContentBytes = 4 << 20;

// `read_content`: every hit of `result` (find's shape) whose URI is a file the
// caller may read gets its text as `content`; directories and unreadable hits
// are left as they are (OpenViking skips the hits it cannot read).
void AttachHitContent(Call& call, Json* result) {
  size_t total = 0;
  for (const char* group : {"memories", "resources", "skills"}) {
    auto hits = result->find(group);
    if (hits == result->end() || !hits->is_array()) continue;
    for (Json& hit : *hits) {
      auto uri = hit.find("uri");
      if (uri == hit.end() || !uri->is_string()) continue;
      if (total >= kMaxContentBytes) {
        hit["content_truncated"] = true;
        continue;
      }
      Result<std::string> text = call.db().Read(call.who(), uri->get<std::string>(), 0, -1, /*raw=*/false);
      if (!text.ok()) continue;
      const size_t cap = std::min(kMaxHitContentBytes, kMaxContentBytes - total);
      if (text->size() > cap) {
        text->resize(TruncateUtf8(*text, cap).size());
        hit["content_truncated"] = true;
      }
      total += text->size();
      hit["content"] = std::move(*text);
    }
  }
}

// search's include_links (OpenViking's memory links): each hit carries the
// relations from it ("links") and to it ("backlinks"), as
// [{from_uri, to_uri}], those the caller may see.
void AttachHitLinks(Call& call, Json* result) {
  for (const char* kind : {"memories", "resources", "skills"}) {
    auto list = result->find(kind);
    if (list == result->end() || !list->is_array()) continue;
    for (Json& hit : *list) {
      auto uri = hit.find("uri");
      if (uri == hit.end() || !uri->is_string()) continue;
      const std::string node = uri->get<std::string>();
      Json links = Json::array();
      Json backlinks = Json::array();
      if (auto out = call.db().Relations(call.who(), node); out.ok()) {
        for (const RelationLink& link : *out) {
          links.push_back({{"from_uri", node}, {"to_uri", link.uri}});
        }
      }
      if (auto in = call.db().Backlinks(call.who(), node); in.ok()) {
        for (const std::string& from : *in)
          backlinks.push_back({{"from_uri", from}, {"to_uri", node}});
      }
      hit["links"] = std::move(links);
      hit["backlinks"] = std::move(backlinks);
    }
  }
}

// A find or search call once its body was read.
struct FindCall {
  std::chrono::steady_clock::time_point start;  // when the call began (telemetry duration)
  std::optional<Json> body;                     // nullopt: not a JSON object, already answered
  ValidationErrors errors;
  FindBody parsed;
  bool include_links = false;  // search: each hit's links and backlinks (relations)
};

// The start of find and search: notes the time, reads the body object and
// the fields they share (problems go to `errors`).
FindCall ReadFindCall(Call& call) {
  FindCall find;
  find.start = std::chrono::steady_clock::now();
  find.body = call.BodyObject();
  if (!find.body.has_value()) return find;
  BodyReader b(*find.body, &find.errors);
  ReadFindFields(*find.body, b, &find.errors, &find.parsed);
  return find;
}

// The part of find and search after the body was read and validated: filter,
// checks, Db::Find, answer. REQUIRES: find.body has a value.
// `session_id` is set for search (possibly ""), nullopt for find; `context`
// (search, mode "context") holds the context fields and makes the call
// Db::SearchContext.
void RunFind(Call& call, FindCall& find, std::string_view operation,
             std::optional<std::string> session_id = std::nullopt,
             ContextRequest* context = nullptr,
             const std::function<void(Json*)>& adjust = nullptr) {
  const Json& body = *find.body;
  FindBody& parsed = find.parsed;
  FindRequest& request = parsed.request;
  const auto filter = body.find("filter");
  const bool has_filter = filter != body.end() && filter->is_object() && !filter->empty();
  if (Trim(request.query).empty() && has_filter && !session_id && context == nullptr &&
      !(parsed.image_url.has_value() && !parsed.image_url->empty())) {
    // find with a filter and no query: what the filter admits, listed
    // (OpenViking's filter-only find).
    request.query.clear();
    request.filter_only = true;
  } else if (Trim(request.query).empty()) {
    if (parsed.image_url.has_value() && !parsed.image_url->empty()) {
      return call.Fail(Status::InvalidArgument(
                           "image_url queries are not supported yet (Skald has no multimodal "
                           "embedder); send a text query")
                           .WithReason("UNIMPLEMENTED"));
    }
    return call.Fail(Status::InvalidArgument("Either query or image_url must be provided"));
  }
  if (has_filter) {
    if (Status applied = ApplyFilter(*filter, call.who().account, NowNanos(), &request);
        !applied.ok()) {
      return call.Fail(applied);
    }
  }
  if (Status valid = request.Validate(); !valid.ok()) return call.Fail(valid);

  Json result;
  if (context != nullptr) {
    context->search.find = std::move(request);
    context->search.session_id = session_id.value_or("");
    Result<ContextResult> assembled = call.db().SearchContext(call.who(), *context);
    if (!assembled.ok()) return call.Fail(assembled.status());
    result = ContextResultToJson(*assembled);
  } else if (session_id) {
    // search: intent analysis (with the session when one is named), then find.
    SearchRequest search;
    search.find = std::move(request);
    search.session_id = std::move(*session_id);
    Result<SearchResult> searched = call.db().Search(call.who(), search);
    if (!searched.ok()) return call.Fail(searched.status());
    result = SearchResultToJson(*searched, search.find.include_provenance);
  } else {
    Result<FindResult> found = call.db().Find(call.who(), request);
    if (!found.ok()) return call.Fail(found.status());
    result = FindResultToJson(*found, request.include_provenance);
  }
  if (parsed.read_content) AttachHitContent(call, &result);
  if (find.include_links) AttachHitLinks(call, &result);
  if (adjust) adjust(&result);
  if (!parsed.telemetry) return call.OkExcludeNone(result);
  Json telemetry = TelemetryPayload(operation, parsed.telemetry_summary, find.start);
  if (telemetry.contains("summary")) {
    // OpenViking's retrieval metrics: the searches made (one per query of
    // the plan) and the hits returned.
    size_t searches = 1;
    if (auto plan = result.find("query_plan"); plan != result.end() && plan->is_object()) {
      if (auto queries = plan->find("queries"); queries != plan->end() && queries->is_array()) {
        searches = std::max<size_t>(1, queries->size());
      }
    }
    const auto total = result.find("total");
    telemetry["summary"]["vector"] = {
        {"searches", searches},
        {"returned", total != result.end() && total->is_number() ? *total : Json(0)}};
  }
  call.OkExcludeNone(result, &telemetry);
}

// Fields find takes; search takes them too (reference §2.4).
constexpr std::string_view kFindFields[] = {"query",
                                            "image_url",
                                            "target_uri",
                                            "context_type",
                                            "limit",
                                            "node_limit",
                                            "score_threshold",
                                            "filter",
                                            "include_provenance",
                                            "tags",
                                            "since",
                                            "until",
                                            "time_field",
                                            "level",
                                            "telemetry",
                                            "retrieval_mode",
                                            "read_content"};

// Fields search takes in both modes, besides kFindFields.
constexpr std::string_view kSearchFields[] = {"session_id", "mode", "include_links"};

// Fields only search's context mode takes (reference §2.4).
constexpr std::string_view kContextOnlyFields[] = {"query_expansion",
                                                   "max_tokens",
                                                   "quotas",
                                                   "purpose",
                                                   "detail",
                                                   "dedup_turns",
                                                   "exclude_uris",
                                                   "peer_scope",
                                                   "other_peer_penalty",
                                                   "rewrite",
                                                   "rewrite_max_bullets"};

// The context-only fields of search (mode "context") into `out`; problems
// go to `errors`. peer_scope, other_peer_penalty, rewrite and
// rewrite_max_bullets are checked and accepted: memories are per user
// (there is no other peer to scope out) and no LLM digest is written.
void ReadContextFields(const Json& body, BodyReader& b, ValidationErrors* errors,
                       ContextRequest* out) {
  if (auto it = body.find("target_uri"); it != body.end() && !it->is_null()) {
    const bool empty =
        (it->is_string() && it->get<std::string>().empty()) || (it->is_array() && it->empty());
    if (!empty) {
      AddFieldError(errors, "target_uri", "Value error, target_uri is not allowed in context mode",
                    "value_error");
    }
  }
  out->query_expansion = b.Literal("query_expansion", "auto", {"off", "auto"});
  out->max_tokens = b.Int("max_tokens", 1600);
  if (out->max_tokens < 64 || out->max_tokens > 32000) {
    AddFieldError(errors, "max_tokens", "Input should be between 64 and 32000", "value_error");
  }
  if (auto it = body.find("quotas"); it != body.end() && !it->is_null()) {
    if (!it->is_object()) {
      AddFieldError(errors, "quotas", "Input should be a valid dictionary", "dict_type");
    } else {
      for (const auto& [category, quota] : it->items()) {
        if (!quota.is_number_integer() || quota.get<int64_t>() < 0 || quota.get<int64_t>() > 1000) {
          AddFieldError(errors, "quotas", "quotas must map categories to integers in 0..1000",
                        "value_error");
          break;
        }
        out->quotas[category] = static_cast<int>(quota.get<int64_t>());
      }
    }
  }
  out->purpose = b.OptionalLiteral("purpose", {"chat", "coding"}).value_or("");
  out->detail = b.OptionalLiteral("detail", {"abstract", "overview", "full"}).value_or("");
  out->dedup_turns = ClampToInt(b.Int("dedup_turns", 0));
  if (out->dedup_turns < 0 || out->dedup_turns > 100) {
    AddFieldError(errors, "dedup_turns", "Input should be between 0 and 100", "value_error");
  }
  out->exclude_uris = StringOrList(body, "exclude_uris", errors);
  if (out->exclude_uris.size() > 200) {
    AddFieldError(errors, "exclude_uris", "List should have at most 200 items", "too_long");
  }
  (void)b.Literal("peer_scope", "all", {"actor", "all"});
  (void)b.OptionalFloat("other_peer_penalty");
  if (auto it = body.find("rewrite"); it != body.end() && !it->is_null() && !it->is_boolean() &&
                                      !(it->is_string() && it->get<std::string>() == "auto")) {
    AddFieldError(errors, "rewrite", "Input should be a valid boolean or 'auto'", "value_error");
  }
  const int64_t bullets = b.Int("rewrite_max_bullets", 6);
  if (bullets < 1 || bullets > 20) {
    AddFieldError(errors, "rewrite_max_bullets", "Input should be between 1 and 20", "value_error");
  }
}

// extra="forbid" over several field lists (BodyReader::ForbidExtra takes a
// single braced list): every field of `body` in none of `allowed` is an error.
void ForbidExtraFields(const Json& body,
                       std::initializer_list<std::span<const std::string_view>> allowed,
                       ValidationErrors* errors) {
  for (const auto& [key, unused] : body.items()) {
    const bool known = std::any_of(allowed.begin(), allowed.end(), [&](auto fields) {
      return std::find(fields.begin(), fields.end(), key) != fields.end();
    });
    if (!known) AddFieldError(errors, key, "Extra inputs are not permitted", "extra_forbidden");
  }
}

// POST /api/v1/search/find (extra="forbid").
void Find(Call& call) {
  FindCall find = ReadFindCall(call);
  if (!find.body.has_value()) return;
  ForbidExtraFields(*find.body, {kFindFields}, &find.errors);
  if (!find.errors.empty()) return call.FailValidation(find.errors);
  RunFind(call, find, "search.find");
}

// POST /api/v1/search/search: list mode runs Db::Search (intent analysis,
// with the session when `session_id` names one; an unknown one is no
// error) and answers find's result plus `query_plan`; context mode runs
// Db::SearchContext and answers {entries, rendered, digest, stats, query_plan}.
void Search(Call& call) {
  FindCall find = ReadFindCall(call);
  if (!find.body.has_value()) return;
  const Json& body = *find.body;
  BodyReader b(body, &find.errors);
  std::optional<std::string> session_id = b.OptionalString("session_id");
  const std::string mode = b.Literal("mode", "list", {"list", "context"});
  const bool include_links = b.Bool("include_links", false);
  ForbidExtraFields(body, {kFindFields, kSearchFields, kContextOnlyFields}, &find.errors);
  if (mode == "list") {
    for (std::string_view field : kContextOnlyFields) {
      auto it = body.find(field);
      if (it != body.end() && !it->is_null()) {
        AddFieldError(&find.errors, field,
                      fmt::format("Value error, {} is only valid with mode='context'", field),
                      "value_error");
      }
    }
  }
  if (mode == "context" && include_links) {
    AddFieldError(&find.errors, "include_links",
                  "Value error, include_links is only supported in mode='list'", "value_error");
  }
  if (mode == "context" && find.parsed.read_content) {
    AddFieldError(&find.errors, "read_content",
                  "Value error, read_content is only supported in mode='list'", "value_error");
  }
  ContextRequest context;
  if (mode == "context") ReadContextFields(body, b, &find.errors, &context);
  if (!find.errors.empty()) return call.FailValidation(find.errors);
  find.include_links = include_links;
  RunFind(call, find, "search.search", session_id.value_or(""),
          mode == "context" ? &context : nullptr);
}

// Fields only the deprecated recall takes (OpenViking's v1 names, folded
// into context mode's).
constexpr std::string_view kRecallFields[] = {"session_id", "max_chars", "min_score", "render"};

// POST /api/v1/search/recall (deprecated): context mode under its v1 names.
// max_chars (6,500) becomes max_tokens (a quarter; an explicit max_tokens
// wins), min_score the score threshold (0.1), render true | false (entries
// only, nothing rendered) | "full" | "compact" (detail "abstract" unless
// detail is given); without quotas the "coding" purpose applies, and with a
// session the last 5 turns are left out unless dedup_turns says otherwise.
// The answer says which v1 names were used (stats.deprecated.aliases_used)
// and points at search (headers Deprecation, Link).
void Recall(Call& call) {
  FindCall find = ReadFindCall(call);
  if (!find.body.has_value()) return;
  const Json& body = *find.body;
  BodyReader b(body, &find.errors);
  std::optional<std::string> session_id = b.OptionalString("session_id");
  const std::optional<int64_t> max_chars = b.NullableInt("max_chars", std::nullopt);
  const std::optional<double> min_score = b.OptionalFloat("min_score");
  bool render = true;
  std::string render_detail;
  if (auto it = body.find("render"); it != body.end() && !it->is_null()) {
    if (it->is_boolean()) {
      render = it->get<bool>();
    } else if (it->is_string() && (*it == "full" || *it == "compact")) {
      if (*it == "compact") render_detail = "abstract";
    } else {
      AddFieldError(&find.errors, "render", "Input should be a valid boolean, 'full' or 'compact'",
                    "value_error");
    }
  }
  if (max_chars && (*max_chars < 1 || *max_chars > 128000)) {
    AddFieldError(&find.errors, "max_chars", "Input should be between 1 and 128000",
                  "value_error");
  }
  ForbidExtraFields(body, {kFindFields, kRecallFields, kContextOnlyFields}, &find.errors);
  if (find.parsed.read_content) {
    AddFieldError(&find.errors, "read_content",
                  "Value error, read_content is only supported in mode='list'", "value_error");
  }
  ContextRequest context;
  ReadContextFields(body, b, &find.errors, &context);
  if (!find.errors.empty()) return call.FailValidation(find.errors);
  auto given = [&](std::string_view field) {
    auto it = body.find(field);
    return it != body.end() && !it->is_null();
  };
  if (!given("max_tokens")) {
    context.max_tokens = std::clamp<int64_t>(max_chars.value_or(6500) / 4, 64, 32000);
  }
  if (!given("score_threshold")) find.parsed.request.score_threshold = min_score.value_or(0.1);
  if (!given("detail")) context.detail = render_detail;
  if (!body.contains("quotas") && context.purpose.empty()) context.purpose = "coding";
  if (!given("dedup_turns") && session_id && !session_id->empty()) context.dedup_turns = 5;
  Json aliases = Json::array();
  for (const char* alias : {"max_chars", "min_score", "render"}) {
    if (given(alias)) aliases.push_back(alias);
  }
  call.SetHeader("Deprecation", "true");
  call.SetHeader("Link", "</api/v1/search/search>; rel=\"successor-version\"");
  RunFind(call, find, "search.recall", session_id.value_or(""), &context, [&](Json* result) {
    if (!render) (*result)["rendered"] = "";
    (*result)["stats"]["deprecated"] = {{"route", "/api/v1/search/recall"},
                                        {"successor", "/api/v1/search/search"},
                                        {"aliases_used", aliases}};
  });
}

}  // namespace

void RegisterSearchRoutes(Router& router) {
  router.Add("POST", "/api/v1/search/glob", Glob);
  router.Add("POST", "/api/v1/search/grep", Grep);
  router.Add("POST", "/api/v1/search/find", Find);
  router.Add("POST", "/api/v1/search/search", Search);
  router.Add("POST", "/api/v1/search/recall", Recall);
}

}  // namespace skald::server
