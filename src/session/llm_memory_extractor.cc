#include "session/llm_memory_extractor.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "common/json_util.h"
#include "common/strings.h"
#include "session/date_resolver.h"
#include "session/memory_merge.h"
#include "session/statement_text.h"

namespace skald {
namespace {

constexpr size_t kMaxDroppedReasons = 20;
constexpr size_t kMaxValueBytes = 120;
constexpr size_t kMaxAttributeBytes = 40;

// What each memory type holds, as the prompt explains it to the model.
const char* TypeGuide(MemoryType type) {
  switch (type) {
    case MemoryType::kProfile:
      return "who the speaker is: job, where they live or come from, age, family, studies";
    case MemoryType::kPreferences:
      return "likes, dislikes, favourites and habits";
    case MemoryType::kEntities:
      return "named people, places, pets, organisations and things in the speaker's life, and "
             "what is said about them";
    case MemoryType::kEvents:
      return "things that happened or are planned, with their date, and how they turned out";
    case MemoryType::kCases:
      return "a problem the assistant worked on and how it was solved";
    case MemoryType::kPatterns:
      return "a way of working the assistant follows repeatedly";
    case MemoryType::kTools:
      return "how a tool was used and what worked";
    case MemoryType::kSkills:
      return "how a skill was applied and what worked";
    case MemoryType::kIdentity:
      return "names and how the speaker identifies themselves";
  }
  return "";
}

// The attribute a type's item gets when the model gives none.
std::string DefaultAttribute(MemoryType type) {
  switch (type) {
    case MemoryType::kPreferences:
      return "likes";
    case MemoryType::kEntities:
      return "entity";
    case MemoryType::kEvents:
      return "event";
    case MemoryType::kIdentity:
      return "name";
    default:
      return std::string(MemoryTypeName(type));
  }
}

// Display name of a message's author (the model-free extractor's rule).
std::string SpeakerOf(const ConversationMessage& m, const SessionContext& context) {
  if (!m.speaker.empty()) return m.speaker;
  if (m.role == "assistant") {
    return context.assistant_name.empty() ? "Assistant" : context.assistant_name;
  }
  return context.user_name.empty() ? "User" : context.user_name;
}

std::optional<CivilDateTime> SessionTime(const SessionContext& context) {
  if (Result<CivilDateTime> t = ParseDateTime(context.session_time); t.ok()) return *t;
  return std::nullopt;
}

// When a message was said: its own time, else the session's ("" when neither parses).
std::string MessageTime(const ConversationMessage& m, const std::optional<CivilDateTime>& session) {
  if (!m.time.empty()) {
    if (Result<CivilDateTime> t = ParseDateTime(m.time); t.ok()) return t->ToString();
  }
  return session ? session->ToString() : m.time;
}

const char* WeekdayName(int weekday) {
  static const char* kNames[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                 "Friday", "Saturday", "Sunday"};
  return weekday >= 0 && weekday < 7 ? kNames[weekday] : "";
}

std::string SystemPrompt(const LlmExtractorOptions& options) {
  std::string types;
  for (MemoryType type : AllMemoryTypes()) {
    types += fmt::format("  \"{}\": {}\n", MemoryTypeName(type), TypeGuide(type));
  }
  return fmt::format(
      "You read a conversation and write down what is worth remembering about its participants "
      "in later conversations. Keep only durable facts: who someone is, what they like or "
      "usually do, the people, places and things in their life, what happened or is planned "
      "and when, and from the assistant's turns, problems solved, working patterns and tool or "
      "skill usage. Leave out greetings, thanks, unanswered questions, small talk and things "
      "that are only true for the moment.\n\n"
      "Reply with a single JSON object and nothing else. Its keys are memory types and each "
      "value is a list of memories (leave a type out, or give [], when it has none):\n{}\n"
      "Each memory is an object with these fields:\n"
      "  \"text\": one sentence that stands on its own: third person, naming the speaker "
      "exactly as the conversation writes it (\"User\" is the person this memory store "
      "belongs to), with every relative date written as the absolute date it means (\"on "
      "2023-05-07\", never \"yesterday\" or \"last week\"); at most {} characters.\n"
      "  \"attribute\": a short snake_case key for what the fact is about, e.g. lives_in, "
      "from, occupation, works_at, age, name, relationship_status, likes, dislikes, habit, "
      "favorite_<thing>, relation, event, plan, outcome, case, pattern, tool, skill.\n"
      "  \"value\": the attribute's value in a few words (\"Boston\", \"pottery\"); for "
      "entities, the entity's name.\n"
      "  \"negated\": true when the statement denies the attribute (\"does not eat meat\"), "
      "else false.\n"
      "  \"message_ids\": the ids of the messages that state the fact, copied exactly from the "
      "square brackets.\n"
      "  \"event_date\": for events, the absolute date it happened or will happen: "
      "\"YYYY-MM-DD\", or \"YYYY-MM\" or \"YYYY\" when only that is known; \"\" for other "
      "memories. Work it out from the date of the message that mentions it.\n\n"
      "What the user and other human participants say goes to profile, preferences, entities, "
      "events or identity; what the assistant says goes to cases, patterns, tools or skills. "
      "One fact per memory, each fact once, at most {} memories in all.",
      types, options.max_text_bytes, options.max_candidates);
}

// "YYYY", "YYYY-MM" or "YYYY-MM-DD" naming a real date in 1900..2200.
bool SaneDate(std::string_view date) {
  auto digits = [&](size_t from, size_t n) {
    if (date.size() < from + n) return false;
    for (size_t i = from; i < from + n; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(date[i]))) return false;
    }
    return true;
  };
  if (!(date.size() == 4 || date.size() == 7 || date.size() == 10) || !digits(0, 4)) return false;
  CivilDate d;
  d.year = std::stoi(std::string(date.substr(0, 4)));
  if (d.year < 1900 || d.year > 2200) return false;
  if (date.size() >= 7) {
    if (date[4] != '-' || !digits(5, 2)) return false;
    d.month = std::stoi(std::string(date.substr(5, 2)));
  }
  if (date.size() == 10) {
    if (date[7] != '-' || !digits(8, 2)) return false;
    d.day = std::stoi(std::string(date.substr(8, 2)));
  }
  return d.IsValid();
}

