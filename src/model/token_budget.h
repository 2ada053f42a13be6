#pragma once

// Conservative token estimates and head/tail truncation to a token budget,
// with OpenViking's weights (utils/token_estimation.py): CJK and fullwidth
// code points count 1.5 tokens, other non-BMP code points 2, everything
// else 0.25; the sum is rounded up. Used for rerank `max_input_tokens` and
// the embedding input guard.
//
// Thread safety: pure functions.

#include <cstdint>
#include <string>
#include <string_view>

namespace skald {

// Estimated tokens of `text` (invalid UTF-8 bytes count as one code point each).
int64_t EstimateTokens(std::string_view text);

// `text` unchanged when it fits `max_tokens`; otherwise its head (75% of the
// budget left after the marker) and tail (the rest), trimmed of whitespace
// at the cut, joined by `marker`. Never splits a UTF-8 sequence.
// max_tokens <= 0 gives "".
std::string TruncateToTokenBudget(std::string_view text, int64_t max_tokens,
                                  std::string_view marker = "\n\xE2\x80\xA6\n");

// The longest prefix of `text` whose estimate fits `max_tokens` (no marker).
std::string_view TokenBudgetPrefix(std::string_view text, int64_t max_tokens);

}  // namespace skald
