#include "ingest/semantic_indexer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <span>

#include "common/hash.h"
#include "common/strings.h"
#include "common/two_threads.h"
#include "ingest/file_bodies.h"
#include "ingest/parsers/media_parser.h"
#include "ingest/semantic_indexer_pending.h"
#include "ingest/sidecar.h"
#include "ingest/source_import.h"
#include "ingest/stage_timings.h"
#include "model/embedder.h"
#include "model/token_budget.h"
#include "storage/catalog.h"
#include "storage/content_store.h"
#include "storage/path_lock.h"
#include "text/summarizer.h"
#include "text/term_list.h"
#include "text/tokenizer.h"
#include "uri/uri_path.h"
#include "uri/viking_uri.h"

namespace skald {
namespace {

constexpr std::string_view kScheme = "viking://";
constexpr std::string_view kTruncatedMarker = "\n...(truncated for embedding)";
// File records waiting for vectors that are embedded and handed to the
// record writer before the next files are summarized.
constexpr size_t kEarlyFlush = semantic_indexer_internal::kUpsertChunk;

std::string RecordId(std::string_view account, std::string_view uri, int level) {
  std::string_view suffix = level == 0 ? "/.abstract.md" : level == 1 ? "/.overview.md" : "";
  return Md5Hex(fmt::format("{}:{}{}", account, uri, suffix));
}

std::string OwnerOf(std::string_view path) {
  std::vector<std::string_view> segs = PathSegments(path);
  if (segs.size() >= 2 && segs[0] == "user") return std::string(segs[1]);
  return "";
}

ContextType ContextTypeOf(std::string_view path) {
  Result<VikingUri> uri = VikingUri::Parse(UriOfPath(path));
  if (!uri.ok()) return ContextType::kResource;
  return uri->context_type();
}

// The summarizer of the node at `path`: the model's for resources and
// skills when there is one (SemanticIndexerOptions::model_summarizer).
Summarizer* SummarizerFor(std::string_view path, Summarizer* base, Summarizer* model) {
  if (model == nullptr) return base;
  const ContextType type = ContextTypeOf(path);
  return type == ContextType::kResource || type == ContextType::kSkill ? model : base;
}

// The directories above `path` up to its namespace root, nearest first.
Result<std::vector<CatalogNode>> AncestorDirs(Catalog& catalog, std::string_view account,
                                              std::string_view path) {
  std::vector<CatalogNode> ancestors;
  for (std::string_view p = ParentPath(path); IsIndexedPath(p); p = ParentPath(p)) {
    SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> a, catalog.Get(account, p));
    if (a && a->is_dir) ancestors.push_back(*a);
  }
  return ancestors;
}

// A sidecar this indexer wrote (and may therefore rewrite).
bool IsGenerated(const Sidecar& sidecar) {
  return sidecar.frontmatter.find(SemanticIndexer::kComponent) != std::string::npos;
}

}  // namespace

std::vector<Record> RecordsRekeyedTo(std::string_view account, std::vector<Record> records,
                                     std::string_view from_uri, std::string_view to_uri) {
  std::vector<Record> moved;
  for (Record& r : records) {
    const std::string_view old_uri = r.uri;
    if (r.deleted || !old_uri.starts_with(from_uri) ||
        (old_uri.size() > from_uri.size() && old_uri[from_uri.size()] != '/')) {
      continue;
    }
    std::string uri = fmt::format("{}{}", to_uri, old_uri.substr(from_uri.size()));
    if (!uri.starts_with(kScheme)) continue;
    const std::string_view path = std::string_view(uri).substr(kScheme.size());
    if (!IsIndexedPath(path)) continue;
    r.id = RecordId(account, uri, r.level);
    r.parent_uri = UriOfPath(ParentPath(path));
    r.owner = OwnerOf(path);
    r.context_type = ContextTypeOf(path);
    r.uri = std::move(uri);
    moved.push_back(std::move(r));
  }
  return moved;
}

std::string DirectoryEmbeddingText(std::string_view uri, std::string_view body) {
  return fmt::format("---\ndirectory: {}/\n---\n\n{}", uri, body);
}

