#pragma once
// Memory extraction with a chat model (the `vlm` config section): ONE
// structured chat call per archive (json_output) asks the model for the
// conversation's durable facts, one list per memory type (memory_types.h),
// and the answer is validated before anything uses it:
//   - only known memory types; an item is an object with a non-empty `text`
//     of at most `max_text_bytes` bytes;
//   - `message_ids` must name messages of the conversation: unknown ids are
//     dropped, an item with none left is dropped;
//   - `event_date` must be a real date "YYYY", "YYYY-MM" or "YYYY-MM-DD"
//     within years 1900..2200 (anything else is cleared);
//   - at most `max_candidates` items are kept (types in MemoryType order,
//     each list in answer order).
// The result is the SAME MemoryCandidate the model-free extractor
// (memory_extractor.h) produces: speaker and time come from the first cited
// message (provenance never comes from the model), subject keys follow the
// model-free extractor's shape ("<speaker>/<attribute>[/<value slug>]",
// "entity/<name>"), and ids are MemoryStableId, so memory_merge.h decides
// and renders them unchanged.
//
// Never nothing: with no model, or when the call fails (transport error,
// HTTP error, timeout — the Llm's own retries and timeout apply), or the
// answer is not usable (not JSON, not of the schema's shape, or every item
// it proposed failed validation), the model-free extractor runs instead and
// the result says which path ran and why.
//
// Thread safety: ExtractMemoriesWithLlm is reentrant; the Llm must allow
// concurrent Chat calls (llm.h says it does).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/llm.h"
#include "session/memory_extractor.h"
#include "session/memory_types.h"

namespace skald {

struct LlmExtractorOptions {
  // Most candidates taken from one answer (the rest are dropped).
  size_t max_candidates = 40;
  // A memory text longer than this is rejected (the model-free extractor's cap).
  size_t max_text_bytes = 600;
  // Each message is cut to this many bytes in the prompt.
  size_t max_message_bytes = 2000;
  // The conversation part of the prompt holds at most this many bytes; the
  // messages after it go through the model-free extractor (their candidates
  // are appended).
  size_t max_prompt_bytes = 48000;
  // Completion limit of the call (0 = the Llm's configured one).
  int max_tokens = 4096;
  // The model-free extractor's options (fallback and overflow).
  ExtractorOptions model_free;
};

// Which extractor produced the candidates.
inline constexpr const char* kExtractorLlm = "llm";
inline constexpr const char* kExtractorModelFree = "model_free";
inline constexpr const char* kExtractorFallback = "model_free_fallback";

struct LlmExtraction {
  std::vector<MemoryCandidate> candidates;
  // kExtractorLlm, kExtractorModelFree (no model) or kExtractorFallback.
  std::string extractor;
  // Why the model's answer was not used (kExtractorFallback only), e.g.
  // "the model's answer is not valid JSON", "chat provider ...: HTTP 500".
  std::string fallback_reason;
  // Items of the answer that validation dropped, and why (one line each, at
  // most 20 lines), for logs and tests.
  size_t dropped = 0;
  std::vector<std::string> dropped_reasons;
  // Messages that did not fit the prompt (extracted model-free).
  size_t overflow_messages = 0;
  // Token counts of the call as the provider reported them (0 when none).
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
};

// The system and user messages of the extraction call (exposed for tests
// and for prompt inspection). `sent` receives how many of `messages` the
// prompt holds (the first ones; the rest did not fit).
std::vector<ChatMessage> BuildExtractionPrompt(const std::vector<ConversationMessage>& messages,
                                               const SessionContext& context,
                                               const LlmExtractorOptions& options, size_t* sent);

// Validates a model answer (JSON text) against the conversation it came
// from. InvalidArgument (naming what is wrong) when the answer is unusable
// as a whole; otherwise the valid candidates, with `out->dropped*` set.
// REQUIRES: out != nullptr.
Status ParseExtractionAnswer(std::string_view answer, const std::vector<ConversationMessage>& messages,
                             const SessionContext& context, const LlmExtractorOptions& options,
                             LlmExtraction* out);

// Extracts candidates from `messages` with `llm` (see the file comment);
// `llm` may be null (model-free). Never fails.
LlmExtraction ExtractMemoriesWithLlm(Llm* llm, const std::vector<ConversationMessage>& messages,
                                     const SessionContext& context,
                                     const LlmExtractorOptions& options = {});

}  // namespace skald
