#include "ingest/semantic_indexer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "common/hash.h"
#include "index/memory_lexical_index.h"
#include "index/vector_index_set.h"
#include "ingest/ingest_jobs.h"
#include "ingest/file_bodies.h"
#include "ingest/index_catch_up.h"
#include "ingest/sidecar.h"
#include "model/hashing_embedder.h"
#include "storage/catalog.h"
#include "storage/content_store.h"
#include "storage/path_lock.h"
#include "text/summarizer.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

using testing::TempDir;

// A workspace's storage layer, filled through the same calls the Db uses.
class SemanticIndexerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LocalContentStoreOptions content_options;
    content_options.root = tmp_.Sub("content");
    content_options.trash_dir = tmp_.Sub("trash");
    content_options.sync = false;
    auto content = NewLocalContentStore(content_options);
    ASSERT_TRUE(content.ok());
    content_ = std::move(*content);
    CatalogOptions catalog_options;
    catalog_options.path = tmp_.Sub("skald.db");
    catalog_options.sync = false;
    auto catalog = Catalog::Open(catalog_options);
    ASSERT_TRUE(catalog.ok());
    catalog_ = std::move(*catalog);
    HashingEmbedderOptions embed_options;
    embed_options.dimension = 64;
    auto embedder = NewDefaultHashingEmbedder(embed_options);
    ASSERT_TRUE(embedder.ok());
    embedder_ = std::move(*embedder);
    summarizer_ = NewExtractiveSummarizer();
    indexer_ = std::make_unique<SemanticIndexer>(content_.get(), catalog_.get(), &locks_,
                                                 embedder_.get(), summarizer_.get(),
                                                 SemanticIndexerOptions{});
  }

  void Dir(const std::string& path) {
    ASSERT_TRUE(content_->MakeDir("acct", path).ok());
    CatalogNode n;
    n.path = path;
    n.is_dir = true;
    ASSERT_TRUE(catalog_->Put("acct", n).ok());
  }

  void File(const std::string& path, const std::string& text) {
    ASSERT_TRUE(content_->WriteFile("acct", path, text).ok());
    CatalogNode n;
    n.path = path;
    n.size = text.size();
    n.hash = Sha256Hex(text);
    ASSERT_TRUE(catalog_->Put("acct", n).ok());
  }

  std::vector<Record> Records() {
    std::vector<Record> out;
    EXPECT_TRUE(catalog_
                    ->ScanRecords("acct", false,
                                  [&](const Record& r) {
                                    out.push_back(r);
                                    return Status::Ok();
                                  })
                    .ok());
    return out;
  }

  void MakeTree() {
    ASSERT_TRUE(content_->MakeDir("acct", "").ok());
    Dir("resources");
    Dir("resources/kb");
    Dir("resources/kb/net");
    File("resources/kb/net/dns.md", "# DNS\n\nResolvers cache answers for the record TTL.\n");
    File("resources/kb/net/tls.md", "# TLS\n\nCertificates are renewed thirty days early.\n");
    File("resources/kb/intro.md", "# Intro\n\nThis knowledge base covers networking.\n");
  }

  TempDir tmp_;
  std::unique_ptr<ContentStore> content_;
  std::unique_ptr<Catalog> catalog_;
  PathLockManager locks_;
  std::unique_ptr<Embedder> embedder_;
  std::unique_ptr<Summarizer> summarizer_;
  std::unique_ptr<SemanticIndexer> indexer_;
};

