#pragma once

// LlmSummarizer: file abstracts and directory overviews written by a chat
// model (the `vlm` config section), one call per node, with a model-free
// Summarizer (the extractive one) as the fallback for every node whose call
// or answer fails.
//
// A file: one JSON-mode call with the file name and its text (cut to
// `max_input_tokens`, head and tail kept), answered as {"abstract": "..."}:
// a plain-text summary stating what the document is about, at most
// kFileSummaryMaxChars characters.
// A directory: one JSON-mode call with the directory's name, how many
// entries it holds and the described entries' summaries, answered as
// {"abstract": "...", "overview": "..."}; the overview returned is
//   # {dir_name}
//
//   {abstract, one line, at most kAbstractMaxChars characters}
//
//   {the model's Markdown sections, `## ` headings}
// at most kOverviewMaxChars characters, so that AbstractFromOverview gives
// the model's abstract as the directory's L0.
// Answers are checked: a JSON object with the field(s) as non-blank text,
// valid UTF-8; white space collapsed in abstracts; over-long text is cut by
// TruncateGeneratedText. Anything else — no answer, an HTTP error, a
// timeout, an open circuit, a malformed or empty answer — gives the
// fallback's summary for that node (counted in stats()).
//
// Thread safety: safe for concurrent use; at most `max_concurrent` model
// calls are in flight at once (further callers wait for a slot).

#include <atomic>
#include <cstdint>
#include <memory>
#include <semaphore>
#include <string>
#include <string_view>

#include "model/llm.h"
#include "text/summarizer.h"

namespace skald {

struct LlmSummarizerOptions {
  // Estimated tokens of a file's text sent to the model at most; longer
  // texts keep their head and tail. >= 256.
  int max_input_tokens = 6000;
  // Model calls in flight at once from this summarizer, 1..256. The chat
  // client's own `max_concurrent` bounds all its callers together.
  int max_concurrent = 4;
  // Characters of one entry's summary put in a directory prompt at most.
  size_t max_entry_chars = 600;

  Status Validate() const;
};

struct LlmSummarizerStats {
  uint64_t calls = 0;      // model calls made
  uint64_t fallbacks = 0;  // nodes summarized by the fallback after a failure
};

class LlmSummarizer final : public Summarizer {
 public:
  // `llm` and `fallback` are borrowed and must outlive the summarizer.
  // REQUIRES: options.Validate() is ok.
  LlmSummarizer(Llm* llm, Summarizer* fallback, LlmSummarizerOptions options = {});

  // "llm:{model}+{fallback name}".
  std::string Name() const override;
  Result<std::string> SummarizeFile(std::string_view name, std::string_view text) override;
  Result<std::string> Overview(std::string_view dir_name, std::span<const EntrySummary> entries,
                               size_t total_entries, const OverviewContext& context) override;
  using Summarizer::Overview;

  LlmSummarizerStats stats() const;

 private:
  // One JSON-mode call, within a concurrency slot; the answer's text.
  Result<std::string> Ask(std::string system, std::string user, int max_tokens);
  void CountFallback(std::string_view what, const Status& why);

  Llm* const llm_;
  Summarizer* const fallback_;
  const LlmSummarizerOptions options_;
  std::counting_semaphore<256> slots_;
  std::atomic<uint64_t> calls_{0};
  std::atomic<uint64_t> fallbacks_{0};
};

// Checks a file-summary answer: {"abstract": non-blank text}. Returns the
// abstract with white space collapsed, cut to kFileSummaryMaxChars.
// InvalidArgument naming what is wrong otherwise. Exposed for tests.
Result<std::string> ParseFileSummaryReply(std::string_view reply);

// Checks a directory answer ({"abstract", "overview"}, both non-blank text)
// and renders the overview Markdown described in the file comment.
// InvalidArgument naming what is wrong otherwise. Exposed for tests.
Result<std::string> RenderOverviewReply(std::string_view dir_name, std::string_view reply);

}  // namespace skald