std::optional<std::string_view> IndexedTextOf(std::string_view name, std::string_view bytes,
                                              std::string* description) {
  if (MediaKindOf(name).empty() && LooksLikeText(bytes)) return bytes;
  // (Parsing a media header is cheap; a parser per call keeps no state.)
  Result<ParsedDocument> described =
      MakeMediaParser()->Parse(ParseInput{name, bytes, bytes.size()});
  if (!described.ok()) return std::nullopt;
  *description = std::move(described->markdown);
  return std::string_view(*description);
}

std::string FileEmbeddingText(std::string_view name, std::string_view bytes,
                              int64_t max_input_tokens) {
  std::string text(TokenBudgetPrefix(bytes, max_input_tokens));
  if (text.size() < bytes.size()) text += kTruncatedMarker;
  if (Trim(text).empty()) text = std::string(name);
  return text;
}

Status SemanticIndexerOptions::Validate() const {
  if (max_input_tokens < 16) return Status::InvalidArgument("max_input_tokens must be >= 16");
  if (embed_chunk < 1) return Status::InvalidArgument("embed_chunk must be >= 1");
  if (overview_sample_limit < 2) {
    return Status::InvalidArgument("overview_sample_limit must be >= 2");
  }
  if (lock_timeout_ms < 0) return Status::InvalidArgument("lock_timeout_ms must be >= 0");
  return Status::Ok();
}

// What summarizing one directory produced (SummarizeDirectory); its sidecar
// locks are held until the outcome is dropped.
struct SemanticIndexer::DirOutcome {
  Status status;
  bool skip = false;        // removed meanwhile
  bool summarized = false;  // generated (or user) summaries made
  PathLockGuard guard;
  std::vector<std::pair<int, std::string>> records;  // (level, body) to embed
  bool has_abstract = false;
  std::string abstract;
  std::vector<std::pair<std::string, std::string>> writes;  // sidecar path, rendered text
  std::vector<int64_t> write_ctimes;                        // per write: existing ctime, or 0
};

SemanticIndexer::SemanticIndexer(ContentStore* content, Catalog* catalog, PathLockManager* locks,
                                 Embedder* embedder, Summarizer* summarizer,
                                 SemanticIndexerOptions options)
    : content_(content),
      catalog_(catalog),
      locks_(locks),
      embedder_(embedder),
      summarizer_(summarizer),
      options_(std::move(options)) {}

Result<IndexStats> SemanticIndexer::IndexTree(std::string_view account, std::string_view path,
                                              const IndexProgress& progress) {
  SKALD_RETURN_IF_ERROR(options_.Validate());
  IndexStats stats;
  SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node, catalog_->Get(account, path));
  if (!node) {
    SKALD_ASSIGN_OR_RETURN(uint64_t deleted,
                           catalog_->DeleteRecordsUnder(account, UriOfPath(path)));
    (void)deleted;
    return RefreshAncestors(account, path);
  }
  std::vector<CatalogNode> files;
  std::vector<CatalogNode> dirs;
  if (node->is_dir) {
    dirs.push_back(*node);
    SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> subtree,
                           catalog_->ListSubtree(account, path, 0));
    for (CatalogNode& n : subtree) (n.is_dir ? dirs : files).push_back(std::move(n));
  } else {
    files.push_back(*node);
  }
  auto not_indexable = [](const CatalogNode& n) { return !IsIndexedPath(n.path); };
  files.erase(std::remove_if(files.begin(), files.end(), not_indexable), files.end());
  dirs.erase(std::remove_if(dirs.begin(), dirs.end(), not_indexable), dirs.end());

  Pending pending;
  SKALD_RETURN_IF_ERROR(IndexNodes(account, files, dirs, true, &pending, &stats, progress));
  // Ancestors (their overviews list this tree's root).
  SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> ancestors,
                         AncestorDirs(*catalog_, account, path));
  SKALD_RETURN_IF_ERROR(IndexNodes(account, {}, ancestors, false, &pending, &stats, progress));
  SKALD_RETURN_IF_ERROR(Flush(account, &pending, &stats, progress));
  SKALD_RETURN_IF_ERROR(FinishWrites(&pending, &stats));
  return stats;
}

