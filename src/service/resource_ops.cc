// add-resource, the request side (ResourceOps): uploads, placement,
// reservation of the root and the durable job. The job itself (import the
// source into content, then summarize and embed it) is
// ingest/import_job.cc.

#include "service/resource_ops.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "common/file_util.h"
#include "common/strings.h"
#include "common/tags.h"
#include "common/time_util.h"
#include "ingest/archive_extract.h"
#include "ingest/import_job.h"
#include "ingest/parsers/media_parser.h"
#include "ingest/ingest_jobs.h"
#include "ingest/reindex_job.h"
#include "ingest/source_import.h"
#include "ingest/url_fetch.h"
#include "service/fs_engine.h"
#include "uri/access.h"
#include "uri/uri_path.h"

namespace skald {
namespace {

// How long an add-resource that does not wait for its task waits for the
// files to be in place (JobQueue::WaitForPlaced).
constexpr std::chrono::milliseconds kPlacedWait{30000};

namespace fs = std::filesystem;

constexpr std::string_view kUploadPrefix = "upload_";

bool IsUploadId(std::string_view id) {
  static const std::regex pattern("^upload_[0-9a-f]{32}(\\.[A-Za-z0-9]{1,16})?$");
  return std::regex_match(id.begin(), id.end(), pattern);
}

Status UnknownUpload(std::string_view id) {
  return Status::PermissionDenied(fmt::format("unknown or expired temp_file_id: {}", id))
      .WithDetail("resource", std::string(id));
}

// A peer's resources: viking://user/{uid}/peers/{peer}/resources/...
bool IsPeerResourceUri(const VikingUri& uri) {
  const auto& s = uri.segments();
  return s.size() >= 5 && s[0] == "user" && s[2] == "peers" && s[4] == "resources";
}

// Resource namespaces: viking://resources/..., viking://user/{uid}/resources/...
// and a peer's viking://user/{uid}/peers/{peer}/resources/...
bool IsResourceUri(const VikingUri& uri) {
  const auto& s = uri.segments();
  if (!s.empty() && s[0] == "resources") return true;
  return (s.size() >= 3 && s[0] == "user" && s[2] == "resources") || IsPeerResourceUri(uri);
}

// The depth of the resources root a resource URI is under: 1 for
// viking://resources, 3 for viking://user/{uid}/resources, 5 for a peer's.
size_t ResourcesRootDepth(const VikingUri& uri) {
  if (IsPeerResourceUri(uri)) return 5u;
  return uri.segments()[0] == "user" ? 3u : 1u;
}

// A resources root itself (viking://resources, a user's or a peer's).
// git@, ssh://, git:// and tos:// sources (repositories, buckets).
bool IsRepositoryUrl(std::string_view path) {
  const std::string lower = AsciiLower(path.substr(0, 8));
  for (std::string_view scheme : {"ssh://", "git://", "tos://", "git@"}) {
    if (lower.starts_with(scheme)) return true;
  }
  return false;
}

// The host of a repository URL (git@host:path, ssh://[user@]host[:port]/,
// git://host[:port]/); nullopt for anything else (tos:// names a bucket).
std::optional<std::string> RepositoryHost(std::string_view path) {
  std::string_view rest;
  if (path.starts_with("git@")) {
    rest = path.substr(4);
    return std::string(rest.substr(0, rest.find(':')));
  }
  for (std::string_view scheme : {"ssh://", "git://"}) {
    if (!path.starts_with(scheme)) continue;
    rest = path.substr(scheme.size());
    rest = rest.substr(0, rest.find('/'));
    if (const size_t at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);
    if (rest.starts_with('[')) return std::string(rest.substr(1, rest.find(']') - 1));
    return std::string(rest.substr(0, rest.find(':')));
  }
  return std::nullopt;
}

bool IsResourcesRoot(const VikingUri& uri) {
  return IsResourceUri(uri) && uri.depth() == ResourcesRootDepth(uri);
}

}  // namespace

Result<UploadRef> FindUpload(const std::string& workspace, const Identity& who,
                             std::string_view id) {
  if (!IsUploadId(id)) return UnknownUpload(id);
  const fs::path dir = fs::path(workspace) / "temp" / "upload";
  UploadRef ref;
  ref.path = (dir / std::string(id)).string();
  std::ifstream meta_in(dir / (std::string(id) + std::string(kUploadMetaSuffix)));
  nlohmann::json meta = nlohmann::json::parse(meta_in, nullptr, false);
  std::error_code ec;
  if (!fs::exists(ref.path, ec) || !meta.is_object()) return UnknownUpload(id);
  auto field = [&](const char* key) {
    auto it = meta.find(key);
    return it != meta.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  // Claimable only by the user who uploaded it.
  if (!IsOwner(who, field("account"), field("user"))) return UnknownUpload(id);
  ref.original_filename = field("original_filename");
  return ref;
}

Status ResourceOps::Lock(const std::vector<PathLockRequest>& requests, PathLockGuard* guard) {
  return locks_->Acquire(requests, std::chrono::milliseconds(options_.lock_timeout_ms), guard);
}

Result<std::string> ResourceOps::TempUpload(const Identity& who, std::string_view filename,
                                            std::string_view bytes) {
  SKALD_RETURN_IF_ERROR(resolver_->EnsureAccount(who));
  std::string ext = fs::path(std::string(filename)).extension().string();
  static const std::regex ext_pattern("^\\.[A-Za-z0-9]{1,16}$");
  if (!std::regex_match(ext, ext_pattern)) ext.clear();
  std::string id = fmt::format("{}{}{}", kUploadPrefix, RandomHex128(), ext);
  fs::path dir = fs::path(options_.workspace) / "temp" / "upload";
  SKALD_RETURN_IF_ERROR(env_->CreateDirs(dir.string()));
  if (reserve_) SKALD_RETURN_IF_ERROR(reserve_->CheckWrite());
  nlohmann::json meta = {{"original_filename", std::string(filename)},
                         {"upload_time", static_cast<double>(env_->NowNanos()) / 1e9},
                         {"account", who.account},
                         {"user", who.user}};
  auto write = [&](const fs::path& path, std::string_view data) {
    Status st = WriteFileAtomically(env_, path.string(), data);
    if (IsDiskFull(st) && reserve_) reserve_->Release();  // deletes need the room
    return st;
  };
  SKALD_RETURN_IF_ERROR(write(dir / id, bytes));
  SKALD_RETURN_IF_ERROR(write(dir / (id + std::string(kUploadMetaSuffix)), meta.dump()));
  return id;
}

Result<AddResourceResult> ResourceOps::AddResource(const Identity& who,
                                                   const AddResourceRequest& request) {
  SKALD_RETURN_IF_ERROR(request.Validate());
  SKALD_RETURN_IF_ERROR(resolver_->EnsureAccount(who));
  std::shared_lock<std::shared_mutex> no_fsck(maintenance_mu_);
  if (!indexing_) {
    return Status::FailedPrecondition(
        "add-resource needs the embedding model of this workspace: configure embedding.dense");
  }
  AddResourceResult result;
  // The source and the name it goes by.
  std::string source_path;
  std::string display_name;
  std::string temp_file_id;
  std::string url;
  bool url_names_file = false;  // the URL's name is a file's, not its host
  if (!request.temp_file_id.empty()) {
    temp_file_id = request.temp_file_id;
    SKALD_ASSIGN_OR_RETURN(UploadRef upload, FindUpload(options_.workspace, who, temp_file_id));
    source_path = std::move(upload.path);
    display_name = upload.original_filename.empty() ? temp_file_id : upload.original_filename;
  } else if (IsRepositoryUrl(request.path)) {
    // Repositories are not fetched yet; a non-public host is refused first,
    // as for URLs (OpenViking's order).
    if (std::optional<std::string> host = RepositoryHost(request.path); host && !host->empty()) {
      const bool ipv6 = host->find(':') != std::string::npos;
      const std::string host_url = ipv6 ? "http://[" + *host + "]/" : "http://" + *host + "/";
      Status allowed = CheckUrlAllowed(host_url, options_.allow_private_networks);
      if (allowed.code() == StatusCode::kPermissionDenied) return allowed;
    }
    return Status::InvalidArgument(
               fmt::format("fetching remote resources ({}) is not supported yet; upload the file "
                           "with POST /api/v1/resources/temp_upload and pass its temp_file_id",
                           request.path))
        .WithReason("UNIMPLEMENTED")
        .WithDetail("path", request.path);
  } else if (IsHttpUrl(request.path)) {
    // Checked now (a clear refusal before anything is queued) and again by
    // the job on every address it connects to.
    SKALD_RETURN_IF_ERROR(CheckUrlAllowed(request.path, options_.allow_private_networks));
    url = request.path;
    SKALD_ASSIGN_OR_RETURN(display_name, UrlFileName(url, &url_names_file));
  } else {
    std::error_code ec;
    fs::path path = fs::absolute(request.path, ec);
    if (ec || !fs::exists(path, ec)) {
      return Status::NotFound(fmt::format("source path does not exist: {}", request.path));
    }
    source_path = path.lexically_normal().string();
    display_name = path.lexically_normal().filename().string();
    if (display_name.empty()) display_name = path.parent_path().filename().string();
  }
  result.source_path = !url.empty() ? url : temp_file_id.empty() ? source_path : display_name;
  if (url.empty()) {
    // An empty file holds nothing to import: refused now, not as a failed
    // task (OpenViking answers 400).
    std::error_code ec;
    if (fs::is_regular_file(source_path, ec) && fs::file_size(source_path, ec) == 0 && !ec) {
      return Status::InvalidArgument(
          fmt::format("{} is empty: there is nothing to import", display_name));
    }
  }
  std::string base_name = request.source_name.empty() ? display_name : request.source_name;
  // A file's resource is named without its extension ("docs.tar.gz" ->
  // "docs"); so is a URL's, unless the name is its host ("example.com").
  const bool names_file = url.empty() ? fs::is_regular_file(source_path)
                                      : url_names_file || !request.source_name.empty();
  // A picture, recording or video on its own is a directory
  // `{stem}_{ext}` holding the file, by default under
  // viking://resources/{images|audio|video}/YYYY/MM/DD (OpenViking's layout).
  const std::string_view media_kind = names_file ? MediaKindOf(base_name) : std::string_view();
  if (!media_kind.empty()) {
    base_name = MediaStem(base_name, media_kind);
  } else if (names_file) {
    base_name = ArchiveStem(base_name);
  }
  std::string root_name = SegmentFor(base_name);

  // Placement. `to` names the resource's place: a single document (one
  // file, not an archive) becomes the file `to` itself; `to` ending in '/'
  // is a directory to put the resource in, under its own name (a single
  // document keeps its file name); otherwise `to` is the resource's root
  // directory. A file placed at `to` goes through the same job, in "file
  // mode": its root is `to`'s directory, and only `to` is written or synced.
  VikingUri root;
  std::optional<VikingUri> to;
  if (!request.to.empty()) {
    SKALD_ASSIGN_OR_RETURN(to, Resolve(who, request.to));
  }
  bool single_document = url.empty() && names_file && !IsArchiveName(display_name);
  // The name a single document is placed under in a `to` directory.
  std::string document_name = request.source_name.empty() ? display_name : request.source_name;
  if (to && url.empty() && request.source_name.empty() && IsArchiveName(display_name)) {
    // An archive of one file is placed as that file (OpenViking unpacks,
    // then applies the rules below). A folder the CLI zipped carries its
    // name (source_name) and stays a folder.
    if (std::optional<std::string> lone = LoneArchiveFile(source_path)) {
      single_document = true;
      document_name = std::move(*lone);
    }
  }
  // `to` a resources root itself (viking://resources, viking://~/resources)
  // is the whole space, not a resource's place (OpenViking's rule): it must
  // end in '/', which places the resource in it under its derived name, as
  // without `to`.
  const bool to_root = to && IsResourcesRoot(*to);
  if (to_root && request.to.back() != '/') {
    return Status::InvalidArgument(fmt::format(
        "'to' cannot be the resources root {0}: name the resource's own place ({0}/<name>), "
        "or end it with '/' ({0}/) to add the resource there under its own name",
        to->str()));
  }
  const bool to_inside = to && !to_root && request.to.back() == '/';
  std::optional<VikingUri> file_target;  // file mode: the file's URI
  if (to && !to_root && single_document) {
    VikingUri target = to_inside ? to->Child(SegmentFor(document_name)) : *to;
    SKALD_ASSIGN_OR_RETURN(auto existing, catalog_->Get(who.account, target.path()));
    // An existing directory there (a resource added before) is the root, as before.
    if (!existing || !existing->is_dir) file_target = std::move(target);
  }
  const bool derived_name = !file_target && (!to || to_root || to_inside);
  if (file_target) {
    root = *file_target;
  } else if (!derived_name) {
    root = *to;
  } else {
    VikingUri parent;
    if (to_root || to_inside) {
      parent = *to;
    } else {
      std::string default_parent = "viking://resources";
      if (!media_kind.empty()) {
        const std::string day = FormatIsoMillis(env_->NowNanos()).substr(0, 10);  // YYYY-MM-DD
        const std::string_view folder = media_kind == "image" ? "images" : media_kind;
        default_parent = fmt::format("viking://resources/{}/{}/{}/{}", folder, day.substr(0, 4),
                                     day.substr(5, 2), day.substr(8, 2));
      }
      SKALD_ASSIGN_OR_RETURN(
          parent, Resolve(who, request.parent.empty() ? std::string_view(default_parent)
                                                      : std::string_view(request.parent)));
    }
    if (!IsResourceUri(parent)) {
      return Status::InvalidArgument(
                 fmt::format("parent must be a resource directory (viking://resources/...): {}",
                             parent.str()))
          .WithReason("INVALID_URI");
    }
    SKALD_ASSIGN_OR_RETURN(auto parent_node, catalog_->Get(who.account, parent.path()));
    if (parent_node && !parent_node->is_dir) {
      return Status::InvalidArgument(fmt::format("parent is a file: {}", parent.str()))
          .WithReason("INVALID_URI");
    }
    // A resources root is always there to add to (made on first use), and
    // so is a `to` directory.
    if (!parent_node && !request.parent.empty() && !request.create_parent &&
        !IsResourcesRoot(parent)) {
      return Status::NotFound(
                 fmt::format("parent directory does not exist: {} (set create_parent to create it)",
                             parent.str()))
          .WithDetail("resource", parent.str());
    }
    root = parent.Child(root_name);
    for (int n = 1;; ++n) {
      SKALD_ASSIGN_OR_RETURN(auto taken, catalog_->Get(who.account, root.path()));
      if (!taken) break;
      root = parent.Child(fmt::format("{}_{}", root_name, n));
    }
  }
  if (!IsResourceUri(root) || root.depth() <= ResourcesRootDepth(root)) {
    return Status::InvalidArgument(
               fmt::format("'to' must name a directory inside viking://resources: {}", root.str()))
        .WithReason("INVALID_URI");
  }
  SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, root));
  SKALD_RETURN_IF_ERROR(CheckNotReserved(root));

