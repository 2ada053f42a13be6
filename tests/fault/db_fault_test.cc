// Fault suite: every write path of the Db under an injected ENOSPC, EIO or
// failed fsync at every step. For each operation and fault kind the test
// arms the fault at the 1st, 2nd, ... matching file-system call until the
// operation runs without reaching it, and after every attempt checks what a
// user would notice:
//  - a failed call answers a clear error that names no host path (a full
//    disk is ResourceExhausted "disk full");
//  - once the fault is cleared the same operation succeeds;
//  - nothing acknowledged earlier is lost, and after a reopen (which
//    reconciles a workspace marked for recovery) fsck finds nothing wrong.

#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "common/env.h"
#include "common/file_util.h"
#include "skald/db.h"
#include "tests/testutil/fault_injection_env.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

using testing::FaultInjectionEnv;
using testing::FaultOp;

using testing::FaultKind;

// The write-path faults, and a failed removal (rm's trash, upload clean-up).
const std::vector<FaultKind> kFaults = [] {
  std::vector<FaultKind> faults(std::begin(testing::kWritePathFaults),
                                std::end(testing::kWritePathFaults));
  faults.push_back({"remove_eio", FaultOp::kRemove, FaultInjectionEnv::Error::kIo});
  return faults;
}();

// An operation under test; `n` makes its arguments unique per attempt.
// Returns the status and records in `model` what it acknowledged.
using Operation = std::function<Status(Db&, int n, std::map<std::string, std::string>* model)>;

// The operator: these tests are about I/O, not access control.
Identity Root() {
  Identity who;
  who.role = Role::kRoot;
  return who;
}

WriteRequest Req(std::string uri, std::string content, WriteMode mode) {
  WriteRequest request;
  request.uri = std::move(uri);
  request.content = std::move(content);
  request.mode = mode;
  return request;
}

class DbFaultTest : public ::testing::Test {
 protected:
  DbOptions Options() {
    DbOptions options;
    options.workspace = dir_.Sub("ws");
    options.sync_writes = true;  // the fsyncs are steps to fail
    options.background_workers = 0;
    options.env = &env_;
    options.disk_reserve_bytes = 64 << 10;
    return options;
  }
  void Open() {
    db_.reset();
    auto db = Db::Open(Options());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(db).value();
  }

  // Every acknowledged file reads back; fsck after a reopen is clean.
  void ExpectConsistent(const std::string& context) {
    env_.Clear();
    Open();
    ASSERT_TRUE(db_);
    for (const auto& [uri, content] : model_) {
      Result<std::string> got = db_->Read(who_, uri, 0, -1, /*raw=*/true);
      ASSERT_TRUE(got.ok()) << context << ": acknowledged " << uri
                            << " lost: " << got.status().ToString();
      EXPECT_EQ(*got, content) << context << ": " << uri;
    }
    Result<FsckReport> report = db_->Fsck(false);
    ASSERT_TRUE(report.ok()) << context << ": " << report.status().ToString();
    for (const FsckIssue& issue : report->issues) {
      ADD_FAILURE() << context << ": fsck: " << issue.kind << " " << issue.uri << " "
                    << issue.detail;
    }
  }

  // Runs `op` with `fault` armed at step 1, 2, ... until it succeeds
  // without reaching the fault.
  void RunUnderFaults(const std::string& name, const Operation& op) {
    for (const FaultKind& fault : kFaults) {
      SCOPED_TRACE(name + " / " + fault.name);
      for (int n = 1; n < 64; ++n) {
        std::string context = name + " / " + fault.name + " at step " + std::to_string(n);
        uint64_t injected = env_.injected();
        env_.FailNth(fault.op, static_cast<uint64_t>(n), fault.error);
        std::map<std::string, std::string> acknowledged;
        Status st = op(*db_, n, &acknowledged);
        bool hit = env_.injected() > injected;
        env_.Clear();
        if (st.ok()) {
          for (auto& [uri, content] : acknowledged) model_[uri] = content;
          if (!hit) break;  // ran past every step: done with this fault kind
          continue;
        }
        EXPECT_TRUE(hit) << context << ": failed without an injected fault: " << st.ToString();
        EXPECT_EQ(st.message().find(workspace_), std::string::npos)
            << context << ": the error names a host path: " << st.message();
        if (fault.error == FaultInjectionEnv::Error::kNoSpace) {
          EXPECT_TRUE(IsDiskFull(st)) << context << ": " << st.ToString();
          EXPECT_NE(st.message().find("disk full"), std::string::npos) << context;
        }
        // The fault is gone: the same operation now succeeds.
        acknowledged.clear();
        Status again = op(*db_, n, &acknowledged);
        ASSERT_TRUE(again.ok()) << context << ": retry after the fault cleared: "
                                << again.ToString();
        for (auto& [uri, content] : acknowledged) model_[uri] = content;
      }
      ExpectConsistent(name + " / " + fault.name);
    }
  }

