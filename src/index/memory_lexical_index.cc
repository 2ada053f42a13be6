// The memory lexical index (see memory_lexical_index.h).

#include "index/memory_lexical_index.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <cstring>
#include <shared_mutex>

#include "index/index_file.h"
#include "index/lexical_postings.h"
#include "index/lexical_query.h"
#include "index/vector_kernels.h"

namespace skald {

namespace {

constexpr char kMemoryFileKind[] = "skald-lexical-memory";
// Bump on any change to what the snapshot or the log holds.
constexpr uint32_t kMemoryFormatVersion = 1;
constexpr uint32_t kHeadTag = SectionTag("LXHD");
constexpr uint32_t kPartitionTag = SectionTag("LXPT");
constexpr char kLogMagic[8] = {'S', 'K', 'L', 'X', 'L', 'O', 'G', '1'};
constexpr size_t kLogHeaderBytes = sizeof(kLogMagic) + 8;
// A log larger than this is folded into a new snapshot at the next SetAppliedSeq.
constexpr uint64_t kMaxLogBytes = 256ull << 20;
constexpr size_t kMaxTextBytes = 256u << 20;

enum LogEntry : uint8_t { kUpsert = 1, kDelete = 2, kAppliedSeq = 3 };

// The terms FTS5 would match for one query word: the word's own tokens.
std::vector<LexicalPhrase> QueryPhrases(const Tokenizer& tokenizer, std::string_view query) {
  std::vector<LexicalPhrase> phrases;
  for (LexicalQueryTerm& term : ExtractQueryTerms(tokenizer, query)) {
    if (term.single) {
      phrases.push_back({std::move(term.term)});
    } else if (!term.word_terms.empty()) {
      phrases.push_back(std::move(term.word_terms));
    }
  }
  return phrases;
}

// The little-endian fields of ByteBuilder over a byte sink's Put(data, n):
// a log entry is streamed twice (sized and checksummed, then written)
// instead of being built in memory, where the texts of a batch would be
// copied whole, twice.
template <typename Sink>
class FieldSink {
 public:
  void U8(uint8_t v) { Bytes(&v, 1); }
  void U32(uint32_t v) { Bytes(&v, 4); }
  void U64(uint64_t v) { Bytes(&v, 8); }
  void I64(int64_t v) { Bytes(&v, 8); }
  void String(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    Bytes(s.data(), s.size());
  }

 private:
  void Bytes(const void* data, size_t n) { static_cast<Sink*>(this)->Put(data, n); }
};

// The length and CRC-32C of an entry, without its bytes.
class EntryChecksum : public FieldSink<EntryChecksum> {
 public:
  void Put(const void* data, size_t n) {
    crc_ = Crc32c(crc_, data, n);
    size_ += n;
  }
  uint32_t crc() const { return crc_; }
  uint64_t size() const { return size_; }

 private:
  uint32_t crc_ = 0;
  uint64_t size_ = 0;
};

// Writes to the log through a small buffer of fixed capacity (its pages
// are reused, never faulted in anew); a large piece (a file's text) goes to
// the file as it is.
class EntryStream : public FieldSink<EntryStream> {
 public:
  explicit EntryStream(WritableFile* file) : file_(file) { buffer_.reserve(kBufferBytes); }
  void Put(const void* data, size_t n) {
    if (!status_.ok()) return;
    if (buffer_.size() + n > kBufferBytes) Flush();
    if (n >= kBufferBytes) {
      if (status_.ok()) status_ = file_->Append(std::string_view(static_cast<const char*>(data), n));
      return;
    }
    buffer_.append(static_cast<const char*>(data), n);
  }
  // Writes what is buffered; the first error of any write.
  Status Finish() {
    Flush();
    return status_;
  }

