#include "service/account_registry.h"

#include <fnmatch.h>

#include <filesystem>
#include <fstream>
#include <mutex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/time_util.h"
#include "ingest/import_job.h"
#include "ingest/index_catch_up.h"
#include "service/api_key.h"
#include "service/fs_engine.h"
#include "service/snapshot_ops.h"
#include "service/uri_resolver.h"
#include "uri/viking_uri.h"

namespace skald {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kDefaultAccount = "default";

Status AlreadyExists(Status status) {
  if (status.code() == StatusCode::kAlreadyExists) {
    return std::move(status).WithReason("ALREADY_EXISTS");
  }
  return status;
}

Status CheckId(std::string_view id, bool is_account) {
  const char* what = is_account ? "account_id" : "user_id";
  if (id.empty()) return Status::InvalidArgument(fmt::format("{} must not be empty", what));
  if (id.size() > kMaxIdentifierBytes) {
    return Status::InvalidArgument(
        fmt::format("{} has {} bytes; at most {} are allowed", what, id.size(), kMaxIdentifierBytes));
  }
  if (!IsValidIdentifier(id, is_account)) {
    return Status::InvalidArgument(fmt::format(
        "invalid {} '{}': ids match ^[a-zA-Z0-9_.@-]+$ with at most one '@'{}", what, id,
        is_account ? " and do not start with '_'" : ""));
  }
  return Status::Ok();
}

Status CheckRoot(const Identity& who) {
  if (who.role == Role::kRoot) return Status::Ok();
  return Status::PermissionDenied("This operation requires the ROOT role");
}

// ROOT manages every account; an ADMIN only its own.
Status CheckManage(const Identity& who, std::string_view account_id) {
  if (who.role == Role::kRoot) return Status::Ok();
  if (who.role == Role::kAdmin && who.account == account_id) return Status::Ok();
  if (who.role == Role::kAdmin) {
    return Status::PermissionDenied("An ADMIN can only manage users of its own account")
        .WithDetail("resource", std::string(account_id));
  }
  return Status::PermissionDenied("Managing users requires the ADMIN or ROOT role");
}

// "user" / "admin"; ROOT is never assignable.
Result<Role> ParseAssignableRole(std::string_view role) {
  if (role == "user") return Role::kUser;
  if (role == "admin") return Role::kAdmin;
  if (role == "root") return Status::PermissionDenied("The root role cannot be assigned");
  return Status::InvalidArgument(
      fmt::format("invalid role '{}': use \"user\" or \"admin\"", role));
}

Role RoleFromRow(const UserRow& row) { return row.role == "admin" ? Role::kAdmin : Role::kUser; }

Status AccountNotFound(std::string_view account_id) {
  return Status::NotFound(fmt::format("Account not found: {}", account_id))
      .WithDetail("resource", std::string(account_id))
      .WithDetail("type", "account");
}

Status UserNotFound(std::string_view user_id) {
  return Status::NotFound(fmt::format("User not found: {}", user_id))
      .WithDetail("resource", std::string(user_id))
      .WithDetail("type", "user");
}

Status InvalidKey() { return Status::Unauthenticated("Invalid API Key"); }

// A fresh key and the row fields that describe it.
struct MadeKey {
  std::string key, hash, prefix;
};

Result<MadeKey> MakeKey(std::string_view account_id, std::string_view user_id) {
  SKALD_ASSIGN_OR_RETURN(std::string key, NewApiKey(account_id, user_id));
  ParsedApiKey parsed;
  if (!ParseApiKey(key, &parsed)) return Status::Internal("a new API key did not parse");
  return MadeKey{key, ApiKeyHash(key), ApiKeyPrefix(parsed)};
}

}  // namespace

AccountRegistry::AccountRegistry(AccountRegistryServices services) : s_(std::move(services)) {}

void AccountRegistry::RegisterJobs(JobRunner* runner) {
  runner->RegisterHandler(JobKind::kUserDelete,
                          [this](JobContext& context) { return RunUserDelete(context); });
}

