#pragma once

// skald::Db — the one object that owns a Skald workspace and exposes every
// operation of the API. The server and the CLI call only this.
//
// Thread safety: all methods may be called concurrently from any number of
// threads. Operations on overlapping paths are serialized by path locks;
// a writer that cannot get its lock within DbOptions::lock_timeout_ms fails
// with Conflict.
//
// URIs are accepted in any form the reference allows (trailing slash, path
// variables, `~` for non-ROOT callers) and returned in canonical form.
//
// Visibility (uri/access.h, every operation): a USER or ADMIN sees the
// account's `resources` and `agent` trees and their own `user/{uid}`; ROOT
// sees the whole account it acts in; no one sees another account. What a
// caller cannot see is absent: left out of listings, walks (tree, glob,
// grep) and search candidates, and any operation naming it — read, stat,
// ls, download, abstract, overview, and as a target of mkdir, write, rm or
// mv — fails with the NotFound a missing path gets ("File not found: <uri>",
// details {type: file, resource: <uri>}). Tasks and uploads belong to the
// user who made them.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skald/accounts.h"
#include "skald/options.h"
#include "skald/result.h"
#include "skald/retrieval.h"
#include "skald/session.h"
#include "skald/skills.h"
#include "skald/snapshot.h"
#include "skald/status.h"
#include "skald/types.h"

namespace skald {

inline constexpr std::string_view kSkaldVersion = "0.1.0";

// Metadata of one node (file or directory).
struct NodeInfo {
  std::string uri;   // canonical
  std::string name;  // last segment ("" for viking://)
  bool is_dir = false;
  uint64_t size = 0;         // bytes; 0 for directories
  int64_t mtime_ns = 0;      // last modification, ns since the epoch (UTC)
  uint32_t mode = 0;         // POSIX permission bits (0644 files, 0755 dirs)
  bool is_locked = false;    // a path lock is held on it right now
  std::string content_hash;  // hex SHA-256 of the bytes; "" for directories
};

// One entry of `ls` / `tree`.
struct LsEntry {
  NodeInfo node;
  std::string rel_path;  // path relative to the listed directory ("a/b.md")
  // Directories: the `.abstract.md` body cut to abs_limit, or the placeholder
  // "# <uri> [Directory abstract is not ready]". Files: "".
  std::string abstract;
  // The node's search tags, with LsOptions::include_tags or a tags filter.
  std::optional<std::vector<std::string>> tags = std::nullopt;
};

struct RmResult {
  std::string uri;
  uint64_t deleted_count = 0;  // nodes removed (0 when the path did not exist)
};

struct MvResult {
  std::string from;
  std::string to;
};

struct CpResult {
  std::string from;
  std::string to;
  bool recursive = false;
  uint64_t files = 0;        // files copied
  uint64_t directories = 0;  // directories created (the copied tree's root included)
  // The source's file records read, and those written at the copy (it is
  // found there at once; its index job then makes them exact).
  uint64_t vectors_scanned = 0;
  uint64_t vectors_written = 0;
};

// What set_tags changed (POST /api/v1/content/set_tags).
struct SetTagsResult {
  std::string uri;                // the node, canonical
  std::string root_uri;           // a directory itself; a file's resource root (or its parent)
  std::string context_type;       // resource | memory | skill
  std::vector<std::string> tags;  // the request's tags, normalised
  std::string mode;               // replace | append
  // One entry per record whose tags were set (a directory's L0 and L1 are
  // two entries of its URI), in URI then level order.
  std::vector<std::string> updated_uris;
  uint64_t skipped_count = 0;  // nodes without a record (not indexed yet)
};

// The attributes of a node (GET /api/v1/fs/attrs).
struct NodeAttrs {
  std::string uri;
  std::string context_type;       // resource | memory | skill
  std::vector<std::string> tags;  // of its records (a directory's L0 and L1), in order
};

// One outgoing relation of a node: a URI it links to and why.
struct RelationLink {
  std::string uri;
  std::string reason;
};

struct WriteResult {
  std::string uri;
  std::string root_uri;  // the top-level resource/memory/skill directory written into
  ContextType context_type = ContextType::kResource;
  WriteMode mode = WriteMode::kReplace;
  uint64_t written_bytes = 0;
  bool content_updated = false;             // false when the bytes were already identical
  std::string semantic_status = "skipped";  // no semantic pipeline yet
  std::string vector_status = "skipped";
  // The task that indexes the written file ("content_write"; GET
  // /api/v1/tasks/{id}); empty when nothing was queued.
  std::string task_id;
};

struct Download {
  std::string name;  // file name for Content-Disposition
  std::string bytes;
};

// Db::ImportPack and Db::RestorePack: an OVPack upload and what to do with it.
struct PackImportRequest {
  std::string temp_file_id;          // an upload of Db::TempUpload (the .ovpack file)
  std::string parent;                // ImportPack: the package's tree goes below it, under its name
  std::string on_conflict = "fail";  // fail (409) | overwrite | skip
  std::string vector_mode = "auto";  // auto | recompute | require (refused: vectors are remade)
};

// The nodes a glob matched, sorted by URI: each as an `ls` entry (rel_path
// relative to the request's `uri`; abstract empty; tags with
// GlobRequest::include_tags or a tags filter).
struct GlobResult {
  std::vector<LsEntry> matches;

