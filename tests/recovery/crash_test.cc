// Crash test: a child process runs a stream of writes, appends, mkdirs,
// moves and deletes against a workspace and reports each acknowledged
// operation through a pipe; the parent SIGKILLs it at a random point,
// reopens the workspace (running recovery) and checks that
//   * every acknowledged operation is reflected, the one in flight is
//     either wholly applied or not at all (per file), and nothing else
//     appeared;
//   * `fsck` (with full hashing) finds the content and catalog in agreement.
// Repeated over many kill points on one workspace, so recovery also runs on
// top of earlier recoveries.
//
// Both processes derive the operation stream from the same seed and a model
// of the tree (files -> contents, directories), which also predicts whether
// each operation succeeds; the child checks the Db against that prediction.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "skald/db.h"
#include "tests/testutil/subprocess.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

// The tree as the model sees it; paths are "resources/...".
struct Model {
  std::map<std::string, std::string> files;
  std::set<std::string> dirs{"resources"};

  bool IsFile(const std::string& p) const { return files.count(p) > 0; }
  bool IsDir(const std::string& p) const { return dirs.count(p) > 0; }
  bool Exists(const std::string& p) const { return IsFile(p) || IsDir(p); }
  // True when some ancestor of p is a file (so p cannot be created).
  bool AncestorIsFile(const std::string& p) const {
    for (size_t pos = p.find('/'); pos != std::string::npos; pos = p.find('/', pos + 1)) {
      if (IsFile(p.substr(0, pos))) return true;
    }
    return false;
  }
  void MakeParents(const std::string& p) {
    for (size_t pos = p.find('/'); pos != std::string::npos; pos = p.find('/', pos + 1)) {
      dirs.insert(p.substr(0, pos));
    }
  }
  static bool Under(const std::string& p, const std::string& root) {
    return p == root || (p.size() > root.size() && p.compare(0, root.size(), root) == 0 &&
                         p[root.size()] == '/');
  }
};

enum class OpKind { kCreate, kReplace, kAppend, kMkdir, kRm, kMv };

struct Op {
  OpKind kind;
  std::string path;
  std::string other;    // mv target
  std::string content;  // create/replace/append
};

// Applies `op` to the model if it would succeed; returns whether it does.
bool ApplyToModel(Model& m, const Op& op) {
  switch (op.kind) {
    case OpKind::kCreate:
      if (m.Exists(op.path) || m.AncestorIsFile(op.path)) return false;
      m.MakeParents(op.path);
      m.files[op.path] = op.content;
      return true;
    case OpKind::kReplace:
      if (!m.IsFile(op.path)) return false;
      m.files[op.path] = op.content;
      return true;
    case OpKind::kAppend:
      if (!m.IsFile(op.path)) return false;
      m.files[op.path] += op.content;
      return true;
    case OpKind::kMkdir:
      if (m.Exists(op.path) || m.AncestorIsFile(op.path)) return false;
      m.MakeParents(op.path);
      m.dirs.insert(op.path);
      return true;
    case OpKind::kRm:
      std::erase_if(m.files, [&](const auto& kv) { return Model::Under(kv.first, op.path); });
      std::erase_if(m.dirs, [&](const std::string& d) { return Model::Under(d, op.path); });
      return true;
    case OpKind::kMv: {
      if (!m.Exists(op.path) || m.Exists(op.other) || Model::Under(op.other, op.path) ||
          m.AncestorIsFile(op.other)) {
        return false;
      }
      m.MakeParents(op.other);
      auto rebase = [&](const std::string& p) { return op.other + p.substr(op.path.size()); };
      std::map<std::string, std::string> files;
      for (auto& [p, c] : m.files) files[Model::Under(p, op.path) ? rebase(p) : p] = c;
      std::set<std::string> dirs;
      for (const auto& d : m.dirs) dirs.insert(Model::Under(d, op.path) ? rebase(d) : d);
      m.files = std::move(files);
      m.dirs = std::move(dirs);
      return true;
    }
  }
  return false;
}

// Deterministic operation stream over a small name space, so operations
// collide (replace what exists, move onto existing names, delete parents).
class OpGenerator {
 public:
  explicit OpGenerator(uint64_t seed) : rng_(seed) {}

  Op Next(const Model& m, int index) {
    Op op;
    int roll = Pick(100);
    if (roll < 30) {
      op.kind = OpKind::kCreate;
      op.path = RandomPath(true);
    } else if (roll < 45) {
      op.kind = OpKind::kReplace;
      op.path = ExistingFileOr(m);
    } else if (roll < 60) {
      op.kind = OpKind::kAppend;
      op.path = ExistingFileOr(m);
    } else if (roll < 70) {
      op.kind = OpKind::kMkdir;
      op.path = RandomPath(false);
    } else if (roll < 82) {
      op.kind = OpKind::kRm;
      op.path = Pick(2) ? ExistingFileOr(m) : RandomPath(false);
    } else {
      op.kind = OpKind::kMv;
      op.path = Pick(2) ? ExistingFileOr(m) : RandomPath(false);
      op.other = Pick(2) ? RandomPath(true) : RandomPath(false);
    }
    // Mostly small bodies, sometimes large ones so the kill lands mid-write.
    size_t size = Pick(10) == 0 ? 64 * 1024 + Pick(64 * 1024) : 1 + Pick(200);
    op.content = "op" + std::to_string(index) + ":";
    while (op.content.size() < size) op.content += static_cast<char>('a' + Pick(26));
    op.content += '\n';
    return op;
  }

