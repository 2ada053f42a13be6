#include "server/http_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>

#include "common/env.h"
#include "common/strings.h"
#include "common/tags.h"
#include "uri/viking_uri.h"

namespace skald::server {
namespace {

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// pydantic v2 messages and types, as FastAPI reports them.
constexpr std::string_view kMissing = "Field required";
constexpr std::string_view kStringType = "Input should be a valid string";
constexpr std::string_view kIntType = "Input should be a valid integer";
constexpr std::string_view kIntParsing =
    "Input should be a valid integer, unable to parse string as an integer";
constexpr std::string_view kIntFromFloat =
    "Input should be a valid integer, got a number with a fractional part";
constexpr std::string_view kBoolType = "Input should be a valid boolean";
constexpr std::string_view kBoolParsing =
    "Input should be a valid boolean, unable to interpret input";
constexpr std::string_view kFloatType = "Input should be a valid number";
constexpr std::string_view kFloatParsing =
    "Input should be a valid number, unable to parse string as a number";

// Deeper JSON is refused before parsing (keeps parser and destructor stacks small).
constexpr int kMaxJsonDepth = 256;

// pydantic's lax string -> bool table.
bool ParseLaxBool(std::string_view s, bool* out) {
  const std::string lower = AsciiLower(s);
  if (lower == "t" || lower == "y") {
    *out = true;
    return true;
  }
  if (lower == "f" || lower == "n") {
    *out = false;
    return true;
  }
  return ParseBool(lower, out);
}

// "Input should be 'a' or 'b'" / "Input should be 'a', 'b' or 'c'".
std::string LiteralMessage(std::initializer_list<std::string_view> allowed) {
  std::string out = "Input should be ";
  size_t i = 0;
  for (std::string_view value : allowed) {
    if (i > 0) out += (i + 1 == allowed.size()) ? " or " : ", ";
    out += fmt::format("'{}'", value);
    ++i;
  }
  return out;
}

bool IsAllowed(std::string_view value, std::initializer_list<std::string_view> allowed) {
  for (std::string_view a : allowed) {
    if (a == value) return true;
  }
  return false;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// '+' -> ' ', then %XX -> byte; malformed escapes stay literal (as in Python).
std::string DecodeQueryComponent(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 && HexValue(s[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2]));
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

// Reads a lax int (pydantic): integers, whole floats, numeric strings.
// Returns the error (message, type) on failure.
std::optional<std::pair<std::string_view, std::string_view>> LaxInt(const Json& v, int64_t* out) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() &&
        v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      *out = std::numeric_limits<int64_t>::max();
    } else {
      *out = v.get<int64_t>();
    }
    return std::nullopt;
  }
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!std::isfinite(d) || std::floor(d) != d) {
      return std::make_pair(kIntFromFloat, std::string_view("int_from_float"));
    }
    if (std::fabs(d) >= 9.2e18) return std::make_pair(kIntType, std::string_view("int_type"));
    *out = static_cast<int64_t>(d);
    return std::nullopt;
  }
  if (v.is_string()) {
    long long parsed = 0;
    if (ParseInt64(Trim(v.get<std::string>()), &parsed)) {
      *out = parsed;
      return std::nullopt;
    }
    return std::make_pair(kIntParsing, std::string_view("int_parsing"));
  }
  return std::make_pair(kIntType, std::string_view("int_type"));
}

}  // namespace

// ---- ValidationErrors ------------------------------------------------------

void ValidationErrors::CheckTagList(std::string_view name, const std::vector<std::string>& tags) {
  if (tags.size() > kMaxTagsPerRequest) {
    Add({"body", std::string(name)},
        fmt::format("List should have at most {} items after validation, not {}",
                    kMaxTagsPerRequest, tags.size()),
        "too_long");
    return;
  }
  for (size_t i = 0; i < tags.size(); ++i) {
    if (Utf8Length(tags[i]) > kMaxTagChars) {
      Add({"body", std::string(name), std::to_string(i)},
          fmt::format("String should have at most {} characters", kMaxTagChars), "string_too_long");
    }
  }
}

