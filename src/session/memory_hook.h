#pragma once

// The memory step of a commit's phase 2, and of POST …/extract: the
// messages go through the extractor — the chat model when one is configured
// (llm_memory_extractor.h: one structured call, validated, falling back to
// the model-free extractor), else the model-free extractor
// (memory_extractor.h) — each candidate is decided against the user's
// existing memories of its type (memory_merge.h: skip, merge, replace or
// create) and every memory that changed is written under
// viking://user/{uid}/memories/{type}/… with SessionFiles::WriteIndexed (the
// index job in the same catalog transaction), so find/search return it once
// the job ran.
//
// Idempotent: run again for the same archive (a crash after some writes),
// the memories already written are found and the repeated candidates skip
// (with a model, a second answer may word a fact differently; the merge
// step then skips or merges it as a rewording).
//
// Thread safety: MemoryExtraction may be used from any thread (job workers
// and request threads); the read-decide-write step of one user runs under a
// per-user mutex, so two extractions for one user never create the same
// memory twice. The model call runs outside it.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "model/llm.h"
#include "session/llm_memory_extractor.h"
#include "session/memory_merge.h"
#include "session/session_files.h"
#include "session/session_store.h"
#include "skald/session.h"

namespace skald {

struct MemoryHookOptions {
  MergeOptions merge;
  LlmExtractorOptions extractor;
};

// What one run did.
struct MemoryExtractionOutcome {
  // Counters, extractor and token counts for the commit task's result.
  MemoryExtractionReport report;
  // One entry per candidate, in extraction order: the memory's URI, its
  // type, the extracted text and the decision ("create", "merge",
  // "replace", "skip").
  std::vector<SessionExtractedMemory> memories;
};

class MemoryExtraction {
 public:
  // `files` and `llm` are borrowed and must outlive this object; `llm` may
  // be null (model-free extraction). REQUIRES: files != nullptr.
  MemoryExtraction(SessionFiles* files, Llm* llm, MemoryHookOptions options = {});

  // Extracts memories from `archive.messages` (its owner's space, its date
  // committed_at_ns) and writes them. `stopping` (may be empty) is asked
  // before the writes: when it answers true, Unavailable is returned and
  // nothing is written.
  Result<MemoryExtractionOutcome> Run(const ArchiveForExtraction& archive,
                                      const std::function<bool()>& stopping = {});

  // POST /api/v1/sessions/{id}/extract: Run over the session's live
  // messages (SessionStore::LiveForExtraction; "now" is the session's
  // date). NotFound for a missing session or another user's.
  // REQUIRES: store != nullptr.
  Result<std::vector<SessionExtractedMemory>> ExtractLive(SessionStore* store, const Identity& who,
                                                          std::string_view session_id);

  // The hook SessionStore::SetMemoryExtractionHook takes; it calls Run.
  // The hook borrows this object, which must outlive it.
  MemoryExtractionHook Hook();

 private:
  std::shared_ptr<std::mutex> OwnerMutex(const Identity& owner);

  SessionFiles* const files_;
  Llm* const llm_;
  const MemoryHookOptions options_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<std::mutex>> owner_mu_;  // GUARDED_BY(mu_)
};

}  // namespace skald
