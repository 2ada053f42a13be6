// Mutating file-system operations: mkdir, rm, mv, cp, write (FsWriter; the
// order every mutation follows is described in fs_engine.h).

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <array>
#include <algorithm>
#include <cctype>
#include <map>

#include "common/hash.h"
#include "common/strings.h"
#include "common/time_util.h"
#include "ingest/ingest_jobs.h"
#include "ingest/semantic_indexer.h"
#include "ingest/sidecar.h"
#include "service/fs_engine.h"
#include "session/memory_merge.h"
#include "uri/access.h"

namespace skald {
namespace {

// Extensions a `create` write may use (reference §2.3).
constexpr std::array<std::string_view, 9> kCreatableExtensions = {
    ".md", ".txt", ".json", ".yaml", ".yml", ".toml", ".py", ".js", ".ts"};

// Name prefix the content store uses for its temporary files.
constexpr std::string_view kReservedPrefix = kTempNamePrefix;

bool HasCreatableExtension(std::string_view name) {
  for (std::string_view ext : kCreatableExtensions) {
    if (name.size() > ext.size() && name.substr(name.size() - ext.size()) == ext) return true;
  }
  return false;
}

// The tags of the records at and below `from`, keyed by the URI each record
// gets at `to` (only records that have tags): what a move or copy carries.
Result<std::map<std::string, std::vector<std::string>>> TagsToCarry(Catalog& catalog,
                                                                    std::string_view account,
                                                                    const VikingUri& from,
                                                                    const VikingUri& to) {
  std::map<std::string, std::vector<std::string>> carried;
  SKALD_ASSIGN_OR_RETURN(std::vector<Record> records, catalog.GetRecordsUnder(account, from.str()));
  for (Record& r : records) {
    if (r.tags.empty() || r.uri.size() < from.str().size()) continue;
    carried[to.str() + r.uri.substr(from.str().size())] = std::move(r.tags);
  }
  return carried;
}

// Lower case, with curly apostrophes (U+2019, U+2018, U+02BC) made
// straight.
std::string FoldForCues(std::string_view text) {
  std::string out = AsciiLower(text);
  for (std::string_view curly : {"\u2019", "\u2018", "\u02bc"}) {
    for (size_t at; (at = out.find(curly)) != std::string::npos;) {
      out.replace(at, curly.size(), "'");
    }
  }
  return out;
}

bool IsWordByte(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80;
}

// Whether `text` says no of `value`: a cue word (not, no, never, cannot,
// …n't) before the value as a whole word, or anywhere when the text does
// not hold it ("lives in Boston, not in Denver" still says yes of Boston).
bool NegatesValue(std::string_view text, std::string_view value) {
  std::string folded = FoldForCues(text);
  const std::string needle = FoldForCues(value);
  for (size_t at = needle.empty() ? std::string::npos : folded.find(needle);
       at != std::string::npos; at = folded.find(needle, at + 1)) {
    const size_t end = at + needle.size();
    if ((at == 0 || !IsWordByte(folded[at - 1])) &&
        (end == folded.size() || !IsWordByte(folded[end]))) {
      folded.resize(at);
      break;
    }
  }
  auto in_word = [](char c) { return (c >= 'a' && c <= 'z') || c == '\''; };
  for (size_t i = 0; i < folded.size();) {
    while (i < folded.size() && !in_word(folded[i])) ++i;
    const size_t begin = i;
    while (i < folded.size() && in_word(folded[i])) ++i;
    const std::string_view word = std::string_view(folded).substr(begin, i - begin);
    if (word == "not" || word == "no" || word == "never" || word == "cannot" ||
        word.ends_with("n't")) {
      return true;
    }
  }
  return false;
}

size_t WordCount(std::string_view text) {
  size_t words = 0;
  bool in_word = false;
  for (char c : text) {
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words;
}

// The value `now` states where `before` stated `value` ("User lives in
// Boston." -> "User lives in Denver." gives "Denver"), or nullopt when the
// text around the value changed too, or the new value is longer than a
// value (five words, or twice the old one's and two, eight at most): a
// rewritten sentence that merely kept its first words and its full stop.
std::optional<std::string> SwappedValue(std::string_view before, std::string_view value,
                                        std::string_view now) {
  const size_t at = before.find(value);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view prefix = before.substr(0, at);
  const std::string_view suffix = before.substr(at + value.size());
  if (now.size() <= prefix.size() + suffix.size() || !now.starts_with(prefix) ||
      !now.ends_with(suffix)) {
    return std::nullopt;
  }
  std::string swapped(
      Trim(now.substr(prefix.size(), now.size() - prefix.size() - suffix.size())));
  const size_t words = WordCount(swapped);
  const size_t most = std::min<size_t>(8, std::max<size_t>(5, 2 * WordCount(value) + 2));
  if (words == 0 || words > most) return std::nullopt;
  return swapped;
}

// A memory file written without its provenance header (as content/read
// gives it, or text that merely starts like a header) keeps the header: the
// text is replaced or appended to (on a line of its own) and the old text
// goes to the history (as many versions as merges keep, and 64 KiB of old
// text unless the newest old version alone is longer), so the memory still
// takes part in merging. The header then states what the new
// text says: its value where only the value was changed, its polarity when
// a "not" came or went; a text that no longer states the value becomes a
// note of its own (later statements of the attribute no longer replace it).
// Said now by the user: the time is now, the session, quotes and messages
// are cleared. nullopt when `uri` is not a memory file or `content` is a
// whole memory file itself.
std::optional<std::string> EditedMemory(const VikingUri& uri, std::string_view old,
                                        WriteMode mode, std::string_view content) {
  if (uri.context_type() != ContextType::kMemory || ParseMemoryFile(content).ok()) {
    return std::nullopt;
  }
  Result<MemoryRecord> record = ParseMemoryFile(old);
  if (!record.ok()) return std::nullopt;
  MemoryCandidate& m = record->memory;
  std::string text;
  if (mode == WriteMode::kAppend) {
    text = m.text;
    if (!text.empty() && !content.starts_with('\n')) text += '\n';
  }
  text += content;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (text == m.text) return std::string(old);
  record->history.push_back({m.time, m.session_id, "edit", m.text});
  // As many versions as merges keep, and no more than 64 KiB of old text
  // unless the newest old version alone is longer (it is always kept):
  // edits of a long memory would grow its file twenty-fold.
  constexpr size_t kMaxHistoryBytes = size_t{64} << 10;
  std::vector<MemoryHistoryEntry>& history = record->history;
  size_t bytes = 0;
  for (const MemoryHistoryEntry& h : history) bytes += h.text.size();
  while (history.size() > 1 &&
         (history.size() > MergeOptions().max_history || bytes > kMaxHistoryBytes)) {
    bytes -= history.front().text.size();
    history.erase(history.begin());
  }
  const std::string before = std::move(m.text);
  const std::string old_value = m.value;
  m.text = std::move(text);
  const std::string words = " " + NormalizeForMatch(m.text) + " ";
  if (!m.value.empty() && words.find(" " + NormalizeForMatch(m.value) + " ") == std::string::npos) {
    if (std::optional<std::string> swapped = SwappedValue(before, m.value, m.text)) {
      m.value = std::move(*swapped);
    } else {
      const std::string speaker = m.subject.substr(0, m.subject.find('/'));
      m.subject = speaker + "/note/" + MemoryStableId(m.type, m.subject, m.text).substr(0, 8);
      m.attribute = "note";
      m.value.clear();
    }
  }
  if (NegatesValue(before, old_value) != NegatesValue(m.text, m.value)) m.negated = !m.negated;
  m.id = MemoryStableId(m.type, m.subject, m.text);
  m.time = FormatIsoMillis(NowNanos()).substr(0, 16);  // YYYY-MM-DDTHH:MM
  m.session_id.clear();
  m.quotes.clear();
  m.message_ids.clear();
  return RenderMemoryFile(*record);
}

}  // namespace

VikingUri ContextRoot(const VikingUri& uri) {
  const auto& s = uri.segments();
  size_t root_depth = 2;  // resources/<x>
  if (!s.empty() && s[0] == "user") {
    root_depth = (s.size() > 2 && s[2] == "peers") ? 6 : 4;
  } else if (!s.empty() && s[0] == "agent") {
    root_depth = 3;
  }
  // A file directly in the scope root belongs to its parent directory.
  size_t depth = std::min(root_depth, s.size() > 0 ? s.size() - 1 : 0);
  if (depth == 0) return uri.Parent();
  std::vector<std::string> segs(s.begin(), s.begin() + static_cast<long>(depth));
  return VikingUri::FromSegments(std::move(segs));
}

Status CheckNotReserved(const VikingUri& uri) {
  for (const std::string& seg : uri.segments()) {
    if (seg.rfind(kReservedPrefix, 0) == 0) {
      return Status::InvalidArgument(
          fmt::format("name '{}' is reserved for Skald's temporary files", seg));
    }
  }
  return Status::Ok();
}

Status FsWriter::Lock(const std::vector<PathLockRequest>& requests, PathLockGuard* guard) {
  return locks_->Acquire(requests, std::chrono::milliseconds(lock_timeout_ms_), guard);
}

Result<FsWriter::SourceAndTarget> FsWriter::LockSourceAndTarget(const Identity& who,
                                                                const VikingUri& from,
                                                                const VikingUri& to,
                                                                PathLockGuard* guard) {
  SKALD_RETURN_IF_ERROR(Lock({{who.account, std::string(from.path()), PathLockKind::kTree},
                              {who.account, std::string(to.path()), PathLockKind::kTree}},
                             guard));
  SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> source,
                         catalog_->Get(who.account, from.path()));
  if (!source) return FileNotFound(from);
  SourceAndTarget ends;
  ends.source = std::move(*source);
  SKALD_ASSIGN_OR_RETURN(ends.target, catalog_->Get(who.account, to.path()));
  return ends;
}

Result<std::string> FsWriter::Mkdir(const Identity& who, const VikingUri& uri,
                                    std::string_view description) {
  if (!IsValidUtf8(description)) return Status::InvalidArgument("description is not valid UTF-8");
  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(
      Lock({{who.account, std::string(uri.path()), PathLockKind::kExact}}, &guard));
  SKALD_ASSIGN_OR_RETURN(auto existing, catalog_->Get(who.account, uri.path()));
  if (existing) {
    return Status::AlreadyExists(fmt::format("Directory already exists: {}", uri.str()))
        .WithReason("CONFLICT")
        .WithDetail("resource", uri.str())
        .WithDetail("type", existing->is_dir ? "directory" : "file");
  }
  SKALD_RETURN_IF_ERROR(nodes_->EnsureDirectories(who, uri, /*include_self=*/true));
  std::string_view abstract = Trim(description);
  if (!abstract.empty()) {
    VikingUri sidecar = uri.Child(kAbstractName);
    std::string text = RenderSidecar(SidecarFrontmatter(uri.str(), "Mkdir", "mkdir"), abstract);
    std::vector<JobSpec> jobs;
    if (std::optional<JobSpec> job =
            IndexJobFor(who, uri.path(), JobKind::kIndex, kJobPriorityInteractive);
        job && indexing_) {
      jobs.push_back(*job);
    }
    SKALD_ASSIGN_OR_RETURN(CatalogNode stored,
                           nodes_->StoreFile(who, sidecar, text, std::nullopt, jobs));
    (void)stored;
    if (!jobs.empty()) runner_->queue()->Notify();
  }
  return uri.str();
}

Result<RmResult> FsWriter::Rm(const Identity& who, const VikingUri& uri, bool recursive) {
  // On a (nearly) full disk the reserve makes room for the catalog and
  // index commits of the delete: deleting must always work.
  if (reserve_ != nullptr) reserve_->ReleaseIfLow();
  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(
      Lock({{who.account, std::string(uri.path()), PathLockKind::kTree}}, &guard));
  RmResult result;
  result.uri = uri.str();
  SKALD_ASSIGN_OR_RETURN(auto node, catalog_->Get(who.account, uri.path()));
  if (!node) return result;  // idempotent: nothing to delete
  // A directory, even an empty one, goes only with `recursive` (OpenViking's rule).
  if (node->is_dir && !recursive) {
    return Status::FailedPrecondition(
               fmt::format("{} is a directory: use recursive to delete it and its contents",
                           uri.str()))
        .WithDetail("resource", uri.str());
  }
  // Content first (one atomic rename out of the tree), then the catalog: a
  // crash in between leaves rows without content, which recovery drops.
  SKALD_ASSIGN_OR_RETURN(uint64_t count, catalog_->CountSubtree(who.account, uri.path()));
  if (Status removed = content_->Remove(who.account, uri.path()); !removed.ok()) {
    return nodes_->NoteContentFailure(std::move(removed));
  }
  // One transaction drops the nodes, tombstones their records and queues the
  // refresh of the summaries above (the outbox).
  std::vector<JobSpec> jobs;
  if (std::optional<JobSpec> job =
          IndexJobFor(who, uri.path(), JobKind::kRefresh, kJobPriorityInteractive);
      job && indexing_) {
    jobs.push_back(*job);
  }
  Status recorded = catalog_->Apply(who.account, {}, {std::string(uri.path())}, jobs);
  if (!recorded.ok()) {
    nodes_->MarkNeedsRecovery();
    return recorded;
  }
  result.deleted_count = count;
  if (!jobs.empty()) runner_->queue()->Notify();
  // Bring the indexes up to the delete now. The delete is committed either
  // way, and search cannot return it meanwhile (hits are looked up in the
  // catalog, which no longer has the records), so an index that cannot
  // catch up now — e.g. no room on a full disk — does not fail the delete:
  // its tombstones stay in the catalog until a later catch-up applies them.
  // On a full disk (the reserve given back) the catch-up waits for space
  // altogether: it would also index pending changes, and spend on them the
  // room this delete freed.
  if (reserve_ != nullptr && !reserve_->CheckWrite().ok()) {
    spdlog::warn("rm {}: disk full, the indexes will apply the delete later", uri.str());
  } else if (Status caught_up = indexes_->CatchUpIndexes(); !caught_up.ok()) {
    spdlog::warn("rm {}: the indexes will apply the delete later: {}", uri.str(),
                 caught_up.ToString());
  }
  if (uri.depth() == 1) {
    // A scope root (ROOT may empty `viking://resources`) comes back empty:
    // every account always has its resources root.
    SKALD_RETURN_IF_ERROR(nodes_->EnsureDirectories(who, uri, /*include_self=*/true));
  }
  return result;
}

Result<MvResult> FsWriter::Mv(const Identity& who, const VikingUri& from, const VikingUri& to) {
  if (from.Contains(to)) {
    return Status::InvalidArgument(
        fmt::format("cannot move {} into itself ({})", from.str(), to.str()));
  }
  PathLockGuard guard;
  SKALD_ASSIGN_OR_RETURN(SourceAndTarget ends, LockSourceAndTarget(who, from, to, &guard));
  const CatalogNode* source = &ends.source;
  const std::optional<CatalogNode>& target = ends.target;
  if (target) {
    return Status::AlreadyExists(fmt::format("Target already exists: {}", to.str()))
        .WithReason("CONFLICT")
        .WithDetail("resource", to.str());
  }
  // Creating the target's missing parents is idempotent, and our tree lock
  // on `to` keeps any delete of those parents out until we are done.
  SKALD_RETURN_IF_ERROR(nodes_->EnsureDirectories(who, to, /*include_self=*/false));
  // Records are keyed by URI: the move tombstones the old ones and carries
  // copies of them re-keyed to the new place (search finds the tree there
  // at once, as before the move), and the moved tree is indexed again
  // (cached vectors make that cheap) by a job queued with the move, in its
  // transaction, with the tags read before the move dropped the records;
  // both parents' summaries refresh.
  std::vector<JobSpec> jobs;
  std::vector<Record> moved_records;
  if (indexing_) {
    SKALD_ASSIGN_OR_RETURN(
        std::vector<Record> records,
        catalog_->GetRecordsUnder(who.account, from.str(), /*with_vectors=*/true));
    moved_records = RecordsRekeyedTo(who.account, std::move(records), from.str(), to.str());
    if (auto refresh = IndexJobFor(who, from.path(), JobKind::kRefresh, kJobPriorityInteractive)) {
      jobs.push_back(std::move(*refresh));
    }
    if (auto index_to = IndexJobFor(who, to.path(), JobKind::kIndex, kJobPriorityInteractive)) {
      SKALD_ASSIGN_OR_RETURN(auto carried, TagsToCarry(*catalog_, who.account, from, to));
      jobs.push_back(WithCarriedTags(std::move(*index_to), carried));
    }
  }
  if (Status renamed = content_->Rename(who.account, from.path(), to.path()); !renamed.ok()) {
    return nodes_->NoteContentFailure(std::move(renamed));
  }
  Result<ContentAttr> moved_attr = content_->Stat(who.account, to.path());
  if (!moved_attr.ok()) {
    nodes_->MarkNeedsRecovery();  // moved in content, not in the catalog
    return moved_attr.status();
  }
  const ContentAttr& attr = *moved_attr;
  int64_t mtime = source->is_dir ? source->mtime_ns : attr.mtime_ns;
  Status moved =
      catalog_->MoveSubtree(who.account, from.path(), to.path(), mtime, jobs, &moved_records);
  if (!moved.ok()) {
    // Put the content back where the catalog says it is, so that a retry
    // works now; the next open reconciles whatever this could not undo.
    nodes_->MarkNeedsRecovery();
    Status undone = content_->Rename(who.account, to.path(), from.path());
    (void)undone;
    return moved;
  }
  if (!jobs.empty()) runner_->queue()->Notify();
  SKALD_RETURN_IF_ERROR(indexes_->CatchUpIndexes());
  return MvResult{from.str(), to.str()};
}

Status FsWriter::CarryRecords(const Identity& who, const VikingUri& from, const VikingUri& to,
                              CpResult* result) {
  SKALD_ASSIGN_OR_RETURN(std::vector<Record> records,
                         catalog_->GetRecordsUnder(who.account, from.str(), /*with_vectors=*/true));
  std::erase_if(records, [&](const Record& r) {
    if (r.level != 2) return true;
    Result<VikingUri> uri = VikingUri::Parse(r.uri);
    return !uri.ok() || !IsAccessible(who, *uri);
  });
  result->vectors_scanned = records.size();
  std::vector<Record> copies =
      RecordsRekeyedTo(who.account, std::move(records), from.str(), to.str());
  if (!copies.empty()) {
    SKALD_RETURN_IF_ERROR(catalog_->UpsertRecords(who.account, &copies));
    SKALD_RETURN_IF_ERROR(indexes_->CatchUpIndexes());
  }
  result->vectors_written = copies.size();
  return Status::Ok();
}

Result<CpResult> FsWriter::Cp(const Identity& who, const VikingUri& from, const VikingUri& to,
                              bool recursive) {
  if (from.Contains(to) || to.Contains(from)) {
    return Status::InvalidArgument(
        fmt::format("cannot copy {} onto or into itself ({})", from.str(), to.str()));
  }
  if (to.depth() < 2) {
    return Status::InvalidArgument(fmt::format("cannot copy onto a scope root: {}", to.str()));
  }
  PathLockGuard guard;
  SKALD_ASSIGN_OR_RETURN(SourceAndTarget ends, LockSourceAndTarget(who, from, to, &guard));
  const CatalogNode* source = &ends.source;
  const std::optional<CatalogNode>& target = ends.target;
  if (source->is_dir && !recursive) {
    return Status::InvalidArgument(
        fmt::format("{} is a directory: copying it needs recursive", from.str()));
  }
  if (target && target->is_dir != source->is_dir) {
    return Status::InvalidArgument(fmt::format("cannot copy a {} onto the {} {}",
                                               source->is_dir ? "directory" : "file",
                                               target->is_dir ? "directory" : "file", to.str()));
  }
  if (target && source->is_dir) {
    return Status::AlreadyExists(fmt::format("Target already exists: {}", to.str()))
        .WithReason("CONFLICT")
        .WithDetail("resource", to.str());
  }

  CpResult result{from.str(), to.str(), recursive, 0, 0};
  // The copy's nodes (source first, then its descendants by path: parents
  // before children). Summaries (sidecars) are not copied: the copy's index
  // job writes its own.
  std::vector<CatalogNode> nodes = {*source};
  if (source->is_dir) {
    SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> below,
                           catalog_->ListSubtree(who.account, from.path(), 0));
    nodes.insert(nodes.end(), below.begin(), below.end());
  }
  SKALD_RETURN_IF_ERROR(nodes_->EnsureDirectories(who, to, /*include_self=*/false));
  // The copy's index job rides with its first file (the outbox): a copy cut
  // short by a crash or an error keeps what it copied, as cp(1) does, and
  // that part is indexed. It is queued once more at the end, in case the
  // first one ran before the last files arrived.
  std::optional<JobSpec> index_job;
  if (indexing_) index_job = IndexJobFor(who, to.path(), JobKind::kIndex, kJobPriorityInteractive);
  if (index_job) {
    SKALD_ASSIGN_OR_RETURN(auto carried, TagsToCarry(*catalog_, who.account, from, to));
    index_job = WithCarriedTags(std::move(*index_job), carried);
  }
  bool job_queued = false;
  for (const CatalogNode& node : nodes) {
    // Entries the caller may not see (the watch-task file) are not copied.
    Result<VikingUri> original = VikingUri::Parse("viking://" + node.path);
    if (!original.ok() || !IsAccessible(who, *original)) continue;
    const std::string rest = node.path.substr(from.path().size());
    SKALD_ASSIGN_OR_RETURN(VikingUri copy,
                           VikingUri::Parse(fmt::format("viking://{}{}", to.path(), rest)));
    if (node.is_dir) {
      SKALD_RETURN_IF_ERROR(nodes_->EnsureDirectories(who, copy, /*include_self=*/true));
      ++result.directories;
      continue;
    }
    if (IsSidecarName(copy.name())) continue;
    SKALD_ASSIGN_OR_RETURN(std::string bytes, content_->ReadFile(who.account, node.path));
    std::optional<CatalogNode> replaced;
    if (rest.empty()) replaced = target;  // a file copied onto an existing file
    std::vector<JobSpec> jobs;
    if (index_job && !job_queued) jobs.push_back(*index_job);
    SKALD_ASSIGN_OR_RETURN(CatalogNode stored, nodes_->StoreFile(who, copy, bytes, replaced, jobs));
    (void)stored;
    if (!jobs.empty()) {
      job_queued = true;
      runner_->queue()->Notify();
    }
    ++result.files;
  }
  // The source files' records, re-keyed to their copies: search finds the
  // copy at once (directories get theirs from the index job, which writes
  // their summaries). Best effort: the copy is done, and the index job
  // below makes every record anyway (as after a crash before this step).
  if (index_job) {
    Status carried = CarryRecords(who, from, to, &result);
    if (!carried.ok()) {
      spdlog::warn("cp {} -> {}: records not carried (the index job makes them): {}", from.str(),
                   to.str(), carried.ToString());
    }
  }
  // One index job for the copy (a tree job covers its files), as after a move.
  if (index_job) {
    SKALD_ASSIGN_OR_RETURN(Job queued, runner_->queue()->Enqueue(*index_job));
    (void)queued;
  }
  return result;
}

