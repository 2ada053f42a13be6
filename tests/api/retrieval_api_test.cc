// /api/v1/search/{find,search}, /api/v1/resources[/temp_upload] and
// /api/v1/tasks[/{id}]: request validation, the wire shapes, and the
// upload -> add_resource -> task -> find round trip.

#include <chrono>
#include <fstream>
#include <regex>
#include <thread>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

constexpr const char* kLighthouseDoc =
    "# Lighthouse keeping\n\n"
    "The lighthouse keeper trims the wick and polishes the Fresnel lens every evening before "
    "dusk, so that ships rounding the cape can see the beam.\n\n"
    "## Fog signals\n\n"
    "When fog rolls in the keeper sounds the foghorn every thirty seconds.\n";

class RetrievalApiTest : public ApiTest {
 protected:
  // POST multipart/form-data with the given parts.
  Reply Upload(const httplib::MultipartFormDataItems& items) {
    return ToReply(client_->Post("/api/v1/resources/temp_upload", items));
  }

  // Uploads `content` as `filename`; returns the temp_file_id ("" on failure).
  std::string UploadFile(const std::string& filename, const std::string& content) {
    Reply r = Upload({{"file", content, filename, "text/markdown"}});
    EXPECT_EQ(r.status, 200) << r.raw;
    if (r.status != 200) return "";
    EXPECT_EQ(r.json["status"], "ok") << r.raw;
    EXPECT_FALSE(r.json.contains("error")) << "exclude-none envelope expected: " << r.raw;
    return r.json["result"].value("temp_file_id", "");
  }

  // The error's first validation location, joined with '.'.
  static std::string FirstLoc(const Reply& r) {
    const Json& errors = r.json["error"]["details"]["validation_errors"];
    if (!errors.is_array() || errors.empty()) return "";
    std::string out;
    for (const Json& part : errors[0]["loc"]) {
      if (!out.empty()) out += ".";
      out += part.is_string() ? part.get<std::string>() : part.dump();
    }
    return out;
  }
};

// ---- find / search validation (no model needed) -----------------------------------------

TEST_F(RetrievalApiTest, FindRefusesEmptyQueries) {
  for (const Json& body : {Json::object(), Json{{"query", ""}}, Json{{"query", "   "}}}) {
    Reply r = PostJson("/api/v1/search/find", body);
    EXPECT_EQ(r.status, 400) << body.dump() << " -> " << r.raw;
    EXPECT_EQ(r.Code(), "INVALID_ARGUMENT") << r.raw;
  }
}

TEST_F(RetrievalApiTest, FindRefusesWrongTypes) {
  const std::vector<std::pair<Json, std::string>> cases = {
      {{{"query", 5}}, "body.query"},
      {{{"query", "x"}, {"limit", "many"}}, "body.limit"},
      {{{"query", "x"}, {"node_limit", 1.5}}, "body.node_limit"},
      {{{"query", "x"}, {"target_uri", 7}}, "body.target_uri"},
      {{{"query", "x"}, {"target_uri", Json::array({"viking://resources", 3})}}, "body.target_uri"},
      {{{"query", "x"}, {"context_type", Json::object()}}, "body.context_type"},
      {{{"query", "x"}, {"level", "top"}}, "body.level"},
      {{{"query", "x"}, {"level", Json::array({0, "one"})}}, "body.level"},
      {{{"query", "x"}, {"score_threshold", "high"}}, "body.score_threshold"},
      {{{"query", "x"}, {"include_provenance", "maybe"}}, "body.include_provenance"},
      {{{"query", "x"}, {"filter", "context_type=resource"}}, "body.filter"},
      {{{"query", "x"}, {"tags", Json::array({"novalue"})}}, "body.tags"},
      {{{"query", "x"}, {"since", "the other day"}}, "body.since"},
      {{{"query", "x"}, {"until", "2026-13-01"}}, "body.until"},
      {{{"query", "x"}, {"time_field", "mtime"}}, "body.time_field"},
      {{{"query", "x"}, {"telemetry", Json{{"detail", true}}}}, "body.telemetry.detail"},
  };
  for (const auto& [body, loc] : cases) {
    Reply r = PostJson("/api/v1/search/find", body);
    EXPECT_EQ(r.status, 400) << body.dump() << " -> " << r.raw;
    EXPECT_EQ(r.Code(), "INVALID_ARGUMENT") << r.raw;
    EXPECT_EQ(FirstLoc(r), loc) << body.dump() << " -> " << r.raw;
  }
}

