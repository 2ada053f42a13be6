#pragma once

// AccountRegistry: accounts, their users, roles and API keys (reference
// §2.9, §5), and who may manage them:
//
// - ROOT (the server's root key, dev mode, the embedded CLI) manages every
//   account; creating, listing and deleting accounts is ROOT only.
// - an ADMIN manages the users of its own account only (PermissionDenied
//   for any other account); a USER manages nothing.
// - roles are "user" and "admin"; ROOT is never assignable (PermissionDenied),
//   any other role is InvalidArgument. Ids follow uri's IsValidIdentifier
//   (InvalidArgument). A missing account or user is NotFound; a duplicate is
//   AlreadyExists with reason ALREADY_EXISTS.
//
// Keys (service/api_key.h) are shown once, when made; the catalog keeps only
// their SHA-256 and a prefix for listings. Regenerating a key replaces the
// hash, so the old key fails at once. Removing a user revokes its key and
// marks it deleting in one transaction with a durable `user_delete` job that
// deletes viking://user/{uid} of the account (and the bytes only it held in
// the snapshot history), the user's other tasks and its uploads, then drops
// the user row (RunUserDelete; the job survives restarts).
// Deleting an account removes its content, catalog rows (nodes, records,
// jobs, cached embeddings), uploads and registry rows at once.
//
// Thread safety: safe for concurrent use; the catalog serializes writes.
// Everything in AccountRegistryServices is borrowed and must outlive it.

#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/env.h"
#include "skald/accounts.h"
#include "skald/result.h"
#include "skald/types.h"
#include "storage/catalog.h"
#include "storage/content_store.h"
#include "storage/job_runner.h"
#include "storage/path_lock.h"

namespace skald {

class FsWriter;
class IndexCatchUp;
class SnapshotOps;
class UriResolver;

struct AccountRegistryServices {
  Catalog* catalog = nullptr;
  ContentStore* content = nullptr;
  UriResolver* resolver = nullptr;
  FsWriter* writer = nullptr;       // deletes a removed user's tree
  SnapshotOps* snapshots = nullptr;  // erases its files' bytes from the history
  IndexCatchUp* indexes = nullptr;  // applies an account's deletion to the indexes
  JobRunner* runner = nullptr;      // queue of the user_delete jobs
  PathLockManager* locks = nullptr;
  Env* env = nullptr;
  std::string workspace;  // uploads live in <workspace>/temp/upload
  int lock_timeout_ms = 5000;
};

class AccountRegistry {
 public:
  // REQUIRES: every pointer of `services` is set.
  explicit AccountRegistry(AccountRegistryServices services);

  // Registers the user_delete handler. REQUIRES: before runner->Start.
  void RegisterJobs(JobRunner* runner);

  // ROOT only. Creates the account with `admin_user_id` as its first user
  // (role admin) and returns that user's key.
  Result<NewAccount> CreateAccount(const Identity& who, std::string_view account_id,
                                   std::string_view admin_user_id);
  // ROOT only. Every account, ordered by id.
  Result<std::vector<AccountInfo>> ListAccounts(const Identity& who);
  // ROOT only. Deletes the account and everything in it. The `default`
  // account cannot be deleted (PermissionDenied).
  Status DeleteAccount(const Identity& who, std::string_view account_id);

  // Adds a user with `role` ("user" | "admin") and returns its key.
  Result<std::string> RegisterUser(const Identity& who, std::string_view account_id,
                                   std::string_view user_id, std::string_view role);
  // The account's users matching `filter`, ordered by id, with key prefixes only.
  Result<std::vector<UserInfo>> ListUsers(const Identity& who, std::string_view account_id,
                                          const UserFilter& filter);
  // Revokes the key at once and queues the user's deletion (see above).
  // FailedPrecondition when the user is already being deleted.
  Result<UserRemoval> RemoveUser(const Identity& who, std::string_view account_id,
                                 std::string_view user_id);
  // Only "admin" is accepted (promotion; reference §2.9); "root" is
  // PermissionDenied, anything else InvalidArgument.
  Status SetRole(const Identity& who, std::string_view account_id, std::string_view user_id,
                 std::string_view role);
  // A new key for the user; the old one fails from now on.
  Result<std::string> RegenerateKey(const Identity& who, std::string_view account_id,
                                    std::string_view user_id);

  // The identity a user key stands for; Unauthenticated "Invalid API Key"
  // for a malformed, unknown, revoked or wrong key (the hash is compared in
  // constant time).
  Result<Identity> Authenticate(std::string_view key);
  // True while the user's deletion job has not finished.
  Result<bool> IsUserDeleting(std::string_view account_id, std::string_view user_id);
  // The registered role of a live user; nullopt for an unknown user.
  Result<std::optional<Role>> UserRole(std::string_view account_id, std::string_view user_id);

  // The user_delete job (idempotent: a retry after a crash redoes what is left).
  Status RunUserDelete(JobContext& context);

 private:
  // Removes the upload files (and their metadata) of `account_id`, of one
  // user when `user_id` is given. Best effort: failures are logged.
  void RemoveUploads(std::string_view account_id, std::optional<std::string_view> user_id);
  // Creates a new user's space, viking://user/{uid} with its `memories` and
  // `resources` directories (OpenViking presets them at registration), so
  // the user finds their own space from the first request. Best effort: a
  // failure is logged, the user stays registered and the space appears with
  // their first write.
  void PresetUserSpace(std::string_view account_id, std::string_view user_id);

  AccountRegistryServices s_;
};

}  // namespace skald