// A snake_case key: lower-case ASCII letters and digits joined by '_'.
std::string NormalizeAttribute(std::string_view text) {
  std::string out;
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      out.push_back(static_cast<char>(std::tolower(u)));
    } else if (!out.empty() && out.back() != '_') {
      out.push_back('_');
    }
    if (out.size() >= kMaxAttributeBytes) break;
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

std::string ScalarText(const Json& v) {
  if (v.is_string()) return CollapseWhitespace(v.get<std::string>());
  if (v.is_number()) return DumpJson(v);
  return "";
}

class AnswerReader {
 public:
  AnswerReader(const std::vector<ConversationMessage>& messages, const SessionContext& context,
               const LlmExtractorOptions& options, LlmExtraction* out)
      : messages_(messages), context_(context), options_(options), out_(out),
        session_time_(SessionTime(context)) {
    for (size_t i = 0; i < messages.size(); ++i) {
      if (messages[i].role != "system") index_.emplace(messages[i].id, i);
    }
  }

  void Drop(std::string reason) {
    ++out_->dropped;
    if (out_->dropped_reasons.size() < kMaxDroppedReasons) {
      out_->dropped_reasons.push_back(std::move(reason));
    }
  }

  // One proposed memory of `type` (item number `n` of its list).
  void Item(MemoryType type, const Json& item, const std::string& where) {
    ++proposed_;
    if (!item.is_object()) return Drop(where + ": not an object");
    auto text_it = item.find("text");
    if (text_it == item.end() || !text_it->is_string()) return Drop(where + ": no text");
    std::string text = CollapseWhitespace(text_it->get<std::string>());
    if (text.empty()) return Drop(where + ": empty text");
    if (text.size() > options_.max_text_bytes) {
      return Drop(fmt::format("{}: text longer than {} bytes", where, options_.max_text_bytes));
    }
    // Cited messages, in conversation order; unknown ids are left out.
    std::vector<size_t> cited;
    auto ids_it = item.find("message_ids");
    std::vector<Json> ids;
    if (ids_it != item.end() && ids_it->is_array()) {
      ids.assign(ids_it->begin(), ids_it->end());
    } else if (ids_it != item.end() && ids_it->is_string()) {
      ids.push_back(*ids_it);
    }
    size_t unknown = 0;
    for (const Json& id : ids) {
      auto found = id.is_string() ? index_.find(id.get<std::string>()) : index_.end();
      if (found == index_.end()) {
        ++unknown;
        continue;
      }
      if (std::find(cited.begin(), cited.end(), found->second) == cited.end()) {
        cited.push_back(found->second);
      }
    }
    if (cited.empty()) {
      return Drop(unknown > 0 ? where + ": cites no message of the conversation"
                              : where + ": no message_ids");
    }
    std::sort(cited.begin(), cited.end());
    if (kept_ >= options_.max_candidates) {
      return Drop(fmt::format("{}: over the cap of {} memories", where, options_.max_candidates));
    }

    const ConversationMessage& first = messages_[cited.front()];
    MemoryCandidate c;
    c.type = type;
    c.text = std::move(text);
    c.speaker = SpeakerOf(first, context_);
    c.session_id = context_.session_id;
    for (size_t i : cited) {
      c.message_ids.push_back(messages_[i].id);
      AddQuotes({messages_[i].line}, &c.quotes);
    }
    c.time = MessageTime(first, session_time_);
    c.attribute = NormalizeAttribute(item.contains("attribute") ? ScalarText(item["attribute"]) : "");
    if (c.attribute.empty()) c.attribute = DefaultAttribute(type);
    c.value = item.contains("value") ? ScalarText(item["value"]) : "";
    if (c.value.size() > kMaxValueBytes) c.value = CutText(std::move(c.value), kMaxValueBytes);
    if (auto neg = item.find("negated"); neg != item.end() && neg->is_boolean()) {
      c.negated = neg->get<bool>();
    }
    if (auto date = item.find("event_date"); date != item.end() && date->is_string()) {
      const std::string d = CollapseWhitespace(date->get<std::string>());
      if (SaneDate(d)) c.event_date = d;
    }

    // Subject keys in the model-free extractor's shape, so memories of both
    // extractors about one thing merge.
    const std::string speaker_key = AsciiLower(c.speaker);
    const std::string about = c.value.empty() ? c.text : c.value;
    if (type == MemoryType::kEntities && !c.value.empty()) {
      c.subject = "entity/" + AsciiLower(c.value);
    } else if (type == MemoryType::kEvents) {
      const std::string day = !c.event_date.empty() ? c.event_date : c.time.substr(0, 10);
      c.subject = speaker_key + "/" + c.attribute + "/" + day + "/" + Slug(about, 3);
    } else if (IsSingleValuedAttribute(c.attribute)) {
      c.subject = speaker_key + "/" + c.attribute;
    } else {
      c.subject = speaker_key + "/" + c.attribute + "/" + Slug(about, c.value.empty() ? 3 : 2);
    }
    c.id = MemoryStableId(c.type, c.subject, c.text);

    auto same = by_id_.find(c.id);
    if (same != by_id_.end()) {  // the same fact twice: one memory, both citations
      std::vector<std::string>& known = out_->candidates[same->second].message_ids;
      for (const std::string& id : c.message_ids) {
        if (std::find(known.begin(), known.end(), id) == known.end()) known.push_back(id);
      }
      AddQuotes(c.quotes, &out_->candidates[same->second].quotes);
      return;
    }
    by_id_.emplace(c.id, out_->candidates.size());
    out_->candidates.push_back(std::move(c));
    ++kept_;
  }