void ValidationErrors::CheckAtMost(std::string_view where, std::string_view name, int64_t value,
                                   int64_t max) {
  if (value <= max) return;
  Add({std::string(where), std::string(name)},
      fmt::format("Input should be less than or equal to {}", max), "less_than_equal");
}

void ValidationErrors::Add(std::vector<std::string> loc, std::string message, std::string type) {
  errors_.push_back({std::move(loc), std::move(message), std::move(type)});
}

std::string ValidationErrors::Message() const {
  if (errors_.empty()) return "Invalid request parameters";
  const FieldError& first = errors_.front();
  std::string location = first.loc.empty() ? "request" : Join(first.loc, ".");
  return fmt::format("Invalid request parameters: {}: {}", location, first.message);
}

Json ValidationErrors::Details() const {
  Json list = Json::array();
  for (const FieldError& e : errors_) {
    list.push_back({{"loc", e.loc}, {"message", e.message}, {"type", e.type}});
  }
  return Json{{"validation_errors", std::move(list)}};
}

// ---- QueryParams -----------------------------------------------------------

Result<QueryParams> QueryParams::Parse(std::string_view raw) {
  QueryParams params;
  size_t start = 0;
  while (start <= raw.size()) {
    size_t end = raw.find('&', start);
    if (end == std::string_view::npos) end = raw.size();
    std::string_view piece = raw.substr(start, end - start);
    start = end + 1;
    if (piece.empty()) continue;
    size_t eq = piece.find('=');
    std::string name = DecodeQueryComponent(piece.substr(0, eq));
    std::string value =
        eq == std::string_view::npos ? std::string() : DecodeQueryComponent(piece.substr(eq + 1));
    if (!IsValidUtf8(name) || !IsValidUtf8(value)) {
      return Status::InvalidArgument(
          fmt::format("query parameter '{}' is not valid UTF-8", IsValidUtf8(name) ? name : "?"));
    }
    params.items_.emplace_back(std::move(name), std::move(value));
  }
  return params;
}

std::optional<std::string> QueryParams::Get(std::string_view name) const {
  for (auto it = items_.rbegin(); it != items_.rend(); ++it) {
    if (it->first == name) return it->second;
  }
  return std::nullopt;
}

// ---- QueryReader -----------------------------------------------------------

std::string QueryReader::RequiredString(std::string_view name) {
  std::optional<std::string> value = query_.Get(name);
  if (!value.has_value()) {
    errors_->Add({"query", std::string(name)}, std::string(kMissing), "missing");
    return std::string();
  }
  return *value;
}

std::string QueryReader::String(std::string_view name, std::string default_value) {
  std::optional<std::string> value = query_.Get(name);
  return value.has_value() ? *value : default_value;
}

bool QueryReader::Bool(std::string_view name, bool default_value) {
  std::optional<std::string> value = query_.Get(name);
  if (!value.has_value()) return default_value;
  bool parsed = default_value;
  if (!ParseLaxBool(*value, &parsed)) {
    errors_->Add({"query", std::string(name)}, std::string(kBoolParsing), "bool_parsing");
    return default_value;
  }
  return parsed;
}

int64_t QueryReader::Int(std::string_view name, int64_t default_value) {
  std::optional<int64_t> value = OptionalInt(name);
  return value.has_value() ? *value : default_value;
}

int64_t QueryReader::IntAtLeast(std::string_view name, int64_t default_value, int64_t minimum) {
  const int64_t value = Int(name, default_value);
  if (value < minimum && errors_->empty()) {
    errors_->Add({"query", std::string(name)},
                 "Input should be greater than or equal to " + std::to_string(minimum),
                 "greater_than_equal");
  }
  return value;
}

std::optional<int64_t> QueryReader::OptionalInt(std::string_view name) {
  std::optional<std::string> value = query_.Get(name);
  if (!value.has_value()) return std::nullopt;
  long long parsed = 0;
  if (!ParseInt64(Trim(*value), &parsed)) {
    errors_->Add({"query", std::string(name)}, std::string(kIntParsing), "int_parsing");
    return std::nullopt;
  }
  return parsed;
}

