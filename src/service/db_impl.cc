// The Db operations: each resolves the caller's URIs, checks access and
// forwards to the component that does the work (see db_impl.h). Tasks are
// the job queue seen through the API: strings only here, at the edge.

#include "service/db_impl.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "ingest/sidecar.h"
#include "uri/access.h"

namespace skald {
namespace {

// content/write may not reach into user-managed subtrees
// (user/{uid}/{skills,peers,privacy,sessions}).
Status CheckContentWriteTarget(const VikingUri& uri) {
  const auto& s = uri.segments();
  if (s.size() >= 3 && s[0] == "user" &&
      (s[2] == "skills" || s[2] == "peers" || s[2] == "privacy" || s[2] == "sessions")) {
    return Status::PermissionDenied(fmt::format(
        "content write is not allowed under viking://user/{}/{}: {}", s[1], s[2], uri.str()));
  }
  return Status::Ok();
}

TaskInfo ToTaskInfo(const Job& job) {
  TaskInfo info;
  info.task_id = job.task_id;
  info.task_type = job.kind_name;
  info.status = job.state;
  info.created_ns = job.created_ns;
  info.updated_ns = job.updated_ns;
  info.resource_id = job.resource_id;
  info.stage = job.stage;
  info.result_json = job.result;
  info.error = job.error;
  return info;
}

}  // namespace

// ---- file system: read ----

Result<std::vector<LsEntry>> DbImpl::Ls(const Identity& who, std::string_view uri_text,
                                        const LsOptions& options) {
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, uri_text));
  return reader_->List(who, uri, options, options.recursive);
}

Result<std::vector<LsEntry>> DbImpl::Tree(const Identity& who, std::string_view uri_text,
                                          const LsOptions& options) {
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, uri_text));
  return reader_->List(who, uri, options, /*recursive=*/true);
}

Result<NodeInfo> DbImpl::Stat(const Identity& who, std::string_view uri_text) {
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, uri_text));
  return reader_->Stat(who, uri);
}

Result<std::string> DbImpl::Read(const Identity& who, std::string_view uri_text, int64_t offset,
                                 int64_t limit, bool raw) {
  if (offset < 0)
    return Status::InvalidArgument(fmt::format("offset must be >= 0, got {}", offset));
  if (limit < -1) return Status::InvalidArgument(fmt::format("limit must be >= -1, got {}", limit));
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, uri_text));
  return reader_->Read(who, uri, offset, limit, raw);
}

Result<Download> DbImpl::DownloadFile(const Identity& who, std::string_view uri_text) {
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, uri_text));
  return reader_->DownloadFile(who, uri);
}

Result<std::string> DbImpl::Abstract(const Identity& who, std::string_view uri_text) {
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, uri_text));
  return reader_->Abstract(who, uri);
}

Result<std::string> DbImpl::Overview(const Identity& who, std::string_view uri_text) {
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, uri_text));
  return reader_->Overview(who, uri);
}

Result<GlobResult> DbImpl::Glob(const Identity& who, const GlobRequest& request) {
  return reader_->Glob(who, request);  // resolves after validating the request
}

Result<GrepResult> DbImpl::Grep(const Identity& who, const GrepRequest& request) {
  return reader_->Grep(who, request);  // resolves after validating the request
}

// ---- file system: write (fsck waits while these hold maintenance_mu_ shared) ----

Result<std::string> DbImpl::Mkdir(const Identity& who, std::string_view uri_text,
                                  std::string_view description) {
  std::shared_lock<std::shared_mutex> no_fsck(maintenance_mu_);
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, uri_text));
  SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, uri));
  SKALD_RETURN_IF_ERROR(CheckNotReserved(uri));
  return writer_->Mkdir(who, uri, description);
}

Result<RmResult> DbImpl::Rm(const Identity& who, std::string_view uri_text, bool recursive) {
  std::shared_lock<std::shared_mutex> no_fsck(maintenance_mu_);
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, uri_text));
  SKALD_RETURN_IF_ERROR(CheckDeleteAccess(who, uri));
  SKALD_ASSIGN_OR_RETURN(RmResult removed, writer_->Rm(who, uri, recursive));
  // After the removal, not in its transaction: a crash in between leaves
  // the links of a node that is gone (a node made again at that URI would
  // show them), as before this step existed.
  if (Status st = relations_->DropTree(who.account, uri.str()); !st.ok()) {
    spdlog::warn("rm {}: its relations stay: {}", uri.str(), st.ToString());
  }
  return removed;
}

