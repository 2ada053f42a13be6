#pragma once

// DbImpl: the Db facade. Each operation resolves the caller's URIs, checks
// access and forwards to the component that does the work:
//
//   file system     FsReader / FsWriter (fs_engine.h) over NodeWriter
//   find            Finder (finder.h) over the retriever and the indexes
//   add-resource    ResourceOps (resource_ops.h); the import is an ingest job
//   jobs and tasks  JobRunner (storage/job_runner.h) with the ingest handlers
//                   (ingest/ingest_jobs.h) registered per JobKind
//   indexes         IndexCatchUp (ingest/index_catch_up.h)
//   relations       RelationOps (relation_ops.h), kept in the catalog's meta table
//   tags            TagOps (tag_ops.h), on the records in the catalog
//   upkeep, fsck    Upkeep (upkeep.h)
//
// db_open.cc opens the workspace (lock, catalog, recovery) and wires the
// components; db_impl.cc holds the operations.
//
// Thread safety: as Db. Writers take path locks (PathLockManager) for the
// nodes they change; readers take none and rely on atomic renames in the
// content store and SQLite snapshots in the catalog.

#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "common/env.h"
#include "common/two_threads.h"
#include "index/lexical_index.h"
#include "index/vector_index_set.h"
#include "ingest/index_catch_up.h"
#include "ingest/semantic_indexer.h"
#include "retrieve/retriever.h"
#include "service/account_registry.h"
#include "service/context_ops.h"
#include "service/finder.h"
#include "service/fs_engine.h"
#include "service/ops_stats.h"
#include "service/pack_ops.h"
#include "service/snapshot_ops.h"
#include "service/privacy_ops.h"
#include "service/relation_ops.h"
#include "service/resource_ops.h"
#include "service/session_files_adapter.h"
#include "service/skill_ops.h"
#include "service/tag_ops.h"
#include "service/upkeep.h"
#include "service/uri_resolver.h"
#include "session/memory_hook.h"
#include "session/session_store.h"
#include "skald/db.h"
#include "storage/catalog.h"
#include "storage/content_store.h"
#include "storage/disk_reserve.h"
#include "storage/job_runner.h"
#include "storage/node_writer.h"
#include "storage/path_lock.h"
#include "storage/workspace_lock.h"
#include "text/summarizer.h"
#include "uri/viking_uri.h"

namespace skald {

class DbImpl final : public Db {
 public:
  ~DbImpl() override;

  static Result<std::unique_ptr<Db>> OpenImpl(const DbOptions& options);

  Result<std::vector<LsEntry>> Ls(const Identity& who, std::string_view uri,
                                  const LsOptions& options) override;
  Result<std::vector<LsEntry>> Tree(const Identity& who, std::string_view uri,
                                    const LsOptions& options) override;
  Result<NodeInfo> Stat(const Identity& who, std::string_view uri) override;
  Result<std::string> Mkdir(const Identity& who, std::string_view uri,
                            std::string_view description) override;
  Result<RmResult> Rm(const Identity& who, std::string_view uri, bool recursive) override;
  Result<MvResult> Mv(const Identity& who, std::string_view from, std::string_view to) override;
  Result<CpResult> Cp(const Identity& who, std::string_view from, std::string_view to,
                      bool recursive) override;
  Result<std::vector<std::string>> Backlinks(const Identity& who, std::string_view uri) override;
  Result<std::vector<RelationLink>> Relations(const Identity& who, std::string_view uri) override;
  Status Link(const Identity& who, std::string_view from, const std::vector<std::string>& to,
              std::string_view reason) override;
  Status Unlink(const Identity& who, std::string_view from, std::string_view to) override;
  Result<SetTagsResult> SetTags(const Identity& who, const SetTagsRequest& request) override;
  Result<NodeAttrs> Attrs(const Identity& who, std::string_view uri) override;
  Result<std::string> Read(const Identity& who, std::string_view uri, int64_t offset,
                           int64_t limit, bool raw) override;
  Result<Download> DownloadFile(const Identity& who, std::string_view uri) override;
  Result<WriteResult> Write(const Identity& who, const WriteRequest& request) override;
  Result<std::string> Abstract(const Identity& who, std::string_view uri) override;
  Result<std::string> Overview(const Identity& who, std::string_view uri) override;
  Result<GlobResult> Glob(const Identity& who, const GlobRequest& request) override;
  Result<GrepResult> Grep(const Identity& who, const GrepRequest& request) override;
  Result<FsckReport> Fsck(bool repair) override;
  Result<ConsistencyReport> CheckConsistency(const Identity& who, std::string_view uri) override;
  Result<std::string> TempUpload(const Identity& who, std::string_view filename,
                                 std::string_view bytes) override;
  Result<AddResourceResult> AddResource(const Identity& who,
                                        const AddResourceRequest& request) override;
  Result<ReindexResult> Reindex(const Identity& who, const ReindexRequest& request) override;
  // ---- OVPack: forwarded to PackOps (pack_ops.h).
  Result<Download> ExportPack(const Identity& who, std::string_view uri,
                              bool include_vectors) override {
    return packs_->Export(who, uri, include_vectors);
  }
  Result<Download> BackupPack(const Identity& who, bool include_vectors) override {
    return packs_->Backup(who, include_vectors);
  }
  Result<std::string> ImportPack(const Identity& who, const PackImportRequest& request) override {
    return packs_->Import(who, request);
  }
  Result<std::string> RestorePack(const Identity& who, const PackImportRequest& request) override {
    return packs_->Restore(who, request);
  }

