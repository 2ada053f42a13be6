#include "model/hashing_embedder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/hash.h"
#include "text/term_list.h"

namespace skald {
namespace {

double Dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

class HashingEmbedderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<Embedder>> made = NewDefaultHashingEmbedder();
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    embedder_ = std::move(made).value();
  }

  std::vector<float> One(const std::string& text) {
    std::vector<std::string> texts = {text};
    Result<std::vector<std::vector<float>>> out = embedder_->Embed(texts);
    EXPECT_TRUE(out.ok());
    return out.ok() ? (*out)[0] : std::vector<float>{};
  }

  std::unique_ptr<Embedder> embedder_;
};

TEST_F(HashingEmbedderTest, IdentityNamesAlgorithmTokenizerAndDimension) {
  EXPECT_EQ(embedder_->provider(), "hashing");
  EXPECT_EQ(embedder_->Dimension(), 512);
  EXPECT_EQ(embedder_->model().rfind("skald-hash-v1[", 0), 0u) << embedder_->model();
  EXPECT_EQ(embedder_->Name(), "hashing:" + embedder_->model() + ":512");
}

TEST_F(HashingEmbedderTest, VectorsAreUnitLengthAndDeterministic) {
  const std::vector<float> a = One("Rotate the API keys every ninety days.");
  ASSERT_EQ(a.size(), 512u);
  EXPECT_NEAR(Dot(a, a), 1.0, 1e-5);
  EXPECT_EQ(a, One("Rotate the API keys every ninety days."));
  // A second embedder instance gives bit-identical output (no random state).
  Result<std::unique_ptr<Embedder>> other = NewDefaultHashingEmbedder();
  ASSERT_TRUE(other.ok());
  std::vector<std::string> texts = {"Rotate the API keys every ninety days."};
  EXPECT_EQ((*(*other)->Embed(texts))[0], a);
}

TEST_F(HashingEmbedderTest, SharedWordsScoreHigherThanUnrelatedText) {
  const std::vector<float> query = One("how do I rotate keys");
  const std::vector<float> related =
      One("Key rotation: rotate your keys with `skald keys rotate`.");
  const std::vector<float> unrelated = One("Bananas are rich in potassium and grow in clusters.");
  EXPECT_GT(Dot(query, related), Dot(query, unrelated) + 0.2);
  EXPECT_LT(std::fabs(Dot(query, unrelated)), 0.2);
}

TEST_F(HashingEmbedderTest, CharacterGramsMatchMisspellingsAndWordOrderMatters) {
  const std::vector<float> right = One("configuration");
  EXPECT_GT(Dot(right, One("configuraton")), 0.3);  // typo shares most 3-grams
  EXPECT_LT(Dot(right, One("potassium")), 0.2);
  // Bigrams: the same words in the same order are closer than shuffled.
  const std::vector<float> a = One("vector index recall");
  EXPECT_GT(Dot(a, One("vector index recall benchmark")),
            Dot(a, One("recall benchmark index vector")) - 1e-6);
}

TEST_F(HashingEmbedderTest, EmptyAndStopWordOnlyTextsGiveZeroVectors) {
  for (const std::string text : {"", "   ", "the of and"}) {
    const std::vector<float> v = One(text);
    ASSERT_EQ(v.size(), 512u);
    EXPECT_EQ(Dot(v, v), 0.0) << "'" << text << "'";
  }
}

TEST_F(HashingEmbedderTest, CjkTextEmbedsAndMatches) {
  const std::vector<float> a = One("向量数据库的索引");
  EXPECT_NEAR(Dot(a, a), 1.0, 1e-5);
  EXPECT_GT(Dot(a, One("数据库索引")), Dot(a, One("今天天气很好")));
}

TEST_F(HashingEmbedderTest, BatchEqualsOneByOneAndKindIsIgnored) {
  std::vector<std::string> texts = {"alpha beta", "gamma delta", "", "alpha beta"};
  Result<std::vector<std::vector<float>>> batch = embedder_->Embed(texts, EmbedKind::kQuery);
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->size(), 4u);
  for (size_t i = 0; i < texts.size(); ++i) EXPECT_EQ((*batch)[i], One(texts[i]));
}