Result<NewAccount> AccountRegistry::CreateAccount(const Identity& who, std::string_view account_id,
                                                  std::string_view admin_user_id) {
  SKALD_RETURN_IF_ERROR(CheckId(account_id, /*is_account=*/true));
  SKALD_RETURN_IF_ERROR(CheckId(admin_user_id, /*is_account=*/false));
  SKALD_RETURN_IF_ERROR(CheckRoot(who));
  SKALD_ASSIGN_OR_RETURN(MadeKey key, MakeKey(account_id, admin_user_id));
  const int64_t now = NowNanos();
  UserRow admin;
  admin.account_id = std::string(account_id);
  admin.user_id = std::string(admin_user_id);
  admin.role = "admin";
  admin.key_hash = key.hash;
  admin.key_prefix = key.prefix;
  admin.created_ns = now;
  SKALD_RETURN_IF_ERROR(AlreadyExists(s_.catalog->InsertAccount(account_id, now, &admin)));
  // The account's preset directories (viking://resources).
  SKALD_RETURN_IF_ERROR(s_.resolver->EnsureAccount(std::string(account_id)));
  PresetUserSpace(account_id, admin_user_id);
  return NewAccount{std::string(account_id), std::string(admin_user_id), key.key};
}

Result<std::vector<AccountInfo>> AccountRegistry::ListAccounts(const Identity& who) {
  SKALD_RETURN_IF_ERROR(CheckRoot(who));
  SKALD_ASSIGN_OR_RETURN(std::vector<AccountRow> rows, s_.catalog->ListAccountRows());
  std::vector<AccountInfo> out;
  out.reserve(rows.size());
  for (AccountRow& row : rows) {
    out.push_back(AccountInfo{std::move(row.account_id), row.created_ns, row.user_count});
  }
  return out;
}

Status AccountRegistry::DeleteAccount(const Identity& who, std::string_view account_id) {
  SKALD_RETURN_IF_ERROR(CheckId(account_id, /*is_account=*/true));
  SKALD_RETURN_IF_ERROR(CheckRoot(who));
  if (account_id == kDefaultAccount) {
    return Status::PermissionDenied("The default account cannot be deleted");
  }
  SKALD_ASSIGN_OR_RETURN(std::optional<AccountRow> account, s_.catalog->GetAccount(account_id));
  if (!account) return AccountNotFound(account_id);
  // The whole account is locked while it goes: no request writes into it
  // meanwhile, and no snapshot restore runs (it would record what it left
  // to do after the purge).
  std::shared_ptr<std::mutex> restores = s_.snapshots->RestoreMutex(account_id);
  std::lock_guard<std::mutex> no_restore(*restores);
  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(s_.locks->Acquire({{std::string(account_id), "", PathLockKind::kTree}},
                                          std::chrono::milliseconds(s_.lock_timeout_ms), &guard));
  // Content first (one rename of the account's directory), then the catalog
  // in one transaction: a crash in between leaves rows without content,
  // which recovery drops, and the account still registered, so the delete
  // can be repeated.
  SKALD_RETURN_IF_ERROR(s_.content->Remove(account_id, ""));
  SKALD_RETURN_IF_ERROR(s_.catalog->PurgeAccount(account_id));
  s_.resolver->ForgetAccount(std::string(account_id));
  RemoveUploads(account_id, std::nullopt);
  // The records are tombstoned: the indexes drop them now (or at their next
  // catch-up; search never returns a record the catalog no longer has).
  if (Status caught_up = s_.indexes->CatchUpIndexes(); !caught_up.ok()) {
    spdlog::warn("delete account {}: the indexes will apply the delete later: {}", account_id,
                 caught_up.ToString());
  }
  return Status::Ok();
}

