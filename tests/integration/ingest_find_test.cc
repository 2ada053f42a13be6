// End-to-end through the Db facade: add-resource (import, summaries,
// batched embedding as a durable background task) → find (hybrid retrieval),
// with the built-in embedder and with an OpenAI-compatible provider served
// on loopback, plus the write/rm/mv hooks that keep the indexes current.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "model/factory.h"
#include "model/fake_model_server.h"
#include "model/hashing_embedder.h"
#include "service/config.h"
#include "skald/db.h"
#include "tests/testutil/index_file_version.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

namespace fs = std::filesystem;
using testing::FakeModelServer;
using testing::TempDir;

void WriteLocal(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

// A small documentation tree with distinct topics.
void MakeDocs(const std::string& root) {
  WriteLocal(root + "/security/keys.md",
             "# Key rotation\n\nRotate the signing keys every ninety days. The rotation job "
             "replaces the active key and keeps the previous key for verification.\n");
  WriteLocal(root + "/security/passwords.md",
             "# Password policy\n\nPasswords need twelve characters. Accounts lock after five "
             "failed logins.\n");
  WriteLocal(root + "/ops/backups.md",
             "# Backups\n\nNightly backups go to object storage. Restores are tested every "
             "month by restoring the newest snapshot.\n");
  WriteLocal(root + "/ops/deploy.txt",
             "Deployments run through the pipeline: build, test, canary, then full rollout.\n");
  WriteLocal(root + "/tool.py",
             "\"\"\"Command line helper that prints the version.\"\"\"\n"
             "def main():\n    print('1.0')\n");
  WriteLocal(root + "/blob.bin", std::string("\x01\x02\0\0\x03", 5));
}

Identity Root() { return Identity{"default", "default", Role::kRoot}; }

std::vector<std::string> Uris(const std::vector<MatchedContext>& hits) {
  std::vector<std::string> out;
  for (const MatchedContext& h : hits) out.push_back(h.uri);
  return out;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// A workspace under `tmp` without fsync (the crash tests cover durability).
DbOptions TestOptions(const TempDir& tmp) {
  DbOptions options;
  options.workspace = tmp.Sub("ws");
  options.sync_writes = false;
  return options;
}

// add-resource of a local directory, waiting for the task.
void ImportWaiting(Db& db, const std::string& path) {
  AddResourceRequest add;
  add.path = path;
  add.wait = true;
  auto added = db.AddResource(Root(), add);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
}

FindRequest Query(const std::string& text) {
  FindRequest r;
  r.query = text;
  r.score_threshold = 0.0;
  return r;
}

TEST(IngestFindTest, AddResourceMakesEveryLevelSearchable) {
  TempDir tmp;
  MakeDocs(tmp.Sub("docs"));
  DbOptions options = TestOptions(tmp);
  auto db = Db::Open(options);
  ASSERT_TRUE(db.ok()) << db.status().ToString();

  AddResourceRequest add;
  add.path = tmp.Sub("docs");
  add.wait = true;
  auto added = (*db)->AddResource(Root(), add);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_EQ(added->root_uri, "viking://resources/docs");
  EXPECT_EQ(added->task_status, TaskState::kCompleted);
  // The binary file is named in a warning instead of being imported as text.
  ASSERT_EQ(added->warnings.size(), 1u);
  EXPECT_NE(added->warnings[0].find("blob.bin"), std::string::npos);

  auto stat = (*db)->Stat(Root(), "viking://resources/docs/security/keys.md");
  ASSERT_TRUE(stat.ok()) << stat.status().ToString();
  auto abstract = (*db)->Abstract(Root(), "viking://resources/docs/security");
  ASSERT_TRUE(abstract.ok());
  EXPECT_EQ(abstract->find("not ready"), std::string::npos) << *abstract;
  EXPECT_LE(abstract->size(), 256u);
  auto overview = (*db)->Overview(Root(), "viking://resources/docs");
  ASSERT_TRUE(overview.ok());
  EXPECT_NE(overview->find("# docs"), std::string::npos) << *overview;

  auto found = (*db)->Find(Root(), Query("how often are signing keys rotated"));
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_FALSE(found->resources.empty());
  EXPECT_EQ(found->resources[0].uri, "viking://resources/docs/security/keys.md");
  for (const MatchedContext& hit : found->resources) {
    EXPECT_GE(hit.score, 0.0);
    EXPECT_LE(hit.score, 1.0);
    EXPECT_EQ(hit.context_type, ContextType::kResource);
  }
  EXPECT_TRUE(found->memories.empty());

  // Directory records: a level 0/1 hit is the directory itself, told by its
  // L0 abstract (not the overview's "# name" line).
  FindRequest dirs = Query("backups restores deployments");
  dirs.levels = {0, 1};
  auto dir_hits = (*db)->Find(Root(), dirs);
  ASSERT_TRUE(dir_hits.ok());
  ASSERT_FALSE(dir_hits->resources.empty());
  for (const MatchedContext& hit : dir_hits->resources) {
    EXPECT_NE(hit.level, 2);
    EXPECT_FALSE(hit.uri.ends_with(".md")) << hit.uri;
    auto dir_stat = (*db)->Stat(Root(), hit.uri);
    ASSERT_TRUE(dir_stat.ok()) << hit.uri;
    EXPECT_TRUE(dir_stat->is_dir) << hit.uri;
    auto dir_abstract = (*db)->Abstract(Root(), hit.uri);
    ASSERT_TRUE(dir_abstract.ok()) << hit.uri;
    EXPECT_EQ(hit.abstract, *dir_abstract) << hit.uri;
    EXPECT_NE(hit.abstract.rfind("# ", 0), 0u) << hit.abstract;
  }

  // Target scope: nothing outside it.
  FindRequest scoped = Query("keys passwords backups");
  scoped.target_uris = {"viking://resources/docs/ops"};
  auto in_ops = (*db)->Find(Root(), scoped);
  ASSERT_TRUE(in_ops.ok());
  ASSERT_FALSE(in_ops->resources.empty());
  for (const MatchedContext& hit : in_ops->resources) {
    EXPECT_TRUE(hit.uri.starts_with("viking://resources/docs/ops")) << hit.uri;
  }
}

TEST(IngestFindTest, WritesRemovesAndMovesKeepSearchCurrent) {
  TempDir tmp;
  MakeDocs(tmp.Sub("docs"));
  DbOptions options = TestOptions(tmp);
  auto db = Db::Open(options);
  ASSERT_TRUE(db.ok());
  ImportWaiting(**db, tmp.Sub("docs"));

  WriteRequest write;
  write.uri = "viking://resources/docs/ops/incident.md";
  write.content = "# Incident response\n\nPage the on-call engineer through the zebrafish bridge.";
  write.mode = WriteMode::kCreate;
  write.wait = true;
  auto written = (*db)->Write(Root(), write);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->vector_status, "completed");
  auto hits = (*db)->Find(Root(), Query("zebrafish bridge"));
  ASSERT_TRUE(hits.ok());
  ASSERT_FALSE(hits->resources.empty());
  EXPECT_EQ(hits->resources[0].uri, "viking://resources/docs/ops/incident.md");

  // Removed content is gone from search at once.
  ASSERT_TRUE((*db)->Rm(Root(), "viking://resources/docs/ops/incident.md", false).ok());
  hits = (*db)->Find(Root(), Query("zebrafish bridge"));
  ASSERT_TRUE(hits.ok());
  EXPECT_FALSE(Contains(Uris(hits->resources), "viking://resources/docs/ops/incident.md"));

  // A moved tree is found under its new name once its job ran.
  ASSERT_TRUE((*db)->Mv(Root(), "viking://resources/docs/security", "viking://resources/sec").ok());
  ASSERT_TRUE((*db)->WaitIdle(30000).ok());
  hits = (*db)->Find(Root(), Query("password policy twelve characters"));
  ASSERT_TRUE(hits.ok());
  ASSERT_FALSE(hits->resources.empty());
  for (const MatchedContext& hit : hits->resources) {
    EXPECT_FALSE(hit.uri.starts_with("viking://resources/docs/security")) << hit.uri;
  }
  EXPECT_TRUE(Contains(Uris(hits->resources), "viking://resources/sec/passwords.md"));
}

// The docs imported (and indexed) in `tmp`'s workspace; options to open it
// again with no worker, so that jobs queued then wait for a later open.
DbOptions ImportedThenPaused(const TempDir& tmp) {
  MakeDocs(tmp.Sub("docs"));
  {
    auto db = Db::Open(TestOptions(tmp));
    EXPECT_TRUE(db.ok());
    if (db.ok()) ImportWaiting(**db, tmp.Sub("docs"));
  }
  DbOptions paused = TestOptions(tmp);
  paused.background_workers = 0;
  return paused;
}

// A moved tree is found at its new place at once, before its index job
// runs (the move carries its records over), and never at the old one.
TEST(IngestFindTest, AMovedTreeIsFoundAtItsNewPlaceAtOnce) {
  TempDir tmp;
  const DbOptions paused = ImportedThenPaused(tmp);  // the move's index job waits
  auto check = [](Db& db) {
    auto hits = db.Find(Root(), Query("password policy twelve characters"));
    ASSERT_TRUE(hits.ok()) << hits.status().ToString();
    for (const MatchedContext& hit : hits->resources) {
      EXPECT_FALSE(hit.uri.starts_with("viking://resources/docs/security")) << hit.uri;
    }
    EXPECT_TRUE(Contains(Uris(hits->resources), "viking://resources/sec/passwords.md"));
    // By its vector alone (no word of the query is in it: the hashing
    // embedder's character 3-grams match misspellings): the carried record
    // kept its vector.
    auto by_vector = db.Find(Root(), Query("passwordz policyy"));
    ASSERT_TRUE(by_vector.ok()) << by_vector.status().ToString();
    EXPECT_TRUE(Contains(Uris(by_vector->resources), "viking://resources/sec/passwords.md"))
        << ::testing::PrintToString(Uris(by_vector->resources));
    // One record per place: the move left no copy behind.
    auto records = db.Find(Root(), Query("password policy"));
    ASSERT_TRUE(records.ok());
    std::set<std::string> seen;
    for (const MatchedContext& hit : records->resources) {
      EXPECT_TRUE(seen.insert(hit.uri + "#" + std::to_string(hit.level)).second) << hit.uri;
    }
  };
  {
    auto db = Db::Open(paused);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(
        (*db)->Mv(Root(), "viking://resources/docs/security", "viking://resources/sec").ok());
    check(**db);
  }
  auto db = Db::Open(TestOptions(tmp));
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->WaitIdle(30000).ok());
  check(**db);
}