// A directory's L0 says what its files are about, judged against the
// other files of the tree; the parent's overview says where to look.
TEST_F(SemanticIndexerTest, DirectorySummariesNameTheirTopics) {
  ASSERT_TRUE(content_->MakeDir("acct", "").ok());
  Dir("resources");
  Dir("resources/lib");
  Dir("resources/lib/a");
  Dir("resources/lib/b");
  for (int i = 0; i < 6; ++i) {
    std::string n = std::to_string(i);
    File("resources/lib/a/" + n + ".md", "# Insulin resistance in cohort " + n +
                                             "\n\nInsulin resistance and adipose tissue in the "
                                             "trial.\n");
    File("resources/lib/b/" + n + ".md", "# Telescope mirrors, night " + n +
                                             "\n\nTelescope mirrors were ground for the trial.\n");
  }
  auto stats = indexer_->IndexTree("acct", "resources/lib");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  auto abstract = [&](const std::string& dir) {
    auto text = content_->ReadFile("acct", dir + "/.abstract.md");
    EXPECT_TRUE(text.ok()) << dir;
    return text.ok() ? ParseSidecar(*text).body : std::string();
  };
  std::string a = abstract("resources/lib/a");
  std::string b = abstract("resources/lib/b");
  EXPECT_TRUE(a.starts_with("Covers insulin resistance")) << a;
  EXPECT_EQ(a.find("telescope"), std::string::npos) << a;
  EXPECT_TRUE(b.starts_with("Covers telescope mirrors")) << b;
  // "trial" is in every file of the tree: it tells the directories apart
  // less than their own topics do.
  EXPECT_GT(a.find("trial"), a.find("adipose tissue")) << a;
  auto overview = content_->ReadFile("acct", "resources/lib/.overview.md");
  ASSERT_TRUE(overview.ok());
  EXPECT_NE(overview->find("- insulin resistance: a/"), std::string::npos) << *overview;
  EXPECT_NE(overview->find("- telescope mirrors: b/"), std::string::npos) << *overview;
}

TEST_F(SemanticIndexerTest, IndexesFilesAndSummarizesDirectoriesBottomUp) {
  MakeTree();
  std::vector<std::string> stages;
  auto stats = indexer_->IndexTree("acct", "resources/kb",
                                   [&](std::string_view s) { stages.emplace_back(s); });
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->files, 3u);
  // kb/net, kb, and the namespace root viking://resources (an ancestor).
  EXPECT_EQ(stats->directories, 3u);
  EXPECT_EQ(stats->records_written, 3u + 3 * 2);
  EXPECT_EQ(stats->texts_embedded, 9u);
  EXPECT_FALSE(stages.empty());

  std::vector<Record> records = Records();
  ASSERT_EQ(records.size(), 9u);
  for (const Record& r : records) {
    EXPECT_EQ(static_cast<int>(r.vector.size()), 64);
    EXPECT_EQ(r.context_type, ContextType::kResource);
    EXPECT_EQ(r.embedder, embedder_->Name());
    std::string suffix = r.level == 0 ? "/.abstract.md" : r.level == 1 ? "/.overview.md" : "";
    EXPECT_EQ(r.id, Md5Hex("acct:" + r.uri + suffix));
  }
  // The parent's overview lists the sub-directory with the child's abstract.
  auto net_abstract = content_->ReadFile("acct", "resources/kb/net/.abstract.md");
  ASSERT_TRUE(net_abstract.ok());
  Sidecar net = ParseSidecar(*net_abstract);
  EXPECT_NE(net.frontmatter.find("SemanticIndexer"), std::string::npos);
  EXPECT_FALSE(net.body.empty());
  EXPECT_LE(net.body.size(), 256u);
  auto kb_overview = content_->ReadFile("acct", "resources/kb/.overview.md");
  ASSERT_TRUE(kb_overview.ok());
  EXPECT_NE(kb_overview->find("net/"), std::string::npos) << *kb_overview;
  // Sidecars are catalog nodes too (ls, fsck).
  auto node = catalog_->Get("acct", "resources/kb/.overview.md");
  ASSERT_TRUE(node.ok());
  EXPECT_TRUE(node->has_value());
}

