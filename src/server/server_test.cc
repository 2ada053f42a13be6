// Unit tests of the server's socket-free parts: query parsing, FastAPI-style
// validation, envelopes, status table, request ids and header encodings.

#include "common/env.h"
#include "server/http_util.h"
#include "server/unbuilt_routes.h"

#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace skald::server {
namespace {

Json ParseOrDie(const std::string& text) { return Json::parse(text); }

TEST(QueryParamsTest, DecodesPercentAndPlusLikeStarlette) {
  auto q = QueryParams::Parse("uri=viking%3A%2F%2Fresources%2Fa+b&x=%E4%BD%A0&flag&empty=");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->Get("uri"), "viking://resources/a b");
  EXPECT_EQ(q->Get("x"), "\xE4\xBD\xA0");
  EXPECT_EQ(q->Get("flag"), "");
  EXPECT_EQ(q->Get("empty"), "");
  EXPECT_EQ(q->Get("missing"), std::nullopt);
}

TEST(QueryParamsTest, LastValueWinsAndEncodedPlusStaysPlus) {
  auto q = QueryParams::Parse("a=1&a=2&p=%2B&bad=%zz");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->Get("a"), "2");
  EXPECT_EQ(q->Get("p"), "+");
  EXPECT_EQ(q->Get("bad"), "%zz");
}

TEST(QueryParamsTest, RejectsInvalidUtf8) {
  auto q = QueryParams::Parse("uri=%FF%FE");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(q.status().message().find("'uri'"), std::string::npos);
}

TEST(QueryReaderTest, BooleansAcceptFastApiSpellings) {
  for (const char* t : {"true", "TRUE", "1", "yes", "On", "t", "Y"}) {
    auto q = QueryParams::Parse(std::string("b=") + t);
    ValidationErrors errors;
    QueryReader reader(*q, &errors);
    EXPECT_TRUE(reader.Bool("b", false)) << t;
    EXPECT_TRUE(errors.empty()) << t;
  }
  for (const char* f : {"false", "False", "0", "no", "OFF", "f", "n"}) {
    auto q = QueryParams::Parse(std::string("b=") + f);
    ValidationErrors errors;
    QueryReader reader(*q, &errors);
    EXPECT_FALSE(reader.Bool("b", true)) << f;
    EXPECT_TRUE(errors.empty()) << f;
  }
  auto q = QueryParams::Parse("b=maybe");
  ValidationErrors errors;
  QueryReader reader(*q, &errors);
  EXPECT_TRUE(reader.Bool("b", true));
  ASSERT_EQ(errors.errors().size(), 1u);
  EXPECT_EQ(errors.errors()[0].type, "bool_parsing");
}

TEST(QueryReaderTest, IntegerErrorsLookLikeFastApi) {
  auto q = QueryParams::Parse("node_limit=abc");
  ValidationErrors errors;
  QueryReader reader(*q, &errors);
  EXPECT_EQ(reader.Int("node_limit", 1000), 1000);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors.Message(),
            "Invalid request parameters: query.node_limit: Input should be a valid integer, "
            "unable to parse string as an integer");
  Json details = errors.Details();
  ASSERT_EQ(details["validation_errors"].size(), 1u);
  EXPECT_EQ(details["validation_errors"][0]["loc"], Json::array({"query", "node_limit"}));
  EXPECT_EQ(details["validation_errors"][0]["type"], "int_parsing");
}

TEST(QueryReaderTest, MissingRequiredAndLiterals) {
  auto q = QueryParams::Parse("sort_by=size&sort_order=desc");
  ValidationErrors errors;
  QueryReader reader(*q, &errors);
  reader.RequiredString("uri");
  EXPECT_EQ(reader.OptionalLiteral("sort_by", {"name", "mtime"}), std::nullopt);
  EXPECT_EQ(reader.Literal("sort_order", "asc", {"asc", "desc"}), "desc");
  ASSERT_EQ(errors.errors().size(), 2u);
  EXPECT_EQ(errors.errors()[0].message, "Field required");
  EXPECT_EQ(errors.errors()[0].type, "missing");
  EXPECT_EQ(errors.errors()[1].message, "Input should be 'name' or 'mtime'");
  EXPECT_EQ(errors.errors()[1].type, "literal_error");
  EXPECT_EQ(errors.Message(), "Invalid request parameters: query.uri: Field required");
}

