#pragma once

// Plain value types shared by every layer of Skald's public API.

#include <cstdint>
#include <string>
#include <string_view>

namespace skald {

// Role of a caller within its account. ROOT is the operator (config key / dev mode).
enum class Role { kUser = 0, kAdmin = 1, kRoot = 2 };

std::string_view RoleName(Role role);

// Who is calling: the tenant (account), the user inside it, and the role.
// In dev mode every request is ROOT in account "default", user "default".
// Ids have at most 128 bytes (kMaxIdentifierBytes); Db calls answer
// InvalidArgument for longer ones.
struct Identity {
  std::string account = "default";
  std::string user = "default";
  Role role = Role::kRoot;
};

// The kind of context a URI holds (reference §6 "Content classification").
enum class ContextType { kResource, kMemory, kSkill };

// "resource" | "memory" | "skill".
std::string_view ContextTypeName(ContextType type);

}  // namespace skald
