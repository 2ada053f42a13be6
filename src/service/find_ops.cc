// find (Finder): maps a request onto the retriever — the caller's visible
// scopes, context types, levels, tags and time window become the filter of
// every index search (never a cut of finished results).

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "service/finder.h"
#include "uri/access.h"
#include "uri/uri_path.h"

namespace skald {
namespace {

// The scopes a search over all of `viking://` covers (the public ones).
std::vector<VikingUri> PublicScopes() {
  return {VikingUri::FromSegments({"resources"}), VikingUri::FromSegments({"agent"}),
          VikingUri::FromSegments({"user"})};
}

// OpenViking's default targets when the caller names none.
std::vector<VikingUri> DefaultTargets(const Identity& who,
                                      const std::vector<std::string>& context_types) {
  VikingUri user_root = who.role == Role::kRoot ? *VikingUri::Parse("viking://user")
                                                : VikingUri::FromSegments({"user", who.user});
  if (context_types.size() == 1 && context_types[0] == "skill") {
    // ROOT searches every user's skills (the context type filter keeps them to skills).
    return {who.role == Role::kRoot ? user_root : user_root.Child("skills"),
            *VikingUri::Parse("viking://agent/skills")};
  }
  if (context_types.size() == 1 && context_types[0] == "memory") return {user_root};
  if (who.role == Role::kRoot) return PublicScopes();
  return {user_root, *VikingUri::Parse("viking://resources")};
}

// The record scopes of `scope` that an actor peer sees (uri/access.h
// IsAccessible): `scope` whole when it can hold no other peer's space;
// otherwise the directory's own records and, one by one, its children's
// visible parts, down to the peers' spaces. At most a few levels, listed
// from the catalog.
Status AppendPeerScopes(const Identity& who, const VikingUri& scope, Catalog& catalog,
                        std::vector<UriScope>* out) {
  if (!IsAccessible(who, scope)) return Status::Ok();
  if (!HoldsOtherPeers(who, scope)) {
    out->push_back(UriScope::Subtree(scope.str()));
    return Status::Ok();
  }
  out->push_back(UriScope{scope.str(), 0, 0});
  SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> children,
                         catalog.ListChildren(who.account, scope.path()));
  for (const CatalogNode& child : children) {
    Result<VikingUri> uri = VikingUri::Parse(UriOfPath(child.path));
    if (!uri.ok()) continue;
    SKALD_RETURN_IF_ERROR(AppendPeerScopes(who, *uri, catalog, out));
  }
  return Status::Ok();
}

// Whether `filter` admits `r` (RecordFilter's conditions, as the indexes
// apply them; `r.account` is the filter's).
bool Admits(const RecordFilter& filter, const Record& r) {
  if (filter.level_mask != 0 && ((filter.level_mask >> r.level) & 1u) == 0) return false;
  auto any = [](const auto& list, const auto& value) {
    return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
  };
  if (!any(filter.context_types, r.context_type) || !any(filter.owners, r.owner)) return false;
  for (const std::string& tag : filter.tags) {
    if (std::find(r.tags.begin(), r.tags.end(), tag) == r.tags.end()) return false;
  }
  if (r.created_ns < filter.created_min || r.created_ns > filter.created_max ||
      r.updated_ns < filter.updated_min || r.updated_ns > filter.updated_max) {
    return false;
  }
  for (const UriScope& scope : filter.uri_scopes) {
    const std::string_view uri = r.uri;
    if (!uri.starts_with(scope.uri)) continue;
    const std::string_view rest = uri.substr(scope.uri.size());
    if (!rest.empty() && rest[0] != '/' && !scope.uri.ends_with('/')) continue;
    const int depth = static_cast<int>(std::count(rest.begin(), rest.end(), '/')) +
                      (scope.uri.ends_with('/') && !rest.empty() ? 1 : 0);
    if (depth >= scope.min_depth && (scope.max_depth < 0 || depth <= scope.max_depth)) return true;
  }
  return false;
}

}  // namespace

std::vector<UriScope> WithinSubtrees(const std::vector<UriScope>& scopes,
                                     const std::vector<FindRequest::Subtree>& within) {
  std::vector<UriScope> out;
  for (const UriScope& a : scopes) {
    for (const FindRequest::Subtree& b : within) {
      if (std::optional<UriSpan> part =
              IntersectSpans({a.uri, a.min_depth, a.max_depth}, {b.uri, 0, b.max_depth})) {
        out.push_back({std::move(part->uri), part->min_depth, part->max_depth});
      }
    }
  }
  return out;
}

