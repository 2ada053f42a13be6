#pragma once

// SemanticIndexer: the semantic and embedding stages of ingestion
// (reference internals §2). For a tree of the content store it
//   1. summarizes every file (L2 record: the summary is its abstract, the
//      file text — cut to max_input_tokens — is what gets embedded),
//   2. walks directories bottom-up, writing each directory's L1 overview
//      (`.overview.md`, from its sampled children) and L0 abstract
//      (`.abstract.md`, the overview's brief description), and
//   3. embeds everything in large batches through the Embedder (which
//      splits them into `batch_size` requests), reusing cached vectors for
//      texts the same account embedded before (by account, embedder identity
//      and text hash; accounts never share cached vectors), and
//      writes the records to the catalog.
// Records whose abstract, tags and vector are unchanged are not rewritten,
// so re-indexing an unchanged tree embeds nothing and moves no index.
// Sidecars a user wrote (a `generated_by` other than this indexer's) are
// kept and used as they are.
//
// Session transcripts (user/{uid}/sessions) and hidden files are never
// indexed; of a session only its archives are, through their excerpt files
// and summaries (uri_path.h NamespaceRootDepth). The indexes themselves are fed from the catalog
// afterwards (the caller runs their catch-up).
//
// Thread safety: safe for concurrent use; two calls on overlapping trees
// both produce correct records (the later writer wins on shared sidecars).

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/tags.h"
#include "skald/result.h"

namespace skald {

class Catalog;
class ContentStore;
class Embedder;
class FileBodies;
class HelperPool;
class PathLockManager;
class StageTimings;
class Summarizer;
struct CatalogNode;
struct Record;

struct SemanticIndexerOptions {
  // File text sent to the embedder is cut to this many estimated tokens
  // (`embedding.max_input_tokens`).
  int max_input_tokens = 4096;
  // Texts handed to the embedder per call: progress is reported between
  // calls, and the embedder splits each call into batch_size requests.
  int embed_chunk = 256;
  // Children summarized into a directory overview at most (OpenViking's
  // overview_sample_limit); larger directories are sampled deterministically.
  int overview_sample_limit = 32;
  // How long a sidecar write waits for its path lock.
  int lock_timeout_ms = 5000;
  // "k=v" tags (normalised, common/tags.h) given to every record of the
  // indexed tree (add-resource and content/write `tags`); empty: the
  // records keep the tags they have.
  std::vector<std::string> tags;
  // How `tags` apply: replace a record's tags, or merge into them by key.
  TagMode tag_mode = TagMode::kReplace;
  // `tags` apply even when empty (content/write with `tags: []`: replacing
  // clears the records' tags).
  bool tags_given = false;
  // Tags by record URI for records that have none stored yet and get none
  // given: a moved or copied tree's records take their old tags with them.
  std::map<std::string, std::vector<std::string>, std::less<>> carried_tags;
  // The embedding-cache key under which a pack import left the vectors its
  // package brought, by the text each record is embedded from
  // (PackVectorsKey); "" = none. Taken before the embedder is asked; the
  // shared cache never holds them.
  std::string packaged_vectors;
  // Writes the summaries of resource and skill nodes when set (the LLM
  // summarizer, llm_summarizer.h); memories and session archives keep the
  // constructor's summarizer (their texts are short statements already).
  // Borrowed; null = the constructor's summarizer for every node.
  Summarizer* model_summarizer = nullptr;
  // When set and true, indexing stops between files and batches with
  // Unavailable ("interrupted"): a shutdown does not wait for a long job,
  // which runs again later (records already written are simply unchanged).
  const std::atomic<bool>* stop = nullptr;
  // When set, receives the time of each stage (borrowed; ingest/stage_timings.h).
  StageTimings* timings = nullptr;
  // When set, called after each catalog transaction of records (on the
  // pass's record writer thread): a job's background index catch-up starts
  // on them while the rest is summarized and embedded
  // (IndexCatchUp::Follower).
  std::function<void()> records_written;
  // When set, files found here are summarized from these bytes instead of
  // being read back, and the file records written from them are noted for
  // the index catch-up (ingest/file_bodies.h). Borrowed.
  FileBodies* file_bodies = nullptr;
  // Helper threads of the owner (Db) that summarize, embed and write beside
  // the indexing thread; null: a thread is started for each fan-out.
  // Borrowed.
  HelperPool* helpers = nullptr;

