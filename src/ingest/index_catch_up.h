#pragma once

// IndexCatchUp: brings the search indexes up to the catalog. The catalog
// records every record change with a sequence number; each index remembers
// the last one it applied, and a catch-up applies the changes after it —
// the vector indexes (one per account, VectorIndexSet::CatchUp) and the
// lexical index (BM25 over titles, summaries and whole file texts).
//
// Called after every job that writes records, and by rm and mv so that
// deleted or moved content is never found, not even until a job runs.
//
// Thread safety: safe for concurrent use; lexical catch-ups are serialized
// (one at a time), the vector set serializes its own. Everything passed in
// is borrowed and must outlive the object.

#include <condition_variable>
#include <mutex>
#include <thread>

#include "index/lexical_index.h"
#include "ingest/file_bodies.h"
#include "ingest/stage_timings.h"
#include "index/vector_index_set.h"
#include "skald/status.h"
#include "storage/catalog.h"
#include "storage/content_store.h"

namespace skald {

class IndexCatchUp {
 public:
  // `vectors` is null when the workspace has no embedder (only the lexical
  // index is kept). REQUIRES: the others non-null.
  IndexCatchUp(Catalog* catalog, ContentStore* content, LexicalIndex* lexical,
               VectorIndexSet* vectors)
      : catalog_(catalog), content_(content), lexical_(lexical), vectors_(vectors) {}

  // Brings the vector and lexical indexes up to the catalog, side by side.
  // `timings` (null = none) receives "vector_index" and "lexical_index".
  // File texts of records noted in `bodies` (null = none) are taken from
  // there instead of the content store.
  Status CatchUpIndexes(StageTimings* timings = nullptr, FileBodies* bodies = nullptr);
  // Brings only the lexical index up to the catalog (`bodies` as above).
  Status CatchUpLexical(FileBodies* bodies = nullptr);

  // Indexing off a job's hot path: a thread that brings the indexes up to
  // the catalog whenever the job says it wrote records (Notify), while the
  // job goes on summarizing and embedding, so that both cores work. The
  // catalog stays the source of truth — each catch-up applies what was
  // committed, and one that fails is simply done again by the next — so a
  // crash at any point leaves nothing the restart's catch-up does not
  // repair. Finish() stops the thread and catches up one last time: once it
  // returns Ok, everything the job wrote is findable.
  //
  // Thread safety: Notify may be called from any thread; Finish once, by
  // the owner.
  class Follower {
   public:
    // Starts the thread. `owner` (and `timings` and `bodies`, null = none)
    // must outlive the follower; `bodies` lends the job's file texts.
    Follower(IndexCatchUp* owner, StageTimings* timings, FileBodies* bodies = nullptr);
    // Stops the thread without the final catch-up (the job failed).
    ~Follower();
    Follower(const Follower&) = delete;
    Follower& operator=(const Follower&) = delete;

    // Records were written: catch up soon.
    void Notify();
    // Stops the thread, then brings the indexes up to the catalog.
    Status Finish();

   private:
    void Run();
    void Stop();

    IndexCatchUp* const owner_;
    StageTimings* const timings_;
    FileBodies* const bodies_;
    std::mutex mu_;
    std::condition_variable wake_;
    bool notified_ = false;  // GUARDED_BY(mu_)
    bool stop_ = false;      // GUARDED_BY(mu_)
    std::thread thread_;
  };

 private:
  Catalog* const catalog_;
  ContentStore* const content_;
  LexicalIndex* const lexical_;
  VectorIndexSet* const vectors_;
  std::mutex lexical_mu_;  // one lexical catch-up at a time
};

}  // namespace skald