  // The URIs of `matches`, in order.
  std::vector<std::string> uris() const {
    std::vector<std::string> out;
    out.reserve(matches.size());
    for (const LsEntry& match : matches) out.push_back(match.node.uri);
    return out;
  }
};

struct GrepMatch {
  std::string uri;
  int64_t line = 0;  // 1-based
  std::string content;
  // The file's search tags, with GrepRequest::include_tags or a tags filter.
  std::optional<std::vector<std::string>> tags = std::nullopt;
};

struct GrepResult {
  std::vector<GrepMatch> matches;
  uint64_t files_scanned = 0;
  uint64_t match_count = 0;  // all matches found, before node_limit
};

// One difference between content and catalog found by Fsck.
struct FsckIssue {
  std::string kind;  // "missing_content", "untracked_content", "size_mismatch", ...
  std::string account;
  std::string uri;
  std::string detail;
  bool repaired = false;
};

struct FsckReport {
  uint64_t nodes_checked = 0;
  std::vector<FsckIssue> issues;
  bool clean() const { return issues.empty(); }
};

// An index record that a subtree's content calls for and the catalog does
// not hold (Db::CheckConsistency).
struct MissingRecord {
  std::string uri;
  std::string path;  // relative to the checked URI ("" for itself)
  int level = 0;     // 0 abstract, 1 overview (directories), 2 a file
};

// Db::CheckConsistency's outcome (reference §2.1 POST /api/v1/system/consistency).
struct ConsistencyReport {
  uint64_t expected_count = 0;
  uint64_t missing_count = 0;
  // The first kConsistencyShownMissing missing records, by path then level.
  std::vector<MissingRecord> missing;
  bool ok() const { return missing_count == 0; }
};
inline constexpr size_t kConsistencyShownMissing = 20;

// State of one background job as the tasks API shows it (reference §2.8).
struct TaskInfo {
  std::string task_id;
  std::string task_type;  // "add_resource", "index", ...
  TaskState status = TaskState::kPending;
  int64_t created_ns = 0;
  int64_t updated_ns = 0;
  std::string resource_id;  // the URI the task works on
  std::string stage;        // progress, e.g. "embedding 120/400"
  std::string result_json;  // JSON object ("" = null)
  std::string error;        // "" unless failed (or retrying after an error)
};

struct AddResourceResult {
  std::string root_uri;
  std::string source_path;
  std::string task_id;  // "" when the call waited
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
  // With `wait`: the task's final state (kCompleted), or kPending/kRunning
  // when timeout_s expired first. Without `wait`: kPending.
  TaskState task_status = TaskState::kPending;
};

// The outcome of Db::Reindex (reference §2.3 POST /api/v1/content/reindex).
struct ReindexResult {
  // kCompleted when the call waited for the task; else the task's state
  // (kPending without wait, or when timeout_s expired first).
  TaskState task_status = TaskState::kPending;
  std::string task_id;  // "" when the call waited for the task to complete
  std::string uri;
  std::string object_type;  // "resource", "memory", "skill" or "namespace"
  std::string mode;
  uint64_t scanned_records = 0;       // records of the tree looked at
  uint64_t rebuilt_records = 0;       // records summarized and/or embedded again
  uint64_t deleted_records = 0;       // orphan records deleted (prune_orphans)
  uint64_t would_delete_records = 0;  // orphan records found (prune_orphans)
  uint64_t unsupported_records = 0;   // records whose text cannot be read back
  uint64_t failed_records = 0;
  double duration_ms = 0;
  std::vector<std::string> warnings;
};

struct FindResult {
  std::vector<MatchedContext> memories;
  std::vector<MatchedContext> resources;
  std::vector<MatchedContext> skills;
  std::optional<RetrievalTrace> trace;  // with include_provenance
  size_t total() const { return memories.size() + resources.size() + skills.size(); }
};

// What search answers: find's hits for the plan intent analysis made.
struct SearchResult {
  FindResult found;
  QueryPlan query_plan;
};

// Where a context entry comes from.
struct ContextOrigin {
  std::string type;        // "memory" | "session" | "resource" | "skill"
  std::string session_id;  // memories and session archives: the session it was said in
  std::string speaker;     // memories: who said it
  std::string time;        // memories: when it was said
  std::vector<std::string> message_ids;  // memories: the messages it came from
};

// One entry of search's context mode.
struct ContextEntry {
  std::string uri;  // file, or directory for directory hits
  std::string category;
  double score = 0;
  std::string detail;  // "abstract" | "overview" | "full"
  std::string text;    // what it adds to the context (lines already there left out)
  ContextOrigin origin;
};

struct ContextStats {
  int64_t candidates = 0;  // hits considered
  int64_t entries = 0;
  int64_t tokens = 0;  // estimate of `rendered`, <= max_tokens
  int64_t max_tokens = 0;
  int64_t left_out = 0;        // candidates that did not fit the budget
  int64_t over_quota = 0;      // candidates beyond their category's quota
  int64_t excluded = 0;        // exclude_uris and dedup_turns
  int64_t repeated_lines = 0;  // lines not rendered twice
};

// What search's context mode answers.
struct ContextResult {
  std::vector<ContextEntry> entries;  // best first
  std::string rendered;               // the entries as one text, ready for a prompt
  std::string digest;                 // "" (an LLM digest needs `rewrite`, not offered)
  ContextStats stats;
  QueryPlan query_plan;
};

// ---- operations (ops): statistics and readiness for /metrics, the
// observers, /api/v1/system/wait and /ready ----

// One kind of background job. `pending`..`failed` count the queue's rows
// now (finished rows are purged after a while); `processed`, `requeued` and
// `errors` count outcomes since the workspace was opened.
struct JobKindStats {
  std::string kind;  // "add_resource", "index", "refresh", "reindex", ...
  uint64_t pending = 0;
  uint64_t running = 0;
  uint64_t completed = 0;
  uint64_t failed = 0;
  uint64_t processed = 0;  // jobs completed since open
  uint64_t requeued = 0;   // failed attempts put back for a retry since open
  uint64_t errors = 0;     // jobs failed for good since open
  // The latest error messages (newest last) of jobs the caller may see:
  // ROOT all, others only the jobs they enqueued (an identity with an empty
  // account: none).
  std::vector<std::string> recent_errors;
};

// One index, all accounts together (no per-account figures: they would name
// the accounts).
struct IndexSizeStats {
  std::string name;           // "lexical" or "vector"
  uint64_t records = 0;       // live records
  uint64_t bytes = 0;         // size of its files on disk
  uint64_t memory_bytes = 0;  // in memory (vector indexes; 0 for lexical)
};

// A model client and its call counters since open (built-in models: zeros).
struct ModelClientStats {
  std::string role;      // "embedding", "rerank" (later "llm")
  std::string provider;  // "hashing", "openai", ...
  std::string model;
  uint64_t calls = 0;
  uint64_t requests = 0;
  uint64_t retries = 0;
  uint64_t failures = 0;
  uint64_t fast_fails = 0;  // refused by the open circuit breaker
};

// Find/search calls since open.
struct RetrievalStats {
  uint64_t finds = 0;
  uint64_t failures = 0;
  uint64_t zero_hit = 0;  // successful finds that returned nothing
  uint64_t hits = 0;      // results returned in total
  double seconds_total = 0;
};

struct DbStats {
  int workers = 0;                 // background worker threads
  std::vector<JobKindStats> jobs;  // every known kind, in JobKind order
  std::vector<IndexSizeStats> indexes;
  std::vector<ModelClientStats> models;
  RetrievalStats retrieval;
  uint64_t locks_held = 0;
  uint64_t lock_waiters = 0;
  uint64_t accounts = 0;       // accounts with at least one node
  uint64_t catalog_bytes = 0;  // the catalog database file
  bool disk_full = false;      // the disk reserve reports no room for writes
  // Readiness of the embedding provider as last probed by CheckReady ("ok",
  // "not_probed", "error: ..."); "ok" for the built-in embedder.
  std::string embedding_probe = "not_probed";
};

// What /ready reports: each check "ok", "not_configured" or "error: <why>".
struct ReadyReport {
  bool ready = false;  // every check is "ok" or "not_configured"
  std::vector<std::pair<std::string, std::string>> checks;  // in a fixed order
};

class Db {
 public:
  // Opens (creating when missing) the workspace, takes its LOCK (a second
  // process gets Unavailable "workspace is in use"), runs recovery when the
  // last shutdown was not clean, and creates `viking://resources` for the
  // default account.
  static Result<std::unique_ptr<Db>> Open(const DbOptions& options);

