// Index catch-up: applies the catalog's record changes to the vector and
// lexical indexes.

#include "ingest/index_catch_up.h"

#include <string>
#include <thread>
#include <vector>

namespace skald {

Status IndexCatchUp::CatchUpIndexes() {
  if (!vectors_) return CatchUpLexical();
  // The two indexes are independent (each reads the catalog's changes
  // itself): update them side by side, on two cores.
  Status vector_status;
  std::thread vector_thread([&] {
    Result<uint64_t> applied = vectors_->CatchUp();
    vector_status = applied.status();
  });
  Status lexical_status = CatchUpLexical();
  vector_thread.join();
  SKALD_RETURN_IF_ERROR(vector_status);
  return lexical_status;
}

Status IndexCatchUp::CatchUpLexical() {
  std::lock_guard<std::mutex> lock(lexical_mu_);
  int64_t seq = lexical_->applied_seq();
  while (true) {
    SKALD_ASSIGN_OR_RETURN(std::vector<VectorRecord> batch,
                           catalog_->RecordsChangedSince(seq, 1000));
    if (batch.empty()) return Status::Ok();
    std::vector<uint64_t> deletes;
    std::vector<LexicalDocument> docs;
    for (const VectorRecord& r : batch) {
      if (r.deleted) {
        deletes.push_back(static_cast<uint64_t>(r.key));
        continue;
      }
      LexicalDocument doc;
      doc.record.id = static_cast<uint64_t>(r.key);
      doc.record.account = r.account;
      doc.record.level = r.level;
      doc.record.context_type = r.context_type;
      doc.record.uri = r.uri;
      doc.record.owner = r.owner;
      doc.record.tags = r.tags;
      doc.record.created_ns = r.created_ns;
      doc.record.updated_ns = r.updated_ns;
      std::string_view uri = r.uri;
      doc.title = std::string(uri.substr(uri.rfind('/') + 1));
      if (r.level == 1) {
        doc.body = r.abstract;
      } else {
        doc.abstract = r.abstract;
      }
      if (r.level == 2 && uri.size() > 9) {
        // BM25 over the whole file text, not only its summary.
        Result<std::string> text = content_->ReadFile(r.account, uri.substr(9));
        if (text.ok()) doc.body = std::move(*text);
      }
      docs.push_back(std::move(doc));
    }
    if (!deletes.empty()) {
      SKALD_ASSIGN_OR_RETURN(uint64_t removed, lexical_->Delete(deletes));
      (void)removed;
    }
    if (!docs.empty()) SKALD_RETURN_IF_ERROR(lexical_->Upsert(docs));
    seq = batch.back().seq;
    SKALD_RETURN_IF_ERROR(lexical_->SetAppliedSeq(seq));
  }
}

}  // namespace skald
