// locomo_eval: evidence recall of session memory under a token budget, on
// LoCoMo-format conversations, through the Db API a client uses.
//
// For every conversation (its own user): one session per LoCoMo session,
// its turns added as messages (each speaker a peer, dated with the session's
// date_time), committed; then wait for every background task. For every
// question of categories 1-4: the context an agent gets for the question
// under each budget — search in context mode (Db::SearchContext, what the
// HTTP search route runs with mode "context" and max_tokens = the budget),
// or with --mode list: `search` (Db::Search) with each hit's text in rank
// order, lines already in the context not repeated, until the budget is
// spent. A question's evidence turns count as recalled when their text is
// in that context.
//
// evidence_recall is the mean over questions of the fraction of each
// question's evidence turns recalled: the definition under which
// ../shared/data/README.md's baselines reproduce (bench/locomo_baseline.py).
// turn_recall pools the turns instead (recalled / all evidence turns), which
// weighs list questions with many evidence turns more.
//
// Usage: locomo_eval --data FILE [--budget N]... [--split tune|report|all]
//                    [--limit K] [--workspace DIR] [--misses N]
//   --budget  token budgets to report (default 500, 1000 and 2000)
//   --split   tune = the first half of the conversations (rounded down),
//             report = the rest, all = every one (default all; figures are
//             printed per split either way)
//   --mode    context (default) or list, as above
//   --limit   hits asked of each find (default 100; context mode gathers at
//             least max_tokens / 25)
//   --misses  print up to N missed evidence turns at the largest budget
//   --dump FILE  write one JSON line per question (split, category, question,
//             evidence, recalled@B and context@B per budget) for analysis
//   --show N  print the first hits (context mode: the context at the largest
//             budget) of the first N questions
//   --hybrid-weight W   retrieval.hybrid_weight (default: the configured default)
//   --quota CATEGORY=N   context mode: the request's quota of a category
//             (experiments; repeatable)
//   --keep-function-words   BM25 searches the whole question (default: without
//             its function words, RetrievalOptions::strip_query_function_words)
//   --only TEXT, --files-only   experiments: keep only hits whose URI holds
//             TEXT / only file (L2) hits
//
// Prints per split and budget:
//   evidence_recall@BUDGET=… turn_recall@BUDGET=… tokens_per_question=… questions=…

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "locomo.h"

#include "common/strings.h"
#include "model/token_budget.h"
#include "session/date_resolver.h"
#include "session/memory_merge.h"
#include "skald/db.h"

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}


// "2023-05-08T13:56:00Z" of a LoCoMo date_time ("" when it does not parse).
std::string IsoTime(const std::string& text) {
  skald::Result<skald::CivilDateTime> t = skald::ParseDateTime(text);
  if (!t.ok()) return "";
  return t->ToString() + ":00Z";
}

// The body of a file an agent reads: a memory's text without its
// provenance header (docs/format/memory.md), other files as they are.
std::string Body(const std::string& text) {
  skald::Result<skald::MemoryRecord> memory = skald::ParseMemoryFile(text);
  return memory.ok() ? memory->memory.text : text;
}

struct Question {
  std::string user;
  std::string text;
  std::vector<std::string> evidence_texts;  // collapsed turn texts
  size_t conversation = 0;
  int category = 0;
};

struct Totals {
  size_t evidence = 0;
  size_t recalled = 0;
  double question_recall = 0;  // sum over questions of recalled / evidence
  double tokens = 0;
  size_t questions = 0;
};

// Context mode (what an agent asks for): Db::SearchContext once per budget,
// its rendered context as is.
skald::Status ContextPerBudget(skald::Db& db, const skald::Identity& who, const std::string& text,
                               int limit, const std::map<std::string, int>& quotas,
                               const std::vector<int64_t>& budgets, int* show,
                               std::vector<std::string>* context, std::vector<int64_t>* used) {
  for (size_t b = 0; b < budgets.size(); ++b) {
    skald::ContextRequest request;
    request.search.find.query = text;
    request.search.find.limit = limit;
    request.max_tokens = budgets[b];
    for (const auto& [category, quota] : quotas) request.quotas[category] = quota;
    auto assembled = db.SearchContext(who, request);
    if (!assembled.ok()) return assembled.status();
    std::istringstream lines(assembled->rendered);
    std::string line;
    while (std::getline(lines, line)) (*context)[b] += skald::CollapseWhitespace(line) + "\n";
    (*used)[b] = assembled->stats.tokens;
    if (*show > 0 && b + 1 == budgets.size()) {
      --*show;
      const skald::ContextStats& st = assembled->stats;
      std::printf("Q: %s\n  candidates=%lld entries=%lld tokens=%lld left_out=%lld over_quota=%lld "
                  "repeated_lines=%lld\n%s\n",
                  text.c_str(), static_cast<long long>(st.candidates),
                  static_cast<long long>(st.entries), static_cast<long long>(st.tokens),
                  static_cast<long long>(st.left_out), static_cast<long long>(st.over_quota),
                  static_cast<long long>(st.repeated_lines), assembled->rendered.c_str());
    }
  }
  return skald::Status::Ok();
}