// A copy is found at once too (its file records are carried over), beside
// its source.
TEST(IngestFindTest, ACopiedTreeIsFoundAtOnce) {
  TempDir tmp;
  const DbOptions paused = ImportedThenPaused(tmp);  // the copy's index job waits
  auto db = Db::Open(paused);
  ASSERT_TRUE(db.ok());
  auto copied = (*db)->Cp(Root(), "viking://resources/docs/security", "viking://resources/sec",
                          /*recursive=*/true);
  ASSERT_TRUE(copied.ok()) << copied.status().ToString();
  EXPECT_GT(copied->vectors_scanned, 0u);
  EXPECT_EQ(copied->vectors_written, copied->vectors_scanned);
  auto hits = (*db)->Find(Root(), Query("password policy twelve characters"));
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  EXPECT_TRUE(Contains(Uris(hits->resources), "viking://resources/sec/passwords.md"));
  EXPECT_TRUE(Contains(Uris(hits->resources), "viking://resources/docs/security/passwords.md"));
  auto by_vector = (*db)->Find(Root(), Query("passwordz policyy"));
  ASSERT_TRUE(by_vector.ok()) << by_vector.status().ToString();
  EXPECT_TRUE(Contains(Uris(by_vector->resources), "viking://resources/sec/passwords.md"))
      << ::testing::PrintToString(Uris(by_vector->resources));
}