TEST_F(RetrievalApiTest, FindForbidsUnknownFields) {
  Reply r = PostJson("/api/v1/search/find", {{"query", "x"}, {"top_k", 3}});
  ASSERT_EQ(r.status, 400) << r.raw;
  EXPECT_EQ(FirstLoc(r), "body.top_k");
  EXPECT_EQ(r.json["error"]["details"]["validation_errors"][0]["type"], "extra_forbidden");
  // Context-mode fields are not find fields either.
  Reply context_field = PostJson("/api/v1/search/find", {{"query", "x"}, {"max_tokens", 100}});
  EXPECT_EQ(context_field.status, 400) << context_field.raw;
}

TEST_F(RetrievalApiTest, FindChecksLimitsAndValues) {
  for (const Json& body :
       {Json{{"query", "x"}, {"limit", 0}}, Json{{"query", "x"}, {"limit", -3}},
        Json{{"query", "x"}, {"limit", 1001}},
        // node_limit wins over limit, so its bounds apply.
        Json{{"query", "x"}, {"limit", 5}, {"node_limit", 0}}, Json{{"query", "x"}, {"level", 3}},
        Json{{"query", "x"}, {"context_type", "document"}},
        Json{{"query", "x"}, {"score_threshold", "nan"}}}) {
    Reply r = PostJson("/api/v1/search/find", body);
    EXPECT_EQ(r.status, 400) << body.dump() << " -> " << r.raw;
    EXPECT_EQ(r.Code(), "INVALID_ARGUMENT") << body.dump() << " -> " << r.raw;
  }
}

TEST_F(RetrievalApiTest, FindRefusesFilterFormsItCannotApply) {
  Reply r = PostJson("/api/v1/search/find",
                     {{"query", "x"}, {"filter", {{"op", "range"}, {"field", "size"}}}});
  EXPECT_EQ(r.status, 400) << r.raw;
  EXPECT_EQ(r.Code(), "INVALID_FILTER") << r.raw;
  Reply field =
      PostJson("/api/v1/search/find",
               {{"query", "x"},
                {"filter", {{"op", "must"}, {"field", "owner"}, {"conds", Json::array({"me"})}}}});
  EXPECT_EQ(field.status, 400) << field.raw;
  EXPECT_EQ(field.Code(), "INVALID_FILTER") << field.raw;
}

TEST_F(RetrievalApiTest, SearchValidatesModeAndContextFields) {
  Reply context = PostJson("/api/v1/search/search", {{"query", "x"}, {"mode", "context"}});
  EXPECT_EQ(context.status, 200) << context.raw;  // context mode: tests/api/context_api_test.cc
  EXPECT_TRUE(context.json["result"].contains("rendered")) << context.raw;
  Reply bad_mode = PostJson("/api/v1/search/search", {{"query", "x"}, {"mode", "summary"}});
  EXPECT_EQ(bad_mode.status, 400) << bad_mode.raw;
  EXPECT_EQ(FirstLoc(bad_mode), "body.mode");
  // Context-only fields are an error in list mode (the default).
  const std::vector<std::pair<std::string, Json>> context_fields = {{"max_tokens", 64},
                                                                    {"query_expansion", "off"},
                                                                    {"exclude_uris", Json::array()},
                                                                    {"rewrite", true}};
  for (const auto& [field, value] : context_fields) {
    Json body = {{"query", "x"}, {field, value}};
    Reply r = PostJson("/api/v1/search/search", body);
    EXPECT_EQ(r.status, 400) << body.dump() << " -> " << r.raw;
    EXPECT_EQ(FirstLoc(r), "body." + field) << r.raw;
  }
  Reply unknown = PostJson("/api/v1/search/search", {{"query", "x"}, {"top_k", 1}});
  EXPECT_EQ(unknown.status, 400) << unknown.raw;
  Reply empty = PostJson("/api/v1/search/search", {{"query", ""}, {"session_id", "s1"}});
  EXPECT_EQ(empty.status, 400) << empty.raw;
}

// ---- tasks (validation and 404) ----------------------------------------------------------

