#pragma once

// Plain value types shared by every layer of Skald's public API.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skald {

// Role of a caller within its account. ROOT is the operator (config key / dev mode).
enum class Role { kUser = 0, kAdmin = 1, kRoot = 2 };

std::string_view RoleName(Role role);

// Who is calling: the tenant (account), the user inside it, and the role.
// A default Identity has the least privilege (a plain user); whoever needs
// ROOT (dev-mode server requests, the embedded CLI, operator tools, tests)
// says so explicitly, e.g. `Identity{"default", "default", Role::kRoot}`.
// Ids have at most 128 bytes (kMaxIdentifierBytes); Db calls answer
// InvalidArgument for longer ones.
struct Identity {
  std::string account = "default";
  std::string user = "default";
  Role role = Role::kUser;
  // The peer the caller acts as (`X-OpenViking-Actor-Peer`); "" = none. When
  // set, the other peers' spaces (`user/{uid}/peers/{other}/...`) are hidden
  // from it, as another user's are (uri/access.h).
  std::string actor_peer = std::string();
};

// The kind of context a URI holds (reference §6 "Content classification").
enum class ContextType { kResource, kMemory, kSkill };

// "resource" | "memory" | "skill".
std::string_view ContextTypeName(ContextType type);
// Inverse of ContextTypeName; nullopt for any other text.
std::optional<ContextType> ParseContextType(std::string_view name);

// State of a background task (a queued job): pending -> running ->
// completed | failed; a failed attempt with retries left goes back to
// pending. Inside the core a task's state is this enum; its name is the text
// the tasks API shows and the catalog stores (names never change).
enum class TaskState { kPending, kRunning, kCompleted, kFailed };

// "pending" | "running" | "completed" | "failed".
std::string_view TaskStateName(TaskState state);
// Inverse of TaskStateName; nullopt for any other text.
std::optional<TaskState> ParseTaskState(std::string_view name);

}  // namespace skald
