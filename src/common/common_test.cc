#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>

#include "common/env.h"
#include "common/hash.h"
#include "common/json_util.h"
#include "common/strings.h"
#include "common/time_util.h"
#include "skald/result.h"

namespace skald {
namespace {

TEST(EnvTest, FullDiskIsDiskFullAndNoErrorNamesThePath) {
  EXPECT_TRUE(IsDiskFull(ErrnoToStatus("write", ENOSPC)));
  EXPECT_TRUE(IsDiskFull(ErrnoToStatus("write", EDQUOT)));
  EXPECT_NE(ErrnoToStatus("write", ENOSPC).message().find("disk full"), std::string::npos);
  EXPECT_EQ(ErrnoToStatus("write", ENOSPC).code(), StatusCode::kResourceExhausted);
  EXPECT_FALSE(IsDiskFull(ErrnoToStatus("write", EIO)));
  EXPECT_FALSE(IsDiskFull(Status::ResourceExhausted("too many files")));
  EXPECT_EQ(ErrnoToStatus("open", ENOENT).code(), StatusCode::kNotFound);

  Env* env = Env::Default();
  const std::string missing = "/nonexistent-skald-dir/sub/file";
  Result<std::unique_ptr<WritableFile>> file = env->NewWritableFile(missing);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(file.status().message().find("nonexistent-skald-dir"), std::string::npos)
      << file.status().message();
  EXPECT_FALSE(env->Stat(missing).ok());
  EXPECT_TRUE(env->RemoveTree(missing).ok());  // nothing to remove is fine
}

TEST(EnvTest, PosixEnvWritesRenamesListsAndRemoves) {
  Env* env = Env::Default();
  char templ[] = "/tmp/skald-env-test-XXXXXX";
  ASSERT_NE(::mkdtemp(templ), nullptr);
  const std::string dir = templ;
  ASSERT_TRUE(env->CreateDirs(dir + "/a/b").ok());
  auto file = env->NewWritableFile(dir + "/a/b/f");
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->Append("hello world").ok());
  ASSERT_TRUE((*file)->WriteAt(0, "HELLO").ok());
  ASSERT_TRUE((*file)->Sync().ok());
  ASSERT_TRUE((*file)->Close().ok());
  Result<std::string> read = ReadFileToString(env, dir + "/a/b/f");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, "HELLO world");
  ASSERT_TRUE(env->SyncDir(dir + "/a/b").ok());
  ASSERT_TRUE(env->RenameNoReplace(dir + "/a/b/f", dir + "/a/g").ok());
  auto again = env->NewWritableFile(dir + "/a/h");
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE((*again)->Close().ok());
  EXPECT_EQ(env->RenameNoReplace(dir + "/a/h", dir + "/a/g").code(), StatusCode::kAlreadyExists);
  WritableFileOptions exclusive;
  exclusive.exclusive = true;
  EXPECT_EQ(env->NewWritableFile(dir + "/a/g", exclusive).status().code(),
            StatusCode::kAlreadyExists);
  Result<FileInfo> info = env->Stat(dir + "/a/g");
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->is_regular());
  EXPECT_EQ(info->size, 11u);
  Result<std::vector<std::string>> names = env->ListDir(dir + "/a");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(names->size(), 3u);  // b, g, h
  Result<uint64_t> free_bytes = env->FreeSpace(dir);
  ASSERT_TRUE(free_bytes.ok());
  EXPECT_GT(*free_bytes, 0u);
  EXPECT_TRUE(env->RemoveTree(dir).ok());
  EXPECT_EQ(env->Stat(dir).status().code(), StatusCode::kNotFound);
  EXPECT_GE(env->MonotonicNanos(), 0);
}

TEST(StatusTest, CarriesCodeReasonAndDetails) {
  Status s = Status::InvalidArgument("bad").WithReason("INVALID_URI").WithDetail("uri", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.reason(), "INVALID_URI");
  ASSERT_EQ(s.details().size(), 1u);
  EXPECT_EQ(s.details()[0].second, "x");
  EXPECT_EQ(s.ToString(), "invalid_argument: bad");
}

Result<int> Half(int v) {
  if (v % 2) return Status::InvalidArgument("odd");
  return v / 2;
}

Result<int> Quarter(int v) {
  SKALD_ASSIGN_OR_RETURN(int h, Half(v));
  return Half(h);
}

TEST(ResultTest, AssignOrReturnPropagatesErrors) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_EQ(Quarter(6).status().message(), "odd");
  Result<int> from_ok_status(Status::Ok());
  EXPECT_FALSE(from_ok_status.ok());
}

TEST(StringsTest, ValidatesUtf8) {
  EXPECT_TRUE(IsValidUtf8("héllo 中文 🎉"));
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("abc\xE4\xB8"));       // truncated
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // > U+10FFFF
  // A bad or good sequence at every offset of longer ASCII runs (which are
  // read 8 bytes at a time).
  for (size_t at = 0; at < 20; ++at) {
    std::string text(20, 'a');
    EXPECT_TRUE(IsValidUtf8(text));
    text.insert(at, "\xC3\xA9");
    EXPECT_TRUE(IsValidUtf8(text)) << at;
    text.insert(at, "\xC0\xAF");
    EXPECT_FALSE(IsValidUtf8(text)) << at;
    std::string cut(20, 'a');
    cut.insert(at, "\xE4\xB8");
    EXPECT_FALSE(IsValidUtf8(cut)) << at;
  }
}

TEST(StringsTest, ParsesBoolsLikeFastApi) {
  bool b = false;
  EXPECT_TRUE(ParseBool("TRUE", &b));
  EXPECT_TRUE(b);
  EXPECT_TRUE(ParseBool("off", &b));
  EXPECT_FALSE(b);
  EXPECT_FALSE(ParseBool("maybe", &b));
}

TEST(StringsTest, TruncatesOnCodePointBoundary) {
  EXPECT_EQ(TruncateUtf8("中文", 4), "中");
  EXPECT_EQ(Utf8Prefix("中文abc", 3), "中文a");
  EXPECT_EQ(Utf8Length("中文abc"), 5u);
}

TEST(HashTest, KnownVectors) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
}

TEST(TimeTest, FormatsUtc) {
  int64_t t = 1764473521123LL * 1000000;  // 2025-11-30T03:32:01.123Z
  EXPECT_EQ(FormatIsoMillis(t), "2025-11-30T03:32:01.123Z");
  EXPECT_EQ(FormatRfc3339(t), "2025-11-30T03:32:01Z");
}

TEST(JsonTest, MalformedInputIsAnError) {
  EXPECT_FALSE(ParseJson("{\"a\":").ok());
  EXPECT_FALSE(ParseJson("\"\xff\"").ok());
  EXPECT_EQ((*ParseJson("{\"a\":1}"))["a"], 1);
}

}  // namespace
}  // namespace skald