 private:
  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  std::string RandomPath(bool file) {
    static const char* kDirs[] = {"a", "b", "c"};
    static const char* kFiles[] = {"x.md", "y.md", "z.txt"};
    std::string p = "resources";
    size_t depth = 1 + Pick(3);
    for (size_t i = 0; i + 1 < depth; ++i) p += std::string("/") + kDirs[Pick(3)];
    p += "/";
    p += file ? kFiles[Pick(3)] : kDirs[Pick(3)];
    return p;
  }
  std::string ExistingFileOr(const Model& m) {
    if (m.files.empty() || Pick(5) == 0) return RandomPath(true);
    auto it = m.files.begin();
    std::advance(it, static_cast<long>(Pick(m.files.size())));
    return it->first;
  }
  std::mt19937_64 rng_;
};

Status RunOnDb(Db& db, const Op& op) {
  Identity who{"default", "default", Role::kRoot};
  std::string uri = "viking://" + op.path;
  switch (op.kind) {
    case OpKind::kCreate:
      return db.Write(who, {uri, op.content, WriteMode::kCreate}).status();
    case OpKind::kReplace:
      return db.Write(who, {uri, op.content, WriteMode::kReplace}).status();
    case OpKind::kAppend:
      return db.Write(who, {uri, op.content, WriteMode::kAppend}).status();
    case OpKind::kMkdir:
      return db.Mkdir(who, uri, "").status();
    case OpKind::kRm:
      return db.Rm(who, uri, true).status();
    case OpKind::kMv:
      return db.Mv(who, uri, "viking://" + op.other).status();
  }
  return Status::Internal("unknown op");
}

// Reads the whole tree under viking://resources into a model.
Result<Model> ReadModel(Db& db) {
  Identity who{"default", "default", Role::kRoot};
  LsOptions all;
  all.show_all_hidden = true;
  all.node_limit = 1 << 30;
  all.level_limit = 64;
  SKALD_ASSIGN_OR_RETURN(auto entries, db.Tree(who, "viking://resources", all));
  Model m;
  for (const LsEntry& e : entries) {
    std::string path = e.node.uri.substr(std::string("viking://").size());
    if (e.node.is_dir) {
      m.dirs.insert(path);
    } else if (e.node.name == ".abstract.md" || e.node.name == ".overview.md") {
      // Directory summaries are written by background indexing, not by the
      // operations under test; fsck still checks them against the catalog.
      continue;
    } else {
      SKALD_ASSIGN_OR_RETURN(m.files[path], db.Read(who, e.node.uri, 0, -1, /*raw=*/true));
    }
  }
  return m;
}

Result<std::unique_ptr<Db>> OpenWorkspace(const std::string& dir) {
  DbOptions options;
  options.workspace = dir;
  options.sync_writes = true;
  return Db::Open(options);
}

// Child: runs operations forever, acknowledging each on `ack_fd` as
// "<index> <ok|err>\n". Exits 3 when the Db disagrees with the model.
[[noreturn]] void ChildMain(const std::string& dir, uint64_t seed, int ack_fd) {
  auto db = OpenWorkspace(dir);
  if (!db.ok()) {
    std::fprintf(stderr, "child open: %s\n", db.status().ToString().c_str());
    _exit(2);
  }
  auto model = ReadModel(**db);
  if (!model.ok()) _exit(2);
  OpGenerator gen(seed);
  for (int i = 0;; ++i) {
    Op op = gen.Next(*model, i);
    bool expect_ok = ApplyToModel(*model, op);
    Status st = RunOnDb(**db, op);
    if (st.ok() != expect_ok) {
      std::fprintf(stderr, "op %d (kind %d %s -> %s): model says %d, db says %s\n", i,
                   static_cast<int>(op.kind), op.path.c_str(), op.other.c_str(), expect_ok,
                   st.ToString().c_str());
      _exit(3);
    }
    std::string ack = std::to_string(i) + (st.ok() ? " ok\n" : " err\n");
    if (write(ack_fd, ack.data(), ack.size()) != static_cast<ssize_t>(ack.size())) _exit(4);
  }
}

