#include "ingest/text_encoding.h"

#include <unicode/ucnv.h>
#include <unicode/ucsdet.h>

#include <memory>

#include "common/strings.h"

namespace skald {
namespace {

// Detector confidence (0–100) from which a detected charset is trusted;
// below it the bytes are repaired instead.
constexpr int32_t kMinConfidence = 20;

// Length of the well-formed UTF-8 sequence at s[i], 0 if there is none.
size_t ValidSequenceAt(std::string_view s, size_t i) {
  for (size_t len = 1; len <= 4 && i + len <= s.size(); ++len) {
    if (IsValidUtf8(s.substr(i, len))) return len;
  }
  return 0;
}

// Decodes `bytes` from `charset` into UTF-8; "" when ICU cannot.
std::string Convert(std::string_view bytes, const char* charset) {
  UErrorCode status = U_ZERO_ERROR;
  int32_t needed = ucnv_convert("UTF-8", charset, nullptr, 0, bytes.data(),
                                static_cast<int32_t>(bytes.size()), &status);
  if (status != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(status)) return "";
  std::string out(static_cast<size_t>(needed), '\0');
  status = U_ZERO_ERROR;
  ucnv_convert("UTF-8", charset, out.data(), needed, bytes.data(),
               static_cast<int32_t>(bytes.size()), &status);
  if (U_FAILURE(status)) return "";
  return out;
}

}  // namespace

std::string RepairUtf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    size_t len = static_cast<unsigned char>(bytes[i]) < 0x80 ? 1 : ValidSequenceAt(bytes, i);
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(bytes.substr(i, len));
      i += len;
    }
  }
  return out;
}

bool PlausiblyText(std::string_view bytes) {
  if (bytes.size() >= 2 && ((bytes[0] == '\xFF' && bytes[1] == '\xFE') ||
                            (bytes[0] == '\xFE' && bytes[1] == '\xFF'))) {
    return bytes.size() % 2 == 0;
  }
  size_t controls = 0;
  for (char c : bytes) {
    auto u = static_cast<unsigned char>(c);
    if (u == 0) return false;
    if (u < 0x20 && u != '\t' && u != '\n' && u != '\r' && u != '\f' && u != 0x1B) ++controls;
  }
  return controls * 100 <= bytes.size();  // ≤ 1% control bytes
}

Utf8Text ToUtf8(std::string_view bytes) {
  Utf8Text result;
  if (bytes.substr(0, 3) == "\xEF\xBB\xBF") bytes.remove_prefix(3);
  if (IsValidUtf8(bytes)) {
    result.text = std::string(bytes);
    return result;
  }
  const char* bom_charset = nullptr;
  if (bytes.substr(0, 2) == "\xFF\xFE") bom_charset = "UTF-16LE";
  if (bytes.substr(0, 2) == "\xFE\xFF") bom_charset = "UTF-16BE";
  if (bom_charset != nullptr) {
    std::string decoded = Convert(bytes.substr(2), bom_charset);
    if (!decoded.empty()) {
      result.text = IsValidUtf8(decoded) ? std::move(decoded) : RepairUtf8(decoded);
      result.charset = bom_charset;
      return result;
    }
  }
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<UCharsetDetector, void (*)(UCharsetDetector*)> detector(ucsdet_open(&status),
                                                                         ucsdet_close);
  if (U_SUCCESS(status)) {
    ucsdet_enableInputFilter(detector.get(), true);  // ignore markup when guessing
    ucsdet_setText(detector.get(), bytes.data(), static_cast<int32_t>(bytes.size()), &status);
    const UCharsetMatch* match = ucsdet_detect(detector.get(), &status);
    if (U_SUCCESS(status) && match != nullptr) {
      const char* name = ucsdet_getName(match, &status);
      int32_t confidence = ucsdet_getConfidence(match, &status);
      if (U_SUCCESS(status) && name != nullptr && confidence >= kMinConfidence &&
          std::string_view(name) != "UTF-8") {
        std::string decoded = Convert(bytes, name);
        if (!decoded.empty()) {
          result.text = IsValidUtf8(decoded) ? std::move(decoded) : RepairUtf8(decoded);
          result.charset = name;
          return result;
        }
      }
    }
  }
  result.text = RepairUtf8(bytes);
  result.repaired = true;
  return result;
}

}  // namespace skald
