// /api/v1/content/*: read, abstract, overview, download, write.

#include <set>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

class ContentApiTest : public ApiTest {
 protected:
  Reply Write(const std::string& uri, const std::string& content, const std::string& mode) {
    return PostJson("/api/v1/content/write", {{"uri", uri}, {"content", content}, {"mode", mode}});
  }
};

TEST_F(ContentApiTest, WriteResultShapeAndExcludeNoneEnvelope) {
  Reply r = Write(Root() + "/notes/a.md", "hello\n", "create");
  ASSERT_EQ(r.status, 200) << r.raw;
  // content/write serialises with exclude_none: only status and result.
  std::set<std::string> top;
  for (const auto& [key, unused] : r.json.items()) top.insert(key);
  EXPECT_EQ(top, (std::set<std::string>{"status", "result"}));
  const Json& w = r.json["result"];
  EXPECT_EQ(w["uri"], Root() + "/notes/a.md");
  EXPECT_EQ(w["root_uri"], Root());
  EXPECT_EQ(w["context_type"], "resource");
  EXPECT_EQ(w["mode"], "create");
  EXPECT_EQ(w["written_bytes"], 6);
  EXPECT_EQ(w["content_updated"], true);
  EXPECT_TRUE(w["semantic_status"].is_string());
  EXPECT_TRUE(w["vector_status"].is_string());
  EXPECT_FALSE(w.contains("queue_status"));
  // The follow-up is a content_write task (OpenViking's), named by the
  // written URI and completed with the queues it went through.
  ASSERT_TRUE(w["task_id"].is_string()) << r.raw;
  Json task = WaitForTask(w["task_id"].get<std::string>());
  EXPECT_EQ(task.value("status", ""), "completed") << task.dump();
  EXPECT_EQ(task.value("task_type", ""), "content_write") << task.dump();
  EXPECT_EQ(task.value("resource_id", ""), Root() + "/notes/a.md") << task.dump();
  const Json& queues = task["result"]["queue_status"];
  ASSERT_TRUE(queues.is_object()) << task.dump();
  EXPECT_EQ(queues.size(), 2u) << task.dump();
  for (const char* queue : {"Semantic", "Embedding"}) {
    EXPECT_EQ(queues[queue].value("error_count", -1), 0) << task.dump();
    EXPECT_EQ(queues[queue].size(), 4u) << task.dump();
  }
  Reply listed = Get("/api/v1/tasks?task_type=content_write");
  ASSERT_EQ(listed.status, 200) << listed.raw;
  EXPECT_EQ(listed.json["result"].size(), 1u) << listed.raw;
  // Unchanged bytes queue nothing: no task.
  Reply same = Write(Root() + "/notes/a.md", "hello\n", "replace");
  ASSERT_EQ(same.status, 200) << same.raw;
  EXPECT_FALSE(same.json["result"].contains("task_id")) << same.raw;
}

TEST_F(ContentApiTest, ReplaceAppendAndReadLines) {
  ASSERT_EQ(Write(Root() + "/f.txt", "one\n", "create").status, 200);
  Reply replaced = Write(Root() + "/f.txt", "a\nb\n", "replace");
  ASSERT_EQ(replaced.status, 200) << replaced.raw;
  EXPECT_EQ(replaced.json["result"]["mode"], "replace");
  Reply appended = Write(Root() + "/f.txt", "c\nd\n", "append");
  ASSERT_EQ(appended.status, 200) << appended.raw;

  Reply all = Get("/api/v1/content/read?uri=" + Q(Root() + "/f.txt"));
  ASSERT_EQ(all.status, 200) << all.raw;
  EXPECT_EQ(all.json["result"], "a\nb\nc\nd\n");
  EXPECT_TRUE(all.json["error"].is_null());
  Reply slice = Get("/api/v1/content/read?offset=1&limit=2&raw=false&uri=" + Q(Root() + "/f.txt"));
  ASSERT_EQ(slice.status, 200) << slice.raw;
  EXPECT_EQ(slice.json["result"], "b\nc\n");

  // mode defaults to replace
  Reply defaulted =
      PostJson("/api/v1/content/write", {{"uri", Root() + "/f.txt"}, {"content", "z"}});
  ASSERT_EQ(defaulted.status, 200) << defaulted.raw;
  EXPECT_EQ(defaulted.json["result"]["mode"], "replace");
  EXPECT_EQ(Get("/api/v1/content/read?uri=" + Q(Root() + "/f.txt")).json["result"], "z");
}

