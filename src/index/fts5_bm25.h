#pragma once

// "skald_bm25": an FTS5 auxiliary ranking function with tunable k1 and b and
// per-column weights. FTS5's built-in bm25() fixes k1 = 1.2 and b = 0.75 and
// normalizes by the length of the whole row; this one computes BM25F
// (Robertson & Zaragoza 2009) over FTS5's own statistics:
//
//   tf~(t, d) = sum_c  w_c * tf(t, d, c) / (1 - b + b * len(d, c) / avglen(c))
//   score(d)  = sum_t  idf(t) * tf~ * (k1 + 1) / (tf~ + k1)
//   idf(t)    = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))        (Lucene's, never negative)
//
// where t ranges over the query's phrases (a quoted query word is one
// phrase), N is the table's row count and n_t the rows containing t.
// Larger is better (unlike bm25(), which returns the negation).
//
// SQL: skald_bm25(<fts table>, k1, b [, w_col0, w_col1, ...] [, df_blob]); a
// missing weight is 1.0, a weight of 0 ignores the column. df_blob, when
// given, holds one native-endian int64 per phrase of the MATCH expression:
// its document frequency n_t (known from the fts5vocab table, which saves a
// scan of the phrase's postings per query), kComputeDocFrequency (scan), or
// kIgnorePhrase (the phrase repeats another one and must not count twice);
// see lexical_query.h.
//
// Thread safety: registration is per connection (see fts5_tokenizer.h).

#include <sqlite3.h>

#include "skald/status.h"

namespace skald {

inline constexpr char kFts5Bm25Name[] = "skald_bm25";

// Registers kFts5Bm25Name on `db`.
Status RegisterFts5Bm25(sqlite3* db);

}  // namespace skald
