#include "uri/viking_uri.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "common/strings.h"
#include "uri/path_variables.h"

namespace skald {
namespace {

using std::chrono::sys_days;
using std::chrono::system_clock;

Identity Caller(std::string user, Role role = Role::kUser) {
  Identity id;
  id.account = "acme";
  id.user = std::move(user);
  id.role = role;
  return id;
}

UriParseOptions As(const Identity& who) {
  UriParseOptions options;
  options.identity = &who;
  return options;
}

UriParseOptions Internal() {
  UriParseOptions options;
  options.allow_internal_scopes = true;
  return options;
}

// Canonical text of a successful parse, or "ERROR: <status>" so that a
// failure shows what went wrong in the assertion message.
std::string Canon(std::string_view text, const UriParseOptions& options = {}) {
  Result<VikingUri> r = VikingUri::Parse(text, options);
  if (!r.ok()) return "ERROR: " + r.status().ToString();
  return r->str();
}

std::string Detail(const Status& s, std::string_view key) {
  for (const auto& [k, v] : s.details()) {
    if (k == key) return v;
  }
  return "<missing>";
}

// Asserts an INVALID_URI error and returns its reason detail.
std::string InvalidReason(std::string_view text, const UriParseOptions& options = {}) {
  Result<VikingUri> r = VikingUri::Parse(text, options);
  if (r.ok()) {
    ADD_FAILURE() << "parsed: " << r->str();
    return "";
  }
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().ToString();
  EXPECT_EQ(r.status().reason(), "INVALID_URI");
  return Detail(r.status(), "reason");
}

bool Denied(std::string_view text, const UriParseOptions& options = {}) {
  Result<VikingUri> r = VikingUri::Parse(text, options);
  return !r.ok() && r.status().code() == StatusCode::kPermissionDenied;
}

system_clock::time_point Utc(int y, unsigned m, unsigned d, int hour = 12) {
  sys_days day = std::chrono::year_month_day{std::chrono::year{y}, std::chrono::month{m},
                                             std::chrono::day{d}};
  return system_clock::time_point(day) + std::chrono::hours(hour);
}

std::string Var(std::string_view key, system_clock::time_point now) {
  UriParseOptions options;
  options.now = now;
  Result<VikingUri> r = VikingUri::Parse("viking://resources/{calendar:" + std::string(key) + "}",
                                         options);
  if (!r.ok()) return "ERROR: " + r.status().ToString();
  return std::string(r->path().substr(std::string_view("resources/").size()));
}

// --- Syntax and canonical form -------------------------------------------

TEST(VikingUriTest, ParsesRootForms) {
  for (const char* text : {"viking://", "viking:///", "viking:////", "  viking://  "}) {
    Result<VikingUri> r = VikingUri::Parse(text);
    ASSERT_TRUE(r.ok()) << text << ": " << r.status().ToString();
    EXPECT_TRUE(r->is_root());
    EXPECT_EQ(r->str(), "viking://");
    EXPECT_EQ(r->path(), "");
    EXPECT_EQ(r->scope(), "");
    EXPECT_EQ(r->name(), "");
    EXPECT_EQ(r->depth(), 0u);
    EXPECT_EQ(*r, VikingUri());
  }
}

TEST(VikingUriTest, CollapsesTrailingSlash) {
  EXPECT_EQ(Canon("viking://resources/x/"), "viking://resources/x");
  EXPECT_EQ(Canon("viking://resources///"), "viking://resources");
}

TEST(VikingUriTest, CollapsesEmptySegments) {
  EXPECT_EQ(Canon("viking://resources//a/"), "viking://resources/a");
  EXPECT_EQ(Canon("viking:///resources///a//b"), "viking://resources/a/b");
  EXPECT_EQ(Canon("viking://user//alice//memories/", As(Caller("alice"))),
            "viking://user/alice/memories");
}

TEST(VikingUriTest, DropsQueryPart) {
  EXPECT_EQ(Canon("viking://resources/a?x=1"), "viking://resources/a");
  EXPECT_EQ(Canon("viking://resources/a/?x=1/b"), "viking://resources/a");
  EXPECT_EQ(Canon("viking://resources?"), "viking://resources");
  EXPECT_EQ(Canon("viking://?resources"), "viking://");
}

TEST(VikingUriTest, TrimsSurroundingWhitespace) {
  EXPECT_EQ(Canon(" \t viking://resources/a \r\n"), "viking://resources/a");
}

TEST(VikingUriTest, ExposesPathScopeNameAndSegments) {
  Result<VikingUri> r = VikingUri::Parse("viking://resources/docs/api.md");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->path(), "resources/docs/api.md");
  EXPECT_EQ(r->scope(), "resources");
  EXPECT_EQ(r->name(), "api.md");
  EXPECT_EQ(r->depth(), 3u);
  EXPECT_EQ(r->segments(), (std::vector<std::string>{"resources", "docs", "api.md"}));
  EXPECT_FALSE(r->is_root());
}

TEST(VikingUriTest, KeepsUnicodeSegments) {
  EXPECT_EQ(Canon("viking://resources/文档/説明 v2.md"), "viking://resources/文档/説明 v2.md");
}

TEST(VikingUriTest, DoesNotPercentDecode) {
  Result<VikingUri> r = VikingUri::Parse("viking://resources/%2e%2e/a%20b");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->segments()[1], "%2e%2e");
  EXPECT_EQ(r->name(), "a%20b");
}

