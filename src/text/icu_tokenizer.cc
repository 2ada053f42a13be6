// The ICU + Snowball tokenizer (see tokenizer.h).
//
// Per thread it keeps one word BreakIterator, one UText and one English
// stemmer (neither is thread-safe); the Normalizer2 singleton and the stop
// set are immutable and shared.

#include <fmt/format.h>
#include <libstemmer.h>
#include <unicode/brkiter.h>
#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>
#include <unicode/uvernum.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <unordered_set>

#include "common/hash.h"
#include "common/strings.h"
#include "text/ascii_words.h"
#include "text/flat_string_map.h"
#include "text/stop_words.h"
#include "text/tokenizer.h"

namespace skald {

namespace {

// Bump when the tokenizer's output changes for the same options and ICU.
constexpr int kTokenizerVersion = 1;

// Per-thread ICU and Snowball state, created on first use in each thread.
struct ThreadScratch {
  std::unique_ptr<icu::BreakIterator> words;
  sb_stemmer* stemmer = nullptr;
  UText text = UTEXT_INITIALIZER;
  // Word -> stem. Word frequencies are Zipfian, so a small cache answers
  // most lookups; Snowball costs about as much as the word break itself.
  FlatStringMap<std::string> stems;
  static constexpr size_t kMaxStems = 32768;
  // Per tokenizer configuration (by Name()): word as written -> its term, or
  // nullopt when the word yields none. A word's term depends on nothing but
  // its bytes and the options, so one lookup replaces the normalization,
  // the stop list and the stemmer for every repeated word.
  struct WordMemo {
    std::string tokenizer;
    FlatStringMap<std::optional<std::string>> terms;
  };
  std::vector<WordMemo> memos;
  static constexpr size_t kMaxMemoWords = 65536;
  static constexpr size_t kMaxMemoWordBytes = 48;
  std::vector<std::pair<uint32_t, uint32_t>> segments;  // of an ASCII text

  FlatStringMap<std::optional<std::string>>& Memo(const std::string& tokenizer) {
    for (WordMemo& m : memos) {
      if (m.tokenizer == tokenizer) return m.terms;
    }
    memos.push_back(WordMemo{tokenizer, {}});
    return memos.back().terms;
  }

  ThreadScratch() {
    UErrorCode status = U_ZERO_ERROR;
    words.reset(icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
    if (U_FAILURE(status)) words.reset();
    stemmer = sb_stemmer_new("english", "UTF_8");
  }
  ~ThreadScratch() {
    utext_close(&text);
    if (stemmer != nullptr) sb_stemmer_delete(stemmer);
  }
  ThreadScratch(const ThreadScratch&) = delete;
  ThreadScratch& operator=(const ThreadScratch&) = delete;

  bool ok() const { return words != nullptr && stemmer != nullptr; }
};

ThreadScratch& Scratch() {
  thread_local ThreadScratch scratch;
  return scratch;
}

bool IsAscii(std::string_view s) {
  // Eight bytes at a time: any high bit set means a non-ASCII byte.
  size_t i = 0;
  uint64_t high = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t chunk;
    std::memcpy(&chunk, s.data() + i, 8);
    high |= chunk;
  }
  for (; i < s.size(); ++i) high |= static_cast<unsigned char>(s[i]);
  return (high & 0x8080808080808080ULL) == 0;
}

// True when `term` has at least one letter and every letter in it is in the
// Latin script (digits, marks and apostrophes are neutral).
bool IsLatinWord(std::string_view term) {
  bool has_letter = false;
  const auto* s = reinterpret_cast<const uint8_t*>(term.data());
  int32_t length = static_cast<int32_t>(term.size());
  for (int32_t i = 0; i < length;) {
    if (s[i] < 0x80) {
      char c = static_cast<char>(s[i++]);
      if (c >= 'a' && c <= 'z') has_letter = true;
      continue;
    }
    UChar32 c;
    U8_NEXT(s, i, length, c);
    if (c < 0 || !u_isalpha(c)) continue;
    UErrorCode status = U_ZERO_ERROR;
    if (uscript_getScript(c, &status) != USCRIPT_LATIN) return false;
    has_letter = true;
  }
  return has_letter;
}

// Snowball's English stemmer knows only the ASCII apostrophe.
void NormalizeApostrophes(std::string* term) {
  static constexpr std::string_view kRightQuote = "\xE2\x80\x99";  // U+2019
  size_t pos;
  while ((pos = term->find(kRightQuote)) != std::string::npos) term->replace(pos, 3, "'");
}

class IcuTokenizer final : public Tokenizer {
 public:
  IcuTokenizer(const TokenizerOptions& options, const icu::Normalizer2* nfkc_cf,
               const std::unordered_set<std::string>& stop_words, std::string name)
      : stem_(options.stem_english),
        remove_stop_words_(options.remove_stop_words),
        nfkc_cf_(nfkc_cf),
        name_(std::move(name)) {
    for (const std::string& word : stop_words) stop_words_.Insert(word);
  }