// From the terms of its document_tokenizer(), the vector of the text: the
// same floats, for Latin, CJK, repeated and empty texts.
TEST_F(HashingEmbedderTest, EmbedTermsEqualsEmbeddingTheText) {
  const Tokenizer* tokenizer = embedder_->document_tokenizer();
  ASSERT_NE(tokenizer, nullptr);
  for (const std::string text :
       {"alpha beta", "The quick brown foxes jumped; the fox jumps again.", "",
        "東京の天気は晴れです", "repeat repeat repeat words words"}) {
    TermList terms(tokenizer->Name(), text.size());
    tokenizer->ForEachTerm(text, &terms);
    Result<std::vector<float>> from_terms = embedder_->EmbedTerms(terms);
    ASSERT_TRUE(from_terms.ok()) << from_terms.status().ToString();
    EXPECT_EQ(*from_terms, One(text)) << text;
  }
}

// An embedder that does not embed from terms says so.
// The vectors themselves are fixed: they are stored in every workspace and
// compared with query vectors computed later. Texts with repeated words
// (counted once per term since 9003f1e, with the same result), CJK, a long
// text and an empty one; the digest was computed by the code of cb010c0,
// before that change. Changing it means a new model name ("skald-hash-v2").
TEST_F(HashingEmbedderTest, VectorsAreFixedAcrossReleases) {
  std::string long_text;
  for (int i = 0; i < 300; ++i) {
    long_text += "word" + std::to_string(i % 37) + (i % 5 == 0 ? " insulin " : " resistance ");
  }
  const std::vector<std::string> texts = {
      "the fox jumps over the lazy dog; the fox jumps again, fox and dog",
      "Insulin resistance in mice: insulin resistance, DNA repair and mRNA repair",
      "\xE7\xB3\x96\xE5\xB0\xBF\xE7\x97\x85 \xE7\xB3\x96\xE5\xB0\xBF "
      "diabetes \xE6\x95\xB0\xE6\x8D\xAE\xE5\xBA\x93",
      long_text,
      "",
  };
  Result<std::vector<std::vector<float>>> out = embedder_->Embed(texts);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::string bytes;
  for (const std::vector<float>& v : *out) {
    bytes.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  }
  EXPECT_EQ(Sha256Hex(bytes), "c2aa6be41168762a6884cb3d18920ce780afc6be964d1d0a702de426d7c63296");
}

TEST(EmbedderTest, EmbedTermsIsRefusedWithoutADocumentTokenizer) {
  class Plain final : public Embedder {
   public:
    std::string provider() const override { return "plain"; }
    std::string model() const override { return "m"; }
    int Dimension() const override { return 2; }
    Result<std::vector<std::vector<float>>> Embed(std::span<const std::string> texts,
                                                  EmbedKind) override {
      return std::vector<std::vector<float>>(texts.size(), std::vector<float>{1, 0});
    }
  } plain;
  EXPECT_EQ(plain.document_tokenizer(), nullptr);
  EXPECT_EQ(plain.EmbedTerms(TermList("t", 0)).status().code(), StatusCode::kFailedPrecondition);
}

TEST(HashingEmbedderOptionsTest, DimensionIsConfigurableAndChecked) {
  HashingEmbedderOptions options;
  options.dimension = 64;
  Result<std::unique_ptr<Embedder>> small = NewDefaultHashingEmbedder(options);
  ASSERT_TRUE(small.ok());
  std::vector<std::string> texts = {"some words here"};
  EXPECT_EQ((*(*small)->Embed(texts))[0].size(), 64u);
  EXPECT_EQ((*small)->Name().substr((*small)->Name().size() - 3), ":64");
  options.dimension = 8;
  EXPECT_FALSE(NewDefaultHashingEmbedder(options).ok());
}

TEST(FeatureHashTest, ValuesAreFixedAcrossPlatformsAndReleases) {
  // Changing these values changes every stored hashing vector: bump the
  // embedder's model name ("skald-hash-v2") if you must.
  EXPECT_NE(FeatureHash("a", 1), FeatureHash("a", 2));
  EXPECT_NE(FeatureHash("abcdefgh", 0), FeatureHash("abcdefgi", 0));
  EXPECT_EQ(FeatureHash("", 0), 0x73f5497ae8b637b3ull);
  EXPECT_EQ(FeatureHash("rotate", 7), 0x25c9b21f0d4ac737ull);
  EXPECT_EQ(FeatureHash("a longer feature text", 42), 0x871288340b57009bull);
}

}  // namespace
}  // namespace skald