TEST_F(RetrievalApiTest, TaskListLimitIsBounded) {
  Reply over = Get("/api/v1/tasks?limit=201");
  ASSERT_EQ(over.status, 400) << over.raw;
  EXPECT_EQ(over.Code(), "INVALID_ARGUMENT");
  EXPECT_EQ(FirstLoc(over), "query.limit");
  EXPECT_EQ(over.json["error"]["details"]["validation_errors"][0]["type"], "less_than_equal");
  EXPECT_EQ(Get("/api/v1/tasks?limit=-1").status, 400);
  EXPECT_EQ(Get("/api/v1/tasks?limit=lots").status, 400);
}

TEST_F(RetrievalApiTest, TaskRoutesAndMethods) {
  Reply post = Post("/api/v1/tasks/abc", "{}");
  EXPECT_EQ(post.status, 405) << post.raw;
  EXPECT_EQ(post.Header("Allow"), "GET");
  // A trailing slash redirects like Starlette does; deeper paths are unknown.
  Reply slash = Get("/api/v1/tasks/");
  EXPECT_EQ(slash.status, 307) << slash.raw;
  Reply deeper = Get("/api/v1/tasks/abc/def");
  EXPECT_EQ(deeper.status, 404) << deeper.raw;
  EXPECT_EQ(deeper.json["error"]["message"], "Not Found") << deeper.raw;
}

TEST_F(RetrievalApiTest, UnknownTaskIs404WithOpenVikingShape) {
  Reply r = Get("/api/v1/tasks/no-such-task");
  ASSERT_EQ(r.status, 404) << r.raw;
  EXPECT_EQ(r.json["status"], "error");
  EXPECT_EQ(r.json["error"]["code"], "NOT_FOUND");
  EXPECT_EQ(r.json["error"]["message"], "Task not found or expired");
  EXPECT_EQ(r.json["error"]["details"], Json({{"resource", "no-such-task"}, {"type", "task"}}));
}

// ---- resources (validation, no model needed) ---------------------------------------------

TEST_F(RetrievalApiTest, AddResourceRefusesLocalPaths) {
  Reply r = PostJson("/api/v1/resources", {{"path", "/etc/hostname"}});
  ASSERT_EQ(r.status, 403) << r.raw;
  EXPECT_EQ(r.Code(), "PERMISSION_DENIED");
  EXPECT_EQ(r.json["error"]["message"],
            "HTTP server only accepts remote resource URLs or temp-uploaded files");
  Reply relative = PostJson("/api/v1/resources", {{"path", "docs/a.md"}});
  EXPECT_EQ(relative.status, 403) << relative.raw;
  Reply empty = PostJson("/api/v1/resources", {{"path", ""}});
  EXPECT_EQ(empty.status, 400) << empty.raw;
}

TEST_F(RetrievalApiTest, AddResourceRepositoryUrlsAreNotImplementedYet) {
  Reply r = PostJson("/api/v1/resources", {{"path", "git@github.com:o/r.git"}});
  EXPECT_EQ(r.status, 501) << r.raw;
  EXPECT_EQ(r.Code(), "UNIMPLEMENTED") << r.raw;
  // A repository on a non-public host is refused first (OpenViking's order).
  for (const char* path : {"git@127.0.0.1:org/repo.git", "ssh://git@10.1.2.3:22/org/repo.git",
                           "git://[::1]/repo.git"}) {
    Reply private_host = PostJson("/api/v1/resources", {{"path", path}});
    EXPECT_EQ(private_host.status, 403) << path << ": " << private_host.raw;
    EXPECT_EQ(private_host.Code(), "PERMISSION_DENIED") << private_host.raw;
  }
  // An http(s) URL is fetched (tests/api/archive_api_test.cc); with no
  // temp_file_id, an error is never "not a valid upload".
  Reply url = PostJson("/api/v1/resources", {{"path", "https://example.invalid/a.md"}});
  EXPECT_NE(url.status, 501) << url.raw;
  EXPECT_EQ(url.raw.find("temp_file_id"), std::string::npos) << url.raw;
}

TEST_F(RetrievalApiTest, AddResourceRefusesForgedTempIds) {
  for (const char* id : {"../../etc/passwd", "upload_xyz.md", "shared_1700000000000-abc"}) {
    Reply r = PostJson("/api/v1/resources", {{"temp_file_id", id}});
    EXPECT_EQ(r.status, 403) << id << " -> " << r.raw;
    EXPECT_EQ(r.Code(), "PERMISSION_DENIED") << r.raw;
  }
}