  // ---- Snapshots: forwarded to SnapshotOps (snapshot_ops.h).
  Result<SnapshotCommitResult> SnapshotCommit(const Identity& who,
                                              const SnapshotCommitRequest& request) override {
    return snapshots_->Commit(who, request);
  }
  Result<std::vector<SnapshotCommitInfo>> SnapshotLog(const Identity& who,
                                                      const SnapshotLogRequest& request) override {
    return snapshots_->Log(who, request);
  }
  Result<SnapshotCommitInfo> SnapshotShow(const Identity& who, std::string_view ref) override {
    return snapshots_->Show(who, ref);
  }
  Result<SnapshotBlobContent> SnapshotShowFile(const Identity& who, std::string_view ref,
                                               std::string_view uri, bool raw) override {
    return snapshots_->ShowFile(who, ref, uri, raw);
  }
  Result<SnapshotDiffResult> SnapshotDiff(const Identity& who, std::string_view uri,
                                          std::string_view from, std::string_view to) override {
    return snapshots_->Diff(who, uri, from, to);
  }
  Result<SnapshotRestoreResult> SnapshotRestore(const Identity& who,
                                                const SnapshotRestoreRequest& request) override {
    std::shared_lock<std::shared_mutex> no_fsck(maintenance_mu_);
    return snapshots_->Restore(who, request);
  }
  Result<std::string> GetSnapshotIgnore(const Identity& who) override {
    return snapshots_->GetIgnore(who);
  }
  Status SetSnapshotIgnore(const Identity& who, std::string_view content) override {
    return snapshots_->SetIgnore(who, content);
  }
  // ---- Privacy configs: forwarded to PrivacyOps (privacy_ops.h).
  Result<std::vector<std::string>> ListPrivacyConfigs(const Identity& who,
                                                      std::string_view category) override {
    return privacy_->List(who, category);
  }
  Result<std::string> GetPrivacyConfig(const Identity& who, std::string_view category,
                                       std::string_view target) override {
    return DumpedJson(privacy_->Get(who, category, target));
  }
  Result<std::vector<int>> PrivacyConfigVersions(const Identity& who, std::string_view category,
                                                 std::string_view target) override {
    return privacy_->Versions(who, category, target);
  }
  Result<std::string> GetPrivacyConfigVersion(const Identity& who, std::string_view category,
                                              std::string_view target, int version) override {
    return DumpedJson(privacy_->Version(who, category, target, version));
  }
  Result<std::string> UpsertPrivacyConfig(const Identity& who, std::string_view category,
                                          std::string_view target, std::string_view values_json,
                                          std::string_view change_reason,
                                          std::string_view labels_json) override;
  Result<std::string> ActivatePrivacyConfig(const Identity& who, std::string_view category,
                                            std::string_view target, int version) override {
    return DumpedJson(privacy_->Activate(who, category, target, version));
  }
  Result<bool> DeletePrivacyConfig(const Identity& who, std::string_view category,
                                   std::string_view target) override {
    return privacy_->Delete(who, category, target);
  }
  Result<FindResult> Find(const Identity& who, const FindRequest& request) override;
  Result<SearchResult> Search(const Identity& who, const SearchRequest& request) override;
  Result<ContextResult> SearchContext(const Identity& who, const ContextRequest& request) override;
  Result<TaskInfo> GetTask(const Identity& who, std::string_view task_id) override;
  Result<TaskInfo> WaitTask(const Identity& who, std::string_view task_id,
                            int64_t timeout_ms) override;
  Result<std::vector<TaskInfo>> ListTasks(const Identity& who, const TaskFilter& filter) override;
  Status WaitIdle(int64_t timeout_ms, bool wait_for_retries) override;

