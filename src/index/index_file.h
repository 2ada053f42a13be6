#pragma once

// Sectioned binary files with a CRC-32C per section, the container of every
// vector index file (layout in docs/format/vector-index.md):
//
//   magic "SKVECIDX" | u32 format version | section* | end marker
//   section = u32 tag | u64 payload length | payload | u32 crc32c(payload)
//
// All integers little-endian. A reader never trusts a length it has not
// checked against the file size, and reports every inconsistency as
// Corruption (never a crash).
//
// Thread safety: a FileWriter/FileReader is used by one thread.

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "common/env.h"
#include "skald/result.h"

namespace skald {

inline constexpr char kIndexFileMagic[8] = {'S', 'K', 'V', 'E', 'C', 'I', 'D', 'X'};
// Format versions (docs/format/vector-index.md, "Versioning"): 1, every
// slot in the HNSW graph; 2, the graph holds a prefix of the slots and the
// rest wait for links. A file is written in the oldest version that holds
// it, so that a build that reads only version 1 still reads a whole index.
inline constexpr uint32_t kIndexFormatWhole = 1;
inline constexpr uint32_t kIndexFormatPartlyLinked = 2;
inline constexpr uint32_t kIndexFormatVersion = kIndexFormatPartlyLinked;  // the newest read
inline constexpr uint32_t kIndexEndTag = 0x444E4524;  // "$END"

// Four-character section tag ("HEAD" -> 'H' | 'E' << 8 | ...).
constexpr uint32_t SectionTag(const char (&s)[5]) {
  return uint32_t(uint8_t(s[0])) | uint32_t(uint8_t(s[1])) << 8 | uint32_t(uint8_t(s[2])) << 16 |
         uint32_t(uint8_t(s[3])) << 24;
}

// Errors of both classes name the step, never the host path (the path goes
// to the server log); a full disk is DiskFullError.
class FileWriter {
 public:
  // Creates `path`.tmp through `env` (borrowed, null = Env::Default()) as a
  // file of format `version`; Commit() renames it over `path` durably.
  static Result<std::unique_ptr<FileWriter>> Create(const std::string& path, Env* env = nullptr,
                                                    uint32_t version = kIndexFormatWhole);
  ~FileWriter();  // removes the temp file unless committed

  // The format version the file is written in (Create's `version`).
  uint32_t version() const { return version_; }

  void BeginSection(uint32_t tag);
  Status EndSection();
  void PutU8(uint8_t v) { PutBytes(&v, 1); }
  void PutU32(uint32_t v) { PutBytes(&v, 4); }
  void PutU64(uint64_t v) { PutBytes(&v, 8); }
  void PutI64(int64_t v) { PutBytes(&v, 8); }
  void PutF32(float v) { PutBytes(&v, 4); }
  void PutString(std::string_view s);
  void PutBytes(const void* data, size_t n);

  // Writes the end marker, flushes, fsyncs, renames and fsyncs the directory.
  Status Commit();

 private:
  FileWriter(Env* env, std::string path, std::string tmp, std::unique_ptr<WritableFile> file);
  // Writes out the buffer when it is large (`force`: always).
  void Flush(bool force);
  void Put(const void* data, size_t n);
  Env* const env_;
  std::string path_, tmp_;
  std::unique_ptr<WritableFile> file_;
  std::string buffer_;          // bytes not yet handed to file_
  uint64_t flushed_ = 0;        // bytes handed to file_
  Status error_;                // the first write error
  bool committed_ = false;
  uint32_t version_ = kIndexFormatWhole;
  long long section_start_ = -1;
  uint64_t section_len_ = 0;
  uint32_t crc_ = 0;
};

class FileReader {
 public:
  // Opens `path` through `env` (borrowed, null = Env::Default()). NotFound
  // when the file is missing; Corruption on a bad magic; FailedPrecondition
  // when written by a newer format version.
  static Result<std::unique_ptr<FileReader>> Open(const std::string& path, Env* env = nullptr);
  ~FileReader();

  // Starts the next section, which must carry `tag`.
  Status BeginSection(uint32_t tag);
  // REQUIRES: the whole payload was consumed; checks its CRC.
  Status EndSection();
  // Checks the end marker and that nothing follows it.
  Status Finish();

