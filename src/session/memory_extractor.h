#pragma once
// Model-free memory extraction: finds the statements of a conversation that
// carry durable facts and turns each into a self-contained memory candidate
// (a sentence naming the speaker, with its type, subject, provenance and a
// resolved event date). Rules, not a model: English first-person statements
// are recognized by phrase patterns (self-descriptions, preferences and
// habits, relations and named entities, dated events, plans and outcomes);
// questions, greetings and reactions are skipped. Deterministic: the same
// messages and context always give the same candidates in the same order.
//
// Thread safety: pure functions (the compiled patterns are immutable and
// shared).

#include <cstddef>
#include <vector>

#include "session/memory_types.h"

namespace skald {

struct ExtractorOptions {
  // Sentences with fewer words carry no fact worth a memory ("Sure thing!").
  size_t min_words = 3;
  // Longer sentences are cut (at a word boundary) before they become a memory.
  size_t max_text_bytes = 600;
  // At most this many candidates per message (in sentence order); 0 = no cap.
  size_t max_per_message = 6;
};

// Extracts memory candidates from `messages` (in conversation order).
// Relative dates ("last Saturday") are resolved against each message's
// `time`, else `context.session_time`; when neither parses they stay as
// written and `event_date` is empty. Speakers default to
// `context.user_name` / `context.assistant_name` (or "User" / "Assistant")
// by role. Statements by the assistant map to cases/patterns/tools/skills,
// the others to profile/preferences/entities/events/identity. Candidates with
// the same stable id are reported once (their message ids united).
std::vector<MemoryCandidate> ExtractMemories(const std::vector<ConversationMessage>& messages,
                                             const SessionContext& context,
                                             const ExtractorOptions& options = {});

}  // namespace skald