  virtual ~Db() = default;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // Direct children (or the subtree with options.recursive) of a directory.
  // NotFound for a missing path; listing a file returns that file.
  virtual Result<std::vector<LsEntry>> Ls(const Identity& who, std::string_view uri,
                                          const LsOptions& options) = 0;
  // The subtree of `uri` down to options.level_limit, depth-first, parents first.
  virtual Result<std::vector<LsEntry>> Tree(const Identity& who, std::string_view uri,
                                            const LsOptions& options) = 0;
  virtual Result<NodeInfo> Stat(const Identity& who, std::string_view uri) = 0;
  // Creates a directory and its parents; AlreadyExists (wire: CONFLICT) when
  // it exists. A non-empty description becomes the `.abstract.md` body.
  // Returns the canonical URI.
  virtual Result<std::string> Mkdir(const Identity& who, std::string_view uri,
                                    std::string_view description) = 0;
  // Deletes a file, or a directory with `recursive`. Missing paths succeed
  // with deleted_count 0; a directory without `recursive` is
  // FailedPrecondition; protected roots are PermissionDenied; a path the
  // caller cannot see is NotFound.
  virtual Result<RmResult> Rm(const Identity& who, std::string_view uri, bool recursive) = 0;
  // Moves a file or a directory tree. NotFound when `from` is missing,
  // AlreadyExists when `to` exists, InvalidArgument when `to` is inside `from`.
  virtual Result<MvResult> Mv(const Identity& who, std::string_view from, std::string_view to) = 0;
  // Copies a file, or with `recursive` a directory tree, to `to`; the copy
  // is indexed as new content. A file replaces an existing file `to`; a
  // directory needs `recursive` (else InvalidArgument) and a `to` that does
  // not exist (AlreadyExists otherwise). A file onto a directory or a
  // directory onto a file is InvalidArgument; NotFound when `from` is missing.
  virtual Result<CpResult> Cp(const Identity& who, std::string_view from, std::string_view to,
                              bool recursive) = 0;

