#include "skald/types.h"

namespace skald {

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kUser: return "user";
    case Role::kAdmin: return "admin";
    case Role::kRoot: return "root";
  }
  return "user";
}

std::string_view ContextTypeName(ContextType type) {
  switch (type) {
    case ContextType::kResource: return "resource";
    case ContextType::kMemory: return "memory";
    case ContextType::kSkill: return "skill";
  }
  return "resource";
}

std::optional<ContextType> ParseContextType(std::string_view name) {
  for (ContextType type : {ContextType::kResource, ContextType::kMemory, ContextType::kSkill}) {
    if (name == ContextTypeName(type)) return type;
  }
  return std::nullopt;
}

std::string_view TaskStateName(TaskState state) {
  switch (state) {
    case TaskState::kPending: return "pending";
    case TaskState::kRunning: return "running";
    case TaskState::kCompleted: return "completed";
    case TaskState::kFailed: return "failed";
  }
  return "pending";
}

std::optional<TaskState> ParseTaskState(std::string_view name) {
  for (TaskState state :
       {TaskState::kPending, TaskState::kRunning, TaskState::kCompleted, TaskState::kFailed}) {
    if (name == TaskStateName(state)) return state;
  }
  return std::nullopt;
}

}  // namespace skald