TEST(BodyTest, MalformedEmptyAndNonObjectBodies) {
  ValidationErrors errors;
  BodyParse parsed = ParseBodyObject("{\"uri\": ", &errors);
  EXPECT_FALSE(parsed.object.has_value());
  ASSERT_EQ(errors.errors().size(), 1u);
  EXPECT_EQ(errors.errors()[0].type, "json_invalid");
  EXPECT_EQ(errors.errors()[0].loc[0], "body");

  ValidationErrors empty;
  EXPECT_FALSE(ParseBodyObject("", &empty).object.has_value());
  ASSERT_EQ(empty.errors().size(), 1u);
  EXPECT_EQ(empty.errors()[0].type, "missing");

  ValidationErrors array;
  EXPECT_FALSE(ParseBodyObject("[1,2]", &array).object.has_value());
  ASSERT_EQ(array.errors().size(), 1u);
  EXPECT_EQ(array.errors()[0].type, "model_attributes_type");
}

TEST(BodyTest, InvalidUtf8IsFatalAndDeepNestingRefused) {
  ValidationErrors errors;
  BodyParse parsed = ParseBodyObject("{\"uri\": \"\xFF\"}", &errors);
  ASSERT_TRUE(parsed.fatal_message.has_value());
  EXPECT_EQ(*parsed.fatal_message, "There was an error parsing the body");

  ValidationErrors deep;
  std::string nested = "{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_FALSE(ParseBodyObject(nested, &deep).object.has_value());
  EXPECT_FALSE(deep.empty());
}

TEST(BodyReaderTest, TypesFollowPydanticLaxRules) {
  Json body = ParseOrDie(
      R"({"s": 5, "i": "12", "f": 3.5, "whole": 4.0, "b": "yes", "b2": 2, "n": null,
          "lit": "nope", "ok": "append"})");
  ValidationErrors errors;
  BodyReader reader(body, &errors);
  EXPECT_EQ(reader.RequiredString("s"), "");              // string_type
  EXPECT_EQ(reader.Int("i", 0), 12);                      // numeric string accepted
  EXPECT_EQ(reader.Int("f", 7), 7);                       // int_from_float
  EXPECT_EQ(reader.Int("whole", 0), 4);                   // whole float accepted
  EXPECT_TRUE(reader.Bool("b", false));                   // "yes"
  EXPECT_FALSE(reader.Bool("b2", false));                 // bool_parsing
  EXPECT_EQ(reader.OptionalString("n"), std::nullopt);    // null allowed
  EXPECT_EQ(reader.NullableInt("n", 256), std::nullopt);  // null -> no limit
  EXPECT_EQ(reader.NullableInt("absent", 256), 256);
  EXPECT_EQ(reader.Literal("lit", "replace", {"replace", "append", "create"}), "replace");
  EXPECT_EQ(reader.Literal("ok", "replace", {"replace", "append", "create"}), "append");
  std::vector<std::string> types;
  for (const FieldError& e : errors.errors()) types.push_back(e.type);
  EXPECT_EQ(types, (std::vector<std::string>{"string_type", "int_from_float", "bool_parsing",
                                             "literal_error"}));
  EXPECT_EQ(errors.errors().back().message, "Input should be 'replace', 'append' or 'create'");
}

TEST(BodyReaderTest, ForbidExtraAndTelemetry) {
  Json body = ParseOrDie(R"({"uri": "x", "extra": 1, "telemetry": {"summary": true}})");
  ValidationErrors errors;
  BodyReader reader(body, &errors);
  bool summary = false;
  EXPECT_TRUE(reader.Telemetry("telemetry", &summary));
  EXPECT_TRUE(summary);
  reader.ForbidExtra({"uri", "telemetry"});
  ASSERT_EQ(errors.errors().size(), 1u);
  EXPECT_EQ(errors.errors()[0].loc, (std::vector<std::string>{"body", "extra"}));
  EXPECT_EQ(errors.errors()[0].type, "extra_forbidden");

  Json bad = ParseOrDie(R"({"telemetry": {"details": true}})");
  ValidationErrors bad_errors;
  BodyReader bad_reader(bad, &bad_errors);
  EXPECT_FALSE(bad_reader.Telemetry("telemetry", &summary));
  EXPECT_FALSE(bad_errors.empty());
}