TEST(VikingUriTest, KeepsLiteralTildeBeyondFirstSegment) {
  EXPECT_EQ(Canon("viking://resources/~/x"), "viking://resources/~/x");
  EXPECT_EQ(Canon("viking://user/alice/~/x", As(Caller("alice"))), "viking://user/alice/~/x");
}

TEST(VikingUriTest, AcceptsSegmentsLongerThan255Bytes) {
  std::string name(300, 'n');
  EXPECT_EQ(Canon("viking://resources/" + name), "viking://resources/" + name);
  std::string cjk;
  for (int i = 0; i < 200; ++i) cjk += "文";  // 600 bytes
  EXPECT_EQ(Canon("viking://resources/" + cjk + "/x"), "viking://resources/" + cjk + "/x");
}

TEST(VikingUriTest, CapsUriLength) {
  std::string prefix = "viking://resources/";
  std::string fits = prefix + std::string(kMaxUriBytes - prefix.size(), 'a');
  EXPECT_EQ(Canon(fits), fits);
  std::string too_long = fits + "a";
  EXPECT_EQ(InvalidReason(too_long), "uri is longer than 4096 bytes");
  // The echo in the message is bounded even for huge input.
  Result<VikingUri> r = VikingUri::Parse(std::string(100000, 'x'));
  ASSERT_FALSE(r.ok());
  EXPECT_LT(r.status().message().size(), 700u);
}

TEST(VikingUriTest, CapsCanonicalLengthAfterHomeExpansion) {
  Identity alice = Caller("alice");
  std::string text = "viking://~/" + std::string(kMaxUriBytes - 12, 'a');
  ASSERT_LE(text.size(), kMaxUriBytes);
  EXPECT_EQ(InvalidReason(text, As(alice)), "canonical uri is longer than 4096 bytes");
}

// --- Errors ----------------------------------------------------------------

TEST(VikingUriTest, RejectsEmptyAndBlank) {
  for (const char* text : {"", "   ", "\t\n"}) {
    Result<VikingUri> r = VikingUri::Parse(text);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().reason(), "INVALID_URI");
    EXPECT_EQ(Detail(r.status(), "reason"), "uri must not be empty");
  }
  EXPECT_EQ(VikingUri::Parse("").status().message(), "Invalid URI:  (uri must not be empty)");
}

TEST(VikingUriTest, ErrorCarriesMessageReasonAndDetails) {
  Result<VikingUri> r = VikingUri::Parse("viking://bogus/x");
  ASSERT_FALSE(r.ok());
  const Status& s = r.status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.reason(), "INVALID_URI");
  EXPECT_EQ(s.message(),
            "Invalid URI: viking://bogus/x (Invalid scope 'bogus'. Must be one of: agent, queue, "
            "resources, session, temp, upload, user)");
  ASSERT_EQ(s.details().size(), 2u);
  EXPECT_EQ(s.details()[0], (Status::Detail{"uri", "viking://bogus/x"}));
  EXPECT_EQ(s.details()[1].first, "reason");
  EXPECT_EQ(s.details()[1].second,
            "Invalid scope 'bogus'. Must be one of: agent, queue, resources, session, temp, "
            "upload, user");
}

