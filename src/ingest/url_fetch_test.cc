// URL fetching against a loopback cpp-httplib server.

#include "ingest/url_fetch.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

class LoopbackServer {
 public:
  LoopbackServer() {
    server_.Get("/guide.md", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("# Guide\n\nFetched over HTTP.\n", "text/markdown");
    });
    server_.Get("/page", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("<html><body>hi</body></html>", "text/html; charset=utf-8");
    });
    server_.Get("/big", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(100000, 'b'), "text/plain");
    });
    server_.Get("/missing",
                [](const httplib::Request&, httplib::Response& res) { res.status = 404; });
    server_.Get("/hop", [](const httplib::Request&, httplib::Response& res) {
      res.set_redirect("/guide.md");
    });
    server_.Get("/loop",
                [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/loop"); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ~LoopbackServer() {
    server_.stop();
    thread_.join();
  }
  std::string Url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

std::string SlurpFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(UrlFetchTest, NamesComeFromThePathOrTheHost) {
  bool from_path = false;
  EXPECT_EQ(*UrlFileName("https://example.com/docs/My%20Guide.md?x=1", &from_path), "My Guide.md");
  EXPECT_TRUE(from_path);
  EXPECT_EQ(*UrlFileName("https://example.com/", &from_path), "example.com");
  EXPECT_FALSE(from_path);
  EXPECT_EQ(*UrlFileName("HTTP://example.com"), "example.com");
  EXPECT_FALSE(UrlFileName("ftp://example.com/a").ok());
  EXPECT_FALSE(UrlFileName("http://").ok());
  EXPECT_TRUE(IsHttpUrl("HTTPS://x"));
  EXPECT_FALSE(IsHttpUrl("git@github.com:a/b"));
}

TEST(UrlFetchTest, NonPublicAddressesAreRefused) {
  for (const char* url :
       {"http://127.0.0.1/x", "http://localhost:8080/", "http://[::1]/", "http://10.1.2.3/",
        "http://172.16.0.1/", "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data",
        "http://[fe80::1]/", "http://[fd00::1]/", "http://0.0.0.0/", "http://100.64.0.1/",
        "http://[::ffff:127.0.0.1]/", "http://224.0.0.1/"}) {
    Status st = CheckUrlAllowed(url, /*allow_private_networks=*/false);
    EXPECT_EQ(st.code(), StatusCode::kPermissionDenied) << url << ": " << st.ToString();
    EXPECT_NE(st.message().find("allow_private_networks"), std::string::npos);
  }
  EXPECT_TRUE(CheckUrlAllowed("http://127.0.0.1/x", true).ok());
  // Literal public addresses pass the check (nothing is fetched here).
  EXPECT_TRUE(CheckUrlAllowed("http://93.184.215.14/", false).ok());
  EXPECT_TRUE(CheckUrlAllowed("http://[2606:4700::1]/", false).ok());
}

TEST(UrlFetchTest, FetchesFromLoopbackOnlyWhenAllowed) {
  LoopbackServer server;
  TempDir tmp;
  FetchOptions options;
  // Refused at connect time too, not only by CheckUrlAllowed.
  auto refused = FetchUrl(server.Url("/guide.md"), tmp.Sub("a"), options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kPermissionDenied);

  options.allow_private_networks = true;
  auto file = FetchUrl(server.Url("/guide.md"), tmp.Sub("b"), options);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->name, "guide.md");
  EXPECT_EQ(SlurpFile(file->path), "# Guide\n\nFetched over HTTP.\n");

  auto page = FetchUrl(server.Url("/page"), tmp.Sub("c"), options);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->name, "page.html");

  auto hop = FetchUrl(server.Url("/hop"), tmp.Sub("d"), options);
  ASSERT_TRUE(hop.ok()) << hop.status().ToString();
  EXPECT_EQ(hop->name, "guide.md");  // named by where it ended up
}

TEST(UrlFetchTest, LimitsAndHttpErrors) {
  LoopbackServer server;
  TempDir tmp;
  FetchOptions options;
  options.allow_private_networks = true;
  options.max_bytes = 1000;
  auto big = FetchUrl(server.Url("/big"), tmp.Sub("a"), options);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), StatusCode::kResourceExhausted) << big.status().ToString();

  auto missing = FetchUrl(server.Url("/missing"), tmp.Sub("b"), options);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);

  auto loop = FetchUrl(server.Url("/loop"), tmp.Sub("c"), options);
  ASSERT_FALSE(loop.ok());
  EXPECT_EQ(loop.status().code(), StatusCode::kInvalidArgument) << loop.status().ToString();
}

}  // namespace
}  // namespace skald
