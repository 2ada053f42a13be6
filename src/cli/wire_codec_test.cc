// The wire encodings the CLI prints (and the server sends) for the
// retrieval API: find results, task dicts, add_resource results, and the
// time bounds find/search accept. They live in service/json_codec; they are
// tested here because the CLI is what depends on both sides matching.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "service/json_codec.h"

namespace skald {
namespace {

constexpr int64_t kSecond = 1000000000;
// 2026-01-31T00:00:00Z
constexpr int64_t kJan31 = int64_t{1769817600} * kSecond;

TEST(WireCodecTest, ParsesRelativeAges) {
  const int64_t now = kJan31 + 12 * 3600 * kSecond;
  EXPECT_EQ(*ParseTimeBound("30s", now, false), now - 30 * kSecond);
  EXPECT_EQ(*ParseTimeBound("15m", now, false), now - 15 * 60 * kSecond);
  EXPECT_EQ(*ParseTimeBound("2h", now, false), now - 2 * 3600 * kSecond);
  EXPECT_EQ(*ParseTimeBound(" 7d ", now, true), now - 7 * 86400 * kSecond);
  EXPECT_EQ(*ParseTimeBound("2w", now, false), now - 14 * 86400 * kSecond);
}

TEST(WireCodecTest, ParsesDatesAndIsoTimes) {
  EXPECT_EQ(*ParseTimeBound("2026-01-31", 0, false), kJan31);
  EXPECT_EQ(*ParseTimeBound("2026-01-31", 0, true), kJan31 + 86400 * kSecond - 1);
  EXPECT_EQ(*ParseTimeBound("2026-01-31T12:30:00Z", 0, false), kJan31 + 45000 * kSecond);
  EXPECT_EQ(*ParseTimeBound("2026-01-31 12:30", 0, false), kJan31 + 45000 * kSecond);
  EXPECT_EQ(*ParseTimeBound("2026-01-31T12:30:00.25Z", 0, false),
            kJan31 + 45000 * kSecond + kSecond / 4);
  EXPECT_EQ(*ParseTimeBound("2026-01-31T14:30:00+02:00", 0, false), kJan31 + 45000 * kSecond);
  EXPECT_EQ(*ParseTimeBound("2026-01-31T10:00:00-0230", 0, false), kJan31 + 45000 * kSecond);
}

TEST(WireCodecTest, RefusesMalformedTimes) {
  for (const char* bad : {"", "yesterday", "2h30m", "-2h", "7y", "2026-02-30", "2026-1-31",
                          "2026-01-31T25:00:00", "2026-01-31T12:00:00+2", "2026-01-31Tnoon",
                          "2026-01-31T12:00:00Zjunk", "99999999999999999999d"}) {
    Result<int64_t> parsed = ParseTimeBound(bad, kJan31, false);
    EXPECT_FALSE(parsed.ok()) << "'" << bad << "' parsed as " << (parsed.ok() ? *parsed : 0);
    if (!parsed.ok()) {
      EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
      EXPECT_NE(parsed.status().message().find("2h"), std::string::npos);
    }
  }
}

TEST(WireCodecTest, FindResultShape) {
  FindResult result;
  MatchedContext hit;
  hit.uri = "viking://resources/a/x.md";
  hit.context_type = ContextType::kResource;
  hit.level = 2;
  hit.score = std::numeric_limits<double>::quiet_NaN();
  hit.abstract = "x";
  hit.tags = {"topic=sea"};
  result.resources.push_back(hit);
  hit.score = 0.5;
  hit.match_reason = "lexical";
  result.memories.push_back(hit);
  result.trace = RetrievalTrace{};
  result.trace->mode = "quick";

  Json json = FindResultToJson(result, /*with_provenance=*/false);
  EXPECT_EQ(json["total"], 2);
  EXPECT_EQ(json["skills"], Json::array());
  EXPECT_FALSE(json.contains("provenance"));
  const Json& r = json["resources"][0];
  EXPECT_EQ(r, Json({{"context_type", "resource"},
                     {"uri", "viking://resources/a/x.md"},
                     {"level", 2},
                     {"score", 0.0},
                     {"abstract", "x"},
                     {"tags", {"topic=sea"}}}));
  EXPECT_EQ(json["memories"][0]["match_reason"], "lexical");
  EXPECT_EQ(json["memories"][0]["score"], 0.5);

  Json traced = FindResultToJson(result, /*with_provenance=*/true);
  ASSERT_TRUE(traced["provenance"].is_object());
  EXPECT_EQ(traced["provenance"]["mode"], "quick");
  EXPECT_FALSE(traced["provenance"].contains("rerank_warning"));
}

TEST(WireCodecTest, TaskDictShape) {
  TaskInfo task;
  task.task_id = "t1";
  task.task_type = "add_resource";
  task.status = TaskState::kCompleted;
  task.created_ns = kJan31 + 1500000;  // +1.5 ms
  task.updated_ns = kJan31 + 2 * kSecond;
  task.resource_id = "viking://resources/doc";
  task.stage = "done";
  task.result_json = R"({"files":1})";
  Json json = TaskInfoToJson(task);
  EXPECT_EQ(json["created_at_iso"], "2026-01-31T00:00:00.001500+00:00");
  EXPECT_EQ(json["updated_at_iso"], "2026-01-31T00:00:02.000000+00:00");
  EXPECT_DOUBLE_EQ(json["updated_at"].get<double>(), 1769817602.0);
  EXPECT_EQ(json["meta"], Json::object());
  EXPECT_EQ(json["result"], Json({{"files", 1}}));
  EXPECT_TRUE(json["error"].is_null());
  for (const char* key : {"task_id", "task_type", "status", "created_at", "resource_id", "stage"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }

  task.result_json.clear();
  task.error = "boom";
  json = TaskInfoToJson(task);
  EXPECT_TRUE(json["result"].is_null());
  EXPECT_EQ(json["error"], "boom");
}

TEST(WireCodecTest, AddResourceResultShape) {
  AddResourceResult added;
  added.root_uri = "viking://resources/doc";
  added.source_path = "doc.md";
  added.task_id = "t1";
  Json started = AddResourceResultToJson(added, /*waited=*/false);
  EXPECT_EQ(started, Json({{"status", "success"},
                           {"root_uri", "viking://resources/doc"},
                           {"temp_uri", ""},
                           {"source_path", "doc.md"},
                           {"meta", Json::object()},
                           {"errors", Json::array()},
                           {"task_id", "t1"}}));
  added.task_id.clear();
  added.task_status = TaskState::kCompleted;
  added.warnings = {"w"};
  Json waited = AddResourceResultToJson(added, /*waited=*/true);
  EXPECT_FALSE(waited.contains("task_id"));
  const Json done = {{"processed", 1}, {"requeue_count", 0}, {"error_count", 0},
                     {"errors", Json::array()}};
  EXPECT_EQ(waited["queue_status"], Json({{"Semantic", done}, {"Embedding", done}}));
  EXPECT_EQ(waited["warnings"], Json::array({"w"}));
  // A wait that timed out: nothing processed yet, and the task to follow.
  added.task_id = "t1";
  added.task_status = TaskState::kRunning;
  Json timed_out = AddResourceResultToJson(added, /*waited=*/true);
  EXPECT_EQ(timed_out["queue_status"]["Semantic"].value("processed", -1), 0);
  EXPECT_EQ(timed_out.value("task_id", ""), "t1");
}

}  // namespace
}  // namespace skald
