// Admin routes (reference §2.9): accounts, users, roles and keys. Who may do
// what is decided by the Db (service/account_registry.h); these handlers
// only translate the wire format. Unknown body fields are ignored (admin
// bodies allow extras); `seed` and `user_config` are accepted and ignored:
// keys are always random.

#include <fmt/format.h>

#include "common/strings.h"
#include "common/time_util.h"
#include "server/auth.h"
#include "server/routes.h"

namespace skald::server {
namespace {

constexpr std::string_view kAccounts = "/api/v1/admin/accounts";
constexpr std::string_view kAccount = "/api/v1/admin/accounts/{}";
constexpr std::string_view kUsers = "/api/v1/admin/accounts/{}/users";
constexpr std::string_view kUser = "/api/v1/admin/accounts/{}/users/{}";
constexpr std::string_view kUserRole = "/api/v1/admin/accounts/{}/users/{}/role";
constexpr std::string_view kUserKey = "/api/v1/admin/accounts/{}/users/{}/key";
constexpr int64_t kDefaultUserLimit = 100;

// `seed` is accepted and ignored (keys are random), but an empty one is a
// 400, as OpenViking validates it.
void CheckSeed(BodyReader& b, ValidationErrors* errors) {
  std::optional<std::string> seed = b.OptionalString("seed");
  if (seed && Trim(*seed).empty()) {
    errors->Add({"body", "seed"}, "seed must not be empty", "value_error");
  }
}

void CreateAccount(Call& call, bool show_key) {
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  const std::string account_id = b.RequiredString("account_id");
  const std::string admin_user_id = b.RequiredString("admin_user_id");
  CheckSeed(b, &errors);
  if (!errors.empty()) return call.FailValidation(errors);
  Result<NewAccount> made = call.db().CreateAccount(call.who(), account_id, admin_user_id);
  if (!made.ok()) return call.Fail(made.status());
  Json out = {{"account_id", made->account_id}, {"admin_user_id", made->admin_user_id}};
  if (show_key) out["user_key"] = made->user_key;
  call.Ok(out);
}

void ListAccounts(Call& call) {
  Result<std::vector<AccountInfo>> accounts = call.db().ListAccounts(call.who());
  if (!accounts.ok()) return call.Fail(accounts.status());
  Json out = Json::array();
  for (const AccountInfo& a : *accounts) {
    out.push_back({{"account_id", a.account_id},
                   {"created_at", FormatIsoMillis(a.created_ns)},
                   {"user_count", a.user_count}});
  }
  call.Ok(out);
}

void DeleteAccount(Call& call) {
  const std::vector<std::string> p = PatternParameters(call, kAccount);
  Status deleted = call.db().DeleteAccount(call.who(), p.at(0));
  if (!deleted.ok()) return call.Fail(deleted);
  call.Ok(Json{{"deleted", true}});
}

void RegisterUser(Call& call, bool show_key) {
  const std::vector<std::string> p = PatternParameters(call, kUsers);
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  const std::string user_id = b.RequiredString("user_id");
  const std::string role = b.String("role", "user");
  CheckSeed(b, &errors);
  if (!errors.empty()) return call.FailValidation(errors);
  Result<std::string> key = call.db().RegisterUser(call.who(), p.at(0), user_id, role);
  if (!key.ok()) return call.Fail(key.status());
  Json out = {{"account_id", p.at(0)}, {"user_id", user_id}};
  if (show_key) out["user_key"] = *key;
  call.Ok(out);
}

// ?limit=100&name=<fnmatch>&role=
void ListUsers(Call& call) {
  const std::vector<std::string> p = PatternParameters(call, kUsers);
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  UserFilter filter;
  filter.limit = ClampToInt(q.Int("limit", kDefaultUserLimit));
  filter.name = q.String("name", "");
  filter.role = q.String("role", "");
  if (!errors.empty()) return call.FailValidation(errors);
  Result<std::vector<UserInfo>> users = call.db().ListUsers(call.who(), p.at(0), filter);
  if (!users.ok()) return call.Fail(users.status());
  Json out = Json::array();
  for (const UserInfo& u : *users) {
    out.push_back({{"user_id", u.user_id},
                   {"role", std::string(RoleName(u.role))},
                   {"key_prefix", u.key_prefix}});
  }
  call.Ok(out);
}

// HTTP 202: the key is revoked now, the data goes in the background.
void RemoveUser(Call& call) {
  const std::vector<std::string> p = PatternParameters(call, kUser);
  Result<UserRemoval> removal = call.db().RemoveUser(call.who(), p.at(0), p.at(1));
  if (!removal.ok()) return call.Fail(removal.status());
  call.OkWithStatus(202, Json{{"account_id", removal->account_id},
                              {"user_id", removal->user_id},
                              {"status", "deleting"},
                              {"task_id", removal->task_id}});
}

void SetRole(Call& call) {
  const std::vector<std::string> p = PatternParameters(call, kUserRole);
  std::optional<Json> body = call.BodyObject();
  if (!body.has_value()) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  const std::string role = b.RequiredString("role");
  if (!errors.empty()) return call.FailValidation(errors);
  Status set = call.db().SetUserRole(call.who(), p.at(0), p.at(1), role);
  if (!set.ok()) return call.Fail(set);
  call.Ok(Json{{"account_id", p.at(0)}, {"user_id", p.at(1)}, {"role", role}});
}

// The body ({seed?}) is optional.
void RegenerateKey(Call& call) {
  const std::vector<std::string> p = PatternParameters(call, kUserKey);
  Result<std::string> key = call.db().RegenerateKey(call.who(), p.at(0), p.at(1));
  if (!key.ok()) return call.Fail(key.status());
  call.Ok(Json{{"user_key", *key}});
}

}  // namespace

void RegisterAdminRoutes(Router& router, const Authenticator& auth) {
  // Trusted mode has no use for keys (the gateway asserts identities).
  const bool show_key = auth.mode() != AuthMode::kTrusted;
  router.Add("POST", std::string(kAccounts),
             [show_key](Call& call) { CreateAccount(call, show_key); });
  router.Add("GET", std::string(kAccounts), ListAccounts);
  router.AddPattern("DELETE", std::string(kAccount), DeleteAccount);
  router.AddPattern("POST", std::string(kUsers),
                    [show_key](Call& call) { RegisterUser(call, show_key); });
  router.AddPattern("GET", std::string(kUsers), ListUsers);
  router.AddPattern("DELETE", std::string(kUser), RemoveUser);
  router.AddPattern("PUT", std::string(kUserRole), SetRole);
  router.AddPattern("POST", std::string(kUserKey), RegenerateKey);
}

}  // namespace skald::server
