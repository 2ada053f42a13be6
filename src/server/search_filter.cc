#include "server/search_filter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "common/strings.h"
#include "service/json_codec.h"
#include "uri/uri_path.h"

namespace skald::server {
namespace {

bool ParseInt(std::string_view text, int* out) {
  long long v = 0;
  if (!ParseInt64(text, &v) || v < -1000000 || v > 1000000) return false;
  *out = static_cast<int>(v);
  return true;
}

Status Invalid(std::string why) {
  return Status::InvalidArgument("Unsupported filter: " + why).WithReason("INVALID_FILTER");
}

// `out` narrowed to the values also in `values` (the first condition sets it).
template <typename T>
void Narrow(std::vector<T>* out, std::vector<T> values, bool* nothing) {
  if (!out->empty()) {
    std::erase_if(values,
                  [&](const T& v) { return std::find(out->begin(), out->end(), v) == out->end(); });
  }
  *out = std::move(values);
  if (out->empty()) *nothing = true;
}

// "viking://a/b" as given, "/a/b" or "a/b" made one; trailing '/' dropped.
Result<std::string> UriValue(const Json& v) {
  if (!v.is_string()) return Invalid("uri values must be strings");
  std::string uri = v.get<std::string>();
  if (!uri.starts_with("viking://")) {
    uri = "viking://" + uri.substr(std::min(uri.find_first_not_of('/'), uri.size()));
  }
  return std::string(UriTrimTrailingSlashes(uri));
}

// The N of "para": "-d=N" (or ["-d=N"]), clamped to [-1, 50]; -1 without.
Result<int> DepthParameter(const Json& cond) {
  auto it = cond.find("para");
  if (it == cond.end() || it->is_null()) return -1;
  const Json& para = it->is_array() && !it->empty() ? (*it)[0] : *it;
  if (!para.is_string()) return Invalid("\"para\" must be a string such as \"-d=1\"");
  std::string text;
  for (char c : para.get<std::string>()) {
    if (c != ' ') text += c;
  }
  if (text.empty()) return -1;
  int depth = 0;
  if (!text.starts_with("-d=") || !ParseInt(text.substr(3), &depth)) {
    return Invalid(fmt::format("\"para\" '{}' (expected \"-d=N\")", text));
  }
  return std::clamp(depth, -1, 50);
}

// Subtrees that lie in one of `a` and in one of `b` (both any-of).
std::vector<FindRequest::Subtree> Both(const std::vector<FindRequest::Subtree>& a,
                                       const std::vector<FindRequest::Subtree>& b) {
  std::vector<FindRequest::Subtree> out;
  for (const auto& x : a) {
    for (const auto& y : b) {
      if (std::optional<UriSpan> part =
              IntersectSpans({x.uri, 0, x.max_depth}, {y.uri, 0, y.max_depth})) {
        out.push_back({std::move(part->uri), part->max_depth});
      }
    }
  }
  return out;
}

void AddSubtrees(FindRequest* request, std::vector<FindRequest::Subtree> subtrees) {
  if (!request->within.empty()) subtrees = Both(request->within, subtrees);
  request->within = std::move(subtrees);
  if (request->within.empty()) request->matches_nothing = true;
}

Status ApplyMust(const std::string& field, const Json& values, const Json& cond,
                 std::string_view account, FindRequest* request) {
  if (!values.is_array() || values.empty()) return Invalid("\"must\" needs a non-empty \"conds\"");
  bool* nothing = &request->matches_nothing;
  auto strings = [&]() -> Result<std::vector<std::string>> {
    std::vector<std::string> out;
    for (const Json& v : values) {
      if (!v.is_string()) return Invalid(fmt::format("\"must\" values on {} are strings", field));
      out.push_back(v.get<std::string>());
    }
    return out;
  };
  if (field == "context_type") {
    SKALD_ASSIGN_OR_RETURN(std::vector<std::string> types, strings());
    for (const std::string& t : types) {
      if (!ParseContextType(t)) return Invalid(fmt::format("context_type '{}'", t));
    }
    Narrow(&request->context_types, std::move(types), nothing);
  } else if (field == "search_tags") {
    SKALD_ASSIGN_OR_RETURN(std::vector<std::string> tags, strings());
    if (tags.size() != 1) {
      return Invalid(
          "\"must\" on search_tags takes one tag (\"and\" several musts for all of them)");
    }
    // Stored tags are normalised (common/tags.h): match them as such.
    request->tags.push_back(AsciiLower(Trim(tags[0])));
  } else if (field == "level") {
    std::vector<int> levels;
    for (const Json& v : values) {
      int level = -1;
      if (v.is_number_integer()) level = v.get<int>();
      if (v.is_string() && !ParseInt(v.get<std::string>(), &level)) level = -1;
      if (level < 0 || level > 2) return Invalid("level values are 0, 1 or 2");
      levels.push_back(level);
    }
    Narrow(&request->levels, std::move(levels), nothing);
  } else if (field == "owner_user_id") {
    SKALD_ASSIGN_OR_RETURN(std::vector<std::string> owners, strings());
    Narrow(&request->owners, std::move(owners), nothing);
  } else if (field == "account_id") {
    SKALD_ASSIGN_OR_RETURN(std::vector<std::string> accounts, strings());
    if (std::find(accounts.begin(), accounts.end(), account) == accounts.end()) *nothing = true;
  } else if (field == "uri") {
    SKALD_ASSIGN_OR_RETURN(int depth, DepthParameter(cond));
    std::vector<FindRequest::Subtree> subtrees;
    for (const Json& v : values) {
      SKALD_ASSIGN_OR_RETURN(std::string uri, UriValue(v));
      subtrees.push_back({std::move(uri), depth});
    }
    AddSubtrees(request, std::move(subtrees));
  } else {
    return Invalid(fmt::format(
        "\"must\" on field '{}' (supported: context_type, search_tags, level, owner_user_id, "
        "account_id, uri)",
        field));
  }
  return Status::Ok();
}

// range/time_range on created_at or updated_at.
Status ApplyTimes(const std::string& field, const Json& cond, int64_t now_ns,
                  FindRequest* request) {
  const bool bounded = request->since_ns.has_value() || request->until_ns.has_value();
  if (bounded && request->time_field != field) {
    return Invalid("time conditions on both created_at and updated_at");
  }
  request->time_field = field;
  bool any = false;
  for (const char* bound : {"gte", "gt", "lte", "lt"}) {
    auto it = cond.find(bound);
    if (it == cond.end() || it->is_null()) continue;
    if (!it->is_string())
      return Invalid(fmt::format("\"{}\" on {} must be a time string", bound, field));
    const bool upper = bound[0] == 'l';
    Result<int64_t> at = ParseTimeBound(it->get<std::string>(), now_ns, /*end_of_day=*/upper);
    if (!at.ok()) return Invalid(at.status().message());
    any = true;
    const bool strict = std::string_view(bound).size() == 2;
    if (upper) {
      const int64_t until = *at - (strict ? 1 : 0);
      request->until_ns = request->until_ns ? std::min(*request->until_ns, until) : until;
    } else {
      const int64_t since = *at + (strict ? 1 : 0);
      request->since_ns = request->since_ns ? std::max(*request->since_ns, since) : since;
    }
  }
  if (!any && cond.value("op", "") == "range") return Invalid("\"range\" needs gte, gt, lte or lt");
  if (request->since_ns && request->until_ns && *request->since_ns > *request->until_ns) {
    request->matches_nothing = true;
  }
  return Status::Ok();
}

Status ApplyLevelRange(const Json& cond, FindRequest* request) {
  double low = 0, high = 2;
  bool any = false;
  for (const char* bound : {"gte", "gt", "lte", "lt"}) {
    auto it = cond.find(bound);
    if (it == cond.end() || it->is_null()) continue;
    if (!it->is_number()) return Invalid("level bounds are numbers");
    const double v = it->get<double>();
    const std::string_view b(bound);
    if (b == "gte") low = std::max(low, v);
    if (b == "gt") low = std::max(low, std::floor(v) + 1);
    if (b == "lte") high = std::min(high, v);
    if (b == "lt") high = std::min(high, std::ceil(v) - 1);
    any = true;
  }
  if (!any) return Invalid("\"range\" needs gte, gt, lte or lt");
  std::vector<int> levels;
  for (int level = 0; level <= 2; ++level) {
    if (level >= low && level <= high) levels.push_back(level);
  }
  Narrow(&request->levels, std::move(levels), &request->matches_nothing);
  return Status::Ok();
}

Status Apply(const Json& filter, std::string_view account, int64_t now_ns, FindRequest* request,
             int depth) {
  if (depth > 32) return Invalid("nested deeper than 32 levels");
  if (!filter.is_object()) return Invalid("a filter must be an object");
  auto op_it = filter.find("op");
  if (op_it == filter.end() && filter.empty()) return Invalid("an empty condition");
  if (op_it == filter.end() && !filter.contains("field") && !filter.contains("conds")) {
    // Shorthand {"field": value or [values], ...}: a "must" on each field,
    // "type" naming context_type (as OpenViking's clients send it).
    for (const auto& [key, value] : filter.items()) {
      const std::string field = key == "type" ? "context_type" : key;
      const Json values = value.is_array() ? value : Json::array({value});
      SKALD_RETURN_IF_ERROR(ApplyMust(field, values, Json::object(), account, request));
    }
    return Status::Ok();
  }
  if (op_it == filter.end() || !op_it->is_string()) return Invalid("missing \"op\"");
  const std::string& op = op_it->get_ref<const std::string&>();
  auto conds = filter.find("conds");
  auto field_it = filter.find("field");
  const std::string field =
      field_it != filter.end() && field_it->is_string() ? field_it->get<std::string>() : "";
  if (op == "and") {
    if (conds == filter.end() || !conds->is_array()) return Invalid("\"and\" needs \"conds\"");
    for (const Json& cond : *conds) {
      SKALD_RETURN_IF_ERROR(Apply(cond, account, now_ns, request, depth + 1));
    }
    return Status::Ok();
  }
  if (op == "or") {
    // Musts on one field: one must with all their values.
    if (conds == filter.end() || !conds->is_array() || conds->empty()) {
      return Invalid("\"or\" needs a non-empty \"conds\"");
    }
    Json merged = {{"op", "must"}, {"conds", Json::array()}};
    for (const Json& cond : *conds) {
      const bool must = cond.is_object() && cond.value("op", Json()) == "must" &&
                        cond.value("field", Json()).is_string() &&
                        cond.value("conds", Json()).is_array();
      if (!must || (merged.contains("field") && merged["field"] != cond["field"]) ||
          cond.value("para", Json()) != (*conds)[0].value("para", Json())) {
        return Invalid("\"or\" is supported between \"must\" conditions on one field");
      }
      merged["field"] = cond["field"];
      if (cond.contains("para")) merged["para"] = cond["para"];
      for (const Json& v : cond["conds"]) merged["conds"].push_back(v);
    }
    return Apply(merged, account, now_ns, request, depth + 1);
  }
  if (op == "must") {
    return ApplyMust(field, conds == filter.end() ? Json() : *conds, filter, account, request);
  }
  if (op == "range" || op == "time_range") {
    if (field == "updated_at" || field == "created_at") {
      return ApplyTimes(field, filter, now_ns, request);
    }
    if (op == "range" && field == "level") return ApplyLevelRange(filter, request);
    return Invalid(fmt::format("\"{}\" on field '{}' (supported: created_at, updated_at{})", op,
                               field, op == "range" ? ", level" : ""));
  }
  if (op == "prefix") {
    auto prefix = filter.find("prefix");
    if (field != "uri" || prefix == filter.end()) {
      return Invalid("\"prefix\" is supported on field uri, with \"prefix\"");
    }
    SKALD_ASSIGN_OR_RETURN(std::string uri, UriValue(*prefix));
    AddSubtrees(request, {{std::move(uri), -1}});
    return Status::Ok();
  }
  return Invalid(fmt::format("op '{}' (supported: and, or, must, range, time_range, prefix)", op));
}

}  // namespace

Status ApplyFilter(const Json& filter, std::string_view account, int64_t now_ns,
                   FindRequest* request) {
  return Apply(filter, account, now_ns, request, 0);
}

}  // namespace skald::server
