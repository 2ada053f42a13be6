#include "index/fts5_tokenizer.h"

#include <string>
#include <vector>

namespace skald {

namespace {

// The innermost live ScopedTermCapture of this thread, if any.
thread_local std::vector<std::string>* t_captured_terms = nullptr;

// FTS5 hands xCreate the context pointer given at registration (the
// Tokenizer) and treats what xCreate returns as opaque; one Tokenizer serves
// every table on the connection, so xCreate returns it as is.
int Fts5Create(void* context, const char** /*args*/, int /*nargs*/, Fts5Tokenizer** out) {
  *out = static_cast<Fts5Tokenizer*>(context);
  return SQLITE_OK;
}

void Fts5Delete(Fts5Tokenizer* /*tokenizer*/) {}

int Fts5Tokenize(Fts5Tokenizer* handle, void* callback_context, int flags, const char* text,
                 int length, int (*emit)(void*, int, const char*, int, int, int)) {
  const auto* tokenizer = reinterpret_cast<const Tokenizer*>(handle);
  if (text == nullptr || length <= 0) return SQLITE_OK;
  // Reused per thread: FTS5 tokenizes every row of a bulk load.
  thread_local std::vector<Token> tokens;
  tokens.clear();
  tokenizer->Tokenize(std::string_view(text, static_cast<size_t>(length)), &tokens);
  std::vector<std::string>* capture =
      (flags & FTS5_TOKENIZE_DOCUMENT) != 0 ? t_captured_terms : nullptr;
  for (const Token& token : tokens) {
    if (capture != nullptr) capture->push_back(token.term);
    int rc = emit(callback_context, 0, token.term.data(), static_cast<int>(token.term.size()),
                  static_cast<int>(token.begin), static_cast<int>(token.end));
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

}  // namespace

ScopedTermCapture::ScopedTermCapture(std::vector<std::string>* terms)
    : previous_(t_captured_terms) {
  t_captured_terms = terms;
}

ScopedTermCapture::~ScopedTermCapture() { t_captured_terms = previous_; }

Result<fts5_api*> GetFts5Api(sqlite3* db) {
  fts5_api* api = nullptr;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, nullptr) != SQLITE_OK) {
    return Status::Unavailable(std::string("SQLite FTS5 is not available: ") + sqlite3_errmsg(db));
  }
  sqlite3_bind_pointer(stmt, 1, &api, "fts5_api_ptr", nullptr);
  sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  if (api == nullptr || api->iVersion < 2) {
    return Status::Unavailable("SQLite FTS5 API (version >= 2) is not available");
  }
  return api;
}

Status RegisterFts5Tokenizer(sqlite3* db, const Tokenizer* tokenizer) {
  SKALD_ASSIGN_OR_RETURN(fts5_api * api, GetFts5Api(db));
  fts5_tokenizer methods{&Fts5Create, &Fts5Delete, &Fts5Tokenize};
  // FTS5 never writes through the context; the const_cast only fits the C API.
  void* context = const_cast<Tokenizer*>(tokenizer);
  if (api->xCreateTokenizer(api, kFts5TokenizerName, context, &methods, nullptr) != SQLITE_OK) {
    return Status::Internal(std::string("cannot register the FTS5 tokenizer: ") +
                            sqlite3_errmsg(db));
  }
  return Status::Ok();
}

}  // namespace skald
