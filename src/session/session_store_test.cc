// SessionStore over an in-memory SessionFiles and a real catalog + job
// runner: phase 2 hands the archive to the memory-extraction hook and counts
// what it reports, a failing hook fails the task and marks the archive, a
// live file left behind by a crash between writing the archive and
// rewriting the live messages never shows (or archives) a message twice, and
// sessions are found only in their owner's space.

#include "session/session_store.h"

#include <map>
#include <set>

#include <gtest/gtest.h>

#include "tests/testutil/temp_dir.h"
#include "text/summarizer.h"

namespace skald {
namespace {

SessionCreateRequest Named(const std::string& session_id) {
  SessionCreateRequest request;
  request.session_id = session_id;
  return request;
}

// Files by "account:path"; directories implied by parents plus Mkdir.
class FakeSessionFiles final : public SessionFiles {
 public:
  explicit FakeSessionFiles(JobQueue* queue) : queue_(queue) {}

  std::vector<std::string> indexed;  // trees QueueIndex was called for (under mu_)

  Result<std::optional<std::string>> Read(const Identity& who, const VikingUri& uri) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = files_.find(Key(who, uri.path()));
    if (it == files_.end()) return std::optional<std::string>();
    return std::optional<std::string>(it->second);
  }
  Result<std::vector<Job>> Write(const Identity& who, const VikingUri& uri,
                                 std::string_view bytes,
                                 const std::vector<JobSpec>& jobs) override {
    // The file first, then its jobs, as the real outbox makes them visible
    // together: a job queued first could run before the file is there (a
    // worker found the archive "deleted" in 1 of ~50 loaded runs).
    {
      std::lock_guard<std::mutex> lock(mu_);
      files_[Key(who, uri.path())] = std::string(bytes);
      AddParents(who, std::string(uri.path()));
    }
    std::vector<Job> out;
    for (const JobSpec& spec : jobs) {
      SKALD_ASSIGN_OR_RETURN(Job job, queue_->Enqueue(spec));
      out.push_back(job);
    }
    return out;
  }
  Result<std::vector<Job>> WriteIndexed(const Identity& who, const VikingUri& uri,
                                        std::string_view bytes) override {
    return Write(who, uri, bytes, {});
  }
  Status QueueIndex(const Identity& who, const VikingUri& uri) override {
    std::lock_guard<std::mutex> lock(mu_);
    indexed.push_back(Key(who, uri.path()));
    return Status::Ok();
  }
  Status Append(const Identity& who, const VikingUri& uri, std::string_view bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    files_[Key(who, uri.path())].append(bytes);
    AddParents(who, std::string(uri.path()));
    return Status::Ok();
  }
  Status Mkdir(const Identity& who, const VikingUri& uri) override {
    std::lock_guard<std::mutex> lock(mu_);
    dirs_.insert(Key(who, uri.path()));
    AddParents(who, std::string(uri.path()));
    return Status::Ok();
  }
  Result<std::optional<CatalogNode>> Stat(const Identity& who, const VikingUri& uri) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string key = Key(who, uri.path());
    if (!files_.count(key) && !dirs_.count(key)) return std::optional<CatalogNode>();
    CatalogNode node;
    node.path = std::string(uri.path());
    node.is_dir = dirs_.count(key) != 0;
    return std::optional<CatalogNode>(std::move(node));
  }
  Result<std::vector<SessionFileEntry>> List(const Identity& who, const VikingUri& uri) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string prefix = Key(who, uri.path()) + "/";
    std::map<std::string, bool> children;
    for (const auto& [key, unused] : files_) Child(prefix, key, false, &children);
    for (const std::string& key : dirs_) Child(prefix, key, true, &children);
    std::vector<SessionFileEntry> out;
    for (const auto& [name, is_dir] : children) out.push_back({name, is_dir, 0});
    return out;
  }
  Status RemoveTree(const Identity& who, const VikingUri& uri) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string key = Key(who, uri.path());
    std::erase_if(files_, [&](const auto& kv) { return kv.first.rfind(key, 0) == 0; });
    std::erase_if(dirs_, [&](const std::string& d) { return d.rfind(key, 0) == 0; });
    return Status::Ok();
  }

  // Test access: the bytes at `path` of account "default".
  std::string& File(const std::string& path) { return files_["default:" + path]; }

 private:
  static std::string Key(const Identity& who, std::string_view path) {
    return who.account + ":" + std::string(path);
  }
  void AddParents(const Identity& who, std::string path) {
    for (size_t pos = path.rfind('/'); pos != std::string::npos; pos = path.rfind('/')) {
      path.resize(pos);
      dirs_.insert(Key(who, path));
    }
  }
  static void Child(const std::string& prefix, const std::string& key, bool is_dir,
                    std::map<std::string, bool>* children) {
    if (key.rfind(prefix, 0) != 0) return;
    std::string rest = key.substr(prefix.size());
    size_t slash = rest.find('/');
    if (slash == std::string::npos) {
      (*children)[rest] = is_dir || (*children)[rest];
    } else {
      (*children)[rest.substr(0, slash)] = true;
    }
  }

  JobQueue* queue_;
  std::mutex mu_;
  std::map<std::string, std::string> files_;
  std::set<std::string> dirs_;
};

class SessionStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Catalog::Open({dir_.Sub("skald.db")});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    catalog_ = std::move(c).value();
    JobRunnerOptions options;
    options.queue.poll_interval = std::chrono::milliseconds(5);
    options.idle_wait = std::chrono::milliseconds(5);
    runner_ = std::make_unique<JobRunner>(catalog_.get(), options);
    files_ = std::make_unique<FakeSessionFiles>(runner_->queue());
    summarizer_ = NewExtractiveSummarizer();
    store_ = std::make_unique<SessionStore>(files_.get(), runner_.get(), summarizer_.get());
  }
  void Start() {
    store_->RegisterJobs(runner_.get());
    runner_->Start(1);
  }
  void TearDown() override { runner_.reset(); }

  void Add(const std::string& id, const std::vector<std::string>& texts) {
    std::vector<std::string> messages;
    for (const std::string& t : texts) {
      messages.push_back(DumpJson(Json{{"role", "user"}, {"content", t}}));
    }
    ASSERT_TRUE(store_->AddMessages(alice_, id, messages).ok());
  }
  Job Finish(const std::string& task_id) {
    auto job = runner_->AwaitTask(task_id, 60);
    if (job.ok()) return *job;
    auto stored = catalog_->GetJobByTaskId(task_id);
    return stored.ok() && stored->has_value() ? **stored : Job{};
  }

  testing::TempDir dir_;
  std::unique_ptr<Catalog> catalog_;
  std::unique_ptr<JobRunner> runner_;
  std::unique_ptr<FakeSessionFiles> files_;
  std::unique_ptr<Summarizer> summarizer_;
  std::unique_ptr<SessionStore> store_;
  Identity alice_{"default", "alice", Role::kUser};
  Identity bob_{"default", "bob", Role::kUser};
};

TEST_F(SessionStoreTest, PhaseTwoHandsTheArchiveToTheHookAndCountsItsMemories) {
  std::vector<ArchiveForExtraction> seen;
  store_->SetMemoryExtractionHook(
      [&seen](const ArchiveForExtraction& archive, JobContext&) -> Result<MemoryExtractionReport> {
        seen.push_back(archive);
        MemoryExtractionReport report;
        report.extracted = {{"events", 2}, {"preferences", 1}};
        return report;
      });
  Start();
  Add("s1", {"I ran a marathon in Porto last Sunday.", "I prefer trail shoes."});
  auto commit = store_->Commit(alice_, "s1", {});
  ASSERT_TRUE(commit.ok()) << commit.status().ToString();
  ASSERT_EQ(commit->status, "accepted");
  Job job = Finish(*commit->task_id);
  ASSERT_EQ(job.state, JobState::kCompleted) << job.error;

  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].owner.user, "alice");
  EXPECT_EQ(seen[0].session_id, "s1");
  EXPECT_EQ(seen[0].archive_uri, "viking://user/alice/sessions/s1/history/archive_001");
  ASSERT_EQ(seen[0].messages.size(), 2u);
  EXPECT_EQ(seen[0].messages[0]["parts"][0]["text"], "I ran a marathon in Porto last Sunday.");
  EXPECT_GT(seen[0].committed_at_ns, 0);

  auto meta = store_->GetMeta(alice_, "s1", false);
  ASSERT_TRUE(meta.ok());
  Json m = Json::parse(*meta);
  EXPECT_EQ(m["memories_extracted"]["total"], 3);
  EXPECT_EQ(m["memories_extracted"]["events"], 2);
  EXPECT_NE(job.result.find("\"preferences\":1"), std::string::npos) << job.result;
}

