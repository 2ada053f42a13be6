#pragma once

// Options structs for opening a database and for each file-system operation.
// Every field has an in-class default that matches OpenViking's HTTP default.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "skald/retrieval.h"
#include "skald/status.h"
#include "skald/types.h"

namespace skald {

class Embedder;  // src/model/embedder.h
class Env;       // src/common/env.h
class Llm;       // src/model/llm.h
class Reranker;  // src/model/reranker.h

struct DbOptions {
  // Directory holding skald.db, content/, index/, temp/ and LOCK. Created when missing.
  std::string workspace = "./skald-data";
  // How long an operation waits for a conflicting path lock before failing
  // with Conflict. Longer waits queue writers; 0 fails at once.
  int lock_timeout_ms = 5000;
  // fsync file data and directories on every write. Turning it off trades
  // durability on power loss for speed (a process crash still loses nothing).
  bool sync_writes = true;
  // The embedder that makes this workspace's vectors (model/factory.h builds
  // it from the `embedding` config). Its identity (provider, model,
  // dimension) is recorded in the workspace; once vectors exist, an open with
  // a different one fails with FailedPrecondition saying to reindex, because
  // vectors of two embedders cannot be compared. Null = the workspace's own:
  // the built-in hashing embedder (lexical; its recorded dimension, 512 when
  // new), or none when it records a remote embedder (file operations work,
  // embedding needs the configuration).
  std::shared_ptr<Embedder> embedder;
  // Accept an embedder whose identity differs from the recorded one: the new
  // identity is recorded and every existing vector is marked for rebuilding.
  bool reindex_on_embedder_change = false;
  // Cross-encoder used to rerank retrieval candidates; null = none (find
  // runs in QUICK mode unless asked otherwise).
  std::shared_ptr<Reranker> reranker;
  // The chat model of the `vlm` config section (model/factory.h NewLlm).
  // Session commits and POST …/extract extract memories with it (one
  // structured call per archive, falling back to the model-free extractor
  // when the call or its answer fails); null = model-free extraction only.
  std::shared_ptr<Llm> llm;
  // The chat model `search` asks for its query plan (config `query_planner`,
  // else `vlm`, with `retrieval.recall_intent_timeout_s` as its timeout and
  // no retries). Any failure of the call or of its answer falls back to the
  // rule-based plan; null = rule-based intent analysis only.
  std::shared_ptr<Llm> query_planner;
  // Retrieval tuning (config sections `retrieval` and `rerank`).
  RetrievalOptions retrieval;
  // File text sent to the embedder is cut to this many estimated tokens.
  int embedding_max_input_tokens = 4096;
  // Threads running background jobs (ingestion, indexing). 0 runs none:
  // jobs stay queued (durably) until a Db with workers opens the workspace.
  int background_workers = 2;
  // Everything the database does to files outside SQLite, and its clocks,
  // go through this Env (tests pass a fault-injecting one). Borrowed: it
  // must outlive the Db. Null = the POSIX env (Env::Default()).
  Env* env = nullptr;
  // Bytes of the disk reserve kept in the workspace (temp/reserve): released
  // when a write finds the disk full, so that deletes, open and fsck still
  // have room; writes are refused until space is back. 0 = no reserve.
  uint64_t disk_reserve_bytes = uint64_t{4} << 20;
  // add-resource of an http(s) URL: also fetch from private, loopback and
  // link-local addresses (config `allow_private_networks`). Off, a URL whose
  // host resolves to any such address, or redirects to one, is refused.
  bool allow_private_networks = false;
  // An import of many files leaves linking its vectors into the graph until
  // it ends (VectorIndexSet::HoldLinks), so it keeps both cores; the
  // background linker then links them (link_in_background).
  bool link_after_imports = true;
  // Vectors that the indexes' catch-ups leave unlinked (up to 16,384 per
  // account, scored exactly by searches meanwhile) are linked into the HNSW
  // graph by a background thread of the lowest CPU priority. Off (the
  // embedded CLI, whose process closes after one command): they wait until
  // a process with the linker (a server) links them, or until more would
  // wait than may; the close saves them waiting either way (a job that ends
  // leaves an index with waiting vectors to it), so a short-lived process
  // spends no CPU on links it would not keep.
  bool link_in_background = true;

  Status Validate() const;
};

enum class SortBy { kNone, kName, kMtime };

struct LsOptions {
  // List the whole subtree (down to level_limit) instead of direct children.
  bool recursive = false;
  // Include dot-files (directories are always listed).
  bool show_all_hidden = false;
  // Maximum number of entries returned.
  int node_limit = 1000;
  // Depth limit for recursive listings and `tree` (1 = direct children).
  int level_limit = 3;
  // Directory abstracts are cut to abs_limit-3 characters + "..." when longer
  // (below 4: to abs_limit characters, no "..."; 0: none).
  int abs_limit = 256;
  SortBy sort_by = SortBy::kNone;
  bool descending = false;
  // Only entries whose node carries every one of these search tags (normalised as
  // set_tags stores them; malformed ones dropped), before node_limit applies.
  std::vector<std::string> tags = {};
  // Each entry carries its node's tags (LsEntry::tags); implied by `tags`.
  bool include_tags = false;

