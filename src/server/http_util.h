#pragma once

// HTTP-level helpers of the server that do not need a socket: query-string
// parsing, FastAPI-compatible parameter validation, response envelopes, the
// wire-code -> HTTP-status table, request ids and header encodings.
//
// Thread safety: free functions are pure (NewRequestId uses a thread-local
// generator); reader objects are used by one request thread.

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/json_util.h"
#include "skald/result.h"
#include "skald/status.h"
#include "skald/types.h"

namespace skald::server {

// ---- validation errors (FastAPI's RequestValidationError, rewritten) -------

// One failed field: loc ["query","node_limit"], pydantic's message and type.
struct FieldError {
  std::vector<std::string> loc;
  std::string message;
  std::string type;
};

class ValidationErrors {
 public:
  void Add(std::vector<std::string> loc, std::string message, std::string type);
  // Adds "Input should be less than or equal to <max>" for `where`.`name`
  // ("query"/"body") when `value` is above `max`.
  void CheckAtMost(std::string_view where, std::string_view name, int64_t value, int64_t max);
  // A request's tag list within common/tags.h's bounds (64 tags of at most
  // 1,024 characters), else pydantic's too_long / string_too_long errors.
  void CheckTagList(std::string_view name, const std::vector<std::string>& tags);
  bool empty() const { return errors_.empty(); }
  const std::vector<FieldError>& errors() const { return errors_; }
  // "Invalid request parameters: query.node_limit: Input should be a valid integer, ..."
  // (the first error, as OpenViking's handler words it).
  std::string Message() const;
  // {"validation_errors":[{"loc":[...],"message":...,"type":...}, ...]}
  Json Details() const;

 private:
  std::vector<FieldError> errors_;
};

// ---- query string -----------------------------------------------------------

// The decoded query string: (name, value) pairs in order.
class QueryParams {
 public:
  // Parses the raw part after '?': pairs split on '&', '+' means space, then
  // %XX decoding (as Starlette does). InvalidArgument when a name or value
  // is not valid UTF-8 after decoding.
  static Result<QueryParams> Parse(std::string_view raw);

  // The last value given for `name` (Starlette's rule), nullopt when absent.
  std::optional<std::string> Get(std::string_view name) const;
  const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

// Typed reads of query parameters with FastAPI/pydantic semantics. A bad
// value adds a validation error (loc ["query", name]) and yields the default.
class QueryReader {
 public:
  QueryReader(const QueryParams& query, ValidationErrors* errors)
      : query_(query), errors_(errors) {}

  std::string RequiredString(std::string_view name);
  std::string String(std::string_view name, std::string default_value);
  // Booleans: true/false/1/0/yes/no/on/off/t/f/y/n, case-insensitive.
  bool Bool(std::string_view name, bool default_value);
  int64_t Int(std::string_view name, int64_t default_value);
  // Int, where a value below `minimum` adds pydantic's greater_than_equal
  // error when no error came before it (the value is returned as is).
  int64_t IntAtLeast(std::string_view name, int64_t default_value, int64_t minimum);
  std::optional<int64_t> OptionalInt(std::string_view name);
  std::optional<double> OptionalFloat(std::string_view name);
  // A value restricted to `allowed` (pydantic literal_error otherwise).
  std::string Literal(std::string_view name, std::string default_value,
                      std::initializer_list<std::string_view> allowed);
  std::optional<std::string> OptionalLiteral(std::string_view name,
                                             std::initializer_list<std::string_view> allowed);

 private:
  const QueryParams& query_;
  ValidationErrors* errors_;
};

// ---- JSON body --------------------------------------------------------------

// Outcome of reading a request body as a JSON object.
struct BodyParse {
  // The object, when the body was one.
  std::optional<Json> object;
  // Set when the body could not be read at all (invalid UTF-8): FastAPI's
  // HTTP 400 "There was an error parsing the body".
  std::optional<std::string> fatal_message;
};

// Reads `body` as a JSON object. Empty body, malformed JSON and non-objects
// add FastAPI-style validation errors (loc ["body"...]).
BodyParse ParseBodyObject(std::string_view body, ValidationErrors* errors);

// Typed reads of fields of a JSON body object with pydantic (lax) semantics;
// a bad value adds a validation error (loc ["body", name]).
class BodyReader {
 public:
  BodyReader(const Json& body, ValidationErrors* errors) : body_(body), errors_(errors) {}

