#pragma once
// Dedup and merge decisions for memory candidates, and the memory file format.
//
// DecideMerge compares a candidate with the existing memories of its type
// (lexically: normalized term overlap and the candidate's subject key) and
// says what to do: skip (already known), merge (same subject, new
// information: text extended, previous version kept as history), replace
// (same subject, contradiction — a flipped negation or a changed value of a
// single-valued attribute such as where one lives: the newer statement wins,
// the older is kept as history) or create. A caller with vector search can
// narrow `existing` to the nearest memories first; the decision itself is
// deterministic.
//
// A memory file is Markdown: a front-matter provenance header
// ("---" … "---": type, subject, speaker, session, message ids, time, event
// date, history) followed by the memory text; see RenderMemoryFile.
//
// Thread safety: pure functions.

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "session/memory_types.h"
#include "skald/result.h"

namespace skald {

enum class MergeAction { kSkip, kMerge, kReplace, kCreate };

// "skip", "merge", "replace", "create".
std::string_view MergeActionName(MergeAction action);

struct MergeOptions {
  // A candidate whose matching terms are covered by an existing memory's
  // terms at least this much (|C∩E| / |C|) is already known: skip.
  double duplicate_coverage = 0.8;
  // With vector scores (DecideMerge's `vector_scores`): a memory at least this
  // similar whose terms also cover the candidate at least `vector_min_coverage`
  // is a rewording of the same fact: skip. Both signals are required so that
  // "likes X" and "doesn't like X" (close vectors) are never confused.
  double vector_duplicate_similarity = 0.92;
  double vector_min_coverage = 0.5;
  // History entries kept per memory (oldest dropped first).
  size_t max_history = 20;
};

struct MergeDecision {
  MergeAction action = MergeAction::kCreate;
  // Index into `existing` of the memory skipped against, merged into or
  // replaced; SIZE_MAX for kCreate.
  size_t target = static_cast<size_t>(-1);
  // What to write: for kCreate the new record (its path still empty:
  // MemoryRelativePath gives it), for kMerge/kReplace the updated existing
  // record (its id and path kept, history extended),
  // for kSkip the existing record with the candidate's message ids added.
  MemoryRecord record;
  // One line saying why ("same subject caroline/lives_in, value changed").
  std::string reason;
};

// True for attributes that hold one value at a time (occupation, lives_in,
// from, age, relationship_status, name, favorite_*): a different value is a
// contradiction, not additional information.
bool IsSingleValuedAttribute(std::string_view attribute);

// Decides what to do with `candidate` given `existing` memories. Memories of
// other types in `existing` are ignored. The candidate's id, time and
// provenance are carried into the result.
// `vector_scores`, when not empty, holds the cosine similarity of the
// candidate's text to each of `existing` (same size and order; REQUIRES:
// empty or existing.size() entries); it lets rewordings be skipped that share
// fewer words.
MergeDecision DecideMerge(const MemoryCandidate& candidate, const std::vector<MemoryRecord>& existing,
                          const MergeOptions& options = {},
                          const std::vector<float>& vector_scores = {});

// One file operation planned by PlanMemoryWrites.
struct MemoryWrite {
  MergeAction action = MergeAction::kCreate;
  MemoryRecord record;   // the record after the decision (record.path set)
  std::string content;   // RenderMemoryFile(record); empty for kSkip (nothing to write)
  std::string reason;    // MergeDecision::reason
};

// Decides every candidate in order with DecideMerge against `existing`
// (candidates of all types; each is compared with its own type only) and
// applies each decision to `existing` before the next, so a fact repeated
// within one batch merges or skips too. Returns one MemoryWrite per
// candidate, in candidate order; a record merged into twice appears twice
// (the last write holds the final content). Created records are appended to
// `existing` with path = MemoryRelativePath(candidate), or, when a record
// of `existing` or one of `other_files` (paths of files that are no memory
// record) is there, the first free "<stem>-2.md", "<stem>-3.md", …; records
// without a path get one computed the same way.
// REQUIRES: existing != nullptr.
std::vector<MemoryWrite> PlanMemoryWrites(const std::vector<MemoryCandidate>& candidates,
                                          std::vector<MemoryRecord>* existing,
                                          const MergeOptions& options = {},
                                          const std::set<std::string>& other_files = {});

// The memory file: front matter then text. Header values are single lines
// (line breaks in them become spaces); message ids and history entries are
// JSON. The text is written as is.
std::string RenderMemoryFile(const MemoryRecord& record);

// Parses RenderMemoryFile's output. InvalidArgument when the header is
// missing or malformed, or lacks type, subject or id. Unknown header keys are
// ignored (files written by a newer version still parse).
Result<MemoryRecord> ParseMemoryFile(std::string_view content);

// Where a memory lives under viking://user/{uid}/memories/: its type
// directory, then for events the event (or statement) date
// "events/2023/05/07/…", then a slug of the subject and the first 8
// characters of the id, e.g. "preferences/caroline-likes-pottery-3f2a9c1d.md".
std::string MemoryRelativePath(const MemoryCandidate& memory);

}  // namespace skald