std::optional<double> QueryReader::OptionalFloat(std::string_view name) {
  std::optional<std::string> value = query_.Get(name);
  if (!value.has_value()) return std::nullopt;
  double parsed = 0;
  if (!ParseDouble(Trim(*value), &parsed)) {
    errors_->Add({"query", std::string(name)}, std::string(kFloatParsing), "float_parsing");
    return std::nullopt;
  }
  return parsed;
}

std::string QueryReader::Literal(std::string_view name, std::string default_value,
                                 std::initializer_list<std::string_view> allowed) {
  std::optional<std::string> value = OptionalLiteral(name, allowed);
  return value.has_value() ? *value : default_value;
}

std::optional<std::string> QueryReader::OptionalLiteral(
    std::string_view name, std::initializer_list<std::string_view> allowed) {
  std::optional<std::string> value = query_.Get(name);
  if (!value.has_value()) return std::nullopt;
  if (!IsAllowed(*value, allowed)) {
    errors_->Add({"query", std::string(name)}, LiteralMessage(allowed), "literal_error");
    return std::nullopt;
  }
  return value;
}

// ---- body --------------------------------------------------------------------

BodyParse ParseBodyObject(std::string_view body, ValidationErrors* errors) {
  BodyParse out;
  if (!IsValidUtf8(body)) {
    out.fatal_message = "There was an error parsing the body";
    return out;
  }
  if (body.empty()) {
    errors->Add({"body"}, std::string(kMissing), "missing");
    return out;
  }
  if (NestsDeeperThan(body, kMaxJsonDepth)) {
    errors->Add({"body"}, fmt::format("JSON nesting deeper than {} levels", kMaxJsonDepth),
                "json_invalid");
    return out;
  }
  Json parsed;
  try {
    parsed = Json::parse(body.begin(), body.end());
  } catch (const Json::parse_error& e) {
    size_t pos = e.byte > 0 ? e.byte - 1 : 0;
    errors->Add({"body", std::to_string(pos)}, "JSON decode error", "json_invalid");
    return out;
  } catch (const Json::exception& e) {
    errors->Add({"body"}, "JSON decode error", "json_invalid");
    return out;
  }
  if (!parsed.is_object()) {
    errors->Add({"body"}, "Input should be a valid dictionary or object to extract fields from",
                "model_attributes_type");
    return out;
  }
  out.object = std::move(parsed);
  return out;
}

const Json* BodyReader::Field(std::string_view name) const {
  auto it = body_.find(name);
  return it == body_.end() ? nullptr : &*it;
}

void BodyReader::Fail(std::string_view name, std::string message, std::string type) {
  errors_->Add({"body", std::string(name)}, std::move(message), std::move(type));
}

std::string BodyReader::RequiredString(std::string_view name) {
  const Json* v = Field(name);
  if (v == nullptr) {
    Fail(name, std::string(kMissing), "missing");
    return std::string();
  }
  if (!v->is_string()) {
    Fail(name, std::string(kStringType), "string_type");
    return std::string();
  }
  return v->get<std::string>();
}

std::optional<std::vector<std::string>> BodyReader::StringList(std::string_view name,
                                                               bool required) {
  const Json* v = Field(name);
  if (v == nullptr) {
    if (required) Fail(name, std::string(kMissing), "missing");
    return std::nullopt;
  }
  if (!v->is_array() ||
      !std::all_of(v->begin(), v->end(), [](const Json& item) { return item.is_string(); })) {
    Fail(name, "Input should be a valid list of strings", "list_type");
    return std::nullopt;
  }
  return v->get<std::vector<std::string>>();
}

std::string BodyReader::String(std::string_view name, std::string default_value) {
  const Json* v = Field(name);
  if (v == nullptr) return default_value;
  if (!v->is_string()) {
    Fail(name, std::string(kStringType), "string_type");
    return default_value;
  }
  return v->get<std::string>();
}

