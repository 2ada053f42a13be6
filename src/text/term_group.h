#pragma once

// The term bookkeeping behind keyphrases.h and directory_terms.h (internal
// to skald_text): TermScanner finds the distinct terms of one text (what
// ExtractTerms returns), TermGroup gathers the terms of a group of texts (a
// directory's entries) once, for both the keyphrase ranking and the
// directory words. Spellings are kept in arenas, not one std::string each,
// and each term's hash is kept beside it, so that the document frequencies
// of a group's terms are looked up in the background in one batch
// (TermStatistics::DocumentFrequencies) whose cache misses overlap.
//
// Thread safety: value types (no internal locking).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "text/flat_string_map.h"
#include "text/keyphrases.h"
#include "text/term_list.h"
#include "text/tokenizer.h"

namespace skald {

// A directory entry's terms, scanned ahead of its directory's overview
// (ScanFileEntry, summarizer.h): per term of the entry's text (its name and
// summary, as DirectoryTopicsOf scans it), in order of first occurrence,
// its key, shown spelling, count and whether the entry's lead holds it.
// Sixteen bytes a term, the spelling stored only when it differs from the
// key: a directory's entries are held until it is summarized (for 5,000
// small files, ~1.8 million terms).
struct EntryTerms {
  // display_size when the shown spelling is the key itself.
  static constexpr uint16_t kSameAsKey = 0xFFFF;
  struct Term {
    uint32_t key_begin;      // in `bytes`; the spelling (if any) follows the key
    uint16_t key_size;       // at most Tokenizer::kMaxTermBytes * 2 + 1
    uint16_t display_size;   // or kSameAsKey
    uint32_t count;
    bool in_lead;
  };
  std::string bytes;
  std::vector<Term> terms;

  std::string_view Key(const Term& t) const {
    return std::string_view(bytes).substr(t.key_begin, t.key_size);
  }
  std::string_view Display(const Term& t) const {
    if (t.display_size == kSameAsKey) return Key(t);
    return std::string_view(bytes).substr(t.key_begin + t.key_size, t.display_size);
  }
};
static_assert(sizeof(EntryTerms::Term) == 16);
// A bigram's key: two terms of at most kMaxTermBytes. (A spelling has no
// such bound, a word's surface being any number of ignorable characters
// long: ScanFileEntry shows the key for one of kSameAsKey bytes or more.)
static_assert(Tokenizer::kMaxTermBytes * 2 + 1 < EntryTerms::kSameAsKey);

// The distinct terms of one text (ExtractTerms: unigrams and bigrams of
// salient words), in order of first occurrence, with their counts and,
// when asked for, their spellings.
class TermScanner {
 public:
  // Scans `text` (forgetting the previous text); with `spellings`, the
  // spelling of each occurrence is kept too. No term when the tokenizer
  // cannot be loaded. A term occurring at or after byte `mark` (a token
  // starting there or later) is AfterMark; one with an occurrence that ends
  // by byte `lead_end` (its last token ending there or before) is InLead.
  void Scan(std::string_view text, bool spellings, size_t mark = std::string_view::npos,
            size_t lead_end = 0);

  size_t size() const { return terms_.size(); }
  std::string_view Key(size_t term) const { return terms_.Key(term); }
  uint64_t HashAt(size_t term) const { return terms_.HashAt(term); }
  uint32_t Count(size_t term) const { return terms_.Value(term).count; }
  bool AfterMark(size_t term) const { return terms_.Value(term).after_mark; }
  bool InLead(size_t term) const { return terms_.Value(term).in_lead; }
  // Whether `key` (with hash FlatStringMap<>::Hash(key)) is a term of the text.
  bool Contains(std::string_view key, uint64_t hash) const {
    return terms_.Find(key, hash) != nullptr;
  }
  // The terms of every token of the text starting at or after byte `mark`,
  // in order: what the tokenizer's ForEachTerm gives for the text from
  // `mark` on (their TermList's text_bytes), when the text before it ends
  // in a separator. Null when the tokenizer cannot be loaded.
  std::shared_ptr<TermList> TermsFrom(size_t mark) const;
  // The spelling shown for a term (ExtractTerms' `display`): the one used
  // most; ties go to a lower-case one, then to the smallest. "" without
  // spellings.
  std::string_view Display(size_t term) const;

 private:
  struct Term {
    uint32_t count = 0;
    uint32_t first_form = 0;  // 1 + index into forms_ (0: none), then by `next`
    uint32_t last_form = 0;
    bool after_mark = false;
    bool in_lead = false;
  };
  struct Form {
    size_t offset;  // in form_bytes_
    size_t size;
    uint32_t count;
    uint32_t next;  // 1 + index of the term's next spelling; 0: last
  };
  void Add(std::string_view key, uint32_t times, bool spellings, bool after_mark, bool in_lead);