  // Reads the next section, which must carry `tag`, whole into `payload`
  // and checks its CRC (for small and medium sections that are then parsed
  // with a ByteCursor).
  Status ReadSection(uint32_t tag, std::string* payload);

  // Reads from the current section; Corruption when it would overrun it.
  Status GetBytes(void* out, size_t n);
  Status GetU8(uint8_t* v) { return GetBytes(v, 1); }
  Status GetU32(uint32_t* v) { return GetBytes(v, 4); }
  Status GetU64(uint64_t* v) { return GetBytes(v, 8); }
  Status GetI64(int64_t* v) { return GetBytes(v, 8); }
  Status GetF32(float* v) { return GetBytes(v, 4); }
  Status GetString(std::string* s, size_t max_len = 1 << 20);
  // Bytes left in the current section.
  uint64_t remaining() const { return section_left_; }
  const std::string& path() const { return path_; }
  // The file's format version (1..kIndexFormatVersion).
  uint32_t version() const { return version_; }

 private:
  FileReader(std::string path, std::unique_ptr<SequentialFile> file, uint64_t size);
  Status Raw(void* out, size_t n);
  std::string path_;
  std::unique_ptr<SequentialFile> file_;
  std::string buffer_;     // read ahead of offset_
  size_t buffer_pos_ = 0;  // next unread byte in buffer_
  uint64_t file_size_;
  uint64_t offset_ = 0;
  uint32_t version_ = 0;
  uint32_t tag_ = 0;
  uint64_t section_left_ = 0;
  bool in_section_ = false;
  uint32_t crc_ = 0;
};

// Appends little-endian fields to a byte string (a section payload built in
// memory, then written with one PutBytes).
class ByteBuilder {
 public:
  void U8(uint8_t v) { Raw(&v, 1); }
  void U32(uint32_t v) { Raw(&v, 4); }
  void U64(uint64_t v) { Raw(&v, 8); }
  void I64(int64_t v) { Raw(&v, 8); }
  void String(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    Raw(s.data(), s.size());
  }
  void Raw(const void* p, size_t n) { bytes_.append(static_cast<const char*>(p), n); }
  const std::string& bytes() const { return bytes_; }
  // Empties it, keeping its capacity (a buffer written out piece by piece).
  void Clear() { bytes_.clear(); }

 private:
  std::string bytes_;
};

// Reads little-endian fields from a verified section payload; every read is
// bounds-checked (false = the payload is shorter than its contents claim).
class ByteCursor {
 public:
  explicit ByteCursor(std::string_view data) : data_(data) {}
  bool U8(uint8_t* v) { return Raw(v, 1); }
  bool U32(uint32_t* v) { return Raw(v, 4); }
  bool U64(uint64_t* v) { return Raw(v, 8); }
  bool I64(int64_t* v) { return Raw(v, 8); }
  bool String(std::string_view* s, size_t max_len) {
    uint32_t len = 0;
    if (!U32(&len) || len > max_len || len > data_.size()) return false;
    *s = data_.substr(0, len);
    data_.remove_prefix(len);
    return true;
  }
  bool Raw(void* out, size_t n) {
    if (n > data_.size()) return false;
    if (n > 0) std::memcpy(out, data_.data(), n);
    data_.remove_prefix(n);
    return true;
  }
  size_t remaining() const { return data_.size(); }

 private:
  std::string_view data_;
};

// "flat" / "hnsw" index files begin with this header section ("HEAD").
// WriteHeader/ReadHeader begin the section and handle the common fields; the
// index appends (reads) its own fields and then ends the section.
struct IndexFileHeader {
  std::string kind;      // "flat" | "hnsw"
  std::string embedder;  // embedder identity
  uint32_t dim = 0;
  uint32_t metric = 0;    // Metric
  uint32_t encoding = 0;  // VectorEncoding
  int64_t applied_seq = 0;
  uint32_t slots = 0;     // slots stored (tombstoned included)
  uint64_t live = 0;      // live records among them
};

void WriteHeader(FileWriter* w, const IndexFileHeader& h);
Status ReadHeader(FileReader* r, IndexFileHeader* h);

}  // namespace skald
