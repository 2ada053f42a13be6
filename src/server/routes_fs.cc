// File-system routes (reference §2.2): ls, tree, stat, mkdir, rm, mv, cp; and
// the relations routes (GET /api/v1/relations, POST/DELETE …/relations/link).

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "common/strings.h"
#include "server/routes.h"
#include "service/json_codec.h"

namespace skald::server {
namespace {

// `output` is a free string in OpenViking (not a Literal), checked by the
// service: anything but agent/original is INVALID_ARGUMENT.
bool ParseOutput(const std::string& output, LsOutput* out, Status* error) {
  if (output == "agent") {
    *out = LsOutput::kAgent;
    return true;
  }
  if (output == "original") {
    *out = LsOutput::kOriginal;
    return true;
  }
  *error = Status::InvalidArgument(
               fmt::format("Invalid output format '{}': must be 'agent' or 'original'", output))
               .WithDetail("output", output);
  return false;
}

// Fields shared by ls and tree. `limit`, when given, wins over `node_limit`.
// `offset` (what `ov ls/tree --offset` sends) skips that many entries of the
// listing before the limit applies.
struct ListingParams {
  std::string uri;
  std::string output;
  LsOptions options;
  int offset = 0;
};

constexpr int64_t kMaxNodeLimit = 10'000;
constexpr int64_t kMaxLevelLimit = 32;
constexpr int64_t kMaxAbsLimit = 4'096;

ListingParams ReadListingParams(const QueryParams& query, QueryReader& q,
                                ValidationErrors* errors) {
  ListingParams p;
  p.uri = q.RequiredString("uri");
  p.output = q.String("output", "agent");
  p.options.abs_limit = ClampToInt(q.Int("abs_limit", 256));
  p.options.show_all_hidden = q.Bool("show_all_hidden", false);
  // Search tags (newer OpenViking): `tags` repeated (or comma-separated)
  // filters, `include_tags` (or `extra_fields=tags`) shows each entry's.
  p.options.include_tags = q.Bool("include_tags", false);
  for (const auto& [name, value] : query.items()) {
    if (name != "tags" && name != "extra_fields") continue;
    for (const std::string& piece : Split(value, ',')) {
      const std::string_view item = Trim(piece);
      if (item.empty()) continue;
      if (name == "tags") p.options.tags.emplace_back(item);
      if (name == "extra_fields" && item == "tags") p.options.include_tags = true;
    }
  }
  int64_t node_limit = q.Int("node_limit", 1000);
  std::optional<int64_t> limit = q.OptionalInt("limit");
  // Ceilings against a listing that would walk a whole large tree in one
  // answer (the values OpenViking's listing-bounds change uses).
  errors->CheckAtMost("query", "node_limit", node_limit, kMaxNodeLimit);
  if (limit) errors->CheckAtMost("query", "limit", *limit, kMaxNodeLimit);
  errors->CheckAtMost("query", "abs_limit", p.options.abs_limit, kMaxAbsLimit);
  const int64_t offset = q.Int("offset", 0);
  if (offset < 0) {
    errors->Add({"query", "offset"}, "Input should be greater than or equal to 0",
                "greater_than_equal");
  }
  p.offset = ClampToInt(std::max<int64_t>(0, offset));
  // The entries skipped are listed too: ask for them on top of the limit.
  const int64_t wanted = limit.has_value() ? *limit : node_limit;
  const int64_t with_skipped = wanted > std::numeric_limits<int64_t>::max() - p.offset
                                   ? std::numeric_limits<int64_t>::max()
                                   : wanted + p.offset;
  p.options.node_limit = ClampToInt(wanted > 0 ? with_skipped : wanted);
  return p;
}

// Drops the first `offset` entries (ListingParams::offset).
void SkipOffset(int offset, std::vector<LsEntry>* entries) {
  const size_t skip = std::min(entries->size(), static_cast<size_t>(offset));
  entries->erase(entries->begin(), entries->begin() + static_cast<std::ptrdiff_t>(skip));
}

void Ls(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  ListingParams p = ReadListingParams(call.query(), q, &errors);
  const bool simple = q.Bool("simple", false);
  p.options.recursive = q.Bool("recursive", false);
  std::optional<std::string> sort_by = q.OptionalLiteral("sort_by", {"name", "mtime"});
  const std::string sort_order = q.Literal("sort_order", "asc", {"asc", "desc"});
  if (!errors.empty()) return call.FailValidation(errors);

  LsOutput output = LsOutput::kAgent;
  Status bad_output;
  if (!ParseOutput(p.output, &output, &bad_output)) return call.Fail(bad_output);
  if (sort_by.has_value()) p.options.sort_by = *sort_by == "name" ? SortBy::kName : SortBy::kMtime;
  p.options.descending = sort_order == "desc";

  Result<std::vector<LsEntry>> entries = call.db().Ls(call.who(), p.uri, p.options);
  if (!entries.ok()) return call.Fail(entries.status());
  SkipOffset(p.offset, &*entries);
  call.Ok(LsToJson(*entries, output, simple, /*with_rel_path=*/p.options.recursive));
}

void Tree(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  ListingParams p = ReadListingParams(call.query(), q, &errors);
  p.options.level_limit = ClampToInt(q.Int("level_limit", 3));
  errors.CheckAtMost("query", "level_limit", p.options.level_limit, kMaxLevelLimit);
  if (!errors.empty()) return call.FailValidation(errors);

  LsOutput output = LsOutput::kAgent;
  Status bad_output;
  if (!ParseOutput(p.output, &output, &bad_output)) return call.Fail(bad_output);

  Result<std::vector<LsEntry>> entries = call.db().Tree(call.who(), p.uri, p.options);
  if (!entries.ok()) return call.Fail(entries.status());
  SkipOffset(p.offset, &*entries);
  call.Ok(LsToJson(*entries, output, /*simple=*/false, /*with_rel_path=*/true));
}

void Stat(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  const std::string uri = q.RequiredString("uri");
  if (!errors.empty()) return call.FailValidation(errors);

  Result<NodeInfo> node = call.db().Stat(call.who(), uri);
  if (!node.ok()) return call.Fail(node.status());
  call.Ok(StatToJson(*node));
}

// Body {uri, description?}; unknown fields are ignored (no extra=forbid).
void Mkdir(Call& call) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  const std::string uri = b.RequiredString("uri");
  const std::optional<std::string> description = b.OptionalString("description");
  if (!errors.empty()) return call.FailValidation(errors);