std::optional<std::string> BodyReader::OptionalString(std::string_view name) {
  const Json* v = Field(name);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_string()) {
    Fail(name, std::string(kStringType), "string_type");
    return std::nullopt;
  }
  return v->get<std::string>();
}

bool BodyReader::Bool(std::string_view name, bool default_value) {
  const Json* v = Field(name);
  if (v == nullptr) return default_value;
  if (v->is_boolean()) return v->get<bool>();
  if (v->is_number_integer()) {
    int64_t n = v->get<int64_t>();
    if (n == 0 || n == 1) return n == 1;
    Fail(name, std::string(kBoolParsing), "bool_parsing");
    return default_value;
  }
  if (v->is_string()) {
    bool parsed = default_value;
    if (ParseLaxBool(v->get<std::string>(), &parsed)) return parsed;
    Fail(name, std::string(kBoolParsing), "bool_parsing");
    return default_value;
  }
  Fail(name, std::string(kBoolType), "bool_type");
  return default_value;
}

int64_t BodyReader::Int(std::string_view name, int64_t default_value) {
  const Json* v = Field(name);
  if (v == nullptr) return default_value;
  int64_t value = default_value;
  if (auto error = LaxInt(*v, &value)) {
    Fail(name, std::string(error->first), std::string(error->second));
    return default_value;
  }
  return value;
}

int64_t BodyReader::RequiredInt(std::string_view name) {
  if (Field(name) == nullptr) {
    Fail(name, std::string(kMissing), "missing");
    return 0;
  }
  return Int(name, 0);
}

std::optional<Json> BodyReader::Object(std::string_view name, bool required) {
  const Json* v = Field(name);
  if (v == nullptr) {
    if (required) Fail(name, std::string(kMissing), "missing");
    return std::nullopt;
  }
  if (v->is_null() && !required) return std::nullopt;
  if (!v->is_object()) {
    Fail(name, "Input should be a valid dictionary", "dict_type");
    return std::nullopt;
  }
  return *v;
}

std::optional<int64_t> BodyReader::NullableInt(std::string_view name,
                                               std::optional<int64_t> default_value) {
  const Json* v = Field(name);
  if (v == nullptr) return default_value;
  if (v->is_null()) return std::nullopt;
  int64_t value = 0;
  if (auto error = LaxInt(*v, &value)) {
    Fail(name, std::string(error->first), std::string(error->second));
    return default_value;
  }
  return value;
}

std::optional<double> BodyReader::OptionalFloat(std::string_view name) {
  const Json* v = Field(name);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (v->is_number()) return v->get<double>();
  if (v->is_string()) {
    double parsed = 0;
    if (ParseDouble(Trim(v->get<std::string>()), &parsed)) return parsed;
    Fail(name, std::string(kFloatParsing), "float_parsing");
    return std::nullopt;
  }
  Fail(name, std::string(kFloatType), "float_type");
  return std::nullopt;
}

std::string BodyReader::Literal(std::string_view name, std::string default_value,
                                std::initializer_list<std::string_view> allowed) {
  const Json* v = Field(name);
  if (v == nullptr) return default_value;
  if (!v->is_string() || !IsAllowed(v->get<std::string>(), allowed)) {
    Fail(name, LiteralMessage(allowed), "literal_error");
    return default_value;
  }
  return v->get<std::string>();
}

std::optional<std::string> BodyReader::OptionalLiteral(
    std::string_view name, std::initializer_list<std::string_view> allowed) {
  const Json* v = Field(name);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_string() || !IsAllowed(v->get<std::string>(), allowed)) {
    Fail(name, LiteralMessage(allowed), "literal_error");
    return std::nullopt;
  }
  return v->get<std::string>();
}

bool BodyReader::Telemetry(std::string_view name, bool* summary) {
  *summary = false;
  const Json* v = Field(name);
  if (v == nullptr || v->is_null()) return false;
  if (v->is_boolean()) {
    *summary = v->get<bool>();
    return v->get<bool>();
  }
  if (v->is_object()) {
    for (const auto& [key, value] : v->items()) {
      if (key != "summary") {
        errors_->Add({"body", std::string(name), key}, "Extra inputs are not permitted",
                     "extra_forbidden");
        return false;
      }
      if (!value.is_boolean()) {
        errors_->Add({"body", std::string(name), key}, std::string(kBoolType), "bool_type");
        return false;
      }
      *summary = value.get<bool>();
    }
    return true;
  }
  Fail(name, "Input should be a valid boolean or an object {\"summary\": bool}", "value_error");
  return false;
}

