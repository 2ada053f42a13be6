// Index catch-up: applies the catalog's record changes to the vector and
// lexical indexes.

#include "ingest/index_catch_up.h"

#include <spdlog/spdlog.h>

#include <string>
#include <thread>
#include <vector>

#include "common/thread_name.h"
#include "ingest/parsers/media_parser.h"
#include "ingest/source_import.h"
#include "uri/uri_path.h"

namespace skald {

Status IndexCatchUp::CatchUpIndexes(StageTimings* timings, FileBodies* bodies) {
  if (!vectors_) {
    StageTimings::Scope timed(timings, "lexical_index");
    return CatchUpLexical(bodies);
  }
  // The two indexes are independent (each reads the catalog's changes
  // itself): update them side by side, on two cores.
  Status vector_status;
  std::thread vector_thread([&] {
    NameThisThread("skald-vectors");
    StageTimings::Scope timed(timings, "vector_index");
    Result<uint64_t> applied = vectors_->CatchUp();
    vector_status = applied.status();
  });
  StageTimings::Scope lexical_timed(timings, "lexical_index");
  Status lexical_status = CatchUpLexical(bodies);
  lexical_timed.Stop();
  vector_thread.join();
  SKALD_RETURN_IF_ERROR(vector_status);
  return lexical_status;
}

IndexCatchUp::Follower::Follower(IndexCatchUp* owner, StageTimings* timings, FileBodies* bodies)
    : owner_(owner), timings_(timings), bodies_(bodies), thread_([this] {
        NameThisThread("skald-catchup");
        Run();
      }) {}

IndexCatchUp::Follower::~Follower() { Stop(); }

void IndexCatchUp::Follower::Notify() {
  {
    std::lock_guard lock(mu_);
    notified_ = true;
  }
  wake_.notify_one();
}

void IndexCatchUp::Follower::Run() {
  while (true) {
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return notified_ || stop_; });
      if (stop_) return;
      notified_ = false;
    }
    // A failure is not final: Finish catches up again and reports.
    if (Status st = owner_->CatchUpIndexes(timings_, bodies_); !st.ok()) {
      spdlog::warn("background index catch-up: {}", st.ToString());
    }
  }
}

void IndexCatchUp::Follower::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

Status IndexCatchUp::Follower::Finish() {
  Stop();
  return owner_->CatchUpIndexes(timings_, bodies_);
}

Status IndexCatchUp::CatchUpLexical(FileBodies* bodies) {
  std::lock_guard<std::mutex> lock(lexical_mu_);
  int64_t seq = lexical_->applied_seq();
  while (true) {
    SKALD_ASSIGN_OR_RETURN(std::vector<Record> batch,
                           catalog_->RecordsChangedSince(seq, 1000, /*with_vectors=*/false));
    if (batch.empty()) return Status::Ok();
    std::vector<uint64_t> deletes;
    std::vector<RecordFields> records;
    std::vector<LexicalText> texts;
    records.reserve(batch.size());
    texts.reserve(batch.size());
    for (Record& r : batch) {
      if (r.deleted) {
        deletes.push_back(r.key);
        continue;
      }
      LexicalText text;
      std::string_view uri = r.uri;
      text.title = std::string(BaseName(uri));
      // (A picture, recording or video is found by its description, the
      // record's abstract, never by its bytes: not read.)
      if (r.level == 2 && uri.size() > 9 && MediaKindOf(text.title).empty()) {
        // BM25 over the whole file text, not only its summary.
        std::optional<FileBodies::RecordBody> lent;
        if (bodies != nullptr) lent = bodies->TakeRecordBody(r.seq);
        if (lent) {
          text.body = std::string(lent->bytes);
          text.body_terms = std::move(lent->terms);
          text.abstract_terms = std::move(lent->summary_terms);
        } else if (Result<std::string> body = content_->ReadFile(r.account, uri.substr(9));
                   body.ok()) {
          text.body = std::move(*body);
        }
        // Bytes that are not text (an extension-less image) are not words.
        if (!LooksLikeText(text.body)) {
          text.body.clear();
          text.body_terms.reset();
        }
      }
      // The batch is ours: its strings are moved, not copied.
      if (r.level == 1) {
        text.body = std::move(r.abstract);
      } else {
        text.abstract = std::move(r.abstract);
      }
      records.push_back(std::move(static_cast<RecordFields&>(r)));
      texts.push_back(std::move(text));
    }
    if (!deletes.empty()) {
      SKALD_ASSIGN_OR_RETURN(uint64_t removed, lexical_->Delete(deletes));
      (void)removed;
    }
    if (!records.empty()) SKALD_RETURN_IF_ERROR(lexical_->Upsert(records, texts));
    seq = batch.back().seq;
    SKALD_RETURN_IF_ERROR(lexical_->SetAppliedSeq(seq));
  }
}

}  // namespace skald
