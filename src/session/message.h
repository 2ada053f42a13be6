#pragma once

// Session messages (reference §2.7, internals §4.1): validation of an
// add-message request into the stored message document, the text a message
// contributes to token counts, and OpenViking's token estimate.
//
// Stored message (one line of messages.jsonl):
//   {"id":"msg_<32 hex>","role":…,"parts":[…],"created_at":"…Z",
//    "peer_id"?,"turn_id"?,"message_kind"?,"source_message_ids"?}
// Parts: {"type":"text","text"}, {"type":"context","uri","context_type","abstract"},
// {"type":"image_url","image_url":{"url","detail"?}},
// {"type":"tool","tool_id","tool_name","tool_uri","skill_uri","tool_input"?,
//  "tool_output"?,"tool_status",…} (other tool fields are kept).
//
// Thread safety: pure functions (NewMessageId reads a random source).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_util.h"
#include "model/token_budget.h"
#include "skald/result.h"

namespace skald {

// Token counts use OpenViking's estimate, EstimateTokens (model/token_budget.h):
// CJK 1.5, other non-BMP 2.0, else 0.25 per code point, rounded up.

// The text a message is counted by: its text parts, context abstracts and
// tool id, name, input (JSON) and output, joined by newlines (images are
// not counted).
std::string MessageTokenText(const Json& message);

// Tokens of one stored message (EstimateTokens of MessageTokenText).
int64_t MessageTokens(const Json& message);

// Plain text of a message for summaries and extraction: text parts and
// context abstracts joined by newlines.
std::string MessageText(const Json& message);

// "msg_<32 hex>".
std::string NewMessageId();

// The stored message for an add-message request body `request` (an object:
// role, content?, parts?, peer_id?, created_at?, turn_id?, message_kind?,
// source_message_ids?; other keys ignored). `parts` wins over `content`;
// an empty or blank content is accepted. InvalidArgument (naming the field)
// when role is missing or not a string, when neither content nor parts is
// given, when there are more than kMaxMessageParts parts, or when a part is
// malformed. `now_ns` dates a message without
// created_at.
Result<Json> BuildStoredMessage(const Json& request, int64_t now_ns);

// Parts one message may have (a bound on the work one request can cause).
inline constexpr size_t kMaxMessageParts = 1000;

// A stored message whose parts are all tool parts, two or more of them (an
// aggregate of tool results, as agents post them), as one message per tool
// part, each with its own id and otherwise the same fields (OpenViking
// stores them so); any other message as it is.
std::vector<Json> SplitToolResults(Json message);

}  // namespace skald
