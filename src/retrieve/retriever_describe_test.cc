// Retriever over the memory lexical index, which describes candidates
// itself (LexicalIndex::Describe): the catalog lookup is asked only for the
// hits returned, and the answers are those of the FTS5 path.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "retrieve/retriever.h"
#include "retrieve/retriever_test_util.h"

namespace skald {
namespace {

class RetrieverDescribeTest : public RetrieverTest {
 protected:
  RetrieverDescribeTest() { lexical_kind_ = "memory"; }
};

// The FTS5 fixture, to compare with.
class RetrieverCatalogPathTest : public RetrieverTest {
 public:
  void TestBody() override {}
  void Start() { SetUp(); }
  using RetrieverTest::Query;
  using RetrieverTest::Run;
};

const char* const kQueries[] = {"refractor telescope aperture",
                                "chocolate cake ganache",
                                "sourdough bread proofing",
                                "composting kitchen scraps and tomatoes",
                                "planets of the solar system"};

TEST_F(RetrieverDescribeTest, AnswersAsTheCatalogPathDoes) {
  RetrieverCatalogPathTest fts5;
  fts5.Start();
  for (RetrievalMode mode : {RetrievalMode::kQuick, RetrievalMode::kThinking}) {
    for (const char* text : kQueries) {
      RetrievalResult described = Run(Query(text, mode));
      RetrievalResult read = fts5.Run(fts5.Query(text, mode));
      ASSERT_EQ(Uris(described), Uris(read)) << text;
      ASSERT_FALSE(described.hits.empty()) << text;
      for (size_t i = 0; i < described.hits.size(); ++i) {
        const MatchedContext& a = described.hits[i];
        const MatchedContext& b = read.hits[i];
        EXPECT_NEAR(a.score, b.score, 1e-4) << text << " " << a.uri;
        EXPECT_EQ(a.level, b.level) << a.uri;
        EXPECT_EQ(a.abstract, b.abstract) << a.uri;  // from the catalog
        EXPECT_EQ(a.tags, b.tags) << a.uri;
      }
      EXPECT_EQ(described.trace.rounds, read.trace.rounds) << text;
    }
  }
}

TEST_F(RetrieverDescribeTest, TheCatalogIsAskedOnlyForTheReturnedHits) {
  for (RetrievalMode mode : {RetrievalMode::kQuick, RetrievalMode::kThinking}) {
    RetrievalQuery query = Query("chocolate cake telescope tomatoes bread", mode);
    query.limit = 3;
    looked_up_keys_ = 0;
    RetrievalResult result = Run(query);
    ASSERT_EQ(result.hits.size(), 3u);
    EXPECT_EQ(looked_up_keys_, 3) << "mode " << static_cast<int>(mode);
    for (const MatchedContext& hit : result.hits) EXPECT_FALSE(hit.abstract.empty()) << hit.uri;
  }
}

TEST_F(RetrieverDescribeTest, ARecordGoneFromTheCatalogIsReplacedByTheNextBest) {
  // Indexed, the best match, but no longer in the catalog (deleted since the
  // index caught up): the limit is still filled, from the next candidates.
  AddFile("viking://resources/astronomy/ghost.md", "Ghost telescope",
          "refractor telescope aperture eyepieces refractor telescope aperture");
  records_[kAccount].erase(next_key_);
  for (RetrievalMode mode : {RetrievalMode::kQuick, RetrievalMode::kThinking}) {
    RetrievalQuery query = Query("refractor telescope aperture eyepieces", mode);
    query.limit = 2;
    RetrievalResult result = Run(query);
    ASSERT_EQ(result.hits.size(), 2u);
    for (const MatchedContext& hit : result.hits) {
      EXPECT_NE(hit.uri, "viking://resources/astronomy/ghost.md");
    }
    EXPECT_EQ(result.hits[0].uri, "viking://resources/astronomy/telescopes.md");
  }
}

TEST_F(RetrieverDescribeTest, AStaleEntryDoesNotHideALiveRecordOfItsUri) {
  // A deleted record still in a lagging index, of the same URI as a live one
  // and a better match: the URI is answered by the live record, in every mode
  // (THINKING keeps one candidate per URI in its pool, auto may answer from
  // its collapsed global stage).
  AddFile("viking://resources/astronomy/telescopes.md", "Ghost telescope",
          "refractor telescope aperture eyepieces refractor telescope aperture eyepieces");
  const uint64_t stale = next_key_;
  records_[kAccount].erase(stale);
  for (RetrievalMode mode : {RetrievalMode::kQuick, RetrievalMode::kThinking,
                             RetrievalMode::kAuto}) {
    RetrievalQuery query = Query("refractor telescope aperture eyepieces", mode);
    query.limit = 3;
    RetrievalResult result = Run(query);
    ASSERT_FALSE(result.hits.empty()) << "mode " << static_cast<int>(mode);
    EXPECT_EQ(result.hits[0].uri, "viking://resources/astronomy/telescopes.md")
        << "mode " << static_cast<int>(mode);
    EXPECT_EQ(result.hits[0].abstract, "Refractor telescopes") << "mode " << static_cast<int>(mode);
  }
}

TEST_F(RetrieverDescribeTest, HotnessReadsEveryCandidateFromTheCatalog) {
  // Hotness needs active counts, which only the catalog has.
  RetrievalOptions options = Hybrid();
  options.hotness_alpha = 0.3;
  RetrievalQuery query = Query("chocolate cake telescope tomatoes bread");
  query.limit = 2;
  looked_up_keys_ = 0;
  RetrievalResult result = Run(query, Sources(), options);
  ASSERT_EQ(result.hits.size(), 2u);
  EXPECT_GT(looked_up_keys_, 2);
}

}  // namespace
}  // namespace skald