Result<IndexStats> SemanticIndexer::IndexChanges(std::string_view account, std::string_view root,
                                                 const TreeChanges& changes,
                                                 const IndexProgress& progress) {
  SKALD_RETURN_IF_ERROR(options_.Validate());
  IndexStats stats;
  SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> root_node, catalog_->Get(account, root));
  if (!root_node || !root_node->is_dir) return IndexTree(account, root, progress);
  std::map<std::string, CatalogNode, std::less<>> nodes;
  {
    SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> subtree,
                           catalog_->ListSubtree(account, root, 0));
    for (CatalogNode& n : subtree) {
      if (IsIndexedPath(n.path)) nodes.emplace(n.path, std::move(n));
    }
  }
  auto has_record = [&](std::string_view path, int level) -> Result<bool> {
    SKALD_ASSIGN_OR_RETURN(std::vector<Record> records,
                           catalog_->GetRecordsByUri(account, UriOfPath(path)));
    return std::any_of(records.begin(), records.end(),
                       [&](const Record& r) { return r.level == level; });
  };
  std::set<std::string, std::less<>> dirty_dirs;
  auto mark_ancestors = [&](std::string_view path) {
    for (std::string_view p = ParentPath(path); p.size() >= root.size(); p = ParentPath(p)) {
      if (!dirty_dirs.insert(std::string(p)).second) break;
    }
  };
  std::vector<CatalogNode> files;
  auto add_file = [&](const std::string& path) {
    auto it = nodes.find(path);
    if (it == nodes.end() || it->second.is_dir) return;  // not indexable, or gone meanwhile
    files.push_back(it->second);
    mark_ancestors(path);
  };
  for (const std::string& path : changes.files) add_file(path);
  for (const std::string& path : changes.unchanged_files) {
    if (nodes.find(path) == nodes.end()) continue;
    bool current = false;
    if (options_.tags.empty() && !options_.tags_given) {
      SKALD_ASSIGN_OR_RETURN(current, has_record(path, 2));
    }
    if (!current) add_file(path);
  }
  for (const std::string& path : changes.dirs) {
    dirty_dirs.insert(path);
    mark_ancestors(path);
  }
  for (const std::string& path : changes.removed) mark_ancestors(path);
  std::vector<CatalogNode> dirs;
  for (const auto& [path, node] : nodes) {
    if (!node.is_dir) continue;
    bool dirty = dirty_dirs.count(path) > 0;
    if (!dirty) {
      SKALD_ASSIGN_OR_RETURN(bool summarized, has_record(path, 0));
      dirty = !summarized;
    }
    if (dirty) dirs.push_back(node);
  }
  bool root_dirty = dirty_dirs.count(root) > 0;
  if (!root_dirty) {
    SKALD_ASSIGN_OR_RETURN(bool summarized, has_record(root, 0));
    root_dirty = !summarized;
  }
  if (root_dirty && IsIndexedPath(root)) dirs.push_back(*root_node);
  // Nothing changed: the summaries above stay as they are too.
  if (files.empty() && dirs.empty()) return stats;

  Pending pending;
  SKALD_RETURN_IF_ERROR(IndexNodes(account, files, dirs, true, &pending, &stats, progress));
  SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> ancestors,
                         AncestorDirs(*catalog_, account, root));
  SKALD_RETURN_IF_ERROR(IndexNodes(account, {}, ancestors, false, &pending, &stats, progress));
  SKALD_RETURN_IF_ERROR(Flush(account, &pending, &stats, progress));
  SKALD_RETURN_IF_ERROR(FinishWrites(&pending, &stats));
  return stats;
}