TEST_F(RetrievalApiTest, AddResourceRefusesUnknownWellFormedTempId) {
  Reply r = PostJson("/api/v1/resources",
                     {{"temp_file_id", "upload_0123456789abcdef0123456789abcdef.md"}});
  EXPECT_EQ(r.status, 403) << r.raw;
  EXPECT_EQ(r.Code(), "PERMISSION_DENIED") << r.raw;
}

TEST_F(RetrievalApiTest, AddResourceValidatesItsBody) {
  Reply both = PostJson("/api/v1/resources", {{"path", "https://example.com/a.md"},
                                              {"to", "viking://resources/a"},
                                              {"parent", "viking://resources"}});
  EXPECT_EQ(both.status, 400) << both.raw;
  EXPECT_EQ(both.Code(), "INVALID_ARGUMENT");
  Reply none = PostJson("/api/v1/resources", {{"reason", "nothing to add"}});
  EXPECT_EQ(none.status, 400) << none.raw;
  Reply unknown = PostJson("/api/v1/resources", {{"path", "https://x/y"}, {"recursive", true}});
  ASSERT_EQ(unknown.status, 400) << unknown.raw;
  EXPECT_EQ(FirstLoc(unknown), "body.recursive");
  Reply bad_wait = PostJson("/api/v1/resources", {{"path", "https://x/y"}, {"wait", "soon"}});
  EXPECT_EQ(bad_wait.status, 400) << bad_wait.raw;
  // A watch needs `to` first (OpenViking's message), then a source to watch.
  Reply watch = PostJson(
      "/api/v1/resources",
      {{"temp_file_id", "upload_0123456789abcdef0123456789abcdef.md"}, {"watch_interval", 5}});
  EXPECT_EQ(watch.status, 400) << watch.raw;
  EXPECT_NE(watch.raw.find("watch_interval > 0 requires 'to' to be specified"), std::string::npos)
      << watch.raw;
  Reply watch_to =
      PostJson("/api/v1/resources", {{"temp_file_id", "upload_0123456789abcdef0123456789abcdef.md"},
                                     {"to", "viking://resources/w"},
                                     {"watch_interval", 5}});
  EXPECT_EQ(watch_to.status, 400) << watch_to.raw;
  EXPECT_NE(watch_to.raw.find("uploaded content"), std::string::npos) << watch_to.raw;
  // OpenViking's newer fields are known ones.
  Reply known = PostJson("/api/v1/resources", {{"temp_file_id", UploadTemp("# k\n", "k.md")},
                                               {"is_active", false},
                                               {"internal_task", true}});
  EXPECT_EQ(known.status, 200) << known.raw;
}

