// File-system routes (reference §2.2): ls, tree, stat, mkdir, rm, mv.

#include <fmt/format.h>

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
struct ListingParams {
  std::string uri;
  std::string output;
  LsOptions options;
};

ListingParams ReadListingParams(QueryReader& q) {
  ListingParams p;
  p.uri = q.RequiredString("uri");
  p.output = q.String("output", "agent");
  p.options.abs_limit = ClampToInt(q.Int("abs_limit", 256));
  p.options.show_all_hidden = q.Bool("show_all_hidden", false);
  int64_t node_limit = q.Int("node_limit", 1000);
  std::optional<int64_t> limit = q.OptionalInt("limit");
  p.options.node_limit = ClampToInt(limit.has_value() ? *limit : node_limit);
  return p;
}

void Ls(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  ListingParams p = ReadListingParams(q);
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
  call.Ok(LsToJson(*entries, output, simple, /*with_rel_path=*/p.options.recursive));
}

void Tree(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  ListingParams p = ReadListingParams(q);
  p.options.level_limit = ClampToInt(q.Int("level_limit", 3));
  if (!errors.empty()) return call.FailValidation(errors);

  LsOutput output = LsOutput::kAgent;
  Status bad_output;
  if (!ParseOutput(p.output, &output, &bad_output)) return call.Fail(bad_output);

  Result<std::vector<LsEntry>> entries = call.db().Tree(call.who(), p.uri, p.options);
  if (!entries.ok()) return call.Fail(entries.status());
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

// Body {from_uri, to_uri}; unknown fields are ignored.
void Mv(Call& call) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  const std::string from = b.RequiredString("from_uri");
  const std::string to = b.RequiredString("to_uri");
  if (!errors.empty()) return call.FailValidation(errors);

  Result<MvResult> moved = call.db().Mv(call.who(), from, to);
  if (!moved.ok()) return call.Fail(moved.status());
  call.Ok(MvToJson(*moved));
}

}  // namespace

void RegisterFsRoutes(Router& router) {
  router.Add("GET", "/api/v1/fs/ls", Ls);
  router.Add("GET", "/api/v1/fs/tree", Tree);
  router.Add("GET", "/api/v1/fs/stat", Stat);
  router.Add("POST", "/api/v1/fs/mkdir", Mkdir);
  router.Add("DELETE", "/api/v1/fs", Rm);
  router.Add("POST", "/api/v1/fs/mv", Mv);
}

}  // namespace skald::server
