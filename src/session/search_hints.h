#pragma once

// What a session tells `search` (reference internals §3: intent analysis
// reads the latest archive overview and the last few messages).
//
// Thread safety: as SessionStore.

#include <string_view>

#include "retrieve/intent_analyzer.h"
#include "session/session_store.h"

namespace skald {

// Live messages a search with a session looks at, newest last.
inline constexpr size_t kSearchHintMessages = 5;

// The hints of `who`'s session `session_id`: its latest completed archive's
// overview and the plain text of its last kSearchHintMessages live messages.
// Empty for an unknown session or one of another user (search goes on
// without it) and on any read error. `store` is borrowed.
SessionHints SearchHintsFor(SessionStore* store, const Identity& who, std::string_view session_id);

}  // namespace skald