void BodyReader::ForbidExtra(std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, unused] : body_.items()) {
    if (!IsAllowed(key, allowed)) Fail(key, "Extra inputs are not permitted", "extra_forbidden");
  }
}

// ---- envelopes ---------------------------------------------------------------

std::string OkEnvelope(const Json& result, const Json* telemetry) {
  return R"({"status":"ok","result":)" + DumpJson(result) + R"(,"error":null,"telemetry":)" +
         (telemetry != nullptr && !telemetry->is_null() ? DumpJson(*telemetry) : "null") +
         R"(,"profile":null})";
}

std::string OkEnvelopeExcludeNone(const Json& result, const Json* telemetry) {
  std::string out = R"({"status":"ok","result":)" + DumpJson(result);
  if (telemetry != nullptr && !telemetry->is_null())
    out += R"(,"telemetry":)" + DumpJson(*telemetry);
  out += "}";
  return out;
}

std::string ErrorEnvelope(std::string_view code, std::string_view message, const Json& details) {
  return R"({"status":"error","result":null,"error":{"code":)" + DumpJson(Json(code)) +
         R"(,"message":)" + DumpJson(Json(message)) + R"(,"details":)" + DumpJson(details) +
         R"(},"telemetry":null,"profile":null})";
}

std::string ErrorEnvelopeExcludeNone(std::string_view code, std::string_view message,
                                     const Json* details) {
  std::string out = R"({"status":"error","error":{"code":)" + DumpJson(Json(code)) +
                    R"(,"message":)" + DumpJson(Json(message));
  if (details != nullptr && !details->is_null()) out += R"(,"details":)" + DumpJson(*details);
  out += "}}";
  return out;
}

std::string BodyValidationEnvelope(std::string_view code, std::string_view message) {
  constexpr std::string_view kPrefix = "Invalid request parameters: body: ";
  const std::string_view reason =
      message.starts_with(kPrefix) ? message.substr(kPrefix.size()) : message;
  const Json details = {{"validation_errors", Json::array({{{"loc", {"body"}},
                                                            {"message", std::string(reason)},
                                                            {"type", "model_attributes_type"}}})}};
  return ErrorEnvelopeExcludeNone(code, message, &details);
}

int HttpStatusForCode(std::string_view code) {
  static const std::vector<std::pair<std::string_view, int>> table = {
      {"OK", 200},
      {"INVALID_ARGUMENT", 400},
      {"INVALID_URI", 400},
      {"UNSUPPORTED_URI", 400},
      {"UNSUPPORTED_MODE", 400},
      {"SKILL_INVALID", 400},
      {"SKILL_CAPABILITY_UNAVAILABLE", 400},
      {"INVALID_FILTER", 400},
      {"UNAUTHENTICATED", 401},
      {"PERMISSION_DENIED", 403},
      {"NOT_FOUND", 404},
      {"ALREADY_EXISTS", 409},
      {"CONFLICT", 409},
      {"ABORTED", 409},
      {"WRITE_CONFLICT", 409},
      {"SESSION_EXPIRED", 410},
      {"FAILED_PRECONDITION", 412},
      {"RESOURCE_EXHAUSTED", 429},
      {"UNIMPLEMENTED", 501},
      {"UNAVAILABLE", 503},
      {"MODEL_UNAVAILABLE", 503},
      {"BOT_RESTARTED", 503},
      {"NO_VECTOR_DB", 503},
      {"DEADLINE_EXCEEDED", 504},
  };
  for (const auto& [name, status] : table) {
    if (name == code) return status;
  }
  return 500;
}

int HttpStatusFor(const Status& status, std::string_view wire_code) {
  if (IsDiskFull(status)) return 507;
  return HttpStatusForCode(wire_code);
}

