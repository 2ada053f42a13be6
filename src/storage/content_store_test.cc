#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/hash.h"
#include "storage/content_store.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

class ContentStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = NewLocalContentStore({dir_.Sub("content"), dir_.Sub("trash"), true});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    ASSERT_TRUE(store_->MakeDir("acct", "").ok());
    ASSERT_TRUE(store_->MakeDir("acct", "resources").ok());
  }
  testing::TempDir dir_;
  std::unique_ptr<ContentStore> store_;
};

TEST_F(ContentStoreTest, WriteReadReplace) {
  auto attr = store_->WriteFile("acct", "resources/a.md", "hello");
  ASSERT_TRUE(attr.ok()) << attr.status().ToString();
  EXPECT_EQ(attr->size, 5u);
  EXPECT_EQ(*store_->ReadFile("acct", "resources/a.md"), "hello");
  ASSERT_TRUE(store_->WriteFile("acct", "resources/a.md", "bye").ok());
  EXPECT_EQ(*store_->ReadFile("acct", "resources/a.md"), "bye");
  // The bytes are ordinary files under <root>/<account>/.
  std::ifstream in(dir_.Sub("content/acct/resources/a.md"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "bye");
}

TEST_F(ContentStoreTest, WriteFilesWritesABatchInOrder) {
  ASSERT_TRUE(store_->MakeDir("acct", "resources/d").ok());
  ASSERT_TRUE(store_->WriteFile("acct", "resources/old.md", "old bytes").ok());
  // More files than one chunk of open descriptors, over two directories.
  std::vector<std::string> paths;
  std::vector<std::string> bodies;
  for (int i = 0; i < 300; ++i) {
    paths.push_back(i == 0 ? "resources/old.md"
                           : (i % 2 ? "resources/d/f" : "resources/f") + std::to_string(i) + ".md");
    bodies.push_back(std::string(static_cast<size_t>(i + 1), 'x'));
  }
  std::vector<ContentStore::FileWrite> writes;
  for (size_t i = 0; i < paths.size(); ++i) writes.push_back({paths[i], bodies[i]});
  auto attrs = store_->WriteFiles("acct", writes);
  ASSERT_TRUE(attrs.ok()) << attrs.status().ToString();
  ASSERT_EQ(attrs->size(), paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    EXPECT_EQ((*attrs)[i].size, bodies[i].size()) << paths[i];
    EXPECT_EQ(*store_->ReadFile("acct", paths[i]), bodies[i]) << paths[i];
  }
  // No temporary file is left behind.
  auto scan = store_->Scan("acct");
  ASSERT_TRUE(scan.ok());
  EXPECT_EQ(scan->size(), 2u + paths.size());  // resources, resources/d, the files
  auto left = store_->CleanLeftovers();
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(*left, 0u);
}

TEST_F(ContentStoreTest, WriteFilesFailsCleanlyWhenADirectoryIsMissing) {
  std::vector<ContentStore::FileWrite> writes = {{"resources/a.md", "a"},
                                                 {"resources/missing/b.md", "b"}};
  auto attrs = store_->WriteFiles("acct", writes);
  EXPECT_FALSE(attrs.ok());
  // Nothing of the batch became visible (the failure came before the renames).
  EXPECT_EQ(store_->ReadFile("acct", "resources/a.md").status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(ContentChangedDespiteError(attrs.status()));
  auto left = store_->CleanLeftovers();
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(*left, 0u);
}

TEST_F(ContentStoreTest, MakeDirsMakesEachDirectoryAndKeepsExistingOnes) {
  ASSERT_TRUE(store_->MakeDir("acct", "resources/old").ok());
  std::vector<std::string> paths = {"resources/old", "resources/a", "resources/a/b",
                                    "resources/a/b/c", "resources/z"};
  ASSERT_TRUE(store_->MakeDirs("acct", paths).ok());
  for (const std::string& path : paths) {
    auto attr = store_->Stat("acct", path);
    ASSERT_TRUE(attr.ok()) << path;
    EXPECT_TRUE(attr->is_dir) << path;
  }
  // Again: nothing to do, still Ok.
  EXPECT_TRUE(store_->MakeDirs("acct", paths).ok());
}

TEST_F(ContentStoreTest, MakeDirsRefusesAFileInTheWay) {
  ASSERT_TRUE(store_->WriteFile("acct", "resources/f", "x").ok());
  std::vector<std::string> paths = {"resources/a", "resources/f", "resources/g"};
  Status made = store_->MakeDirs("acct", paths);
  EXPECT_EQ(made.code(), StatusCode::kAlreadyExists) << made.ToString();
  EXPECT_EQ(made.message().find(dir_.path()), std::string::npos) << made.message();
  // The directory made before the failure is there, and the status says so.
  EXPECT_TRUE(ContentChangedDespiteError(made));
  EXPECT_TRUE(store_->Stat("acct", "resources/a").ok());
  EXPECT_FALSE(store_->Stat("acct", "resources/g").ok());
  EXPECT_EQ(*store_->ReadFile("acct", "resources/f"), "x");
}

TEST_F(ContentStoreTest, MakeDirsWithAMissingParentFailsWithoutAChange) {
  std::vector<std::string> paths = {"resources/missing/child"};
  Status made = store_->MakeDirs("acct", paths);
  EXPECT_FALSE(made.ok());
  EXPECT_FALSE(ContentChangedDespiteError(made));
  EXPECT_EQ(made.message().find(dir_.path()), std::string::npos) << made.message();
}

TEST_F(ContentStoreTest, ReadErrors) {
  EXPECT_EQ(store_->ReadFile("acct", "resources/none").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->ReadFile("acct", "resources").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->WriteFile("acct", "resources/missing/x.md", "x").status().code(),
            StatusCode::kNotFound);
}

TEST_F(ContentStoreTest, RenameRefusesToOverwrite) {
  ASSERT_TRUE(store_->WriteFile("acct", "resources/a", "1").ok());
  ASSERT_TRUE(store_->WriteFile("acct", "resources/b", "2").ok());
  EXPECT_EQ(store_->Rename("acct", "resources/a", "resources/b").code(),
            StatusCode::kAlreadyExists);
  ASSERT_TRUE(store_->Rename("acct", "resources/a", "resources/c").ok());
  EXPECT_EQ(*store_->ReadFile("acct", "resources/c"), "1");
}

TEST_F(ContentStoreTest, RemoveTreeIsIdempotent) {
  ASSERT_TRUE(store_->MakeDir("acct", "resources/d").ok());
  ASSERT_TRUE(store_->WriteFile("acct", "resources/d/x", "x").ok());
  ASSERT_TRUE(store_->Remove("acct", "resources/d").ok());
  EXPECT_EQ(store_->Stat("acct", "resources/d").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(store_->Remove("acct", "resources/d").ok());
  EXPECT_TRUE(std::filesystem::is_empty(dir_.Sub("trash")));
}

TEST_F(ContentStoreTest, ShortensLongSegments) {
  std::string long_name(300, 'a');
  std::string stored = StoredSegmentName(long_name);
  EXPECT_LE(stored.size(), 255u);
  EXPECT_TRUE(IsShortenedSegmentName(stored));
  EXPECT_NE(stored, StoredSegmentName(std::string(301, 'a')));
  EXPECT_EQ(StoredSegmentName("short"), "short");
  EXPECT_FALSE(IsShortenedSegmentName("short"));
  EXPECT_EQ(StoredSegmentName(std::string(255, 'b')), std::string(255, 'b'));
  ASSERT_TRUE(store_->WriteFile("acct", "resources/" + long_name, "x").ok());
  EXPECT_EQ(*store_->ReadFile("acct", "resources/" + long_name), "x");
  // A multi-byte name is cut on a character boundary (1 marker + 32 hex).
  std::string cjk;
  for (int i = 0; i < 100; ++i) cjk += "中";
  std::string cut = StoredSegmentName(cjk);
  EXPECT_LE(cut.size(), 255u);
  EXPECT_EQ((cut.size() - 33) % 3, 0u);
}

TEST_F(ContentStoreTest, ShortenedNamesNeverAliasOtherSegments) {
  // The shortened name of a long segment, and every name that looks like one
  // (the old "<prefix>_<8 hex>" form, or the long segment cut to 255 bytes),
  // are different files.
  std::string long_name(300, 'a');
  std::string stored = StoredSegmentName(long_name);
  std::string old_form = std::string(246, 'a') + "_" + Sha256Hex(long_name).substr(0, 8);
  std::string cut = long_name.substr(0, 255);
  ASSERT_TRUE(store_->WriteFile("acct", "resources/" + long_name, "long").ok());
  ASSERT_TRUE(store_->WriteFile("acct", "resources/" + old_form, "old form").ok());
  ASSERT_TRUE(store_->WriteFile("acct", "resources/" + cut, "cut").ok());
  EXPECT_EQ(*store_->ReadFile("acct", "resources/" + long_name), "long");
  EXPECT_EQ(*store_->ReadFile("acct", "resources/" + old_form), "old form");
  EXPECT_EQ(*store_->ReadFile("acct", "resources/" + cut), "cut");
  auto scan = store_->Scan("acct");
  ASSERT_TRUE(scan.ok());
  EXPECT_EQ(scan->size(), 4u);  // resources and three files
  // A shortened name is never the stored name of a segment: segments hold no
  // marker, and names of up to 255 bytes are stored as themselves.
  EXPECT_NE(stored.find(kShortenedSegmentMarker), std::string::npos);
  EXPECT_NE(StoredSegmentName(old_form), stored);
  EXPECT_NE(StoredSegmentName(cut), stored);
}

TEST_F(ContentStoreTest, ScanSkipsTempFilesAndCleanLeftoversRemovesThem) {
  ASSERT_TRUE(store_->WriteFile("acct", "resources/a", "1").ok());
  std::ofstream(dir_.Sub("content/acct/resources/.skald-tmp.a.123")) << "partial";
  std::filesystem::create_directories(dir_.Sub("trash/xyz/sub"));
  auto scan = store_->Scan("acct");
  ASSERT_TRUE(scan.ok());
  ASSERT_EQ(scan->size(), 2u);  // resources, resources/a
  EXPECT_EQ((*scan)[0].path, "resources");
  EXPECT_EQ((*scan)[1].path, "resources/a");
  auto removed = store_->CleanLeftovers();
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, 2u);
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("content/acct/resources/.skald-tmp.a.123")));
}

}  // namespace
}  // namespace skald