  Result<std::string> created = call.db().Mkdir(call.who(), uri, description.value_or(""));
  if (!created.ok()) return call.Fail(created.status());
  call.Ok(Json{{"uri", *created}});
}

// DELETE /api/v1/fs?uri=&recursive=&wait=&timeout=
void Rm(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  const std::string uri = q.RequiredString("uri");
  const bool recursive = q.Bool("recursive", false);
  // Accepted for compatibility: deletes are synchronous, nothing to wait for.
  (void)q.Bool("wait", false);
  (void)q.OptionalFloat("timeout");
  if (!errors.empty()) return call.FailValidation(errors);

  Result<RmResult> removed = call.db().Rm(call.who(), uri, recursive);
  if (!removed.ok()) return call.Fail(removed.status());
  call.Ok(RmToJson(*removed));
}

// A body {from_uri, to_uri, ...} (mv, cp, unlink); unknown fields are ignored.
struct FromToBody {
  Json body;
  std::string from;
  std::string to;
};

// Reads the body's two URIs; problems go to `errors`. nullopt when the body
// is not a JSON object (already answered).
std::optional<FromToBody> ReadFromTo(Call& call, ValidationErrors* errors) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return std::nullopt;
  BodyReader b(*body, errors);
  FromToBody out;
  out.from = b.RequiredString("from_uri");
  out.to = b.RequiredString("to_uri");
  out.body = std::move(*body);
  return out;
}

void Mv(Call& call) {
  ValidationErrors errors;
  std::optional<FromToBody> body = ReadFromTo(call, &errors);
  if (!body.has_value()) return;
  if (!errors.empty()) return call.FailValidation(errors);
  const std::string& from = body->from;
  const std::string& to = body->to;

  Result<MvResult> moved = call.db().Mv(call.who(), from, to);
  if (!moved.ok()) return call.Fail(moved.status());
  call.Ok(MvToJson(*moved));
}

