#pragma once

// ContextAssembler: search's context mode (Db::SearchContext). Gathers
// candidates with the finder (intent-planned or the raw query), sorts them
// into categories with quotas, reads each one's text at every level of
// detail it has, and lets retrieve/context_budget.h choose what fits.
//
// Categories: skills and resources by context type; memories by their
// directory (events, entities, preferences; cases and patterns are
// experiences), everything else of the memory type — other memory kinds
// and the excerpts of archived sessions — the catch-all "memories".
// Details: a directory hit has its L0 abstract and its L1 overview; a file
// its abstract and its text (a memory file: its statement without the
// provenance header). Conversation excerpts and memories prefer their full
// text (a few lines); other files start at the abstract and deepen when
// the budget allows.
//
// Thread safety: safe for concurrent use; the dedup_turns ledger has its
// own lock. Everything passed in is borrowed.

#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>

#include "service/finder.h"
#include "service/fs_engine.h"
#include "service/uri_resolver.h"
#include "skald/db.h"

namespace skald {

class ContextAssembler {
 public:
  ContextAssembler(Finder* finder, FsReader* reader, UriResolver* resolver)
      : finder_(finder), reader_(reader), resolver_(resolver) {}

  Result<ContextResult> Assemble(const Identity& who, const ContextRequest& request);

 private:
  using LedgerKey = std::tuple<std::string, std::string, std::string>;  // account, user, session
  // The URIs the last `turns` context calls of a session returned.
  std::set<std::string> RecentlyReturned(const LedgerKey& key, int turns);
  void Remember(const LedgerKey& key, std::set<std::string> uris);

  Finder* const finder_;
  FsReader* const reader_;
  UriResolver* const resolver_;

  std::mutex mu_;
  std::map<LedgerKey, std::deque<std::set<std::string>>> ledger_;  // newest last, <= 100 calls
};

}  // namespace skald
