// memory_extract_locomo: runs the model-free extractor over LoCoMo-format
// conversations (one extraction per session, dated with the session's
// date_time) and prints candidates per session and the share of QA evidence
// turns (categories 1-4) whose dia_id is among some candidate's message ids.
//
// Usage: memory_extract_locomo --data FILE [--split tune|report|all] [--dump N]
//   tune   = the first half of the conversations (rounded down; used to tune the rules)
//   report = the second half (the figure to report)
// No Db, no model: extraction only.

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "locomo.h"

#include "session/memory_extractor.h"

namespace {


}  // namespace

int main(int argc, char** argv) {
  std::string data;
  std::string split = "report";
  int dump = 0;
  bool missed = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--data" && i + 1 < argc) {
      data = argv[++i];
    } else if (a == "--split" && i + 1 < argc) {
      split = argv[++i];
    } else if (a == "--missed") {
      missed = true;
    } else if (a == "--dump" && i + 1 < argc) {
      dump = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s --data FILE [--split tune|report|all] [--dump N] [--missed]\n", argv[0]);
      return 2;
    }
  }
  std::ifstream in(data);
  if (data.empty() || !in) {
    std::fprintf(stderr, "cannot read --data file\n");
    return 2;
  }
  nlohmann::json samples = nlohmann::json::parse(in, nullptr, false);
  if (!samples.is_array()) {
    std::fprintf(stderr, "--data is not a JSON array of samples\n");
    return 2;
  }
  size_t n = samples.size();
  size_t begin = split == "report" ? n / 2 : 0;
  size_t end = split == "tune" ? n / 2 : n;

  size_t evidence_total = 0;
  size_t evidence_covered = 0;
  size_t sessions = 0;
  size_t candidates = 0;
  size_t turns = 0;
  size_t turn_bytes = 0;
  size_t memory_bytes = 0;
  std::map<std::string, size_t> by_type;
  int dumped = 0;
  for (size_t s = begin; s < end; ++s) {
    const nlohmann::json& sample = samples[s];
    const nlohmann::json& conv = sample["conversation"];
    std::set<std::string> covered;
    std::map<std::string, std::string> turn_text;
    for (int k = 1;; ++k) {
      std::string key = "session_" + std::to_string(k);
      if (!conv.contains(key)) {
        if (k > 60) break;
        continue;
      }
      std::vector<skald::ConversationMessage> messages;
      for (const auto& t : conv[key]) {
        skald::ConversationMessage m;
        m.id = t.value("dia_id", "");
        m.role = "user";
        m.speaker = t.value("speaker", "");
        m.text = t.value("text", "");
        turn_text[m.id] = m.speaker + ": " + m.text;
        turn_bytes += m.text.size();
        messages.push_back(std::move(m));
      }
      turns += messages.size();
      skald::SessionContext ctx;
      ctx.session_id = sample.value("sample_id", "") + "-s" + std::to_string(k);
      ctx.user = "locomo";
      ctx.session_time = conv.value(key + "_date_time", "");
      std::vector<skald::MemoryCandidate> out = skald::ExtractMemories(messages, ctx);
      ++sessions;
      candidates += out.size();
      std::printf("%s session %d: %zu messages, %zu candidates\n",
                  sample.value("sample_id", "").c_str(), k, messages.size(), out.size());
      for (const auto& c : out) {
        for (const auto& id : c.message_ids) covered.insert(id);
        ++by_type[std::string(skald::MemoryTypeName(c.type))];
        memory_bytes += c.text.size();
        if (dumped < dump) {
          ++dumped;
          std::printf("  [%s] %s | %s | %s\n", std::string(skald::MemoryTypeName(c.type)).c_str(),
                      c.subject.c_str(), c.event_date.c_str(), c.text.c_str());
        }
      }
    }
    std::set<std::string> evidence;
    for (const auto& qa : sample["qa"]) {
      int category = qa.value("category", 0);
      if (category < 1 || category > 4) continue;
      for (const std::string& id : skald::bench::EvidenceIds(qa["evidence"])) evidence.insert(id);
    }
    size_t hit = 0;
    for (const std::string& id : evidence) {
      hit += covered.count(id);
      if (missed && covered.count(id) == 0) std::printf("  missed %s %s\n", id.c_str(), turn_text[id].c_str());
    }
    std::printf("%s: evidence turns covered %zu/%zu\n", sample.value("sample_id", "").c_str(), hit,
                evidence.size());
    evidence_total += evidence.size();
    evidence_covered += hit;
  }
  std::printf("types:");
  for (const auto& [t, c] : by_type) std::printf(" %s=%zu", t.c_str(), c);
  std::printf("\n");
  std::printf(
      "split=%s conversations=%zu sessions=%zu turns=%zu candidates=%zu candidates_per_session=%.1f "
      "memory_bytes/turn_bytes=%.2f evidence_turn_coverage=%.3f (%zu/%zu)\n",
      split.c_str(), end - begin, sessions, turns, candidates,
      sessions ? static_cast<double>(candidates) / static_cast<double>(sessions) : 0.0,
      turn_bytes ? static_cast<double>(memory_bytes) / static_cast<double>(turn_bytes) : 0.0,
      evidence_total ? static_cast<double>(evidence_covered) / static_cast<double>(evidence_total)
                     : 0.0,
      evidence_covered, evidence_total);
  return 0;
}