Result<std::string> AccountRegistry::RegisterUser(const Identity& who, std::string_view account_id,
                                                  std::string_view user_id,
                                                  std::string_view role) {
  SKALD_RETURN_IF_ERROR(CheckId(account_id, /*is_account=*/true));
  SKALD_RETURN_IF_ERROR(CheckId(user_id, /*is_account=*/false));
  SKALD_RETURN_IF_ERROR(CheckManage(who, account_id));
  SKALD_ASSIGN_OR_RETURN(Role parsed, ParseAssignableRole(role));
  SKALD_ASSIGN_OR_RETURN(MadeKey key, MakeKey(account_id, user_id));
  UserRow row;
  row.account_id = std::string(account_id);
  row.user_id = std::string(user_id);
  row.role = std::string(RoleName(parsed));
  row.key_hash = key.hash;
  row.key_prefix = key.prefix;
  row.created_ns = NowNanos();
  Status inserted = s_.catalog->InsertUser(row);
  if (inserted.code() == StatusCode::kNotFound) return AccountNotFound(account_id);
  SKALD_RETURN_IF_ERROR(AlreadyExists(std::move(inserted)));
  PresetUserSpace(account_id, user_id);
  return key.key;
}

void AccountRegistry::PresetUserSpace(std::string_view account_id, std::string_view user_id) {
  const Identity root{std::string(account_id), std::string(user_id), Role::kRoot};
  for (const char* dir : {"memories", "resources"}) {
    const std::string text = fmt::format("viking://user/{}/{}", user_id, dir);
    Result<VikingUri> uri = VikingUri::Parse(text);
    Status made = uri.ok() ? s_.writer->Mkdir(root, *uri, "").status() : uri.status();
    if (!made.ok() && made.code() != StatusCode::kAlreadyExists) {
      spdlog::warn("register {}/{}: {} was not created (it appears with the first write): {}",
                   account_id, user_id, text, made.ToString());
    }
  }
}

Result<std::vector<UserInfo>> AccountRegistry::ListUsers(const Identity& who,
                                                         std::string_view account_id,
                                                         const UserFilter& filter) {
  SKALD_RETURN_IF_ERROR(CheckId(account_id, /*is_account=*/true));
  SKALD_RETURN_IF_ERROR(CheckManage(who, account_id));
  if (!filter.role.empty() && filter.role != "user" && filter.role != "admin") {
    return Status::InvalidArgument(
        fmt::format("invalid role '{}': use \"user\" or \"admin\"", filter.role));
  }
  SKALD_ASSIGN_OR_RETURN(std::optional<AccountRow> account, s_.catalog->GetAccount(account_id));
  if (!account) return AccountNotFound(account_id);
  SKALD_ASSIGN_OR_RETURN(std::vector<UserRow> rows, s_.catalog->ListUsers(account_id));
  std::vector<UserInfo> out;
  const std::string pattern = filter.name;
  for (const UserRow& row : rows) {
    if (filter.limit <= 0 || out.size() >= static_cast<size_t>(filter.limit)) break;
    if (!filter.role.empty() && row.role != filter.role) continue;
    if (!pattern.empty() && fnmatch(pattern.c_str(), row.user_id.c_str(), 0) != 0) continue;
    out.push_back(UserInfo{row.user_id, RoleFromRow(row), row.key_prefix, row.deleting});
  }
  return out;
}

Result<UserRemoval> AccountRegistry::RemoveUser(const Identity& who, std::string_view account_id,
                                                std::string_view user_id) {
  SKALD_RETURN_IF_ERROR(CheckId(account_id, /*is_account=*/true));
  SKALD_RETURN_IF_ERROR(CheckId(user_id, /*is_account=*/false));
  SKALD_RETURN_IF_ERROR(CheckManage(who, account_id));
  SKALD_ASSIGN_OR_RETURN(std::optional<AccountRow> account, s_.catalog->GetAccount(account_id));
  if (!account) return AccountNotFound(account_id);
  JobSpec spec;
  spec.kind = JobKind::kUserDelete;
  spec.account = std::string(account_id);
  // The task belongs to whoever asked (an ADMIN follows it with the tasks
  // API); ROOT sees every task anyway.
  spec.user = who.role == Role::kRoot ? std::string() : who.user;
  spec.resource_id = "viking://user/" + std::string(user_id);
  spec.payload = nlohmann::json{{"user_id", std::string(user_id)}}.dump();
  spec.priority = kJobPriorityInteractive;
  Result<Job> job = s_.catalog->BeginUserDeletion(account_id, user_id, spec);
  if (!job.ok()) {
    if (job.status().code() == StatusCode::kNotFound) return UserNotFound(user_id);
    return job.status();
  }
  s_.runner->queue()->Notify();
  return UserRemoval{std::string(account_id), std::string(user_id), job->task_id};
}

