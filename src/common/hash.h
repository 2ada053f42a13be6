#pragma once

// Cryptographic hashes (OpenSSL).
//
// Thread safety: pure functions.

#include <string>
#include <string_view>

namespace skald {

// Lower-case hex SHA-256 of `data` (64 characters).
std::string Sha256Hex(std::string_view data);

// Lower-case hex MD5 of `data` (32 characters); used only for record ids
// that must match OpenViking's, never for security.
std::string Md5Hex(std::string_view data);

// Compares two strings in time that depends only on their lengths (for
// secrets and their digests: no early exit on the first differing byte).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace skald