TEST_F(ContentApiTest, WriteErrorsFollowTheReference) {
  Reply missing_parent = Write(Root() + "/missing/dir/f.md", "x", "replace");
  EXPECT_EQ(missing_parent.status, 404) << missing_parent.raw;
  EXPECT_EQ(missing_parent.Code(), "NOT_FOUND");

  ASSERT_EQ(Write(Root() + "/f.md", "x", "create").status, 200);
  Reply exists = Write(Root() + "/f.md", "x", "create");
  EXPECT_EQ(exists.status, 409) << exists.raw;

  Reply extension = Write(Root() + "/tool.exe", "x", "create");
  EXPECT_EQ(extension.status, 400) << extension.raw;
  EXPECT_EQ(extension.Code(), "INVALID_ARGUMENT");

  Reply directory = Write(Root(), "x", "replace");
  EXPECT_EQ(directory.status, 400) << directory.raw;

  // Relations have their own routes; their file is never content (400
  // whether or not one exists, as OpenViking's).
  for (const char* mode : {"replace", "create"}) {
    Reply relations = Write(Root() + "/.relations.json", "{}", mode);
    EXPECT_EQ(relations.status, 400) << relations.raw;
    EXPECT_EQ(relations.Code(), "INVALID_ARGUMENT") << relations.raw;
  }
}

TEST_F(ContentApiTest, WriteBodyIsValidatedStrictly) {
  const std::string uri = Root() + "/v.md";
  Reply extra = PostJson("/api/v1/content/write", {{"uri", uri}, {"content", "x"}, {"bogus", 1}});
  ASSERT_EQ(extra.status, 400) << extra.raw;
  EXPECT_EQ(extra.json["error"]["details"]["validation_errors"][0]["type"], "extra_forbidden");
  EXPECT_EQ(extra.json["error"]["details"]["validation_errors"][0]["loc"],
            Json::array({"body", "bogus"}));

  Reply number = PostJson("/api/v1/content/write", {{"uri", uri}, {"content", 5}});
  ASSERT_EQ(number.status, 400) << number.raw;
  EXPECT_EQ(number.json["error"]["details"]["validation_errors"][0]["type"], "string_type");

  Reply mode =
      PostJson("/api/v1/content/write", {{"uri", uri}, {"content", "x"}, {"mode", "upsert"}});
  EXPECT_EQ(mode.status, 400) << mode.raw;
  Reply wait =
      PostJson("/api/v1/content/write", {{"uri", uri}, {"content", "x"}, {"wait", "later"}});
  EXPECT_EQ(wait.status, 400) << wait.raw;
  Reply timeout =
      PostJson("/api/v1/content/write", {{"uri", uri}, {"content", "x"}, {"timeout", "soon"}});
  EXPECT_EQ(timeout.status, 400) << timeout.raw;
  Reply telemetry = PostJson("/api/v1/content/write",
                             {{"uri", uri}, {"content", "x"}, {"telemetry", {{"verbose", true}}}});
  EXPECT_EQ(telemetry.status, 400) << telemetry.raw;
  Reply processing = PostJson("/api/v1/content/write",
                              {{"uri", uri}, {"content", "x"}, {"processing_mode", "fast"}});
  EXPECT_EQ(processing.status, 400) << processing.raw;
  Reply no_content = PostJson("/api/v1/content/write", {{"uri", uri}});
  ASSERT_EQ(no_content.status, 400) << no_content.raw;
  EXPECT_EQ(no_content.json["error"]["message"],
            "Invalid request parameters: body.content: Field required");
}

