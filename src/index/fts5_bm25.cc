#include "index/fts5_bm25.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "index/fts5_tokenizer.h"
#include "index/lexical_query.h"

namespace skald {

namespace {

// Per-query state, computed on the first row and kept as FTS5 auxdata (which
// FTS5 frees when the query ends).
struct QueryStats {
  double k1 = 1.2;
  double b = 0.75;
  std::vector<double> weights;  // per column
  std::vector<double> avg_len;  // per column
  std::vector<double> idf;      // per phrase
  std::vector<double> norm;     // per column, scratch for the current row
};

// FTS5's auxdata destructor.
void DeleteQueryStats(void* p) { std::unique_ptr<QueryStats>(static_cast<QueryStats*>(p)); }

int CountRow(const Fts5ExtensionApi* /*api*/, Fts5Context* /*ctx*/, void* user) {
  ++*static_cast<int64_t*>(user);
  return SQLITE_OK;
}

// Builds the statistics of the current query; returns an SQLite error code.
int ComputeQueryStats(const Fts5ExtensionApi* api, Fts5Context* ctx, int nargs,
                      sqlite3_value** args, QueryStats* stats) {
  stats->k1 = nargs > 0 ? sqlite3_value_double(args[0]) : 1.2;
  stats->b = nargs > 1 ? sqlite3_value_double(args[1]) : 0.75;
  int columns = api->xColumnCount(ctx);
  stats->weights.assign(columns, 1.0);
  // Weights run up to the first BLOB argument, the document-frequency table.
  int arg = 2;
  for (int c = 0; arg < nargs && sqlite3_value_type(args[arg]) != SQLITE_BLOB; ++c, ++arg) {
    if (c < columns) stats->weights[c] = sqlite3_value_double(args[arg]);
  }
  std::vector<int64_t> doc_freq;
  if (arg < nargs) {
    const auto* blob = static_cast<const char*>(sqlite3_value_blob(args[arg]));
    size_t entries = static_cast<size_t>(sqlite3_value_bytes(args[arg])) / sizeof(int64_t);
    doc_freq.resize(entries);
    if (entries > 0) std::memcpy(doc_freq.data(), blob, entries * sizeof(int64_t));
  }
  sqlite3_int64 rows = 0;
  int rc = api->xRowCount(ctx, &rows);
  if (rc != SQLITE_OK) return rc;
  stats->avg_len.assign(columns, 1.0);
  for (int c = 0; c < columns; ++c) {
    sqlite3_int64 total = 0;
    rc = api->xColumnTotalSize(ctx, c, &total);
    if (rc != SQLITE_OK) return rc;
    if (rows > 0 && total > 0) stats->avg_len[c] = static_cast<double>(total) / rows;
  }
  int phrases = api->xPhraseCount(ctx);
  stats->idf.assign(phrases, 0.0);
  for (int p = 0; p < phrases; ++p) {
    int64_t hits = static_cast<size_t>(p) < doc_freq.size() ? doc_freq[p] : kComputeDocFrequency;
    if (hits == kIgnorePhrase) continue;  // idf 0: a repeated phrase, counted once
    if (hits < 0) {
      hits = 0;
      rc = api->xQueryPhrase(ctx, p, &hits, &CountRow);
      if (rc != SQLITE_OK) return rc;
    }
    stats->idf[p] = Bm25Idf(static_cast<double>(rows), static_cast<double>(hits));
  }
  stats->norm.assign(columns, 0.0);
  return SQLITE_OK;
}

void Bm25Function(const Fts5ExtensionApi* api, Fts5Context* ctx, sqlite3_context* result, int nargs,
                  sqlite3_value** args) {
  auto* stats = static_cast<QueryStats*>(api->xGetAuxdata(ctx, 0));
  if (stats == nullptr) {
    auto fresh = std::make_unique<QueryStats>();
    int rc = ComputeQueryStats(api, ctx, nargs, args, fresh.get());
    if (rc == SQLITE_OK) {
      stats = fresh.get();
      // FTS5 owns the stats from here on, even when this fails (it frees them).
      rc = api->xSetAuxdata(ctx, fresh.release(), &DeleteQueryStats);
    }
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(result, rc);
      return;
    }
  }
  const int columns = static_cast<int>(stats->norm.size());
  for (int c = 0; c < columns; ++c) {
    int length = 0;
    int rc = api->xColumnSize(ctx, c, &length);
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(result, rc);
      return;
    }
    stats->norm[c] = stats->weights[c] /
                     (1.0 - stats->b + stats->b * static_cast<double>(length) / stats->avg_len[c]);
  }
  double score = 0;
  const int phrases = static_cast<int>(stats->idf.size());
  for (int p = 0; p < phrases; ++p) {
    Fts5PhraseIter iter;
    int column = -1, offset = 0;
    double tf = 0;
    if (stats->idf[p] == 0) continue;
    if (api->xPhraseFirst(ctx, p, &iter, &column, &offset) != SQLITE_OK) continue;
    for (; column >= 0; api->xPhraseNext(ctx, &iter, &column, &offset)) {
      if (column < columns) tf += stats->norm[column];
    }
    if (tf > 0) score += stats->idf[p] * tf * (stats->k1 + 1.0) / (tf + stats->k1);
  }
  sqlite3_result_double(result, score);
}

}  // namespace

Status RegisterFts5Bm25(sqlite3* db) {
  SKALD_ASSIGN_OR_RETURN(fts5_api * api, GetFts5Api(db));
  if (api->xCreateFunction(api, kFts5Bm25Name, nullptr, &Bm25Function, nullptr) != SQLITE_OK) {
    return Status::Internal(std::string("cannot register the FTS5 function skald_bm25: ") +
                            sqlite3_errmsg(db));
  }
  return Status::Ok();
}

}  // namespace skald
