// Summaries written by a chat model, with a model-free fallback
// (llm_summarizer.h).

#include "ingest/llm_summarizer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "common/json_util.h"
#include "common/strings.h"
#include "model/token_budget.h"

namespace skald {
namespace {

// Instructions of a file call. Written for Skald.
constexpr std::string_view kFileInstructions =
    R"(You write the abstract of one file for the index of a context store that an AI agent searches. The agent reads the abstract to decide whether to open the file, and searches match against it.
Say what the document is about: its subject, its main points or findings, and the names, terms and figures a reader would search for. Do not describe the file format, do not start with the file name, and do not add anything the text does not say.
Write 40 to 120 words of plain text in one paragraph, without Markdown, in the language of the document.
Answer with a single JSON object and nothing else: {"abstract": "..."})";

// Instructions of a directory call. Written for Skald.
constexpr std::string_view kDirectoryInstructions =
    R"(You describe one directory of a context store that an AI agent navigates. The agent reads the directory's abstract to decide whether to enter it, and its overview to decide which entry to open.
You get the directory's name and the abstracts of its entries: files, and sub-directories (names ending in /).
Write two texts:
- "abstract": one or two sentences, at most 200 characters, on what the directory is about - the common subject of its entries and its main topics. Not a list of entry names.
- "overview": Markdown of 150 to 500 words with these sections, in this order:
  "## Topics": the subjects the directory covers;
  "## Where to Look": which entry to open for which kind of question, naming entries exactly as given;
  "## Contents": for each listed entry a "### " heading with its name, then one sentence on what it holds.
Use only what the abstracts say. When only some of the entries are listed, say so under Contents. Write in the language of the abstracts.
Answer with a single JSON object and nothing else: {"abstract": "...", "overview": "..."})";

// Completion limits of the two calls (tokens): room for the longest
// answer asked for, so that a runaway answer ends early (and fails).
constexpr int kFileReplyTokens = 600;
constexpr int kDirectoryReplyTokens = 2400;

// The non-blank text field `key` of a JSON object answer.
Result<std::string> TextField(const Json& answer, const char* key) {
  auto it = answer.find(key);
  if (it == answer.end() || !it->is_string()) {
    return Status::InvalidArgument(fmt::format("the answer has no \"{}\" text", key));
  }
  std::string text = it->get<std::string>();
  if (!IsValidUtf8(text)) {
    return Status::InvalidArgument(fmt::format("\"{}\" is not valid UTF-8", key));
  }
  if (Trim(text).empty()) return Status::InvalidArgument(fmt::format("\"{}\" is empty", key));
  return text;
}

Result<Json> ParseAnswer(std::string_view reply) {
  Result<Json> parsed = ParseJson(reply);
  if (!parsed.ok() || !parsed->is_object()) {
    return Status::InvalidArgument("the answer is not a JSON object");
  }
  return parsed;
}

// An abstract as one line of text that cannot read as a Markdown heading.
std::string CleanAbstract(std::string_view text, size_t max_chars) {
  std::string line = CollapseWhitespace(text);
  const size_t start = line.find_first_not_of("# ");
  line = start == std::string::npos ? "" : line.substr(start);
  return TruncateGeneratedText(line, max_chars);
}

// The model's overview body: H1 headings demoted (the renderer writes the
// only H1), a first heading-less paragraph put under "## Overview" (so that
// it does not run into the abstract), trimmed.
std::string CleanOverviewBody(std::string_view body) {
  std::string out;
  bool first_line = true;
  for (const std::string& raw : Split(std::string(body), '\n')) {
    std::string line(raw);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (first_line && Trim(line).empty()) continue;
    if (line.rfind("# ", 0) == 0) {
      if (first_line) continue;  // the model's own title
      line = "#" + line;
    }
    if (first_line && line.rfind("##", 0) != 0) out = "## Overview\n\n";
    first_line = false;
    out += line;
    out += '\n';
  }
  return std::string(Trim(out));
}

}  // namespace

Status LlmSummarizerOptions::Validate() const {
  if (max_input_tokens < 256) return Status::InvalidArgument("max_input_tokens must be >= 256");
  if (max_concurrent < 1 || max_concurrent > 256) {
    return Status::InvalidArgument("max_concurrent must be between 1 and 256");
  }
  if (max_entry_chars < 50) return Status::InvalidArgument("max_entry_chars must be >= 50");
  return Status::Ok();
}

Result<std::string> ParseFileSummaryReply(std::string_view reply) {
  SKALD_ASSIGN_OR_RETURN(Json answer, ParseAnswer(reply));
  SKALD_ASSIGN_OR_RETURN(std::string abstract, TextField(answer, "abstract"));
  std::string clean = CleanAbstract(abstract, kFileSummaryMaxChars);
  if (clean.empty()) return Status::InvalidArgument("\"abstract\" is empty");
  return clean;
}