TEST(IngestFindTest, AsyncTaskIsPolledWaitedForAndSurvivesReopen) {
  TempDir tmp;
  MakeDocs(tmp.Sub("docs"));
  std::string task_id;
  {
    DbOptions options;
    options.workspace = tmp.Sub("ws");
    options.background_workers = 0;  // nothing runs: the task must wait in the queue
    auto db = Db::Open(options);
    ASSERT_TRUE(db.ok());
    AddResourceRequest add;
    add.path = tmp.Sub("docs");
    auto added = (*db)->AddResource(Root(), add);
    ASSERT_TRUE(added.ok()) << added.status().ToString();
    ASSERT_FALSE(added->task_id.empty());
    task_id = added->task_id;
    auto task = (*db)->GetTask(Root(), task_id);
    ASSERT_TRUE(task.ok());
    EXPECT_EQ(task->status, TaskState::kPending);
    EXPECT_EQ(task->task_type, "add_resource");
    // A wait that times out answers with the task as it is.
    auto waited = (*db)->WaitTask(Root(), task_id, 20);
    ASSERT_TRUE(waited.ok()) << waited.status().ToString();
    EXPECT_EQ(waited->status, TaskState::kPending);
  }
  DbOptions options;
  options.workspace = tmp.Sub("ws");
  auto db = Db::Open(options);
  ASSERT_TRUE(db.ok());
  // Followed to its end by a wait alone (no WaitIdle first).
  auto task = (*db)->WaitTask(Root(), task_id, 60000);
  ASSERT_TRUE(task.ok()) << task.status().ToString();
  EXPECT_EQ(task->status, TaskState::kCompleted);
  ASSERT_TRUE((*db)->WaitIdle(60000).ok());
  EXPECT_NE(task->result_json.find("\"files\""), std::string::npos) << task->result_json;
  auto hits = (*db)->Find(Root(), Query("nightly backups object storage"));
  ASSERT_TRUE(hits.ok());
  ASSERT_FALSE(hits->resources.empty());
  EXPECT_EQ(hits->resources[0].uri, "viking://resources/docs/ops/backups.md");

  Identity other;
  other.account = "default";
  other.user = "bob";
  other.role = Role::kUser;
  EXPECT_EQ((*db)->GetTask(other, task_id).status().code(), StatusCode::kNotFound);
  EXPECT_EQ((*db)->GetTask(Root(), "no-such-task").status().code(), StatusCode::kNotFound);
  EXPECT_EQ((*db)->WaitTask(other, task_id, 1000).status().code(), StatusCode::kNotFound);
  EXPECT_EQ((*db)->WaitTask(Root(), "no-such-task", 1000).status().code(),
            StatusCode::kNotFound);
}