  size_t proposed() const { return proposed_; }

 private:
  const std::vector<ConversationMessage>& messages_;
  const SessionContext& context_;
  const LlmExtractorOptions& options_;
  LlmExtraction* out_;
  std::optional<CivilDateTime> session_time_;
  std::map<std::string, size_t> index_;  // message id → position
  std::map<std::string, size_t> by_id_;  // candidate id → position in out_->candidates
  size_t proposed_ = 0;
  size_t kept_ = 0;
};

}  // namespace

std::vector<ChatMessage> BuildExtractionPrompt(const std::vector<ConversationMessage>& messages,
                                               const SessionContext& context,
                                               const LlmExtractorOptions& options, size_t* sent) {
  const std::optional<CivilDateTime> session_time = SessionTime(context);
  std::string user;
  if (session_time) {
    user += fmt::format("Date of the conversation: {} ({}), time {:02d}:{:02d}.\n",
                        session_time->date.ToString(), WeekdayName(session_time->date.Weekday()),
                        session_time->hour, session_time->minute);
  } else if (!context.session_time.empty()) {
    user += fmt::format("Date of the conversation: {}.\n", CollapseWhitespace(context.session_time));
  }
  user +=
      "Messages, oldest first, one a line as [message id] (date and time) speaker: text. "
      "The speaker \"User\" is the owner of this memory store; \"(assistant)\" marks the "
      "assistant.\n\n";
  size_t bytes = 0;
  size_t i = 0;
  for (; i < messages.size(); ++i) {
    const ConversationMessage& m = messages[i];
    if (m.role == "system") continue;
    std::string text = CollapseWhitespace(m.text);
    if (text.size() > options.max_message_bytes) {
      text = CutText(std::move(text), options.max_message_bytes);
    }
    const std::string line =
        fmt::format("[{}] ({}) {}{}: {}\n", m.id, MessageTime(m, session_time),
                    SpeakerOf(m, context), m.role == "assistant" ? " (assistant)" : "", text);
    if (bytes > 0 && bytes + line.size() > options.max_prompt_bytes) break;
    bytes += line.size();
    user += line;
  }
  if (sent != nullptr) *sent = i;
  user += "\nReply with the JSON object of memories now.";
  return {{"system", SystemPrompt(options)}, {"user", std::move(user)}};
}