// List mode: one Db::Search; each hit's text (a file's body, a directory's
// abstract) in rank order, lines already in the context not repeated,
// until each budget is spent.
skald::Status ListPerBudget(skald::Db& db, const skald::Identity& who, const std::string& text,
                            int limit, const std::vector<int64_t>& budgets, const std::string& only,
                            bool files_only, int* show, std::vector<std::string>* context,
                            std::vector<int64_t>* used) {
  skald::SearchRequest request;
  request.find.query = text;
  request.find.limit = limit;
  auto searched = db.Search(who, request);
  if (!searched.ok()) return searched.status();
  const skald::FindResult& found = searched->found;
  std::vector<skald::MatchedContext> hits;
  for (const auto* list : {&found.memories, &found.resources, &found.skills}) {
    hits.insert(hits.end(), list->begin(), list->end());
  }
  std::erase_if(hits, [&](const skald::MatchedContext& h) {
    return (files_only && h.level != 2) ||
           (!only.empty() && h.uri.find(only) == std::string::npos);
  });
  std::stable_sort(hits.begin(), hits.end(),
                   [](const auto& a, const auto& b) { return a.score > b.score; });
  if (*show > 0) {
    --*show;
    std::printf("Q: %s\n", text.c_str());
    for (size_t i = 0; i < hits.size() && i < 15; ++i) {
      std::printf("  %.3f L%d %s %s | %.80s\n", hits[i].score, hits[i].level,
                  hits[i].match_reason.c_str(), hits[i].uri.c_str(), hits[i].abstract.c_str());
    }
  }
  std::vector<bool> full(budgets.size(), false);
  std::unordered_set<std::string> seen;
  for (const skald::MatchedContext& hit : hits) {
    std::string body = hit.abstract;
    if (hit.level == 2) {
      auto read = db.Read(who, hit.uri, 0, -1, /*raw=*/true);
      if (read.ok()) body = Body(*read);
    }
    std::istringstream lines(body);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.empty() || !seen.insert(line).second) continue;
      const int64_t cost = skald::EstimateTokens(line) + 1;
      for (size_t b = 0; b < budgets.size(); ++b) {
        if (full[b]) continue;
        if ((*used)[b] + cost > budgets[b]) {
          full[b] = true;  // the budget is spent: rank order ends here
          continue;
        }
        (*used)[b] += cost;
        (*context)[b] += skald::CollapseWhitespace(line);
        (*context)[b] += '\n';
      }
    }
    if (full.back()) break;
  }
  return skald::Status::Ok();
}

}  // namespace