  Status Validate() const;
};

struct IndexStats {
  uint64_t files = 0;              // files indexed
  uint64_t directories = 0;        // directories summarized
  uint64_t records_written = 0;    // records inserted or changed
  uint64_t records_unchanged = 0;  // records already up to date
  uint64_t texts_embedded = 0;     // texts sent to the embedder
  uint64_t cache_hits = 0;         // texts whose vector came from the cache
  uint64_t skipped_files = 0;      // binary or invalid UTF-8 files
  uint64_t records_stale = 0;      // not written: the node changed or went away meanwhile
};

// What an import changed below its root (SemanticIndexer::IndexChanges):
// paths without scheme.
struct TreeChanges {
  std::vector<std::string> files;            // files written (new or changed bytes)
  std::vector<std::string> unchanged_files;  // files whose bytes were already there
  std::vector<std::string> dirs;             // directories created
  std::vector<std::string> removed;          // nodes removed (their records with them)
};

// The text embedded for a directory record: the directory named in a
// frontmatter block (as OpenViking embeds it), then the L0 or L1 body.
std::string DirectoryEmbeddingText(std::string_view uri, std::string_view body);
// What the index takes from the file `name` holding `bytes`: the bytes
// themselves when they are text (LooksLikeText), the description of a
// picture, recording or video (by its extension, or an image's magic bytes;
// set into `*description`, which the result then views), nullopt for any
// other binary. The one rule for the indexer, reindex, pack import and the
// consistency check.
std::optional<std::string_view> IndexedTextOf(std::string_view name, std::string_view bytes,
                                              std::string* description);

// The text embedded for the file `name` holding `bytes` (text, see
// LooksLikeText): its first max_input_tokens, marked when cut; the name
// when it holds nothing but space.
std::string FileEmbeddingText(std::string_view name, std::string_view bytes,
                              int64_t max_input_tokens);

// The live `records` of a tree moved or copied from `from_uri` to `to_uri`,
// re-keyed to the new place (uri, id, parent, owner, context type;
// abstract, vector and tags kept), those whose place is not indexed
// (hidden, in a session) dropped: what a move (Catalog::MoveSubtree) or a
// copy carries over, so that search finds the tree at its new place at
// once. The index job queued with the move or copy replaces them with
// exact ones (a renamed file's name is in its embedded text).
std::vector<Record> RecordsRekeyedTo(std::string_view account, std::vector<Record> records,
                                     std::string_view from_uri, std::string_view to_uri);

// Progress label for the task's `stage`, e.g. "embedding 120/400".
using IndexProgress = std::function<void(std::string_view stage)>;

class SemanticIndexer {
 public:
  // Every pointer is borrowed and must outlive the indexer.
  SemanticIndexer(ContentStore* content, Catalog* catalog, PathLockManager* locks,
                  Embedder* embedder, Summarizer* summarizer, SemanticIndexerOptions options);

  const SemanticIndexerOptions& options() const { return options_; }

  // Indexes the node at `path` (URI path without scheme) of `account`: a
  // file, or a directory and everything below it, then refreshes the
  // summaries of its ancestors up to and including its namespace root
  // (`viking://resources`, `viking://user/{uid}/memories`, ...). A path that
  // no longer exists has its records deleted and its ancestors refreshed.
  Result<IndexStats> IndexTree(std::string_view account, std::string_view path,
                               const IndexProgress& progress = nullptr);

  // Like IndexTree for the directory `root` after an import that made
  // `changes`, doing only what they need: the written files are summarized
  // and embedded, and so are unchanged files that have no record (an import
  // interrupted before indexing them); other unchanged files keep their
  // records untouched (all of them are indexed again when options_.tags is
  // set). The directories holding a change, up to the root, and those that
  // have no summary record yet are summarized again, then the ancestors.
  Result<IndexStats> IndexChanges(std::string_view account, std::string_view root,
                                  const TreeChanges& changes,
                                  const IndexProgress& progress = nullptr);

  // Embeds `records` again from what they stand for (a file record from the
  // file's text, a directory record from its abstract or overview), without
  // the embedding cache, and writes those whose vector changed. Records of
  // files that are gone or not text are left as they are and counted in
  // `skipped_files`.
  Result<IndexStats> Reembed(std::string_view account, std::vector<Record> records,
                             const IndexProgress& progress = nullptr);