  // Relations (links between nodes, reference: /api/v1/relations). Every
  // link of the node `uri`, in the order they were made; NotFound when `uri`
  // is missing or hidden from `who`.
  virtual Result<std::vector<RelationLink>> Relations(const Identity& who,
                                                      std::string_view uri) = 0;
  // The nodes that link to the node `uri` (each once), those `who` may see;
  // NotFound as Relations.
  virtual Result<std::vector<std::string>> Backlinks(const Identity& who, std::string_view uri) = 0;
  // Links the node `from` (which `who` may write) to each of `to` (nodes
  // `who` can see), as one relation entry with `reason`.
  virtual Status Link(const Identity& who, std::string_view from,
                      const std::vector<std::string>& to, std::string_view reason) = 0;
  // Removes `to` from the first relation entry of `from` that names it (an
  // entry left empty goes); nothing to remove is no error.
  virtual Status Unlink(const Identity& who, std::string_view from, std::string_view to) = 0;

  // ---- tags: the "k=v" labels of a node's records (common/tags.h rules) ----
  // Sets (kReplace) or merges in (kAppend) `request.tags` on the records of
  // the node (a file's L2, a directory's L0 and L1) and, with `recursive`,
  // of every node below it. Malformed tags are dropped. The node must exist
  // (404) and be writable by `who`.
  virtual Result<SetTagsResult> SetTags(const Identity& who, const SetTagsRequest& request) = 0;
  virtual Result<NodeAttrs> Attrs(const Identity& who, std::string_view uri) = 0;