Result<WriteResult> FsWriter::Write(const Identity& who, const VikingUri& uri,
                                    const WriteRequest& request,
                                    std::shared_lock<std::shared_mutex>& no_fsck) {
  if (!IsValidUtf8(request.content)) return Status::InvalidArgument("content is not valid UTF-8");
  if (uri.depth() < 2) {
    return Status::InvalidArgument(fmt::format("cannot write to a scope root: {}", uri.str()));
  }
  if (uri.name() == ".relations.json") {
    // OpenViking's relation file; relations are written through their own
    // routes (POST/DELETE /api/v1/relations/link), never as content.
    return Status::InvalidArgument(
        fmt::format("{} cannot be written through content/write: manage relations with "
                    "/api/v1/relations/link",
                    uri.str()));
  }
  WriteMode mode = request.mode;
  bool sidecar = IsSidecarName(uri.name());
  if (mode == WriteMode::kCreate && sidecar) {
    return Status::InvalidArgument(
        fmt::format("{} cannot be created through the API, only updated", uri.name()));
  }
  if (mode == WriteMode::kCreate && !HasCreatableExtension(uri.name())) {
    return Status::InvalidArgument(fmt::format(
        "cannot create {}: the extension must be one of .md .txt .json .yaml .yml .toml .py .js "
        ".ts",
        uri.str()));
  }

  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(
      Lock({{who.account, std::string(uri.path()), PathLockKind::kExact}}, &guard));
  SKALD_ASSIGN_OR_RETURN(auto existing, catalog_->Get(who.account, uri.path()));
  if (existing && existing->is_dir) {
    return Status::InvalidArgument(fmt::format("Cannot write to a directory: {}", uri.str()))
        .WithDetail("expected", "file")
        .WithDetail("actual", "directory")
        .WithDetail("resource", uri.str());
  }
  if (mode != WriteMode::kCreate && !existing) return FileNotFound(uri);
  if (mode == WriteMode::kCreate && existing) {
    return Status::AlreadyExists(fmt::format("File already exists: {}", uri.str()))
        .WithReason("ALREADY_EXISTS")
        .WithDetail("resource", uri.str())
        .WithDetail("type", "file");
  }

  std::string bytes;
  if (mode == WriteMode::kCreate) {
    SKALD_RETURN_IF_ERROR(nodes_->EnsureDirectories(who, uri, /*include_self=*/false));
    bytes = request.content;
  } else {
    SKALD_ASSIGN_OR_RETURN(std::string old, content_->ReadFile(who.account, uri.path()));
    if (sidecar) {
      // Public writes change a sidecar's body; its frontmatter is kept.
      // The body is the user's from now on: the indexer keeps it.
      Sidecar parsed = ParseSidecar(old);
      std::string body =
          mode == WriteMode::kAppend ? parsed.body + request.content : request.content;
      bytes = RenderSidecar(SidecarFrontmatter(uri.Parent().str(), "ContentWrite", "content_write"),
                            body);
    } else if (std::optional<std::string> memory = EditedMemory(uri, old, mode, request.content)) {
      bytes = std::move(*memory);
    } else {
      bytes = mode == WriteMode::kAppend ? old + request.content : request.content;
    }
  }

  WriteResult result;
  result.uri = uri.str();
  result.root_uri = ContextRoot(uri).str();
  result.context_type = uri.context_type();
  result.mode = mode;
  result.written_bytes = request.content.size();
  if (existing && existing->hash == Sha256Hex(bytes)) {
    result.content_updated = false;  // identical bytes: nothing to rewrite
    return result;
  }
  // The file and the job that re-indexes it commit together (outbox). A
  // written sidecar refreshes its directory and the directories above.
  std::optional<JobSpec> job =
      sidecar ? IndexJobFor(who, uri.path(), JobKind::kRefresh, kJobPriorityInteractive)
              : IndexJobFor(who, uri.path(), JobKind::kContentWrite, kJobPriorityInteractive);
  if (job && request.tags && !sidecar) {
    job = WithTags(std::move(*job), NormalizeTagsLeniently(*request.tags),
                   request.tag_mode == "append" ? TagMode::kAppend : TagMode::kReplace);
  }
  std::vector<JobSpec> jobs;
  if (job && indexing_) jobs.push_back(*job);
  std::vector<Job> enqueued;
  SKALD_ASSIGN_OR_RETURN(CatalogNode stored,
                         nodes_->StoreFile(who, uri, bytes, existing, jobs, &enqueued));
  (void)stored;
  result.content_updated = true;
  if (enqueued.empty()) return result;
  runner_->queue()->Notify();
  guard = PathLockGuard();  // the job takes its own locks
  no_fsck.unlock();         // and its own share of the maintenance lock
  result.semantic_status = result.vector_status = "queued";
  if (enqueued[0].kind == JobKind::kContentWrite) result.task_id = enqueued[0].task_id;
  if (request.wait) {
    SKALD_ASSIGN_OR_RETURN(Job done, runner_->AwaitTask(enqueued[0].task_id, request.timeout_s));
    if (done.state == JobState::kCompleted) {
      result.semantic_status = result.vector_status = "completed";
    }
  }
  return result;
}

}  // namespace skald