TEST(VikingUriTest, RejectsOtherSchemes) {
  EXPECT_EQ(InvalidReason("http://invalid-scheme/resources/test"), "unsupported URI scheme 'http'");
  EXPECT_EQ(InvalidReason("s3://bucket/key"), "unsupported URI scheme 's3'");
  EXPECT_EQ(InvalidReason("VIKING://resources"), "unsupported URI scheme 'VIKING'");
  EXPECT_EQ(InvalidReason("viking:/resources"), "URI must start with 'viking://'");
  EXPECT_EQ(InvalidReason("viking:resources"), "URI must start with 'viking://'");
}

TEST(VikingUriTest, RejectsMissingScheme) {
  EXPECT_EQ(InvalidReason("resources/docs"), "URI must start with 'viking://'");
  EXPECT_EQ(InvalidReason("/resources/docs"), "URI must start with 'viking://'");
  EXPECT_EQ(InvalidReason("://resources"), "URI must start with 'viking://'");
}

TEST(VikingUriTest, RejectsUnknownScope) {
  const std::string list = ". Must be one of: agent, queue, resources, session, temp, upload, user";
  EXPECT_EQ(InvalidReason("viking://sessions/test_session"), "Invalid scope 'sessions'" + list);
  EXPECT_EQ(InvalidReason("viking://_system/x"), "Invalid scope '_system'" + list);
  EXPECT_EQ(InvalidReason("viking://Resources"), "Invalid scope 'Resources'" + list);
  EXPECT_EQ(InvalidReason("viking://../etc"), "Invalid scope '..'" + list);
}

TEST(VikingUriTest, RejectsInternalScopesUnlessAllowed) {
  for (const char* scope : {"temp", "queue", "upload"}) {
    std::string text = std::string("viking://") + scope + "/x";
    EXPECT_EQ(InvalidReason(text),
              std::string("Invalid scope '") + scope +
                  "'. Must be one of: agent, resources, session, user");
    EXPECT_EQ(Canon(text, Internal()), text);
  }
}

TEST(VikingUriTest, AcceptsPublicScopes) {
  EXPECT_EQ(Canon("viking://resources"), "viking://resources");
  EXPECT_EQ(Canon("viking://user"), "viking://user");
  EXPECT_EQ(Canon("viking://agent/skills/pdf"), "viking://agent/skills/pdf");
}

TEST(VikingUriTest, RejectsInvalidUtf8WithPrintableEcho) {
  Result<VikingUri> r = VikingUri::Parse("viking://resources/\xff\xfe");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().reason(), "INVALID_URI");
  EXPECT_EQ(Detail(r.status(), "reason"), "uri is not valid UTF-8");
  EXPECT_EQ(Detail(r.status(), "uri"), "viking://resources/\\xFF\\xFE");
  EXPECT_TRUE(IsValidUtf8(r.status().message()));
  EXPECT_EQ(InvalidReason("viking://resources/\xc0\xaf"), "uri is not valid UTF-8");  // overlong
  EXPECT_EQ(InvalidReason("viking://resources/\xed\xa0\x80"), "uri is not valid UTF-8");  // surrogate
}

TEST(VikingUriTest, RejectsControlCharacters) {
  EXPECT_EQ(InvalidReason(std::string("viking://resources/a\0b", 22)),
            "uri contains control character U+0000");
  EXPECT_EQ(InvalidReason("viking://resources/a\x01"), "uri contains control character U+0001");
  EXPECT_EQ(InvalidReason("viking://resources/a\tb"), "uri contains control character U+0009");
  EXPECT_EQ(InvalidReason("viking://resources/a\x7f"), "uri contains control character U+007F");
  EXPECT_EQ(InvalidReason("viking://resources/a\xc2\x85"), "uri contains control character U+0085");
  // The echo shows the byte instead of embedding it.
  Result<VikingUri> r = VikingUri::Parse(std::string("viking://resources/a\0b", 22));
  EXPECT_EQ(Detail(r.status(), "uri"), "viking://resources/a\\x00b");
  // U+00A0 (C2 A0) is not a control character.
  EXPECT_EQ(Canon("viking://resources/a\xc2\xa0" "b"), "viking://resources/a\xc2\xa0" "b");
}