Status AccountRegistry::SetRole(const Identity& who, std::string_view account_id,
                                std::string_view user_id, std::string_view role) {
  SKALD_RETURN_IF_ERROR(CheckId(account_id, /*is_account=*/true));
  SKALD_RETURN_IF_ERROR(CheckId(user_id, /*is_account=*/false));
  SKALD_RETURN_IF_ERROR(CheckManage(who, account_id));
  SKALD_ASSIGN_OR_RETURN(Role parsed, ParseAssignableRole(role));
  if (parsed != Role::kAdmin) {
    return Status::InvalidArgument(
        fmt::format("invalid role '{}': only promotion to \"admin\" is supported", role));
  }
  SKALD_ASSIGN_OR_RETURN(std::optional<AccountRow> account, s_.catalog->GetAccount(account_id));
  if (!account) return AccountNotFound(account_id);
  Status set = s_.catalog->SetUserRole(account_id, user_id, RoleName(parsed));
  if (set.code() == StatusCode::kNotFound) return UserNotFound(user_id);
  return set;
}

Result<std::string> AccountRegistry::RegenerateKey(const Identity& who,
                                                   std::string_view account_id,
                                                   std::string_view user_id) {
  SKALD_RETURN_IF_ERROR(CheckId(account_id, /*is_account=*/true));
  SKALD_RETURN_IF_ERROR(CheckId(user_id, /*is_account=*/false));
  SKALD_RETURN_IF_ERROR(CheckManage(who, account_id));
  SKALD_ASSIGN_OR_RETURN(std::optional<AccountRow> account, s_.catalog->GetAccount(account_id));
  if (!account) return AccountNotFound(account_id);
  SKALD_ASSIGN_OR_RETURN(MadeKey key, MakeKey(account_id, user_id));
  Status set = s_.catalog->SetUserKey(account_id, user_id, key.hash, key.prefix);
  if (set.code() == StatusCode::kNotFound) return UserNotFound(user_id);
  SKALD_RETURN_IF_ERROR(set);
  return key.key;
}

Result<Identity> AccountRegistry::Authenticate(std::string_view key) {
  ParsedApiKey parsed;
  if (!ParseApiKey(key, &parsed)) return InvalidKey();
  if (parsed.account.size() > kMaxIdentifierBytes || parsed.user.size() > kMaxIdentifierBytes ||
      !IsValidIdentifier(parsed.account, /*is_account=*/true) ||
      !IsValidIdentifier(parsed.user, /*is_account=*/false)) {
    return InvalidKey();
  }
  SKALD_ASSIGN_OR_RETURN(std::optional<UserRow> row,
                         s_.catalog->GetUser(parsed.account, parsed.user));
  // The hash is compared even for an unknown user, so that the answer takes
  // the same time whether or not the user exists.
  const std::string presented = ApiKeyHash(key);
  const std::string stored = row && !row->deleting ? row->key_hash : std::string(64, '0');
  const bool match = ConstantTimeEquals(presented, stored);
  if (!row || row->deleting || row->key_hash.empty() || !match) return InvalidKey();
  return Identity{row->account_id, row->user_id, RoleFromRow(*row)};
}

Result<bool> AccountRegistry::IsUserDeleting(std::string_view account_id,
                                             std::string_view user_id) {
  SKALD_ASSIGN_OR_RETURN(std::optional<UserRow> row, s_.catalog->GetUser(account_id, user_id));
  return row.has_value() && row->deleting;
}