  testing::TempDir dir_;
  std::string workspace_ = dir_.Sub("ws");
  FaultInjectionEnv env_;
  Identity who_ = Root();
  std::unique_ptr<Db> db_;
  std::map<std::string, std::string> model_;  // acknowledged uri -> content
};

std::string Uri(const std::string& name, int n) {
  return "viking://resources/f/" + name + std::to_string(n) + ".md";
}

TEST_F(DbFaultTest, CreateWrite) {
  Open();
  RunUnderFaults("create", [](Db& db, int n, auto* model) {
    std::string uri = Uri("c", n);
    std::string content = "created " + std::to_string(n);
    Result<WriteResult> r = db.Write(Root(), Req(uri, content, WriteMode::kCreate));
    if (!r.ok() && r.status().code() == StatusCode::kAlreadyExists) {
      // A failed attempt may have left it after all (fsync after rename):
      // the user replaces it.
      r = db.Write(Root(), Req(uri, content, WriteMode::kReplace));
    }
    if (r.ok()) (*model)[uri] = content;
    return r.status();
  });
}

TEST_F(DbFaultTest, ReplaceAndAppend) {
  Open();
  ASSERT_TRUE(db_->Write(who_, Req(Uri("a", 0), "base", WriteMode::kCreate)).ok());
  model_[Uri("a", 0)] = "base";
  RunUnderFaults("append", [](Db& db, int n, auto* model) {
    std::string uri = Uri("a", 0);
    Result<WriteResult> r =
        db.Write(Root(), Req(uri, "+" + std::to_string(n), WriteMode::kAppend));
    if (!r.ok()) return r.status();
    Result<std::string> now = db.Read(Root(), uri, 0, -1, /*raw=*/true);
    if (!now.ok()) return now.status();
    (*model)[uri] = *now;
    return Status::Ok();
  });
  RunUnderFaults("replace", [](Db& db, int n, auto* model) {
    std::string uri = Uri("a", 0);
    std::string content = "replaced " + std::to_string(n);
    Result<WriteResult> r = db.Write(Root(), Req(uri, content, WriteMode::kReplace));
    if (r.ok()) (*model)[uri] = content;
    return r.status();
  });
}

TEST_F(DbFaultTest, MkdirMoveRemove) {
  Open();
  RunUnderFaults("mkdir", [](Db& db, int n, auto*) {
    Result<std::string> r =
        db.Mkdir(Root(), "viking://resources/d/sub" + std::to_string(n), "");
    if (!r.ok() && r.status().code() == StatusCode::kAlreadyExists) return Status::Ok();
    return r.status();
  });
  RunUnderFaults("mv", [](Db& db, int n, auto* model) {
    std::string from = Uri("m", n);
    std::string to = Uri("moved", n);
    // Creating the source is part of the attempt and may fail too.
    Result<NodeInfo> src = db.Stat(Root(), from);
    Result<NodeInfo> dst = db.Stat(Root(), to);
    if (!src.ok() && !dst.ok()) {
      Result<WriteResult> w = db.Write(Root(), Req(from, "to move", WriteMode::kCreate));
      if (!w.ok()) return w.status();
      (*model)[from] = "to move";
    }
    if (dst.ok()) return Status::Ok();
    Result<MvResult> r = db.Mv(Root(), from, to);
    if (r.ok()) {
      model->erase(from);
      (*model)[to] = "to move";
    }
    return r.status();
  });
  RunUnderFaults("rm", [this](Db& db, int n, auto*) {
    std::string uri = Uri("r", n);
    if (!db.Stat(Root(), uri).ok()) {
      Result<WriteResult> w = db.Write(Root(), Req(uri, "doomed", WriteMode::kCreate));
      if (!w.ok()) return w.status();
    }
    Result<RmResult> r = db.Rm(Root(), uri, false);
    if (r.ok()) model_.erase(uri);
    return r.status();
  });
}