TEST(VikingUriTest, RejectsSegmentEndingInSpace) {
  EXPECT_EQ(InvalidReason("viking://resources/a /b"), "path segment 'a ' ends with a space");
  // A trailing space on the whole text is trimmed instead.
  EXPECT_EQ(Canon("viking://resources/a "), "viking://resources/a");
  EXPECT_EQ(Canon("viking://resources/ a"), "viking://resources/ a");
}

TEST(VikingUriTest, DeniesTraversalSegments) {
  Result<VikingUri> r = VikingUri::Parse("viking://resources/../../../etc/passwd");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(r.status().message().find("viking://resources/../../../etc/passwd"), std::string::npos)
      << r.status().message();
  EXPECT_EQ(Detail(r.status(), "resource"), "viking://resources/../../../etc/passwd");
  EXPECT_TRUE(Denied("viking://resources/a/./b"));
  EXPECT_TRUE(Denied("viking://resources/a/.."));
  EXPECT_TRUE(Denied("viking://user/.."));
  EXPECT_TRUE(Denied("viking://~/../bob", As(Caller("alice"))));
}

TEST(VikingUriTest, DeniesBackslashAndDriveSegments) {
  EXPECT_TRUE(Denied("viking://resources/a\\b"));
  EXPECT_TRUE(Denied("viking://resources/..\\etc"));
  EXPECT_TRUE(Denied("viking://resources/C:"));
  EXPECT_TRUE(Denied("viking://resources/c:x.md"));
  EXPECT_TRUE(Denied("viking://resources/docs/Z:/x"));
  // Not drive prefixes: the colon is not second, or the first byte is no letter.
  EXPECT_EQ(Canon("viking://resources/ab:c"), "viking://resources/ab:c");
  EXPECT_EQ(Canon("viking://resources/1:x"), "viking://resources/1:x");
  EXPECT_EQ(Canon("viking://resources/:x"), "viking://resources/:x");
  EXPECT_EQ(Canon("viking://resources/.hidden/..x/x.."), "viking://resources/.hidden/..x/x..");
}

// --- Aliases and the user namespace -----------------------------------------

TEST(VikingUriTest, ExpandsHomeAliasForUserAndAdmin) {
  for (Role role : {Role::kUser, Role::kAdmin}) {
    Identity alice = Caller("alice", role);
    EXPECT_EQ(Canon("viking://~", As(alice)), "viking://user/alice");
    EXPECT_EQ(Canon("viking://~/", As(alice)), "viking://user/alice");
    EXPECT_EQ(Canon("viking://~/memories/m.md", As(alice)), "viking://user/alice/memories/m.md");
    EXPECT_EQ(Canon("viking://~//resources/", As(alice)), "viking://user/alice/resources");
  }
}

TEST(VikingUriTest, RejectsHomeAliasForRootOrNoIdentity) {
  Identity root = Caller("default", Role::kRoot);
  EXPECT_EQ(InvalidReason("viking://~/memories", As(root)),
            "Home alias URI is not canonical: ~/memories");
  EXPECT_EQ(InvalidReason("viking://~"), "Home alias URI is not canonical: ~");
}

TEST(VikingUriTest, RejectsHomeAliasWhenCallerUidIsNotAnIdentifier) {
  Identity odd = Caller("bad id");
  EXPECT_NE(InvalidReason("viking://~/x", As(odd)).find("Invalid user_id 'bad id'"),
            std::string::npos);
  Identity empty = Caller("");
  EXPECT_NE(InvalidReason("viking://~", As(empty)).find("Invalid user_id ''"), std::string::npos);
}

TEST(VikingUriTest, ExpandsLegacySessionScope) {
  Identity alice = Caller("alice");
  EXPECT_EQ(Canon("viking://session", As(alice)), "viking://user/alice/sessions");
  EXPECT_EQ(Canon("viking://session/s1/messages.jsonl", As(alice)),
            "viking://user/alice/sessions/s1/messages.jsonl");
  Identity root = Caller("default", Role::kRoot);
  EXPECT_EQ(InvalidReason("viking://session/s1", As(root)),
            "Legacy session URI is not canonical: session/s1");
  EXPECT_EQ(InvalidReason("viking://session"), "Legacy session URI is not canonical: session");
}

