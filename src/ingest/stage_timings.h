#pragma once

// StageTimings: wall time an import spends in each of its stages (parse and
// split, content write, catalog write, summaries, embedding, records, index
// catch-up, ...), for the task's result and bench/ingest_bench.
//
// Stages that run on several threads at once add up each thread's time, and
// some stages run beside others (prepare_files beside the tree write,
// record_write beside the summaries, the index catch-ups beside all of
// them), so the stages of a job can sum to more than its wall time.
//
// Thread safety: safe for concurrent use.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skald {

class StageTimings {
 public:
  // Adds `nanos` to `stage` (created at its first use; stages keep the order
  // of their first use).
  void Add(std::string_view stage, int64_t nanos);

  // Every stage and its total, in milliseconds.
  std::vector<std::pair<std::string, double>> Milliseconds() const;

  // Times the enclosing scope into `stage` of `timings` (null: nothing).
  class Scope {
   public:
    Scope(StageTimings* timings, std::string_view stage)
        : timings_(timings), stage_(stage), start_(std::chrono::steady_clock::now()) {}
    ~Scope() { Stop(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    // Ends the measure early (idempotent).
    void Stop();

   private:
    StageTimings* timings_;
    std::string_view stage_;  // a literal: outlives the scope
    std::chrono::steady_clock::time_point start_;
  };

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<std::string, int64_t>> totals_;  // GUARDED_BY(mu_)
};

}  // namespace skald