  // Computes ahead, on the calling thread, what indexing the files at
  // `paths` lent in options_.file_bodies will need: each summary and its
  // terms, and with the built-in embedder each vector (FileBodies::Prepared).
  // Meant for a thread beside an import's tree write, which leaves a core
  // idle: it returns once `stop` is set (after the file at hand), after
  // kPrepareAhead files, or when all are done. Does nothing with a model
  // summarizer (its calls stay in indexing order). Errors are not kept: a
  // file not prepared is simply summarized when it is indexed.
  void PrepareFiles(std::string_view account, const std::vector<std::string>& paths,
                    const std::atomic<bool>& stop);
  // Whether PrepareFiles would prepare anything (file bodies lent, no model
  // summarizer).
  bool PreparesAhead() const {
    return options_.file_bodies != nullptr && options_.model_summarizer == nullptr;
  }
  // Files' vectors are computed where they are summarized (a thread of
  // their own), not batched at flush time: the built-in embedder computes
  // on the calling thread, and a pack's vectors or the embedding cache are
  // not at stake for it.
  bool EmbedsWhileSummarizing() const;
  // Files prepared ahead at most (bounds what waits in memory).
  static constexpr size_t kPrepareAhead = 16384;

  // Re-summarizes the ancestors of `path` only (after a delete or a move).
  Result<IndexStats> RefreshAncestors(std::string_view account, std::string_view path);

  // Name written into generated sidecars' `generated_by.component`.
  static constexpr std::string_view kComponent = "SemanticIndexer";

 private:
  struct Pending;
  struct DirOutcome;
  struct FileOutcome;
  // The summary of the file at `path` and the text to embed, from the bytes
  // lent in options_.file_bodies (what was prepared from them, if any) or
  // read back. Safe to call for several files at once.
  void SummarizeFile(std::string_view account, std::string_view path, FileOutcome* out) const;
  // `own_tags`: the nodes belong to the indexed tree (options_.tags apply);
  // false for its ancestors, which keep their stored tags.
  Status IndexNodes(std::string_view account, const std::vector<CatalogNode>& files,
                    const std::vector<CatalogNode>& dirs, bool own_tags, Pending* pending,
                    IndexStats* stats, const IndexProgress& progress);
  // Summarizes one directory from its entries (REQUIRES: its children's
  // summaries in `pending` or stored); its sidecars are not written yet.
  // Safe to call for several directories at once.
  DirOutcome SummarizeDirectory(std::string_view account, const CatalogNode& dir,
                                const Pending& pending);
  struct RecordBatch;
  class RecordWriter;
  // Embeds the pending records, then hands them to the pass's record writer
  // (started at the first call), which writes them on its own thread while
  // the pass goes on; clears them. An error of an earlier batch's write is
  // returned here.
  Status Flush(std::string_view account, Pending* pending, IndexStats* stats,
               const IndexProgress& progress);
  // Waits until every record handed to the writer is written; returns the
  // writer's first error and adds its counts to `stats`.
  Status FinishWrites(Pending* pending, IndexStats* stats);
  // Keeps the records of `batch` that differ from the catalog's and writes
  // them (WriteCurrentRecords), in transactions of kUpsertChunk.
  Status WriteBatch(std::string_view account, RecordBatch* batch, IndexStats* stats);
  // Embeds `texts` as documents (the built-in embedder on two threads).
  Result<std::vector<std::vector<float>>> EmbedTexts(const std::vector<std::string>& texts);
  // Unavailable once options_.stop is set.
  Status CheckStop() const;
  // Writes `records` whose nodes (`sources`: path and summarized hash) are
  // unchanged, under exact locks on those nodes; a record with
  // `keep_tags[i]` keeps the tags stored at the write
  // (Catalog::UpsertRecords). Clears the three vectors.
  Status WriteCurrentRecords(std::string_view account, std::vector<Record>* records,
                             std::vector<std::pair<std::string, std::string>>* sources,
                             std::vector<bool>* keep_tags, IndexStats* stats);

  ContentStore* const content_;
  Catalog* const catalog_;
  PathLockManager* const locks_;
  Embedder* const embedder_;
  Summarizer* const summarizer_;
  const SemanticIndexerOptions options_;
};

}  // namespace skald
