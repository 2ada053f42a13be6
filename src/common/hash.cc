#include "common/hash.h"

#include <openssl/evp.h>

namespace skald {
namespace {

std::string Hex(const unsigned char* digest, unsigned int len) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(len * 2, '0');
  for (unsigned int i = 0; i < len; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 0xF];
  }
  return out;
}

std::string DigestHex(const EVP_MD* md, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, md, nullptr);
  return Hex(digest, len);
}

}  // namespace

std::string GitObjectId(std::string_view type, std::string_view data) {
  std::string header = std::string(type) + " " + std::to_string(data.size());
  header.push_back('\0');
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha1(), nullptr);
  EVP_DigestUpdate(ctx, header.data(), header.size());
  EVP_DigestUpdate(ctx, data.data(), data.size());
  EVP_DigestFinal_ex(ctx, digest, &len);
  EVP_MD_CTX_free(ctx);
  return Hex(digest, len);
}

std::string Sha256Hex(std::string_view data) { return DigestHex(EVP_sha256(), data); }

std::string Md5Hex(std::string_view data) { return DigestHex(EVP_md5(), data); }

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // Lengths are not secret (hashes and keys have public lengths); the bytes are.
  if (a.size() != b.size()) return false;
  volatile unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff = static_cast<unsigned char>(diff | (a[i] ^ b[i]));
  return diff == 0;
}

}  // namespace skald