// A wait that times out answers 504 DEADLINE_EXCEEDED naming the task,
// which goes on to completion (OpenViking's API tests).
TEST_F(RetrievalApiTest, AWaitThatTimesOutAnswers504AndTheImportGoesOn) {
  const std::string id = UploadTemp("# Sample\n\nSome text about tides.\n", "sample.md");
  Reply r = PostJson("/api/v1/resources",
                     {{"temp_file_id", id}, {"reason", "test"}, {"wait", true}, {"timeout", 0.0}});
  ASSERT_EQ(r.status, 504) << r.raw;
  EXPECT_EQ(r.Code(), "DEADLINE_EXCEEDED") << r.raw;
  const Json& details = r.json["error"]["details"];
  const std::string task = details.value("task_id", "");
  ASSERT_FALSE(task.empty()) << r.raw;
  EXPECT_EQ(details["timeout"], Json(0.0)) << r.raw;
  const std::string message = r.json["error"].value("message", "");
  EXPECT_NE(message.find("does not cancel or fail the background task"), std::string::npos);
  EXPECT_NE(message.find("ov task status " + task), std::string::npos) << message;
  std::string status;
  for (int i = 0; i < 600 && status != "completed" && status != "failed"; ++i) {
    Reply t = Get("/api/v1/tasks/" + task);
    status = t.json["result"].value("status", "");
    if (status != "completed") std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(status, "completed");
}

// `to` a resources root with its slash places the resource in it under its
// derived name, as without `to`; the bare root is refused (OpenViking's
// placement rules: it would name the whole space as the resource).
TEST_F(RetrievalApiTest, AddResourceToTheResourcesRootNeedsItsSlash) {
  const std::string id = UploadTemp("hello world\n", "upload_temp.txt");
  Reply added = PostJson("/api/v1/resources", {{"temp_file_id", id},
                                               {"source_name", "aa.txt"},
                                               {"to", "viking://resources/"},
                                               {"wait", true},
                                               {"telemetry", true}});
  ASSERT_EQ(added.status, 200) << added.raw;
  const Json& summary = added.json["telemetry"]["summary"];
  EXPECT_EQ(summary.value("operation", ""), "resources.add_resource") << added.raw;
  EXPECT_EQ(summary["resource"]["flags"].value("wait", false), true) << added.raw;
  EXPECT_EQ(added.json["result"].value("root_uri", ""), "viking://resources/aa") << added.raw;
  Reply bare = PostJson(
      "/api/v1/resources",
      {{"temp_file_id", UploadTemp("x\n", "x.txt")}, {"to", "viking://resources"}, {"wait", true}});
  ASSERT_EQ(bare.status, 400) << bare.raw;
  EXPECT_EQ(bare.Code(), "INVALID_ARGUMENT") << bare.raw;
  const std::string message = bare.json["error"].value("message", "");
  EXPECT_NE(message.find("viking://resources/"), std::string::npos) << message;
  // Anything else outside a resources directory is still refused.
  Reply outside = PostJson("/api/v1/resources", {{"temp_file_id", UploadTemp("x\n", "x.txt")},
                                                 {"to", "viking://user/default/memories/x"}});
  EXPECT_EQ(outside.status, 400) << outside.raw;
}

// `to` names where a resource goes (OpenViking's placement rules): a single
// document becomes the file `to`; `to` ending in '/' is a directory it goes
// into under its file name; a `to` that is a directory already stays the
// resource's root, as do archives and documents the splitter makes a
// directory of.
TEST_F(RetrievalApiTest, AddResourceToNamesTheDocumentOrItsDirectory) {
  auto add = [&](const std::string& text, const std::string& name, const std::string& to) {
    Reply r = PostJson("/api/v1/resources",
                       {{"temp_file_id", UploadTemp(text, name)}, {"to", to}, {"wait", true}});
    EXPECT_EQ(r.status, 200) << to << ": " << r.raw;
    return r.json["result"].value("root_uri", "");
  };
  auto is_dir = [&](const std::string& uri) {
    Reply r = Get("/api/v1/fs/stat?uri=" + Q(uri));
    EXPECT_EQ(r.status, 200) << uri << ": " << r.raw;
    return r.json["result"].value("isDir", true);
  };
  // Exactly `to`: the file itself, readable at the URI returned.
  EXPECT_EQ(add("# Otters\n\nOtters hold hands.\n", "sample.md", "viking://resources/p/renamed.md"),
            "viking://resources/p/renamed.md");
  EXPECT_FALSE(is_dir("viking://resources/p/renamed.md"));
  Reply read = Get("/api/v1/content/read?uri=" + Q("viking://resources/p/renamed.md"));
  ASSERT_EQ(read.status, 200) << read.raw;
  EXPECT_NE(read.raw.find("Otters hold hands"), std::string::npos) << read.raw;
  // Into a directory: the file keeps its name.
  EXPECT_EQ(add("# Beavers\n\nBeavers build dams.\n", "beavers.md", "viking://resources/p/"),
            "viking://resources/p/beavers.md");
  EXPECT_FALSE(is_dir("viking://resources/p/beavers.md"));
  // Added again to the same `to`: the file is updated, its siblings stay.
  EXPECT_EQ(
      add("# Otters\n\nSea otters sleep afloat.\n", "sample.md", "viking://resources/p/renamed.md"),
      "viking://resources/p/renamed.md");
  read = Get("/api/v1/content/read?uri=" + Q("viking://resources/p/renamed.md"));
  EXPECT_NE(read.raw.find("sleep afloat"), std::string::npos) << read.raw;
  EXPECT_FALSE(is_dir("viking://resources/p/beavers.md")) << "a sibling is not synced away";
  Reply found = PostJson("/api/v1/search/find", {{"query", "sea otters afloat"}, {"limit", 3}});
  ASSERT_EQ(found.status, 200) << found.raw;
  EXPECT_NE(found.raw.find("viking://resources/p/renamed.md"), std::string::npos) << found.raw;
  // An existing directory at `to` is the root, as before.
  Mkdir("viking://resources/q");
  EXPECT_EQ(add("# Herons\n\nHerons wade.\n", "herons.md", "viking://resources/q"),
            "viking://resources/q");
  EXPECT_FALSE(is_dir("viking://resources/q/herons.md"));
  // A document too long for one file is a directory at `to`.
  std::string longdoc = "# Long\n\n";
  for (int i = 0; i < 400; ++i) {
    longdoc +=
        "## Part " + std::to_string(i) + "\n\n" + std::string(300, 'a' + i % 26) + " word.\n\n";
  }
  EXPECT_EQ(add(longdoc, "long.md", "viking://resources/p/long.md"),
            "viking://resources/p/long.md");
  EXPECT_TRUE(is_dir("viking://resources/p/long.md"));
  EXPECT_FALSE(is_dir("viking://resources/p/renamed.md"))
      << "the split went into its own directory";
}

// Without `wait`, add-resource answers once the files are in place (as
// OpenViking's writes the tree inline): a read or grep right after sees
// them; summaries and vectors follow in the task.
TEST_F(RetrievalApiTest, AddResourceWithoutWaitAnswersWithTheFilesInPlace) {
  for (int round = 0; round < 5; ++round) {
    const std::string dir = "viking://resources/nw" + std::to_string(round) + "/";
    Reply added = PostJson(
        "/api/v1/resources",
        {{"temp_file_id", UploadTemp("# Note\n\nKingfishers dive.\n", "n.md")}, {"to", dir}});
    ASSERT_EQ(added.status, 200) << added.raw;
    EXPECT_TRUE(added.json["result"]["task_id"].is_string()) << added.raw;
    Reply read = Get("/api/v1/content/read?uri=" + Q(dir + "n.md"));
    ASSERT_EQ(read.status, 200) << read.raw;
    EXPECT_NE(read.raw.find("Kingfishers"), std::string::npos) << read.raw;
    Reply grep = PostJson("/api/v1/search/grep", {{"uri", dir}, {"pattern", "Kingfishers"}});
    ASSERT_EQ(grep.status, 200) << grep.raw;
    EXPECT_EQ(grep.json["result"].value("count", 0), 1) << grep.raw;
  }
}

// An empty file is refused at once (400, as OpenViking's), not as a failed
// task, with or without wait; the upload can still be used for nothing else.
TEST_F(RetrievalApiTest, AnEmptyFileIsRefusedBeforeATaskIsQueued) {
  for (bool wait : {true, false}) {
    Reply r = PostJson("/api/v1/resources",
                       {{"temp_file_id", UploadTemp("", "blank.txt")}, {"wait", wait}});
    ASSERT_EQ(r.status, 400) << r.raw;
    EXPECT_EQ(r.Code(), "INVALID_ARGUMENT") << r.raw;
    EXPECT_NE(r.json["error"].value("message", "").find("empty"), std::string::npos) << r.raw;
  }
  Reply tasks = Get("/api/v1/tasks?task_type=add_resource");
  ASSERT_EQ(tasks.status, 200) << tasks.raw;
  EXPECT_TRUE(tasks.json["result"].empty()) << tasks.raw;
  ExpectHealthy();
}

TEST_F(RetrievalApiTest, TempUploadNeedsAFilePart) {
  Reply json = PostJson("/api/v1/resources/temp_upload", {{"file", "x"}});
  ASSERT_EQ(json.status, 400) << json.raw;
  EXPECT_EQ(json.Code(), "INVALID_ARGUMENT");
  EXPECT_EQ(FirstLoc(json), "body.file");
  Reply other_part = Upload({{"telemetry", "true", "", ""}});
  EXPECT_EQ(other_part.status, 400) << other_part.raw;
  EXPECT_EQ(FirstLoc(other_part), "body.file");
}

// Uploads have their own cap (server.max_upload_bytes; max_body_bytes when larger).
TEST(TempUploadLimitTest, BodiesOverTheServerLimitAre413) {
  TempDir dir;
  const std::string conf = dir.path() + "/skald.conf";
  {
    std::ofstream out(conf);
    out << R"({"server": {"max_body_bytes": 4096, "max_upload_bytes": 4096}})";
  }
  std::unique_ptr<SkaldProcess> server =
      SkaldProcess::Start(dir.path() + "/ws", {"--config", conf});
  ASSERT_NE(server, nullptr);
  std::unique_ptr<httplib::Client> client = server->NewClient();
  httplib::Result r = client->Post(
      "/api/v1/resources/temp_upload",
      httplib::MultipartFormDataItems{{"file", std::string(8192, 'x'), "big.md", "text/markdown"}});
  ASSERT_TRUE(r) << static_cast<int>(r.error());
  EXPECT_EQ(r->status, 413) << r->body;
  EXPECT_EQ(server->Stop(SIGTERM), 0);
}

// ---- end to end (needs the ingestion and retrieval pipeline) ------------------------------

TEST_F(RetrievalApiTest, UploadAddAndWaitThenFind) {
  const std::string temp_id = UploadFile("lighthouse.md", kLighthouseDoc);
  EXPECT_TRUE(std::regex_match(temp_id, std::regex("upload_[0-9a-f]{32}\\.md"))) << temp_id;
  ASSERT_FALSE(temp_id.empty());

  Reply added = PostJson("/api/v1/resources", {{"temp_file_id", temp_id},
                                               {"wait", true},
                                               {"reason", "test"},
                                               {"tags", Json::array({"topic=sea"})}});
  ASSERT_EQ(added.status, 200) << added.raw;
  EXPECT_FALSE(added.json.contains("error")) << added.raw;
  const Json& res = added.json["result"];
  EXPECT_EQ(res["status"], "success");
  const std::string root = res.value("root_uri", "");
  EXPECT_EQ(root.rfind("viking://resources/", 0), 0u) << added.raw;
  EXPECT_EQ(res["temp_uri"], "");
  EXPECT_TRUE(res["meta"].is_object());
  EXPECT_EQ(res["errors"], Json::array());
  EXPECT_FALSE(res.contains("task_id")) << added.raw;
  EXPECT_EQ(res["queue_status"]["Embedding"]["processed"], 1) << added.raw;

  Reply found = PostJson("/api/v1/search/find",
                         {{"query", "lighthouse keeper trims the wick"}, {"limit", 5}});
  ASSERT_EQ(found.status, 200) << found.raw;
  EXPECT_FALSE(found.json.contains("error")) << found.raw;
  const Json& result = found.json["result"];
  for (const char* group : {"memories", "resources", "skills"}) {
    EXPECT_TRUE(result[group].is_array()) << group << ": " << found.raw;
  }
  ASSERT_FALSE(result["resources"].empty()) << found.raw;
  EXPECT_GE(result["total"].get<int>(), 1);
  EXPECT_FALSE(result.contains("provenance")) << found.raw;
  bool found_root = false;
  for (const Json& hit : result["resources"]) {
    EXPECT_EQ(hit["context_type"], "resource");
    EXPECT_TRUE(hit["level"].is_number_integer());
    EXPECT_TRUE(hit["abstract"].is_string());
    EXPECT_TRUE(hit["tags"].is_array());
    ASSERT_TRUE(hit["score"].is_number()) << hit.dump();
    EXPECT_GE(hit["score"].get<double>(), 0.0);
    EXPECT_LE(hit["score"].get<double>(), 1.0);
    if (hit.value("uri", "").rfind(root, 0) == 0) found_root = true;
  }
  EXPECT_TRUE(found_root) << "no hit under " << root << ": " << found.raw;

  // search in list mode answers in the same shape.
  Reply searched =
      PostJson("/api/v1/search/search", {{"query", "foghorn in the fog"}, {"target_uri", root}});
  ASSERT_EQ(searched.status, 200) << searched.raw;
  EXPECT_FALSE(searched.json["result"]["resources"].empty()) << searched.raw;
  for (const Json& hit : searched.json["result"]["resources"]) {
    EXPECT_EQ(hit.value("uri", "").rfind(root, 0), 0u) << "target_uri not honoured: " << hit;
  }
}

TEST_F(RetrievalApiTest, AddWithoutWaitingThenFollowTheTask) {
  const std::string temp_id = UploadFile("fog.md", kLighthouseDoc);
  ASSERT_FALSE(temp_id.empty());
  Reply added = PostJson("/api/v1/resources", {{"temp_file_id", temp_id},
                                               {"parent", "viking://resources/harbour"},
                                               {"create_parent", true}});
  ASSERT_EQ(added.status, 200) << added.raw;
  const Json& res = added.json["result"];
  const std::string task_id = res.value("task_id", "");
  ASSERT_FALSE(task_id.empty()) << added.raw;
  EXPECT_FALSE(res.contains("queue_status")) << added.raw;
  EXPECT_EQ(res.value("root_uri", "").rfind("viking://resources/harbour/", 0), 0u) << added.raw;

  Json task = WaitForTask(task_id);
  EXPECT_EQ(task["status"], "completed") << task.dump();
  EXPECT_EQ(task["task_id"], task_id);
  EXPECT_EQ(task["task_type"], "add_resource");
  EXPECT_TRUE(task["created_at"].is_number()) << task.dump();
  EXPECT_TRUE(task["updated_at"].is_number()) << task.dump();
  EXPECT_GE(task["updated_at"].get<double>(), task["created_at"].get<double>());
  EXPECT_TRUE(task["created_at_iso"].is_string());
  EXPECT_TRUE(task["updated_at_iso"].is_string());
  EXPECT_TRUE(task["meta"].is_object());
  EXPECT_TRUE(task["stage"].is_string());
  EXPECT_TRUE(task["error"].is_null()) << task.dump();
  EXPECT_TRUE(task.contains("result"));
  EXPECT_TRUE(task.contains("resource_id"));

  Reply listed = Get("/api/v1/tasks?task_type=add_resource&status=completed");
  ASSERT_EQ(listed.status, 200) << listed.raw;
  ASSERT_TRUE(listed.json["result"].is_array()) << listed.raw;
  bool seen = false;
  for (const Json& t : listed.json["result"]) seen = seen || t["task_id"] == task_id;
  EXPECT_TRUE(seen) << listed.raw;
  Reply none = Get("/api/v1/tasks?limit=0");
  ASSERT_EQ(none.status, 200) << none.raw;
  EXPECT_EQ(none.json["result"], Json::array());

  // Skald's own indexing jobs (after an mv, a repair) are listed only when
  // asked for by type; a write's is OpenViking's content_write task.
  Reply wrote = PostJson("/api/v1/content/write", {{"uri", "viking://resources/t.md"},
                                                   {"content", "text"},
                                                   {"mode", "create"},
                                                   {"wait", true}});
  ASSERT_EQ(wrote.status, 200) << wrote.raw;
  Reply moved = PostJson("/api/v1/fs/mv", {{"from_uri", "viking://resources/t.md"},
                                           {"to_uri", "viking://resources/u.md"}});
  ASSERT_EQ(moved.status, 200) << moved.raw;
  ASSERT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 60}}).status, 200);
  Reply all = Get("/api/v1/tasks");
  ASSERT_EQ(all.status, 200) << all.raw;
  std::set<std::string> types;
  for (const Json& t : all.json["result"]) types.insert(t["task_type"].get<std::string>());
  EXPECT_EQ(types, (std::set<std::string>{"add_resource", "content_write"})) << all.raw;
  Reply internal = Get("/api/v1/tasks?task_type=index");
  ASSERT_EQ(internal.status, 200) << internal.raw;
  EXPECT_FALSE(internal.json["result"].empty()) << internal.raw;
}