TEST(VikingUriTest, RejectsReservedUidlessUserSegments) {
  Identity alice = Caller("alice");
  for (const char* word : {"memories", "resources", "skills", "peers", "privacy", "sessions"}) {
    std::string reason = InvalidReason(std::string("viking://user/") + word + "/x", As(alice));
    EXPECT_NE(reason.find(std::string("'viking://~/") + word + "/x'"), std::string::npos)
        << reason;
    EXPECT_NE(reason.find("reserved"), std::string::npos) << reason;
  }
  EXPECT_NE(InvalidReason("viking://user/skills/invalid", As(Caller("bob", Role::kAdmin)))
                .find("viking://~/skills/invalid"),
            std::string::npos);
}

TEST(VikingUriTest, AllowsReservedWordThatIsTheCallersUid) {
  Identity memories = Caller("memories");
  EXPECT_EQ(Canon("viking://user/memories/memories/m.md", As(memories)),
            "viking://user/memories/memories/m.md");
  EXPECT_EQ(Canon("viking://~", As(memories)), "viking://user/memories");
}

TEST(VikingUriTest, ReservedWordsAreRejectedForRootUnlessItIsTheCallersUid) {
  // Dev mode is all ROOT, and OpenViking's clients expect
  // `viking://user/skills/invalid` to be a 400 there.
  Identity root = Caller("default", Role::kRoot);
  EXPECT_NE(InvalidReason("viking://user/memories/x", As(root)).find("reserved name"),
            std::string::npos);
  EXPECT_NE(InvalidReason("viking://user/skills").find("reserved name"), std::string::npos);
  Identity literal = Caller("skills", Role::kRoot);
  EXPECT_EQ(Canon("viking://user/skills/x", As(literal)), "viking://user/skills/x");
}

TEST(VikingUriTest, ValidatesUserAndPeerIds) {
  EXPECT_EQ(Canon("viking://user/a.b-c_d@example.com"), "viking://user/a.b-c_d@example.com");
  EXPECT_NE(InvalidReason("viking://user/bad$id").find("Invalid user_id 'bad$id'"),
            std::string::npos);
  EXPECT_NE(InvalidReason("viking://user/a@b@c/x").find("Invalid user_id"), std::string::npos);
  EXPECT_NE(InvalidReason("viking://user/~/x", As(Caller("alice"))).find("Invalid user_id '~'"),
            std::string::npos);
  EXPECT_NE(InvalidReason("viking://user/文/x").find("Invalid user_id"), std::string::npos);
  EXPECT_EQ(Canon("viking://user/alice/peers/bot-1/memories"),
            "viking://user/alice/peers/bot-1/memories");
  EXPECT_EQ(Canon("viking://user/alice/peers"), "viking://user/alice/peers");
  EXPECT_NE(InvalidReason("viking://user/alice/peers/bad peer/memories")
                .find("Invalid peer_id 'bad peer'"),
            std::string::npos);
  EXPECT_NE(InvalidReason("viking://user/alice/peers/x@y@z").find("Invalid peer_id"),
            std::string::npos);
  // Only the uid and peer positions are identifiers.
  EXPECT_EQ(Canon("viking://user/alice/resources/any name!.md"),
            "viking://user/alice/resources/any name!.md");
}

// --- Path variables ----------------------------------------------------------

TEST(VikingUriTest, ResolvesCalendarVariables) {
  const auto now = Utc(2026, 5, 7);  // a Thursday
  EXPECT_EQ(Var("today", now), "2026/05/07");
  EXPECT_EQ(Var("yesterday", now), "2026/05/06");
  EXPECT_EQ(Var("tomorrow", now), "2026/05/08");
  EXPECT_EQ(Var("year", now), "2026");
  EXPECT_EQ(Var("month", now), "05");
  EXPECT_EQ(Var("day", now), "07");
  EXPECT_EQ(Var("ym", now), "2026/05");
  EXPECT_EQ(Var("quarter", now), "Q2");
  EXPECT_EQ(Var("yq", now), "2026/Q2");
  EXPECT_EQ(Var("week", now), "19");
  EXPECT_EQ(Var("yw", now), "2026/w19");
}

