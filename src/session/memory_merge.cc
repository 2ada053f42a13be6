#include "session/memory_merge.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/json_util.h"
#include "common/strings.h"

namespace skald {
namespace {

constexpr std::string_view kFormatLine = "skald-memory: 1";

double Coverage(const std::vector<std::string>& candidate, const std::vector<std::string>& existing) {
  if (candidate.empty()) return 1.0;
  std::set<std::string> have(existing.begin(), existing.end());
  std::set<std::string> want(candidate.begin(), candidate.end());
  size_t hit = 0;
  for (const std::string& t : want) hit += have.count(t);
  return static_cast<double>(hit) / static_cast<double>(want.size());
}

void AddMessageIds(const std::vector<std::string>& ids, std::vector<std::string>* into) {
  for (const std::string& id : ids) {
    if (std::find(into->begin(), into->end(), id) == into->end()) into->push_back(id);
  }
}

void PushHistory(const MemoryCandidate& old, std::string_view change, size_t max,
                 std::vector<MemoryHistoryEntry>* history) {
  history->push_back({old.time, old.session_id, std::string(change), old.text});
  if (history->size() > max) history->erase(history->begin(), history->end() - static_cast<long>(max));
}

std::string OneLine(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

}  // namespace

std::string_view MergeActionName(MergeAction action) {
  switch (action) {
    case MergeAction::kSkip:
      return "skip";
    case MergeAction::kMerge:
      return "merge";
    case MergeAction::kReplace:
      return "replace";
    case MergeAction::kCreate:
      return "create";
  }
  return "create";
}

bool IsSingleValuedAttribute(std::string_view attribute) {
  return attribute == "occupation" || attribute == "works_at" || attribute == "lives_in" ||
         attribute == "from" || attribute == "age" || attribute == "relationship_status" ||
         attribute == "name" || attribute.starts_with("favorite_");
}

MergeDecision DecideMerge(const MemoryCandidate& candidate, const std::vector<MemoryRecord>& existing,
                          const MergeOptions& options, const std::vector<float>& vector_scores) {
  const bool have_vectors = vector_scores.size() == existing.size();
  MergeDecision decision;
  const std::vector<std::string> terms = MatchTerms(candidate.text);

  // 1. Known already: the same id, or a same-polarity memory that covers the
  //    candidate's terms. The best-covering one is reported.
  double best = -1.0;
  for (size_t i = 0; i < existing.size(); ++i) {
    const MemoryCandidate& e = existing[i].memory;
    if (e.type != candidate.type) continue;
    if (e.negated != candidate.negated && e.subject == candidate.subject) continue;
    double coverage = e.id == candidate.id ? 1.0 : Coverage(terms, MatchTerms(e.text));
    bool known = coverage >= options.duplicate_coverage;
    if (!known && have_vectors && vector_scores[i] >= options.vector_duplicate_similarity &&
        coverage >= options.vector_min_coverage && e.negated == candidate.negated) {
      known = true;
    }
    if (known && coverage > best) {
      best = coverage;
      decision.action = MergeAction::kSkip;
      decision.target = i;
    }
  }
  if (decision.action == MergeAction::kSkip) {
    decision.record = existing[decision.target];
    AddMessageIds(candidate.message_ids, &decision.record.memory.message_ids);
    decision.reason = fmt::format("known: {:.0f}% of its terms are in memory {}", best * 100,
                                  decision.record.memory.id);
    return decision;
  }

  // 2. Same subject: a contradiction replaces, anything else merges.
  for (size_t i = 0; i < existing.size(); ++i) {
    const MemoryRecord& e = existing[i];
    if (e.memory.type != candidate.type || e.memory.subject != candidate.subject) continue;
    decision.target = i;
    decision.record = e;
    MemoryCandidate& m = decision.record.memory;
    bool flipped = e.memory.negated != candidate.negated;
    bool changed = IsSingleValuedAttribute(candidate.attribute) &&
                   NormalizeForMatch(e.memory.value) != NormalizeForMatch(candidate.value);
    if (flipped || changed) {
      decision.action = MergeAction::kReplace;
      decision.reason = fmt::format("same subject {}, {}", candidate.subject,
                                    flipped ? "negation flipped" : "value changed");
      PushHistory(e.memory, "replace", options.max_history, &decision.record.history);
      m.text = candidate.text;
      m.value = candidate.value;
      m.negated = candidate.negated;
      m.message_ids = candidate.message_ids;
      m.quotes = candidate.quotes;
      m.event_date = candidate.event_date;
    } else {
      decision.action = MergeAction::kMerge;
      decision.reason = fmt::format("same subject {}, new information", candidate.subject);
      PushHistory(e.memory, "merge", options.max_history, &decision.record.history);
      m.text = e.memory.text + " " + candidate.text;
      AddMessageIds(candidate.message_ids, &m.message_ids);
      AddQuotes(candidate.quotes, &m.quotes);
      if (m.event_date.empty()) m.event_date = candidate.event_date;
    }
    m.speaker = candidate.speaker;
    m.session_id = candidate.session_id;
    m.time = candidate.time;
    return decision;
  }

  decision.action = MergeAction::kCreate;
  decision.record.memory = candidate;
  decision.reason = "new";
  return decision;
}

namespace {

// `path`, or when a record already lives there (a memory edited into other
// words keeps its file while its id follows the text, so the id of the old
// words can come back) the first free "<stem>-2.md", "<stem>-3.md", ….
// `other_files` are taken too.
std::string FreePath(const std::string& path, const std::vector<MemoryRecord>& existing,
                     const std::set<std::string>& other_files) {
  auto taken = [&](const std::string& p) {
    return other_files.count(p) > 0 ||
           std::any_of(existing.begin(), existing.end(),
                       [&](const MemoryRecord& r) { return r.path == p; });
  };
  if (!taken(path)) return path;
  const std::string_view ext = path.ends_with(".md") ? ".md" : "";
  const std::string stem = path.substr(0, path.size() - ext.size());
  for (int n = 2;; ++n) {
    std::string candidate = fmt::format("{}-{}{}", stem, n, ext);
    if (!taken(candidate)) return candidate;
  }
}

}  // namespace

std::vector<MemoryWrite> PlanMemoryWrites(const std::vector<MemoryCandidate>& candidates,
                                          std::vector<MemoryRecord>* existing,
                                          const MergeOptions& options,
                                          const std::set<std::string>& other_files) {
  std::vector<MemoryWrite> writes;
  writes.reserve(candidates.size());
  for (MemoryRecord& r : *existing) {
    if (r.path.empty()) r.path = MemoryRelativePath(r.memory);
  }
  for (const MemoryCandidate& candidate : candidates) {
    MergeDecision d = DecideMerge(candidate, *existing, options);
    MemoryWrite w;
    w.action = d.action;
    w.reason = std::move(d.reason);
    if (d.action == MergeAction::kCreate) {
      d.record.path = FreePath(MemoryRelativePath(d.record.memory), *existing, other_files);
      existing->push_back(d.record);
    } else {
      (*existing)[d.target] = d.record;
    }
    if (d.action != MergeAction::kSkip) w.content = RenderMemoryFile(d.record);
    w.record = std::move(d.record);
    writes.push_back(std::move(w));
  }
  return writes;
}

std::string RenderMemoryFile(const MemoryRecord& record) {
  const MemoryCandidate& m = record.memory;
  std::string out = "---\n";
  out += kFormatLine;
  out += '\n';
  auto line = [&](std::string_view key, std::string_view value) {
    out += fmt::format("{}: {}\n", key, OneLine(value));
  };
  line("id", m.id);
  line("type", MemoryTypeName(m.type));
  line("subject", m.subject);
  line("attribute", m.attribute);
  line("value", m.value);
  line("negated", m.negated ? "true" : "false");
  line("speaker", m.speaker);
  line("session", m.session_id);
  line("messages", DumpJson(Json(m.message_ids)));
  if (!m.quotes.empty()) line("quotes", DumpJson(Json(m.quotes)));
  line("time", m.time);
  line("event_date", m.event_date);
  for (const MemoryHistoryEntry& h : record.history) {
    line("history", DumpJson(Json{{"time", h.time},
                                  {"session", h.session_id},
                                  {"change", h.change},
                                  {"text", h.text}}));
  }
  out += "---\n";
  out += m.text;
  out += '\n';
  return out;
}

Result<MemoryRecord> ParseMemoryFile(std::string_view content) {
  auto bad = [](std::string_view what) {
    return Status::InvalidArgument(fmt::format("malformed memory file: {}", what));
  };
  auto next_line = [&](std::string_view* rest, std::string_view* line) {
    if (rest->empty()) return false;
    size_t nl = rest->find('\n');
    *line = rest->substr(0, nl);
    *rest = nl == std::string_view::npos ? std::string_view() : rest->substr(nl + 1);
    return true;
  };
  std::string_view rest = content;
  std::string_view line;
  if (!next_line(&rest, &line) || line != "---") return bad("no header");
  if (!next_line(&rest, &line) || line != kFormatLine) return bad("unknown format line");
  MemoryRecord record;
  MemoryCandidate& m = record.memory;
  bool have_type = false;
  bool closed = false;
  while (next_line(&rest, &line)) {
    if (line == "---") {
      closed = true;
      break;
    }
    size_t colon = line.find(": ");
    std::string_view key = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view()
                                                             : line.substr(colon + 2);
    if (colon == std::string_view::npos) {
      if (!line.ends_with(":")) return bad("header line without a key");
      key = line.substr(0, line.size() - 1);
    }
    if (key == "id") {
      m.id = value;
    } else if (key == "type") {
      if (!ParseMemoryType(value, &m.type)) return bad("unknown type");
      have_type = true;
    } else if (key == "subject") {
      m.subject = value;
    } else if (key == "attribute") {
      m.attribute = value;
    } else if (key == "value") {
      m.value = value;
    } else if (key == "negated") {
      if (!ParseBool(value, &m.negated)) return bad("negated is not a boolean");
    } else if (key == "speaker") {
      m.speaker = value;
    } else if (key == "session") {
      m.session_id = value;
    } else if (key == "time") {
      m.time = value;
    } else if (key == "event_date") {
      m.event_date = value;
    } else if (key == "messages" || key == "quotes" || key == "history") {
      nlohmann::json j = nlohmann::json::parse(value, nullptr, /*allow_exceptions=*/false);
      if (key == "messages" || key == "quotes") {
        if (!j.is_array()) return bad(fmt::format("{} is not a JSON array", key));
        std::vector<std::string>& into = key == "messages" ? m.message_ids : m.quotes;
        for (const auto& item : j) {
          if (!item.is_string()) return bad(fmt::format("{} holds a non-string", key));
          into.push_back(item.get<std::string>());
        }
      } else {
        if (!j.is_object()) return bad("history entry is not a JSON object");
        MemoryHistoryEntry h;
        auto field = [&](const char* name, std::string* into) {
          auto it = j.find(name);
          if (it != j.end() && it->is_string()) *into = it->get<std::string>();
        };
        field("time", &h.time);
        field("session", &h.session_id);
        field("change", &h.change);
        field("text", &h.text);
        record.history.push_back(std::move(h));
      }
    }
  }
  if (!closed) return bad("unterminated header");
  if (!have_type || m.subject.empty() || m.id.empty()) return bad("missing type, subject or id");
  if (rest.ends_with('\n')) rest.remove_suffix(1);
  m.text = rest;
  return record;
}

std::string MemoryRelativePath(const MemoryCandidate& memory) {
  std::string slug;
  for (char c : memory.subject) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      slug.push_back(static_cast<char>(std::tolower(u)));
    } else if (!slug.empty() && slug.back() != '-') {
      slug.push_back('-');
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  if (slug.size() > 80) slug.resize(80);
  std::string dir(MemoryTypeName(memory.type));
  if (memory.type == MemoryType::kEvents) {
    std::string_view date = !memory.event_date.empty() ? memory.event_date : memory.time;
    // "weekend of 2023-05-06" / "week of …": the date starts at the first digit.
    size_t digit = date.find_first_of("0123456789");
    date = digit == std::string_view::npos ? std::string_view() : date.substr(digit);
    // "2023-05-07…" → 2023/05/07; coarser dates keep what they have.
    std::vector<std::string> parts;
    if (date.size() >= 4 && std::isdigit(static_cast<unsigned char>(date[0]))) {
      parts.emplace_back(date.substr(0, 4));
      if (date.size() >= 7 && date[4] == '-') parts.emplace_back(date.substr(5, 2));
      if (date.size() >= 10 && date[7] == '-') parts.emplace_back(date.substr(8, 2));
    } else {
      parts.emplace_back("undated");
    }
    for (const std::string& p : parts) dir += "/" + p;
  }
  return fmt::format("{}/{}{}{}.md", dir, slug, slug.empty() ? "" : "-",
                     memory.id.substr(0, std::min<size_t>(8, memory.id.size())));
}

}  // namespace skald
