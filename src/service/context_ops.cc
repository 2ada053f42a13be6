// search, mode "context" (ContextAssembler): candidates from the finder,
// categories and quotas, texts per detail, the budget plan.

#include "service/context_ops.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <unordered_map>

#include "common/strings.h"
#include "model/token_budget.h"
#include "retrieve/context_budget.h"
#include "session/date_resolver.h"
#include "session/memory_merge.h"
#include "uri/uri_path.h"

namespace skald {
namespace {

// Sessions whose dedup_turns ledger is kept; more clears it (a restart
// forgets it too: dedup_turns spares an agent repeats, it is not state).
constexpr size_t kMaxLedgerSessions = 4096;
constexpr size_t kMaxLedgerTurns = 100;

// The segment after ".../memories/" in `uri` ("" when there is none).
std::string MemoryKind(std::string_view uri) {
  constexpr std::string_view kMarker = "/memories/";
  const size_t at = uri.find(kMarker);
  if (at == std::string_view::npos) return "";
  std::string_view rest = uri.substr(at + kMarker.size());
  return std::string(rest.substr(0, rest.find('/')));
}

// The session id in ".../sessions/{id}/..." ("" when there is none).
std::string SessionOf(std::string_view uri) {
  constexpr std::string_view kMarker = "/sessions/";
  const size_t at = uri.find(kMarker);
  if (at == std::string_view::npos) return "";
  std::string_view rest = uri.substr(at + kMarker.size());
  return std::string(rest.substr(0, rest.find('/')));
}

std::string CategoryOf(const MatchedContext& hit) {
  switch (hit.context_type) {
    case ContextType::kSkill:
      return "skills";
    case ContextType::kResource:
      return "resources";
    case ContextType::kMemory:
      break;
  }
  const std::string kind = MemoryKind(hit.uri);
  if (kind == "events" || kind == "entities" || kind == "preferences") return kind;
  if (kind == "cases" || kind == "patterns") return "experiences";
  return "memories";
}

// Quotas: the request's, else the purpose's preset, else the defaults
// (reference internals §3.6); categories named nowhere are unlimited.
std::map<std::string, int> QuotasFor(const ContextRequest& request) {
  std::map<std::string, int> quotas;
  if (request.purpose == "coding") {
    quotas = {{"events", 1},      {"entities", 2}, {"preferences", 1},
              {"experiences", 1}, {"resources", 3}, {"skills", 2}};
  } else if (request.purpose == "chat") {
    quotas = {{"events", 3},      {"entities", 3}, {"preferences", 1},
              {"experiences", 1}, {"resources", 1}, {"skills", 1}};
  } else {
    quotas = {{"events", 10}, {"entities", 10}, {"preferences", 3}, {"experiences", 0}};
  }
  for (const auto& [category, quota] : request.quotas) quotas[category] = quota;
  return quotas;
}

// A candidate said on a day the query names ("on October 13, 2023", "in
// June") has its score multiplied by this: a question that names a date
// asks about what was said then (LoCoMo: 36 of 383 questions; measured in
// docs/benchmarks.md).
constexpr double kNamedDateBoost = 2.0;

// The day a candidate was said on: a conversation excerpt's heading
// ("[session ID · YYYY-MM-DD]"), a memory's time; nullopt when unknown.
std::optional<CivilDate> SaidOn(const ContextCandidate& candidate, const ContextOrigin& origin) {
  if (!candidate.group.empty()) {
    std::string_view text = candidate.heading;
    constexpr std::string_view kSeparator = " \u00b7 ";
    const size_t at = text.rfind(kSeparator);
    if (!text.starts_with("[session ") || !text.ends_with("]") || at == std::string_view::npos) {
      return std::nullopt;
    }
    text = text.substr(at + kSeparator.size(), text.size() - 1 - at - kSeparator.size());
    Result<CivilDateTime> day = ParseDateTime(text);
    if (day.ok()) return day->date;
    return std::nullopt;
  }
  if (origin.time.empty()) return std::nullopt;
  Result<CivilDateTime> when = ParseDateTime(origin.time);
  if (when.ok()) return when->date;
  return std::nullopt;
}

// Candidates gathered per call: enough to fill the budget with short
// entries (about 25 tokens each), never fewer than the request's limit.
int PoolSize(const ContextRequest& request) {
  const int64_t by_budget = request.max_tokens / 25;
  return static_cast<int>(std::clamp<int64_t>(by_budget, request.search.find.limit, 200));
}

// The order in which candidates enter the plan: rank order, except that a
// memory whose every quoted line is a line of some excerpt candidate is
// left out and the excerpts holding its lines take its place (when they
// rank below it). The excerpt says the same in the speaker's own words,
// with the messages around it and the session's date — the neighbours
// often hold the answer to what the memory matched (LoCoMo, in
// docs/benchmarks.md) — so the memory would only spend budget on a
// restatement.
// Returns (candidate, score) pairs; an excerpt moved up takes the memory's
// score, so scores stay in rank order.
std::vector<std::pair<size_t, double>> FoldQuotedMemories(
    const std::vector<ContextCandidate>& candidates,
    const std::vector<std::vector<std::string>>& quotes, const std::vector<double>& scores) {
  std::unordered_map<std::string, size_t> excerpt_of_line;  // best-ranked excerpt showing it
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].group.empty()) continue;
    for (std::string& line : Split(candidates[i].text[2], '\n')) {
      excerpt_of_line.emplace(std::move(line), i);
    }
  }
  std::vector<std::pair<size_t, double>> order;
  std::vector<bool> placed(candidates.size(), false);
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (placed[i]) continue;
    std::vector<size_t> excerpts;
    bool folded = !quotes[i].empty();
    for (const std::string& quote : quotes[i]) {
      auto it = excerpt_of_line.find(quote);
      if (it == excerpt_of_line.end()) {
        folded = false;
        break;
      }
      excerpts.push_back(it->second);
    }
    if (!folded) {
      order.emplace_back(i, scores[i]);
      placed[i] = true;
      continue;
    }
    for (size_t j : excerpts) {
      if (placed[j]) continue;
      order.emplace_back(j, std::max(scores[i], scores[j]));
      placed[j] = true;
    }
  }
  return order;
}

}  // namespace