  std::string Name() const override { return name_; }

  void Tokenize(std::string_view text, std::vector<Token>* out) const override {
    EachTerm(text, [out](std::string_view term, uint32_t begin, uint32_t end) {
      out->push_back(Token{std::string(term), begin, end});
    });
  }

  void ForEachTerm(std::string_view text, TermSink* sink) const override {
    EachTerm(text, [sink](std::string_view term, uint32_t, uint32_t) { sink->Term(term); });
  }

 private:
  // Calls emit(term, begin, end) for every token of `text`, in order; `term`
  // is valid only during the call (it may point into the per-thread memo).
  template <typename Emit>
  void EachTerm(std::string_view text, Emit&& emit) const {
    if (text.size() > kMaxInputBytes) text = text.substr(0, kMaxInputBytes);
    if (text.empty()) return;
    ThreadScratch& scratch = Scratch();
    if (!scratch.ok()) return;  // checked at construction; only a failed allocation gets here
    FlatStringMap<std::optional<std::string>>& memo = scratch.Memo(name_);
    auto add = [&](uint32_t begin, uint32_t end) {
      std::string_view word = text.substr(begin, end - begin);
      if (word.size() > ThreadScratch::kMaxMemoWordBytes) {
        std::optional<std::string> term = Term(word, scratch);
        if (term) emit(std::string_view(*term), begin, end);
        return;
      }
      const std::optional<std::string>* known = memo.Find(word);
      if (known == nullptr) {
        if (memo.size() >= ThreadScratch::kMaxMemoWords) memo.clear();
        std::optional<std::string> term = Term(word, scratch);
        known = &(memo[word] = std::move(term));
      }
      if (*known) emit(std::string_view(**known), begin, end);
    };
    if (IsAscii(text)) {
      // The same segments as ICU's, found without it (ascii_words.h).
      scratch.segments.clear();
      AsciiWordSegments(text, &scratch.segments);
      for (const auto& [begin, end] : scratch.segments) add(begin, end);
      return;
    }
    UErrorCode status = U_ZERO_ERROR;
    // UTF-8 UText: invalid bytes read as U+FFFD, which is not part of any
    // word, so they are skipped and separate words; boundaries are byte offsets.
    utext_openUTF8(&scratch.text, text.data(), static_cast<int64_t>(text.size()), &status);
    scratch.words->setText(&scratch.text, status);
    if (U_FAILURE(status)) return;
    icu::BreakIterator& words = *scratch.words;
    int32_t start = words.first();
    for (int32_t end = words.next(); end != icu::BreakIterator::DONE;
         start = end, end = words.next()) {
      // Word statuses start at UBRK_WORD_NONE_LIMIT: numbers, letters (incl.
      // Thai dictionary words), kana, ideographs.
      if (words.getRuleStatus() < UBRK_WORD_NONE_LIMIT) continue;
      add(static_cast<uint32_t>(start), static_cast<uint32_t>(end));
    }
    // The iterator keeps a pointer to `text`; it is reset before any reuse.
  }

