#include "cli/output.h"

#include <gtest/gtest.h>

#include <sstream>

#include "service/json_codec.h"

namespace skald::cli {
namespace {

std::string Render(void (*fn)(const Json&, std::ostream&), const Json& j) {
  std::ostringstream out;
  fn(j, out);
  return out.str();
}

TEST(OutputTest, FormatSizeAndTime) {
  EXPECT_EQ(FormatSize(0), "0 B");
  EXPECT_EQ(FormatSize(1023), "1023 B");
  EXPECT_EQ(FormatSize(1536), "1.5 KiB");
  EXPECT_EQ(FormatSize(5ull << 30), "5.0 GiB");
  EXPECT_EQ(FormatTime("2026-11-30T03:32:01.123Z"), "2026-11-30 03:32:01");
  EXPECT_EQ(FormatTime("garbage"), "garbage");
}

TEST(OutputTest, OneLineCutsAtCodePoints) {
  EXPECT_EQ(OneLine("first\nsecond", 80), "first");
  EXPECT_EQ(OneLine("ääääääääää", 6), "äää...");
}

TEST(OutputTest, TableAlignsColumnsAndRightAlignsNumbers) {
  Table t(
      {{"NAME", Table::Align::kLeft}, {"SIZE", Table::Align::kRight}, {"X", Table::Align::kLeft}});
  t.AddRow({"ä", "1", "a"});
  t.AddRow({"long-name", "1000", "b"});
  std::ostringstream out;
  t.Print(out);
  EXPECT_EQ(out.str(),
            "NAME       SIZE  X\n"
            "ä             1  a\n"
            "long-name  1000  b\n");
}

TEST(OutputTest, LsMarksDirectoriesAndHidesPlaceholderAbstracts) {
  Json ls = Json::parse(R"([
    {"uri":"viking://resources/docs","size":0,"isDir":true,"modTime":"2026-01-02T03:04:05.000Z",
     "abstract":"# viking://resources/docs [Directory abstract is not ready]"},
    {"uri":"viking://resources/a.md","size":2048,"isDir":false,"modTime":"2026-01-02T03:04:06.000Z",
     "abstract":""}])");
  std::string text = Render(RenderLs, ls);
  EXPECT_EQ(text,
            "   SIZE  MODIFIED             URI\n"
            "      -  2026-01-02 03:04:05  viking://resources/docs/\n"
            "2.0 KiB  2026-01-02 03:04:06  viking://resources/a.md\n");
  ls[0]["abstract"] = "Design notes\nmore";
  EXPECT_NE(Render(RenderLs, ls).find("ABSTRACT"), std::string::npos);
  EXPECT_NE(Render(RenderLs, ls).find("Design notes"), std::string::npos);
}

TEST(OutputTest, LsSimpleAndEmpty) {
  EXPECT_EQ(Render(RenderLs, Json::parse(R"(["viking://a","viking://b"])")),
            "viking://a\nviking://b\n");
  EXPECT_EQ(Render(RenderLs, Json::array()), "(empty)\n");
}

TEST(OutputTest, RenderersSurviveMistypedFields) {
  Json weird = Json::parse(R"([{"uri":5,"size":"big","isDir":"yes","modTime":null}])");
  EXPECT_NO_THROW(Render(RenderLs, weird));
  EXPECT_NO_THROW(Render(RenderGrep, Json::parse(R"({"matches":[{"line":"x"}]})")));
  EXPECT_NO_THROW(Render(RenderGlob, Json("not an object")));
  EXPECT_NO_THROW(Render(RenderFsck, Json::array()));
}

TEST(OutputTest, TreeDrawsBranches) {
  Json tree = Json::parse(R"([
    {"uri":"viking://r/a","rel_path":"a","isDir":true,"size":0,"modTime":""},
    {"uri":"viking://r/a/x.md","rel_path":"a/x.md","isDir":false,"size":3,"modTime":""},
    {"uri":"viking://r/b.md","rel_path":"b.md","isDir":false,"size":1,"modTime":""}])");
  std::ostringstream out;
  RenderTree(tree, "viking://r", out);
  EXPECT_EQ(out.str(),
            "viking://r/\n"
            "├── a/\n"
            "│   └── x.md  3 B\n"
            "└── b.md      1 B\n");
}

TEST(OutputTest, GrepTableAndTruncationHint) {
  Json grep = Json::parse(R"({"matches":[{"uri":"viking://r/a.md","line":3,"content":"hello"}],
                              "count":1,"match_count":4,"files_scanned":2})");
  std::string text = Render(RenderGrep, grep);
  EXPECT_NE(text.find("viking://r/a.md     3  hello"), std::string::npos) << text;
  EXPECT_NE(text.find("4 matches in 2 files scanned; showing 1"), std::string::npos) << text;
}

TEST(OutputTest, GrepShowsTagsWhenTheMatchesCarryThem) {
  Json grep = Json::parse(R"({"matches":[{"uri":"viking://r/a.md","line":1,"content":"hi",
                                          "tags":["team=x","lang=en"]},
                                         {"uri":"viking://r/b.md","line":2,"content":"yo",
                                          "tags":[]}],
                              "count":2,"match_count":2,"files_scanned":2})");
  std::string text = Render(RenderGrep, grep);
  EXPECT_NE(text.find("TAGS"), std::string::npos) << text;
  EXPECT_NE(text.find("hi       team=x,lang=en"), std::string::npos) << text;
  EXPECT_NE(text.find("yo       -"), std::string::npos) << text;
  EXPECT_EQ(Render(RenderGrep, Json::parse(R"({"matches":[{"uri":"u","line":1,"content":"c"}]})"))
                .find("TAGS"),
            std::string::npos);
}

