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

// Git's object id of `data` as an object of `type` ("blob", "tree",
// "commit"): the lower-case hex SHA-1 (40 characters) of
// "<type> <size>\0<data>". Names snapshot objects (service/snapshot_ops.h).
std::string GitObjectId(std::string_view type, std::string_view data);

// Compares two strings in time that depends only on their lengths (for
// secrets and their digests: no early exit on the first differing byte).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace skald