// An import's indexes catch up beside it: the files' records are written
// (and announced) before the directories are summarized, and a follower
// brings the indexes up to them; Finish leaves everything findable.
TEST_F(SemanticIndexerTest, RecordsArriveEarlyAndAFollowerIndexesThem) {
  ASSERT_TRUE(content_->MakeDir("acct", "").ok());
  Dir("resources");
  Dir("resources/many");
  constexpr int kFiles = 600;  // past one early flush (512 file records)
  for (int i = 0; i < kFiles; ++i) {
    File("resources/many/f" + std::to_string(i) + ".md",
         "# Note " + std::to_string(i) + "\n\nGlacier survey number " + std::to_string(i) + ".\n");
  }
  LexicalIndexOptions lexical_options;
  lexical_options.path = tmp_.Sub("index/lexical.mem");
  auto lexical = OpenMemoryLexicalIndex(lexical_options);
  ASSERT_TRUE(lexical.ok()) << lexical.status().ToString();
  VectorIndexSetOptions vector_options;
  vector_options.dir = tmp_.Sub("index");
  vector_options.index.embedder = embedder_->Name();
  vector_options.index.dim = embedder_->Dimension();
  auto vectors = VectorIndexSet::Open(vector_options, catalog_.get());
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  IndexCatchUp indexes(catalog_.get(), content_.get(), lexical->get(), vectors->get());

  IndexCatchUp::Follower follower(&indexes, nullptr);
  std::vector<int64_t> announced;  // the catalog's last record at each announcement
  // Whether the follower indexed the first records while the indexer was
  // still at work (waited for, boundedly, at the second announcement).
  bool indexed_while_running = false;
  SemanticIndexerOptions options;
  options.records_written = [&] {
    announced.push_back(*catalog_->MaxRecordSeq());
    follower.Notify();
    if (announced.size() == 2) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (!indexed_while_running && std::chrono::steady_clock::now() < deadline) {
        indexed_while_running = (*lexical)->applied_seq() >= announced.front();
        if (!indexed_while_running) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
  };
  SemanticIndexer indexer(content_.get(), catalog_.get(), &locks_, embedder_.get(),
                          summarizer_.get(), options);
  auto stats = indexer.IndexTree("acct", "resources/many");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  ASSERT_TRUE(follower.Finish().ok());

  ASSERT_GE(announced.size(), 2u);
  EXPECT_TRUE(indexed_while_running) << "the follower indexed nothing before Finish";
  std::vector<Record> records = Records();
  ASSERT_EQ(records.size(), kFiles + 2u * 2);  // files; many/ and resources/ (L0 and L1)
  for (const Record& r : records) {
    // The first transaction held file records only: they were written as
    // they came (by the record writer, beside the rest of the pass), not
    // after the directories.
    if (r.seq <= announced.front()) {
      EXPECT_EQ(r.level, 2) << r.uri;
    }
  }
  const int64_t last = *catalog_->MaxRecordSeq();
  EXPECT_EQ(announced.back(), last);
  EXPECT_EQ((*lexical)->applied_seq(), last);
  EXPECT_EQ((*vectors)->MinAppliedSeq(), last);
  RecordFilter filter;
  filter.account = "acct";
  auto counted = (*lexical)->Count(filter);
  ASSERT_TRUE(counted.ok());
  EXPECT_EQ(*counted, records.size());
  VectorIndex* index = (*vectors)->Find("acct");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->size(), records.size());
}

TEST(FileBodiesTest, FindsItsAccountsPathsAndHandsANotedRecordOutOnce) {
  const std::string text = "lent bytes";
  FileBodies bodies("acct");
  bodies.Add("resources/a.md", text, Sha256Hex(text));
  const FileBodies::Body* body = bodies.Find("acct", "resources/a.md");
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(body->bytes, text);
  EXPECT_EQ(body->sha256_hex, Sha256Hex(text));
  EXPECT_EQ(bodies.Find("other", "resources/a.md"), nullptr);
  EXPECT_EQ(bodies.Find("acct", "resources/b.md"), nullptr);
  bodies.NoteRecord(7, body);
  EXPECT_FALSE(bodies.TakeRecordBody(6).has_value());
  auto taken = bodies.TakeRecordBody(7);
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(taken->bytes, text);
  EXPECT_EQ(taken->terms, nullptr);
  EXPECT_FALSE(bodies.TakeRecordBody(7).has_value());
  // Terms set before the record is noted go with it, once.
  auto terms = std::make_shared<TermList>("tok", text.size());
  terms->Term("lent");
  auto summary_terms = std::make_shared<TermList>("tok", text.size());
  bodies.SetTerms("resources/a.md", terms);
  bodies.SetTerms("resources/a.md", nullptr, summary_terms);  // keeps the body's
  bodies.NoteRecord(8, body);
  EXPECT_EQ(body->terms, nullptr);  // handed on
  EXPECT_EQ(body->summary_terms, nullptr);
  taken = bodies.TakeRecordBody(8);
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(taken->terms, terms);
  EXPECT_EQ(taken->summary_terms, summary_terms);
}