std::set<std::string> ContextAssembler::RecentlyReturned(const LedgerKey& key, int turns) {
  std::set<std::string> out;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ledger_.find(key);
  if (it == ledger_.end()) return out;
  const auto& calls = it->second;
  const size_t take = std::min(calls.size(), static_cast<size_t>(turns));
  for (size_t i = calls.size() - take; i < calls.size(); ++i) {
    out.insert(calls[i].begin(), calls[i].end());
  }
  return out;
}

void ContextAssembler::Remember(const LedgerKey& key, std::set<std::string> uris) {
  std::lock_guard<std::mutex> lock(mu_);
  if (ledger_.size() >= kMaxLedgerSessions && ledger_.count(key) == 0) ledger_.clear();
  auto& calls = ledger_[key];
  calls.push_back(std::move(uris));
  while (calls.size() > kMaxLedgerTurns) calls.pop_front();
}

Result<ContextResult> ContextAssembler::Assemble(const Identity& who,
                                                 const ContextRequest& request) {
  SKALD_RETURN_IF_ERROR(request.Validate());
  ContextResult out;

  // 1. Candidates, best first, each URI once.
  SearchRequest search = request.search;
  search.find.limit = PoolSize(request);
  std::vector<MatchedContext> hits;
  if (request.query_expansion == "off") {
    SKALD_ASSIGN_OR_RETURN(FindResult found, finder_->Find(who, search.find));
    for (auto* list : {&found.memories, &found.resources, &found.skills}) {
      hits.insert(hits.end(), list->begin(), list->end());
    }
    out.query_plan.reasoning = "query_expansion off: the query as given";
    out.query_plan.queries.push_back({search.find.query, "", "the query as given", 1});
  } else {
    SKALD_ASSIGN_OR_RETURN(SearchResult searched, finder_->Search(who, search));
    for (auto* list : {&searched.found.memories, &searched.found.resources, &searched.found.skills}) {
      hits.insert(hits.end(), list->begin(), list->end());
    }
    out.query_plan = std::move(searched.query_plan);
  }
  std::stable_sort(hits.begin(), hits.end(),
                   [](const MatchedContext& a, const MatchedContext& b) { return a.score > b.score; });
  out.stats.candidates = static_cast<int64_t>(hits.size());

  // 2. Exclusions and quotas.
  const LedgerKey key{who.account, who.user, request.search.session_id};
  std::set<std::string> excluded(request.exclude_uris.begin(), request.exclude_uris.end());
  if (request.dedup_turns > 0 && !request.search.session_id.empty()) {
    std::set<std::string> recent = RecentlyReturned(key, request.dedup_turns);
    excluded.insert(recent.begin(), recent.end());
  }
  const std::map<std::string, int> quotas = QuotasFor(request);
  std::map<std::string, int> taken;
  std::set<std::string> seen_nodes;
  std::vector<MatchedContext> kept;
  std::vector<std::string> categories;
  for (MatchedContext& hit : hits) {
    const std::string& node = hit.uri;
    if (!seen_nodes.insert(node).second) continue;  // a directory's L0 and L1 hits: once
    if (excluded.count(node) != 0 || excluded.count(hit.uri) != 0) {
      ++out.stats.excluded;
      continue;
    }
    // A memory directory's abstract and overview only restate the
    // memories it holds, which are candidates of their own.
    if (hit.level != 2 && hit.context_type == ContextType::kMemory) continue;
    std::string category = CategoryOf(hit);
    auto quota = quotas.find(category);
    if (quota != quotas.end() && taken[category] >= quota->second) {
      ++out.stats.over_quota;
      continue;
    }
    ++taken[category];
    kept.push_back(std::move(hit));
    categories.push_back(std::move(category));
  }

  // 3. Texts per detail, origins.
  std::optional<ContextDetail> ceiling = ParseContextDetail(request.detail);
  std::vector<ContextCandidate> candidates;
  std::vector<ContextOrigin> origins;
  std::vector<std::vector<std::string>> quotes(kept.size());  // a memory's quoted lines
  for (size_t i = 0; i < kept.size(); ++i) {
    const MatchedContext& hit = kept[i];
    ContextCandidate c;
    c.uri = hit.uri;
    c.category = categories[i];
    ContextOrigin origin;
    origin.type = hit.context_type == ContextType::kSkill      ? "skill"
                  : hit.context_type == ContextType::kResource ? "resource"
                  : SessionOf(c.uri).empty()                   ? "memory"
                                                               : "session";
    origin.session_id = SessionOf(c.uri);
    c.text[0] = hit.abstract;
    // The excerpts of one archived conversation render as one block, in
    // the conversation's order.
    const std::string name(BaseName(c.uri));
    if (hit.level == 2 && IsSessionExcerptName(name)) {
      c.group = c.uri.substr(0, c.uri.size() - name.size() - 1);
      c.order = std::atoll(name.c_str() + name.find('_') + 1);
      c.text[0].clear();  // its abstract is its own lines run together: the lines only
    }
    Result<VikingUri> uri = resolver_->Resolve(who, c.uri);
    if (hit.level != 2) {
      // A directory: its L0, and its L1 when there is one.
      if (uri.ok()) {
        Result<std::string> overview = reader_->Overview(who, *uri);
        if (overview.ok()) c.text[1] = TruncateToTokenBudget(*overview, request.max_tokens);
      }
      // A memory directory's overview only lists the memories it holds,
      // which are candidates of their own.
      c.ceiling = hit.context_type == ContextType::kMemory ? ContextDetail::kAbstract
                                                           : ContextDetail::kOverview;
    } else if (uri.ok()) {
      Result<std::string> body = reader_->Read(who, *uri, 0, -1, /*raw=*/true);
      if (body.ok()) {
        Result<MemoryRecord> memory = ParseMemoryFile(*body);
        if (memory.ok()) {
          // The statement, then what was said (lines an excerpt shows too
          // are rendered once).
          c.text[0] = memory->memory.text;
          c.text[2] = memory->memory.text;
          for (const std::string& quote : memory->memory.quotes) c.text[2] += "\n" + quote;
          quotes[i] = memory->memory.quotes;
          origin.session_id = memory->memory.session_id;
          origin.speaker = memory->memory.speaker;
          origin.time = memory->memory.time;
          origin.message_ids = memory->memory.message_ids;
        } else {
          c.text[2] = TruncateToTokenBudget(*body, request.max_tokens);
          // An excerpt's "[session ID · day]" line heads its conversation's
          // block (once, instead of "[category] URI").
          if (!c.group.empty() && c.text[2].starts_with("[session ")) {
            const size_t eol = c.text[2].find('\n');
            c.heading = c.text[2].substr(0, eol);
            c.text[2] = eol == std::string::npos ? "" : c.text[2].substr(eol + 1);
          }
        }
      }
      // Said things are short: memories and excerpts go in whole.
      if (hit.context_type == ContextType::kMemory) c.preferred = ContextDetail::kFull;
    }
    if (ceiling.has_value()) c.ceiling = std::min(c.ceiling, *ceiling);
    candidates.push_back(std::move(c));
    origins.push_back(std::move(origin));
  }

  // 4. Candidates said on a day the query names first (kNamedDateBoost),
  // memories folded into excerpts (FoldQuotedMemories), then the plan.
  std::vector<double> scores(kept.size(), 0.0);
  for (size_t i = 0; i < kept.size(); ++i) scores[i] = kept[i].score;
  // Puts the candidates (with their origins, quotes and scores) in `order`:
  // (index, score) pairs.
  auto reorder = [&](const std::vector<std::pair<size_t, double>>& order) {
    std::vector<ContextCandidate> ordered_candidates;
    std::vector<ContextOrigin> ordered_origins;
    std::vector<std::vector<std::string>> ordered_quotes;
    std::vector<double> ordered_scores;
    for (const auto& [i, score] : order) {
      ordered_candidates.push_back(std::move(candidates[i]));
      ordered_origins.push_back(std::move(origins[i]));
      ordered_quotes.push_back(std::move(quotes[i]));
      ordered_scores.push_back(score);
    }
    candidates = std::move(ordered_candidates);
    origins = std::move(ordered_origins);
    quotes = std::move(ordered_quotes);
    scores = std::move(ordered_scores);
  };
  const std::vector<NamedDate> named = FindNamedDates(request.search.find.query);
  if (!named.empty()) {
    for (size_t i = 0; i < candidates.size(); ++i) {
      const std::optional<CivilDate> day = SaidOn(candidates[i], origins[i]);
      if (!day.has_value()) continue;
      const bool covered = std::any_of(named.begin(), named.end(),
                                       [&](const NamedDate& d) { return d.Covers(*day); });
      if (covered) scores[i] *= kNamedDateBoost;
    }
    std::vector<std::pair<size_t, double>> rank;
    for (size_t i = 0; i < candidates.size(); ++i) rank.emplace_back(i, scores[i]);
    std::stable_sort(rank.begin(), rank.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    reorder(rank);
  }
  const std::vector<std::pair<size_t, double>> order =
      FoldQuotedMemories(candidates, quotes, scores);
  out.stats.left_out += static_cast<int64_t>(kept.size() - order.size());
  reorder(order);
  ContextPlan plan = PlanContext(candidates, request.max_tokens);
  std::set<std::string> returned;
  for (PlannedEntry& e : plan.entries) {
    ContextEntry entry;
    entry.uri = candidates[e.candidate].uri;
    entry.category = candidates[e.candidate].category;
    entry.score = scores[e.candidate];
    entry.detail = std::string(ContextDetailName(e.detail));
    entry.text = std::move(e.text);
    entry.origin = std::move(origins[e.candidate]);
    returned.insert(entry.uri);
    out.entries.push_back(std::move(entry));
  }
  out.rendered = std::move(plan.rendered);
  out.stats.entries = static_cast<int64_t>(out.entries.size());
  out.stats.tokens = plan.tokens;
  out.stats.max_tokens = request.max_tokens;
  out.stats.left_out += plan.left_out;
  out.stats.repeated_lines = plan.repeated_lines;
  if (!request.search.session_id.empty()) Remember(key, std::move(returned));
  return out;
}

}  // namespace skald