  // Claim the upload: from here on its id cannot start a second import
  // (a concurrent claim loses the rename), and the job owns the file until
  // it completes.
  if (!temp_file_id.empty()) {
    std::string claimed = source_path + std::string(kClaimedUploadSuffix);
    std::error_code ec;
    fs::rename(source_path, claimed, ec);
    if (ec) return UnknownUpload(temp_file_id);
    source_path = claimed;
  }
  // Reserve the root and queue the work. (A crash between the two leaves
  // an empty directory and no job; nothing half-imported.)
  // ("path", the job's root, is set once the root is taken.)
  nlohmann::json payload = {{"source_path", source_path},
                            {"display_name", display_name},
                            {"temp_file_id", temp_file_id},
                            {"include", request.include},
                            {"exclude", request.exclude},
                            {"ignore_dirs", request.ignore_dirs},
                            {"tags", request.tags},
                            {"tag_mode", request.tag_mode},
                            {"reason", request.reason},
                            {"url", url},
                            {"parse_mode", request.parse_mode},
                            {"processing_mode", request.processing_mode}};
  if (file_target) payload["file_name"] = std::string(file_target->name());
  JobSpec spec;
  spec.kind = JobKind::kAddResource;
  spec.account = who.account;
  spec.user = who.user;
  spec.resource_id = root.str();
  spec.payload = payload.dump();
  spec.priority = kJobPriorityBulk;
  spec.max_attempts = kModelJobAttempts;
  Job job;
  for (int n = 1;; ++n) {
    PathLockGuard guard;
    SKALD_RETURN_IF_ERROR(
        Lock({{who.account, std::string(root.path()), PathLockKind::kTree}}, &guard));
    // Another import may have taken the derived name since it was chosen.
    SKALD_ASSIGN_OR_RETURN(auto taken, catalog_->Get(who.account, root.path()));
    if (taken && derived_name) {
      root = root.Parent().Child(fmt::format("{}_{}", root_name, n));
      continue;
    }
    // File mode: the job's root is the file's directory, and "file_name"
    // the one file it writes there.
    const VikingUri job_root = file_target ? file_target->Parent() : root;
    SKALD_RETURN_IF_ERROR(nodes_->EnsureDirectories(who, job_root, /*include_self=*/true));
    spec.resource_id = root.str();
    payload["path"] = std::string(job_root.path());
    spec.payload = payload.dump();
    SKALD_ASSIGN_OR_RETURN(job, runner_->queue()->Enqueue(spec));
    break;
  }
  result.root_uri = root.str();
  // A tree put into a `to` directory is named as one, with its slash
  // (OpenViking's rule: "dir/" + "myproj" -> "dir/myproj/").
  if (to_inside && !file_target) result.root_uri += '/';
  no_fsck.unlock();  // the job takes its own share
  if (!request.wait) {
    // As OpenViking's, the answer comes once the files are in place (an
    // ls, read or grep right after sees them); summaries and vectors
    // follow in the task. Bounded: a queue busy with other imports does
    // not hold the request past kPlacedWait (the task goes on), and with no
    // worker (jobs wait for the next open) there is nothing to wait for.
    Job placed = job;
    if (runner_->workers() > 0) {
      SKALD_ASSIGN_OR_RETURN(placed, runner_->queue()->WaitForPlaced(job.task_id, kPlacedWait));
    }
    result.task_id = job.task_id;
    result.task_status = placed.state;
    return result;
  }
  SKALD_ASSIGN_OR_RETURN(Job done, runner_->AwaitTask(job.task_id, request.timeout_s));
  result.task_status = done.state;
  if (done.state != JobState::kCompleted) result.task_id = done.task_id;
  nlohmann::json summary = nlohmann::json::parse(done.result, nullptr, false);
  if (summary.is_object() && summary.contains("warnings") && summary["warnings"].is_array()) {
    for (const auto& w : summary["warnings"]) {
      if (w.is_string()) result.warnings.push_back(w.get<std::string>());
    }
  }
  return result;
}

