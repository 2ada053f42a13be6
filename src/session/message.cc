#include "session/message.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/file_util.h"
#include "common/strings.h"
#include "common/time_util.h"

namespace skald {
namespace {

std::string StringField(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

Status PartError(size_t index, std::string_view message) {
  return Status::InvalidArgument(fmt::format("parts[{}]: {}", index, message));
}

Result<Json> BuildPart(const Json& part, size_t index) {
  if (!part.is_object()) return PartError(index, "a part must be an object");
  const std::string type = StringField(part, "type");
  auto optional_string = [&](const char* key) -> Status {
    auto it = part.find(key);
    if (it != part.end() && !it->is_null() && !it->is_string()) {
      return PartError(index, fmt::format("'{}' must be a string", key));
    }
    return Status::Ok();
  };
  if (type == "text") {
    SKALD_RETURN_IF_ERROR(optional_string("text"));
    return Json{{"type", "text"}, {"text", StringField(part, "text")}};
  }
  if (type == "context") {
    for (const char* key : {"uri", "context_type", "abstract"}) {
      SKALD_RETURN_IF_ERROR(optional_string(key));
    }
    std::string context_type = StringField(part, "context_type");
    if (context_type.empty()) context_type = "memory";
    if (context_type != "memory" && context_type != "resource" && context_type != "skill") {
      return PartError(index, "context_type must be memory, resource or skill");
    }
    return Json{{"type", "context"},
                {"uri", StringField(part, "uri")},
                {"context_type", context_type},
                {"abstract", StringField(part, "abstract")}};
  }
  if (type == "image_url") {
    auto it = part.find("image_url");
    Json image;
    if (it != part.end() && it->is_object()) {
      image["url"] = StringField(*it, "url");
      if (it->contains("detail") && (*it)["detail"].is_string()) image["detail"] = (*it)["detail"];
    } else if (it != part.end() && it->is_string()) {
      image["url"] = it->get<std::string>();
    } else {
      return PartError(index, "image_url must be an object with a url");
    }
    if (Trim(image.value("url", "")).empty()) {
      return PartError(index, "image_url part requires a non-empty URL");
    }
    return Json{{"type", "image_url"}, {"image_url", image}};
  }
  if (type == "tool") {
    for (const char* key : {"tool_id", "tool_name", "tool_uri", "skill_uri", "tool_status"}) {
      SKALD_RETURN_IF_ERROR(optional_string(key));
    }
    Json out = part;  // every other tool field (duration, tokens, refs) is kept
    for (const char* key : {"tool_id", "tool_name", "tool_uri", "skill_uri"}) {
      out[key] = StringField(part, key);
    }
    if (!part.contains("tool_input") || part["tool_input"].is_null()) {
      out["tool_input"] = Json::object();
    } else if (!part["tool_input"].is_object()) {
      return PartError(index, "'tool_input' must be an object");
    }
    if (!part.contains("tool_output") || part["tool_output"].is_null()) {
      out["tool_output"] = "";
    } else if (!part["tool_output"].is_string()) {
      out["tool_output"] = DumpJson(part["tool_output"]);
    }
    std::string status = StringField(part, "tool_status");
    out["tool_status"] = status.empty() ? "pending" : status;
    return out;
  }
  return PartError(index, fmt::format("unknown part type '{}' (expected text, context, "
                                      "image_url or tool)",
                                      type));
}

}  // namespace

std::string MessageTokenText(const Json& message) {
  std::string out;
  auto add = [&out](std::string_view s) {
    if (s.empty()) return;
    if (!out.empty()) out += '\n';
    out += s;
  };
  auto parts = message.find("parts");
  if (parts == message.end() || !parts->is_array()) return out;
  for (const Json& part : *parts) {
    if (!part.is_object()) continue;
    const std::string type = StringField(part, "type");
    if (type == "text") {
      add(StringField(part, "text"));
    } else if (type == "context") {
      add(StringField(part, "abstract"));
    } else if (type == "tool") {
      add(StringField(part, "tool_id"));
      add(StringField(part, "tool_name"));
      if (part.contains("tool_input") && !part["tool_input"].is_null()) {
        add(DumpJson(part["tool_input"]));
      }
      add(StringField(part, "tool_output"));
    }
  }
  return out;
}

int64_t MessageTokens(const Json& message) { return EstimateTokens(MessageTokenText(message)); }

std::string MessageText(const Json& message) {
  std::string out;
  auto parts = message.find("parts");
  if (parts == message.end() || !parts->is_array()) return out;
  for (const Json& part : *parts) {
    if (!part.is_object()) continue;
    const std::string type = StringField(part, "type");
    std::string text = type == "text"      ? StringField(part, "text")
                       : type == "context" ? StringField(part, "abstract")
                                           : "";
    if (text.empty()) continue;
    if (!out.empty()) out += '\n';
    out += text;
  }
  return out;
}

std::string NewMessageId() { return "msg_" + RandomHex128(); }

std::vector<Json> SplitToolResults(Json message) {
  const Json& parts = message["parts"];
  const bool aggregate =
      parts.is_array() && parts.size() >= 2 && std::all_of(parts.begin(), parts.end(), [](const Json& p) {
        return p.is_object() && p.value("type", "") == "tool";
      });
  if (!aggregate) return {std::move(message)};
  Json taken = std::move(message["parts"]);
  message.erase("parts");  // each copy below is the message without its parts
  std::vector<Json> out;
  out.reserve(taken.size());
  for (Json& part : taken) {
    Json one = message;
    one["id"] = NewMessageId();
    one["parts"] = Json::array({std::move(part)});
    out.push_back(std::move(one));
  }
  return out;
}

Result<Json> BuildStoredMessage(const Json& request, int64_t now_ns) {
  if (!request.is_object()) return Status::InvalidArgument("a message must be a JSON object");
  auto role = request.find("role");
  if (role == request.end() || !role->is_string()) {
    return Status::InvalidArgument("role: Field required (a string)");
  }
  Json parts = Json::array();
  auto parts_in = request.find("parts");
  auto content = request.find("content");
  const bool has_parts = parts_in != request.end() && !parts_in->is_null();
  const bool has_content = content != request.end() && !content->is_null();
  if (has_parts) {
    if (!parts_in->is_array()) return Status::InvalidArgument("parts must be a list");
    if (parts_in->size() > kMaxMessageParts) {
      return Status::InvalidArgument(
          fmt::format("parts: at most {} parts per message, not {}", kMaxMessageParts,
                      parts_in->size()));
    }
    for (size_t i = 0; i < parts_in->size(); ++i) {
      SKALD_ASSIGN_OR_RETURN(Json part, BuildPart((*parts_in)[i], i));
      parts.push_back(std::move(part));
    }
  } else if (has_content) {
    if (!content->is_string()) return Status::InvalidArgument("content must be a string");
    parts.push_back(Json{{"type", "text"}, {"text", content->get<std::string>()}});
  } else {
    return Status::InvalidArgument("Either 'content' or 'parts' must be provided");
  }
  Json message{{"id", NewMessageId()},
               {"role", role->get<std::string>()},
               {"parts", std::move(parts)},
               {"created_at", FormatIsoMillis(now_ns)}};
  for (const char* key : {"peer_id", "created_at", "turn_id", "message_kind"}) {
    auto it = request.find(key);
    if (it == request.end() || it->is_null()) continue;
    if (!it->is_string()) return Status::InvalidArgument(fmt::format("{} must be a string", key));
    message[key] = *it;
  }
  if (message.contains("message_kind")) {
    const std::string kind = message["message_kind"];
    if (kind != "user_query" && kind != "assistant_step" && kind != "tool_transport" &&
        kind != "checkpoint") {
      return Status::InvalidArgument(
          "message_kind must be user_query, assistant_step, tool_transport or checkpoint");
    }
  }
  if (auto it = request.find("source_message_ids"); it != request.end() && !it->is_null()) {
    if (!it->is_array()) return Status::InvalidArgument("source_message_ids must be a list");
    for (const Json& id : *it) {
      if (!id.is_string()) return Status::InvalidArgument("source_message_ids must be strings");
    }
    message["source_message_ids"] = *it;
  }
  return message;
}

}  // namespace skald
