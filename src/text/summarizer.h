#pragma once

// Summarizer: the per-file summaries and per-directory overviews (L1) that
// ingestion writes as sidecars, and the helpers every implementation shares:
// the L0 abstract rule, the truncation rule and the deterministic sample of a
// directory's entries (reference/openviking-internals.md §2.2–2.4).
//
// The built-in implementation (NewExtractiveSummarizer) needs no model: it
// picks sentences from the text. An LLM-backed summarizer plugs in behind the
// same interface.
//
// Units: every length and limit here is in characters, meaning Unicode code
// points; a byte that is not part of a well-formed UTF-8 sequence counts as
// one character. Cuts never fall inside a well-formed UTF-8 sequence.
//
// Thread safety: the free functions are pure; Summarizer implementations are
// safe for concurrent use.

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"
#include "text/keyphrases.h"

namespace skald {

// Upper bound on the length of a file summary (SummarizeFile).
inline constexpr size_t kFileSummaryMaxChars = 1200;
// Upper bound on the length of a directory overview body (L1).
inline constexpr size_t kOverviewMaxChars = 4000;
// Upper bound on the length of a directory abstract body (L0).
inline constexpr size_t kAbstractMaxChars = 256;
// How many of a directory's entries an overview describes at most.
inline constexpr size_t kOverviewSampleLimit = 32;

// One entry of a directory, as given to Summarizer::Overview.
struct EntrySummary {
  std::string name;     // file or directory name, without a trailing '/'
  bool is_dir = false;  // a sub-directory: `summary` is its L0 abstract
  std::string summary;  // file summary or sub-directory abstract; may be empty
};

struct EntryTerms;  // text/term_group.h
class TermList;     // text/term_list.h

// A file's summary scanned once, when the file is summarized, for both
// uses of its terms: the keys a TermStatistics background counts
// (TermStatistics::KeysOf of the summary, in another order) and the
// entry's terms as the extractive overview of its directory groups them
// (OverviewContext::all_entry_terms). `bytes`: the memory `entry` holds.
struct FileEntryScan {
  TermKeys keys;
  std::shared_ptr<const EntryTerms> entry;
  size_t bytes = 0;
  // The summary's terms, as the scan's tokenizer's ForEachTerm gives them
  // for the summary alone (lent on to the lexical index with the file's
  // record); null when not asked for, or when the scan could not tell them
  // apart.
  std::shared_ptr<const TermList> summary_terms;
};
// ScanFileEntry of file `name` (as EntrySummary::name) summarized as
// `summary`; FileEntryScan::summary_terms too when `with_summary_terms`.
FileEntryScan ScanFileEntry(std::string_view name, std::string_view summary,
                            bool with_summary_terms = false);

// What an overview may draw on besides the described entries.
struct OverviewContext {
  // Every entry of the directory (the described ones among them): what the
  // directory is about is judged over all of them. Empty: the described
  // entries only.
  std::span<const EntrySummary> all_entries;
  // Optional, aligned with all_entries: entry i scanned ahead
  // (FileEntryScan::entry of its name and summary), or null. Only read by
  // summarizers whose ScansEntries() is true.
  std::span<const EntryTerms* const> all_entry_terms;
  // Document frequencies over the files being indexed, against which the
  // directory's salient terms are ranked; null (or fewer documents than
  // entries): the entries are ranked against each other.
  const TermStatistics* background = nullptr;
};

// Thread safety: implementations are safe for concurrent use.
class Summarizer {
 public:
  virtual ~Summarizer() = default;

  // Stable identity stored in sidecar frontmatter (`generated_by`); it
  // changes whenever the output for the same input could change.
  virtual std::string Name() const = 0;

  // Whether Overview reads OverviewContext::all_entry_terms (so that a
  // caller scans its files' summaries ahead with ScanFileEntry).
  virtual bool ScansEntries() const { return false; }