TEST(VikingUriTest, CalendarVariablesHandleBoundaries) {
  EXPECT_EQ(Var("yesterday", Utc(2024, 3, 1)), "2024/02/29");
  EXPECT_EQ(Var("yesterday", Utc(2026, 3, 1)), "2026/02/28");
  EXPECT_EQ(Var("tomorrow", Utc(2025, 12, 31)), "2026/01/01");
  EXPECT_EQ(Var("quarter", Utc(2026, 3, 31)), "Q1");
  EXPECT_EQ(Var("quarter", Utc(2026, 4, 1)), "Q2");
  EXPECT_EQ(Var("quarter", Utc(2026, 12, 1)), "Q4");
  // ISO weeks: 2027-01-01 (Friday) is in week 53 of 2026; 2024-12-30
  // (Monday) opens week 1 of 2025; 2026-01-04 (Sunday) closes week 1.
  EXPECT_EQ(Var("yw", Utc(2027, 1, 1)), "2026/w53");
  EXPECT_EQ(Var("week", Utc(2027, 1, 1)), "53");
  EXPECT_EQ(Var("yw", Utc(2024, 12, 30)), "2025/w01");
  EXPECT_EQ(Var("year", Utc(2024, 12, 30)), "2024");
  EXPECT_EQ(Var("yw", Utc(2026, 1, 4)), "2026/w01");
  EXPECT_EQ(Var("yw", Utc(2026, 1, 5)), "2026/w02");
}

TEST(VikingUriTest, CalendarVariablesUseUtc) {
  EXPECT_EQ(Var("today", Utc(2026, 5, 7, 0)), "2026/05/07");
  EXPECT_EQ(Var("today", Utc(2026, 5, 7, 0) + std::chrono::hours(24) - std::chrono::seconds(1)),
            "2026/05/07");
}

TEST(VikingUriTest, EpochNowMeansSystemClock) {
  auto today = std::chrono::floor<std::chrono::days>(system_clock::now());
  std::chrono::year_month_day ymd{today};
  std::string expected = std::to_string(static_cast<int>(ymd.year()));
  std::string got = Var("year", system_clock::time_point{});
  // Allow a year boundary between the two clock reads.
  EXPECT_TRUE(got == expected || got == std::to_string(static_cast<int>(ymd.year()) + 1)) << got;
}

TEST(VikingUriTest, ResolvesVariablesBeforeValidation) {
  UriParseOptions options;
  options.now = Utc(2026, 5, 7);
  EXPECT_EQ(Canon("viking://resources/logs/{calendar:today}/inbox/", options),
            "viking://resources/logs/2026/05/07/inbox");
  EXPECT_EQ(Canon("viking://resources/{calendar:year}-{calendar:month}", options),
            "viking://resources/2026-05");
  // A variable can even form the scope, which then fails as any bad scope.
  EXPECT_NE(InvalidReason("viking://{calendar:year}/x", options).find("Invalid scope '2026'"),
            std::string::npos);
}

TEST(VikingUriTest, RejectsUnknownVariables) {
  EXPECT_EQ(InvalidReason("viking://resources/{calendar:decade}"),
            "Cannot resolve variables in URI: {calendar:decade}");
  EXPECT_EQ(InvalidReason("viking://resources/{weather:today}/{calendar:today}/{a:b}"),
            "Cannot resolve variables in URI: {a:b}, {weather:today}");
  // A substitution that completes a new placeholder is not silently kept.
  EXPECT_EQ(InvalidReason("viking://resources/{{calendar:year}x:y}"),
            "Cannot resolve variables in URI: {" + Var("year", {}) + "x:y}");
}

TEST(VikingUriTest, KeepsBracesThatAreNotVariables) {
  EXPECT_EQ(Canon("viking://resources/{notavar}/{a b:c}/{:x}/{x:}"),
            "viking://resources/{notavar}/{a b:c}/{:x}/{x:}");
}