// Checks `actual` against the states before (`acked`) and after
// (`inflight`) the operation that may have been running at the kill.
void ExpectConsistent(const Model& actual, const Model& acked, const Model& inflight,
                      int iteration) {
  std::set<std::string> paths;
  for (const auto* m : {&actual, &acked, &inflight}) {
    for (const auto& [p, c] : m->files) paths.insert(p);
  }
  for (const std::string& p : paths) {
    auto get = [&](const Model& m) -> std::optional<std::string> {
      auto it = m.files.find(p);
      if (it == m.files.end()) return std::nullopt;
      return it->second;
    };
    auto a = get(actual);
    EXPECT_TRUE(a == get(acked) || a == get(inflight))
        << "iteration " << iteration << ": file " << p << " is "
        << (a ? "\"" + a->substr(0, 40) + "...\"" : "missing")
        << ", matching neither the acknowledged state nor the in-flight operation";
  }
  for (const std::string& d : acked.dirs) {
    if (inflight.dirs.count(d)) {
      EXPECT_TRUE(actual.dirs.count(d)) << "iteration " << iteration << ": lost directory " << d;
    }
  }
  for (const std::string& d : actual.dirs) {
    EXPECT_TRUE(acked.dirs.count(d) || inflight.dirs.count(d))
        << "iteration " << iteration << ": unexpected directory " << d;
  }
}

TEST(CrashTest, AcknowledgedWorkSurvivesSigkillAtManyPoints) {
  testing::TempDir tmp;
  std::string dir = tmp.Sub("ws");
  std::mt19937_64 timing(20261130);
  constexpr int kIterations = 40;
  uint64_t total_acked = 0;
  uint64_t hits_checked = 0;
  for (int iter = 0; iter < kIterations; ++iter) {
    // The parent's model of the starting state is whatever is on disk now.
    Model start;
    {
      auto db = OpenWorkspace(dir);
      ASSERT_TRUE(db.ok()) << db.status().ToString();
      auto m = ReadModel(**db);
      ASSERT_TRUE(m.ok()) << m.status().ToString();
      start = *m;
    }
    uint64_t seed = 1000 + static_cast<uint64_t>(iter);
    testing::ForkedChild child = testing::ForkChild([&](int fd) { ChildMain(dir, seed, fd); });
    ASSERT_GE(child.pid, 0);
    FILE* acks = fdopen(child.from_child, "r");
    int kill_after = 1 + static_cast<int>(timing() % 40);
    std::vector<bool> results;
    char line[64];
    while (static_cast<int>(results.size()) < kill_after && fgets(line, sizeof(line), acks)) {
      results.push_back(std::string(line).find(" ok") != std::string::npos);
    }
    // Let the next operation get under way, then kill mid-flight.
    usleep(static_cast<useconds_t>(timing() % 3000));
    kill(child.pid, SIGKILL);
    // Acks written before the kill are still in the pipe: they count too.
    while (fgets(line, sizeof(line), acks)) {
      results.push_back(std::string(line).find(" ok") != std::string::npos);
    }
    fclose(acks);
    const int status = testing::KillAndReap(child.pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "child exited on its own with status " << WEXITSTATUS(status)
        << " (3 = the Db disagreed with the model; see stderr)";

    // Replay: the model must agree with every acknowledged result.
    Model acked = start;
    OpGenerator gen(seed);
    for (size_t i = 0; i < results.size(); ++i) {
      Op op = gen.Next(acked, static_cast<int>(i));
      ASSERT_EQ(ApplyToModel(acked, op), results[i]) << "iteration " << iter << " op " << i;
    }
    Model inflight = acked;
    ApplyToModel(inflight, gen.Next(inflight, static_cast<int>(results.size())));
    total_acked += results.size();

    auto db = OpenWorkspace(dir);  // runs recovery
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto actual = ReadModel(**db);
    ASSERT_TRUE(actual.ok()) << actual.status().ToString();
    ExpectConsistent(*actual, acked, inflight, iter);
    auto fsck = (*db)->Fsck(/*repair=*/false);
    ASSERT_TRUE(fsck.ok()) << fsck.status().ToString();
    for (const FsckIssue& issue : fsck->issues) {
      ADD_FAILURE() << "iteration " << iter << ": fsck: " << issue.kind << " " << issue.uri
                    << " (" << issue.detail << ")";
    }
    // Search never returns content that does not exist after recovery
    // (records die with their nodes in one transaction).
    FindRequest find;
    find.query = "op1 op2 op3 op10 op20";  // contents start with "op<index>:"
    find.limit = 200;
    find.score_threshold = 0.0;
    auto hits = (*db)->Find(Identity{"default", "default", Role::kRoot}, find);
    ASSERT_TRUE(hits.ok()) << hits.status().ToString();
    for (const MatchedContext& hit : hits->resources) {
      if (hit.level != 2) continue;
      std::string path = hit.uri.substr(std::string("viking://").size());
      EXPECT_TRUE(actual->files.count(path) > 0)
          << "iteration " << iter << ": find returned " << hit.uri << ", which does not exist";
      ++hits_checked;
    }
    if (HasFailure()) return;
  }
  EXPECT_GT(hits_checked, 0u) << "find never returned a file: the search check checked nothing";
  std::printf("crash test: %d kill points, %llu acknowledged operations verified, %llu search "
              "hits checked\n",
              kIterations, static_cast<unsigned long long>(total_acked),
              static_cast<unsigned long long>(hits_checked));
}

}  // namespace
}  // namespace skald