  // Short plain-text summary of one file (about 60–180 words, at most
  // kFileSummaryMaxChars characters). `name` is the file name (its extension
  // selects document or code handling); `text` is its content. An empty or
  // blank file gives an empty summary.
  virtual Result<std::string> SummarizeFile(std::string_view name, std::string_view text) = 0;

  // L1 overview markdown of directory `dir_name`, at most kOverviewMaxChars
  // characters: `# {dir_name}`, a brief description paragraph saying what
  // the directory is about (the source of the L0, see AbstractFromOverview),
  // then `## ` sections, among them `## Directory Coverage` and
  // `## Detailed Description` with one `### name` (`### name/` for
  // directories) per described entry. `entries` are the described entries
  // (usually the DeterministicSample of the directory listing sorted by
  // name); `total_entries` is how many the directory holds; `context` adds
  // what the whole directory and the indexed tree look like.
  // Returns InvalidArgument when total_entries < entries.size().
  virtual Result<std::string> Overview(std::string_view dir_name,
                                       std::span<const EntrySummary> entries,
                                       size_t total_entries, const OverviewContext& context) = 0;
  // The same with no context.
  Result<std::string> Overview(std::string_view dir_name, std::span<const EntrySummary> entries,
                               size_t total_entries) {
    return Overview(dir_name, entries, total_entries, OverviewContext{});
  }
};

// The extractive summarizer (no model). Name() is "extractive:v3".
// File summaries: the first heading as a title plus the leading sentences of
// the body (frontmatter, code blocks, tables, HTML, image and link-only lines
// skipped, markup removed, white space collapsed); a document without a
// title is introduced by its most frequent keyphrases ("On a, b and c: ...").
// Code files (by extension: .py .js .ts .go .rs .java .cc .h .cpp ...) are
// summarized from their leading comment or docstring plus the names of their
// top-level definitions.
// Overviews: the brief description (the L0) names the directory's salient
// keyphrases (keyphrases.h, ranked over every entry against the context's
// background); then the sections of directory_terms.h: `## Topics` lists
// further salient single words and `## Where to Look` maps the 5 leading
// keyphrases to the entries that hold them. When every entry is described
// and its whole summary fits beside them, the entries follow in full (the
// topics shortened to the room left). Otherwise (a sampled or a long
// listing) `## Entry Keywords` adds each entry's own distinctive words, so
// that every entry of the directory, described or not, can be found by a
// keyword, and the described entries' summaries are shortened evenly to
// what is left (to their key terms, or to their names). Without any
// keyphrase (no summaries, or text the tokenizer finds no words in) the
// brief falls back to the entries' leading sentences, or their names.
std::unique_ptr<Summarizer> NewExtractiveSummarizer();

// The L0 abstract of an overview: the non-blank lines after the first H1
// and before the first heading of level 2 or deeper (the brief
// description), trimmed, joined by '\n' and cut by TruncateGeneratedText to
// `max_chars`. When that is empty, the first non-heading line of the
// overview, else the H1 title.
std::string AbstractFromOverview(std::string_view overview, size_t max_chars = kAbstractMaxChars);

// `text` shortened to at most `max_chars` characters: unchanged if it fits;
// else cut after the last sentence end within the limit (`.`, `!` or `?`
// followed by white space or the end of the text, or one of `。？！`; a `.`
// after a number, a single letter or a dotted abbreviation, as in "3.",
// "J." or "e.g.", ends no sentence); else cut
// at the last white space with "..." appended; else cut between characters
// with "..." appended. The result never exceeds `max_chars` ("..." included).
std::string TruncateGeneratedText(std::string_view text, size_t max_chars);

// Indices of the entries to describe among `n` entries sorted by name:
// all of them when n ≤ limit, else i*(n-1)/(limit-1) for i in 0..limit-1
// (first and last always included, increasing, stable). Empty when limit is 0;
// {0} when limit is 1 and n > 1.
std::vector<size_t> DeterministicSample(size_t n, size_t limit = kOverviewSampleLimit);

}  // namespace skald
