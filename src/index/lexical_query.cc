#include "index/lexical_query.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace skald {

namespace {

std::string QuotePhrase(std::string_view word) {
  std::string phrase = "\"";
  for (char c : word) {
    if (c == '"') phrase += '"';
    phrase += c;
  }
  phrase += '"';
  return phrase;
}

// "p1 OR p2 OR ..." over terms[begin, end).
void AppendDisjunction(const std::vector<ScoredQueryTerm>& terms, size_t begin, size_t end,
                       LexicalQueryPlan* plan, bool ignore_frequencies) {
  for (size_t i = begin; i < end; ++i) {
    if (i > begin) plan->match += " OR ";
    plan->match += terms[i].term->phrase;
    plan->phrase_doc_freq.push_back(ignore_frequencies ? kIgnorePhrase : terms[i].doc_frequency);
  }
}

}  // namespace

std::vector<LexicalQueryTerm> ExtractQueryTerms(const Tokenizer& tokenizer,
                                                std::string_view query) {
  std::vector<Token> tokens;
  tokenizer.Tokenize(query, &tokens);
  std::unordered_set<std::string> seen;
  std::vector<LexicalQueryTerm> terms;
  std::vector<Token> alone;
  for (const Token& token : tokens) {
    if (terms.size() >= kMaxQueryWords) break;
    if (!seen.insert(token.term).second) continue;
    std::string_view word = query.substr(token.begin, token.end - token.begin);
    alone.clear();
    tokenizer.Tokenize(word, &alone);
    bool single = alone.size() == 1 && alone[0].term == token.term;
    std::vector<std::string> word_terms;
    for (Token& t : alone) word_terms.push_back(std::move(t.term));
    terms.push_back({token.term, QuotePhrase(word), single, std::move(word_terms)});
  }
  return terms;
}

std::string BuildFts5Query(const Tokenizer& tokenizer, std::string_view query) {
  std::string match;
  for (const LexicalQueryTerm& term : ExtractQueryTerms(tokenizer, query)) {
    if (!match.empty()) match += " OR ";
    match += term.phrase;
  }
  return match;
}

double Bm25Idf(double rows, double doc_frequency) {
  return std::log(1.0 + (rows - doc_frequency + 0.5) / (doc_frequency + 0.5));
}

LexicalQueryPlan PlanLexicalQuery(const std::vector<ScoredQueryTerm>& terms, size_t essential) {
  essential = std::clamp<size_t>(essential, 1, terms.size());
  LexicalQueryPlan plan;
  plan.essential = essential;
  AppendDisjunction(terms, 0, essential, &plan, /*ignore_frequencies=*/false);
  if (essential == terms.size()) return plan;
  for (size_t i = essential; i < terms.size(); ++i)
    plan.non_essential_bound += terms[i].upper_bound;
  // The non-essential terms, only where an essential one matches. The repeated
  // essential phrases are ignored by the ranking function (counted once).
  plan.match += " OR ((";
  AppendDisjunction(terms, essential, terms.size(), &plan, /*ignore_frequencies=*/false);
  plan.match += ") AND (";
  AppendDisjunction(terms, 0, essential, &plan, /*ignore_frequencies=*/true);
  plan.match += "))";
  return plan;
}

size_t EssentialTermsFor(const std::vector<ScoredQueryTerm>& terms, double threshold) {
  double suffix = 0;
  size_t essential = terms.size();
  // Floating-point slack: the ranking function sums in another order.
  while (essential > 1) {
    double next = suffix + terms[essential - 1].upper_bound;
    if (!(next * (1 + 1e-9) + 1e-12 < threshold)) break;
    suffix = next;
    --essential;
  }
  return essential;
}

}  // namespace skald
