#include "session/session_policy.h"

#include <algorithm>
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include "session/message.h"

namespace skald {
namespace {

struct PolicyField {
  std::string_view name;
  int64_t AutoCommitPolicy::*member;
  int64_t min, max;
};

constexpr int64_t kNoMax = std::numeric_limits<int64_t>::max();

const PolicyField kPolicyFields[] = {
    {"pending_token_threshold", &AutoCommitPolicy::pending_token_threshold, 1, 1000000},
    {"message_count_threshold", &AutoCommitPolicy::message_count_threshold, 1, 1000},
    {"idle_timeout_seconds", &AutoCommitPolicy::idle_timeout_seconds, 1, 604800},
    {"keep_recent_count", &AutoCommitPolicy::keep_recent_count, 0, 10000},
    {"min_commit_interval_seconds", &AutoCommitPolicy::min_commit_interval_seconds, 0, kNoMax},
};

Json PolicyJson(const AutoCommitPolicy& p) {
  Json out = Json::object();
  for (const PolicyField& f : kPolicyFields) out[std::string(f.name)] = p.*f.member;
  return out;
}

bool IsUser(const Json& message) { return message.value("role", "") == "user"; }

}  // namespace

Result<Json> NormalizeAutoCommitPolicy(const Json& policy) {
  if (policy.is_null()) return Json(nullptr);
  if (!policy.is_object()) {
    return Status::InvalidArgument("auto_commit_policy must be an object or null");
  }
  AutoCommitPolicy out;
  for (const auto& [key, value] : policy.items()) {
    const PolicyField* field = nullptr;
    for (const PolicyField& f : kPolicyFields) {
      if (f.name == key) field = &f;
    }
    if (field == nullptr) {
      return Status::InvalidArgument(fmt::format("auto_commit_policy: unknown field '{}'", key));
    }
    if (value.is_null()) continue;  // the default
    if (!value.is_number_integer()) {
      return Status::InvalidArgument(
          fmt::format("auto_commit_policy.{} must be an integer", key));
    }
    const int64_t v = value.get<int64_t>();
    if (v < field->min || v > field->max) {
      return Status::InvalidArgument(
          field->max == kNoMax
              ? fmt::format("auto_commit_policy.{} must be >= {}", key, field->min)
              : fmt::format("auto_commit_policy.{} must be between {} and {}", key, field->min,
                            field->max));
    }
    out.*field->member = v;
  }
  return PolicyJson(out);
}

std::optional<AutoCommitPolicy> ParseAutoCommitPolicy(const Json& stored) {
  if (!stored.is_object()) return std::nullopt;
  Result<Json> normalized = NormalizeAutoCommitPolicy(stored);
  if (!normalized.ok()) return std::nullopt;
  AutoCommitPolicy out;
  for (const PolicyField& f : kPolicyFields) {
    out.*f.member = (*normalized)[std::string(f.name)].get<int64_t>();
  }
  return out;
}

Status ValidateMemoryExtractionConfig(const Json& config) {
  if (!config.is_object()) {
    return Status::InvalidArgument("memory_extraction_config must be an object");
  }
  auto events = config.find("events");
  if (events == config.end() || events->is_null()) return Status::Ok();
  if (!events->is_object()) {
    return Status::InvalidArgument("memory_extraction_config.events must be an object");
  }
  auto tags = events->find("tags");
  if (tags == events->end() || tags->is_null()) return Status::Ok();
  bool strings = tags->is_array() &&
                 std::all_of(tags->begin(), tags->end(), [](const Json& t) { return t.is_string(); });
  if (!strings) {
    return Status::InvalidArgument("memory_extraction_config.events.tags must be a list of strings");
  }
  return Status::Ok();
}

RetentionPlan PlanKeepRecent(size_t message_count, size_t keep) {
  RetentionPlan plan;
  const size_t archived = message_count > keep ? message_count - keep : 0;
  for (size_t i = 0; i < message_count; ++i) {
    (i < archived ? plan.archived : plan.retained).push_back(i);
  }
  return plan;
}

RetentionPlan PlanTurnBudget(const std::vector<Json>& messages, int64_t turns,
                             int64_t token_budget, int64_t tail_steps) {
  // Turn starts: each user message, and 0 (a leading turn without one).
  std::vector<size_t> starts;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (i == 0 || IsUser(messages[i])) starts.push_back(i);
  }
  auto tokens = [&](size_t begin, size_t end) {
    int64_t sum = 0;
    for (size_t i = begin; i < end; ++i) sum += MessageTokens(messages[i]);
    return sum;
  };
  // The first kept turn: the newest `turns`, fewer while over the budget.
  size_t kept = std::min<size_t>(starts.size(), static_cast<size_t>(std::max<int64_t>(turns, 0)));
  while (kept > 1 && tokens(starts[starts.size() - kept], messages.size()) > token_budget) --kept;
  std::vector<bool> retain(messages.size(), false);
  if (kept > 0) {
    const size_t first = starts[starts.size() - kept];
    for (size_t i = first; i < messages.size(); ++i) retain[i] = true;
    if (kept == 1 && tokens(first, messages.size()) > token_budget) {
      // The newest turn alone is over the budget: its user message and its
      // last `tail_steps` steps stay.
      const size_t steps_begin = IsUser(messages[first]) ? first + 1 : first;
      const size_t steps = messages.size() - steps_begin;
      const auto tail = static_cast<size_t>(std::max<int64_t>(tail_steps, 0));
      if (steps > tail) {
        for (size_t i = steps_begin; i < messages.size() - tail; ++i) retain[i] = false;
      }
    }
  }
  RetentionPlan plan;
  int64_t retained_tokens = 0;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (retain[i]) {
      plan.retained.push_back(i);
      retained_tokens += MessageTokens(messages[i]);
    } else {
      plan.archived.push_back(i);
    }
  }
  plan.budget_exceeded = retained_tokens > token_budget;
  return plan;
}

}  // namespace skald