  // Text of a file, lines [offset, offset+limit) (limit -1 = to the end).
  // A memory file (docs/format/memory.md) is read without its provenance
  // header unless `raw` (OpenViking strips a memory's internal fields).
  // InvalidArgument with details {expected:file, actual:directory} for a directory.
  virtual Result<std::string> Read(const Identity& who, std::string_view uri, int64_t offset,
                                   int64_t limit, bool raw) = 0;
  virtual Result<Download> DownloadFile(const Identity& who, std::string_view uri) = 0;
  virtual Result<WriteResult> Write(const Identity& who, const WriteRequest& request) = 0;
  // Body of the directory's `.abstract.md` (a file's parent directory when
  // `uri` is a file), or "# <uri> [Directory abstract is not ready]".
  virtual Result<std::string> Abstract(const Identity& who, std::string_view uri) = 0;
  // Body of `.overview.md`, or "# <uri>\n\n[Directory overview is not ready]".
  virtual Result<std::string> Overview(const Identity& who, std::string_view uri) = 0;

  virtual Result<GlobResult> Glob(const Identity& who, const GlobRequest& request) = 0;
  virtual Result<GrepResult> Grep(const Identity& who, const GrepRequest& request) = 0;

  // Stores an uploaded file under <workspace>/temp/upload and returns its id
  // ("upload_<32 hex><ext>") for AddResource. Uploads expire after a day and
  // can be claimed only by the same account and user (anyone else's id is
  // PermissionDenied "unknown or expired temp_file_id", like an unknown id).
  virtual Result<std::string> TempUpload(const Identity& who, std::string_view filename,
                                         std::string_view bytes) = 0;
  // Imports a file or directory as a resource: reserves the root URI, then a
  // durable background task parses it into markdown files, writes L0/L1
  // summaries for every directory and embeds everything (batched). The task
  // survives restarts. With request.wait, returns once it finished (or the
  // timeout passed); a failed task is returned as its error.
  virtual Result<AddResourceResult> AddResource(const Identity& who,
                                                const AddResourceRequest& request) = 0;
  // Re-embeds, re-summarizes or prunes the records of `request.uri` (a task
  // of type admin_reindex). A USER may reindex only their own
  // viking://user/{self}/... (PermissionDenied otherwise); NotFound when the
  // node does not exist; InvalidArgument for a URI that is never indexed.
  virtual Result<ReindexResult> Reindex(const Identity& who, const ReindexRequest& request) = 0;
  // OpenViking's OVPack packages (ROOT and ADMIN only; PermissionDenied
  // otherwise). ExportPack: the directory `uri` (in resources or user) with
  // its files, summaries and records as a `<name>.ovpack` zip; BackupPack:
  // every resource and user space the caller sees, as
  // `openviking-backup.ovpack`. ImportPack: checks the whole package, then
  // writes its tree below `parent` (returns the tree's URI; a tree already
  // there is a Conflict unless on_conflict says overwrite or skip) and
  // queues its indexing; RestorePack: the same for a backup, into the scopes
  // it came from (returns "viking://").
  virtual Result<Download> ExportPack(const Identity& who, std::string_view uri,
                                      bool include_vectors) = 0;
  virtual Result<Download> BackupPack(const Identity& who, bool include_vectors) = 0;
  virtual Result<std::string> ImportPack(const Identity& who, const PackImportRequest& request) = 0;
  virtual Result<std::string> RestorePack(const Identity& who,
                                          const PackImportRequest& request) = 0;
  // OpenViking's snapshots of the account's files (skald/snapshot.h,
  // service/snapshot_ops.h): commit, log, show (a commit, or one file's
  // bytes), diff of one file, restore (a forward commit and the files
  // written back), and the .ovgitignore rules (ROOT and ADMIN).
  virtual Result<SnapshotCommitResult> SnapshotCommit(const Identity& who,
                                                      const SnapshotCommitRequest& request) = 0;
  virtual Result<std::vector<SnapshotCommitInfo>> SnapshotLog(
      const Identity& who, const SnapshotLogRequest& request) = 0;
  virtual Result<SnapshotCommitInfo> SnapshotShow(const Identity& who, std::string_view ref) = 0;
  virtual Result<SnapshotBlobContent> SnapshotShowFile(const Identity& who, std::string_view ref,
                                                       std::string_view uri, bool raw) = 0;
  virtual Result<SnapshotDiffResult> SnapshotDiff(const Identity& who, std::string_view uri,
                                                  std::string_view from, std::string_view to) = 0;
  virtual Result<SnapshotRestoreResult> SnapshotRestore(const Identity& who,
                                                        const SnapshotRestoreRequest& request) = 0;
  virtual Result<std::string> GetSnapshotIgnore(const Identity& who) = 0;
  // "" deletes the rules.
  virtual Status SetSnapshotIgnore(const Identity& who, std::string_view content) = 0;
  // OpenViking's privacy configs of the caller, in their own space
  // (service/privacy_ops.h): the categories (`category` "") or a category's
  // target keys; a config as JSON text {"meta", "current"} (NotFound when
  // missing); its version numbers; one version's snapshot; an upsert of the
  // whole value map (`values_json` an object; `labels_json` an object or ""
  // to keep them) answering the active snapshot; activating a version; and
  // removing a config (false when there was none). Names are plain segments.
  virtual Result<std::vector<std::string>> ListPrivacyConfigs(const Identity& who,
                                                              std::string_view category) = 0;
  virtual Result<std::string> GetPrivacyConfig(const Identity& who, std::string_view category,
                                               std::string_view target) = 0;
  virtual Result<std::vector<int>> PrivacyConfigVersions(const Identity& who,
                                                         std::string_view category,
                                                         std::string_view target) = 0;
  virtual Result<std::string> GetPrivacyConfigVersion(const Identity& who,
                                                      std::string_view category,
                                                      std::string_view target, int version) = 0;
  virtual Result<std::string> UpsertPrivacyConfig(const Identity& who, std::string_view category,
                                                  std::string_view target,
                                                  std::string_view values_json,
                                                  std::string_view change_reason,
                                                  std::string_view labels_json) = 0;
  virtual Result<std::string> ActivatePrivacyConfig(const Identity& who, std::string_view category,
                                                    std::string_view target, int version) = 0;
  virtual Result<bool> DeletePrivacyConfig(const Identity& who, std::string_view category,
                                           std::string_view target) = 0;
  // Semantic + lexical search over the caller's visible context: targets
  // are narrowed to what the caller may see before any index is searched
  // (a target the caller cannot see contributes no results, as a missing
  // one). InvalidArgument for an empty query; Unavailable when the embedding
  // provider cannot be reached.
  virtual Result<FindResult> Find(const Identity& who, const FindRequest& request) = 0;
  // Session-aware find: intent analysis (retrieve/intent_analyzer.h) turns
  // the query and the session's latest archive overview and recent messages
  // into typed queries, each run as a find; their hits are merged (a URI
  // once, at its best score). Errors as Find.
  virtual Result<SearchResult> Search(const Identity& who, const SearchRequest& request) = 0;
  // search, mode "context": the hits of Search (or of the query alone with
  // query_expansion "off") turned into context under request.max_tokens —
  // each entry at the detail that fits (retrieve/context_budget.h), lines
  // already in the context not repeated. Errors as Search.
  virtual Result<ContextResult> SearchContext(const Identity& who,
                                              const ContextRequest& request) = 0;
  // Stores a skill (ingest/skill_definition.h): SKILL.md, its L0/L1 and,
  // from an upload, nothing else yet; then an index task makes it findable
  // (find with context_type "skill"). Adding an existing name replaces it;
  // request.update_name replaces only an existing skill (NotFound
  // otherwise). InvalidArgument for a missing or invalid name or data.
  virtual Result<SkillResult> AddSkill(const Identity& who, const SkillRequest& request) = 0;
  // Skills under `target_uri` ("" = the caller's own root and
  // viking://agent/skills), by name, at most `limit`.
  virtual Result<std::vector<SkillInfo>> ListSkills(const Identity& who,
                                                    std::string_view target_uri, int64_t limit) = 0;
  // One skill by name (the caller's own root first, then the agent root,
  // unless `target_uri` names one), with what `read` asks for. NotFound
  // when absent.
  virtual Result<SkillInfo> GetSkill(const Identity& who, std::string_view name,
                                     std::string_view target_uri, const SkillReadOptions& read) = 0;
  // Deletes a skill directory found as GetSkill; returns what it deleted.
  virtual Result<SkillInfo> DeleteSkill(const Identity& who, std::string_view name,
                                        std::string_view target_uri) = 0;
  // Checks a skill's SKILL.md (`data_json` as SkillRequest::data_json; an
  // object's `content` is checked) without storing anything.
  virtual Result<SkillValidationReport> ValidateSkill(const Identity& who,
                                                      std::string_view data_json, bool strict,
                                                      std::string_view skill_dir_name) = 0;
  // A task by id; NotFound ("Task not found or expired") for unknown ids and
  // for other users' tasks (ROOT sees all).
  virtual Result<TaskInfo> GetTask(const Identity& who, std::string_view task_id) = 0;
  // The task once it is completed or failed, or as it is when `timeout_ms`
  // passes first (its status says which); errors as GetTask. Wakes as the
  // task ends: for a caller in this process that follows a task.
  virtual Result<TaskInfo> WaitTask(const Identity& who, std::string_view task_id,
                                    int64_t timeout_ms) = 0;
  // The caller's tasks (ROOT: all), newest first.
  virtual Result<std::vector<TaskInfo>> ListTasks(const Identity& who,
                                                  const TaskFilter& filter) = 0;
  // Blocks until no background work is pending or running, or `timeout_ms`
  // passes (DeadlineExceeded). For tests and embedded callers that exit.
  // Without `wait_for_retries`, jobs waiting out a backoff after a failure
  // do not count (a command-line call should not sit through a provider
  // outage; the retry runs at a later open).
  virtual Status WaitIdle(int64_t timeout_ms, bool wait_for_retries = true) = 0;