  // ---- Accounts, users and keys (auth): forwarded to AccountRegistry.
  Result<NewAccount> CreateAccount(const Identity& who, std::string_view account_id,
                                   std::string_view admin_user_id) override {
    return accounts_->CreateAccount(who, account_id, admin_user_id);
  }
  Result<std::vector<AccountInfo>> ListAccounts(const Identity& who) override {
    return accounts_->ListAccounts(who);
  }
  Status DeleteAccount(const Identity& who, std::string_view account_id) override {
    return accounts_->DeleteAccount(who, account_id);
  }
  Result<std::string> RegisterUser(const Identity& who, std::string_view account_id,
                                   std::string_view user_id, std::string_view role) override {
    return accounts_->RegisterUser(who, account_id, user_id, role);
  }
  Result<std::vector<UserInfo>> ListUsers(const Identity& who, std::string_view account_id,
                                          const UserFilter& filter) override {
    return accounts_->ListUsers(who, account_id, filter);
  }
  Result<UserRemoval> RemoveUser(const Identity& who, std::string_view account_id,
                                 std::string_view user_id) override {
    return accounts_->RemoveUser(who, account_id, user_id);
  }
  Status SetUserRole(const Identity& who, std::string_view account_id, std::string_view user_id,
                     std::string_view role) override {
    return accounts_->SetRole(who, account_id, user_id, role);
  }
  Result<std::string> RegenerateKey(const Identity& who, std::string_view account_id,
                                    std::string_view user_id) override {
    return accounts_->RegenerateKey(who, account_id, user_id);
  }
  Result<Identity> Authenticate(std::string_view user_key) override {
    return accounts_->Authenticate(user_key);
  }
  Result<bool> IsUserDeleting(std::string_view account_id, std::string_view user_id) override {
    return accounts_->IsUserDeleting(account_id, user_id);
  }
  Result<std::optional<Role>> RegisteredRole(std::string_view account_id,
                                             std::string_view user_id) override {
    return accounts_->UserRole(account_id, user_id);
  }
  // ---- Sessions: forwarded to SessionStore (session/session_store.h). The
  // calls that can create a session first make the caller's account ready
  // (an account known only from identity headers may not have its root
  // yet); background session jobs never do (a deleted account stays gone).
  Result<SessionCreated> CreateSession(const Identity& who,
                                       const SessionCreateRequest& request) override {
    SKALD_RETURN_IF_ERROR(resolver_->EnsureAccount(who));
    return sessions_->Create(who, request);
  }
  Result<std::vector<SessionListEntry>> ListSessions(const Identity& who) override {
    return sessions_->List(who);
  }
  Result<std::string> GetSession(const Identity& who, std::string_view session_id,
                                 bool auto_create) override {
    if (auto_create) SKALD_RETURN_IF_ERROR(resolver_->EnsureAccount(who));
    return sessions_->GetMeta(who, session_id, auto_create);
  }
  Status DeleteSession(const Identity& who, std::string_view session_id) override {
    return sessions_->Delete(who, session_id);
  }
  Result<SessionMessagesAdded> AddSessionMessages(
      const Identity& who, std::string_view session_id,
      const std::vector<std::string>& messages_json) override {
    SKALD_RETURN_IF_ERROR(resolver_->EnsureAccount(who));
    return sessions_->AddMessages(who, session_id, messages_json);
  }
  Result<SessionUsageCounts> RecordSessionUsage(const Identity& who, std::string_view session_id,
                                                const std::vector<std::string>& contexts,
                                                const std::string& skill_uri,
                                                bool skill_given) override {
    return sessions_->Used(who, session_id, contexts, skill_uri, skill_given);
  }
  Result<SessionCommitResult> CommitSession(const Identity& who, std::string_view session_id,
                                            const SessionCommitRequest& request) override {
    return sessions_->Commit(who, session_id, request);
  }
  Result<SessionContextResult> GetSessionContext(const Identity& who, std::string_view session_id,
                                                 int64_t token_budget) override {
    return sessions_->Context(who, session_id, token_budget);
  }
  Result<std::string> GetSessionArchive(const Identity& who, std::string_view session_id,
                                        std::string_view archive_id) override {
    return sessions_->Archive(who, session_id, archive_id);
  }
  // ---- Session configuration and auto-commit (helper "usage"): SessionStore.
  Result<SessionConfig> UpdateSessionConfig(const Identity& who, std::string_view session_id,
                                            const SessionConfigUpdate& update) override {
    return sessions_->UpdateConfig(who, session_id, update);
  }
  // ---- Session memory extraction: forwarded to MemoryExtraction (session/memory_hook.h).
  Result<std::vector<SessionExtractedMemory>> ExtractSessionMemories(
      const Identity& who, std::string_view session_id) override {
    return memory_->ExtractLive(sessions_.get(), who, session_id);
  }
  // ---- Skills: forwarded to SkillOps (skill_ops.h).
  Result<SkillResult> AddSkill(const Identity& who, const SkillRequest& request) override {
    return skills_->Add(who, request);
  }
  Result<std::vector<SkillInfo>> ListSkills(const Identity& who, std::string_view target_uri,
                                            int64_t limit) override {
    return skills_->List(who, target_uri, limit);
  }
  Result<SkillInfo> GetSkill(const Identity& who, std::string_view name,
                             std::string_view target_uri, const SkillReadOptions& read) override {
    return skills_->Get(who, name, target_uri, read);
  }
  Result<SkillInfo> DeleteSkill(const Identity& who, std::string_view name,
                                std::string_view target_uri) override {
    return skills_->Delete(who, name, target_uri);
  }
  Result<SkillValidationReport> ValidateSkill(const Identity& who, std::string_view data_json,
                                              bool strict,
                                              std::string_view skill_dir_name) override {
    (void)who;
    return skills_->Validate(data_json, strict, skill_dir_name);
  }
  // ---- operations (ops): OpsStats ----
  Result<DbStats> Stats(const Identity& who) override;
  ReadyReport CheckReady() override;

