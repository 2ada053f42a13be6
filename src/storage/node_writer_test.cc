#include "storage/node_writer.h"

#include <gtest/gtest.h>

#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

class NodeWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    content_ = std::move(NewLocalContentStore({dir_.Sub("content"), dir_.Sub("trash"), true}))
                   .value();
    catalog_ = std::move(Catalog::Open({dir_.Sub("skald.db")})).value();
    ASSERT_TRUE(content_->MakeDir("a", "").ok());
    writer_ = std::make_unique<NodeWriter>(content_.get(), catalog_.get());
  }
  static VikingUri Uri(const std::string& path) {
    return std::move(VikingUri::Parse("viking://" + path)).value();
  }
  // True when `path` is a directory in both the content store and the catalog.
  bool IsDirEverywhere(const std::string& path) {
    auto attr = content_->Stat("a", path);
    auto node = catalog_->Get("a", path);
    return attr.ok() && attr->is_dir && node.ok() && node->has_value() && (*node)->is_dir;
  }

  testing::TempDir dir_;
  std::unique_ptr<ContentStore> content_;
  std::unique_ptr<Catalog> catalog_;
  std::unique_ptr<NodeWriter> writer_;
  Identity who_{"a", "u", Role::kRoot};
};

TEST_F(NodeWriterTest, EnsuresManyDirectoriesAndTheirAncestorsInOneCall) {
  ASSERT_TRUE(writer_->EnsureDirectories(who_, Uri("resources/old"), true).ok());
  // In any order, with ancestors left implicit and one directory twice.
  std::vector<VikingUri> dirs = {Uri("resources/x/y/z"), Uri("resources/old"),
                                 Uri("resources/x"), Uri("resources/w"), Uri("resources/x/y/z")};
  Status made = writer_->EnsureDirectories(who_, dirs);
  ASSERT_TRUE(made.ok()) << made.ToString();
  for (const char* path : {"resources", "resources/old", "resources/x", "resources/x/y",
                           "resources/x/y/z", "resources/w"}) {
    EXPECT_TRUE(IsDirEverywhere(path)) << path;
  }
  auto subtree = catalog_->ListSubtree("a", "resources", 0);
  ASSERT_TRUE(subtree.ok());
  EXPECT_EQ(subtree->size(), 5u);  // old, x, x/y, x/y/z, w: none recorded twice
  EXPECT_FALSE(writer_->needs_recovery());
}

TEST_F(NodeWriterTest, AFileInTheWayIsRefusedBeforeAnythingIsMade) {
  ASSERT_TRUE(writer_->EnsureDirectories(who_, Uri("resources"), true).ok());
  auto stored = writer_->StoreFile(who_, Uri("resources/f"), "bytes", std::nullopt);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  std::vector<VikingUri> dirs = {Uri("resources/a"), Uri("resources/f/b")};
  Status made = writer_->EnsureDirectories(who_, dirs);
  EXPECT_EQ(made.code(), StatusCode::kFailedPrecondition) << made.ToString();
  EXPECT_NE(made.message().find("viking://resources/f"), std::string::npos) << made.message();
  EXPECT_FALSE(content_->Stat("a", "resources/a").ok());  // checked first, made after
  EXPECT_FALSE(writer_->needs_recovery());
}

TEST_F(NodeWriterTest, IncludeSelfFalseStopsAtTheParent) {
  ASSERT_TRUE(writer_->EnsureDirectories(who_, Uri("resources/p/leaf.md"), false).ok());
  EXPECT_TRUE(IsDirEverywhere("resources/p"));
  EXPECT_FALSE(content_->Stat("a", "resources/p/leaf.md").ok());
}

}  // namespace
}  // namespace skald