// Without the background linker (the embedded CLI's setting), an import's
// vectors are saved waiting for links (format 2) and found all the same
// after a reopen; a Db with the linker links them and saves them whole.
TEST(IngestFindTest, VectorsLeftUnlinkedAreSavedWaitingAndLinkedByALaterOpen) {
  TempDir tmp;
  MakeDocs(tmp.Sub("docs"));
  DbOptions options = TestOptions(tmp);
  options.link_in_background = false;
  const std::string file = options.workspace + "/index/default/vectors.skvi";
  {
    auto db = Db::Open(options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    ImportWaiting(**db, tmp.Sub("docs"));
  }
  EXPECT_EQ(testing::IndexFileVersion(file), 2u);
  auto found = [](Db& db) {
    auto hits = db.Find(Root(), Query("rotate the signing keys"));
    return hits.ok() && !hits->resources.empty() &&
           hits->resources[0].uri == "viking://resources/docs/security/keys.md";
  };
  {
    auto db = Db::Open(options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    EXPECT_TRUE(found(**db));
  }
  EXPECT_EQ(testing::IndexFileVersion(file), 2u);  // nothing changed: not rewritten
  options.link_in_background = true;
  auto db = Db::Open(options);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (testing::IndexFileVersion(file) != 1u && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(testing::IndexFileVersion(file), 1u);
  EXPECT_TRUE(found(**db));
}

TEST(IngestFindTest, UploadsAreImportedOnceAndExpireWhenUnused) {
  TempDir tmp;
  DbOptions options = TestOptions(tmp);
  std::string stale_path;
  {
    auto db = Db::Open(options);
    ASSERT_TRUE(db.ok());
    auto id = (*db)->TempUpload(Root(), "notes.md", "# Notes\n\nThe quarterly plan.\n");
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    EXPECT_TRUE(id->starts_with("upload_") && id->ends_with(".md")) << *id;
    AddResourceRequest add;
    add.temp_file_id = *id;
    add.wait = true;
    auto added = (*db)->AddResource(Root(), add);
    ASSERT_TRUE(added.ok()) << added.status().ToString();
    EXPECT_EQ(added->root_uri, "viking://resources/notes");
    EXPECT_EQ(added->source_path, "notes.md");
    // Imported: the upload is gone, and the id cannot be used again.
    EXPECT_EQ((*db)->AddResource(Root(), add).status().code(), StatusCode::kPermissionDenied);
    add.temp_file_id = "upload_0123456789abcdef0123456789abcdef/../../x";
    EXPECT_EQ((*db)->AddResource(Root(), add).status().code(), StatusCode::kPermissionDenied);

    auto stale = (*db)->TempUpload(Root(), "old.txt", "never imported");
    ASSERT_TRUE(stale.ok());
    stale_path = options.workspace + "/temp/upload/" + *stale;
    ASSERT_TRUE(fs::exists(stale_path));
  }
  fs::last_write_time(stale_path, fs::file_time_type::clock::now() - std::chrono::hours(48));
  auto db = Db::Open(options);  // an idle worker runs the upkeep soon after open
  ASSERT_TRUE(db.ok());
  for (int i = 0; i < 200 && fs::exists(stale_path); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_FALSE(fs::exists(stale_path));
}

TEST(IngestFindTest, EmbedderChangeIsRefusedUnlessReindexedThenReembedsEverything) {
  TempDir tmp;
  MakeDocs(tmp.Sub("docs"));
  DbOptions options = TestOptions(tmp);
  {
    auto db = Db::Open(options);  // the built-in embedder, dimension 512
    ASSERT_TRUE(db.ok());
    ImportWaiting(**db, tmp.Sub("docs"));
  }
  HashingEmbedderOptions small;
  small.dimension = 64;
  auto embedder = NewDefaultHashingEmbedder(small);
  ASSERT_TRUE(embedder.ok());
  options.embedder = std::move(*embedder);
  auto refused = Db::Open(options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("reindex"), std::string::npos)
      << refused.status().ToString();

  options.reindex_on_embedder_change = true;
  // Vector scores only: a hit proves the records were embedded again (the
  // index serves only vectors of the current embedder).
  options.retrieval.hybrid_weight = 0.0;
  auto db = Db::Open(options);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_TRUE((*db)->WaitIdle(60000).ok());
  auto tasks = (*db)->ListTasks(Root(), TaskFilter{"reindex", TaskState::kCompleted, "", 10});
  ASSERT_TRUE(tasks.ok());
  EXPECT_EQ(tasks->size(), 1u);
  auto hits = (*db)->Find(Root(), Query("signing keys rotation"));
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_FALSE(hits->resources.empty());
  EXPECT_EQ(hits->resources[0].uri, "viking://resources/docs/security/keys.md");
}

TEST(IngestFindTest, ErrorsNoRetryCanFixFailTheTaskAtOnce) {
  TempDir tmp;
  MakeDocs(tmp.Sub("docs"));
  DbOptions options = TestOptions(tmp);
  options.background_workers = 0;
  std::string task_id;
  {
    auto db = Db::Open(options);
    ASSERT_TRUE(db.ok());
    AddResourceRequest add;
    add.path = tmp.Sub("docs");
    auto added = (*db)->AddResource(Root(), add);
    ASSERT_TRUE(added.ok());
    task_id = added->task_id;
  }
  fs::remove_all(tmp.Sub("docs"));  // the source is gone before the job runs
  options.background_workers = 2;
  auto db = Db::Open(options);
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->WaitIdle(30000).ok());
  auto task = (*db)->GetTask(Root(), task_id);
  ASSERT_TRUE(task.ok());
  EXPECT_EQ(task->status, TaskState::kFailed);
  EXPECT_NE(task->error.find("does not exist"), std::string::npos) << task->error;
}

// An upload lives in the workspace; when it cannot be read by the time its
// import runs, the task's error names the uploaded file, never a host path.
TEST(IngestFindTest, AnUnreadableUploadFailsWithoutAHostPath) {
  TempDir tmp;
  DbOptions options = TestOptions(tmp);
  options.background_workers = 0;
  std::string task_id;
  {
    auto db = Db::Open(options);
    ASSERT_TRUE(db.ok());
    auto upload = (*db)->TempUpload(Root(), "notes.md", "# Notes\n\nkeepers of the light\n");
    ASSERT_TRUE(upload.ok()) << upload.status().ToString();
    AddResourceRequest add;
    add.temp_file_id = *upload;
    auto added = (*db)->AddResource(Root(), add);
    ASSERT_TRUE(added.ok()) << added.status().ToString();
    task_id = added->task_id;
  }
  // The claimed upload disappears before the job runs.
  size_t removed = 0;
  for (const auto& entry : fs::recursive_directory_iterator(options.workspace + "/temp/upload")) {
    if (entry.path().filename().string().rfind("upload_", 0) == 0 &&
        entry.path().string().find(".meta") == std::string::npos) {
      fs::remove(entry.path());
      ++removed;
    }
  }
  ASSERT_EQ(removed, 1u);
  options.background_workers = 1;
  auto db = Db::Open(options);
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->WaitIdle(30000).ok());
  auto task = (*db)->GetTask(Root(), task_id);
  ASSERT_TRUE(task.ok());
  EXPECT_EQ(task->status, TaskState::kFailed);
  EXPECT_NE(task->error.find("notes.md"), std::string::npos) << task->error;
  EXPECT_EQ(task->error.find(tmp.path()), std::string::npos) << task->error;
  EXPECT_EQ(task->error.find("temp/upload"), std::string::npos) << task->error;
}

TEST(IngestFindTest, ResourceTagsFilterFindAndSurviveRewrites) {
  TempDir tmp;
  MakeDocs(tmp.Sub("docs"));
  DbOptions options = TestOptions(tmp);
  auto db = Db::Open(options);
  ASSERT_TRUE(db.ok());
  AddResourceRequest add;
  add.path = tmp.Sub("docs");
  add.tags = {"team=sec"};
  add.wait = true;
  ASSERT_TRUE((*db)->AddResource(Root(), add).ok());
  WriteLocal(tmp.Sub("other/keys.md"), "# Keys\n\nRotate signing keys yearly in the lab.\n");
  add.path = tmp.Sub("other");
  add.tags.clear();
  ASSERT_TRUE((*db)->AddResource(Root(), add).ok());

  FindRequest tagged = Query("rotate signing keys");
  tagged.tags = {"team=sec"};
  auto hits = (*db)->Find(Root(), tagged);
  ASSERT_TRUE(hits.ok());
  ASSERT_FALSE(hits->resources.empty());
  for (const MatchedContext& hit : hits->resources) {
    EXPECT_TRUE(hit.uri.starts_with("viking://resources/docs")) << hit.uri;
    EXPECT_EQ(hit.tags, std::vector<std::string>{"team=sec"});
  }

  // A rewrite re-indexes the file without tags of its own: it keeps them.
  WriteRequest write;
  write.uri = "viking://resources/docs/security/keys.md";
  write.content = "# Key rotation\n\nRotate the signing keys every sixty days now.\n";
  write.wait = true;
  ASSERT_TRUE((*db)->Write(Root(), write).ok());
  hits = (*db)->Find(Root(), tagged);
  ASSERT_TRUE(hits.ok());
  ASSERT_FALSE(hits->resources.empty());
  EXPECT_EQ(hits->resources[0].uri, "viking://resources/docs/security/keys.md");
  EXPECT_NE(hits->resources[0].abstract.find("sixty"), std::string::npos)
      << hits->resources[0].abstract;
}

TEST(IngestFindTest, FsckRepairMakesAdoptedFilesSearchable) {
  TempDir tmp;
  MakeDocs(tmp.Sub("docs"));
  DbOptions options = TestOptions(tmp);
  auto db = Db::Open(options);
  ASSERT_TRUE(db.ok());
  ImportWaiting(**db, tmp.Sub("docs"));
  // A file put into the content tree behind Skald's back.
  WriteLocal(tmp.Sub("ws/content/default/resources/docs/ops/pager.md"),
             "# Pager\n\nThe quokka rotation pages twice.\n");
  auto report = (*db)->Fsck(/*repair=*/true);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_FALSE(report->clean());
  ASSERT_TRUE((*db)->WaitIdle(30000).ok());
  auto hits = (*db)->Find(Root(), Query("quokka rotation"));
  ASSERT_TRUE(hits.ok());
  ASSERT_FALSE(hits->resources.empty());
  EXPECT_EQ(hits->resources[0].uri, "viking://resources/docs/ops/pager.md");
}

TEST(IngestFindTest, UsersNeverFindEachOthersPrivateContext) {
  TempDir tmp;
  DbOptions options = TestOptions(tmp);
  auto db = Db::Open(options);
  ASSERT_TRUE(db.ok());
  Identity alice{"default", "alice", Role::kUser};
  Identity bob{"default", "bob", Role::kUser};
  Identity other_account{"acme", "alice", Role::kUser};
  for (const auto& [who, text] :
       {std::pair{alice, "Alice keeps the walrus passphrase in the blue vault."},
        std::pair{bob, "Bob keeps the walrus passphrase under the red mat."},
        std::pair{other_account, "Acme's walrus passphrase is printed on the badge."}}) {
    WriteRequest write;
    write.uri = "viking://user/" + who.user + "/memories/secret.md";
    write.content = text;
    write.mode = WriteMode::kCreate;
    write.wait = true;
    auto written = (*db)->Write(who, write);
    ASSERT_TRUE(written.ok()) << written.status().ToString();
  }
  WriteRequest shared;
  shared.uri = "viking://resources/walrus.md";
  shared.content = "Walrus facts for everyone: walruses use their tusks to haul out.";
  shared.mode = WriteMode::kCreate;
  shared.wait = true;
  ASSERT_TRUE((*db)->Write(alice, shared).ok());

  auto seen_by = [&](const Identity& who, std::vector<std::string> targets = {}) {
    FindRequest find = Query("walrus passphrase");
    find.target_uris = std::move(targets);
    find.limit = 50;
    auto hits = (*db)->Find(who, find);
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    std::string all;
    if (hits.ok()) {
      for (const auto* group : {&hits->memories, &hits->resources, &hits->skills}) {
        for (const MatchedContext& hit : *group) all += hit.uri + " " + hit.abstract + "\n";
      }
    }
    return all;
  };
  std::string for_alice = seen_by(alice);
  EXPECT_NE(for_alice.find("blue vault"), std::string::npos) << for_alice;
  EXPECT_NE(for_alice.find("viking://resources/walrus.md"), std::string::npos) << for_alice;
  EXPECT_EQ(for_alice.find("red mat"), std::string::npos) << for_alice;
  EXPECT_EQ(for_alice.find("badge"), std::string::npos) << for_alice;
  EXPECT_EQ(for_alice.find("user/bob"), std::string::npos) << for_alice;
  std::string for_bob = seen_by(bob);
  EXPECT_NE(for_bob.find("red mat"), std::string::npos) << for_bob;
  EXPECT_EQ(for_bob.find("blue vault"), std::string::npos) << for_bob;
  // Asking for the whole tree or for the user scope does not widen what bob sees.
  std::string wide = seen_by(bob, {"viking://", "viking://user"});
  EXPECT_EQ(wide.find("blue vault"), std::string::npos) << wide;
  EXPECT_EQ(wide.find("badge"), std::string::npos) << wide;
  // Naming alice's tree is refused by its URI, as naming a tree of a user
  // who does not exist is.
  FindRequest probe = Query("walrus");
  probe.target_uris = {"viking://user/alice/memories"};
  auto refused = (*db)->Find(bob, probe);
  EXPECT_EQ(refused.status().code(), StatusCode::kPermissionDenied) << refused.status().ToString();
  probe.target_uris = {"viking://user/nobody/memories"};
  auto nobody = (*db)->Find(bob, probe);
  EXPECT_EQ(nobody.status().code(), StatusCode::kPermissionDenied) << nobody.status().ToString();
  EXPECT_EQ(nobody.status().message(), "Access denied for viking://user/nobody/memories");
  // The other account's alice sees only her own account.
  std::string acme = seen_by(other_account);
  EXPECT_NE(acme.find("badge"), std::string::npos) << acme;
  EXPECT_EQ(acme.find("blue vault"), std::string::npos) << acme;
  EXPECT_EQ(acme.find("walrus.md"), std::string::npos) << acme;
}

// The issue's "done when": an OpenAI-compatible server makes ingestion and
// search use it, with batched requests.
class ProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MakeDocs(tmp_.Sub("docs"));
    config_.provider = "openai";
    config_.model = "test-embed";
    config_.api_base = server_.base_url() + "/v1";
    config_.dimension = 8;
    config_.batch_size = 4;
    config_.max_retries = 0;
    // The outage test must see the breaker close again within the test.
    config_.circuit_breaker.reset_timeout = std::chrono::milliseconds(300);
    config_.circuit_breaker.max_reset_timeout = std::chrono::milliseconds(600);
  }

  Result<std::unique_ptr<Db>> Open(bool with_reranker, const std::string& workspace = "ws") {
    DbOptions options;
    options.workspace = tmp_.Sub(workspace);
    options.sync_writes = false;
    auto embedder = NewEmbedder(config_);
    if (!embedder.ok()) return embedder.status();
    options.embedder = std::move(*embedder);
    if (with_reranker) {
      RerankConfig rerank;
      rerank.provider = "cohere";
      rerank.api_base = server_.base_url();
      rerank.api_key = "k";
      rerank.model = "test-rerank";
      auto reranker = NewReranker(rerank);
      if (!reranker.ok()) return reranker.status();
      options.reranker = std::move(*reranker);
    }
    return Db::Open(options);
  }

  int CountPath(const std::string& path) const {
    int n = 0;
    for (const auto& r : server_.requests()) n += r.path == path;
    return n;
  }

  TempDir tmp_;
  FakeModelServer server_{8};
  EmbeddingConfig config_;
};