// The bytes an import lends are what gets summarized and what the lexical
// index takes as the file text: with the file gone from the content store
// (a state no import leaves, made here to tell the two sources apart), the
// lent file is still indexed, text and all; a file not lent is read back.
TEST_F(SemanticIndexerTest, LentBytesAreSummarizedAndIndexedWithoutReadingBack) {
  ASSERT_TRUE(content_->MakeDir("acct", "").ok());
  Dir("resources");
  Dir("resources/lent");
  std::string lent_text = "# Survey\n\n";
  for (int i = 0; i < 40; ++i) lent_text += "The glacier survey measured ice thickness again. ";
  lent_text += "A zeppelin carried the instruments.\n";
  std::string read_text = "# Other\n\n";
  for (int i = 0; i < 40; ++i) read_text += "The lake survey measured water depth again. ";
  read_text += "A dirigible carried the sonar.\n";
  File("resources/lent/a.md", lent_text);
  File("resources/lent/b.md", read_text);
  ASSERT_TRUE(content_->Remove("acct", "resources/lent/a.md").ok());

  LexicalIndexOptions lexical_options;
  lexical_options.path = tmp_.Sub("index/lexical.mem");
  auto lexical = OpenMemoryLexicalIndex(lexical_options);
  ASSERT_TRUE(lexical.ok()) << lexical.status().ToString();
  IndexCatchUp indexes(catalog_.get(), content_.get(), lexical->get(), nullptr);
  FileBodies bodies("acct");
  bodies.Add("resources/lent/a.md", lent_text, Sha256Hex(lent_text));
  IndexCatchUp::Follower follower(&indexes, nullptr, &bodies);
  SemanticIndexerOptions options;
  options.file_bodies = &bodies;
  options.records_written = [&] { follower.Notify(); };
  SemanticIndexer indexer(content_.get(), catalog_.get(), &locks_, embedder_.get(),
                          summarizer_.get(), options);
  auto stats = indexer.IndexTree("acct", "resources/lent");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  ASSERT_TRUE(follower.Finish().ok());
  EXPECT_EQ(stats->files, 2u);

  std::map<std::string, Record> files;
  for (const Record& r : Records()) {
    if (r.level == 2) files[r.uri] = r;
  }
  ASSERT_EQ(files.count("viking://resources/lent/a.md"), 1u);
  ASSERT_EQ(files.count("viking://resources/lent/b.md"), 1u);
  EXPECT_NE(files["viking://resources/lent/a.md"].abstract.find("glacier"), std::string::npos)
      << files["viking://resources/lent/a.md"].abstract;
  // Words only at the end of each text (not in the abstracts): found
  // through the file text the catch-up took, lent or read back.
  for (const auto& [word, uri] : {std::pair{"zeppelin", "viking://resources/lent/a.md"},
                                  std::pair{"dirigible", "viking://resources/lent/b.md"}}) {
    EXPECT_EQ(files[uri].abstract.find(word), std::string::npos) << files[uri].abstract;
    RecordFilter filter;
    filter.account = "acct";
    std::vector<SearchHit> hits;
    ASSERT_TRUE((*lexical)->Search(word, filter, 5, &hits).ok());
    ASSERT_EQ(hits.size(), 1u) << word;
    EXPECT_EQ(hits[0].id, files[uri].key) << word;
  }
}

