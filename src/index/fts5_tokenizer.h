#pragma once

// SQLite FTS5 extensions used by the lexical index: the "skald" tokenizer
// (our text::Tokenizer behind FTS5's xCreate/xTokenize) and the "skald_bm25"
// ranking function (fts5_bm25.h).
//
// Thread safety: registration touches only the given connection; use it from
// the thread that owns the connection. The registered tokenizer calls
// Tokenizer::Tokenize, which is thread-safe, so connections on different
// threads may share one Tokenizer.

#include <sqlite3.h>

#include <string>
#include <vector>

#include "skald/status.h"
#include "text/tokenizer.h"

namespace skald {

// Name under which the tokenizer is registered: `tokenize='skald'`.
inline constexpr char kFts5TokenizerName[] = "skald";

// The FTS5 API of connection `db` (owned by SQLite; valid while `db` is open).
// Unavailable when this SQLite was built without FTS5.
Result<fts5_api*> GetFts5Api(sqlite3* db);

// While alive, appends to `*terms` every term the "skald" tokenizer emits on
// this thread for document text (not for queries). The lexical index wraps
// the FTS5 statements that insert and delete a row in one, so that it learns
// the row's terms from the tokenization FTS5 does anyway and can keep
// document frequencies without tokenizing twice. Nests: the innermost wins.
class ScopedTermCapture {
 public:
  explicit ScopedTermCapture(std::vector<std::string>* terms);
  ~ScopedTermCapture();
  ScopedTermCapture(const ScopedTermCapture&) = delete;
  ScopedTermCapture& operator=(const ScopedTermCapture&) = delete;

 private:
  std::vector<std::string>* previous_;
};

// Registers `tokenizer` as kFts5TokenizerName on `db`. Documents and queries
// are both tokenized by it, so a quoted query word matches exactly the terms
// the same word produced in a document.
// REQUIRES: `tokenizer` outlives `db` (it is not owned).
Status RegisterFts5Tokenizer(sqlite3* db, const Tokenizer* tokenizer);

}  // namespace skald