Result<IndexStats> SemanticIndexer::Reembed(std::string_view account, std::vector<Record> records,
                                            const IndexProgress& progress) {
  SKALD_RETURN_IF_ERROR(options_.Validate());
  IndexStats stats;
  Pending pending;
  pending.use_cache = false;
  for (Record& record : records) {
    SKALD_RETURN_IF_ERROR(CheckStop());
    if (record.uri.rfind(kScheme, 0) != 0) continue;
    std::string_view path = std::string_view(record.uri).substr(kScheme.size());
    std::string text;
    std::string source_hash;
    if (record.level == 2) {
      Result<std::string> bytes = content_->ReadFile(account, path);
      if (!bytes.ok() && bytes.status().code() != StatusCode::kNotFound) return bytes.status();
      std::string description;
      const std::optional<std::string_view> indexed =
          bytes.ok() ? IndexedTextOf(BaseName(path), *bytes, &description) : std::nullopt;
      if (!indexed) {
        ++stats.skipped_files;
        continue;
      }
      text = FileEmbeddingText(BaseName(path), *indexed, options_.max_input_tokens);
      source_hash = Sha256Hex(*bytes);
      ++stats.files;
    } else {
      text = DirectoryEmbeddingText(record.uri, record.abstract);
    }
    record.vector.clear();
    pending.node_paths.emplace_back(path);
    pending.source_hashes.push_back(std::move(source_hash));
    pending.inherit_tags.push_back(true);
    pending.texts.push_back(std::move(text));
    pending.records.push_back(std::move(record));
  }
  SKALD_RETURN_IF_ERROR(Flush(account, &pending, &stats, progress));
  SKALD_RETURN_IF_ERROR(FinishWrites(&pending, &stats));
  return stats;
}

Result<IndexStats> SemanticIndexer::RefreshAncestors(std::string_view account,
                                                     std::string_view path) {
  IndexStats stats;
  SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> ancestors,
                         AncestorDirs(*catalog_, account, path));
  Pending pending;
  SKALD_RETURN_IF_ERROR(IndexNodes(account, {}, ancestors, false, &pending, &stats, nullptr));
  SKALD_RETURN_IF_ERROR(Flush(account, &pending, &stats, nullptr));
  SKALD_RETURN_IF_ERROR(FinishWrites(&pending, &stats));
  return stats;
}

bool SemanticIndexer::EmbedsWhileSummarizing() const {
  return embedder_->provider() == "hashing" && !embedder_->worth_caching() &&
         options_.packaged_vectors.empty();
}

void SemanticIndexer::SummarizeFile(std::string_view account, std::string_view path,
                                    FileOutcome* out) const {
  // The bytes: lent by the import that just wrote them, or read back.
  const FileBodies::Body* lent =
      options_.file_bodies ? options_.file_bodies->Find(account, path) : nullptr;
  std::string read;
  if (lent == nullptr) {
    StageTimings::Scope read_timed(options_.timings, "content_read");
    Result<std::string> bytes = content_->ReadFile(account, path);
    if (!bytes.ok()) {
      out->skip = bytes.status().code() == StatusCode::kNotFound;  // deleted meanwhile
      if (!out->skip) out->status = bytes.status();
      return;
    }
    read = std::move(*bytes);
  }
  const std::string_view bytes = lent ? lent->bytes : read;
  std::string name(BaseName(path));
  // What is summarized and embedded: the file's text, or a media file's
  // description.
  std::string description;
  const std::optional<std::string_view> indexed = IndexedTextOf(name, bytes, &description);
  if (!indexed) {
    out->skip = out->binary = true;
    return;
  }
  const std::string_view text = *indexed;
  StageTimings::Scope summarize_timed(options_.timings, "summarize_files");
  std::optional<FileBodies::Prepared> prepared;
  if (lent != nullptr) prepared = options_.file_bodies->TakePrepared(account, path);
  if (prepared) {
    out->summary = std::move(prepared->summary);
    out->summary_terms = std::move(prepared->summary_terms);
    out->vector = std::move(prepared->vector);
  } else {
    Summarizer* summarizer = SummarizerFor(path, summarizer_, options_.model_summarizer);
    Result<std::string> summary = summarizer->SummarizeFile(name, text);
    if (!summary.ok()) {
      out->status = summary.status();
      return;
    }
    out->summary = std::move(*summary);
    // The directory's overview is written by the same summarizer
    // (SummarizerFor depends on the namespace only).
    if (summarizer->ScansEntries()) {
      // The summary's terms of a lent file go on to the lexical index with
      // its record (its abstract), not tokenized again there.
      out->summary_terms = ScanFileEntry(name, out->summary, lent != nullptr);
      if (out->summary_terms.summary_terms != nullptr) {
        options_.file_bodies->SetTerms(path, nullptr, out->summary_terms.summary_terms);
      }
    } else {
      out->summary_terms.keys = TermStatistics::KeysOf(out->summary);
    }
  }
  out->text = FileEmbeddingText(name, text, options_.max_input_tokens);
  out->hash = lent ? lent->sha256_hex : Sha256Hex(bytes);
  summarize_timed.Stop();
  if (out->vector.empty() && EmbedsWhileSummarizing()) {
    // Here, on the summarizing thread: batched at flush time, between two
    // chunks of files, the vectors were work the summarizing threads
    // waited on.
    StageTimings::Scope embed_timed(options_.timings, "embedding");
    const Tokenizer* tokenizer = embedder_->document_tokenizer();
    if (tokenizer != nullptr && lent != nullptr && text.data() == lent->bytes.data() &&
        out->text == text) {
      // The file's text, embedded whole: tokenized once, for its vector and
      // (lent on with the bytes) for the lexical index's catch-up.
      auto terms = std::make_shared<TermList>(tokenizer->Name(), text.size());
      tokenizer->ForEachTerm(text, terms.get());
      Result<std::vector<float>> vector = embedder_->EmbedTerms(*terms);
      if (vector.ok()) {
        out->vector = std::move(*vector);
        options_.file_bodies->SetTerms(path, std::move(terms));
      }
    } else {
      Result<std::vector<std::vector<float>>> vectors =
          embedder_->Embed(std::span<const std::string>(&out->text, 1), EmbedKind::kDocument);
      if (vectors.ok() && vectors->size() == 1) out->vector = std::move(vectors->front());
    }
  }
}