Result<std::string> RenderOverviewReply(std::string_view dir_name, std::string_view reply) {
  SKALD_ASSIGN_OR_RETURN(Json answer, ParseAnswer(reply));
  SKALD_ASSIGN_OR_RETURN(std::string raw_abstract, TextField(answer, "abstract"));
  SKALD_ASSIGN_OR_RETURN(std::string raw_body, TextField(answer, "overview"));
  const std::string abstract = CleanAbstract(raw_abstract, kAbstractMaxChars);
  const std::string body = CleanOverviewBody(raw_body);
  if (abstract.empty()) return Status::InvalidArgument("\"abstract\" is empty");
  if (body.empty()) return Status::InvalidArgument("\"overview\" has no text");
  const std::string title = CollapseWhitespace(dir_name);
  std::string head = fmt::format("# {}\n\n{}", title, abstract);
  const size_t used = Utf8Length(head) + 2;  // "\n\n" before the body
  if (used >= kOverviewMaxChars) return TruncateGeneratedText(head, kOverviewMaxChars);
  return fmt::format("{}\n\n{}", head, TruncateGeneratedText(body, kOverviewMaxChars - used));
}

LlmSummarizer::LlmSummarizer(Llm* llm, Summarizer* fallback, LlmSummarizerOptions options)
    : llm_(llm),
      fallback_(fallback),
      options_(options),
      slots_(std::clamp<std::ptrdiff_t>(options.max_concurrent, 1, 256)) {}

std::string LlmSummarizer::Name() const {
  return fmt::format("llm:{}+{}", llm_->model(), fallback_->Name());
}

LlmSummarizerStats LlmSummarizer::stats() const { return {calls_.load(), fallbacks_.load()}; }

Result<std::string> LlmSummarizer::Ask(std::string system, std::string user, int max_tokens) {
  ChatRequest request;
  request.max_tokens = max_tokens;
  request.messages = {ChatMessage{"system", std::move(system)},
                      ChatMessage{"user", std::move(user)}};
  request.json_output = true;
  slots_.acquire();
  ++calls_;
  Result<ChatResponse> reply = llm_->Chat(request);
  slots_.release();
  if (!reply.ok()) return reply.status();
  return std::move(reply->content);
}

void LlmSummarizer::CountFallback(std::string_view what, const Status& why) {
  // The first failure is a warning; while the model stays down (its circuit
  // open), the rest are debug lines.
  if (fallbacks_.fetch_add(1) == 0) {
    spdlog::warn("LLM summary of {} failed, using the extractive summary: {}", what,
                 why.ToString());
  } else {
    spdlog::debug("LLM summary of {} failed, using the extractive summary: {}", what,
                  why.ToString());
  }
}

Result<std::string> LlmSummarizer::SummarizeFile(std::string_view name, std::string_view text) {
  if (Trim(text).empty()) return fallback_->SummarizeFile(name, text);
  std::string user = fmt::format("File name: {}\n\nContent:\n{}", name,
                                 TruncateToTokenBudget(text, options_.max_input_tokens));
  Result<std::string> reply =
      Ask(std::string(kFileInstructions), std::move(user), kFileReplyTokens);
  Result<std::string> summary =
      reply.ok() ? ParseFileSummaryReply(*reply) : Result<std::string>(reply.status());
  if (summary.ok()) return summary;
  CountFallback(fmt::format("file {}", name), summary.status());
  return fallback_->SummarizeFile(name, text);
}

Result<std::string> LlmSummarizer::Overview(std::string_view dir_name,
                                            std::span<const EntrySummary> entries,
                                            size_t total_entries, const OverviewContext& context) {
  if (total_entries < entries.size() || entries.empty()) {
    return fallback_->Overview(dir_name, entries, total_entries, context);
  }
  std::string files;
  std::string dirs;
  for (const EntrySummary& e : entries) {
    std::string summary = CollapseWhitespace(e.summary);
    if (summary.empty()) summary = "(no abstract)";
    std::string line = fmt::format("- {}{}: {}\n", CollapseWhitespace(e.name), e.is_dir ? "/" : "",
                                   Utf8Prefix(summary, options_.max_entry_chars));
    (e.is_dir ? dirs : files) += line;
  }
  std::string user = fmt::format("Directory: {}\n", dir_name);
  if (entries.size() == total_entries) {
    user += fmt::format("All {} entries are listed.\n", total_entries);
  } else {
    user += fmt::format("It holds {} entries; a sample of {} is listed.\n", total_entries,
                        entries.size());
  }
  if (!files.empty()) user += "\nFiles:\n" + files;
  if (!dirs.empty()) user += "\nSub-directories:\n" + dirs;
  Result<std::string> reply =
      Ask(std::string(kDirectoryInstructions), std::move(user), kDirectoryReplyTokens);
  Result<std::string> overview =
      reply.ok() ? RenderOverviewReply(dir_name, *reply) : Result<std::string>(reply.status());
  if (overview.ok()) return overview;
  CountFallback(fmt::format("directory {}", dir_name), overview.status());
  return fallback_->Overview(dir_name, entries, total_entries, context);
}

}  // namespace skald
