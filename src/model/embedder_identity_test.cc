#include "model/embedder_identity.h"

#include <gtest/gtest.h>

#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

class StubEmbedder final : public Embedder {
 public:
  StubEmbedder(std::string provider, std::string model, int dim)
      : provider_(std::move(provider)), model_(std::move(model)), dim_(dim) {}
  std::string provider() const override { return provider_; }
  std::string model() const override { return model_; }
  int Dimension() const override { return dim_; }
  Result<std::vector<std::vector<float>>> Embed(std::span<const std::string> texts,
                                                EmbedKind) override {
    return std::vector<std::vector<float>>(texts.size(), std::vector<float>(dim_, 0.0f));
  }

 private:
  std::string provider_, model_;
  int dim_;
};

class EmbedderIdentityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CatalogOptions options;
    options.path = dir_.Sub("skald.db");
    options.sync = false;
    Result<std::unique_ptr<Catalog>> opened = Catalog::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    catalog_ = std::move(opened).value();
  }
  // A vector made by the recorded embedder.
  void AddRecord() {
    Record r;
    r.id = "r1";
    r.uri = "viking://resources/a";
    r.parent_uri = "viking://resources";
    r.context_type = ContextType::kResource;
    r.vector = {1, 0};
    std::vector<Record> records = {r};
    ASSERT_TRUE(catalog_->UpsertRecords("default", &records).ok());
  }

  testing::TempDir dir_;
  std::unique_ptr<Catalog> catalog_;
};

TEST_F(EmbedderIdentityTest, FirstOpenRecordsThenSameIdentityPasses) {
  StubEmbedder hashing("hashing", "skald-hash-v1[x]", 512);
  Result<EmbedderCheck> first = CheckEmbedderIdentity(*catalog_, hashing, false, "ws");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, EmbedderCheck::kRecorded);
  Result<std::optional<std::string>> stored = catalog_->GetMeta(kEmbedderMetaKey);
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ(**stored, R"({"dimension":512,"model":"skald-hash-v1[x]","provider":"hashing"})");
  Result<EmbedderCheck> again = CheckEmbedderIdentity(*catalog_, hashing, false, "ws");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, EmbedderCheck::kUnchanged);
}

TEST_F(EmbedderIdentityTest, WithoutVectorsAnotherEmbedderIsSimplyRecorded) {
  StubEmbedder hashing("hashing", "skald-hash-v1[x]", 512);
  StubEmbedder openai("openai", "text-embedding-3-small", 1536);
  ASSERT_TRUE(CheckEmbedderIdentity(*catalog_, hashing, false, "ws").ok());
  Result<EmbedderCheck> check = CheckEmbedderIdentity(*catalog_, openai, false, "ws");
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_EQ(*check, EmbedderCheck::kRecorded);
  EXPECT_EQ(*CheckEmbedderIdentity(*catalog_, openai, false, "ws"), EmbedderCheck::kUnchanged);
}