 private:
  static constexpr size_t kBufferBytes = 64 << 10;
  void Flush() {
    if (status_.ok() && !buffer_.empty()) status_ = file_->Append(buffer_);
    buffer_.clear();
  }
  WritableFile* const file_;
  std::string buffer_;
  Status status_;
};

template <typename Out>
void PutRecord(Out* b, const RecordFields& r, const LexicalText& text) {
  b->U64(r.key);
  b->String(r.account);
  b->String(r.uri);
  b->U8(static_cast<uint8_t>(std::clamp(r.level, 0, 255)));
  b->U8(static_cast<uint8_t>(r.context_type));
  b->String(r.owner);
  b->U32(static_cast<uint32_t>(r.tags.size()));
  for (const std::string& tag : r.tags) b->String(tag);
  b->I64(r.created_ns);
  b->I64(r.updated_ns);
  b->String(text.title);
  b->String(text.abstract);
  b->String(text.body);
}

// An upsert log entry.
template <typename Out>
void PutUpsert(Out* b, std::span<const RecordFields> records, std::span<const LexicalText> texts) {
  b->U8(kUpsert);
  b->U32(static_cast<uint32_t>(records.size()));
  for (size_t i = 0; i < records.size(); ++i) PutRecord(b, records[i], texts[i]);
}

class MemoryLexicalIndex final : public LexicalIndex {
 public:
  MemoryLexicalIndex(const LexicalIndexOptions& options, std::unique_ptr<Tokenizer> owned)
      : options_(options),
        env_(EnvOrDefault(options.env)),
        owned_tokenizer_(std::move(owned)),
        tokenizer_(options.tokenizer != nullptr ? options.tokenizer : owned_tokenizer_.get()),
        tokenizer_name_(tokenizer_->Name()),
        log_path_(options.path + ".log") {
    params_.k1 = options.k1;
    params_.b = options.b;
    params_.weights = {options.title_weight, options.abstract_weight, options.body_weight};
  }
  ~MemoryLexicalIndex() override {
    std::unique_lock lock(mu_);
    if (log_bytes_ > kLogHeaderBytes) {
      Status saved = WriteSnapshot();
      if (!saved.ok()) spdlog::warn("lexical index: snapshot at close failed: {}", saved.ToString());
    }
  }

  Status Init();

  std::string_view Kind() const override { return "memory"; }
  const std::string& tokenizer_name() const override { return tokenizer_name_; }
  Status Upsert(std::span<const RecordFields> records,
                std::span<const LexicalText> texts) override;
  Result<uint64_t> Delete(std::span<const uint64_t> ids) override;
  Status Search(std::string_view query, const RecordFilter& filter, int k,
                std::vector<SearchHit>* hits) const override;
  Result<uint64_t> Count(const RecordFilter& filter) const override;
  bool Describe(std::string_view account, std::span<const uint64_t> ids,
                std::vector<RecordFields>* out) const override;
  int64_t applied_seq() const override { return applied_seq_.load(); }
  Status SetAppliedSeq(int64_t seq) override;
  bool was_reset() const override { return was_reset_; }
  Status Optimize() override {
    std::unique_lock lock(mu_);
    return WriteSnapshot();
  }
  Status Checkpoint() override {
    std::unique_lock lock(mu_);
    return log_bytes_ > kLogHeaderBytes ? WriteSnapshot() : Status::Ok();
  }

 private:
  // Counts the terms of `text` as the next document of `batch`.
  void CountTerms(const LexicalText& text, LexicalTermBatch* batch) const;
  // REQUIRES: mu_ held exclusively.
  void ApplyUpsert(const RecordFields& r, LexicalTermBatch* batch, size_t doc);
  bool ApplyDelete(uint64_t id);
  // Appends one entry of `size` bytes with CRC-32C `crc`, framed, that
  // write(stream) puts. REQUIRES: mu_ held exclusively.
  template <typename Write>
  Status AppendLog(uint64_t size, uint32_t crc, Write&& write);
  Status AppendLog(const ByteBuilder& entry);
  Status WriteSnapshot();
  // Truncates the log to its header for `generation`.
  Status StartLog(uint64_t generation);
  // Snapshot and log into memory: false when the snapshot is unusable.
  Result<bool> Load();
  uint64_t ReplayLog();
  Status ReplayEntry(std::string_view payload);

  const LexicalIndexOptions options_;
  Env* const env_;
  const std::unique_ptr<Tokenizer> owned_tokenizer_;
  const Tokenizer* const tokenizer_;
  const std::string tokenizer_name_;
  const std::string log_path_;
  Bm25Params params_;
  bool was_reset_ = false;
  std::atomic<int64_t> applied_seq_{0};

