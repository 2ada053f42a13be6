// libFuzzer target for the tokenizer (src/text), which sees every byte users
// ingest: arbitrary bytes, invalid UTF-8 included, must never crash, and
// every token must be well formed.
//
// Built as tokenizer_fuzz (clang, SKALD_BUILD_FUZZ=ON) and tokenizer_fuzz_replay
// (any compiler, with replay_main.cc; the corpus is a ctest).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "text/tokenizer.h"

namespace {

[[noreturn]] void Fail(const char* what, size_t size) {
  std::fprintf(stderr, "tokenizer_fuzz invariant violated: %s (input of %zu bytes)\n", what, size);
  std::abort();
}

const skald::Tokenizer& Default() {
  static const std::unique_ptr<skald::Tokenizer> tokenizer =
      std::move(skald::NewIcuTokenizer()).value();
  return *tokenizer;
}

const skald::Tokenizer& Plain() {
  static const std::unique_ptr<skald::Tokenizer> tokenizer = [] {
    skald::TokenizerOptions options;
    options.stem_english = false;
    options.remove_stop_words = false;
    return std::move(skald::NewIcuTokenizer(options)).value();
  }();
  return *tokenizer;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const skald::Tokenizer* tokenizer : {&Default(), &Plain()}) {
    std::vector<skald::Token> tokens;
    tokenizer->Tokenize(text, &tokens);
    uint32_t last_begin = 0;
    for (const skald::Token& t : tokens) {
      if (t.term.empty()) Fail("empty term", size);
      if (!skald::IsValidUtf8(t.term)) Fail("term is not valid UTF-8", size);
      if (t.term.size() > skald::Tokenizer::kMaxTermBytes) Fail("term longer than kMaxTermBytes", size);
      if (t.begin > t.end || t.end > size) Fail("token offsets outside the input", size);
      if (t.begin < last_begin) Fail("tokens out of order", size);
      last_begin = t.begin;
    }
  }
  return 0;
}