Result<MvResult> DbImpl::Mv(const Identity& who, std::string_view from_text,
                            std::string_view to_text) {
  std::shared_lock<std::shared_mutex> no_fsck(maintenance_mu_);
  SKALD_ASSIGN_OR_RETURN(VikingUri from, Resolve(who, from_text));
  SKALD_ASSIGN_OR_RETURN(VikingUri to, Resolve(who, to_text));
  SKALD_RETURN_IF_ERROR(CheckDeleteAccess(who, from));
  SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, from));
  SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, to));
  SKALD_RETURN_IF_ERROR(CheckNotReserved(to));
  SKALD_ASSIGN_OR_RETURN(MvResult moved, writer_->Mv(who, from, to));
  // After the move, not in its transaction: a crash in between leaves the
  // links under the old URI, as before this step existed.
  if (Status st = relations_->MoveTree(who.account, from.str(), to.str()); !st.ok()) {
    spdlog::warn("mv {} {}: its relations stay behind: {}", from.str(), to.str(), st.ToString());
  }
  return moved;
}

Result<CpResult> DbImpl::Cp(const Identity& who, std::string_view from_text,
                            std::string_view to_text, bool recursive) {
  std::shared_lock<std::shared_mutex> no_fsck(maintenance_mu_);
  SKALD_ASSIGN_OR_RETURN(VikingUri from, Resolve(who, from_text));
  SKALD_ASSIGN_OR_RETURN(VikingUri to, Resolve(who, to_text));
  SKALD_ASSIGN_OR_RETURN(CatalogNode source, reader_->GetNode(who, from));
  (void)source;  // visible to `who`
  // All of it: a container above other users' spaces (viking://user) is
  // visible, but only the caller's part of it is theirs to copy.
  const std::vector<VikingUri> visible = VisibleSubtrees(who, from);
  if (visible.size() != 1 || visible[0].str() != from.str()) {
    return Status::PermissionDenied(
        fmt::format("{} holds other users' spaces: copy your own part of it", from.str()));
  }
  SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, to));
  SKALD_RETURN_IF_ERROR(CheckContentWriteTarget(to));
  SKALD_RETURN_IF_ERROR(CheckNotReserved(to));
  return writer_->Cp(who, from, to, recursive);
}

// ---- relations: the nodes are checked here, the lists kept by RelationOps ----

Result<std::vector<RelationLink>> DbImpl::Relations(const Identity& who,
                                                    std::string_view uri_text) {
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, uri_text));
  SKALD_ASSIGN_OR_RETURN(CatalogNode node, reader_->GetNode(who, uri));
  (void)node;
  SKALD_ASSIGN_OR_RETURN(std::vector<RelationLink> links, relations_->List(who.account, uri.str()));
  // Only the links the caller may see: another user's private URI (and the
  // reason given for it) stays theirs.
  std::erase_if(links, [&](const RelationLink& link) {
    Result<VikingUri> linked = VikingUri::Parse(link.uri);
    return !linked.ok() || !IsAccessible(who, *linked);
  });
  return links;
}

Result<std::vector<std::string>> DbImpl::Backlinks(const Identity& who, std::string_view uri_text) {
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, uri_text));
  SKALD_ASSIGN_OR_RETURN(CatalogNode node, reader_->GetNode(who, uri));
  (void)node;
  SKALD_ASSIGN_OR_RETURN(std::vector<std::string> from,
                         relations_->LinksTo(who.account, uri.str()));
  std::erase_if(from, [&](const std::string& text) {
    Result<VikingUri> linking = VikingUri::Parse(text);
    return !linking.ok() || !IsAccessible(who, *linking);
  });
  return from;
}