  std::string RequiredString(std::string_view name);
  std::string String(std::string_view name, std::string default_value);
  // Absent or null -> nullopt.
  std::optional<std::string> OptionalString(std::string_view name);
  // A list of strings: absent → nullopt (an error too when `required`),
  // null or anything but a list of strings → an error ("list_type").
  std::optional<std::vector<std::string>> StringList(std::string_view name, bool required);
  bool Bool(std::string_view name, bool default_value);
  int64_t Int(std::string_view name, int64_t default_value);
  // Absent -> default_value; null -> nullopt (Optional[int] = default).
  std::optional<int64_t> NullableInt(std::string_view name, std::optional<int64_t> default_value);
  // Absent or null -> nullopt.
  std::optional<double> OptionalFloat(std::string_view name);
  std::string Literal(std::string_view name, std::string default_value,
                      std::initializer_list<std::string_view> allowed);
  // Absent or null -> nullopt.
  std::optional<std::string> OptionalLiteral(std::string_view name,
                                             std::initializer_list<std::string_view> allowed);
  // OpenViking's `telemetry: bool | {"summary": bool}`. Returns whether a
  // telemetry payload is wanted; *summary says whether it carries a summary.
  bool Telemetry(std::string_view name, bool* summary);
  // A required int: absent -> an error ("missing") and 0.
  int64_t RequiredInt(std::string_view name);
  // A JSON object (Dict[str, Any]): absent -> nullopt (an error too when
  // `required`); null -> nullopt (an error when `required`); anything else
  // -> an error ("dict_type").
  std::optional<Json> Object(std::string_view name, bool required);
  // extra="forbid": every field not in `allowed` is an error ("extra_forbidden").
  void ForbidExtra(std::initializer_list<std::string_view> allowed);

 private:
  const Json* Field(std::string_view name) const;
  void Fail(std::string_view name, std::string message, std::string type);

  const Json& body_;
  ValidationErrors* errors_;
};

// ---- envelopes ---------------------------------------------------------------

// {"status":"ok","result":R,"error":null,"telemetry":null,"profile":null}
// `telemetry`: the top-level member when given (else null).
std::string OkEnvelope(const Json& result, const Json* telemetry = nullptr);
// {"status":"ok","result":R} (+ "telemetry" when given): routes that
// serialise with exclude_none (content/write, ...).
std::string OkEnvelopeExcludeNone(const Json& result, const Json* telemetry = nullptr);
// OpenVikingError style, nulls kept:
// {"status":"error","result":null,"error":{code,message,details},"telemetry":null,"profile":null}
std::string ErrorEnvelope(std::string_view code, std::string_view message, const Json& details);
// Framework style (validation, HTTPException), nulls omitted:
// {"status":"error","error":{"code","message"[,"details"]}}
std::string ErrorEnvelopeExcludeNone(std::string_view code, std::string_view message,
                                     const Json* details = nullptr);

// A body refused as validation refuses it: ErrorEnvelopeExcludeNone with
// details.validation_errors [{"loc":["body"],"message":<the reason: `message`
// without its "Invalid request parameters: body: " prefix>,
// "type":"model_attributes_type"}].
std::string BodyValidationEnvelope(std::string_view code, std::string_view message);

// HTTP status of a wire error code (reference §1.4); unknown codes -> 500.
int HttpStatusForCode(std::string_view code);

// HTTP status of a failed operation: 507 Insufficient Storage for a full
// disk (IsDiskFull: the client must free space, retrying does not help),
// else HttpStatusForCode(`wire_code`). REQUIRES: !status.ok().
int HttpStatusFor(const Status& status, std::string_view wire_code);

// ---- headers and identity ----------------------------------------------------

inline constexpr std::string_view kRequestIdHeader = "X-Request-ID";
inline constexpr std::string_view kInvalidRequestIdMessage =
    "X-Request-ID must be supplied once and contain 1-128 characters from [A-Za-z0-9._:-]";

// 1-128 characters from [A-Za-z0-9._:-].
bool IsValidRequestId(std::string_view id);
// A random version-4 UUID, "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx".
std::string NewRequestId();

// "attachment; filename*=UTF-8''<name percent-encoded like Python's quote()>".
std::string ContentDispositionAttachment(std::string_view filename);

// Dev-mode identity: ROOT, account/user from the X-OpenViking-Account/User
// header values (empty = "default"). InvalidArgument for a bad identifier.
Result<Identity> DevIdentity(std::string_view account_header, std::string_view user_header);

// ---- shared by the resource and skill routes ----

// The `telemetry` member of a response: {"id": "tm_<32 hex>", "summary"?:
// {operation, status, duration_ms since `start`}}.
Json TelemetryPayload(std::string_view operation, bool summary,
                      std::chrono::steady_clock::time_point start);

// "upload_<32 hex>[.<ext>]", the only form Db::TempUpload hands out. Anything
// else cannot be an upload of ours (and must not reach the file system).
bool IsWellFormedTempId(std::string_view id);

// PermissionDenied for a temp_file_id that is not the caller's upload
// (unknown, expired, forged or another user's: ids must not be probeable).
Status ForgedTempId(std::string_view id);

}  // namespace skald::server
