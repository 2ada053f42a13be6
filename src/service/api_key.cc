#include "service/api_key.h"

#include <sys/random.h>

#include <cerrno>

#include "common/hash.h"

namespace skald {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int DecodeChar(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

// Fills `out` from getrandom(2), retrying short reads and EINTR.
bool RandomBytes(unsigned char* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t got = getrandom(out + done, n - done, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(got);
  }
  return true;
}

}  // namespace

std::string Base64UrlEncode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = (static_cast<unsigned char>(bytes[i]) << 16) |
                 (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                 static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest == 1) {
    uint32_t v = static_cast<unsigned char>(bytes[i]) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
  } else if (rest == 2) {
    uint32_t v = (static_cast<unsigned char>(bytes[i]) << 16) |
                 (static_cast<unsigned char>(bytes[i + 1]) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
  }
  return out;
}

bool Base64UrlDecode(std::string_view text, std::string* out) {
  out->clear();
  if (text.size() % 4 == 1) return false;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int v = DecodeChar(c);
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  // The leftover bits of the last character must be zero (canonical form),
  // so that one key has exactly one spelling.
  return (acc & ((1u << bits) - 1)) == 0;
}

Result<std::string> NewApiKey(std::string_view account, std::string_view user) {
  unsigned char secret[kApiKeySecretBytes];
  if (!RandomBytes(secret, sizeof(secret))) {
    return Status::Internal("the system random generator failed; no key was made");
  }
  std::string key = Base64UrlEncode(account);
  key += '.';
  key += Base64UrlEncode(user);
  key += '.';
  key += Base64UrlEncode(std::string_view(reinterpret_cast<const char*>(secret), sizeof(secret)));
  return key;
}

bool ParseApiKey(std::string_view key, ParsedApiKey* out) {
  const size_t first = key.find('.');
  if (first == std::string_view::npos) return false;
  const size_t second = key.find('.', first + 1);
  if (second == std::string_view::npos || key.find('.', second + 1) != std::string_view::npos) {
    return false;
  }
  std::string_view a = key.substr(0, first);
  std::string_view u = key.substr(first + 1, second - first - 1);
  std::string_view s = key.substr(second + 1);
  if (a.empty() || u.empty() || s.empty()) return false;
  std::string secret;
  if (!Base64UrlDecode(a, &out->account) || !Base64UrlDecode(u, &out->user) ||
      !Base64UrlDecode(s, &secret) || secret.size() < kApiKeySecretBytes) {
    return false;
  }
  out->secret_text = std::string(s);
  return true;
}

std::string ApiKeyHash(std::string_view key) { return Sha256Hex(key); }

std::string ApiKeyPrefix(const ParsedApiKey& key) {
  return key.secret_text.substr(0, kApiKeyPrefixChars);
}

}  // namespace skald
