#pragma once

// User API keys (reference §2.9): `b64url(account).b64url(user).b64url(secret)`
// with unpadded base64url parts and a secret of kApiKeySecretBytes random
// bytes from the kernel's cryptographic generator (getrandom(2)). The
// workspace stores only ApiKeyHash(key) and a short prefix of the secret
// part for listings.
//
// Thread safety: pure functions (NewApiKey reads the kernel generator).

#include <cstddef>
#include <string>
#include <string_view>

#include "common/hash.h"  // ConstantTimeEquals

#include "skald/result.h"

namespace skald {

// Bytes of randomness in a key's secret (256 bits).
inline constexpr size_t kApiKeySecretBytes = 32;
// Characters of the encoded secret shown as `key_prefix` in user listings
// (48 bits: enough to tell keys apart, far too little to guess the rest).
inline constexpr size_t kApiKeyPrefixChars = 8;

// Unpadded base64url (RFC 4648 §5) of `bytes`.
std::string Base64UrlEncode(std::string_view bytes);
// Inverse of Base64UrlEncode; false for padding, a character outside the
// alphabet or an impossible length (non-canonical trailing bits included).
bool Base64UrlDecode(std::string_view text, std::string* out);

// A fresh key for `account`/`user`. Internal when the kernel generator fails
// (never expected on Linux; no weaker source is used instead).
Result<std::string> NewApiKey(std::string_view account, std::string_view user);

// The parts of a well-formed key.
struct ParsedApiKey {
  std::string account;
  std::string user;
  std::string secret_text;  // the encoded secret part, as in the key
};
// Splits a key; false when it is not three non-empty base64url parts
// separated by '.' or the secret decodes to fewer than kApiKeySecretBytes.
// Does not validate the ids (the caller does).
bool ParseApiKey(std::string_view key, ParsedApiKey* out);

// What the workspace stores: hex SHA-256 of the whole key text.
std::string ApiKeyHash(std::string_view key);

// The listing prefix of a key's secret part.
std::string ApiKeyPrefix(const ParsedApiKey& key);

}  // namespace skald
