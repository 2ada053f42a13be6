#pragma once

// Llm: chat completion with an HTTP model (OpenAI-compatible
// /v1/chat/completions or Ollama /api/chat), configured by the `vlm` and
// `query_planner` config sections (factory.h). Skald's built-in defaults
// (extractive summaries, rule-based intent analysis) do not use an Llm, so
// "no LLM configured" is a normal state callers handle.
//
// Thread safety: Chat may be called concurrently; in-flight requests are
// bounded by `max_concurrent`.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/embedder.h"
#include "skald/result.h"

namespace skald {

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

struct ChatRequest {
  std::vector<ChatMessage> messages;
  // Ask for a JSON object (OpenAI `response_format: json_object`, Ollama
  // `format: "json"`). The reply is then checked to be valid JSON; a
  // Markdown code fence around it is removed.
  bool json_output = false;
  // Sampling temperature; unset = the configured one (`vlm.temperature`).
  std::optional<double> temperature;
  // Completion length limit; unset = the configured one (`vlm.max_tokens`,
  // 0 = the provider's default).
  std::optional<int> max_tokens;
};

struct ChatResponse {
  std::string content;        // the assistant message text
  std::string finish_reason;  // "stop", "length", ... ("" when not reported)
  int64_t prompt_tokens = 0;  // as reported by the provider (0 when not)
  int64_t completion_tokens = 0;
};

class Llm {
 public:
  virtual ~Llm() = default;
  virtual std::string provider() const = 0;
  virtual std::string model() const = 0;

  // One chat completion (not streamed). REQUIRES: at least one message.
  virtual Result<ChatResponse> Chat(const ChatRequest& request) = 0;

  virtual ModelStats stats() const { return {}; }
};

}  // namespace skald