// Body {from_uri, to_uri, recursive (false)}; unknown fields ignored.
// Result {from, to, recursive, phase: "completed", files, directories,
// vectors: {scanned, written}}.
void Cp(Call& call) {
  ValidationErrors errors;
  std::optional<FromToBody> body = ReadFromTo(call, &errors);
  if (!body.has_value()) return;
  const bool recursive = BodyReader(body->body, &errors).Bool("recursive", false);
  if (!errors.empty()) return call.FailValidation(errors);

  Result<CpResult> copied = call.db().Cp(call.who(), body->from, body->to, recursive);
  if (!copied.ok()) return call.Fail(copied.status());
  call.Ok(Json{
      {"from", copied->from},
      {"to", copied->to},
      {"recursive", copied->recursive},
      {"phase", "completed"},
      {"files", copied->files},
      {"directories", copied->directories},
      {"vectors", {{"scanned", copied->vectors_scanned}, {"written", copied->vectors_written}}}});
}

// ---- relations (OpenViking's /api/v1/relations router) ----------------------

// GET /api/v1/relations?uri=: [{uri, reason}, ...].
void Relations(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  const std::string uri = q.RequiredString("uri");
  if (!errors.empty()) return call.FailValidation(errors);
  Result<std::vector<RelationLink>> links = call.db().Relations(call.who(), uri);
  if (!links.ok()) return call.Fail(links.status());
  Json out = Json::array();
  for (const RelationLink& link : *links)
    out.push_back({{"uri", link.uri}, {"reason", link.reason}});
  call.Ok(out);
}

// POST /api/v1/relations/link {from_uri, to_uris: str | [str], reason ("")};
// result {from, to} with `to` as sent.
void Link(Call& call) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  const std::string from = b.RequiredString("from_uri");
  const std::string reason = b.String("reason", "");
  std::vector<std::string> to;
  auto to_uris = body->find("to_uris");
  if (to_uris == body->end()) {
    errors.Add({"body", "to_uris"}, "Field required", "missing");
  } else if (to_uris->is_string()) {
    to.push_back(to_uris->get<std::string>());
  } else if (to_uris->is_array() && !to_uris->empty() &&
             std::all_of(to_uris->begin(), to_uris->end(),
                         [](const Json& u) { return u.is_string(); })) {
    for (const Json& u : *to_uris) to.push_back(u.get<std::string>());
  } else {
    errors.Add({"body", "to_uris"}, "Input should be a valid string or a non-empty list of strings",
               "string_type");
  }
  if (!errors.empty()) return call.FailValidation(errors);

  Status linked = call.db().Link(call.who(), from, to, reason);
  if (!linked.ok()) return call.Fail(linked);
  call.Ok(Json{{"from", from}, {"to", *to_uris}});
}

// DELETE /api/v1/relations/link {from_uri, to_uri}; result {from, to}.
void Unlink(Call& call) {
  ValidationErrors errors;
  std::optional<FromToBody> body = ReadFromTo(call, &errors);
  if (!body.has_value()) return;
  if (!errors.empty()) return call.FailValidation(errors);
  Status unlinked = call.db().Unlink(call.who(), body->from, body->to);
  if (!unlinked.ok()) return call.Fail(unlinked);
  call.Ok(Json{{"from", body->from}, {"to", body->to}});
}

}  // namespace

void RegisterFsRoutes(Router& router) {
  router.Add("GET", "/api/v1/fs/ls", Ls);
  router.Add("GET", "/api/v1/fs/tree", Tree);
  router.Add("GET", "/api/v1/fs/stat", Stat);
  router.Add("POST", "/api/v1/fs/mkdir", Mkdir);
  router.Add("DELETE", "/api/v1/fs", Rm);
  router.Add("POST", "/api/v1/fs/mv", Mv);
  router.Add("POST", "/api/v1/fs/cp", Cp);
  router.Add("GET", "/api/v1/relations", Relations);
  router.Add("POST", "/api/v1/relations/link", Link);
  router.Add("DELETE", "/api/v1/relations/link", Unlink);
}

}  // namespace skald::server
