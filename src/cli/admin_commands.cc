#include "cli/admin_commands.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

#include "cli/remote_backend.h"
#include "common/time_util.h"

namespace skald::cli {
namespace {

std::string AccountPath(const std::string& account_id) {
  return "/api/v1/admin/accounts/" + PercentEncode(account_id);
}

std::string UserPath(const AdminRequest& r) {
  return AccountPath(r.account_id) + "/users/" + PercentEncode(r.user_id);
}

}  // namespace

AdminHttpCall AdminToHttp(const AdminRequest& r) {
  switch (r.op) {
    case AdminOp::kCreateAccount:
      return {"POST", "/api/v1/admin/accounts", {},
              DumpJson(Json{{"account_id", r.account_id}, {"admin_user_id", r.user_id}})};
    case AdminOp::kListAccounts:
      return {"GET", "/api/v1/admin/accounts", {}, ""};
    case AdminOp::kDeleteAccount:
      return {"DELETE", AccountPath(r.account_id), {}, ""};
    case AdminOp::kRegisterUser:
      return {"POST", AccountPath(r.account_id) + "/users", {},
              DumpJson(Json{{"user_id", r.user_id}, {"role", r.role}})};
    case AdminOp::kListUsers: {
      AdminHttpCall call{"GET", AccountPath(r.account_id) + "/users", {}, ""};
      call.params.emplace_back("limit", std::to_string(r.filter.limit));
      if (!r.filter.name.empty()) call.params.emplace_back("name", r.filter.name);
      if (!r.filter.role.empty()) call.params.emplace_back("role", r.filter.role);
      return call;
    }
    case AdminOp::kRemoveUser:
      return {"DELETE", UserPath(r), {}, ""};
    case AdminOp::kSetRole:
      return {"PUT", UserPath(r) + "/role", {}, DumpJson(Json{{"role", r.role}})};
    case AdminOp::kRegenerateKey:
      return {"POST", UserPath(r) + "/key", {}, "{}"};
  }
  return {"GET", "/api/v1/admin/accounts", {}, ""};
}

Result<Json> RunAdminOnDb(Db& db, const Identity& who, const AdminRequest& r) {
  switch (r.op) {
    case AdminOp::kCreateAccount: {
      SKALD_ASSIGN_OR_RETURN(NewAccount made, db.CreateAccount(who, r.account_id, r.user_id));
      return Json{{"account_id", made.account_id},
                  {"admin_user_id", made.admin_user_id},
                  {"user_key", made.user_key}};
    }
    case AdminOp::kListAccounts: {
      SKALD_ASSIGN_OR_RETURN(std::vector<AccountInfo> accounts, db.ListAccounts(who));
      Json out = Json::array();
      for (const AccountInfo& a : accounts) {
        out.push_back({{"account_id", a.account_id},
                       {"created_at", FormatIsoMillis(a.created_ns)},
                       {"user_count", a.user_count}});
      }
      return out;
    }
    case AdminOp::kDeleteAccount:
      SKALD_RETURN_IF_ERROR(db.DeleteAccount(who, r.account_id));
      return Json{{"deleted", true}};
    case AdminOp::kRegisterUser: {
      SKALD_ASSIGN_OR_RETURN(std::string key, db.RegisterUser(who, r.account_id, r.user_id, r.role));
      return Json{{"account_id", r.account_id}, {"user_id", r.user_id}, {"user_key", key}};
    }
    case AdminOp::kListUsers: {
      SKALD_ASSIGN_OR_RETURN(std::vector<UserInfo> users, db.ListUsers(who, r.account_id, r.filter));
      Json out = Json::array();
      for (const UserInfo& u : users) {
        out.push_back({{"user_id", u.user_id},
                       {"role", std::string(RoleName(u.role))},
                       {"key_prefix", u.key_prefix}});
      }
      return out;
    }
    case AdminOp::kRemoveUser: {
      SKALD_ASSIGN_OR_RETURN(UserRemoval removal, db.RemoveUser(who, r.account_id, r.user_id));
      return Json{{"account_id", removal.account_id},
                  {"user_id", removal.user_id},
                  {"status", "deleting"},
                  {"task_id", removal.task_id}};
    }
    case AdminOp::kSetRole:
      SKALD_RETURN_IF_ERROR(db.SetUserRole(who, r.account_id, r.user_id, r.role));
      return Json{{"account_id", r.account_id}, {"user_id", r.user_id}, {"role", r.role}};
    case AdminOp::kRegenerateKey: {
      SKALD_ASSIGN_OR_RETURN(std::string key, db.RegenerateKey(who, r.account_id, r.user_id));
      return Json{{"user_key", key}};
    }
  }
  return Status::InvalidArgument("unknown admin operation");
}

void RenderAdmin(const Json& result, std::ostream& out) {
  if (result.is_object()) {
    for (const auto& [key, value] : result.items()) out << key << ": " << ScalarText(value) << '\n';
    return;
  }
  if (!result.is_array()) {
    out << ScalarText(result) << '\n';
    return;
  }
  if (result.empty()) {
    out << "(none)\n";
    return;
  }
  std::vector<std::string> columns;
  if (result.front().is_object()) {
    for (const auto& [key, unused] : result.front().items()) columns.push_back(key);
  }
  for (size_t i = 0; i < columns.size(); ++i) out << (i ? "\t" : "") << columns[i];
  out << '\n';
  for (const Json& row : result) {
    for (size_t i = 0; i < columns.size(); ++i) {
      out << (i ? "\t" : "") << (row.contains(columns[i]) ? ScalarText(row[columns[i]]) : "");
    }
    out << '\n';
  }
}

void AddAdminCommands(CLI::App& app, std::function<int(const AdminRequest&)> execute,
                      std::function<int()>* action) {
  auto args = std::make_shared<AdminRequest>();
  CLI::App* admin = app.add_subcommand(
      "admin", "Manage accounts, users, roles and keys (remote: --api-key with the root key)");
  admin->require_subcommand(1);
  auto on = [args, execute, action](CLI::App* sub, AdminOp op) {
    sub->callback([args, execute, action, op] {
      args->op = op;
      *action = [args, execute] { return execute(*args); };
    });
  };

  CLI::App* create = admin->add_subcommand("create-account", "Create an account and its admin");
  create->add_option("account_id", args->account_id, "New account id")->required();
  create->add_option("--admin", args->user_id, "Id of the account's first (admin) user")
      ->required();
  on(create, AdminOp::kCreateAccount);

  CLI::App* list_accounts = admin->add_subcommand("list-accounts", "List accounts");
  on(list_accounts, AdminOp::kListAccounts);

  CLI::App* del = admin->add_subcommand("delete-account", "Delete an account and all its data");
  del->add_option("account_id", args->account_id, "Account id")->required();
  on(del, AdminOp::kDeleteAccount);

  CLI::App* reg = admin->add_subcommand("register-user", "Add a user to an account");
  reg->add_option("account_id", args->account_id, "Account id")->required();
  reg->add_option("user_id", args->user_id, "New user id")->required();
  reg->add_option("--role", args->role, "user or admin")->capture_default_str();
  on(reg, AdminOp::kRegisterUser);

  CLI::App* users = admin->add_subcommand("list-users", "List an account's users");
  users->add_option("account_id", args->account_id, "Account id")->required();
  users->add_option("--limit", args->filter.limit, "Maximum number of users")
      ->capture_default_str();
  users->add_option("--name", args->filter.name, "Only user ids matching this glob");
  users->add_option("--role", args->filter.role, "Only users with this role (user or admin)");
  on(users, AdminOp::kListUsers);

  CLI::App* remove = admin->add_subcommand(
      "remove-user", "Remove a user: its key stops working now, its data is deleted in the "
                     "background");
  remove->add_option("account_id", args->account_id, "Account id")->required();
  remove->add_option("user_id", args->user_id, "User id")->required();
  on(remove, AdminOp::kRemoveUser);

  CLI::App* role = admin->add_subcommand("set-role", "Change a user's role (promotion to admin)");
  role->add_option("account_id", args->account_id, "Account id")->required();
  role->add_option("user_id", args->user_id, "User id")->required();
  role->add_option("role", args->role, "New role (admin)")->required();
  on(role, AdminOp::kSetRole);

  CLI::App* key = admin->add_subcommand(
      "regenerate-key", "Give a user a new key; the old one stops working at once");
  key->add_option("account_id", args->account_id, "Account id")->required();
  key->add_option("user_id", args->user_id, "User id")->required();
  on(key, AdminOp::kRegenerateKey);
}

}  // namespace skald::cli