TEST(EnvelopeTest, OkEnvelopesKeepOrOmitNulls) {
  Json ok = ParseOrDie(OkEnvelope(Json{{"uri", "viking://resources"}}));
  EXPECT_EQ(ok["status"], "ok");
  EXPECT_EQ(ok["result"]["uri"], "viking://resources");
  ASSERT_TRUE(ok.contains("error"));
  EXPECT_TRUE(ok["error"].is_null());
  EXPECT_TRUE(ok["telemetry"].is_null());
  EXPECT_TRUE(ok["profile"].is_null());

  Json lean = ParseOrDie(OkEnvelopeExcludeNone(Json{{"task_id", nullptr}}));
  EXPECT_EQ(lean.size(), 2u);
  EXPECT_FALSE(lean.contains("error"));
  EXPECT_TRUE(lean["result"].contains("task_id"));  // nested nulls are kept
}

TEST(EnvelopeTest, ErrorEnvelopes) {
  Json full = ParseOrDie(ErrorEnvelope("NOT_FOUND", "File not found: x", Json{{"a", "b"}}));
  EXPECT_EQ(full["status"], "error");
  EXPECT_TRUE(full["result"].is_null());
  EXPECT_EQ(full["error"]["code"], "NOT_FOUND");
  EXPECT_EQ(full["error"]["details"]["a"], "b");

  Json lean = ParseOrDie(ErrorEnvelopeExcludeNone("NOT_FOUND", "Not Found"));
  EXPECT_EQ(lean, ParseOrDie(R"({"status":"error","error":{"code":"NOT_FOUND","message":"Not Found"}})"));
}

TEST(EnvelopeTest, DiskFullIs507NotTheRetryable429) {
  EXPECT_EQ(HttpStatusFor(DiskFullError("write failed"), "RESOURCE_EXHAUSTED"), 507);
  // Other exhausted resources keep the table's status.
  EXPECT_EQ(HttpStatusFor(Status::ResourceExhausted("too many files"), "RESOURCE_EXHAUSTED"), 429);
  EXPECT_EQ(HttpStatusFor(Status::NotFound("x"), "NOT_FOUND"), 404);
}

TEST(EnvelopeTest, StatusTableMatchesReference) {
  EXPECT_EQ(HttpStatusForCode("INVALID_ARGUMENT"), 400);
  EXPECT_EQ(HttpStatusForCode("INVALID_URI"), 400);
  EXPECT_EQ(HttpStatusForCode("UNAUTHENTICATED"), 401);
  EXPECT_EQ(HttpStatusForCode("PERMISSION_DENIED"), 403);
  EXPECT_EQ(HttpStatusForCode("NOT_FOUND"), 404);
  EXPECT_EQ(HttpStatusForCode("CONFLICT"), 409);
  EXPECT_EQ(HttpStatusForCode("ALREADY_EXISTS"), 409);
  EXPECT_EQ(HttpStatusForCode("SESSION_EXPIRED"), 410);
  EXPECT_EQ(HttpStatusForCode("FAILED_PRECONDITION"), 412);
  EXPECT_EQ(HttpStatusForCode("RESOURCE_EXHAUSTED"), 429);
  EXPECT_EQ(HttpStatusForCode("UNIMPLEMENTED"), 501);
  EXPECT_EQ(HttpStatusForCode("UNAVAILABLE"), 503);
  EXPECT_EQ(HttpStatusForCode("DEADLINE_EXCEEDED"), 504);
  EXPECT_EQ(HttpStatusForCode("INTERNAL"), 500);
  EXPECT_EQ(HttpStatusForCode("SOMETHING_NEW"), 500);
}