TEST_F(ProviderTest, IngestionAndFindUseTheConfiguredEmbedderInBatches) {
  auto db = Open(/*with_reranker=*/false);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ImportWaiting(**db, tmp_.Sub("docs"));
  // 5 files + 4 directories (docs, security, ops and the namespace root
  // viking://resources) x (L0, L1) = 13 texts → ceil(13 / 4) = 4 requests.
  int inputs = 0;
  for (const auto& r : server_.requests()) {
    if (r.path == "/v1/embeddings") inputs += static_cast<int>(r.body["input"].size());
  }
  EXPECT_EQ(inputs, 13);
  EXPECT_EQ(CountPath("/v1/embeddings"), 4);

  auto hits = (*db)->Find(Root(), Query("signing keys rotation"));
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  EXPECT_EQ(CountPath("/v1/embeddings"), 5);  // one request for the query
  EXPECT_EQ(server_.requests().back().body["input"][0], "signing keys rotation");
  ASSERT_FALSE(hits->resources.empty());

  // Re-adding the unchanged tree embeds nothing (cache + unchanged records).
  AddResourceRequest again;
  again.path = tmp_.Sub("docs");
  again.to = "viking://resources/docs";
  again.wait = true;
  ASSERT_TRUE((*db)->AddResource(Root(), again).ok());
  EXPECT_EQ(CountPath("/v1/embeddings"), 5);
}