Result<FindResult> Finder::Find(const Identity& who, const FindRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  Result<FindResult> result = RunFind(who, request);
  nanos_ += static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count());
  ++finds_;
  if (!result.ok()) {
    ++failures_;
  } else {
    hits_ += result->total();
    if (result->total() == 0) ++zero_hit_;
  }
  return result;
}

Result<FindResult> Finder::ListAdmitted(const Identity& who, const RecordFilter& filter,
                                        int limit) {
  // By URI: one hit per node, its lowest level. Each scope is read in URI
  // order and only until it gave `limit` nodes (the first `limit` of all
  // scopes are among those).
  std::map<std::string, Record> admitted;
  for (const UriScope& scope : filter.uri_scopes) {
    int nodes = 0;
    std::string last;
    SKALD_RETURN_IF_ERROR(catalog_->ScanRecordsUnder(who.account, scope.uri, [&](Record& r) {
      if (!Admits(filter, r)) return true;
      if (r.uri != last) {
        if (nodes == limit) return false;
        ++nodes;
        last = r.uri;
      }
      auto [it, inserted] = admitted.try_emplace(r.uri, r);
      if (!inserted && r.level < it->second.level) it->second = std::move(r);
      return true;
    }));
  }
  FindResult out;
  int kept = 0;
  for (auto& [uri, r] : admitted) {
    if (kept == limit) break;
    if (!who.actor_peer.empty()) {
      Result<VikingUri> node = VikingUri::Parse(uri);
      if (!node.ok() || !IsAccessible(who, *node)) continue;
    }
    MatchedContext hit;
    hit.uri = uri;
    hit.context_type = r.context_type;
    hit.level = r.level;
    hit.score = 0;
    hit.abstract = std::move(r.abstract);
    hit.tags = std::move(r.tags);
    hit.match_reason = "filter";
    ++kept;
    std::vector<MatchedContext>& list = hit.context_type == ContextType::kMemory  ? out.memories
                                        : hit.context_type == ContextType::kSkill ? out.skills
                                                                                  : out.resources;
    list.push_back(std::move(hit));
  }
  return out;
}

RetrievalStats Finder::counts() const {
  RetrievalStats stats;
  stats.finds = finds_.load();
  stats.failures = failures_.load();
  stats.zero_hit = zero_hit_.load();
  stats.hits = hits_.load();
  stats.seconds_total = static_cast<double>(nanos_.load()) / 1e9;
  return stats;
}