TEST_F(SessionStoreTest, AFailingHookFailsTheTaskAndMarksTheArchive) {
  store_->SetMemoryExtractionHook(
      [](const ArchiveForExtraction&, JobContext&) -> Result<MemoryExtractionReport> {
        return Status::InvalidArgument("extractor rejected the archive");
      });
  Start();
  Add("s2", {"hello"});
  auto commit = store_->Commit(alice_, "s2", {});
  ASSERT_TRUE(commit.ok());
  Job job = Finish(*commit->task_id);
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_NE(job.error.find("extractor rejected the archive"), std::string::npos) << job.error;
  auto archive = store_->Archive(alice_, "s2", "archive_001");
  ASSERT_TRUE(archive.ok());
  EXPECT_EQ(Json::parse(*archive)["status"], "failed");
  auto context = store_->Context(alice_, "s2", 1000);
  ASSERT_TRUE(context.ok());
  EXPECT_EQ(context->failed_archives, 1);
  EXPECT_EQ(context->latest_archive_overview, "");
}

TEST_F(SessionStoreTest, MessagesLeftLiveByACrashAreNotShownOrArchivedTwice) {
  Add("s3", {"first", "second"});
  const std::string live_before = files_->File("user/alice/sessions/s3/messages.jsonl");
  auto commit = store_->Commit(alice_, "s3", {});
  ASSERT_TRUE(commit.ok());
  // As if the process died after writing the archive, before rewriting the live file.
  files_->File("user/alice/sessions/s3/messages.jsonl") = live_before;
  Add("s3", {"third"});
  auto context = store_->Context(alice_, "s3", 1000);
  ASSERT_TRUE(context.ok());
  ASSERT_EQ(context->messages_json.size(), 1u);
  EXPECT_NE(context->messages_json[0].find("third"), std::string::npos);
  auto again = store_->Commit(alice_, "s3", {});
  ASSERT_TRUE(again.ok());
  auto archive = store_->Archive(alice_, "s3", "archive_002");
  ASSERT_TRUE(archive.ok()) << archive.status().ToString();
  Json a = Json::parse(*archive);
  ASSERT_EQ(a["messages"].size(), 1u) << *archive;
  EXPECT_EQ(a["messages"][0]["parts"][0]["text"], "third");
}

TEST_F(SessionStoreTest, SessionsAreFoundOnlyInTheOwnersSpace) {
  ASSERT_TRUE(store_->Create(alice_, Named("mine")).ok());
  EXPECT_EQ(store_->GetMeta(bob_, "mine", false).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Delete(bob_, "mine").code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Commit(bob_, "mine", {}).status().code(), StatusCode::kNotFound);
  auto bobs = store_->List(bob_);
  ASSERT_TRUE(bobs.ok());
  EXPECT_TRUE(bobs->empty());
  auto alices = store_->List(alice_);
  ASSERT_TRUE(alices.ok());
  ASSERT_EQ(alices->size(), 1u);
  EXPECT_EQ((*alices)[0].uri, "viking://user/alice/sessions/mine");
  EXPECT_EQ(store_->Create(alice_, Named("mine")).status().code(),
            StatusCode::kAlreadyExists);
  for (const char* bad : {"", "..", "a/b"}) {
    EXPECT_EQ(store_->Create(alice_, Named(bad)).status().code(),
              StatusCode::kInvalidArgument)
        << bad;
  }
}

}  // namespace
}  // namespace skald
