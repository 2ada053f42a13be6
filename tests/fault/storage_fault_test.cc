// Fault suite for the file layer below the Db: the content store and the
// vector index files, with an ENOSPC, EIO or failed fsync injected at every
// step. A failed call leaves the old state or the new one (never a mix),
// names no host path, and the next call after the fault clears succeeds.

#include <gtest/gtest.h>

#include <string>

#include "common/env.h"
#include "common/file_util.h"
#include "index/index_file.h"
#include "storage/content_store.h"
#include "storage/disk_reserve.h"
#include "tests/testutil/fault_injection_env.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

using testing::FaultInjectionEnv;
using testing::FaultOp;

using testing::FaultKind;
using testing::kWritePathFaults;

class StorageFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LocalContentStoreOptions options;
    options.root = dir_.Sub("content");
    options.trash_dir = dir_.Sub("trash");
    options.env = &env_;
    auto store = NewLocalContentStore(options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    ASSERT_TRUE(store_->MakeDir("acct", "").ok());
  }

  // Checks a failed call's status: clear, no path, disk full when ENOSPC.
  void ExpectClearError(const Status& st, const FaultKind& fault, const std::string& context) {
    EXPECT_EQ(st.message().find(dir_.path()), std::string::npos)
        << context << ": names a host path: " << st.message();
    if (fault.error == FaultInjectionEnv::Error::kNoSpace) {
      EXPECT_TRUE(IsDiskFull(st)) << context << ": " << st.ToString();
      EXPECT_NE(st.message().find("disk full"), std::string::npos) << context;
    } else {
      EXPECT_EQ(st.code(), StatusCode::kIOError) << context << ": " << st.ToString();
    }
  }

  // No temporary file is visible to a scan.
  void ExpectNoTemporaries(const std::string& context) {
    auto entries = store_->Scan("acct");
    ASSERT_TRUE(entries.ok());
    for (const ContentEntry& e : *entries) {
      EXPECT_EQ(e.path.find(".skald-tmp"), std::string::npos) << context << ": " << e.path;
    }
  }

  testing::TempDir dir_;
  FaultInjectionEnv env_;
  std::unique_ptr<ContentStore> store_;
};

TEST_F(StorageFaultTest, WriteFileIsOldOrNewAtEveryFault) {
  ASSERT_TRUE(store_->WriteFile("acct", "f.md", "old bytes").ok());
  for (const FaultKind& fault : kWritePathFaults) {
    int hits = 0;
    for (int n = 1; n < 32; ++n) {
      std::string context = std::string(fault.name) + " at step " + std::to_string(n);
      uint64_t before = env_.injected();
      env_.FailNth(fault.op, static_cast<uint64_t>(n), fault.error);
      Result<ContentAttr> written = store_->WriteFile("acct", "f.md", "new bytes");
      bool hit = env_.injected() > before;
      env_.Clear();
      Result<std::string> now = store_->ReadFile("acct", "f.md");
      ASSERT_TRUE(now.ok()) << context;
      if (written.ok()) {
        EXPECT_EQ(*now, "new bytes") << context;
      } else {
        ++hits;
        ExpectClearError(written.status(), fault, context);
        EXPECT_TRUE(*now == "old bytes" || *now == "new bytes") << context << ": " << *now;
        // Only a failure after the rename may leave the new bytes, and it says so.
        if (*now == "new bytes") {
          EXPECT_TRUE(ContentChangedDespiteError(written.status()));
        }
      }
      ExpectNoTemporaries(context);
      ASSERT_TRUE(store_->WriteFile("acct", "f.md", "old bytes").ok()) << context;
      if (!hit) break;
    }
    EXPECT_GT(hits, 0) << fault.name << " never reached the write path";
  }
}

