#pragma once

// Conversation excerpts: what makes an archived conversation searchable
// word for word. Phase 2 of a commit writes, for every message that says
// something, one excerpt file beside the archive's messages
// (history/archive_NNN/excerpt_NNNN.md) holding that message with its
// neighbours: a header line naming the session and the day of the
// excerpt's own message, then one line per message:
//
//   [session s1 · 2023-05-08]
//   Melanie: How did it go?
//   Caroline: I went to a LGBTQ support group yesterday…
//   Melanie: That's great!
//
// An excerpt that would repeat the one before it word for word (the two
// messages of a two-message archive) is left out.
//
// The excerpts are indexed (the transcript messages.jsonl is not), so
// find/search can return the exact words of a conversation — with who said
// them and when — next to the memories distilled from it. A line is
// identical in every excerpt that holds it (and the header in every
// excerpt of that session and day), so whoever assembles context from
// several excerpts can drop repeated lines.
//
// Thread safety: pure functions.

#include <string>
#include <vector>

#include "common/json_util.h"

namespace skald {

// Messages on either side of an excerpt's own message.
inline constexpr int kExcerptRadius = 1;

// One excerpt file: its name in the archive directory and its text.
struct ArchiveExcerpt {
  std::string name;  // "excerpt_0001.md", numbered by the message's position (1-based)
  std::string text;  // the header line, then lines "Speaker: text", oldest first
};

// The line of one stored message (session/message.h): its speaker — the
// peer id when the message has one, else "User" for role user and the
// role's name capitalized otherwise — and its text on one line (whitespace
// collapsed, cut at 2,000 characters). Empty when the message says nothing.
std::string ExcerptLine(const Json& message);

// The excerpts of an archive's messages (oldest first) of session
// `session_id`: one per message that says something, holding it and up to
// kExcerptRadius such messages on either side, under the header
// "[session ID · YYYY-MM-DD]" (the day of the excerpt's own message, from
// its created_at; "[session ID]" when it has none).
std::vector<ArchiveExcerpt> RenderArchiveExcerpts(std::string_view session_id,
                                                  const std::vector<Json>& messages);

}  // namespace skald
