#include "retrieve/context_budget.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "common/strings.h"
#include "model/token_budget.h"

namespace skald {
namespace {

using Choice = std::optional<ContextDetail>;

const std::string& BlockKey(const ContextCandidate& c) { return c.group.empty() ? c.uri : c.group; }

std::string Heading(const ContextCandidate& c) {
  if (!c.heading.empty()) return c.heading + "\n";
  return "[" + c.category + "] " + BlockKey(c) + "\n";
}

// What the context holds so far: its lines and the blocks that have a heading.
struct Rendered {
  std::unordered_set<std::string> lines;
  std::unordered_set<std::string> blocks;
};

// The entry of `c` at `detail` added after `state`: its lines not rendered
// before (blank lines dropped), costed with its block's heading when the
// block is new. Adds its lines and its block to `state`.
PlannedEntry MakeEntry(const ContextCandidate& c, size_t index, ContextDetail detail,
                       Rendered* state, int64_t* repeated) {
  PlannedEntry entry;
  entry.candidate = index;
  entry.detail = detail;
  std::unordered_set<std::string> own;
  for (const std::string& line : Split(c.text[static_cast<size_t>(detail)], '\n')) {
    if (Trim(line).empty()) continue;
    if (state->lines.count(line) != 0 || !own.insert(line).second) {
      ++*repeated;
      continue;
    }
    entry.text += line;
    entry.text += '\n';
    entry.tokens += EstimateTokens(line) + 1;  // the line and its newline, rounded up apart
  }
  if (entry.text.empty()) return entry;
  state->lines.insert(own.begin(), own.end());
  if (state->blocks.insert(BlockKey(c)).second) entry.tokens += EstimateTokens(Heading(c)) + 1;
  return entry;
}

// An entry tried against `state` without changing it.
PlannedEntry TryEntry(const ContextCandidate& c, size_t index, ContextDetail detail,
                      const Rendered& state) {
  Rendered scratch = state;
  int64_t repeated = 0;
  return MakeEntry(c, index, detail, &scratch, &repeated);
}

// Every chosen candidate, in rank order; `rendered` is left empty.
ContextPlan PlanChoices(std::span<const ContextCandidate> candidates,
                        const std::vector<Choice>& choices) {
  ContextPlan plan;
  Rendered state;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!choices[i].has_value()) continue;
    PlannedEntry entry = MakeEntry(candidates[i], i, *choices[i], &state, &plan.repeated_lines);
    if (entry.text.empty()) continue;  // everything it holds is already there
    plan.tokens += entry.tokens;
    plan.entries.push_back(std::move(entry));
  }
  return plan;
}

// The blocks of `plan`: in the rank of their best entry, a group's entries
// in the group's order.
std::string Render(std::span<const ContextCandidate> candidates, const ContextPlan& plan) {
  std::vector<std::string> keys;
  std::unordered_map<std::string, std::vector<const PlannedEntry*>> blocks;
  for (const PlannedEntry& e : plan.entries) {
    const std::string& key = BlockKey(candidates[e.candidate]);
    auto [it, fresh] = blocks.try_emplace(key);
    if (fresh) keys.push_back(key);
    it->second.push_back(&e);
  }
  std::string out;
  for (const std::string& key : keys) {
    std::vector<const PlannedEntry*>& entries = blocks[key];
    out += Heading(candidates[entries.front()->candidate]);  // the best-ranked entry's
    std::stable_sort(entries.begin(), entries.end(), [&](const auto* a, const auto* b) {
      return candidates[a->candidate].order < candidates[b->candidate].order;
    });
    for (const PlannedEntry* e : entries) out += e->text;
    out += '\n';
  }
  return out;
}

int64_t TokensOf(const ContextPlan& plan, size_t candidate) {
  for (const PlannedEntry& e : plan.entries) {
    if (e.candidate == candidate) return e.tokens;
  }
  return 0;
}

}  // namespace

std::string_view ContextDetailName(ContextDetail detail) {
  switch (detail) {
    case ContextDetail::kAbstract:
      return "abstract";
    case ContextDetail::kOverview:
      return "overview";
    case ContextDetail::kFull:
      return "full";
  }
  return "abstract";
}

std::optional<ContextDetail> ParseContextDetail(std::string_view name) {
  for (ContextDetail d : {ContextDetail::kAbstract, ContextDetail::kOverview, ContextDetail::kFull}) {
    if (ContextDetailName(d) == name) return d;
  }
  return std::nullopt;
}

ContextPlan PlanContext(std::span<const ContextCandidate> candidates, int64_t max_tokens) {
  const auto n = static_cast<int64_t>(std::max<size_t>(candidates.size(), 1));
  const int64_t cap = std::max(max_tokens / n * 2, kMinEntryCap);
  std::vector<Choice> choices(candidates.size());

  // 1. Placement, in rank order.
  Rendered state;
  int64_t used = 0;
  int64_t left_out = 0;
  int64_t repeated = 0;
  int64_t skipped_repeats = 0;  // lines of candidates that added nothing
  for (size_t i = 0; i < candidates.size(); ++i) {
    const ContextCandidate& c = candidates[i];
    const auto top = static_cast<int>(std::min(c.preferred, c.ceiling));
    const int64_t left = max_tokens - used;
    std::optional<PlannedEntry> chosen;
    bool nothing_new = false;  // every line of it is in the context already
    // The entry at detail `d` if it adds something and costs at most `limit`.
    auto try_at = [&](int d, int64_t limit) {
      PlannedEntry entry = TryEntry(c, i, static_cast<ContextDetail>(d), state);
      if (entry.text.empty()) {
        nothing_new = true;
        for (const std::string& line : Split(c.text[static_cast<size_t>(d)], '\n')) {
          if (!Trim(line).empty()) ++skipped_repeats;
        }
      } else if (entry.tokens <= limit) {
        chosen = std::move(entry);
      }
    };
    // The deepest detail up to the preferred one within the cap...
    for (int d = top; d >= 0 && !chosen && !nothing_new; --d) {
      if (!c.text[static_cast<size_t>(d)].empty()) try_at(d, std::min(cap, left));
    }
    // ...else the coarsest one there is, if it fits what is left (coarser
    // text that does not fit means deeper text will not either).
    for (int d = 0; d <= static_cast<int>(c.ceiling) && !chosen && !nothing_new; ++d) {
      if (c.text[static_cast<size_t>(d)].empty()) continue;
      try_at(d, left);
      break;
    }
    if (!chosen) {
      if (!nothing_new) ++left_out;
      continue;
    }
    choices[i] = chosen->detail;
    used += MakeEntry(c, i, chosen->detail, &state, &repeated).tokens;
  }

  // 2. Upgrades in rank order: within the cap, then within what is left.
  ContextPlan plan = PlanChoices(candidates, choices);
  for (bool capped : {true, false}) {
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (!choices[i].has_value()) continue;
      const ContextCandidate& c = candidates[i];
      for (int d = static_cast<int>(*choices[i]) + 1; d <= static_cast<int>(c.ceiling); ++d) {
        if (c.text[static_cast<size_t>(d)].empty()) continue;
        std::vector<Choice> trial = choices;
        trial[i] = static_cast<ContextDetail>(d);
        ContextPlan next = PlanChoices(candidates, trial);
        if (next.tokens > max_tokens || (capped && TokensOf(next, i) > cap)) continue;
        choices = std::move(trial);
        plan = std::move(next);
      }
    }
  }
  plan.rendered = Render(candidates, plan);
  plan.left_out = left_out;
  plan.repeated_lines += skipped_repeats;
  return plan;
}

}  // namespace skald