int main(int argc, char** argv) {
  std::string data;
  std::string split = "all";
  std::string workspace;
  std::vector<int64_t> budgets;
  int limit = 100;
  int misses = 0;
  int show = 0;
  std::string only;  // experiment: keep only hits whose URI contains this
  bool files_only = false;
  double hybrid_weight = -1;
  bool keep_function_words = false;
  std::map<std::string, int> quotas;  // experiment: context mode's per-category quotas
  std::string mode = "context";
  std::string dump;  // per-question JSON lines (analysis)
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--data" && i + 1 < argc) {
      data = argv[++i];
    } else if (a == "--budget" && i + 1 < argc) {
      budgets.push_back(std::atoll(argv[++i]));
    } else if (a == "--split" && i + 1 < argc) {
      split = argv[++i];
    } else if (a == "--limit" && i + 1 < argc) {
      limit = std::atoi(argv[++i]);
    } else if (a == "--workspace" && i + 1 < argc) {
      workspace = argv[++i];
    } else if (a == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else if (a == "--hybrid-weight" && i + 1 < argc) {
      hybrid_weight = std::atof(argv[++i]);
    } else if (a == "--mode" && i + 1 < argc) {
      mode = argv[++i];
    } else if (a == "--dump" && i + 1 < argc) {
      dump = argv[++i];
    } else if (a == "--files-only") {
      files_only = true;
    } else if (a == "--keep-function-words") {
      keep_function_words = true;
    } else if (a == "--quota" && i + 1 < argc) {
      const std::string q = argv[++i];
      const size_t eq = q.find('=');
      if (eq == std::string::npos) {
        std::fprintf(stderr, "--quota wants CATEGORY=N\n");
        return 2;
      }
      quotas[q.substr(0, eq)] = std::atoi(q.c_str() + eq + 1);
    } else if (a == "--show" && i + 1 < argc) {
      show = std::atoi(argv[++i]);
    } else if (a == "--misses" && i + 1 < argc) {
      misses = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: %s --data FILE [--budget N]... [--split tune|report|all] [--limit K] "
                   "[--workspace DIR] [--misses N] [--dump FILE] [--show N] [--hybrid-weight W] "
                   "[--mode context|list] [--only TEXT] [--files-only] [--keep-function-words] [--quota CATEGORY=N]...\n",
                   argv[0]);
      return 2;
    }
  }
  if (budgets.empty()) budgets = {500, 1000, 2000};
  std::sort(budgets.begin(), budgets.end());
  if (split != "tune" && split != "report" && split != "all") {
    std::fprintf(stderr, "--split must be tune, report or all\n");
    return 2;
  }
  if (mode != "context" && mode != "list") {
    std::fprintf(stderr, "--mode must be context or list\n");
    return 2;
  }
  if (mode == "context" && (budgets.front() < 64 || budgets.back() > 32000)) {
    std::fprintf(stderr, "context mode takes budgets in 64..32000\n");
    return 2;
  }
  if (limit < 1 || budgets.front() < 1) {
    std::fprintf(stderr, "--limit and --budget must be >= 1\n");
    return 2;
  }
  std::ifstream in(data);
  if (data.empty() || !in) {
    std::fprintf(stderr, "cannot read --data file\n");
    return 2;
  }
  json samples = json::parse(in, nullptr, false);
  if (!samples.is_array()) {
    std::fprintf(stderr, "--data is not a JSON array of LoCoMo samples\n");
    return 2;
  }
  std::printf("command: locomo_eval --data %s --split %s --mode %s --limit %d", data.c_str(),
              split.c_str(), mode.c_str(), limit);
  for (int64_t b : budgets) std::printf(" --budget %lld", static_cast<long long>(b));
  std::printf("\n");

  namespace fs = std::filesystem;
  const bool own_workspace = workspace.empty();
  if (own_workspace) {
    workspace = (fs::temp_directory_path() / ("locomo_eval." + std::to_string(::getpid()))).string();
  }
  fs::remove_all(workspace);
  skald::DbOptions options;
  options.workspace = workspace;
  options.sync_writes = false;
  if (hybrid_weight >= 0) options.retrieval.hybrid_weight = hybrid_weight;
  options.retrieval.strip_query_function_words = !keep_function_words;
  auto db = skald::Db::Open(options);
  if (!db.ok()) {
    std::fprintf(stderr, "open: %s\n", db.status().ToString().c_str());
    return 1;
  }

  const size_t n = samples.size();
  const size_t tune_end = n / 2;
  const size_t begin = split == "report" ? tune_end : 0;
  const size_t end = split == "tune" ? tune_end : n;

  // 1. Load: one user per conversation, one session per LoCoMo session.
  std::vector<Question> questions;
  size_t sessions = 0;
  size_t turns = 0;
  auto start = Clock::now();
  for (size_t s = begin; s < end; ++s) {
    const json& sample = samples[s];
    const json& conv = sample["conversation"];
    std::string user = sample.value("sample_id", "conv" + std::to_string(s));
    skald::Identity who{"default", user, skald::Role::kUser};
    std::map<std::string, std::string> turn_text;
    for (int k = 1; k <= 100; ++k) {
      std::string key = "session_" + std::to_string(k);
      if (!conv.contains(key) || !conv[key].is_array()) continue;
      std::string when = IsoTime(conv.value(key + "_date_time", ""));
      std::vector<std::string> messages;
      for (const json& t : conv[key]) {
        std::string text = t.value("text", "");
        turn_text[t.value("dia_id", "")] = skald::CollapseWhitespace(text);
        // A shared image is an image part plus its caption as text (what a
        // client with a captioner sends; LoCoMo gives the caption).
        json parts = json::array({{{"type", "text"}, {"text", text}}});
        if (t.contains("img_url") && t["img_url"].is_array() && !t["img_url"].empty() &&
            t["img_url"][0].is_string()) {
          parts.push_back({{"type", "image_url"}, {"image_url", {{"url", t["img_url"][0]}}}});
        }
        if (t.contains("blip_caption") && t["blip_caption"].is_string()) {
          parts.push_back({{"type", "text"},
                           {"text", "[shares " + t["blip_caption"].get<std::string>() + "]"}});
        }
        json m{{"role", "user"}, {"peer_id", t.value("speaker", "")}, {"parts", parts}};
        if (!when.empty()) m["created_at"] = when;
        messages.push_back(m.dump());
      }
      std::string session_id = "s" + std::to_string(k);
      auto added = (*db)->AddSessionMessages(who, session_id, messages);
      if (!added.ok()) {
        std::fprintf(stderr, "%s %s: add messages: %s\n", user.c_str(), session_id.c_str(),
                     added.status().ToString().c_str());
        return 1;
      }
      auto committed = (*db)->CommitSession(who, session_id, {});
      if (!committed.ok()) {
        std::fprintf(stderr, "%s %s: commit: %s\n", user.c_str(), session_id.c_str(),
                     committed.status().ToString().c_str());
        return 1;
      }
      ++sessions;
      turns += messages.size();
    }
    for (const json& qa : sample["qa"]) {
      int category = qa.value("category", 0);
      if (category < 1 || category > 4) continue;
      Question q;
      q.user = user;
      q.text = qa.value("question", "");
      q.conversation = s;
      q.category = category;
      for (const std::string& id : skald::bench::EvidenceIds(qa["evidence"])) {
        auto it = turn_text.find(id);
        if (it != turn_text.end() && !it->second.empty()) q.evidence_texts.push_back(it->second);
      }
      if (!q.evidence_texts.empty()) questions.push_back(std::move(q));
    }
  }
  skald::Status idle = (*db)->WaitIdle(30 * 60 * 1000);
  if (!idle.ok()) {
    std::fprintf(stderr, "waiting for the commits: %s\n", idle.ToString().c_str());
    return 1;
  }
  std::printf("loaded conversations=%zu sessions=%zu turns=%zu in %.1f s\n", end - begin, sessions,
              turns, Seconds(start));

  // 2. Questions.
  std::map<std::string, std::map<int64_t, Totals>> totals;  // split -> budget -> totals
  int misses_printed = 0;
  std::ofstream dump_out;
  if (!dump.empty()) {
    dump_out.open(dump);
    if (!dump_out) {
      std::fprintf(stderr, "cannot write --dump file\n");
      return 2;
    }
  }
  start = Clock::now();
  for (const Question& q : questions) {
    skald::Identity who{"default", q.user, skald::Role::kUser};
    const std::string split_name = q.conversation < tune_end ? "tune" : "report";
    std::vector<std::string> context(budgets.size());
    std::vector<int64_t> used(budgets.size(), 0);
    skald::Status built = mode == "context"
                              ? ContextPerBudget(**db, who, q.text, limit, quotas, budgets, &show, &context, &used)
                              : ListPerBudget(**db, who, q.text, limit, budgets, only, files_only,
                                              &show, &context, &used);
    if (!built.ok()) {
      std::fprintf(stderr, "search: %s\n", built.ToString().c_str());
      return 1;
    }
    json record{{"split", split_name}, {"category", q.category}, {"user", q.user},
                {"question", q.text}, {"evidence", q.evidence_texts}};
    for (size_t b = 0; b < budgets.size(); ++b) {
      size_t recalled = 0;
      for (const std::string& e : q.evidence_texts) {
        if (context[b].find(e) != std::string::npos) {
          ++recalled;
        } else if (b + 1 == budgets.size() && misses_printed < misses) {
          ++misses_printed;
          std::printf("missed: Q: %s\n        E: %s\n", q.text.c_str(), e.c_str());
        }
      }
      record["recalled@" + std::to_string(budgets[b])] = recalled;
      record["context@" + std::to_string(budgets[b])] = context[b];
      for (const std::string& name : {split_name, std::string("all")}) {
        Totals& t = totals[name][budgets[b]];
        t.evidence += q.evidence_texts.size();
        t.recalled += recalled;
        t.question_recall +=
            static_cast<double>(recalled) / static_cast<double>(q.evidence_texts.size());
        t.tokens += static_cast<double>(used[b]);
        ++t.questions;
      }
    }
    if (dump_out.is_open()) {
      dump_out << record.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
    }
  }
  std::printf("answered %zu questions in %.1f s\n", questions.size(), Seconds(start));
  for (const auto& [name, by_budget] : totals) {
    for (const auto& [budget, t] : by_budget) {
      const double asked = static_cast<double>(std::max<size_t>(t.questions, 1));
      std::printf(
          "split=%s evidence_recall@%lld=%.3f turn_recall@%lld=%.3f tokens_per_question=%.0f "
          "questions=%zu\n",
          name.c_str(), static_cast<long long>(budget), t.question_recall / asked,
          static_cast<long long>(budget),
          t.evidence ? static_cast<double>(t.recalled) / static_cast<double>(t.evidence) : 0.0,
          t.tokens / asked, t.questions);
    }
  }
  db->reset();
  if (own_workspace) fs::remove_all(workspace);
  return 0;
}
