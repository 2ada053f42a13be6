#pragma once

// Value types of the account registry API (skald/db.h, "Accounts, users and
// keys"): accounts, their users and roles, and per-user API keys.
//
// Thread safety: value types.

#include <cstdint>
#include <string>

#include "skald/types.h"

namespace skald {

// One registered account.
struct AccountInfo {
  std::string account_id;
  int64_t created_ns = 0;   // wall clock, ns since the epoch
  uint64_t user_count = 0;  // users of the account (those being deleted included)
};

// The answer to CreateAccount: the account's first user (an ADMIN) and its key.
struct NewAccount {
  std::string account_id;
  std::string admin_user_id;
  std::string user_key;  // shown once; only its hash is stored
};

// One user as listings show it: never the key, only its prefix.
struct UserInfo {
  std::string user_id;
  Role role = Role::kUser;
  std::string key_prefix;  // first characters of the key's secret part ("" while deleting)
  bool deleting = false;   // removed; its data is being deleted
};

// Selection for ListUsers.
struct UserFilter {
  int limit = 100;    // at most this many users (<= 0: none)
  std::string name;   // fnmatch(3) pattern on user_id; "" = any
  std::string role;   // "user" | "admin"; "" = any
};

// The answer to RemoveUser: the durable cleanup task (`user_delete`).
struct UserRemoval {
  std::string account_id;
  std::string user_id;
  std::string task_id;
};

}  // namespace skald
