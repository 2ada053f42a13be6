#pragma once

// TermList: the terms of one text, in order, as a Tokenizer's ForEachTerm
// gave them, kept to be given again to other sinks without tokenizing the
// text again (an import tokenizes a file's text once, for its vector and
// for its lexical postings). It names the tokenizer that made it: a reader
// with another tokenizer tokenizes the text itself.
//
// Thread safety: filled by one thread; after that, const use is safe from
// any thread.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/tokenizer.h"

namespace skald {

class TermList final : public TermSink {
 public:
  // The terms, by the tokenizer named `tokenizer_name`, of a text of
  // `text_bytes` bytes; room is made for them as prose has them (about as
  // many bytes, a word every six bytes or so), so that filling the list
  // seldom regrows it.
  TermList(std::string tokenizer_name, size_t text_bytes)
      : tokenizer_name_(std::move(tokenizer_name)), text_bytes_(text_bytes) {
    bytes_.reserve(text_bytes);
    ends_.reserve(text_bytes / 6 + 1);
  }

  // Tokenizer::Name() of the tokenizer whose terms these are.
  const std::string& tokenizer_name() const { return tokenizer_name_; }

  // The size of the text the terms are of: a reader checks it against the
  // text it has before it takes the terms.
  size_t text_bytes() const { return text_bytes_; }

  void Term(std::string_view term) override {
    bytes_.append(term);
    ends_.push_back(static_cast<uint32_t>(bytes_.size()));
  }

  size_t size() const { return ends_.size(); }

  // Gives `sink` every term, in order.
  void Replay(TermSink* sink) const {
    uint32_t begin = 0;
    for (uint32_t end : ends_) {
      sink->Term(std::string_view(bytes_).substr(begin, end - begin));
      begin = end;
    }
  }

 private:
  std::string tokenizer_name_;
  size_t text_bytes_;
  std::string bytes_;           // the terms, one after another
  std::vector<uint32_t> ends_;  // where each ends in bytes_ (input < 1 GiB)
};

}  // namespace skald
