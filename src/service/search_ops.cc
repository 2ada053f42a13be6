// search (Finder::Search): intent analysis over the query and the session's
// hints, then one find per typed query, hits merged by URI.

#include <algorithm>
#include <map>

#include "service/finder.h"

namespace skald {
namespace {

// Appends `from` to `into`, a URI once at its best score, best first.
void MergeHits(std::vector<MatchedContext>* into, std::vector<MatchedContext>&& from) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < into->size(); ++i) index.emplace((*into)[i].uri, i);
  for (MatchedContext& hit : from) {
    auto it = index.find(hit.uri);
    if (it == index.end()) {
      index.emplace(hit.uri, into->size());
      into->push_back(std::move(hit));
    } else if (hit.score > (*into)[it->second].score) {
      (*into)[it->second] = std::move(hit);
    }
  }
  std::stable_sort(into->begin(), into->end(),
                   [](const MatchedContext& a, const MatchedContext& b) { return a.score > b.score; });
}

}  // namespace

Result<SearchResult> Finder::Search(const Identity& who, const SearchRequest& request) {
  SKALD_RETURN_IF_ERROR(request.find.Validate());
  SessionHints hints;
  if (!request.session_id.empty() && session_hints_) hints = session_hints_(who, request.session_id);
  const IntentAnalyzer& analyzer = planner_ ? static_cast<const IntentAnalyzer&>(*planner_)
                                             : static_cast<const IntentAnalyzer&>(analyzer_);
  SKALD_ASSIGN_OR_RETURN(QueryPlan plan, analyzer.Analyze(request.find.query, hints));
  SearchResult out;
  const std::vector<std::string>& asked_types = request.find.context_types;
  for (const TypedQuery& typed : plan.queries) {
    // A typed query of a kind the caller filtered out finds nothing wanted.
    if (!typed.context_type.empty() && !asked_types.empty() &&
        std::find(asked_types.begin(), asked_types.end(), typed.context_type) ==
            asked_types.end()) {
      continue;
    }
    FindRequest find = request.find;
    find.query = typed.query;
    if (!typed.context_type.empty()) find.context_types = {typed.context_type};
    SKALD_ASSIGN_OR_RETURN(FindResult found, Find(who, find));
    MergeHits(&out.found.memories, std::move(found.memories));
    MergeHits(&out.found.resources, std::move(found.resources));
    MergeHits(&out.found.skills, std::move(found.skills));
    if (found.trace && !out.found.trace) out.found.trace = std::move(found.trace);
  }
  const auto limit = static_cast<size_t>(std::max(request.find.limit, 0));
  for (auto* list : {&out.found.memories, &out.found.resources, &out.found.skills}) {
    if (list->size() > limit) list->resize(limit);
  }
  out.query_plan = std::move(plan);
  return out;
}

}  // namespace skald