  mutable std::shared_mutex mu_;
  std::map<std::string, LexicalPartition, std::less<>> partitions_;  // by account; guarded by mu_
  // Live key -> its partition (an element of partitions_, which are never
  // erased but by Init); guarded.
  std::unordered_map<uint64_t, LexicalPartition*> partition_of_;
  uint64_t generation_ = 0;                   // of the snapshot and the log; guarded
  std::unique_ptr<WritableFile> log_;         // guarded
  uint64_t log_bytes_ = 0;                    // guarded
};

bool GetRecord(ByteCursor* in, RecordFields* r, LexicalText* text) {
  std::string_view s;
  uint8_t level = 0, type = 0;
  uint32_t tags = 0;
  auto str = [&](std::string* out) {
    if (!in->String(&s, kMaxTextBytes)) return false;
    *out = std::string(s);
    return true;
  };
  if (!in->U64(&r->key) || !str(&r->account) || !str(&r->uri) || !in->U8(&level) ||
      !in->U8(&type) || !str(&r->owner) || !in->U32(&tags) || tags > in->remaining()) {
    return false;
  }
  if (type > static_cast<uint8_t>(ContextType::kSkill)) return false;
  r->level = level;
  r->context_type = static_cast<ContextType>(type);
  r->tags.resize(tags);
  for (std::string& tag : r->tags) {
    if (!str(&tag)) return false;
  }
  return in->I64(&r->created_ns) && in->I64(&r->updated_ns) && str(&text->title) &&
         str(&text->abstract) && str(&text->body);
}

void MemoryLexicalIndex::CountTerms(const LexicalText& text, LexicalTermBatch* batch) const {
  batch->BeginDocument();
  const std::string* fields[kLexicalFields] = {&text.title, &text.abstract, &text.body};
  const TermList* given[kLexicalFields] = {nullptr, text.abstract_terms.get(),
                                           text.body_terms.get()};
  for (int c = 0; c < kLexicalFields; ++c) {
    batch->BeginField(c);
    if (given[c] != nullptr && given[c]->tokenizer_name() == tokenizer_name_ &&
        given[c]->text_bytes() == fields[c]->size()) {
      given[c]->Replay(batch);  // the same terms, tokenized once
    } else {
      tokenizer_->ForEachTerm(*fields[c], batch);
    }
  }
  batch->EndDocument();
}

void MemoryLexicalIndex::ApplyUpsert(const RecordFields& r, LexicalTermBatch* batch, size_t doc) {
  ApplyDelete(r.key);
  LexicalPartition& part = partitions_[r.account];
  part.Add(r, batch, doc);
  partition_of_[r.key] = &part;
}

bool MemoryLexicalIndex::ApplyDelete(uint64_t id) {
  auto it = partition_of_.find(id);
  if (it == partition_of_.end()) return false;
  LexicalPartition& part = *it->second;
  partition_of_.erase(it);
  part.Remove(id);
  if (part.NeedsCompaction()) part.Compact();
  return true;
}

template <typename Write>
Status MemoryLexicalIndex::AppendLog(uint64_t size, uint32_t crc, Write&& write) {
  // No log (the disk was full at open or at the last snapshot): a snapshot
  // of what is in memory starts one.
  if (!log_) SKALD_RETURN_IF_ERROR(WriteSnapshot());
  EntryStream stream(log_.get());
  stream.U32(static_cast<uint32_t>(size));
  stream.U32(crc);
  write(&stream);
  SKALD_RETURN_IF_ERROR(stream.Finish());
  if (options_.sync) SKALD_RETURN_IF_ERROR(log_->Sync());
  log_bytes_ += 8 + size;
  return Status::Ok();
}

Status MemoryLexicalIndex::AppendLog(const ByteBuilder& entry) {
  const std::string& bytes = entry.bytes();
  return AppendLog(bytes.size(), Crc32c(0, bytes.data(), bytes.size()),
                   [&](EntryStream* stream) { stream->Put(bytes.data(), bytes.size()); });
}

Status MemoryLexicalIndex::Upsert(std::span<const RecordFields> records,
                                  std::span<const LexicalText> texts) {
  SKALD_RETURN_IF_ERROR(CheckUpsertArguments(records, texts));
  if (records.empty()) return Status::Ok();
  // Outside the lock: the tokenizing (most of the cost) and the log
  // entry's checksum.
  LexicalTermBatch batch;
  for (const LexicalText& text : texts) CountTerms(text, &batch);
  EntryChecksum checksum;
  PutUpsert(&checksum, records, texts);
  std::unique_lock lock(mu_);
  SKALD_RETURN_IF_ERROR(AppendLog(checksum.size(), checksum.crc(), [&](EntryStream* stream) {
    PutUpsert(stream, records, texts);
  }));
  for (size_t i = 0; i < records.size(); ++i) ApplyUpsert(records[i], &batch, i);
  return Status::Ok();
}

Result<uint64_t> MemoryLexicalIndex::Delete(std::span<const uint64_t> ids) {
  if (ids.empty()) return uint64_t{0};
  ByteBuilder entry;
  entry.U8(kDelete);
  entry.U32(static_cast<uint32_t>(ids.size()));
  for (uint64_t id : ids) entry.U64(id);
  std::unique_lock lock(mu_);
  SKALD_RETURN_IF_ERROR(AppendLog(entry));
  uint64_t removed = 0;
  for (uint64_t id : ids) removed += ApplyDelete(id) ? 1 : 0;
  return removed;
}

Status MemoryLexicalIndex::SetAppliedSeq(int64_t seq) {
  ByteBuilder entry;
  entry.U8(kAppliedSeq);
  entry.I64(seq);
  std::unique_lock lock(mu_);
  SKALD_RETURN_IF_ERROR(AppendLog(entry));
  applied_seq_ = seq;
  if (log_bytes_ > kMaxLogBytes) return WriteSnapshot();
  return Status::Ok();
}

Status MemoryLexicalIndex::Search(std::string_view query, const RecordFilter& filter, int k,
                                  std::vector<SearchHit>* hits) const {
  hits->clear();
  SKALD_RETURN_IF_ERROR(CheckSearchArguments(filter, k));
  const std::vector<LexicalPhrase> phrases = QueryPhrases(*tokenizer_, query);
  if (phrases.empty()) return Status::Ok();
  std::shared_lock lock(mu_);
  if (!filter.account.empty()) {
    auto it = partitions_.find(filter.account);
    if (it != partitions_.end()) it->second.Search(phrases, filter, params_, k, hits);
    return Status::Ok();
  }
  // Every account, each ranked with its own statistics.
  for (const auto& [account, part] : partitions_) part.Search(phrases, filter, params_, k, hits);
  std::sort(hits->begin(), hits->end(), [](const SearchHit& a, const SearchHit& b) {
    return a.score != b.score ? a.score > b.score : a.id < b.id;
  });
  if (hits->size() > static_cast<size_t>(k)) hits->resize(static_cast<size_t>(k));
  return Status::Ok();
}

bool MemoryLexicalIndex::Describe(std::string_view account, std::span<const uint64_t> ids,
                                  std::vector<RecordFields>* out) const {
  std::shared_lock lock(mu_);
  auto part = partitions_.find(account);
  if (part == partitions_.end()) return true;
  for (uint64_t id : ids) {
    const RecordFields* fields = part->second.Fields(id);
    if (fields == nullptr) continue;
    out->push_back(*fields);
    out->back().account = part->first;
  }
  return true;
}

Result<uint64_t> MemoryLexicalIndex::Count(const RecordFilter& filter) const {
  SKALD_RETURN_IF_ERROR(filter.Validate());
  std::shared_lock lock(mu_);
  uint64_t n = 0;
  for (const auto& [account, part] : partitions_) {
    if (filter.account.empty() || filter.account == account) n += part.Count(filter);
  }
  return n;
}

Status MemoryLexicalIndex::WriteSnapshot() {
  const uint64_t generation = generation_ + 1;
  SKALD_ASSIGN_OR_RETURN(std::unique_ptr<FileWriter> file,
                         FileWriter::Create(options_.path, env_));
  file->BeginSection(kHeadTag);
  ByteBuilder head;
  head.String(kMemoryFileKind);
  head.U32(kMemoryFormatVersion);
  head.String(tokenizer_name_);
  head.I64(applied_seq_.load());
  head.U64(generation);
  head.U32(static_cast<uint32_t>(partitions_.size()));
  file->PutBytes(head.bytes().data(), head.bytes().size());
  SKALD_RETURN_IF_ERROR(file->EndSection());
  for (auto& [account, part] : partitions_) {
    if (part.NeedsCompaction()) part.Compact();
    file->BeginSection(kPartitionTag);
    file->PutString(account);
    part.Save(file.get());
    SKALD_RETURN_IF_ERROR(file->EndSection());
  }
  SKALD_RETURN_IF_ERROR(file->Commit());
  // The snapshot holds everything: a new, empty log of its generation. A
  // crash before the new log exists leaves the old one, whose generation
  // no longer matches: it is ignored.
  generation_ = generation;
  return StartLog(generation);
}

Status MemoryLexicalIndex::StartLog(uint64_t generation) {
  log_.reset();  // until the new one has its header
  log_bytes_ = 0;
  SKALD_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, env_->NewWritableFile(log_path_));
  ByteBuilder header;
  header.Raw(kLogMagic, sizeof(kLogMagic));
  header.U64(generation);
  SKALD_RETURN_IF_ERROR(file->Append(header.bytes()));
  SKALD_RETURN_IF_ERROR(file->Sync());
  const std::string dir = std::filesystem::path(options_.path).parent_path().string();
  SKALD_RETURN_IF_ERROR(env_->SyncDir(dir.empty() ? "." : dir));
  log_ = std::move(file);
  log_bytes_ = header.bytes().size();
  return Status::Ok();
}

Result<bool> MemoryLexicalIndex::Load() {
  {
    // Some other database at our path (a misconfigured path): never reset it.
    Result<std::unique_ptr<SequentialFile>> probe = env_->NewSequentialFile(options_.path);
    char magic[16] = {};
    if (probe.ok()) {
      Result<size_t> n = (*probe)->Read(magic, sizeof(magic));
      if (n.ok() && *n == sizeof(magic) && std::memcmp(magic, "SQLite format 3", 16) == 0) {
        return Status::FailedPrecondition(
            "the lexical index file is an SQLite database, not a memory lexical index; refusing "
            "to reset it");
      }
    }
  }
  Result<std::unique_ptr<FileReader>> opened = FileReader::Open(options_.path, env_);
  if (!opened.ok()) {
    if (opened.status().code() == StatusCode::kNotFound) return true;  // a new index
    if (opened.status().code() == StatusCode::kCorruption) return false;
    return opened.status();
  }
  FileReader& reader = **opened;
  std::string payload;
  if (!reader.ReadSection(kHeadTag, &payload).ok()) return false;
  ByteCursor head(payload);
  std::string_view kind, tokenizer;
  uint32_t format = 0, parts = 0;
  int64_t seq = 0;
  uint64_t generation = 0;
  if (!head.String(&kind, 256)) return false;
  if (kind != kMemoryFileKind) {
    return Status::FailedPrecondition(
        "the lexical index file is not a Skald memory lexical index; refusing to reset it");
  }
  if (!head.U32(&format) || format != kMemoryFormatVersion || !head.String(&tokenizer, 4096) ||
      tokenizer != tokenizer_name_ || !head.I64(&seq) || !head.U64(&generation) ||
      !head.U32(&parts)) {
    return false;
  }
  for (uint32_t i = 0; i < parts; ++i) {
    if (!reader.ReadSection(kPartitionTag, &payload).ok()) return false;
    ByteCursor in(payload);
    std::string_view account;
    if (!in.String(&account, 1 << 16) || account.empty() ||
        partitions_.contains(std::string(account))) {
      return false;
    }
    LexicalPartition& part = partitions_[std::string(account)];
    if (!part.Load(&in) || in.remaining() != 0) return false;
    bool unique = true;
    part.ForEachKey([&](uint64_t key) { unique = partition_of_.emplace(key, &part).second && unique; });
    if (!unique) return false;  // a record in two accounts
  }
  if (!reader.Finish().ok()) return false;
  applied_seq_ = seq;
  generation_ = generation;
  return true;
}

Status MemoryLexicalIndex::ReplayEntry(std::string_view payload) {
  ByteCursor in(payload);
  uint8_t type = 0;
  uint32_t n = 0;
  if (!in.U8(&type)) return Status::Corruption("empty log entry");
  if (type == kAppliedSeq) {
    int64_t seq = 0;
    if (!in.I64(&seq)) return Status::Corruption("short log entry");
    applied_seq_ = seq;
    return Status::Ok();
  }
  if (!in.U32(&n) || n > in.remaining()) return Status::Corruption("bad log entry count");
  if (type == kDelete) {
    std::vector<uint64_t> ids(n);
    for (uint64_t& id : ids) {
      if (!in.U64(&id)) return Status::Corruption("short log entry");
    }
    for (uint64_t id : ids) ApplyDelete(id);
    return Status::Ok();
  }
  if (type != kUpsert) return Status::Corruption("unknown log entry");
  std::vector<RecordFields> records(n);
  std::vector<LexicalText> texts(n);
  for (uint32_t i = 0; i < n; ++i) {
    if (!GetRecord(&in, &records[i], &texts[i]) || records[i].account.empty()) {
      return Status::Corruption("bad log record");
    }
  }
  LexicalTermBatch batch;
  for (const LexicalText& text : texts) CountTerms(text, &batch);
  for (uint32_t i = 0; i < n; ++i) ApplyUpsert(records[i], &batch, i);
  return Status::Ok();
}

uint64_t MemoryLexicalIndex::ReplayLog() {
  Result<std::unique_ptr<SequentialFile>> file = env_->NewSequentialFile(log_path_);
  if (!file.ok()) return 0;
  std::string data;
  char buf[1 << 16];
  while (true) {
    Result<size_t> n = (*file)->Read(buf, sizeof(buf));
    if (!n.ok() || *n == 0) break;
    data.append(buf, *n);
  }
  ByteCursor in(data);
  char magic[sizeof(kLogMagic)];
  uint64_t generation = 0;
  if (!in.Raw(magic, sizeof(magic)) || std::memcmp(magic, kLogMagic, sizeof(magic)) != 0 ||
      !in.U64(&generation) || generation != generation_) {
    return 0;  // no log, or one the snapshot already holds
  }
  uint64_t entries = 0;
  while (in.remaining() > 0) {
    uint32_t len = 0, crc = 0;
    std::string entry;
    if (!in.U32(&len) || !in.U32(&crc) || len > in.remaining()) break;  // torn tail
    entry.resize(len);
    in.Raw(entry.data(), len);
    if (Crc32c(0, entry.data(), entry.size()) != crc) break;
    if (!ReplayEntry(entry).ok()) break;
    ++entries;
  }
  if (in.remaining() > 0) {
    spdlog::warn("lexical index: log ends with a torn or corrupt entry ({} bytes dropped)",
                 in.remaining());
  }
  return entries;
}

Status MemoryLexicalIndex::Init() {
  std::error_code ec;
  std::filesystem::path parent = std::filesystem::path(options_.path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) {
    spdlog::error("cannot create {}: {}", parent.string(), ec.message());
    return Status::IOError("cannot create the lexical index directory: " + ec.message());
  }
  std::unique_lock lock(mu_);
  SKALD_ASSIGN_OR_RETURN(bool usable, Load());
  if (!usable) {
    spdlog::warn("lexical index {} is unusable (corrupt, other version or tokenizer): rebuilding",
                 options_.path);
    partitions_.clear();
    partition_of_.clear();
    applied_seq_ = 0;
    generation_ = 0;
    was_reset_ = true;
  }
  const uint64_t replayed = usable ? ReplayLog() : 0;
  Status started = replayed > 0 || !usable || generation_ == 0
                       ? WriteSnapshot()
                       : StartLog(generation_);  // nothing to fold in: an empty log
  if (IsDiskFull(started)) {
    // The index is a cache: open without a log. Writes fail (the catalog
    // keeps the changes) until a snapshot fits again (AppendLog).
    spdlog::warn("lexical index: no room for its snapshot or log: {}", started.ToString());
    log_.reset();
    return Status::Ok();
  }
  return started;
}

}  // namespace

Result<std::unique_ptr<LexicalIndex>> OpenMemoryLexicalIndex(const LexicalIndexOptions& options) {
  SKALD_RETURN_IF_ERROR(options.Validate());
  std::unique_ptr<Tokenizer> owned;
  if (options.tokenizer == nullptr) {
    SKALD_ASSIGN_OR_RETURN(owned, NewIcuTokenizer());
  }
  auto index = std::make_unique<MemoryLexicalIndex>(options, std::move(owned));
  SKALD_RETURN_IF_ERROR(index->Init());
  return std::unique_ptr<LexicalIndex>(std::move(index));
}

}  // namespace skald
