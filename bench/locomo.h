#pragma once

// LoCoMo-format data (../shared/data/README.md) shared by the session
// memory benches: evidence ids of a QA item and turn text as compared.

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace skald::bench {

// The dialogue ids ("D1:3") of a QA item's `evidence` (entries may hold
// several ids separated by ';', ',' or spaces).
inline std::vector<std::string> EvidenceIds(const nlohmann::json& evidence) {
  std::vector<std::string> out;
  if (!evidence.is_array()) return out;
  for (const auto& e : evidence) {
    if (!e.is_string()) continue;
    std::string s = e.get<std::string>();
    for (char& c : s) {
      if (c == ';' || c == ',') c = ' ';
    }
    std::istringstream in(s);
    std::string id;
    while (in >> id) out.push_back(id);
  }
  return out;
}

}  // namespace skald::bench