// A package exported with its vectors and imported where the same embedder
// is configured: the files' vectors are taken from the package, not
// embedded again (vector_mode auto or require); "recompute" embeds them;
// "require" refuses a package made with another model.
TEST_F(ProviderTest, PackagedVectorsAreReusedWhenTheEmbedderMatches) {
  std::string package;
  {
    auto db = Open(/*with_reranker=*/false, "source");
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    ImportWaiting(**db, tmp_.Sub("docs"));
    auto exported = (*db)->ExportPack(Root(), "viking://resources/docs", /*include_vectors=*/true);
    ASSERT_TRUE(exported.ok()) << exported.status().ToString();
    package = std::move(exported->bytes);
  }
  // The texts sent to the embedder since request `from`.
  auto embedded_since = [&](size_t from) {
    std::vector<std::string> texts;
    const auto requests = server_.requests();
    for (size_t i = from; i < requests.size(); ++i) {
      if (requests[i].path != "/v1/embeddings") continue;
      for (const auto& input : requests[i].body["input"]) texts.push_back(input);
    }
    return texts;
  };
  auto file_texts = [](const std::vector<std::string>& texts) {
    int n = 0;
    for (const std::string& t : texts) {
      for (const char* start : {"# Key rotation", "# Password policy", "# Backups",
                                "Deployments run", "\"\"\"Command line"}) {
        n += t.rfind(start, 0) == 0;
      }
    }
    return n;
  };
  auto import = [&](Db& db, const std::string& parent, const std::string& mode) -> Status {
    auto upload = db.TempUpload(Root(), "docs.ovpack", package);
    if (!upload.ok()) return upload.status();
    PackImportRequest request;
    request.temp_file_id = *upload;
    request.parent = parent;
    request.vector_mode = mode;
    auto imported = db.ImportPack(Root(), request);
    if (!imported.ok()) return imported.status();
    return db.WaitIdle(60000);
  };
  {
    // A fresh workspace (nothing cached) that recomputes: the files are
    // embedded.
    auto fresh = Open(/*with_reranker=*/false, "recomputed");
    ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
    const size_t before = server_.requests().size();
    Status recomputed = import(**fresh, "viking://resources/recompute", "recompute");
    ASSERT_TRUE(recomputed.ok()) << recomputed.ToString();
    EXPECT_EQ(file_texts(embedded_since(before)), 5);
  }
  auto db = Open(/*with_reranker=*/false, "target");
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  for (const std::string mode : {"require", "auto"}) {
    SCOPED_TRACE(mode);
    const size_t before = server_.requests().size();
    Status imported = import(**db, "viking://resources/" + mode, mode);
    ASSERT_TRUE(imported.ok()) << imported.ToString();
    EXPECT_EQ(file_texts(embedded_since(before)), 0);
    auto hits = (*db)->Find(Root(), Query("nightly backups object storage"));
    ASSERT_TRUE(hits.ok()) << hits.status().ToString();
    EXPECT_TRUE(
        Contains(Uris(hits->resources), "viking://resources/" + mode + "/docs/ops/backups.md"));
  }

  // The packaged vectors served those imports only: the shared cache never
  // got them, so a later file with the same text is embedded (and a
  // refused import leaves nothing behind either).
  auto write_copy = [&](const std::string& uri) {
    const size_t before = server_.requests().size();
    WriteRequest copy;
    copy.uri = uri;
    copy.mode = WriteMode::kCreate;
    copy.content =
        "# Backups\n\nNightly backups go to object storage. Restores are tested every "
        "month by restoring the newest snapshot.\n";
    copy.wait = true;
    auto written = (*db)->Write(Root(), copy);
    EXPECT_TRUE(written.ok()) << written.status().ToString();
    return file_texts(embedded_since(before));
  };
  EXPECT_EQ(write_copy("viking://resources/later/backups.md"), 1);
  Status refused_import = import(**db, "viking://resources/require", "require");
  EXPECT_EQ(refused_import.code(), StatusCode::kAlreadyExists) << refused_import.ToString();
  EXPECT_EQ(write_copy("viking://resources/later2/backups-again.md"), 0);  // cached by the first

  config_.model = "other-embed";
  auto other = Open(/*with_reranker=*/false, "other");
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  Status refused = import(**other, "viking://resources/x", "require");
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << refused.ToString();
  EXPECT_NE(refused.message().find("incompatible"), std::string::npos) << refused.ToString();
  ASSERT_FALSE(refused.details().empty());
  EXPECT_EQ(refused.details().back().second, "embedding model mismatch");
  Status automatic = import(**other, "viking://resources/x", "auto");
  EXPECT_TRUE(automatic.ok()) << automatic.ToString();
}