Status DbImpl::Link(const Identity& who, std::string_view from_text,
                    const std::vector<std::string>& to_texts, std::string_view reason) {
  SKALD_ASSIGN_OR_RETURN(VikingUri from, Resolve(who, from_text));
  SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, from));
  SKALD_ASSIGN_OR_RETURN(CatalogNode node, reader_->GetNode(who, from));
  (void)node;
  std::vector<std::string> to;
  for (std::string_view text : to_texts) {
    SKALD_ASSIGN_OR_RETURN(VikingUri target, Resolve(who, text));
    SKALD_ASSIGN_OR_RETURN(CatalogNode linked, reader_->GetNode(who, target));
    (void)linked;
    to.push_back(target.str());
  }
  return relations_->Link(who.account, from.str(), to, reason, env_->NowNanos());
}

Status DbImpl::Unlink(const Identity& who, std::string_view from_text, std::string_view to_text) {
  SKALD_ASSIGN_OR_RETURN(VikingUri from, Resolve(who, from_text));
  SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, from));
  SKALD_ASSIGN_OR_RETURN(VikingUri to, Resolve(who, to_text));
  return relations_->Unlink(who.account, from.str(), to.str());
}

// ---- tags: the node checked here, its records' tags kept by TagOps ----

Result<SetTagsResult> DbImpl::SetTags(const Identity& who, const SetTagsRequest& request) {
  SKALD_ASSIGN_OR_RETURN(TagMode mode, ParseTagMode(request.mode));
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, request.uri));
  SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, uri));
  SKALD_ASSIGN_OR_RETURN(CatalogNode node, reader_->GetNode(who, uri));
  std::vector<VikingUri> scopes;
  if (request.recursive && node.is_dir) scopes = VisibleSubtrees(who, uri);
  std::string root_uri = node.is_dir ? uri.str() : ContextRoot(uri).str();
  return tags_->Set(who, uri, scopes, request.tags, mode, std::move(root_uri));
}

Result<NodeAttrs> DbImpl::Attrs(const Identity& who, std::string_view uri_text) {
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, uri_text));
  SKALD_ASSIGN_OR_RETURN(CatalogNode node, reader_->GetNode(who, uri));
  (void)node;
  return tags_->Attrs(who.account, uri);
}

Result<WriteResult> DbImpl::Write(const Identity& who, const WriteRequest& request) {
  std::shared_lock<std::shared_mutex> no_fsck(maintenance_mu_);
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, request.uri));
  SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, uri));
  SKALD_RETURN_IF_ERROR(CheckContentWriteTarget(uri));
  SKALD_RETURN_IF_ERROR(CheckNotReserved(uri));
  SKALD_ASSIGN_OR_RETURN(TagMode tag_mode, ParseTagMode(request.tag_mode));
  SKALD_ASSIGN_OR_RETURN(WriteResult written, writer_->Write(who, uri, request, no_fsck));
  // Unchanged bytes queue no indexing: the tags go onto the file's record
  // now (a changed file's index job gives them, FsWriter::Write).
  if (request.tags && !written.content_updated && !IsSidecarName(uri.name())) {
    SKALD_ASSIGN_OR_RETURN(SetTagsResult tagged,
                           tags_->Set(who, uri, {}, *request.tags, tag_mode, ""));
    (void)tagged;
  }
  return written;
}

Result<FsckReport> DbImpl::Fsck(bool repair) { return upkeep_->Fsck(repair); }

Result<ConsistencyReport> DbImpl::CheckConsistency(const Identity& who, std::string_view uri) {
  return reader_->CheckConsistency(who, uri);
}

// ---- resources and find ----

Result<std::string> DbImpl::TempUpload(const Identity& who, std::string_view filename,
                                       std::string_view bytes) {
  return resources_->TempUpload(who, filename, bytes);
}

Result<AddResourceResult> DbImpl::AddResource(const Identity& who,
                                              const AddResourceRequest& request) {
  return resources_->AddResource(who, request);  // resolves after validating the request
}