// ---- headers and identity ----------------------------------------------------

bool IsValidRequestId(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == ':' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string NewRequestId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng();
  uint64_t lo = rng();
  hi = (hi & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF,
                     hi & 0xFFFF, lo >> 48, lo & 0xFFFFFFFFFFFFULL);
}

std::string ContentDispositionAttachment(std::string_view filename) {
  std::string encoded;
  for (unsigned char c : filename) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '.' || c == '-' || c == '~' || c == '/';
    if (safe) {
      encoded += static_cast<char>(c);
    } else {
      encoded += fmt::format("%{:02X}", c);
    }
  }
  return "attachment; filename*=UTF-8''" + encoded;
}

namespace {

// InvalidArgument naming the header and the limit; the value is not echoed
// (it may be kilobytes long).
Status IdentifierTooLong(std::string_view header, std::string_view kind, size_t size) {
  return Status::InvalidArgument(
      fmt::format("Invalid {} header: {} ids have at most {} bytes, "
                  "this one has {}",
                  header, kind, kMaxIdentifierBytes, size));
}

}  // namespace

Result<Identity> DevIdentity(std::string_view account_header, std::string_view user_header) {
  Identity who;
  who.role = Role::kRoot;
  if (account_header.size() > kMaxIdentifierBytes) {
    return IdentifierTooLong("X-OpenViking-Account", "account", account_header.size());
  }
  if (user_header.size() > kMaxIdentifierBytes) {
    return IdentifierTooLong("X-OpenViking-User", "user", user_header.size());
  }
  if (!account_header.empty()) {
    if (!IsValidIdentifier(account_header, /*is_account=*/true)) {
      return Status::InvalidArgument(fmt::format(
          "Invalid X-OpenViking-Account header '{}': account ids match ^[a-zA-Z0-9_.@-]+$ "
          "and do not start with '_'",
          account_header));
    }
    who.account = std::string(account_header);
  }
  if (!user_header.empty()) {
    if (!IsValidIdentifier(user_header, /*is_account=*/false)) {
      return Status::InvalidArgument(fmt::format(
          "Invalid X-OpenViking-User header '{}': user ids match ^[a-zA-Z0-9_.@-]+$", user_header));
    }
    who.user = std::string(user_header);
  }
  return who;
}

// ---- shared by the resource and skill routes ----

// {"id", "summary"?: {operation, status, duration_ms}} for `telemetry`.
Json TelemetryPayload(std::string_view operation, bool summary,
                      std::chrono::steady_clock::time_point start) {
  // OpenViking's telemetry ids: "tm_" and 32 hex digits.
  std::string id = NewRequestId();
  id.erase(std::remove(id.begin(), id.end(), '-'), id.end());
  Json payload = {{"id", "tm_" + id}};
  if (summary) {
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    payload["summary"] = {{"operation", operation}, {"status", "ok"}, {"duration_ms", ms}};
  }
  return payload;
}

// "upload_<32 hex>[.<ext>]", the only form Db::TempUpload hands out. Anything
// else cannot be an upload of ours (and must not reach the file system).
bool IsWellFormedTempId(std::string_view id) {
  constexpr std::string_view kPrefix = "upload_";
  if (id.substr(0, kPrefix.size()) != kPrefix || id.size() < kPrefix.size() + 32) return false;
  for (size_t i = kPrefix.size(); i < kPrefix.size() + 32; ++i) {
    if (!IsHex(id[i])) return false;
  }
  std::string_view ext = id.substr(kPrefix.size() + 32);
  if (ext.empty()) return true;
  if (ext.front() != '.' || ext.size() > 17) return false;
  for (char c : ext.substr(1)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok || ext.find("..") != std::string_view::npos) return false;
  }
  return true;
}

Status ForgedTempId(std::string_view id) {
  return Status::PermissionDenied(
             fmt::format("temp_file_id '{}' is not a valid upload of this server (unknown, "
                         "expired or belonging to another user)",
                         id))
      .WithDetail("resource", std::string(id));
}

}  // namespace skald::server