TEST(HeadersTest, RequestIds) {
  EXPECT_TRUE(IsValidRequestId("abc-123_x.y:z"));
  EXPECT_TRUE(IsValidRequestId(std::string(128, 'a')));
  EXPECT_FALSE(IsValidRequestId(std::string(129, 'a')));
  EXPECT_FALSE(IsValidRequestId(""));
  EXPECT_FALSE(IsValidRequestId("has space"));
  EXPECT_FALSE(IsValidRequestId("slash/"));
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    std::string id = NewRequestId();
    ASSERT_EQ(id.size(), 36u);
    EXPECT_EQ(id[14], '4');
    EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos);
    EXPECT_TRUE(IsValidRequestId(id));
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(HeadersTest, ContentDispositionEncodesLikePythonQuote) {
  EXPECT_EQ(ContentDispositionAttachment("notes.md"), "attachment; filename*=UTF-8''notes.md");
  EXPECT_EQ(ContentDispositionAttachment("a b\"\xE4\xBD\xA0.txt"),
            "attachment; filename*=UTF-8''a%20b%22%E4%BD%A0.txt");
}

TEST(IdentityTest, DevIdentityValidatesHeaders) {
  auto defaults = DevIdentity("", "");
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->account, "default");
  EXPECT_EQ(defaults->user, "default");
  EXPECT_EQ(defaults->role, Role::kRoot);

  auto custom = DevIdentity("acme", "alice@acme");
  ASSERT_TRUE(custom.ok());
  EXPECT_EQ(custom->account, "acme");
  EXPECT_EQ(custom->user, "alice@acme");

  EXPECT_FALSE(DevIdentity("_system", "").ok());
  EXPECT_TRUE(DevIdentity("", "_bob").ok());  // only accounts may not start with '_'
  EXPECT_FALSE(DevIdentity("a/b", "").ok());
  EXPECT_FALSE(DevIdentity("", "..").ok());
  EXPECT_FALSE(DevIdentity("", "a@b@c").ok());
  EXPECT_EQ(DevIdentity("bad name", "").status().code(), StatusCode::kInvalidArgument);
  // Ids have at most 128 bytes; the error names the header and the limit.
  EXPECT_TRUE(DevIdentity(std::string(128, 'a'), std::string(128, 'u')).ok());
  auto long_account = DevIdentity(std::string(129, 'a'), "");
  EXPECT_EQ(long_account.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(long_account.status().message().find("X-OpenViking-Account"), std::string::npos);
  EXPECT_NE(long_account.status().message().find("128"), std::string::npos);
  auto long_user = DevIdentity("", std::string(300, 'u'));
  EXPECT_NE(long_user.status().message().find("X-OpenViking-User"), std::string::npos);
}

TEST(UnbuiltRoutesTest, OpenVikingRoutesNotBuiltAreKnownOthersAreNot) {
  for (const auto& [method, path] : std::vector<std::pair<const char*, const char*>>{
           {"GET", "/api/v1/acl"},
           {"POST", "/mcp"},
           {"POST", "/api/v1/acl/grant"},
           {"GET", "/api/v1/stats/sessions/s1"},
           {"POST", "/api/v1/content/batch-write"},
           {"POST", "/api/v1/admin/migrate"},
           {"PATCH", "/api/v1/admin/accounts/a1/settings"},
           {"GET", "/api/v1/admin/accounts/a1/users/u1/settings"},
           {"GET", "/api/v1/system/sync/viking:%2F%2Fresources"},
       }) {
    EXPECT_TRUE(IsUnbuiltOpenVikingRoute(method, path)) << method << " " << path;
  }
  for (const auto& [method, path] : std::vector<std::pair<const char*, const char*>>{
           {"GET", "/api/v1/packs"},
           {"POST", "/api/v1/pack/export"},  // built (routes_pack.cc)
           {"POST", "/api/v1/pack/import"},
           {"GET", "/api/v1/snapshot/log"},  // built (routes_snapshot.cc)
           {"POST", "/api/v1/search/recall"},  // built (routes_search.cc)
           {"DELETE", "/api/v1/snapshot/ignore"},
           {"POST", "/api/v1/system/consistency"},  // built (routes_system.cc)
           {"POST", "/api/v1/system/backend/sync-status"},
           {"POST", "/api/v1/system/consistency/x"},
           {"GET", "/api/v1/admin/accounts/a1/users"},
           {"GET", "/api/v1/admin/accounts//settings"},
           {"GET", "/api/v1/nothing"},
           {"GET", "/"},
           {"GET", ""},
       }) {
    EXPECT_FALSE(IsUnbuiltOpenVikingRoute(method, path)) << method << " " << path;
  }
}

}  // namespace
}  // namespace skald::server