TEST(PathVariablesTest, DetectsAndResolvesPlaceholders) {
  EXPECT_TRUE(HasPathVariables("a/{calendar:today}"));
  EXPECT_FALSE(HasPathVariables("a/{calendar today}"));
  EXPECT_FALSE(HasPathVariables("{calendar:}"));
  Result<std::string> r = ResolvePathVariables("x/{calendar:ym}/{calendar:ym}", Utc(2026, 11, 2));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "x/2026/11/2026/11");
  EXPECT_EQ(ResolvePathVariables("{x:y}", {}).status().code(), StatusCode::kInvalidArgument);
}

// --- Round trips, navigation and classification ------------------------------

TEST(VikingUriTest, CanonicalFormRoundTrips) {
  Identity alice = Caller("alice");
  UriParseOptions options = As(alice);
  options.allow_internal_scopes = true;
  options.now = Utc(2026, 5, 7);
  for (const char* text :
       {"viking://", "viking://resources//a/b/", "viking://~/memories/x.md?y",
        "viking://session/s1", "viking://user/alice/peers/p1/memories/", "viking://temp/alice/t",
        "viking://resources/{calendar:today}", "viking://resources/ a/b c/文", "viking://agent",
        "viking://resources/%41/{x}/~"}) {
    Result<VikingUri> first = VikingUri::Parse(text, options);
    ASSERT_TRUE(first.ok()) << text << ": " << first.status().ToString();
    Result<VikingUri> second = VikingUri::Parse(first->str(), options);
    ASSERT_TRUE(second.ok()) << first->str() << ": " << second.status().ToString();
    EXPECT_EQ(*second, *first);
    EXPECT_EQ(second->segments(), first->segments());
  }
}

TEST(VikingUriTest, NavigatesParentsAndChildren) {
  VikingUri u = *VikingUri::Parse("viking://resources/a/b");
  EXPECT_EQ(u.Parent().str(), "viking://resources/a");
  EXPECT_EQ(u.Parent().Parent().str(), "viking://resources");
  EXPECT_EQ(u.Parent().Parent().Parent().str(), "viking://");
  EXPECT_TRUE(VikingUri().Parent().is_root());
  EXPECT_EQ(u.Child("c.md").str(), "viking://resources/a/b/c.md");
  EXPECT_EQ(VikingUri().Child("resources").str(), "viking://resources");
  EXPECT_EQ(u.Child("c").Parent(), u);
  EXPECT_EQ(VikingUri::Parse("viking://user/alice")->Parent().str(), "viking://user");
}

TEST(VikingUriTest, ContainsIsSegmentWise) {
  VikingUri root;
  VikingUri a = *VikingUri::Parse("viking://resources/a");
  VikingUri ab = *VikingUri::Parse("viking://resources/a/b");
  VikingUri abc = *VikingUri::Parse("viking://resources/abc");
  EXPECT_TRUE(root.Contains(ab));
  EXPECT_TRUE(a.Contains(a));
  EXPECT_TRUE(a.Contains(ab));
  EXPECT_FALSE(ab.Contains(a));
  EXPECT_FALSE(a.Contains(abc));  // not a string prefix test
  EXPECT_FALSE(ab.Contains(root));
}

TEST(VikingUriTest, BuildsFromSegments) {
  VikingUri u = VikingUri::FromSegments({"user", "alice", "memories"});
  EXPECT_EQ(u.str(), "viking://user/alice/memories");
  EXPECT_EQ(u, *VikingUri::Parse("viking://user/alice/memories"));
  EXPECT_TRUE(VikingUri::FromSegments({}).is_root());
  EXPECT_LT(*VikingUri::Parse("viking://resources/a"), *VikingUri::Parse("viking://resources/b"));
}