TEST_F(EmbedderIdentityTest, DifferentIdentityIsRefusedWithAReindexHint) {
  StubEmbedder hashing("hashing", "skald-hash-v1[x]", 512);
  ASSERT_TRUE(CheckEmbedderIdentity(*catalog_, hashing, false, "ws").ok());
  AddRecord();
  for (const StubEmbedder& other : {StubEmbedder("openai", "text-embedding-3-small", 1536),
                                    StubEmbedder("hashing", "skald-hash-v1[x]", 256),
                                    StubEmbedder("hashing", "skald-hash-v2[x]", 512)}) {
    Result<EmbedderCheck> check = CheckEmbedderIdentity(*catalog_, other, false, "/data/ws");
    ASSERT_FALSE(check.ok());
    EXPECT_EQ(check.status().code(), StatusCode::kFailedPrecondition);
    const std::string& msg = check.status().message();
    // The workspace's host path goes to the log, not into the error.
    EXPECT_EQ(msg.find("/data/ws"), std::string::npos) << msg;
    EXPECT_NE(msg.find("provider=hashing model=skald-hash-v1[x] dimension=512"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find(EmbedderIdentity::Of(other).Describe()), std::string::npos) << msg;
    EXPECT_NE(msg.find("reindex"), std::string::npos) << msg;
  }
  // Nothing was changed by the refusals.
  EXPECT_EQ(*CheckEmbedderIdentity(*catalog_, hashing, false, "ws"), EmbedderCheck::kUnchanged);
}

TEST_F(EmbedderIdentityTest, AllowedReindexReplacesIdentityAndRecordsTheOldOne) {
  StubEmbedder hashing("hashing", "skald-hash-v1[x]", 512);
  StubEmbedder openai("openai", "text-embedding-3-small", 1536);
  ASSERT_TRUE(CheckEmbedderIdentity(*catalog_, hashing, false, "ws").ok());
  AddRecord();
  Result<EmbedderCheck> switched = CheckEmbedderIdentity(*catalog_, openai, true, "ws");
  ASSERT_TRUE(switched.ok()) << switched.status().ToString();
  EXPECT_EQ(*switched, EmbedderCheck::kReindexRequired);
  Result<std::optional<std::string>> from = catalog_->GetMeta(kEmbedderReindexMetaKey);
  ASSERT_TRUE(from.ok() && from->has_value());
  EXPECT_EQ(*EmbedderIdentity::FromJson(**from), EmbedderIdentity::Of(hashing));
  EXPECT_EQ(*CheckEmbedderIdentity(*catalog_, openai, false, "ws"), EmbedderCheck::kUnchanged);
}

TEST_F(EmbedderIdentityTest, CorruptStoredIdentityIsReported) {
  ASSERT_TRUE(catalog_->SetMeta(kEmbedderMetaKey, "not json").ok());
  StubEmbedder hashing("hashing", "m", 512);
  Result<EmbedderCheck> check = CheckEmbedderIdentity(*catalog_, hashing, true, "ws");
  ASSERT_FALSE(check.ok());
  EXPECT_EQ(check.status().code(), StatusCode::kCorruption);
}

TEST_F(EmbedderIdentityTest, UnconfiguredOpenUsesTheWorkspacesOwnEmbedder) {
  // New workspace: the 512-dimension hashing embedder.
  Result<std::unique_ptr<Embedder>> fresh = EmbedderForUnconfiguredOpen(*catalog_);
  ASSERT_TRUE(fresh.ok() && *fresh);
  EXPECT_EQ((*fresh)->provider(), "hashing");
  EXPECT_EQ((*fresh)->Dimension(), 512);
  ASSERT_TRUE(CheckEmbedderIdentity(*catalog_, **fresh, false, "ws").ok());

  // A hashing workspace made with another dimension keeps it.
  EmbedderIdentity hashing256 = EmbedderIdentity::Of(**fresh);
  hashing256.dimension = 256;
  ASSERT_TRUE(catalog_->SetMeta(kEmbedderMetaKey, hashing256.ToJson()).ok());
  Result<std::unique_ptr<Embedder>> reopened = EmbedderForUnconfiguredOpen(*catalog_);
  ASSERT_TRUE(reopened.ok() && *reopened);
  EXPECT_EQ((*reopened)->Dimension(), 256);
  EXPECT_EQ(*CheckEmbedderIdentity(*catalog_, **reopened, false, "ws"), EmbedderCheck::kUnchanged);

  // A workspace embedded by a remote model opens without an embedder.
  StubEmbedder openai("openai", "text-embedding-3-small", 1536);
  ASSERT_TRUE(catalog_->SetMeta(kEmbedderMetaKey, EmbedderIdentity::Of(openai).ToJson()).ok());
  Result<std::unique_ptr<Embedder>> none = EmbedderForUnconfiguredOpen(*catalog_);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
}

}  // namespace
}  // namespace skald