Status ParseExtractionAnswer(std::string_view answer, const std::vector<ConversationMessage>& messages,
                             const SessionContext& context, const LlmExtractorOptions& options,
                             LlmExtraction* out) {
  Result<Json> parsed = ParseJson(answer);
  if (!parsed.ok()) return Status::InvalidArgument("the model's answer is not valid JSON");
  Json root = std::move(*parsed);
  if (!root.is_object()) return Status::InvalidArgument("the model's answer is not a JSON object");
  // Tolerated: {"memories": {"profile": [...]}} and {"memories": [{"type": ...}]}.
  if (auto inner = root.find("memories"); inner != root.end() && root.size() == 1) {
    if (inner->is_object()) {
      Json unwrapped = std::move(*inner);
      root = std::move(unwrapped);
    }
  }
  AnswerReader reader(messages, context, options, out);
  bool shaped = root.empty();
  // Memory types in enum order (JSON objects carry no order), each list in
  // answer order; then a flat "memories" list; then keys that name no type.
  for (MemoryType type : AllMemoryTypes()) {
    const std::string key(MemoryTypeName(type));
    auto it = root.find(key);
    if (it == root.end()) continue;
    shaped = true;
    if (!it->is_array()) {
      reader.Drop(key + ": not a list");
      continue;
    }
    for (size_t n = 0; n < it->size(); ++n) {
      reader.Item(type, (*it)[n], fmt::format("{}[{}]", key, n));
    }
  }
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string key = it.key();
    MemoryType type;
    if (ParseMemoryType(key, &type)) continue;  // read above
    if (key == "memories" && it->is_array()) {  // a flat list with a "type" per item
      shaped = true;
      for (size_t n = 0; n < it->size(); ++n) {
        const Json& item = (*it)[n];
        const std::string where = fmt::format("memories[{}]", n);
        const std::string name = item.is_object() ? item.value("type", "") : "";
        if (!ParseMemoryType(name, &type)) {
          reader.Drop(fmt::format("{}: unknown memory type '{}'", where, name.substr(0, 40)));
          continue;
        }
        reader.Item(type, item, where);
      }
    } else if (it->is_array()) {
      shaped = true;
      for (size_t n = 0; n < it->size(); ++n) {
        reader.Drop(fmt::format("{}[{}]: unknown memory type", key.substr(0, 40), n));
      }
    }
  }
  if (!shaped) {
    return Status::InvalidArgument("the model's answer has no list of memories by type");
  }
  if (out->candidates.empty() && out->dropped > 0) {
    return Status::InvalidArgument(fmt::format(
        "none of the {} memories in the model's answer passed validation (first problem: {})",
        out->dropped, out->dropped_reasons.empty() ? "" : out->dropped_reasons.front()));
  }
  return Status::Ok();
}

