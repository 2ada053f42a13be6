// embed_bench: embedding throughput of the configured embedder (the
// built-in hashing embedder when no config is given).
//
//   embed_bench [--config FILE] [--texts N] [--chunk N] [--threads T] [--fake-server]
//
// Embeds N generated document texts (markdown-like paragraphs, ~1 KB each),
// `--chunk` texts per Embed call (the ingestion pipeline's unit; HTTP
// embedders split each call into `batch_size` requests), from T caller
// threads taking chunks in turn (default 1). `--fake-server`
// starts an in-process OpenAI-compatible loopback server and points an
// `openai` embedder at it (dimension 256, the config's batch_size and
// max_concurrent): it measures Skald's client overhead and shows the
// request count batching gives. Prints the command, one detail line, and a
// final line `texts_per_s=… mb_per_s=… requests_per_1000=…` (requests
// counted for HTTP providers, 0 for built-ins).

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "model/factory.h"
#include "service/config.h"

namespace {

using Clock = std::chrono::steady_clock;

const char* const kWords[] = {
    "index",     "vector",     "query",    "memory",  "session",  "resource",  "skill",
    "agent",     "context",    "rotate",   "key",     "deploy",   "server",    "client",
    "request",   "latency",    "cache",    "shard",   "replica",  "commit",    "archive",
    "summary",   "overview",   "abstract", "token",   "budget",   "embedding", "rerank",
    "threshold", "score",      "hybrid",   "lexical", "semantic", "recall",    "precision",
    "benchmark", "throughput", "disk",     "network", "thread",   "the",       "a",
    "of",        "and",        "to",       "in",      "is",       "for",       "with",
    "on",        "数据库",     "向量",     "检索",    "会话",     "记忆",      "配置"};

std::vector<std::string> GenerateTexts(int n) {
  std::mt19937_64 rng(42);
  const size_t vocab = sizeof(kWords) / sizeof(kWords[0]);
  std::uniform_int_distribution<size_t> word(0, vocab - 1);
  std::uniform_int_distribution<int> length(80, 220);
  std::vector<std::string> texts;
  texts.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    std::string text = "## Section " + std::to_string(i) + "\n\n";
    const int words = length(rng);
    for (int w = 0; w < words; ++w) {
      text += kWords[word(rng)];
      text += (w % 17 == 16) ? ".\n" : " ";
    }
    texts.push_back(std::move(text));
  }
  return texts;
}

// A minimal OpenAI-compatible /v1/embeddings server (constant vectors).
class FakeServer {
 public:
  explicit FakeServer(int dimension) {
    // A pool thread per keep-alive connection: more than max_concurrent.
    server_.new_task_queue = [] { return new httplib::ThreadPool(64); };
    server_.Post(
        "/v1/embeddings", [dimension](const httplib::Request& req, httplib::Response& res) {
          const nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
          nlohmann::json data = nlohmann::json::array();
          const std::vector<float> vector(static_cast<size_t>(dimension), 0.0625f);
          const size_t n = body.is_object() && body.contains("input") ? body["input"].size() : 0;
          for (size_t i = 0; i < n; ++i) data.push_back({{"index", i}, {"embedding", vector}});
          // With a charset the library does not compress: no brotli CPU in the measurement.
          res.set_content(nlohmann::json{{"data", data}}.dump(), "application/json; charset=utf-8");
        });
    server_.set_tcp_nodelay(true);  // no Nagle delay between headers and body
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeServer() {
    server_.stop();
    thread_.join();
  }
  int port() const { return port_; }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
};

int Usage() {
  std::fprintf(stderr,
               "usage: embed_bench [--config FILE] [--texts N] [--chunk N] [--threads T] "
               "[--fake-server]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string config_path;
  int texts_n = 20000;
  int chunk = 256;
  int threads = 1;
  bool fake_server = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--config" && i + 1 < argc) {
      config_path = argv[++i];
    } else if (arg == "--texts" && i + 1 < argc) {
      texts_n = std::atoi(argv[++i]);
    } else if (arg == "--chunk" && i + 1 < argc) {
      chunk = std::atoi(argv[++i]);
    } else if (arg == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (arg == "--fake-server") {
      fake_server = true;
    } else {
      return Usage();
    }
  }
  if (texts_n < 1 || chunk < 1 || threads < 1 || threads > 256) return Usage();

  skald::Config config;
  if (!config_path.empty()) {
    skald::Result<skald::Config> loaded = skald::LoadConfig(config_path);
    if (!loaded.ok()) {
      std::fprintf(stderr, "embed_bench: %s\n", loaded.status().message().c_str());
      return 2;
    }
    config = std::move(loaded).value();
  }
  std::unique_ptr<FakeServer> server;
  if (fake_server) {
    server = std::make_unique<FakeServer>(256);
    config.embedding.provider = "openai";
    config.embedding.model = "fake-embedding";
    config.embedding.dimension = 256;
    config.embedding.api_key.clear();
    config.embedding.api_base = "http://127.0.0.1:" + std::to_string(server->port()) + "/v1";
  }
  skald::Result<std::unique_ptr<skald::Embedder>> embedder = skald::NewEmbedder(config.embedding);
  if (!embedder.ok()) {
    std::fprintf(stderr, "embed_bench: %s\n", embedder.status().message().c_str());
    return 2;
  }

  const std::vector<std::string> texts = GenerateTexts(texts_n);
  size_t bytes = 0;
  for (const std::string& t : texts) bytes += t.size();

  std::printf("command: embed_bench%s%s --texts %d --chunk %d --threads %d%s\n",
              config_path.empty() ? "" : " --config ", config_path.c_str(), texts_n, chunk, threads,
              fake_server ? " --fake-server" : "");
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  auto caller = [&] {
    for (size_t begin;
         !failed && (begin = next.fetch_add(static_cast<size_t>(chunk))) < texts.size();) {
      const size_t n = std::min(texts.size() - begin, static_cast<size_t>(chunk));
      auto vectors = (*embedder)->Embed(std::span<const std::string>(texts.data() + begin, n),
                                        skald::EmbedKind::kDocument);
      if (!vectors.ok()) {
        std::fprintf(stderr, "embed_bench: %s\n", vectors.status().message().c_str());
        failed = true;
      }
    }
  };
  const auto start = Clock::now();
  {
    std::vector<std::jthread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(caller);
    caller();
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (failed) return 1;
  const skald::ModelStats stats = (*embedder)->stats();
  const bool builtin = (*embedder)->provider() == "hashing";
  std::printf(
      "embedder %s dimension=%d batch_size=%d max_concurrent=%d texts=%d bytes=%zu "
      "seconds=%.3f requests=%llu\n",
      (*embedder)->Name().c_str(), (*embedder)->Dimension(), config.embedding.batch_size,
      config.embedding.max_concurrent, texts_n, bytes, seconds,
      static_cast<unsigned long long>(stats.requests));
  std::printf("texts_per_s=%.0f mb_per_s=%.2f requests_per_1000=%.2f\n", texts_n / seconds,
              static_cast<double>(bytes) / 1e6 / seconds,
              builtin ? 0.0 : 1000.0 * static_cast<double>(stats.requests) / texts_n);
  return 0;
}