 private:
  // `env` is options.env or Env::Default(); its clock times path locks.
  explicit DbImpl(Env* env) : env_(env), locks_(env) {}

  Result<VikingUri> Resolve(const Identity& who, std::string_view text) {
    return resolver_->Resolve(who, text);
  }

  // Opens the indexes, the job runner with its handlers and the components
  // over them, and starts the workers (at open).
  Status StartBackground();
  // Stops the workers and saves the vector indexes (at close).
  void StopBackground();

  DbOptions options_;
  Env* env_ = nullptr;                    // options_.env or Env::Default()
  // Helper threads of the two-thread fan-outs (imports, indexing, pack
  // writes); declared before everything that uses them, so destroyed after.
  std::unique_ptr<HelperPool> helpers_ = std::make_unique<HelperPool>();
  std::unique_ptr<DiskReserve> reserve_;  // null when disk_reserve_bytes == 0
  std::unique_ptr<WorkspaceLock> workspace_lock_;
  std::unique_ptr<ContentStore> content_;
  std::unique_ptr<Catalog> catalog_;
  PathLockManager locks_;
  // Jobs and tree-changing requests hold it shared; Fsck holds it
  // exclusively so it never sees a sidecar whose catalog row a job is about
  // to write.
  std::shared_mutex maintenance_mu_;
  std::unique_ptr<NodeWriter> nodes_;
  std::unique_ptr<UriResolver> resolver_;

  std::unique_ptr<VectorIndexSet> vectors_;  // null without an embedder
  std::unique_ptr<LexicalIndex> lexical_;
  std::unique_ptr<Summarizer> summarizer_;
  std::unique_ptr<Summarizer> llm_summarizer_;  // with a `vlm` model only
  std::unique_ptr<Retriever> retriever_;
  std::unique_ptr<IndexCatchUp> indexes_;
  std::unique_ptr<JobRunner> runner_;
  std::unique_ptr<SemanticIndexer> indexer_;  // null without an embedder
  std::unique_ptr<Upkeep> upkeep_;
  std::unique_ptr<FsReader> reader_;
  std::unique_ptr<FsWriter> writer_;
  std::unique_ptr<Finder> finder_;
  std::unique_ptr<ContextAssembler> context_;
  std::unique_ptr<ResourceOps> resources_;
  std::unique_ptr<PackOps> packs_;
  std::unique_ptr<SnapshotOps> snapshots_;
  std::unique_ptr<PrivacyOps> privacy_;
  std::unique_ptr<AccountRegistry> accounts_;
  std::unique_ptr<OpsStats> ops_;
  std::unique_ptr<SessionFilesAdapter> session_files_;
  // Memory extraction (model or model-free); the sessions' hook borrows it.
  std::unique_ptr<MemoryExtraction> memory_;
  std::unique_ptr<SessionStore> sessions_;
  std::unique_ptr<SkillOps> skills_;
  std::unique_ptr<RelationOps> relations_;
  std::unique_ptr<TagOps> tags_;
  bool opened_ = false;  // set once OpenImpl succeeded
};

}  // namespace skald