// What PrepareFiles computes ahead is what indexing would compute (the
// same summary, the same vector), and indexing takes it instead of
// computing again: a prepared summary replaced by a marker is what the
// record says. A stop set from the start prepares nothing.
TEST_F(SemanticIndexerTest, FilesPreparedAheadGiveTheSameRecords) {
  ASSERT_TRUE(content_->MakeDir("acct", "").ok());
  Dir("resources");
  Dir("resources/ahead");
  FileBodies bodies("acct");
  std::vector<std::string> texts, paths;
  for (int i = 0; i < 20; ++i) {  // past one preparing batch
    texts.push_back("# Report " + std::to_string(i) + "\n\nThe moraine survey " +
                    std::to_string(i) + " mapped glacier retreat.\n");
    paths.push_back("resources/ahead/r" + std::to_string(i) + ".md");
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    File(paths[i], texts[i]);
    bodies.Add(paths[i], texts[i], Sha256Hex(texts[i]));
  }
  SemanticIndexerOptions options;
  options.file_bodies = &bodies;
  SemanticIndexer indexer(content_.get(), catalog_.get(), &locks_, embedder_.get(),
                          summarizer_.get(), options);
  std::atomic<bool> stopped{true};
  indexer.PrepareFiles("acct", paths, stopped);
  EXPECT_FALSE(bodies.Find("acct", paths[0])->prepared.has_value());
  std::atomic<bool> go{false};
  indexer.PrepareFiles("acct", paths, go);
  for (size_t i = 0; i < paths.size(); ++i) {
    const FileBodies::Body* body = bodies.Find("acct", paths[i]);
    ASSERT_TRUE(body->prepared.has_value()) << paths[i];
    auto summary = summarizer_->SummarizeFile("r" + std::to_string(i) + ".md", texts[i]);
    ASSERT_TRUE(summary.ok());
    EXPECT_EQ(body->prepared->summary, *summary);
    auto vectors = embedder_->Embed(std::vector<std::string>{texts[i]}, EmbedKind::kDocument);
    ASSERT_TRUE(vectors.ok());
    EXPECT_EQ(body->prepared->vector, vectors->front()) << paths[i];
  }
  FileBodies::Prepared marked = *bodies.Find("acct", paths[3])->prepared;
  marked.summary = "Prepared ahead marker.";
  bodies.SetPrepared(paths[3], marked);
  std::map<std::string, std::string> prepared_summaries;
  for (const std::string& path : paths) {
    prepared_summaries[path] = bodies.Find("acct", path)->prepared->summary;
  }

  auto stats = indexer.IndexTree("acct", "resources/ahead");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->files, paths.size());
  EXPECT_EQ(stats->texts_embedded, paths.size() + 2u * 2);  // files, ahead/ and resources/
  size_t checked = 0;
  for (const Record& r : Records()) {
    if (r.level != 2) continue;
    const std::string path = r.uri.substr(std::string("viking://").size());
    const size_t i = std::find(paths.begin(), paths.end(), path) - paths.begin();
    ASSERT_LT(i, paths.size()) << r.uri;
    auto vectors = embedder_->Embed(std::vector<std::string>{texts[i]}, EmbedKind::kDocument);
    EXPECT_EQ(r.vector, vectors->front()) << r.uri;
    if (i == 3) {
      EXPECT_EQ(r.abstract, "Prepared ahead marker.");
    } else {
      EXPECT_EQ(r.abstract, prepared_summaries[path]) << r.uri;
    }
    ++checked;
  }
  EXPECT_EQ(checked, paths.size());
  // Taken by indexing, not kept twice.
  for (const std::string& path : paths) {
    EXPECT_FALSE(bodies.Find("acct", path)->prepared.has_value()) << path;
  }
}

TEST_F(SemanticIndexerTest, UnchangedTreeWritesNothingTheSecondTime) {
  MakeTree();
  ASSERT_TRUE(indexer_->IndexTree("acct", "resources/kb").ok());
  auto seq = catalog_->MaxRecordSeq();
  auto again = indexer_->IndexTree("acct", "resources/kb");
  ASSERT_TRUE(again.ok());
  // The built-in embedder is not cached (it embeds faster than the cache
  // answers): the texts are embedded again, to the same vectors.
  EXPECT_EQ(again->texts_embedded, 9u);
  EXPECT_EQ(again->cache_hits, 0u);
  EXPECT_EQ(again->records_written, 0u);
  EXPECT_EQ(again->records_unchanged, 9u);
  EXPECT_EQ(*catalog_->MaxRecordSeq(), *seq);  // indexes have nothing to catch up

  // One changed file: its record and its ancestors' summaries only.
  File("resources/kb/net/dns.md", "# DNS\n\nResolvers now prefetch popular names.\n");
  auto changed = indexer_->IndexTree("acct", "resources/kb/net/dns.md");
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(changed->files, 1u);
  EXPECT_EQ(changed->directories, 3u);  // net, kb and resources refreshed
  EXPECT_GE(changed->records_written, 1u);
  EXPECT_LE(changed->texts_embedded, 7u);
}

