#pragma once

// Session policies (reference §2.7, internals §4.3): the auto-commit policy
// and the memory-extraction config a session carries in its .meta.json, and
// what a commit keeps live (retention). Pure functions over stored messages
// (message.h); no I/O.
//
// Thread safety: stateless.

#include <cstdint>
#include <optional>
#include <vector>

#include "common/json_util.h"
#include "skald/result.h"

namespace skald {

// The auto-commit policy with every field present (OpenViking's defaults and
// bounds): a session commits by itself when its live messages reach
// pending_token_threshold tokens (1..1,000,000, default 150,000) or
// message_count_threshold messages (1..1000, default 100), or after
// idle_timeout_seconds without a new message (1..604,800, default 86,400);
// an automatic commit keeps keep_recent_count messages live (0..10000,
// default 0) and waits min_commit_interval_seconds (>= 0, default 0) after
// the session's last commit.
struct AutoCommitPolicy {
  int64_t pending_token_threshold = 150000;
  int64_t message_count_threshold = 100;
  int64_t idle_timeout_seconds = 86400;
  int64_t keep_recent_count = 0;
  int64_t min_commit_interval_seconds = 0;
};

// `policy` (a request's auto_commit_policy) with the defaults filled in, as
// stored and shown; null stays null (auto-commit off). InvalidArgument
// naming the field for anything else than null or an object, an unknown
// field, a value that is not an integer or is out of bounds.
Result<Json> NormalizeAutoCommitPolicy(const Json& policy);

// The policy of a stored (normalized) JSON object; nullopt for null or
// anything that is not an object.
std::optional<AutoCommitPolicy> ParseAutoCommitPolicy(const Json& stored);

// InvalidArgument unless `config` is an object whose `events` (when given)
// is an object whose `tags` (when given) is a list of strings.
Status ValidateMemoryExtractionConfig(const Json& config);

// Which live messages a commit archives and which stay live, by index into
// the messages (oldest first); both ascending, together every index once.
struct RetentionPlan {
  std::vector<size_t> archived;
  std::vector<size_t> retained;
  bool budget_exceeded = false;  // the retained messages exceed the token budget
};

// keep_recent_count: the newest `keep` messages stay live.
RetentionPlan PlanKeepRecent(size_t message_count, size_t keep);

// retention_mode "turn_budget" (internals §4.3). A turn is a user message
// and the messages after it up to the next user message (messages before
// the first user message form a turn of their own). The newest `turns`
// turns stay live; while more than one is kept and together they exceed
// `token_budget` (MessageTokens), the oldest kept turn is archived. When the
// newest turn alone exceeds the budget, its user message and its last
// `tail_steps` messages stay live and the steps between are archived;
// budget_exceeded tells whether what stays is still over the budget.
// REQUIRES: turns, token_budget, tail_steps >= 0.
RetentionPlan PlanTurnBudget(const std::vector<Json>& messages, int64_t turns,
                             int64_t token_budget, int64_t tail_steps);

}  // namespace skald