Result<FindResult> Finder::RunFind(const Identity& who, const FindRequest& request) {
  SKALD_RETURN_IF_ERROR(request.Validate());
  SKALD_RETURN_IF_ERROR(resolver_->EnsureAccount(who));
  if (!options_.embedder) {
    return Status::FailedPrecondition(
        "find needs the embedding model of this workspace: configure embedding.dense");
  }
  // Scopes: the targets, narrowed to what the caller may see (uri/access.h
  // VisibleSubtrees). They become the candidate filter of every index
  // search, so other users' spaces are never candidates. A target the
  // caller may not see at all is refused (as OpenViking does), by its URI
  // alone.
  std::vector<VikingUri> targets;
  if (request.target_uris.empty()) {
    targets = DefaultTargets(who, request.context_types);
  } else {
    for (const std::string& text : request.target_uris) {
      SKALD_ASSIGN_OR_RETURN(VikingUri target, resolver_->ParseOnly(who, text));
      SKALD_RETURN_IF_ERROR(CheckReadAccess(who, target));
      if (target.is_root()) {
        for (VikingUri& scope : PublicScopes()) targets.push_back(std::move(scope));
      } else {
        targets.push_back(std::move(target));
      }
    }
  }
  std::vector<VikingUri> scopes;
  for (const VikingUri& target : targets) {
    for (VikingUri& part : VisibleSubtrees(who, target)) {
      bool seen = false;
      for (const VikingUri& scope : scopes) seen = seen || scope.str() == part.str();
      if (!seen) scopes.push_back(std::move(part));
    }
  }

  RetrievalQuery query;
  query.text = request.query;
  query.account = who.account;
  query.limit = request.limit;
  query.score_threshold = request.score_threshold;
  query.mode = request.mode;
  query.trace = request.include_provenance;
  RecordFilter& filter = query.filter;
  filter.account = who.account;
  for (int level : request.levels) filter.level_mask |= 1u << level;
  for (const std::string& type : request.context_types) {
    filter.context_types.push_back(*ParseContextType(type));  // Validate() checked it
  }
  filter.tags = request.tags;
  int64_t& min = request.time_field == "created_at" ? filter.created_min : filter.updated_min;
  int64_t& max = request.time_field == "created_at" ? filter.created_max : filter.updated_max;
  if (request.since_ns) min = *request.since_ns;
  if (request.until_ns) max = *request.until_ns;
  for (const VikingUri& scope : scopes) {
    // Under an actor peer, other peers' spaces are left out of the scopes
    // themselves, so that they are never candidates (and `limit` hits come
    // from what the peer sees).
    if (who.actor_peer.empty()) {
      filter.uri_scopes.push_back(UriScope::Subtree(scope.str()));
    } else {
      SKALD_RETURN_IF_ERROR(AppendPeerScopes(who, scope, *catalog_, &filter.uri_scopes));
    }
    query.root_dirs.push_back(scope.str());
  }

  filter.owners = request.owners;
  if (!request.within.empty())
    filter.uri_scopes = WithinSubtrees(filter.uri_scopes, request.within);

  FindResult out;
  // Nothing visible under the targets, or nothing the filter admits.
  if (scopes.empty() || filter.uri_scopes.empty() || request.matches_nothing) return out;
  if (request.filter_only) return ListAdmitted(who, filter, request.limit);
  RetrievalSources sources;
  sources.vectors = vectors_ ? vectors_->Find(who.account) : nullptr;
  sources.lexical = lexical_;
  sources.embedder = options_.embedder.get();
  sources.reranker = options_.reranker.get();
  sources.env = EnvOrDefault(options_.env);
  sources.lookup = [this](std::string_view account, std::span<const uint64_t> keys) {
    return catalog_->GetRecordsByKeys(account, keys);
  };
  SKALD_ASSIGN_OR_RETURN(RetrievalResult result, retriever_->Retrieve(query, sources));

  for (MatchedContext& hit : result.hits) {
    // Nodes hidden one by one inside a visible scope (another peer's space
    // made after the scopes were listed) are not hits.
    if (!who.actor_peer.empty()) {
      Result<VikingUri> uri = VikingUri::Parse(hit.uri);
      if (!uri.ok() || !IsAccessible(who, *uri)) continue;
    }
    // A directory hit is the directory (its URI, level 0 or 1 for the record
    // that matched) told by its L0 abstract, whichever record matched.
    if (hit.level == 1) {
      SKALD_ASSIGN_OR_RETURN(std::vector<Record> records,
                             catalog_->GetRecordsByUri(who.account, hit.uri));
      for (const Record& r : records) {
        if (r.level == 0 && !r.abstract.empty()) hit.abstract = r.abstract;
      }
    }
    if (hit.context_type == ContextType::kMemory) {
      out.memories.push_back(std::move(hit));
    } else if (hit.context_type == ContextType::kSkill) {
      out.skills.push_back(std::move(hit));
    } else {
      out.resources.push_back(std::move(hit));
    }
  }
  if (request.include_provenance) {
    out.trace = std::move(result.trace);
    // The directories walked inside another peer's space are not named.
    if (!who.actor_peer.empty()) {
      RetrievalTrace& trace = *out.trace;
      std::vector<std::string> dirs;
      std::vector<double> scores;
      for (size_t i = 0; i < trace.directories_visited.size(); ++i) {
        Result<VikingUri> dir = VikingUri::Parse(trace.directories_visited[i]);
        if (!dir.ok() || !IsAccessible(who, *dir)) continue;
        dirs.push_back(std::move(trace.directories_visited[i]));
        if (i < trace.directory_scores.size()) scores.push_back(trace.directory_scores[i]);
      }
      trace.directories_visited = std::move(dirs);
      trace.directory_scores = std::move(scores);
    }
  }
  return out;
}

}  // namespace skald
