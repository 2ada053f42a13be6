// Task routes (reference §2.8): GET /api/v1/tasks/{task_id} and
// GET /api/v1/tasks. Answered with the default envelope (nulls kept).

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

}  // namespace

void RegisterTaskRoutes(Router& router) {
  router.Add("GET", "/api/v1/tasks", ListTasks);
  router.AddWithParameter("GET", std::string(kTaskPrefix), GetTask);
}

}  // namespace skald::server