TEST_F(SemanticIndexerTest, UserWrittenSidecarIsKept) {
  MakeTree();
  std::string mine = RenderSidecar(SidecarFrontmatter("viking://resources/kb/net", "Mkdir", "mkdir"),
                                   "Hand-written notes about the network.");
  File("resources/kb/net/.abstract.md", mine);
  ASSERT_TRUE(indexer_->IndexTree("acct", "resources/kb").ok());
  auto text = content_->ReadFile("acct", "resources/kb/net/.abstract.md");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, mine);
  auto records = catalog_->GetRecordsByUri("acct", "viking://resources/kb/net");
  ASSERT_TRUE(records.ok());
  bool found = false;
  for (const Record& r : *records) {
    if (r.level == 0) found = r.abstract == "Hand-written notes about the network.";
  }
  EXPECT_TRUE(found);
}

TEST_F(SemanticIndexerTest, DeletedPathLosesItsRecordsAndSessionsAreNeverIndexed) {
  MakeTree();
  Dir("user");
  Dir("user/alice");
  Dir("user/alice/sessions");
  Dir("user/alice/sessions/s1");
  File("user/alice/sessions/s1/messages.jsonl", "{\"role\":\"user\"}\n");
  Dir("user/alice/memories");
  File("user/alice/memories/pref.md", "Alice prefers dark mode.\n");
  ASSERT_TRUE(indexer_->IndexTree("acct", "user/alice").ok());
  for (const Record& r : Records()) {
    EXPECT_EQ(r.uri.find("sessions"), std::string::npos) << r.uri;
    if (r.level == 2) {
      EXPECT_EQ(r.context_type, ContextType::kMemory);
      EXPECT_EQ(r.owner, "alice");
    }
  }
  ASSERT_TRUE(indexer_->IndexTree("acct", "resources/kb").ok());
  ASSERT_TRUE(content_->Remove("acct", "resources/kb/net").ok());
  ASSERT_TRUE(catalog_->DeleteSubtree("acct", "resources/kb/net").ok());
  ASSERT_TRUE(indexer_->IndexTree("acct", "resources/kb/net").ok());
  for (const Record& r : Records()) {
    EXPECT_EQ(r.uri.find("kb/net"), std::string::npos) << r.uri;
  }
}

TEST_F(SemanticIndexerTest, FilesChangedOrRemovedWhileIndexingGetNoStaleRecord) {
  MakeTree();
  bool mutated = false;
  auto stats = indexer_->IndexTree("acct", "resources/kb", [&](std::string_view stage) {
    if (mutated || !stage.starts_with("embedding")) return;
    mutated = true;
    // Between reading the files and writing their records: one file is
    // removed and another rewritten.
    ASSERT_TRUE(content_->Remove("acct", "resources/kb/net/tls.md").ok());
    ASSERT_TRUE(catalog_->DeleteSubtree("acct", "resources/kb/net/tls.md").ok());
    File("resources/kb/intro.md", "# Intro\n\nRewritten while indexing.\n");
  });
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  ASSERT_TRUE(mutated);
  EXPECT_EQ(stats->records_stale, 2u);
  for (const Record& r : Records()) {
    EXPECT_NE(r.uri, "viking://resources/kb/net/tls.md");
    EXPECT_NE(r.uri, "viking://resources/kb/intro.md") << "old text of a rewritten file";
  }
}