  Status Validate() const;
};

// POST /api/v1/content/set_tags and /api/v1/fs/attrs/set_tags.
struct SetTagsRequest {
  std::string uri;
  std::vector<std::string> tags;  // "k=v"
  std::string mode = "replace";   // "replace" | "append"
  bool recursive = false;         // the nodes below too
};

enum class WriteMode { kReplace, kAppend, kCreate };

struct WriteRequest {
  std::string uri;
  std::string content;
  WriteMode mode = WriteMode::kReplace;
  // Return only once the file is summarized and searchable.
  bool wait = false;
  // With `wait`: stop waiting after this many seconds (the work goes on).
  std::optional<double> timeout_s = std::nullopt;
  // "k=v" tags for the file's record (set_tags rules; none given: it keeps
  // its tags) and how they apply: "replace" or "append".
  std::optional<std::vector<std::string>> tags = std::nullopt;
  std::string tag_mode = "replace";
};

struct GrepRequest {
  std::string uri;
  // Subtree to skip (empty = none).
  std::string exclude_uri;
  // RE2 regular expression matched against each line.
  std::string pattern;
  bool case_insensitive = false;
  // Maximum number of matches returned.
  int node_limit = 256;
  // Maximum directory depth below `uri` that is searched.
  int level_limit = 10;
  // Only files whose node carries every one of these search tags are
  // scanned (find's filter rules: a malformed tag fails Validate).
  std::vector<std::string> tags = {};
  // Each match carries its file's tags (GrepMatch::tags); implied by `tags`.
  bool include_tags = false;

  Status Validate() const;
};

struct GlobRequest {
  std::string pattern;
  std::string uri = "viking://";
  // Maximum number of matches returned.
  int node_limit = 256;
  // Only entries whose node carries every one of these search tags, before
  // node_limit applies (find's filter rules: a malformed tag fails Validate).
  std::vector<std::string> tags = {};
  // Each match carries its node's tags (LsEntry::tags); implied by `tags`.
  bool include_tags = false;

  Status Validate() const;
};

// add-resource (reference §2.5). Exactly one source: `temp_file_id` (an
// upload made with Db::TempUpload; wins when both are set) or `path`.
struct AddResourceRequest {
  // A local file or directory, read by the process that runs the Db, or an
  // http(s) URL the import job fetches. The HTTP server refuses local paths
  // (only uploads and URLs reach it), as OpenViking. A file named .zip, .tar,
  // .tar.gz or .tgz (local or uploaded) is imported as the tree it holds.
  std::string path;
  std::string temp_file_id;
  // Exact URI of the resource root. Not with `parent`. When it exists, the
  // source is added again into it: files whose bytes changed are rewritten
  // and indexed again, unchanged files keep their records untouched, and
  // what the source no longer holds is removed with its records.
  std::string to;
  // Directory to create the resource root in (created when missing only
  // with create_parent). Default: viking://resources.
  std::string parent;
  bool create_parent = false;
  // Name of the root directory (default: derived from the file or
  // directory name). Collisions get "_1", "_2", ... appended.
  std::string source_name;
  std::string reason;
  std::string instruction;
  // Return only when the resource is parsed, summarized and searchable.
  bool wait = false;
  // With `wait`: give up waiting after this many seconds (the work goes on).
  std::optional<double> timeout_s = std::nullopt;
  // Directory imports: glob patterns of files to include (empty = all) and
  // to exclude, matched against the path relative to the imported
  // directory; directory names to skip besides the built-in list.
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  std::vector<std::string> ignore_dirs;
  // "k=v" tags set on every record of the resource ("replace") or merged
  // into their tags by key ("append").
  std::vector<std::string> tags;
  std::string tag_mode = "replace";
  // `args.parse_mode`: "default" (large Markdown documents are split into
  // sections) or "no_split" (every Markdown file is kept whole).
  std::string parse_mode = "default";
  // "semantic_and_vectors" (summaries and vectors) or "vectors_only"
  // (recorded with the task; Skald's model-free summaries are always made).
  std::string processing_mode = "semantic_and_vectors";

  Status Validate() const;
};

// POST /api/v1/content/reindex (reference §2.3): brings the records of a
// tree back in line with its content.
struct ReindexRequest {
  std::string uri;
  // "vectors_only" (embed again from the files and sidecars),
  // "semantic_and_vectors" (summarize again, then embed) or
  // "prune_orphans" (delete the records whose content is gone).
  std::string mode = "vectors_only";
  // Return once the task finished (or timeout_s passed).
  bool wait = true;
  std::optional<double> timeout_s = std::nullopt;
  // Count what would be done and change nothing.
  bool dry_run = false;
  // The node and everything below it; false: the node alone.
  bool recursive = true;
  // "k=v" tags set ("replace") or merged in ("append") on every record the
  // reindex rebuilt (not with prune_orphans or dry_run); none: kept.
  std::optional<std::vector<std::string>> tags = std::nullopt;
  std::string tag_mode = "replace";