TEST_F(RetrievalApiTest, FindWithProvenanceReturnsTheTrace) {
  const std::string temp_id = UploadFile("lighthouse.md", kLighthouseDoc);
  ASSERT_FALSE(temp_id.empty());
  Reply added = PostJson("/api/v1/resources", {{"temp_file_id", temp_id}, {"wait", true}});
  ASSERT_EQ(added.status, 200) << added.raw;

  Reply found =
      PostJson("/api/v1/search/find",
               {{"query", "Fresnel lens"}, {"include_provenance", true}, {"telemetry", true}});
  ASSERT_EQ(found.status, 200) << found.raw;
  const Json& trace = found.json["result"]["provenance"];
  ASSERT_TRUE(trace.is_object()) << found.raw;
  EXPECT_TRUE(trace["mode"] == "quick" || trace["mode"] == "thinking") << trace.dump();
  EXPECT_TRUE(trace["directories_visited"].is_array()) << trace.dump();
  EXPECT_TRUE(trace["latency_ms"].is_number()) << trace.dump();
  EXPECT_TRUE(found.json["telemetry"].is_object()) << found.raw;
  // OpenViking's telemetry id: "tm_" and 32 hex digits.
  EXPECT_TRUE(
      std::regex_match(found.json["telemetry"].value("id", ""), std::regex("tm_[0-9a-f]{32}")))
      << found.raw;
  // The summary carries OpenViking's retrieval metrics.
  const Json& summary = found.json["telemetry"]["summary"];
  EXPECT_EQ(summary.value("operation", ""), "search.find") << found.raw;
  EXPECT_GE(summary["vector"].value("searches", -1), 1) << found.raw;
  EXPECT_EQ(summary["vector"]["returned"], found.json["result"]["total"]) << found.raw;
}

}  // namespace
}  // namespace skald::apitest