  // ---- Accounts, users and keys (auth; reference §2.9, §5). `who` is the
  // caller: creating, listing and deleting accounts is ROOT only; an ADMIN
  // manages the users of its own account only (PermissionDenied otherwise).
  // Ids must pass IsValidIdentifier (InvalidArgument); a missing account or
  // user is NotFound; duplicates are AlreadyExists (reason ALREADY_EXISTS).
  // Keys are `b64url(account).b64url(user).b64url(secret)`, shown only when
  // made; the workspace keeps their SHA-256. See service/account_registry.h.

  // Creates an account whose first user `admin_user_id` is an ADMIN; returns its key.
  virtual Result<NewAccount> CreateAccount(const Identity& who, std::string_view account_id,
                                           std::string_view admin_user_id) = 0;
  virtual Result<std::vector<AccountInfo>> ListAccounts(const Identity& who) = 0;
  // Deletes the account with every node, record, index entry, job and upload
  // of it; its keys fail at once. The `default` account cannot be deleted.
  virtual Status DeleteAccount(const Identity& who, std::string_view account_id) = 0;
  // Adds a user with role "user" or "admin" ("root": PermissionDenied;
  // anything else InvalidArgument); returns its key.
  virtual Result<std::string> RegisterUser(const Identity& who, std::string_view account_id,
                                           std::string_view user_id, std::string_view role) = 0;
  virtual Result<std::vector<UserInfo>> ListUsers(const Identity& who, std::string_view account_id,
                                                  const UserFilter& filter) = 0;
  // Revokes the user's key at once and queues the durable `user_delete` task
  // that deletes viking://user/{uid}, its tasks and uploads, then the user.
  virtual Result<UserRemoval> RemoveUser(const Identity& who, std::string_view account_id,
                                         std::string_view user_id) = 0;
  // Only "admin" is accepted (promotion).
  virtual Status SetUserRole(const Identity& who, std::string_view account_id,
                             std::string_view user_id, std::string_view role) = 0;
  // A new key for the user; the old one fails at once.
  virtual Result<std::string> RegenerateKey(const Identity& who, std::string_view account_id,
                                            std::string_view user_id) = 0;
  // The identity of a user key; Unauthenticated "Invalid API Key" otherwise.
  virtual Result<Identity> Authenticate(std::string_view user_key) = 0;
  // True while a removed user's data is being deleted.
  virtual Result<bool> IsUserDeleting(std::string_view account_id, std::string_view user_id) = 0;
  // The registered role of a live user; nullopt when not registered.
  virtual Result<std::optional<Role>> RegisteredRole(std::string_view account_id,
                                                     std::string_view user_id) = 0;