Result<ReindexResult> ResourceOps::Reindex(const Identity& who, const ReindexRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  SKALD_RETURN_IF_ERROR(request.Validate());
  SKALD_RETURN_IF_ERROR(resolver_->EnsureAccount(who));
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, resolver_->ParseOnly(who, request.uri));
  const auto& segments = uri.segments();
  // A USER reindexes only their own tree (told so: 403, as OpenViking);
  // ADMIN and ROOT what they can see of their account's.
  if (who.role == Role::kUser &&
      (segments.size() < 2 || segments[0] != "user" || segments[1] != who.user)) {
    return Status::PermissionDenied(
               fmt::format("a user may reindex only their own viking://user/{}/...", who.user))
        .WithDetail("resource", uri.str());
  }
  SKALD_RETURN_IF_ERROR(CheckReadAccess(who, uri));
  const int root_depth = NamespaceRootDepth(uri.path());
  if (root_depth == 0 || static_cast<int>(segments.size()) < root_depth) {
    return Status::InvalidArgument(
               fmt::format("{} holds nothing that is indexed; reindex a namespace or a node "
                           "inside one (viking://resources/..., viking://user/{{id}}/memories/...)",
                           uri.str()))
        .WithReason("INVALID_URI");
  }
  if (!indexing_) {
    return Status::FailedPrecondition(
        "reindex needs the embedding model of this workspace: configure embedding.dense");
  }
  SKALD_ASSIGN_OR_RETURN(auto node, catalog_->Get(who.account, uri.path()));
  if (!node) return AbsentStatus(uri);

  ReindexResult result;
  result.uri = uri.str();
  result.mode = request.mode;
  result.object_type = static_cast<int>(segments.size()) == root_depth
                           ? "namespace"
                           : std::string(ContextTypeName(uri.context_type()));
  JobSpec spec;
  spec.kind = JobKind::kAdminReindex;
  spec.account = who.account;
  spec.user = who.user;
  spec.resource_id = uri.str();
  spec.priority = kJobPriorityBulk;
  spec.max_attempts = kModelJobAttempts;
  nlohmann::json payload = {{"path", std::string(uri.path())},
                            {"mode", request.mode},
                            {"dry_run", request.dry_run},
                            {"recursive", request.recursive}};
  if (request.tags) {
    payload["tags"] = NormalizeTagsLeniently(*request.tags);
    payload["tag_mode"] = request.tag_mode;
  }
  spec.payload = payload.dump();
  SKALD_ASSIGN_OR_RETURN(Job job, runner_->queue()->Enqueue(spec));
  result.task_id = job.task_id;
  result.task_status = TaskState::kPending;
  auto finish = [&] {
    result.duration_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  if (!request.wait) return finish();
  SKALD_ASSIGN_OR_RETURN(Job done, runner_->AwaitTask(job.task_id, request.timeout_s));
  result.task_status = done.state;
  if (done.state != JobState::kCompleted) return finish();
  result.task_id.clear();
  nlohmann::json summary = nlohmann::json::parse(done.result, nullptr, false);
  if (summary.is_object()) {
    auto count = [&](const char* key) { return summary.value(key, uint64_t{0}); };
    result.scanned_records = count("scanned_records");
    result.rebuilt_records = count("rebuilt_records");
    result.deleted_records = count("deleted_records");
    result.would_delete_records = count("would_delete_records");
    result.unsupported_records = count("unsupported_records");
    result.failed_records = count("failed_records");
    if (summary.contains("warnings") && summary["warnings"].is_array()) {
      for (const auto& w : summary["warnings"]) {
        if (w.is_string()) result.warnings.push_back(w.get<std::string>());
      }
    }
  }
  return finish();
}

}  // namespace skald