  // The term of one word segment, or nullopt when it yields none.
  std::optional<std::string> Term(std::string_view word, ThreadScratch& scratch) const {
    std::string term;
    if (IsAscii(word)) {
      // NFKC case folding of ASCII is plain lower-casing.
      term.assign(word);
      for (char& c : term) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      }
    } else {
      UErrorCode status = U_ZERO_ERROR;
      icu::StringByteSink<std::string> sink(&term);
      nfkc_cf_->normalizeUTF8(0, icu::StringPiece(word.data(), static_cast<int32_t>(word.size())),
                              sink, nullptr, status);
      if (U_FAILURE(status)) return std::nullopt;
    }
    if (term.empty() || term.size() > kMaxTermBytes) return std::nullopt;
    if (remove_stop_words_ && stop_words_.Find(term) != nullptr) return std::nullopt;
    if (stem_ && IsLatinWord(term)) {
      NormalizeApostrophes(&term);
      Stem(scratch, &term);
      if (term.empty()) return std::nullopt;
    }
    return term;
  }

  static void Stem(ThreadScratch& scratch, std::string* term) {
    if (const std::string* cached = scratch.stems.Find(*term)) {
      *term = *cached;
      return;
    }
    const sb_symbol* stemmed =
        sb_stemmer_stem(scratch.stemmer, reinterpret_cast<const sb_symbol*>(term->data()),
                        static_cast<int>(term->size()));
    if (stemmed == nullptr) return;  // out of memory: keep the word as is
    std::string stem(reinterpret_cast<const char*>(stemmed),
                     static_cast<size_t>(sb_stemmer_length(scratch.stemmer)));
    if (scratch.stems.size() >= ThreadScratch::kMaxStems) scratch.stems.clear();
    scratch.stems[*term] = stem;
    *term = std::move(stem);
  }

  const bool stem_;
  const bool remove_stop_words_;
  const icu::Normalizer2* nfkc_cf_;  // ICU singleton, never freed
  FlatStringMap<char> stop_words_;  // filled once, then only read
  const std::string name_;
};

}  // namespace

Status TokenizerOptions::Validate() const {
  for (const std::string& word : stop_words) {
    if (word.empty()) return Status::InvalidArgument("tokenizer stop word is empty");
    if (!IsValidUtf8(word)) {
      return Status::InvalidArgument("tokenizer stop word is not valid UTF-8");
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<Tokenizer>> NewIcuTokenizer(const TokenizerOptions& options) {
  SKALD_RETURN_IF_ERROR(options.Validate());
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfkc_cf = icu::Normalizer2::getNFKCCasefoldInstance(status);
  if (U_FAILURE(status) || nfkc_cf == nullptr) {
    return Status::Unavailable(fmt::format("ICU nfkc_cf normalizer: {}", u_errorName(status)));
  }
  if (!Scratch().ok()) {
    return Status::Unavailable("ICU word break iterator or Snowball English stemmer unavailable");
  }

  std::unordered_set<std::string> stop_words;
  std::string stop_id = "none";
  if (options.remove_stop_words) {
    if (options.stop_words.empty()) {
      for (std::string_view word : EnglishStopWords()) stop_words.emplace(word);
      stop_id = "en33";
    } else {
      for (const std::string& word : options.stop_words) {
        std::string folded;
        icu::StringByteSink<std::string> sink(&folded);
        status = U_ZERO_ERROR;
        nfkc_cf->normalizeUTF8(0, icu::StringPiece(word.data(), static_cast<int32_t>(word.size())),
                               sink, nullptr, status);
        if (U_FAILURE(status)) {
          return Status::InvalidArgument(
              fmt::format("tokenizer stop word '{}' cannot be normalized", word));
        }
        stop_words.insert(std::move(folded));
      }
      std::vector<std::string> sorted(stop_words.begin(), stop_words.end());
      std::sort(sorted.begin(), sorted.end());
      stop_id = "custom-" + Sha256Hex(Join(sorted, "\n")).substr(0, 12);
    }
  }
  std::string name =
      fmt::format("icu{}-nfkccf{}+stop-{}:v{}", U_ICU_VERSION_MAJOR_NUM,
                  options.stem_english ? "+snowball-en" : "", stop_id, kTokenizerVersion);
  return std::unique_ptr<Tokenizer>(
      std::make_unique<IcuTokenizer>(options, nfkc_cf, stop_words, std::move(name)));
}

}  // namespace skald