  FlatStringMap<Term> terms_;
  std::vector<Form> forms_;
  std::string form_bytes_;
  std::vector<Token> tokens_;
  size_t scanned_bytes_ = 0;  // of the text last scanned
  std::vector<char> salient_;
  std::string key_, form_;
};

// The terms of a group of texts (text 0, 1, ... in the order added): per
// term its occurrences, the texts holding it and its spellings (each text's
// Display with the text's count, merged), and per text its terms.
class TermGroup {
 public:
  // One text's term in the group.
  struct TextTermRef {
    uint32_t term;   // index in the group
    uint32_t count;  // occurrences in the text
    bool in_lead;    // MarkLead found it in the text's lead
  };

  // Adds the terms of `scan` (scanned with spellings) as the next text.
  void AddText(const TermScanner& scan);
  // Adds `terms` (ExtractTerms of a text) as the next text.
  void AddText(std::span<const TextTerm> terms);
  // Adds an entry scanned ahead (ScanFileEntry) as the next text, its
  // lead marked: the same as AddText and MarkLead of its scans.
  void AddEntry(const EntryTerms& entry);
  // Room for `texts` more texts holding `term_refs` terms in all (counting
  // a term once per text), so that adding them moves no array.
  void Reserve(size_t texts, size_t term_refs);
  // Marks the terms of the last text added that `lead` (a scan of the
  // text's lead) holds.
  void MarkLead(const TermScanner& lead);
  // The same with the lead's terms given (ExtractTerms of the lead).
  void MarkLead(std::span<const TextTerm> lead);

  size_t texts() const { return text_ends_.size(); }
  size_t size() const { return terms_.size(); }
  std::string_view Key(size_t term) const { return terms_.Key(term); }
  uint64_t HashAt(size_t term) const { return terms_.HashAt(term); }
  // A single word, not a bigram.
  bool IsWord(size_t term) const { return terms_.Value(term).word; }
  uint32_t Count(size_t term) const { return terms_.Value(term).count; }
  // How many texts hold the term.
  size_t Held(size_t term) const { return terms_.Value(term).held; }
  // The texts holding the term, increasing.
  std::vector<size_t> Sources(size_t term) const;
  // The keyphrase spelling (RankKeyphrases): the most used; ties go to a
  // lower-case one, then to the smallest.
  std::string_view KeyphraseSpelling(size_t term) const;
  // The word spelling (RankDirectoryWords): the most used; ties go to the
  // smallest.
  std::string_view WordSpelling(size_t term) const;
  // The terms of text `text`, in its order of first occurrence.
  std::span<const TextTermRef> TermsOf(size_t text) const {
    size_t begin = text == 0 ? 0 : text_ends_[text - 1];
    return std::span<const TextTermRef>(refs_).subspan(begin, text_ends_[text] - begin);
  }

  // Every term's document frequency in `background`, by term index.
  std::vector<uint32_t> DocumentFrequencies(const TermStatistics& background) const;

 private:
  // KeyphraseSpelling (prefer_lower) and WordSpelling: the form BestSpelling picks.
  std::string_view Spelling(size_t term, bool prefer_lower) const;
  struct Term {
    uint32_t count = 0;
    uint32_t held = 0;
    bool word = false;
    uint32_t first_form = 0;  // 1 + index into forms_, then by `next`
    uint32_t last_form = 0;
    uint32_t first_source = 0;  // 1 + index into sources_, then by `next`
    uint32_t last_source = 0;
  };
  struct Form {
    size_t offset;  // in form_bytes_
    size_t size;
    uint32_t count;
    uint32_t next;
  };
  struct Source {
    uint32_t text;
    uint32_t next;
  };
  void Add(std::string_view key, uint64_t hash, std::string_view display, uint32_t count);
  std::string_view FormText(const Form& f) const {
    return std::string_view(form_bytes_).substr(f.offset, f.size);
  }

  FlatStringMap<Term> terms_;
  std::vector<Form> forms_;
  std::string form_bytes_;
  std::vector<Source> sources_;
  std::vector<TextTermRef> refs_;
  std::vector<size_t> text_ends_;  // end of each text's refs in refs_
};

// RankKeyphrases over the texts of `group` (every term's document
// frequency in `df` when `df` is not empty; REQUIRES: then background is
// not null and df.size() == group.size()).
std::vector<Keyphrase> RankGroupKeyphrases(const TermGroup& group,
                                           const TermStatistics* background,
                                           std::span<const uint32_t> df, size_t limit);

}  // namespace skald