Result<std::optional<Role>> AccountRegistry::UserRole(std::string_view account_id,
                                                      std::string_view user_id) {
  SKALD_ASSIGN_OR_RETURN(std::optional<UserRow> row, s_.catalog->GetUser(account_id, user_id));
  if (!row || row->deleting) return std::optional<Role>();
  return std::optional<Role>(RoleFromRow(*row));
}

Status AccountRegistry::RunUserDelete(JobContext& context) {
  const Job& job = context.job();
  nlohmann::json payload = nlohmann::json::parse(job.payload, nullptr, false);
  const std::string user_id =
      payload.is_object() && payload.contains("user_id") && payload["user_id"].is_string()
          ? payload["user_id"].get<std::string>()
          : std::string();
  if (!CheckId(user_id, /*is_account=*/false).ok() ||
      !CheckId(job.account, /*is_account=*/true).ok()) {
    return Status::InvalidArgument("user_delete job without a valid account and user_id");
  }
  // 1. The user's tree (memories, sessions, everything under viking://user/{uid}).
  // No snapshot restore runs meanwhile (it could write the files back).
  SKALD_RETURN_IF_ERROR(context.SetStage("deleting files"));
  std::shared_ptr<std::mutex> restores = s_.snapshots->RestoreMutex(job.account);
  std::unique_lock<std::mutex> no_restore(*restores);
  const Identity root{job.account, user_id, Role::kRoot};
  SKALD_ASSIGN_OR_RETURN(VikingUri home, s_.resolver->Resolve(root, "viking://user/" + user_id));
  SKALD_ASSIGN_OR_RETURN(RmResult removed, s_.writer->Rm(root, home, /*recursive=*/true));
  // ... and its files' bytes in the snapshot history (names and commit
  // messages stay; a user later created with the same id reads none of it).
  SKALD_RETURN_IF_ERROR(context.SetStage("erasing its files from snapshots"));
  SKALD_ASSIGN_OR_RETURN(uint64_t erased,
                         s_.snapshots->EraseBlobsOnlyUnder(job.account, "user/" + user_id));
  no_restore.unlock();
  // 2. Its other tasks and its uploads.
  SKALD_RETURN_IF_ERROR(context.SetStage("deleting tasks and uploads"));
  SKALD_ASSIGN_OR_RETURN(uint64_t tasks,
                         s_.catalog->DeleteUserJobs(job.account, user_id, job.task_id));
  RemoveUploads(job.account, user_id);
  // 3. Last, the row: until now the user was "being deleted".
  SKALD_RETURN_IF_ERROR(s_.catalog->DeleteUserRow(job.account, user_id));
  nlohmann::json result = {{"account_id", job.account},
                           {"user_id", user_id},
                           {"deleted_nodes", removed.deleted_count},
                           {"erased_snapshot_blobs", erased},
                           {"deleted_tasks", tasks}};
  return context.Complete(result.dump());
}

void AccountRegistry::RemoveUploads(std::string_view account_id,
                                    std::optional<std::string_view> user_id) {
  const fs::path dir = fs::path(s_.workspace) / "temp" / "upload";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  const std::string suffix(kUploadMetaSuffix);
  std::vector<fs::path> doomed;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(),
                                                     suffix) != 0) {
      continue;
    }
    std::ifstream in(entry.path());
    nlohmann::json meta = nlohmann::json::parse(in, nullptr, false);
    if (!meta.is_object() || meta.value("account", "") != account_id) continue;
    if (user_id && meta.value("user", "") != *user_id) continue;
    doomed.push_back(dir / name.substr(0, name.size() - suffix.size()));
    doomed.push_back(entry.path());
  }
  for (const fs::path& path : doomed) {
    fs::remove(path, ec);
    if (ec) spdlog::warn("could not remove an upload of account {}: {}", account_id, ec.message());
  }
}

}  // namespace skald
