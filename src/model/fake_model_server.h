#pragma once

// FakeModelServer (tests only): a loopback cpp-httplib server that speaks
// the wire formats Skald's model providers use — OpenAI-compatible
// /v1/embeddings, /v1/chat/completions and /v1/rerank, Ollama /api/embed
// and /api/chat, Cohere/Jina /v1/rerank — and can be told to fail: any
// HTTP status (429 with or without Retry-After, 500, ...), slow replies,
// malformed JSON, vectors of the wrong dimension, or an error body that
// echoes the Authorization header (to prove clients redact the key).
//
// Embeddings are deterministic functions of the input text; rerank scores
// are the share of query words found in the document; chat replies with the
// configured text.
//
// Thread safety: all methods may be called while requests are served.

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "model/model_config.h"

namespace skald::testing {

struct Fault {
  int status = 0;                      // reply with this HTTP status (0 = normal reply)
  std::string retry_after;             // Retry-After header value ("" = none)
  std::chrono::milliseconds delay{0};  // wait before replying
  bool malformed = false;              // 200 with a body that is not JSON
  int dimension = 0;                   // embeddings of this dimension instead (0 = normal)
  bool echo_auth = false;              // error body quotes the Authorization header
  int rerank_drop = 0;                 // rerank: leave this many results out
};

struct RecordedRequest {
  std::string path;
  nlohmann::json body;
  std::string authorization;
  std::string custom_header;  // X-Custom
  int remote_port = 0;
};

class FakeModelServer {
 public:
  explicit FakeModelServer(int dimension = 8);
  ~FakeModelServer();
  FakeModelServer(const FakeModelServer&) = delete;
  FakeModelServer& operator=(const FakeModelServer&) = delete;

  // "http://127.0.0.1:<port>"
  std::string base_url() const;
  // An OpenAI-compatible chat model of config section `section` served here:
  // no retries, a 0.5 s timeout (tests of fallbacks stay fast).
  LlmConfig ChatConfig(std::string model, std::string section = "vlm") const;

  // The next `times` requests get `fault`, in order of arrival.
  void PushFault(const Fault& fault, int times = 1);
  // Applied when no pushed fault is pending (e.g. "always 500").
  void SetDefaultFault(const Fault& fault);
  void SetChatReply(const std::string& text);
  // Chat replies computed from each request's JSON body (overrides
  // SetChatReply; null = the fixed reply again). Called on server threads.
  using ChatResponder = std::function<std::string(const nlohmann::json& body)>;
  void SetChatResponder(ChatResponder responder);

  // The deterministic vector the server returns for `text`.
  std::vector<float> VectorFor(const std::string& text) const;

  std::vector<RecordedRequest> requests() const;
  int request_count() const;
  int max_in_flight() const { return max_in_flight_.load(); }

 private:
  Fault NextFault();
  void Handle(const httplib::Request& req, httplib::Response& res);
  nlohmann::json Reply(const std::string& path, const nlohmann::json& body, const Fault& fault);
  void Wait(std::chrono::milliseconds delay);

  const int dimension_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;

  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::deque<Fault> faults_;
  Fault default_fault_;
  std::string chat_reply_ = "hello from the fake model";
  ChatResponder chat_responder_;
  std::vector<RecordedRequest> requests_;
  std::atomic<int> in_flight_{0};
  std::atomic<int> max_in_flight_{0};
};

}  // namespace skald::testing