// A record write that fails on the writer's thread (here: the node's lock
// is held elsewhere past the timeout) fails the pass with its error, and the
// indexer works again once the lock is free.
TEST_F(SemanticIndexerTest, ARecordWriteErrorFailsThePass) {
  MakeTree();
  PathLockGuard held;
  ASSERT_TRUE(locks_
                  .Acquire({{"acct", "resources/kb/intro.md", PathLockKind::kExact}},
                           std::chrono::milliseconds(0), &held)
                  .ok());
  SemanticIndexerOptions options;
  options.lock_timeout_ms = 20;
  SemanticIndexer indexer(content_.get(), catalog_.get(), &locks_, embedder_.get(),
                          summarizer_.get(), options);
  auto failed = indexer.IndexTree("acct", "resources/kb");
  ASSERT_FALSE(failed.ok());
  held = PathLockGuard();
  auto stats = indexer.IndexTree("acct", "resources/kb");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  size_t files = 0;
  for (const Record& r : Records()) files += r.level == 2 ? 1 : 0;
  EXPECT_EQ(files, 3u);
}

TEST(IngestJobsTest, TagPayloadsAreWrittenAndReadDefensively) {
  EXPECT_EQ(TagModeOfPayload(nlohmann::json{{"tag_mode", "append"}}), TagMode::kAppend);
  EXPECT_EQ(TagModeOfPayload(nlohmann::json{{"tag_mode", 5}}), TagMode::kReplace);
  EXPECT_EQ(TagModeOfPayload(nlohmann::json{{"tag_mode", nullptr}}), TagMode::kReplace);
  EXPECT_EQ(TagModeOfPayload(nlohmann::json::array()), TagMode::kReplace);
  EXPECT_EQ(TagModeOfPayload(nlohmann::json::object()), TagMode::kReplace);

  Identity who{"acme", "alice", Role::kUser};
  std::optional<JobSpec> job = IndexJobFor(who, "resources/a.md", JobKind::kIndex, 0);
  ASSERT_TRUE(job.has_value());
  JobSpec tagged = WithTags(*job, {"team=search"}, TagMode::kAppend);
  nlohmann::json payload = nlohmann::json::parse(tagged.payload);
  EXPECT_EQ(payload["path"], "resources/a.md");
  EXPECT_EQ(payload["tags"], nlohmann::json({"team=search"}));
  EXPECT_EQ(TagModeOfPayload(payload), TagMode::kAppend);
  JobSpec carried =
      WithCarriedTags(*job, {{"viking://resources/a.md", {"lang=en"}}});
  EXPECT_EQ(nlohmann::json::parse(carried.payload)["carried_tags"]["viking://resources/a.md"],
            nlohmann::json({"lang=en"}));
  EXPECT_EQ(WithCarriedTags(*job, {}).payload, job->payload) << "nothing to carry: unchanged";
}

// Packaged vectors no pending or running index job names are dropped; the
// claimed batch and the shared cache stay.
TEST(PackagedVectorsTest, UnclaimedBatchesAreDropped) {
  TempDir tmp;
  auto catalog = Catalog::Open({tmp.Sub("skald.db")});
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  const std::vector<std::string> hashes = {"h1", "h2"};
  const std::vector<std::vector<float>> vectors = {{1, 2}, {3, 4}};
  for (const std::string& key : {PackVectorsKey("emb", "claimed"), PackVectorsKey("emb", "stale"),
                                std::string("emb")}) {
    ASSERT_TRUE((*catalog)->PutCachedEmbeddings("acct", key, hashes, vectors).ok());
  }
  auto job = IndexJobFor(Identity{"acct", "u", Role::kRoot}, "resources/x", JobKind::kIndex, 0);
  ASSERT_TRUE(job.has_value());
  ASSERT_TRUE((*catalog)->Apply("acct", {}, {}, {WithPackagedVectors(*job, "claimed")}).ok());
  auto dropped = DropUnclaimedPackagedVectors(**catalog);
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  EXPECT_EQ(*dropped, 2u);
  auto left = [&](const std::string& key) {
    auto got = (*catalog)->GetCachedEmbeddings("acct", key, hashes);
    return got.ok() && (*got)[0].has_value();
  };
  EXPECT_TRUE(left(PackVectorsKey("emb", "claimed")));
  EXPECT_FALSE(left(PackVectorsKey("emb", "stale")));
  EXPECT_TRUE(left("emb"));
}

}  // namespace
}  // namespace skald