TEST_F(ProviderTest, AccountsNeverShareTheEmbeddingCache) {
  // A cache hit in one account must not reveal that another account holds the
  // same text: the second account's import embeds everything itself.
  auto db = Open(/*with_reranker=*/false);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto embedded_texts = [&] {
    int inputs = 0;
    for (const auto& r : server_.requests()) {
      if (r.path == "/v1/embeddings") inputs += static_cast<int>(r.body["input"].size());
    }
    return inputs;
  };
  // Imports the docs for `who` and returns the task's result summary.
  auto import = [&](const Identity& who, const std::string& to) {
    AddResourceRequest add;
    add.path = tmp_.Sub("docs");
    add.to = to;
    auto added = (*db)->AddResource(who, add);
    EXPECT_TRUE(added.ok()) << added.status().ToString();
    if (!added.ok()) return nlohmann::json();
    EXPECT_TRUE((*db)->WaitIdle(60000).ok());
    auto task = (*db)->GetTask(who, added->task_id);
    EXPECT_TRUE(task.ok()) << task.status().ToString();
    if (!task.ok()) return nlohmann::json();
    EXPECT_EQ(task->status, TaskState::kCompleted) << task->error;
    return nlohmann::json::parse(task->result_json.empty() ? "{}" : task->result_json);
  };
  const Identity first{"default", "default", Role::kRoot};
  const Identity second{"acme", "default", Role::kRoot};

  nlohmann::json mine = import(first, "viking://resources/docs");
  const int first_texts = embedded_texts();
  EXPECT_EQ(mine.value("cache_hits", -1), 0) << mine.dump();
  EXPECT_EQ(mine.value("texts_embedded", -1), first_texts) << mine.dump();
  ASSERT_GT(first_texts, 0);

  nlohmann::json theirs = import(second, "viking://resources/docs");
  EXPECT_EQ(theirs.value("cache_hits", -1), 0) << theirs.dump();
  EXPECT_EQ(theirs.value("texts_embedded", -1), first_texts) << theirs.dump();
  EXPECT_EQ(embedded_texts(), 2 * first_texts);  // its own requests, every text

  // Within one account the cache still serves: the same files again under
  // another name reuse their vectors.
  nlohmann::json again = import(second, "viking://resources/copy");
  EXPECT_GT(again.value("cache_hits", 0), 0) << again.dump();
  EXPECT_LT(embedded_texts(), 3 * first_texts);
}