TEST_F(StorageFaultTest, MakeDirRenameRemoveRecoverAfterFaults) {
  for (const FaultKind& fault : kWritePathFaults) {
    for (int n = 1; n < 16; ++n) {
      std::string context = std::string(fault.name) + " at step " + std::to_string(n);
      ASSERT_TRUE(store_->WriteFile("acct", "a.md", "a").ok());
      uint64_t before = env_.injected();
      env_.FailNth(fault.op, static_cast<uint64_t>(n), fault.error);
      Status made = store_->MakeDir("acct", "dir");
      Status moved = made.ok() ? store_->Rename("acct", "a.md", "dir/a.md") : made;
      Status removed = moved.ok() ? store_->Remove("acct", "dir") : moved;
      bool hit = env_.injected() > before;
      env_.Clear();
      if (!removed.ok()) ExpectClearError(removed, fault, context);
      // After the fault the same steps complete, from wherever the failure left them.
      ASSERT_TRUE(store_->MakeDir("acct", "dir").ok()) << context;
      if (store_->Stat("acct", "a.md").ok()) {
        ASSERT_TRUE(store_->Rename("acct", "a.md", "dir/a.md").ok()) << context;
      }
      ASSERT_TRUE(store_->Remove("acct", "dir").ok()) << context;
      EXPECT_FALSE(store_->Stat("acct", "dir").ok()) << context;
      ExpectNoTemporaries(context);
      if (!hit) break;
    }
  }
}

// MakeDirs through a failing Env: a clear error, and the same call made
// again afterwards completes from wherever the failure left it.
TEST_F(StorageFaultTest, MakeDirsCompletesAfterAFault) {
  const std::vector<std::string> paths = {"t", "t/a", "t/a/b", "t/c"};
  for (const FaultKind& fault : kWritePathFaults) {
    for (int n = 1; n < 16; ++n) {
      std::string context = std::string(fault.name) + " at step " + std::to_string(n);
      uint64_t before = env_.injected();
      env_.FailNth(fault.op, static_cast<uint64_t>(n), fault.error);
      Status made = store_->MakeDirs("acct", paths);
      bool hit = env_.injected() > before;
      env_.Clear();
      if (!made.ok()) ExpectClearError(made, fault, context);
      ASSERT_TRUE(store_->MakeDirs("acct", paths).ok()) << context;
      for (const std::string& path : paths) {
        auto attr = store_->Stat("acct", path);
        ASSERT_TRUE(attr.ok() && attr->is_dir) << context << ": " << path;
      }
      ASSERT_TRUE(store_->Remove("acct", "t").ok()) << context;
      if (!hit) break;
    }
  }
}

// Index save: a failed save leaves the previous file loadable and no
// temporary file behind.
Status WriteIndexFile(const std::string& path, Env* env, uint64_t value) {
  SKALD_ASSIGN_OR_RETURN(auto w, FileWriter::Create(path, env));
  w->BeginSection(SectionTag("DATA"));
  w->PutU64(value);
  std::string big(3 << 20, 'x');  // over the writer's buffer: a patched length on disk
  w->PutBytes(big.data(), big.size());
  SKALD_RETURN_IF_ERROR(w->EndSection());
  return w->Commit();
}

Result<uint64_t> ReadIndexFile(const std::string& path) {
  SKALD_ASSIGN_OR_RETURN(auto r, FileReader::Open(path));
  SKALD_RETURN_IF_ERROR(r->BeginSection(SectionTag("DATA")));
  uint64_t value = 0;
  SKALD_RETURN_IF_ERROR(r->GetU64(&value));
  std::string rest(r->remaining(), '\0');
  SKALD_RETURN_IF_ERROR(r->GetBytes(rest.data(), rest.size()));
  SKALD_RETURN_IF_ERROR(r->EndSection());
  SKALD_RETURN_IF_ERROR(r->Finish());
  return value;
}

