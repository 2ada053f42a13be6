// Task routes (reference §2.8): GET /api/v1/tasks/{task_id},
// GET /api/v1/tasks and POST /api/v1/tasks/{task_id}/cancel, plus the watch
// listing (§2.11), which is always empty: Skald keeps no watch tasks.
// Answered with the default envelope (nulls kept).

#include <fmt/format.h>

#include "server/routes.h"
#include "service/json_codec.h"

namespace skald::server {
namespace {

constexpr std::string_view kTaskPrefix = "/api/v1/tasks/";
constexpr int64_t kMaxTaskListLimit = 200;

// OpenViking's exact 404 for an unknown, expired or foreign task.
Status TaskNotFound(const std::string& task_id) {
  return Status::NotFound("Task not found or expired")
      .WithDetail("resource", task_id)
      .WithDetail("type", "task");
}

void GetTask(Call& call) {
  const std::string task_id = PathParameter(call, kTaskPrefix);
  Result<TaskInfo> task = call.db().GetTask(call.who(), task_id);
  if (!task.ok()) {
    if (task.status().code() == StatusCode::kNotFound) return call.Fail(TaskNotFound(task_id));
    return call.Fail(task.status());
  }
  call.Ok(TaskInfoToJson(*task));
}

// ?task_type=&status=&resource_id=&limit=50 (0..200), newest first.
void ListTasks(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  TaskFilter filter;
  filter.task_type = q.String("task_type", "");
  const std::string status = q.String("status", "");
  filter.resource_id = q.String("resource_id", "");
  const int64_t limit = q.Int("limit", filter.limit);
  if (errors.empty() && limit > kMaxTaskListLimit) {
    errors.Add({"query", "limit"}, "Input should be less than or equal to 200", "less_than_equal");
  } else if (errors.empty() && limit < 0) {
    errors.Add({"query", "limit"}, "Input should be greater than or equal to 0",
               "greater_than_equal");
  }
  if (!errors.empty()) return call.FailValidation(errors);
  filter.limit = static_cast<int>(limit);
  if (!status.empty()) {
    filter.status = ParseTaskState(status);
    if (!filter.status) {
      return call.Fail(Status::InvalidArgument(fmt::format("unknown task status '{}'", status)));
    }
  }

  Result<std::vector<TaskInfo>> tasks = call.db().ListTasks(call.who(), filter);
  if (!tasks.ok()) return call.Fail(tasks.status());
  Json out = Json::array();
  for (const TaskInfo& task : *tasks) out.push_back(TaskInfoToJson(task));
  call.Ok(out);
}

// Skald's background jobs run to completion once queued: a task that exists
// (for the caller) is never cancellable, which OpenViking answers with 412.
// ROOT may not cancel (403), as in OpenViking.
void CancelTask(Call& call) {
  const std::vector<std::string> params = PatternParameters(call, "/api/v1/tasks/{}/cancel");
  const std::string task_id = params.empty() ? std::string() : params[0];
  if (call.who().role == Role::kRoot) {
    return call.Fail(Status::PermissionDenied("ROOT cannot cancel tasks; use the owner's key"));
  }
  Result<TaskInfo> task = call.db().GetTask(call.who(), task_id);
  if (!task.ok()) {
    if (task.status().code() == StatusCode::kNotFound) return call.Fail(TaskNotFound(task_id));
    return call.Fail(task.status());
  }
  call.Fail(Status::FailedPrecondition(
                fmt::format("Task {} cannot be cancelled: it is {} and Skald's background jobs "
                            "run to completion",
                            task_id, TaskStateName(task->status)))
                .WithDetail("resource", task_id)
                .WithDetail("type", "task"));
}

// Skald keeps no watches: every one asked for is a 404. `what` names it
// in the message: ": {task_id}" or " for {to_uri}".
void NoWatch(Call& call, const std::string& resource, std::string_view what) {
  call.Fail(Status::NotFound(fmt::format("Watch task not found{}", what))
                .WithDetail("resource", resource)
                .WithDetail("type", "watch"));
}

// GET /api/v1/watches[?active_only=&to_uri=]: {tasks: [], total: 0}; with
// `to_uri` (one watch): 404.
void ListWatches(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  (void)q.Bool("active_only", false);
  const std::string to_uri = q.String("to_uri", "");
  if (!errors.empty()) return call.FailValidation(errors);
  if (!to_uri.empty()) return NoWatch(call, to_uri, " for " + to_uri);
  call.Ok(Json{{"tasks", Json::array()}, {"total", 0}});
}

// GET, PATCH and DELETE /api/v1/watches/{task_id}.
void WatchById(Call& call) {
  const std::string task_id = PathParameter(call, "/api/v1/watches/");
  NoWatch(call, task_id, ": " + task_id);
}

// POST /api/v1/watches/{task_id}/trigger.
void TriggerWatch(Call& call) {
  const std::vector<std::string> params =
      PatternParameters(call, "/api/v1/watches/{}/trigger");
  const std::string task_id = params.empty() ? std::string() : params.front();
  NoWatch(call, task_id, ": " + task_id);
}

// PATCH and DELETE /api/v1/watches?to_uri=, POST /api/v1/watches/trigger?to_uri=:
// the watch of `to_uri` (required), never there.
void WatchByTarget(Call& call) {
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  const std::string to_uri = q.RequiredString("to_uri");
  if (!errors.empty()) return call.FailValidation(errors);
  NoWatch(call, to_uri, " for " + to_uri);
}

}  // namespace

void RegisterTaskRoutes(Router& router) {
  router.Add("GET", "/api/v1/tasks", ListTasks);
  router.AddWithParameter("GET", std::string(kTaskPrefix), GetTask);
  router.AddPattern("POST", "/api/v1/tasks/{}/cancel", CancelTask);
  router.Add("GET", "/api/v1/watches", ListWatches);
  for (const char* method : {"GET", "PATCH", "DELETE"}) {
    router.AddWithParameter(method, "/api/v1/watches/", WatchById);
  }
  router.AddPattern("POST", "/api/v1/watches/{}/trigger", TriggerWatch);
  for (const char* method : {"PATCH", "DELETE"}) {
    router.Add(method, "/api/v1/watches", WatchByTarget);
  }
  router.Add("POST", "/api/v1/watches/trigger", WatchByTarget);
}

}  // namespace skald::server
