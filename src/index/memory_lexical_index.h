#pragma once

// The memory lexical index: the LexicalIndex interface (lexical_index.h)
// over an in-memory inverted index per account (lexical_postings.h), with
// the same tokenizer, fields, BM25F scores and filter semantics as the FTS5
// index, and a persisted snapshot plus a write-ahead log:
//
//   <path>       snapshot: every live record's filter fields, field lengths
//                and term frequencies (the index_file.h container, one
//                checksummed section per account), with the applied
//                sequence and the log generation it starts.
//   <path>.log   every Upsert, Delete and SetAppliedSeq since the snapshot,
//                appended as checksummed entries before the call returns
//                (fsynced when `sync`), so applied_seq() is always durable
//                as far as the FTS5 index's is.
//
// Open loads the snapshot and replays the log up to its first torn or
// corrupt entry (a crash mid-append loses only that call; applied_seq moves
// back with it), then writes a new snapshot and starts an empty log when it
// replayed anything. Optimize() and the destructor do the same. A corrupt
// snapshot, another format version or another tokenizer reset the index
// (was_reset()); an SQLite database or another kind of index file at the
// path is refused (never overwritten).
//
// Searches take a shared lock, writes an exclusive one.

#include <memory>

#include "index/lexical_index.h"

namespace skald {

// Opens or creates the memory lexical index at options.path (conventionally
// <workspace>/index/lexical.mem). read_connections is ignored.
Result<std::unique_ptr<LexicalIndex>> OpenMemoryLexicalIndex(const LexicalIndexOptions& options);

}  // namespace skald