TEST_F(StorageFaultTest, IndexSaveKeepsThePreviousFileAtEveryFault) {
  std::string path = dir_.Sub("index.bin");
  ASSERT_TRUE(WriteIndexFile(path, &env_, 1).ok());
  for (const FaultKind& fault : kWritePathFaults) {
    for (int n = 1; n < 32; ++n) {
      std::string context = std::string(fault.name) + " at step " + std::to_string(n);
      uint64_t before = env_.injected();
      env_.FailNth(fault.op, static_cast<uint64_t>(n), fault.error);
      Status saved = WriteIndexFile(path, &env_, 2);
      bool hit = env_.injected() > before;
      env_.Clear();
      Result<uint64_t> value = ReadIndexFile(path);
      ASSERT_TRUE(value.ok()) << context << ": " << value.status().ToString();
      if (saved.ok()) {
        EXPECT_EQ(*value, 2u) << context;
      } else {
        ExpectClearError(saved, fault, context);
        EXPECT_TRUE(*value == 1u || *value == 2u) << context;
      }
      EXPECT_FALSE(Env::Default()->Stat(path + ".tmp").ok()) << context << ": temp left";
      ASSERT_TRUE(WriteIndexFile(path, &env_, 1).ok()) << context;
      if (!hit) break;
    }
  }
}

TEST_F(StorageFaultTest, UploadWriteIsAtomicAtEveryFault) {
  std::string path = dir_.Sub("upload.bin");
  ASSERT_TRUE(WriteFileAtomically(&env_, path, "old").ok());
  for (const FaultKind& fault : kWritePathFaults) {
    for (int n = 1; n < 16; ++n) {
      std::string context = std::string(fault.name) + " at step " + std::to_string(n);
      uint64_t before = env_.injected();
      env_.FailNth(fault.op, static_cast<uint64_t>(n), fault.error);
      Status st = WriteFileAtomically(&env_, path, "new");
      bool hit = env_.injected() > before;
      env_.Clear();
      Result<std::string> now = ReadFileToString(Env::Default(), path);
      ASSERT_TRUE(now.ok());
      EXPECT_EQ(*now, st.ok() ? "new" : "old") << context;
      if (!st.ok()) ExpectClearError(st, fault, context);
      auto names = Env::Default()->ListDir(dir_.path());
      ASSERT_TRUE(names.ok());
      for (const std::string& name : *names) {
        EXPECT_EQ(name.find(".skald-tmp"), std::string::npos) << context << ": " << name;
      }
      ASSERT_TRUE(WriteFileAtomically(&env_, path, "old").ok());
      if (!hit) break;
    }
  }
}

// The disk reserve: a full disk releases it, writes are refused until space
// is back, and then it is made again.
TEST_F(StorageFaultTest, DiskReserveIsReleasedOnAFullDiskAndRemadeWhenSpaceReturns) {
  DiskReserve reserve(&env_, dir_.Sub("reserve"), 256 << 10);
  ASSERT_TRUE(reserve.Refill().ok());
  EXPECT_TRUE(reserve.in_place());
  LocalContentStoreOptions options;
  options.root = dir_.Sub("content2");
  options.trash_dir = dir_.Sub("trash2");
  options.env = &env_;
  options.reserve = &reserve;
  auto store = NewLocalContentStore(options);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->MakeDir("acct", "").ok());

  env_.FillAfter(100 << 10);  // 100 KiB left
  std::string chunk(40 << 10, 'x');
  Status st;
  int written = 0;
  for (; written < 10; ++written) {
    st = (*store)->WriteFile("acct", "f" + std::to_string(written), chunk).status();
    if (!st.ok()) break;
  }
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(IsDiskFull(st)) << st.ToString();
  EXPECT_FALSE(reserve.in_place()) << "the write that found the disk full released the reserve";
  // Writes stay refused while space is short, even though the reserve's
  // bytes are free now: they are kept for deletions.
  Status refused = (*store)->WriteFile("acct", "g", "small").status();
  EXPECT_TRUE(IsDiskFull(refused)) << refused.ToString();
  // Deleting frees space; the next write re-makes the reserve and proceeds.
  for (int i = 0; i < written; ++i) {
    ASSERT_TRUE((*store)->Remove("acct", "f" + std::to_string(i)).ok());
  }
  env_.Clear();
  EXPECT_TRUE((*store)->WriteFile("acct", "g", "small").ok());
  EXPECT_TRUE(reserve.in_place());
}

}  // namespace
}  // namespace skald