TEST(OutputTest, StatShowsTypeSizeAndOctalMode) {
  std::ostringstream out;
  RenderStat(Json::parse(R"({"name":"a.md","size":12,"mode":420,"modTime":"2026-01-02T03:04:05Z",
                             "isDir":false,"isLocked":false,"count":7})"),
             "viking://r/a.md", out);
  std::string text = out.str();
  EXPECT_NE(text.find("type      file"), std::string::npos) << text;
  EXPECT_NE(text.find("mode      0644"), std::string::npos) << text;
  EXPECT_NE(text.find("size      12 B (12 bytes)"), std::string::npos) << text;
  EXPECT_NE(text.find("count     7"), std::string::npos) << text;
}

TEST(OutputTest, ConfirmationsAndFsck) {
  EXPECT_EQ(Render(RenderRm, Json::parse(R"({"uri":"viking://r/x","estimated_deleted_count":0})")),
            "nothing to remove at viking://r/x\n");
  EXPECT_EQ(Render(RenderMv, Json::parse(R"({"from":"viking://a","to":"viking://b"})")),
            "moved viking://a -> viking://b\n");
  EXPECT_EQ(Render(RenderWrite, Json::parse(R"({"uri":"viking://r/a.md","mode":"create",
                                                "written_bytes":1,"content_updated":true})")),
            "wrote 1 byte to viking://r/a.md (create)\n");
  EXPECT_EQ(Render(RenderFsck, Json::parse(R"({"nodes_checked":3,"clean":true,"issues":[]})")),
            "fsck: 3 nodes checked, workspace is clean\n");
  std::string dirty = Render(RenderFsck, Json::parse(R"({"nodes_checked":3,"clean":false,
      "issues":[{"kind":"missing_content","account":"default","uri":"viking://r/a",
                 "detail":"gone","repaired":false}]})"));
  EXPECT_NE(dirty.find("1 issue, 0 repaired"), std::string::npos) << dirty;
  EXPECT_NE(dirty.find("missing_content"), std::string::npos) << dirty;
}

TEST(OutputTest, TextIsPrintedExactly) {
  EXPECT_EQ(Render(RenderText, Json("line1\nline2")), "line1\nline2");
}

TEST(OutputTest, RenderFindPrintsScoreUriAndAbstract) {
  Json result = {
      {"memories", Json::array()},
      {"resources", Json::array({{{"uri", "viking://resources/a/x.md"},
                                  {"score", 0.8125},
                                  {"abstract", "First line\nsecond"},
                                  {"level", 2}},
                                 {{"uri", "viking://resources/a"}, {"score", 0.5}, {"level", 0}}})},
      {"skills", Json::array({{{"uri", "viking://agent/skills/s"}, {"score", 0.25}}})},
      {"total", 3}};
  EXPECT_EQ(Render(RenderFind, result),
            "0.812  viking://resources/a/x.md\n"
            "       First line\n"
            "0.500  viking://resources/a\n"
            "0.250  viking://agent/skills/s\n");
  EXPECT_EQ(Render(RenderFind, Json{{"resources", Json::array()}, {"total", 0}}), "no matches\n");

  result["provenance"] = {
      {"mode", "quick"},
      {"rounds", 1},
      {"candidates_kept", 3},
      {"candidates_dropped", 2},
      {"reranked", false},
      {"latency_ms", 1.25},
      {"stop_reason", "single_search"},
      {"directories_visited", Json::array({"viking://resources/a"})},
      {"trajectory", Json::array({{{"uri", "viking://resources"}, {"score", 0.0}},
                                  {{"uri", "viking://resources/a/b"}, {"score", 0.25}},
                                  {{"uri", "viking://resources/a"}, {"score", 0.5}}})}};
  const std::string out = Render(RenderFind, result);
  EXPECT_NE(out.find("trace: mode quick, 1 round(s), 3 kept, 2 dropped, not reranked, 1.2 ms, "
                     "stopped: single_search\n"),
            std::string::npos)
      << out;
  // The trajectory as a tree: children under their parents, with the
  // expansion order and score.
  EXPECT_NE(out.find("trajectory (expansion order, score):\n"
                     "  viking://resources  #1 0.000\n"
                     "    a/  #3 0.500\n"
                     "      b/  #2 0.250\n"),
            std::string::npos)
      << out;
}

TEST(OutputTest, RenderAddResourceShowsTaskOrFinalStatus) {
  Json started = {{"root_uri", "viking://resources/doc"}, {"task_id", "t1"}, {"errors", {}}};
  EXPECT_EQ(Render(RenderAddResource, started),
            "added viking://resources/doc (task t1; `skald task t1` shows its progress)\n");
  Json waited = {{"root_uri", "viking://resources/doc"},
                 {"queue_status", QueueStatusJson(true)},
                 {"errors", Json::array({"bad.bin: skipped"})},
                 {"warnings", Json::array({"empty section"})}};
  EXPECT_EQ(Render(RenderAddResource, waited),
            "added viking://resources/doc (completed)\n"
            "  error: bad.bin: skipped\n"
            "  warning: empty section\n");
  Json timed_out = {{"root_uri", "viking://resources/doc"},
                    {"queue_status", QueueStatusJson(false)},
                    {"task_id", "t2"}};
  EXPECT_EQ(Render(RenderAddResource, timed_out),
            "added viking://resources/doc (still running: task t2; `skald task t2` shows its "
            "progress)\n");
}

TEST(OutputTest, RenderTasksAndTask) {
  Json task = {{"task_id", "t1"},
               {"task_type", "add_resource"},
               {"status", "running"},
               {"updated_at_iso", "2026-01-02T03:04:05.123456+00:00"},
               {"created_at_iso", "2026-01-02T03:04:00.000000+00:00"},
               {"stage", "embedding 3/10"},
               {"resource_id", "viking://resources/doc"},
               {"result", nullptr},
               {"error", nullptr}};
  EXPECT_EQ(Render(RenderTasks, Json::array({task})),
            "TASK_ID  TYPE          STATUS   UPDATED              STAGE           RESOURCE\n"
            "t1       add_resource  running  2026-01-02 03:04:05  embedding 3/10  "
            "viking://resources/doc\n");
  EXPECT_EQ(Render(RenderTasks, Json::array()), "(no tasks)\n");
  task["status"] = "failed";
  task["error"] = "parse error";
  const std::string out = Render(RenderTask, task);
  EXPECT_NE(out.find("status    failed\n"), std::string::npos) << out;
  EXPECT_NE(out.find("error     parse error\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("result"), std::string::npos) << out;
}

}  // namespace
}  // namespace skald::cli