void SemanticIndexer::PrepareFiles(std::string_view account, const std::vector<std::string>& paths,
                                   const std::atomic<bool>& stop) {
  if (!PreparesAhead()) return;
  StageTimings::Scope timed(options_.timings, "prepare_files");
  const size_t total = std::min(paths.size(), kPrepareAhead);
  for (size_t i = 0; i < total && !stop.load(std::memory_order_relaxed); ++i) {
    if (options_.file_bodies->Find(account, paths[i]) == nullptr) continue;
    FileOutcome out;
    SummarizeFile(account, paths[i], &out);
    if (!out.status.ok() || out.skip || out.summary.empty()) continue;
    options_.file_bodies->SetPrepared(
        paths[i], FileBodies::Prepared{std::move(out.summary), std::move(out.summary_terms),
                                       std::move(out.vector)});
  }
}

Status SemanticIndexer::IndexNodes(std::string_view account, const std::vector<CatalogNode>& files,
                                   const std::vector<CatalogNode>& dirs, bool own_tags,
                                   Pending* pending, IndexStats* stats,
                                   const IndexProgress& progress) {
  // Tags given for this tree apply to it; records that get none (ancestors,
  // or re-indexing without tags) keep the tags they had.
  const bool inherit = !own_tags || (options_.tags.empty() && !options_.tags_given);
  // Files: summary (abstract) + the text to embed, computed on two threads
  // (summarizers are safe for concurrent use), then taken in file order.
  // Each summary's keys are counted into the background there too, the
  // helper's share into statistics of its own merged once the files are
  // done (counts do not depend on the order): no lock between the threads.
  constexpr size_t kFileChunk = 64;
  TermStatistics helper_background;
  for (size_t begin = 0; begin < files.size(); begin += kFileChunk) {
    SKALD_RETURN_IF_ERROR(CheckStop());
    size_t end = std::min(files.size(), begin + kFileChunk);
    std::vector<FileOutcome> outcomes(end - begin);
    ForEachOnTwoThreads(options_.helpers, begin, end, [&](size_t i, int share) {
      FileOutcome& outcome = outcomes[i - begin];
      SummarizeFile(account, files[i].path, &outcome);
      if (!outcome.status.ok() || outcome.skip) return;
      (share == 0 ? pending->background : helper_background).Add(outcome.summary_terms.keys);
      outcome.summary_terms.keys = TermKeys();  // freed on the thread that made it
      // The record too, here: what is left for the loop below (in file
      // order, on one thread, the other idle meanwhile) is moving it on.
      const CatalogNode& file = files[i];
      Record& record = outcome.record;
      record.uri = UriOfPath(file.path);
      record.id = RecordId(account, record.uri, 2);
      record.parent_uri = UriOfPath(ParentPath(file.path));
      record.level = 2;
      record.context_type = ContextTypeOf(file.path);
      record.owner = OwnerOf(file.path);
      record.abstract = outcome.summary;
      if (!inherit) record.tags = options_.tags;
      record.created_ns = file.ctime_ns;
      record.updated_ns = file.mtime_ns;
    });
    for (size_t i = begin; i < end; ++i) {
      FileOutcome& outcome = outcomes[i - begin];
      SKALD_RETURN_IF_ERROR(outcome.status);
      if (outcome.binary) ++stats->skipped_files;
      if (outcome.skip) continue;
      const CatalogNode& file = files[i];
      Record& record = outcome.record;
      if (outcome.summary_terms.entry != nullptr &&
          pending->entry_terms_bytes + outcome.summary_terms.bytes <=
              semantic_indexer_internal::kEntryTermsBudget) {
        pending->entry_terms_bytes += outcome.summary_terms.bytes;
        pending->entry_terms[file.path] = std::move(outcome.summary_terms.entry);
      }
      pending->summaries[file.path] = std::move(outcome.summary);
      if (!outcome.vector.empty()) {
        pending->prepared_vectors[pending->records.size()] = std::move(outcome.vector);
      }
      pending->records.push_back(std::move(record));
      pending->texts.push_back(std::move(outcome.text));
      pending->node_paths.push_back(file.path);
      pending->inherit_tags.push_back(inherit);
      pending->source_hashes.push_back(std::move(outcome.hash));
      ++stats->files;
    }
    if (progress) progress(fmt::format("summarizing files {}/{}", end, files.size()));
    // Files' records do not wait for the directories: written as they come
    // (in the same order as at the end), the indexes can take them up while
    // the rest is summarized.
    if (pending->records.size() >= kEarlyFlush) {
      SKALD_RETURN_IF_ERROR(Flush(account, pending, stats, progress));
    }
  }
  // The last files' records too, when their vectors are there already:
  // written and indexed while the directories are summarized, not after
  // them. (A model's embeddings batch them with the directories' records.)
  if (EmbedsWhileSummarizing() && !files.empty() && !pending->records.empty()) {
    SKALD_RETURN_IF_ERROR(Flush(account, pending, stats, progress));
  }

  pending->background.Merge(std::move(helper_background));
  // Directories bottom-up, one depth at a time (deepest first, so that
  // children's L0 exist): the directories of a depth are summarized side by
  // side on two threads, then their changed sidecars are written in one
  // content batch and one catalog transaction.
  std::vector<const CatalogNode*> order;
  for (const CatalogNode& d : dirs) order.push_back(&d);
  auto depth = [](const CatalogNode* n) { return std::count(n->path.begin(), n->path.end(), '/'); };
  std::stable_sort(order.begin(), order.end(),
                   [&](const CatalogNode* a, const CatalogNode* b) { return depth(a) > depth(b); });
  for (size_t begin = 0; begin < order.size();) {
    SKALD_RETURN_IF_ERROR(CheckStop());
    // A record write that failed fails the pass before more sidecars are written.
    if (pending->writer) SKALD_RETURN_IF_ERROR(pending->writer->Error());
    size_t end = begin + 1;
    while (end < order.size() && depth(order[end]) == depth(order[begin])) ++end;
    std::vector<DirOutcome> outcomes(end - begin);
    ForEachOnTwoThreads(options_.helpers, begin, end, [&](size_t i) {
      StageTimings::Scope timed(options_.timings, "summarize_dirs");
      outcomes[i - begin] = SummarizeDirectory(account, *order[i], *pending);
    });
    StageTimings::Scope sidecar_timed(options_.timings, "sidecar_write");
    std::vector<ContentStore::FileWrite> writes;
    for (DirOutcome& outcome : outcomes) {
      SKALD_RETURN_IF_ERROR(outcome.status);
      for (const auto& [path, text] : outcome.writes) writes.push_back({path, text});
    }
    if (!writes.empty()) {
      SKALD_ASSIGN_OR_RETURN(std::vector<ContentAttr> attrs,
                             WriteFilesOnTwoThreads(content_, account, writes, options_.helpers));
      std::vector<CatalogNode> nodes;
      size_t w = 0;
      for (DirOutcome& outcome : outcomes) {
        for (size_t j = 0; j < outcome.writes.size(); ++j, ++w) {
          CatalogNode n;
          n.path = outcome.writes[j].first;
          n.size = outcome.writes[j].second.size();
          n.mtime_ns = attrs[w].mtime_ns;
          n.ctime_ns = outcome.write_ctimes[j] != 0 ? outcome.write_ctimes[j] : attrs[w].mtime_ns;
          n.hash = Sha256Hex(outcome.writes[j].second);
          nodes.push_back(std::move(n));
        }
      }
      SKALD_RETURN_IF_ERROR(catalog_->Apply(account, nodes, {}));
    }
    sidecar_timed.Stop();
    for (size_t i = begin; i < end; ++i) {
      DirOutcome& outcome = outcomes[i - begin];
      if (outcome.skip) continue;
      const CatalogNode* dir = order[i];
      for (const auto& [level, body] : outcome.records) {
        Record record;
        record.uri = UriOfPath(dir->path);
        record.id = RecordId(account, record.uri, level);
        record.parent_uri = UriOfPath(ParentPath(dir->path));
        record.level = level;
        record.context_type = ContextTypeOf(dir->path);
        record.owner = OwnerOf(dir->path);
        record.abstract = body;
        if (!inherit) record.tags = options_.tags;
        record.created_ns = dir->ctime_ns;
        record.updated_ns = dir->mtime_ns;
        pending->texts.push_back(DirectoryEmbeddingText(record.uri, body));
        pending->records.push_back(std::move(record));
        pending->node_paths.push_back(dir->path);
        pending->inherit_tags.push_back(inherit);
        pending->source_hashes.emplace_back();
      }
      if (outcome.has_abstract) pending->summaries[dir->path] = outcome.abstract;
      if (outcome.summarized) ++stats->directories;
    }
    if (progress) progress(fmt::format("summarizing directories {}/{}", end, order.size()));
    begin = end;  // the sidecar locks of this depth are released with `outcomes`
  }
  return Status::Ok();
}

