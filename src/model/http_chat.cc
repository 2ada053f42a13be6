// Chat models: OpenAI-compatible POST <base>/chat/completions and Ollama's
// native POST <base>/api/chat.

#include <fmt/format.h>

#include "common/strings.h"
#include "model/http_models.h"

namespace skald {
namespace {

// A JSON reply, without the Markdown code fence some models wrap it in.
std::string_view StripCodeFence(std::string_view text) {
  text = Trim(text);
  if (text.rfind("```", 0) != 0) return text;
  const size_t first_newline = text.find('\n');
  if (first_newline == std::string_view::npos) return text;
  std::string_view inner = text.substr(first_newline + 1);
  const size_t close = inner.rfind("```");
  if (close != std::string_view::npos) inner = inner.substr(0, close);
  return Trim(inner);
}

class HttpLlm : public Llm {
 public:
  HttpLlm(const LlmConfig& config, ModelEnv env)
      : config_(config), client_(MakeOptions(config), std::move(env)) {}

  std::string provider() const override { return config_.EffectiveProvider(); }
  std::string model() const override { return config_.model; }
  ModelStats stats() const override { return client_.stats(); }

  Result<ChatResponse> Chat(const ChatRequest& request) override {
    client_.CountCall();
    if (request.messages.empty()) return Status::InvalidArgument("chat request has no messages");
    Json messages = Json::array();
    for (const ChatMessage& m : request.messages) {
      messages.push_back({{"role", m.role}, {"content", m.content}});
    }
    const double temperature = request.temperature.value_or(config_.temperature);
    const int max_tokens = request.max_tokens.value_or(config_.max_tokens);
    ChatResponse response;
    auto parse = [&](const Json& reply) { return Parse(reply, &response); };
    Result<Json> reply = client_.PostJson(
        url(), Body(std::move(messages), request.json_output, temperature, max_tokens), parse);
    if (!reply.ok()) {
      client_.CountFailure();
      return reply.status();
    }
    if (request.json_output) {
      std::string_view json = StripCodeFence(response.content);
      if (!ParseJson(json).ok()) {
        client_.CountFailure();
        return client_.Error(fmt::format("asked for JSON but the reply is not valid JSON: {}",
                                         TruncateUtf8(response.content, 200)));
      }
      response.content = std::string(json);
    }
    return response;
  }

 protected:
  virtual std::string url() const = 0;
  virtual Json Body(Json messages, bool json_output, double temperature, int max_tokens) const = 0;
  virtual Status Parse(const Json& reply, ChatResponse* out) const = 0;

  const LlmConfig config_;
  ProviderClient client_;

 private:
  static ProviderClientOptions MakeOptions(const LlmConfig& config) {
    ProviderClientOptions o;
    o.kind = "chat";
    o.provider = config.EffectiveProvider();
    o.model = config.model;
    o.api_key = config.api_key;
    o.extra_headers = config.extra_headers;
    o.timeout = SecondsToMillis(config.timeout);
    o.retry.max_retries = config.max_retries;
    o.max_concurrent = config.max_concurrent;
    return o;
  }
};

int64_t ReadCount(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

class OpenAiLlm final : public HttpLlm {
 public:
  OpenAiLlm(const LlmConfig& config, ModelEnv env)
      : HttpLlm(config, std::move(env)),
        url_(JoinUrl(config.EffectiveApiBase(), "chat/completions")) {}

 protected:
  std::string url() const override { return url_; }

  Json Body(Json messages, bool json_output, double temperature, int max_tokens) const override {
    Json body = {{"model", config_.model},
                 {"messages", std::move(messages)},
                 {"temperature", temperature},
                 {"stream", false}};
    if (max_tokens > 0) body["max_tokens"] = max_tokens;
    if (json_output) body["response_format"] = {{"type", "json_object"}};
    return body;
  }

  Status Parse(const Json& reply, ChatResponse* out) const override {
    auto choices = reply.is_object() ? reply.find("choices") : reply.end();
    if (choices == reply.end() || !choices->is_array() || choices->empty() ||
        !(*choices)[0].is_object()) {
      return Status::Internal("response has no \"choices\"");
    }
    const Json& choice = (*choices)[0];
    auto message = choice.find("message");
    if (message == choice.end() || !message->is_object() || !message->contains("content") ||
        !(*message)["content"].is_string()) {
      return Status::Internal("response has no \"choices[0].message.content\" text");
    }
    out->content = (*message)["content"].get<std::string>();
    if (auto f = choice.find("finish_reason"); f != choice.end() && f->is_string()) {
      out->finish_reason = f->get<std::string>();
    }
    if (auto usage = reply.find("usage"); usage != reply.end() && usage->is_object()) {
      out->prompt_tokens = ReadCount(*usage, "prompt_tokens");
      out->completion_tokens = ReadCount(*usage, "completion_tokens");
    }
    return Status::Ok();
  }

 private:
  const std::string url_;
};

class OllamaLlm final : public HttpLlm {
 public:
  OllamaLlm(const LlmConfig& config, ModelEnv env)
      : HttpLlm(config, std::move(env)),
        url_(JoinUrl(OllamaBase(config.EffectiveApiBase()), "api/chat")) {}

 protected:
  std::string url() const override { return url_; }

  Json Body(Json messages, bool json_output, double temperature, int max_tokens) const override {
    Json options = {{"temperature", temperature}};
    if (max_tokens > 0) options["num_predict"] = max_tokens;
    Json body = {{"model", config_.model},
                 {"messages", std::move(messages)},
                 {"stream", false},
                 {"options", std::move(options)}};
    if (json_output) body["format"] = "json";
    return body;
  }

  Status Parse(const Json& reply, ChatResponse* out) const override {
    auto message = reply.is_object() ? reply.find("message") : reply.end();
    if (message == reply.end() || !message->is_object() || !message->contains("content") ||
        !(*message)["content"].is_string()) {
      return Status::Internal("response has no \"message.content\" text");
    }
    out->content = (*message)["content"].get<std::string>();
    if (auto f = reply.find("done_reason"); f != reply.end() && f->is_string()) {
      out->finish_reason = f->get<std::string>();
    }
    out->prompt_tokens = ReadCount(reply, "prompt_eval_count");
    out->completion_tokens = ReadCount(reply, "eval_count");
    return Status::Ok();
  }

 private:
  const std::string url_;
};

}  // namespace

std::unique_ptr<Llm> NewHttpLlm(const LlmConfig& config, ModelEnv env) {
  if (config.EffectiveProvider() == "ollama") {
    return std::make_unique<OllamaLlm>(config, std::move(env));
  }
  return std::make_unique<OpenAiLlm>(config, std::move(env));
}

}  // namespace skald