  // ---- Sessions (reference §2.7; session/session_store.h) ----
  // A caller's sessions live in its own space, viking://user/{uid}/sessions/{id};
  // a session id is looked up only there, so another user's session is the
  // NotFound "Session <id> not found" of a missing one. Session transcripts
  // are never indexed. Ids must be one safe path segment (InvalidArgument).
  //
  // Creates a session (generated id when none is given); AlreadyExists when
  // the id is taken.
  virtual Result<SessionCreated> CreateSession(const Identity& who,
                                               const SessionCreateRequest& request) = 0;
  // The caller's sessions, newest change first.
  virtual Result<std::vector<SessionListEntry>> ListSessions(const Identity& who) = 0;
  // SessionMeta (JSON text, with `uri` and `user`); NotFound unless `auto_create`.
  virtual Result<std::string> GetSession(const Identity& who, std::string_view session_id,
                                         bool auto_create) = 0;
  // Deletes the session and its archives; NotFound when missing.
  virtual Status DeleteSession(const Identity& who, std::string_view session_id) = 0;
  // Appends messages (each the JSON text of an add-message body: role,
  // content or parts, …); all are validated first (InvalidArgument). Creates
  // the session when missing.
  virtual Result<SessionMessagesAdded> AddSessionMessages(
      const Identity& who, std::string_view session_id,
      const std::vector<std::string>& messages_json) = 0;
  // Records the contexts and skill a session used (for the next commit).
  virtual Result<SessionUsageCounts> RecordSessionUsage(const Identity& who,
                                                        std::string_view session_id,
                                                        const std::vector<std::string>& contexts,
                                                        const std::string& skill_uri,
                                                        bool skill_given) = 0;
  // Archives the live messages at once and queues the durable
  // `session_commit` task (archive L0/L1, memory extraction); `skipped` with
  // a reason when there is nothing to archive.
  virtual Result<SessionCommitResult> CommitSession(const Identity& who,
                                                    std::string_view session_id,
                                                    const SessionCommitRequest& request) = 0;
  // The latest archive overview and the newest live messages within
  // `token_budget` (InvalidArgument when negative).
  virtual Result<SessionContextResult> GetSessionContext(const Identity& who,
                                                         std::string_view session_id,
                                                         int64_t token_budget) = 0;
  // One archive (JSON text); NotFound when the session or archive is missing.
  virtual Result<std::string> GetSessionArchive(const Identity& who, std::string_view session_id,
                                                std::string_view archive_id) = 0;