LlmExtraction ExtractMemoriesWithLlm(Llm* llm, const std::vector<ConversationMessage>& messages,
                                     const SessionContext& context,
                                     const LlmExtractorOptions& options) {
  LlmExtraction out;
  if (llm == nullptr) {
    out.extractor = kExtractorModelFree;
    out.candidates = ExtractMemories(messages, context, options.model_free);
    return out;
  }
  auto fall_back = [&](std::string reason) {
    LlmExtraction fallback;
    fallback.extractor = kExtractorFallback;
    fallback.fallback_reason = std::move(reason);
    fallback.dropped = out.dropped;
    fallback.dropped_reasons = std::move(out.dropped_reasons);
    fallback.prompt_tokens = out.prompt_tokens;
    fallback.completion_tokens = out.completion_tokens;
    fallback.candidates = ExtractMemories(messages, context, options.model_free);
    return fallback;
  };

  size_t sent = 0;
  ChatRequest request;
  request.messages = BuildExtractionPrompt(messages, context, options, &sent);
  request.json_output = true;
  if (options.max_tokens > 0) request.max_tokens = options.max_tokens;
  Result<ChatResponse> reply = llm->Chat(request);
  if (!reply.ok()) return fall_back(std::string(reply.status().message()));
  out.prompt_tokens = reply->prompt_tokens;
  out.completion_tokens = reply->completion_tokens;

  const std::vector<ConversationMessage> shown(messages.begin(),
                                               messages.begin() + static_cast<std::ptrdiff_t>(sent));
  Status parsed = ParseExtractionAnswer(reply->content, shown, context, options, &out);
  if (!parsed.ok()) {
    std::string reason(parsed.message());
    if (reply->finish_reason == "length") reason += " (the answer was cut at the token limit)";
    return fall_back(std::move(reason));
  }
  out.extractor = kExtractorLlm;

  // The messages that did not fit the prompt: model-free.
  if (sent < messages.size()) {
    const std::vector<ConversationMessage> rest(
        messages.begin() + static_cast<std::ptrdiff_t>(sent), messages.end());
    out.overflow_messages = rest.size();
    for (MemoryCandidate& c : ExtractMemories(rest, context, options.model_free)) {
      const bool known = std::any_of(out.candidates.begin(), out.candidates.end(),
                                     [&](const MemoryCandidate& k) { return k.id == c.id; });
      if (!known) out.candidates.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace skald
