#include "session/memory_hook.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/time_util.h"
#include "session/archive_excerpts.h"
#include "session/memory_extractor.h"
#include "session/message.h"

namespace skald {
namespace {

constexpr const char* kMemoryFileSuffix = ".md";

std::string MemoriesRoot(const Identity& owner) {
  return fmt::format("viking://user/{}/memories", owner.user);
}

// The archive's stored messages as the extractor reads them.
std::vector<ConversationMessage> ToConversation(const std::vector<Json>& messages) {
  std::vector<ConversationMessage> out;
  out.reserve(messages.size());
  for (const Json& m : messages) {
    if (!m.is_object()) continue;
    ConversationMessage message;
    message.id = m.value("id", "");
    message.role = m.value("role", "");
    // A peer (another participant) speaks under its own name; the owner's
    // and the assistant's messages take the session's names.
    message.speaker = m.value("peer_id", "");
    message.text = MessageText(m);
    message.time = m.value("created_at", "");
    message.line = ExcerptLine(m);
    out.push_back(std::move(message));
  }
  return out;
}

bool IsMemoryFile(const std::string& name) {
  return !name.empty() && name[0] != '.' && name.size() > 3 &&
         name.compare(name.size() - 3, 3, kMemoryFileSuffix) == 0;
}

// Every memory file under `dir` (its path relative to the memories root in
// `prefix`), parsed; files that do not parse (written by hand) are left out
// and their paths put in `unparsed`.
Status CollectMemories(SessionFiles* files, const Identity& owner, const std::string& dir_uri,
                       const std::string& prefix, int depth, std::vector<MemoryRecord>* out,
                       std::set<std::string>* unparsed) {
  if (depth > 8) return Status::Ok();  // types nest by date at most three deep
  SKALD_ASSIGN_OR_RETURN(VikingUri dir, VikingUri::Parse(dir_uri));
  SKALD_ASSIGN_OR_RETURN(std::vector<SessionFileEntry> entries, files->List(owner, dir));
  for (const SessionFileEntry& entry : entries) {
    const std::string uri = dir_uri + "/" + entry.name;
    const std::string rel = prefix.empty() ? entry.name : prefix + "/" + entry.name;
    if (entry.is_dir) {
      if (entry.name[0] == '.') continue;
      SKALD_RETURN_IF_ERROR(CollectMemories(files, owner, uri, rel, depth + 1, out, unparsed));
      continue;
    }
    if (!IsMemoryFile(entry.name)) continue;
    SKALD_ASSIGN_OR_RETURN(VikingUri file, VikingUri::Parse(uri));
    SKALD_ASSIGN_OR_RETURN(std::optional<std::string> content, files->Read(owner, file));
    if (!content) continue;
    Result<MemoryRecord> record = ParseMemoryFile(*content);
    if (!record.ok()) {
      unparsed->insert(rel);  // not decided against, but never written over
      continue;
    }
    record->path = rel;
    out->push_back(std::move(*record));
  }
  return Status::Ok();
}

}  // namespace

MemoryExtraction::MemoryExtraction(SessionFiles* files, Llm* llm, MemoryHookOptions options)
    : files_(files), llm_(llm), options_(std::move(options)) {}

std::shared_ptr<std::mutex> MemoryExtraction::OwnerMutex(const Identity& owner) {
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<std::mutex>& mu = owner_mu_[owner.account + "/" + owner.user];
  if (!mu) mu = std::make_shared<std::mutex>();
  return mu;
}

Result<MemoryExtractionOutcome> MemoryExtraction::Run(const ArchiveForExtraction& archive,
                                                      const std::function<bool()>& stopping) {
  MemoryExtractionOutcome outcome;
  MemoryExtractionReport& report = outcome.report;
  SessionContext session;
  session.session_id = archive.session_id;
  session.user = archive.owner.user;
  session.session_time = FormatIsoMillis(archive.committed_at_ns);
  // The memories live in the user's own space, so its messages speak as
  // "User": SessionContext's default names are kept (a peer speaks by its
  // peer id).
  const std::vector<ConversationMessage> conversation = ToConversation(archive.messages);
  if (conversation.empty()) return outcome;
  LlmExtraction extraction =
      ExtractMemoriesWithLlm(llm_, conversation, session, options_.extractor);
  report.extractor = extraction.extractor;
  report.fallback_reason = extraction.fallback_reason;
  report.prompt_tokens = extraction.prompt_tokens;
  report.completion_tokens = extraction.completion_tokens;
  if (!extraction.fallback_reason.empty()) {
    spdlog::warn("session {}: memory extraction fell back to the model-free extractor: {}",
                 archive.session_id, extraction.fallback_reason);
  } else if (extraction.dropped > 0) {
    spdlog::info("session {}: {} memories of the model's answer dropped (first: {})",
                 archive.session_id, extraction.dropped,
                 extraction.dropped_reasons.empty() ? "" : extraction.dropped_reasons.front());
  }
  const std::vector<MemoryCandidate>& candidates = extraction.candidates;
  if (candidates.empty()) return outcome;

  // One user's memories are read, decided and written by one run at a time.
  std::shared_ptr<std::mutex> owner_mu = OwnerMutex(archive.owner);
  std::lock_guard<std::mutex> owner_lock(*owner_mu);
  std::set<MemoryType> types;
  for (const MemoryCandidate& c : candidates) types.insert(c.type);
  std::vector<MemoryRecord> existing;
  std::set<std::string> unparsed;
  const std::string root = MemoriesRoot(archive.owner);
  for (MemoryType type : types) {
    const std::string name(MemoryTypeName(type));
    SKALD_RETURN_IF_ERROR(CollectMemories(files_, archive.owner, root + "/" + name, name, 0,
                                          &existing, &unparsed));
  }
  if (stopping && stopping()) {
    return Status::Unavailable("stopping: the commit resumes at the next open");
  }

  // Decide in order; a record written twice keeps its last content.
  std::vector<MemoryWrite> writes =
      PlanMemoryWrites(candidates, &existing, options_.merge, unparsed);
  std::map<std::string, std::pair<MemoryType, std::string>> final_content;
  std::vector<std::string> order;
  for (size_t i = 0; i < writes.size(); ++i) {
    MemoryWrite& w = writes[i];
    outcome.memories.push_back(SessionExtractedMemory{
        root + "/" + w.record.path, std::string(MemoryTypeName(candidates[i].type)),
        candidates[i].text, std::string(MergeActionName(w.action))});
    if (w.action == MergeAction::kSkip || w.content.empty()) continue;
    if (final_content.find(w.record.path) == final_content.end()) order.push_back(w.record.path);
    final_content[w.record.path] = {w.record.memory.type, std::move(w.content)};
  }
  for (const std::string& rel : order) {
    const auto& [type, content] = final_content[rel];
    SKALD_ASSIGN_OR_RETURN(VikingUri uri, VikingUri::Parse(root + "/" + rel));
    SKALD_RETURN_IF_ERROR(files_->WriteIndexed(archive.owner, uri, content).status());
    ++report.extracted[std::string(MemoryTypeName(type))];
  }
  spdlog::debug("session {}: {} memory candidates ({}), {} memories written", archive.session_id,
                candidates.size(), report.extractor, order.size());
  return outcome;
}

Result<std::vector<SessionExtractedMemory>> MemoryExtraction::ExtractLive(
    SessionStore* store, const Identity& who, std::string_view session_id) {
  SKALD_ASSIGN_OR_RETURN(ArchiveForExtraction live, store->LiveForExtraction(who, session_id));
  SKALD_ASSIGN_OR_RETURN(MemoryExtractionOutcome outcome, Run(live));
  return std::move(outcome.memories);
}

MemoryExtractionHook MemoryExtraction::Hook() {
  return [this](const ArchiveForExtraction& archive,
                JobContext& context) -> Result<MemoryExtractionReport> {
    SKALD_ASSIGN_OR_RETURN(MemoryExtractionOutcome outcome,
                           Run(archive, [&context] { return context.stopping(); }));
    return std::move(outcome.report);
  };
}

}  // namespace skald