TEST_F(ContentApiTest, WaitTelemetryAndProcessingModeAreAccepted) {
  ASSERT_EQ(Write(Root() + "/t.md", "x", "create").status, 200);
  Reply r = PostJson("/api/v1/content/write", {{"uri", Root() + "/t.md"},
                                               {"content", "y"},
                                               {"wait", true},
                                               {"timeout", 5},
                                               {"telemetry", {{"summary", true}}},
                                               {"processing_mode", "vectors_only"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_TRUE(r.json["result"]["queue_status"].is_object());
  ASSERT_TRUE(r.json["telemetry"].is_object()) << r.raw;
  EXPECT_TRUE(r.json["telemetry"]["summary"].is_object());
}

TEST_F(ContentApiTest, ReadOfDirectoryIs400WithExpectedActual) {
  Mkdir(Root());
  Reply r = Get("/api/v1/content/read?uri=" + Q(Root()));
  ASSERT_EQ(r.status, 400) << r.raw;
  EXPECT_EQ(r.Code(), "INVALID_ARGUMENT");
  EXPECT_EQ(r.json["error"]["details"]["expected"], "file");
  EXPECT_EQ(r.json["error"]["details"]["actual"], "directory");
  // OpenViking's wording, which its tests look for.
  EXPECT_EQ(r.json["error"]["message"], "Cannot read directory as file: " + Root());
  // OpenViking-style error envelope keeps the null siblings.
  EXPECT_TRUE(r.json.contains("result") && r.json["result"].is_null());

  Reply missing = Get("/api/v1/content/read?uri=" + Q(Root() + "/none.md"));
  EXPECT_EQ(missing.status, 404) << missing.raw;
  Reply bad_offset = Get("/api/v1/content/read?offset=x&uri=" + Q(Root()));
  EXPECT_EQ(bad_offset.status, 400) << bad_offset.raw;
}

TEST_F(ContentApiTest, AbstractAndOverviewPlaceholders) {
  // A directory made without a description queues no summarizing job, so it
  // stays unsummarized for as long as this test looks (a written file would
  // queue one, and a background worker could summarize the directory
  // between two requests).
  ASSERT_EQ(PostJson("/api/v1/fs/mkdir", {{"uri", Root()}}).status, 200);
  Reply abstract = Get("/api/v1/content/abstract?uri=" + Q(Root()));
  ASSERT_EQ(abstract.status, 200) << abstract.raw;
  EXPECT_EQ(abstract.json["result"], "# " + Root() + " [Directory abstract is not ready]");
  Reply overview = Get("/api/v1/content/overview?uri=" + Q(Root()));
  ASSERT_EQ(overview.status, 200) << overview.raw;
  EXPECT_EQ(overview.json["result"], "# " + Root() + "\n\n[Directory overview is not ready]");

  // A file's abstract is its parent directory's (read once the write's
  // indexing is done, so both reads see the same directory abstract).
  ASSERT_EQ(
      PostJson("/api/v1/content/write",
               {{"uri", Root() + "/f.md"}, {"content", "x"}, {"mode", "create"}, {"wait", true}})
          .status,
      200);
  Reply of_file = Get("/api/v1/content/abstract?uri=" + Q(Root() + "/f.md"));
  Reply of_dir = Get("/api/v1/content/abstract?uri=" + Q(Root()));
  EXPECT_EQ(of_file.json["result"], of_dir.json["result"]);

  EXPECT_EQ(Get("/api/v1/content/abstract?uri=" + Q(Root() + "/nope")).status, 404);
  EXPECT_EQ(Get("/api/v1/content/overview").status, 400);
}

TEST_F(ContentApiTest, DownloadReturnsRawBytesAsAttachment) {
  Create(Root() + "/my notes é.md", "raw\x01 bytes");
  Reply r = Get("/api/v1/content/download?uri=" + Q(Root() + "/my notes é.md"));
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.raw, "raw\x01 bytes");
  EXPECT_EQ(r.Header("Content-Type"), "application/octet-stream");
  // Checked on the wire: cpp-httplib's client percent-decodes header values.
  const std::string wire = RawHttp(
      server_->port(), "GET /api/v1/content/download?uri=" + Q(Root() + "/my notes é.md") +
                           " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server_->port()) +
                           "\r\nConnection: close\r\n\r\n");
  EXPECT_NE(wire.find("\r\nContent-Disposition: attachment; filename*=UTF-8''my%20notes%20%C3%A9.md"
                      "\r\n"),
            std::string::npos)
      << wire;

  Reply missing = Get("/api/v1/content/download?uri=" + Q(Root() + "/none.md"));
  EXPECT_EQ(missing.status, 404) << missing.raw;
  EXPECT_EQ(missing.Code(), "NOT_FOUND");
}

TEST_F(ContentApiTest, IdentityHeadersSelectTheAccount) {
  Create(Root() + "/mine.md", "default account");
  httplib::Headers other = {{"X-OpenViking-Account", "acme"}, {"X-OpenViking-User", "bob"}};
  Reply elsewhere = Get("/api/v1/content/read?uri=" + Q(Root() + "/mine.md"), other);
  EXPECT_EQ(elsewhere.status, 404) << elsewhere.raw;  // accounts never share data

  httplib::Headers bad = {{"X-OpenViking-Account", "_system"}};
  Reply rejected = Get("/api/v1/content/read?uri=" + Q(Root() + "/mine.md"), bad);
  EXPECT_EQ(rejected.status, 400) << rejected.raw;
  EXPECT_EQ(rejected.Code(), "INVALID_ARGUMENT");
}

}  // namespace
}  // namespace skald::apitest
