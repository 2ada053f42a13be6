#pragma once

// Context under a token budget: the planning step of search's context mode
// (reference §2.4, mode "context"). Given ranked candidates, each with its
// text at up to three levels of detail, choose which enter the context and
// at which detail so that the rendered context never exceeds the budget.
//
// Plan (own design; the shape follows OpenViking's assembler, internals
// §3.6): candidates are taken in rank order; each is placed at the deepest
// detail up to its preferred one that fits both a per-entry cap
// (max_tokens / candidates * 2, at least kMinEntryCap) and what is left,
// degrading to coarser detail otherwise, and left out when even its
// coarsest text does not fit. Then two upgrade passes in rank order deepen
// entries towards their ceiling: first within the cap, then within what is
// left. Lines already rendered by a better-ranked entry are not repeated
// (overlapping conversation excerpts cost their new lines only), so an
// entry's text is what it adds to the context.
//
// Rendering: entries of one group (the excerpts of one archived
// conversation) form one block, in the group's own order (the conversation's),
// under one heading; every other entry is a block of its own. Blocks come in
// the rank of their best entry:  "[category] key\n" + lines + "\n", key =
// the group (or the entry's URI), unless the candidate brings a heading of
// its own (a conversation's "[session ID · day]": the entries carry the URIs). An entry's tokens are its lines' estimates
// plus, for the best-ranked entry of a block, the heading's and the blank
// line's; their sum, the plan's tokens, bounds EstimateTokens(rendered)
// from above (estimates round up).
//
// Thread safety: pure functions.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace skald {

// Levels of detail of a context entry, coarsest first.
enum class ContextDetail { kAbstract = 0, kOverview = 1, kFull = 2 };

// "abstract" / "overview" / "full".
std::string_view ContextDetailName(ContextDetail detail);
// nullopt for any other text.
std::optional<ContextDetail> ParseContextDetail(std::string_view name);

// An entry's cap never goes below this many tokens, so a large candidate
// pool does not starve every entry down to nothing.
inline constexpr int64_t kMinEntryCap = 48;

struct ContextCandidate {
  std::string uri;
  std::string category;
  // Text at each detail (index = ContextDetail); "" = not available.
  std::array<std::string, 3> text;
  // Entries with one non-empty group render as one block headed by it,
  // ordered by `order` (then rank).
  std::string group;
  int64_t order = 0;
  // The block's heading line; "" = "[category] key". A group's is its
  // best-ranked entry's (the excerpts of one conversation share theirs).
  std::string heading;
  // The detail placement aims for, and the deepest upgrades may reach.
  ContextDetail preferred = ContextDetail::kAbstract;
  ContextDetail ceiling = ContextDetail::kFull;
};

struct PlannedEntry {
  size_t candidate = 0;  // index into the candidates
  ContextDetail detail = ContextDetail::kAbstract;
  std::string text;     // the lines this entry adds (repeats removed)
  int64_t tokens = 0;   // estimate of its lines (+ its block's heading when it heads it)
};

struct ContextPlan {
  std::vector<PlannedEntry> entries;  // in rank order
  std::string rendered;
  int64_t tokens = 0;            // sum of the entries' tokens, <= max_tokens
  int64_t left_out = 0;          // candidates that did not fit (or had no text)
  int64_t repeated_lines = 0;    // lines not rendered again
};

// The plan for `candidates` (in rank order) under `max_tokens` (> 0).
ContextPlan PlanContext(std::span<const ContextCandidate> candidates, int64_t max_tokens);

}  // namespace skald
