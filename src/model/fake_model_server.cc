#include "model/fake_model_server.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace skald::testing {
namespace {

using Json = nlohmann::json;

std::set<std::string> Words(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) {
    for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.insert(w);
  }
  return out;
}

}  // namespace

FakeModelServer::FakeModelServer(int dimension) : dimension_(dimension) {
  server_.new_task_queue = [] { return new httplib::ThreadPool(16); };
  auto handler = [this](const httplib::Request& req, httplib::Response& res) { Handle(req, res); };
  for (const char* path : {"/v1/embeddings", "/api/embed", "/v1/chat/completions", "/api/chat",
                           "/v1/rerank", "/v2/rerank", "/compatible/rerank"}) {
    server_.Post(path, handler);
  }
  server_.set_tcp_nodelay(true);  // no Nagle delay between headers and body
  port_ = server_.bind_to_any_port("127.0.0.1");
  EXPECT_GT(port_, 0);
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  for (int i = 0; i < 500 && !server_.is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

FakeModelServer::~FakeModelServer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  server_.stop();
  if (thread_.joinable()) thread_.join();
}

std::string FakeModelServer::base_url() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

LlmConfig FakeModelServer::ChatConfig(std::string model, std::string section) const {
  LlmConfig config(std::move(section));
  config.provider = "openai";
  config.model = std::move(model);
  config.api_base = base_url() + "/v1";
  config.max_retries = 0;
  config.timeout = 0.5;
  return config;
}

void FakeModelServer::PushFault(const Fault& fault, int times) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int i = 0; i < times; ++i) faults_.push_back(fault);
}

void FakeModelServer::SetDefaultFault(const Fault& fault) {
  std::lock_guard<std::mutex> lock(mu_);
  default_fault_ = fault;
}

void FakeModelServer::SetChatReply(const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  chat_reply_ = text;
}

void FakeModelServer::SetChatResponder(ChatResponder responder) {
  std::lock_guard<std::mutex> lock(mu_);
  chat_responder_ = std::move(responder);
}

std::vector<RecordedRequest> FakeModelServer::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

int FakeModelServer::request_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(requests_.size());
}

std::vector<float> FakeModelServer::VectorFor(const std::string& text) const {
  const size_t h = std::hash<std::string>{}(text);
  std::vector<float> v(static_cast<size_t>(dimension_));
  for (int i = 0; i < dimension_; ++i) {
    v[static_cast<size_t>(i)] = static_cast<float>(std::sin(static_cast<double>(h % 1000) + i));
  }
  return v;
}

Fault FakeModelServer::NextFault() {
  std::lock_guard<std::mutex> lock(mu_);
  if (faults_.empty()) return default_fault_;
  Fault f = faults_.front();
  faults_.pop_front();
  return f;
}

void FakeModelServer::Wait(std::chrono::milliseconds delay) {
  std::unique_lock<std::mutex> lock(mu_);
  stop_cv_.wait_for(lock, delay, [this] { return stopping_; });
}

Json FakeModelServer::Reply(const std::string& path, const Json& body, const Fault& fault) {
  const int dim = fault.dimension > 0 ? fault.dimension : dimension_;
  auto vector = [&](const std::string& text) {
    std::vector<float> v = VectorFor(text);
    v.resize(static_cast<size_t>(dim), 0.5f);
    return v;
  };
  if (path == "/v1/embeddings") {
    Json data = Json::array();
    const Json& input = body.at("input");
    // Answer in reverse order: clients must place vectors by "index".
    for (size_t i = input.size(); i > 0; --i) {
      data.push_back({{"object", "embedding"},
                      {"index", i - 1},
                      {"embedding", vector(input[i - 1].get<std::string>())}});
    }
    return {{"object", "list"},
            {"data", data},
            {"model", body.value("model", "")},
            {"usage", {{"prompt_tokens", 1}, {"total_tokens", 1}}}};
  }
  if (path == "/api/embed") {
    Json embeddings = Json::array();
    for (const Json& text : body.at("input")) embeddings.push_back(vector(text.get<std::string>()));
    return {{"model", body.value("model", "")}, {"embeddings", embeddings}};
  }
  std::string reply;
  ChatResponder responder;
  {
    std::lock_guard<std::mutex> lock(mu_);
    reply = chat_reply_;
    responder = chat_responder_;
  }
  if (responder && (path == "/v1/chat/completions" || path == "/api/chat")) reply = responder(body);
  if (path == "/v1/chat/completions") {
    return {{"id", "chatcmpl-1"},
            {"choices",
             {{{"index", 0},
               {"finish_reason", "stop"},
               {"message", {{"role", "assistant"}, {"content", reply}}}}}},
            {"usage", {{"prompt_tokens", 11}, {"completion_tokens", 5}}}};
  }
  if (path == "/api/chat") {
    return {{"model", body.value("model", "")},
            {"done", true},
            {"done_reason", "stop"},
            {"message", {{"role", "assistant"}, {"content", reply}}},
            {"prompt_eval_count", 7},
            {"eval_count", 3}};
  }
  // Rerank: score = share of query words present in the document.
  const std::set<std::string> query = Words(body.at("query").get<std::string>());
  Json results = Json::array();
  const Json& docs = body.at("documents");
  for (size_t i = 0; i + static_cast<size_t>(fault.rerank_drop) < docs.size(); ++i) {
    const std::set<std::string> words = Words(docs[i].get<std::string>());
    size_t hits = 0;
    for (const std::string& w : query) hits += words.count(w);
    const double score = query.empty() ? 0.0 : static_cast<double>(hits) / query.size();
    results.push_back({{"index", i}, {"relevance_score", score}});
  }
  std::sort(results.begin(), results.end(), [](const Json& a, const Json& b) {
    return a["relevance_score"].get<double>() > b["relevance_score"].get<double>();
  });
  return {{"id", "rerank-1"}, {"results", results}};
}

void FakeModelServer::Handle(const httplib::Request& req, httplib::Response& res) {
  const int now = ++in_flight_;
  for (int seen = max_in_flight_.load();
       now > seen && !max_in_flight_.compare_exchange_weak(seen, now);) {
  }
  RecordedRequest record;
  record.path = req.path;
  record.body = Json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  record.authorization = req.get_header_value("Authorization");
  record.custom_header = req.get_header_value("X-Custom");
  record.remote_port = req.remote_port;
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(record);
  }
  const Fault fault = NextFault();
  if (fault.delay.count() > 0) Wait(fault.delay);
  if (fault.status != 0) {
    res.status = fault.status;
    if (!fault.retry_after.empty()) res.set_header("Retry-After", fault.retry_after);
    std::string message = "injected failure";
    if (fault.echo_auth) message = "invalid credentials: " + record.authorization;
    res.set_content(Json{{"error", {{"message", message}, {"type", "fake"}}}}.dump(),
                    "application/json");
  } else if (fault.malformed) {
    res.set_content("{\"data\": [ this is not json", "application/json");
  } else if (record.body.is_discarded()) {
    res.status = 400;
    res.set_content(R"({"error":{"message":"body is not JSON"}})", "application/json");
  } else {
    res.set_content(Reply(req.path, record.body, fault).dump(), "application/json");
  }
  --in_flight_;
}

}  // namespace skald::testing