  // ---- Session configuration and auto-commit (issue 10, helper "usage") ----
  // PATCH …/config: replaces the memory-extraction config and/or the
  // auto-commit policy (missing policy fields take their defaults; "null"
  // turns auto-commit off) and answers the resulting configuration.
  // NotFound when the session is missing; InvalidArgument for a malformed
  // config or policy. A session with a policy commits by itself when added
  // messages cross its thresholds, or after its idle timeout.
  virtual Result<SessionConfig> UpdateSessionConfig(const Identity& who,
                                                    std::string_view session_id,
                                                    const SessionConfigUpdate& update) = 0;
  // ---- Session memory extraction (session/memory_hook.h) ----
  // POST /api/v1/sessions/{id}/extract: extracts memories from the session's
  // live messages now (with the `vlm` chat model when configured, else
  // without a model), applies the merge decisions and writes the memories
  // (indexed like a commit's). Returns one entry per candidate with its
  // decision. The messages stay live. NotFound when the session is missing
  // or another user's.
  virtual Result<std::vector<SessionExtractedMemory>> ExtractSessionMemories(
      const Identity& who, std::string_view session_id) = 0;

  // Compares content with the catalog for every account; with `repair`
  // brings the catalog in line with the content on disk.
  virtual Result<FsckReport> Fsck(bool repair) = 0;
  // Whether every index record the content of `uri`'s subtree calls for (as
  // `who` sees it) is in the catalog: an L0 and an L1 record for each
  // directory with those sidecars, an L2 record for each file the indexer
  // takes (text, or a picture, recording or video). Hidden names and paths
  // that are never indexed (live sessions) call for none. NotFound when
  // `uri` is missing.
  virtual Result<ConsistencyReport> CheckConsistency(const Identity& who,
                                                     std::string_view uri) = 0;

  // ---- operations (ops) ----
  // Counters and sizes for monitoring (see DbStats). Job error messages are
  // narrowed to what `who` may see. Reads a few catalog counts; meant for
  // scrapes and status pages, not hot paths.
  virtual Result<DbStats> Stats(const Identity& who) = 0;
  // Readiness checks: the catalog answers a query, the indexes are open, and
  // a remote embedding provider answers a one-text probe (cached for 30 s;
  // one probe at a time, concurrent callers get the cached answer).
  virtual ReadyReport CheckReady() = 0;

 protected:
  Db() = default;
};

}  // namespace skald