TEST_F(ProviderTest, RerankerMakesFindHierarchicalAndIsCalled) {
  auto db = Open(/*with_reranker=*/true);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ImportWaiting(**db, tmp_.Sub("docs"));
  FindRequest request = Query("password policy");
  request.include_provenance = true;
  auto hits = (*db)->Find(Root(), request);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_TRUE(hits->trace.has_value());
  EXPECT_EQ(hits->trace->mode, "thinking");
  EXPECT_GT(CountPath("/v1/rerank"), 0);
  ASSERT_FALSE(hits->resources.empty());
}

TEST_F(ProviderTest, ProviderOutageFailsClearlyAndRecovers) {
  auto db = Open(/*with_reranker=*/false);
  ASSERT_TRUE(db.ok());
  testing::Fault down;
  down.status = 500;
  server_.SetDefaultFault(down);
  // Search cannot embed its query: a clear error naming the provider.
  auto hits = (*db)->Find(Root(), Query("anything"));
  ASSERT_FALSE(hits.ok());
  EXPECT_NE(hits.status().message().find("openai"), std::string::npos) << hits.status().ToString();

  AddResourceRequest add;
  add.path = tmp_.Sub("docs");
  auto added = (*db)->AddResource(Root(), add);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  // The first attempt fails and records its error; the task is retried.
  for (int i = 0; i < 200; ++i) {
    auto task = (*db)->GetTask(Root(), added->task_id);
    ASSERT_TRUE(task.ok());
    if (!task->error.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  auto task = (*db)->GetTask(Root(), added->task_id);
  ASSERT_TRUE(task.ok());
  EXPECT_NE(task->error.find("500"), std::string::npos) << task->error;
  EXPECT_EQ(task->status, TaskState::kPending);  // waiting for its retry

  server_.SetDefaultFault(testing::Fault{});  // the provider is back
  ASSERT_TRUE((*db)->WaitIdle(60000).ok());
  task = (*db)->GetTask(Root(), added->task_id);
  ASSERT_TRUE(task.ok());
  EXPECT_EQ(task->status, TaskState::kCompleted) << task->error;
  hits = (*db)->Find(Root(), Query("nightly backups"));
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  EXPECT_FALSE(hits->resources.empty());
}

TEST_F(ProviderTest, ServerConfigFileWiresEmbedderAndReranker) {
  // What `skald serve --config` does: ov.conf JSON → DbOptions.
  std::string json = R"({
    "storage": {"workspace": ")" +
                     tmp_.Sub("ws") + R"("},
    "embedding": {"dense": {"provider": "openai", "model": "test-embed", "dimension": 8,
                            "batch_size": 16, "api_base": ")" +
                     server_.base_url() + R"(/v1"}},
    "rerank": {"provider": "cohere", "model": "test-rerank", "api_key": "k",
               "api_base": ")" +
                     server_.base_url() + R"(", "threshold": 0.0},
    "retrieval": {"hybrid_weight": 0.5}
  })";
  auto config = ParseConfig(json);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  ASSERT_TRUE(config->Validate().ok());
  auto options = DbOptionsFromConfig(*config, false);
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->retrieval.hybrid_weight, 0.5);
  EXPECT_DOUBLE_EQ(options->retrieval.score_threshold, 0.0);
  auto db = Db::Open(*options);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ImportWaiting(**db, tmp_.Sub("docs"));
  EXPECT_EQ(CountPath("/v1/embeddings"), 1);  // 13 texts, batch_size 16
  auto hits = (*db)->Find(Root(), Query("nightly backups"));
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  EXPECT_EQ(CountPath("/v1/embeddings"), 2);
  EXPECT_GT(CountPath("/v1/rerank"), 0);
  ASSERT_FALSE(hits->resources.empty());
  EXPECT_EQ(hits->resources[0].match_reason, "reranked");
}

}  // namespace
}  // namespace skald