Result<std::string> DbImpl::UpsertPrivacyConfig(const Identity& who, std::string_view category,
                                                std::string_view target,
                                                std::string_view values_json,
                                                std::string_view change_reason,
                                                std::string_view labels_json) {
  SKALD_ASSIGN_OR_RETURN(Json values, ParseJson(values_json));
  Json labels;
  if (!labels_json.empty()) {
    SKALD_ASSIGN_OR_RETURN(labels, ParseJson(labels_json));
  }
  return DumpedJson(
      privacy_->Upsert(who, category, target, values, std::string(change_reason), labels));
}

Result<ReindexResult> DbImpl::Reindex(const Identity& who, const ReindexRequest& request) {
  return resources_->Reindex(who, request);
}

Result<FindResult> DbImpl::Find(const Identity& who, const FindRequest& request) {
  return finder_->Find(who, request);  // narrows the targets to what `who` may see
}

Result<SearchResult> DbImpl::Search(const Identity& who, const SearchRequest& request) {
  return finder_->Search(who, request);
}

Result<ContextResult> DbImpl::SearchContext(const Identity& who, const ContextRequest& request) {
  return context_->Assemble(who, request);
}

// ---- tasks ----

Result<TaskInfo> DbImpl::GetTask(const Identity& who, std::string_view task_id) {
  SKALD_ASSIGN_OR_RETURN(std::optional<Job> job, catalog_->GetJobByTaskId(task_id));
  // Tasks name the caller's paths, stages and errors: a user sees their own
  // (OpenViking: "own; ROOT: all"); anyone else's answers like an unknown id.
  bool visible = job && CanSeeOwned(who, job->account, job->user);
  if (!visible) {
    return Status::NotFound("Task not found or expired")
        .WithDetail("resource", std::string(task_id))
        .WithDetail("type", "task");
  }
  return ToTaskInfo(*job);
}

Result<TaskInfo> DbImpl::WaitTask(const Identity& who, std::string_view task_id,
                                  int64_t timeout_ms) {
  SKALD_ASSIGN_OR_RETURN(TaskInfo task, GetTask(who, task_id));  // visible to `who`
  if (!runner_ || timeout_ms <= 0) return task;
  SKALD_ASSIGN_OR_RETURN(Job job, runner_->queue()->WaitForTask(
                                      task_id, std::chrono::milliseconds(timeout_ms)));
  return ToTaskInfo(job);
}

Result<std::vector<TaskInfo>> DbImpl::ListTasks(const Identity& who, const TaskFilter& filter) {
  if (filter.limit < 0 || filter.limit > 200) {
    return Status::InvalidArgument("limit must be between 0 and 200");
  }
  JobFilter query;
  if (!filter.task_type.empty()) {
    // A type this binary does not know names no job it could list by kind:
    // select the rows of unknown kinds and keep those stored with this name.
    query.kind = ParseJobKind(filter.task_type).value_or(JobKind::kUnknown);
  } else {
    // Skald's own indexing jobs (after a write, a move, a commit's archive)
    // have no OpenViking task type: listed only when asked for by type.
    query.exclude_kinds = {JobKind::kIndex, JobKind::kRefresh, JobKind::kReindex};
  }
  query.resource_id = filter.resource_id;
  query.state = filter.status;
  if (who.role != Role::kRoot) {  // the CanSeeOwned rule, as the query's filter
    query.account = who.account;
    query.user = who.user;
  }
  std::vector<TaskInfo> out;
  if (filter.limit == 0) return out;
  query.limit = filter.limit;
  if (query.kind == JobKind::kUnknown) query.limit = 0;  // filtered by name below
  SKALD_ASSIGN_OR_RETURN(std::vector<Job> jobs, catalog_->ListJobs(query));
  for (const Job& job : jobs) {
    if (job.kind_name != filter.task_type && !filter.task_type.empty()) continue;
    out.push_back(ToTaskInfo(job));
    if (out.size() == static_cast<size_t>(filter.limit)) break;
  }
  return out;
}

Status DbImpl::WaitIdle(int64_t timeout_ms, bool wait_for_retries) {
  return runner_->WaitIdle(timeout_ms, wait_for_retries);
}

// ---- operations (ops) ----

Result<DbStats> DbImpl::Stats(const Identity& who) { return ops_->Stats(who); }

ReadyReport DbImpl::CheckReady() { return ops_->CheckReady(); }

}  // namespace skald