  Status Validate() const;
};

// add-skill and update (reference §2.5 POST /api/v1/skills, §2.6 PUT
// /api/v1/skills/{name}). Exactly one source: `temp_file_id` (an upload
// holding a SKILL.md; wins when both are set) or `data_json`.
struct SkillRequest {
  // The skill as JSON: a string (a SKILL.md text), an object {name,
  // description?, content?, tags?, allowed_tools?} or an MCP tool {name,
  // description?, inputSchema}.
  std::string data_json;
  std::string temp_file_id;
  // The skills root: "" = the caller's own (viking://user/{uid}/skills), or
  // viking://agent/skills (shared by the account). Anything else is
  // InvalidArgument.
  std::string target_uri;
  // Update (PUT): the name of the skill to replace; it must exist and the
  // new definition must carry the same name. "" = add (creates or replaces).
  std::string update_name;
  // Return once the skill is summarized and searchable.
  bool wait = false;
  // With `wait`: give up waiting after this many seconds (the work goes on).
  std::optional<double> timeout_s = std::nullopt;
  // List the skills the source holds (SkillResult::listed) and install
  // nothing; the upload stays for the install that follows (`ov add-skill`
  // asks first, then installs from the same temp_file_id).
  bool list_only = false;
  // The skills to install from a source that holds several (a zip of
  // folders each with a SKILL.md); empty or "*" = every one.
  std::vector<std::string> skills;
  // Where the skill came from, as the caller describes it (a JSON object,
  // e.g. {"type":"git","clone_url":…}); "" = Skald's own record of the
  // request (api, inline_content or temp_upload, add or update). Kept with
  // the skill (GetSkill with `source`).
  std::string source_metadata_json;

  Status Validate() const;
};

// find / search (reference §2.4).
struct FindRequest {
  std::string query;
  // Directories to search (empty: the caller's visible roots).
  std::vector<std::string> target_uris;
  // "resource" | "memory" | "skill" (empty = all).
  std::vector<std::string> context_types;
  int limit = 10;
  // Scores must be strictly greater (default: rerank.threshold, 0.1).
  std::optional<double> score_threshold;
  // Levels to return (0 abstract, 1 overview, 2 file; empty = all).
  std::vector<int> levels;
  // "k=v" tags a hit must all carry.
  std::vector<std::string> tags;
  // Time window on `time_field` ("updated_at" or "created_at"), ns since the epoch.
  std::optional<int64_t> since_ns;
  std::optional<int64_t> until_ns;
  std::string time_field = "updated_at";
  // kAuto: THINKING (hierarchical) when a reranker is configured, else QUICK.
  RetrievalMode mode = RetrievalMode::kAuto;
  bool include_provenance = false;
  // What a `filter` (OpenViking's DSL) adds beyond the fields above: the
  // subtrees a hit must lie in (any of; empty = no condition), each to
  // `max_depth` levels below its URI (0 = the node itself; -1 = all), the
  // owners it must have (any of; "" = shared content), and whether the
  // filter's conditions exclude each other (no hit then).
  struct Subtree {
    std::string uri;
    int max_depth = -1;
  };
  std::vector<Subtree> within;
  std::vector<std::string> owners;
  bool matches_nothing = false;
  // No query: the records the filter and the other fields admit, listed
  // (one hit per node, in URI order, score 0) instead of searched.
  // OpenViking's filter-only find (query "" with a `filter`).
  bool filter_only = false;

  Status Validate() const;
};

// search (reference §2.4, list mode): find's fields plus the session whose
// latest archive overview and recent messages inform intent analysis.
struct SearchRequest {
  FindRequest find;
  // "" = none; an unknown or foreign session gives no context (not an error).
  std::string session_id;
};

// search's context mode (reference §2.4, mode "context"): answer-ready
// context for a query under a token budget (service/context_ops.cc).
struct ContextRequest {
  // find's fields (target_uri must be empty) and the session.
  SearchRequest search;
  int64_t max_tokens = 1600;  // 64..32000; the rendered context never exceeds it
  // Entries per category at most (events, entities, preferences,
  // experiences, memories, resources, skills; 0 = none). Categories not
  // named take the purpose's preset, else the defaults (events 10,
  // entities 10, preferences 3, experiences 0; the others unlimited).
  std::map<std::string, int> quotas;
  std::string purpose;  // "" | "chat" | "coding"
  // The deepest detail any entry may reach: "abstract" | "overview" |
  // "full"; "" = by kind (directories overview, files full).
  std::string detail;
  // "auto": intent analysis plans the queries (as list mode); "off": the
  // query as given.
  std::string query_expansion = "auto";
  // With a session: leave out what the last N context calls of that
  // session returned (0..100).
  int dedup_turns = 0;
  std::vector<std::string> exclude_uris;  // at most 200

  // InvalidArgument naming the field.
  Status Validate() const;
};

// Task listing filter (GET /api/v1/tasks).
struct TaskFilter {
  std::string task_type;
  std::optional<TaskState> status;  // nullopt = any
  std::string resource_id;
  int limit = 50;  // 0..200
};

}  // namespace skald
