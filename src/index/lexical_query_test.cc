#include "index/lexical_query.h"

#include <gtest/gtest.h>

#include <vector>

#include "text/tokenizer.h"

namespace skald {
namespace {

TEST(LexicalQueryTest, PlanMatchesEssentialTermsOnly) {
  LexicalQueryTerm rare{"rare", "\"rare\"", true, {"rare"}}, mid{"mid", "\"mid\"", true, {"mid"}},
      common{"the", "\"The\"", true, {"the"}};
  std::vector<ScoredQueryTerm> terms{{&rare, 2, 9.0}, {&mid, 50, 4.0}, {&common, 900, 1.0}};
  LexicalQueryPlan all = PlanLexicalQuery(terms, 3);
  EXPECT_EQ(all.match, "\"rare\" OR \"mid\" OR \"The\"");
  EXPECT_EQ(all.phrase_doc_freq, (std::vector<int64_t>{2, 50, 900}));
  EXPECT_EQ(all.non_essential_bound, 0);
  LexicalQueryPlan one = PlanLexicalQuery(terms, 1);
  EXPECT_EQ(one.match, "\"rare\" OR ((\"mid\" OR \"The\") AND (\"rare\"))");
  EXPECT_EQ(one.phrase_doc_freq, (std::vector<int64_t>{2, 50, 900, kIgnorePhrase}));
  EXPECT_DOUBLE_EQ(one.non_essential_bound, 5.0);
  EXPECT_EQ(EssentialTermsFor(terms, 100.0), 1u);
  EXPECT_EQ(EssentialTermsFor(terms, 4.5), 2u);  // 1 < 4.5 but 1 + 4 = 5 is not
  EXPECT_EQ(EssentialTermsFor(terms, 1.0), 3u);  // a bound equal to the threshold stays
  EXPECT_EQ(EssentialTermsFor(terms, 0.0), 3u);
}

TEST(LexicalQueryTest, ExtractQueryTermsMarksSingleTerms) {
  auto tokenizer = NewIcuTokenizer();
  ASSERT_TRUE(tokenizer.ok());
  auto terms = ExtractQueryTerms(**tokenizer, "Running runs 北京 wo\"rd");
  ASSERT_EQ(terms.size(), 4u);  // "runs" repeats "run"
  EXPECT_EQ(terms[0].term, "run");
  EXPECT_EQ(terms[0].phrase, "\"Running\"");
  EXPECT_TRUE(terms[0].single);
  EXPECT_EQ(terms[1].phrase, "\"北京\"");
  EXPECT_EQ(terms[2].phrase, "\"wo\"");  // '"' is never part of a word
  EXPECT_EQ(terms[3].phrase, "\"rd\"");
}

}  // namespace
}  // namespace skald