SemanticIndexer::DirOutcome SemanticIndexer::SummarizeDirectory(std::string_view account,
                                                                const CatalogNode& dir,
                                                                const Pending& pending) {
  DirOutcome out;
  Status st = [&]() -> Status {
    std::string abstract_path = fmt::format("{}/{}", dir.path, kAbstractName);
    std::string overview_path = fmt::format("{}/{}", dir.path, kOverviewName);
    // Held from reading the children and the sidecars to writing the new
    // sidecars: two jobs summarizing one directory take turns (no lost
    // update), and a user's sidecar write is never overwritten unseen.
    SKALD_RETURN_IF_ERROR(
        locks_->Acquire({{std::string(account), abstract_path, PathLockKind::kExact},
                         {std::string(account), overview_path, PathLockKind::kExact}},
                        std::chrono::milliseconds(options_.lock_timeout_ms), &out.guard));
    SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> still_there,
                           catalog_->Get(account, dir.path));
    if (!still_there || !still_there->is_dir) {  // removed meanwhile
      out.skip = true;
      return Status::Ok();
    }
    SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> children,
                           catalog_->ListChildren(account, dir.path));
    std::vector<EntrySummary> entries;
    std::vector<const EntryTerms*> entry_terms;  // aligned with entries
    for (const CatalogNode& child : children) {
      if (!IsIndexedPath(child.path)) continue;
      auto scanned = pending.entry_terms.find(child.path);
      entry_terms.push_back(scanned == pending.entry_terms.end() ? nullptr : scanned->second.get());
      EntrySummary entry;
      entry.name = std::string(BaseName(child.path));
      entry.is_dir = child.is_dir;
      auto known = pending.summaries.find(child.path);
      if (known != pending.summaries.end()) {
        entry.summary = known->second;
      } else if (child.is_dir) {
        Result<std::string> text =
            content_->ReadFile(account, fmt::format("{}/{}", child.path, kAbstractName));
        if (text.ok()) entry.summary = ParseSidecar(*text).body;
      } else {
        SKALD_ASSIGN_OR_RETURN(std::vector<Record> existing,
                               catalog_->GetRecordsByUri(account, UriOfPath(child.path)));
        for (const Record& r : existing) {
          if (r.level == 2) entry.summary = r.abstract;
        }
      }
      entries.push_back(std::move(entry));
    }

    std::optional<Sidecar> old_abstract;
    std::optional<Sidecar> old_overview;
    if (Result<std::string> t = content_->ReadFile(account, abstract_path); t.ok()) {
      old_abstract = ParseSidecar(*t);
    }
    if (Result<std::string> t = content_->ReadFile(account, overview_path); t.ok()) {
      old_overview = ParseSidecar(*t);
    }
    bool user_abstract = old_abstract && !IsGenerated(*old_abstract) && !old_abstract->body.empty();
    bool user_overview = old_overview && !IsGenerated(*old_overview) && !old_overview->body.empty();
    if (entries.empty()) {
      // An empty directory gets no generated summaries; a description its
      // creator gave (mkdir) is still searchable.
      for (auto [level, sidecar] : {std::pair{0, &old_abstract}, std::pair{1, &old_overview}}) {
        if (!*sidecar || (*sidecar)->body.empty()) continue;
        out.records.emplace_back(level, (*sidecar)->body);
        if (level == 0) {
          out.has_abstract = true;
          out.abstract = (*sidecar)->body;
        }
      }
      return Status::Ok();
    }

    std::string name(BaseName(dir.path));
    std::string overview;
    if (user_overview) {
      overview = old_overview->body;
    } else {
      std::vector<size_t> picks =
          DeterministicSample(entries.size(), static_cast<size_t>(options_.overview_sample_limit));
      std::vector<EntrySummary> sampled;
      for (size_t i : picks) sampled.push_back(entries[i]);
      OverviewContext context;
      context.all_entries = entries;
      context.all_entry_terms = entry_terms;
      context.background = &pending.background;
      SKALD_ASSIGN_OR_RETURN(overview,
                             SummarizerFor(dir.path, summarizer_, options_.model_summarizer)
                                 ->Overview(name, sampled, entries.size(), context));
    }
    std::string abstract = user_abstract ? old_abstract->body : AbstractFromOverview(overview);
    if (abstract.empty()) abstract = TruncateGeneratedText(overview, 256);

    // The generated sidecars that changed (written by the caller, batched).
    std::string uri = UriOfPath(dir.path);
    auto write = [&](const std::string& path, const std::string& body) -> Status {
      SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> existing, catalog_->Get(account, path));
      out.writes.emplace_back(
          path, RenderSidecar(SidecarFrontmatter(uri, kComponent, "semantic_index"), body));
      out.write_ctimes.push_back(existing ? existing->ctime_ns : 0);
      return Status::Ok();
    };
    if (!user_abstract && (!old_abstract || old_abstract->body != abstract)) {
      SKALD_RETURN_IF_ERROR(write(abstract_path, abstract));
    }
    if (!user_overview && (!old_overview || old_overview->body != overview)) {
      SKALD_RETURN_IF_ERROR(write(overview_path, overview));
    }
    out.records.emplace_back(0, abstract);
    out.records.emplace_back(1, overview);
    out.has_abstract = true;
    out.abstract = std::move(abstract);
    out.summarized = true;
    return Status::Ok();
  }();
  out.status = std::move(st);
  return out;
}

}  // namespace skald