TEST(VikingUriTest, ClassifiesContextType) {
  struct Case {
    const char* uri;
    ContextType type;
  };
  const Case cases[] = {
      {"viking://", ContextType::kResource},
      {"viking://resources/docs/a.md", ContextType::kResource},
      {"viking://resources/memories/x", ContextType::kResource},
      {"viking://user", ContextType::kResource},
      {"viking://user/alice", ContextType::kResource},
      {"viking://user/alice/memories", ContextType::kMemory},
      {"viking://user/alice/memories/prefs/style.md", ContextType::kMemory},
      {"viking://user/alice/resources/a.md", ContextType::kResource},
      {"viking://user/alice/skills/pdf/SKILL.md", ContextType::kSkill},
      {"viking://user/alice/sessions/s1/messages.jsonl", ContextType::kMemory},
      {"viking://user/alice/sessions/s1/history/archive_001/excerpt_0001.md",
       ContextType::kMemory},
      {"viking://user/alice/privacy/x", ContextType::kResource},
      {"viking://user/alice/peers/bot/memories/m.md", ContextType::kMemory},
      {"viking://user/alice/peers/bot/resources/r.md", ContextType::kResource},
      {"viking://user/alice/peers/bot/skills/s", ContextType::kResource},
      {"viking://user/alice/peers/bot", ContextType::kResource},
      {"viking://user/alice/peers/memories", ContextType::kResource},
      {"viking://agent", ContextType::kResource},
      {"viking://agent/skills", ContextType::kSkill},
      {"viking://agent/skills/pdf", ContextType::kSkill},
      {"viking://agent/skills/memories/x", ContextType::kSkill},
      {"viking://agent/tools/t", ContextType::kResource},
      {"viking://agent/bot/memories/m", ContextType::kMemory},
      {"viking://agent/bot/skills/s", ContextType::kSkill},
      {"viking://agent/bot/resources/r", ContextType::kResource},
      {"viking://agent/bot/notes/n", ContextType::kResource},
  };
  for (const Case& c : cases) {
    Result<VikingUri> u = VikingUri::Parse(c.uri);
    ASSERT_TRUE(u.ok()) << c.uri << ": " << u.status().ToString();
    EXPECT_EQ(ContextTypeName(u->context_type()), ContextTypeName(c.type)) << c.uri;
  }
}

TEST(VikingUriTest, ValidSegmentMatchesWhatParseKeeps) {
  for (const char* ok : {"a", "a b", " a", "文档", ".hidden", "..x", "%2e", "{x}", "~",
                         "a#b", "ab:c", "1:x"}) {
    EXPECT_TRUE(VikingUri::IsValidSegment(ok)) << ok;
    EXPECT_EQ(Canon(std::string("viking://resources/") + ok + "/z"),
              std::string("viking://resources/") + ok + "/z");
  }
  for (const char* bad : {"", ".", "..", "a/b", "a\\b", "a?b", "C:", "c:x", "a ", "\x01",
                          "\x7f", "\xc2\x85", "\xff", "{calendar:today}", "x{a:b}y"}) {
    EXPECT_FALSE(VikingUri::IsValidSegment(bad)) << bad;
  }
  EXPECT_FALSE(VikingUri::IsValidSegment(std::string_view("a\0b", 3)));
}

TEST(VikingUriTest, ValidatesIdentifiers) {
  for (const char* ok : {"alice", "A1", "a.b", "a-b_c", "a@b.c", "_svc", "..a", "a.."}) {
    EXPECT_TRUE(IsValidIdentifier(ok)) << ok;
  }
  for (const char* bad : {"", ".", "..", "a b", "a/b", "a@b@c", "a$", "文", "~", "a:b"}) {
    EXPECT_FALSE(IsValidIdentifier(bad)) << bad;
  }
  EXPECT_FALSE(IsValidIdentifier("_svc", /*is_account=*/true));
  EXPECT_TRUE(IsValidIdentifier("svc_", /*is_account=*/true));
  // At most kMaxIdentifierBytes (128) bytes, for user ids in URIs too.
  EXPECT_TRUE(IsValidIdentifier(std::string(128, 'a'), /*is_account=*/true));
  EXPECT_FALSE(IsValidIdentifier(std::string(129, 'a'), /*is_account=*/true));
  EXPECT_TRUE(VikingUri::Parse("viking://user/" + std::string(128, 'u') + "/memories").ok());
  auto too_long = VikingUri::Parse("viking://user/" + std::string(129, 'u') + "/memories");
  EXPECT_EQ(too_long.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(too_long.status().message().find("128 bytes"), std::string::npos)
      << too_long.status().ToString();
}

}  // namespace
}  // namespace skald
