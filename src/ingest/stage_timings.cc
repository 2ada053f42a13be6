#include "ingest/stage_timings.h"

namespace skald {

void StageTimings::Add(std::string_view stage, int64_t nanos) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [name, total] : totals_) {
    if (name == stage) {
      total += nanos;
      return;
    }
  }
  totals_.emplace_back(std::string(stage), nanos);
}

std::vector<std::pair<std::string, double>> StageTimings::Milliseconds() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [name, total] : totals_) {
    out.emplace_back(name, static_cast<double>(total) / 1e6);
  }
  return out;
}

void StageTimings::Scope::Stop() {
  if (timings_ == nullptr) return;
  auto elapsed = std::chrono::steady_clock::now() - start_;
  timings_->Add(stage_, std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
  timings_ = nullptr;
}

}  // namespace skald