TEST_F(DbFaultTest, UploadAndAddResource) {
  Open();
  RunUnderFaults("add-resource", [](Db& db, int n, auto*) {
    Result<std::string> id =
        db.TempUpload(Root(), "doc" + std::to_string(n) + ".md", "# Upload\n\nbody\n");
    if (!id.ok()) return id.status();
    AddResourceRequest request;
    request.temp_file_id = *id;
    request.to = "viking://resources/up" + std::to_string(n);
    Result<AddResourceResult> r = db.AddResource(Root(), request);
    return r.status();
  });
}

// Background jobs (the import of a resource, then indexing) under faults:
// a job that hits an injected error is retried with backoff (a FakeClock
// skips the wait) and completes once the fault clears; nothing is half
// imported after a reopen.
TEST(DbJobFaultTest, ImportJobsFinishAfterFaultsClear) {
  testing::TempDir dir;
  // Enough files that the import writes each batch on two threads.
  constexpr int kDocs = 80;
  for (int i = 0; i < kDocs; ++i) {
    std::string docs = dir.Sub("docs");
    ASSERT_TRUE(Env::Default()->CreateDirs(docs).ok());
    ASSERT_TRUE(WriteFileAtomically(docs + "/d" + std::to_string(i) + ".md",
                                    "# Doc " + std::to_string(i) + "\n\nlighthouse keeper\n")
                    .ok());
  }
  FaultInjectionEnv faults;
  testing::FakeClock clock(Env::Default()->NowNanos(), &faults);
  DbOptions options;
  options.workspace = dir.Sub("ws");
  options.background_workers = 1;
  options.env = &clock;
  options.disk_reserve_bytes = 64 << 10;
  std::vector<std::string> roots;
  {
    auto db = Db::Open(options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    for (int n = 1; n <= 40; n += 6) {
      SCOPED_TRACE("write fault at step " + std::to_string(n));
      faults.FailNth(FaultOp::kWrite, static_cast<uint64_t>(n), FaultInjectionEnv::Error::kIo);
      AddResourceRequest add;
      add.path = dir.Sub("docs");
      add.to = "viking://resources/imp" + std::to_string(n);
      Result<AddResourceResult> added = (*db)->AddResource(Root(), add);
      // Let the job run into the fault (or finish), then clear it and skip the backoff.
      Status idle = (*db)->WaitIdle(20000, /*wait_for_retries=*/false);
      (void)idle;  // a job may still be waiting out its backoff
      faults.Clear();
      clock.Advance(int64_t{3600} * 1'000'000'000);
      if (!added.ok()) {
        EXPECT_EQ(added.status().message().find(dir.path()), std::string::npos)
            << added.status().ToString();
        added = (*db)->AddResource(Root(), add);
        ASSERT_TRUE(added.ok()) << added.status().ToString();
      }
      ASSERT_TRUE((*db)->WaitIdle(60000, /*wait_for_retries=*/true).ok());
      Result<TaskInfo> task = (*db)->GetTask(Root(), added->task_id);
      ASSERT_TRUE(task.ok());
      EXPECT_EQ(task->status, TaskState::kCompleted) << task->error;
      roots.push_back(add.to);
    }
    EXPECT_GT(faults.injected(), 0u) << "no import ever ran into an injected write fault";
  }
  options.env = nullptr;
  auto db = Db::Open(options);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  for (const std::string& root : roots) {
    for (int i = 0; i < kDocs; ++i) {
      std::string uri = root + "/d" + std::to_string(i) + ".md";
      Result<std::string> text = (*db)->Read(Root(), uri, 0, -1, /*raw=*/true);
      ASSERT_TRUE(text.ok()) << uri << ": " << text.status().ToString();
      EXPECT_NE(text->find("lighthouse keeper"), std::string::npos) << uri;
    }
  }
  Result<FsckReport> report = (*db)->Fsck(false);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->issues.empty()) << report->issues.size() << " fsck issues, first: "
                                      << report->issues[0].kind << " " << report->issues[0].uri;
}

}  // namespace
}  // namespace skald
