#include "index/index_file.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "index/vector_kernels.h"

namespace skald {
namespace {

constexpr uint32_t kHeadTag = SectionTag("HEAD");
constexpr size_t kWriteBuffer = 1 << 20;
constexpr size_t kReadBuffer = 1 << 20;

std::string ParentDir(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

// ---- FileWriter ----

FileWriter::FileWriter(Env* env, std::string path, std::string tmp,
                       std::unique_ptr<WritableFile> file)
    : env_(env), path_(std::move(path)), tmp_(std::move(tmp)), file_(std::move(file)) {}

FileWriter::~FileWriter() {
  if (file_ != nullptr) {
    Status closed = file_->Close();
    (void)closed;  // the write already failed or was abandoned
  }
  if (!committed_) {
    Status removed = env_->RemoveFile(tmp_);
    (void)removed;
  }
}

Result<std::unique_ptr<FileWriter>> FileWriter::Create(const std::string& path, Env* env,
                                                       uint32_t version) {
  env = EnvOrDefault(env);
  std::string tmp = path + ".tmp";
  SKALD_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, env->NewWritableFile(tmp));
  std::unique_ptr<FileWriter> w(new FileWriter(env, path, tmp, std::move(file)));
  w->buffer_.reserve(kWriteBuffer);
  w->Put(kIndexFileMagic, 8);
  w->Put(&version, 4);
  w->version_ = version;
  return w;
}

void FileWriter::Put(const void* data, size_t n) {
  buffer_.append(static_cast<const char*>(data), n);
  if (buffer_.size() >= kWriteBuffer) Flush(false);
}

void FileWriter::Flush(bool force) {
  if (buffer_.empty() || (!force && buffer_.size() < kWriteBuffer)) return;
  if (error_.ok()) error_ = file_->Append(buffer_);
  flushed_ += buffer_.size();
  buffer_.clear();
}

void FileWriter::BeginSection(uint32_t tag) {
  Put(&tag, 4);
  section_start_ = static_cast<long long>(flushed_ + buffer_.size());
  uint64_t placeholder = 0;
  Put(&placeholder, 8);
  section_len_ = 0;
  crc_ = 0;
}

void FileWriter::PutBytes(const void* data, size_t n) {
  if (n == 0) return;
  Put(data, n);
  crc_ = Crc32c(crc_, data, n);
  section_len_ += n;
}

void FileWriter::PutString(std::string_view s) {
  PutU32(static_cast<uint32_t>(s.size()));
  PutBytes(s.data(), s.size());
}

Status FileWriter::EndSection() {
  if (section_start_ < 0) return Status::Internal("EndSection without BeginSection");
  Put(&crc_, 4);
  // Patch the length: in the buffer when it is still there, else on disk.
  uint64_t at = static_cast<uint64_t>(section_start_);
  if (at >= flushed_) {
    std::memcpy(buffer_.data() + (at - flushed_), &section_len_, 8);
  } else if (error_.ok()) {
    error_ = file_->WriteAt(at, std::string_view(reinterpret_cast<const char*>(&section_len_), 8));
  }
  section_start_ = -1;
  return error_;
}

Status FileWriter::Commit() {
  uint64_t end_offset = flushed_ + buffer_.size();
  BeginSection(kIndexEndTag);
  PutU64(end_offset);
  SKALD_RETURN_IF_ERROR(EndSection());
  Flush(/*force=*/true);
  if (error_.ok()) error_ = file_->Sync();
  Status closed = file_->Close();
  file_.reset();
  if (error_.ok()) error_ = closed;
  SKALD_RETURN_IF_ERROR(error_);
  SKALD_RETURN_IF_ERROR(env_->Rename(tmp_, path_));
  committed_ = true;
  return env_->SyncDir(ParentDir(path_));
}

// ---- FileReader ----

FileReader::FileReader(std::string path, std::unique_ptr<SequentialFile> file, uint64_t size)
    : path_(std::move(path)), file_(std::move(file)), file_size_(size) {}

FileReader::~FileReader() = default;

Result<std::unique_ptr<FileReader>> FileReader::Open(const std::string& path, Env* env) {
  env = EnvOrDefault(env);
  Result<FileInfo> info = env->Stat(path);
  if (!info.ok()) {
    if (info.status().code() == StatusCode::kNotFound) {
      return Status::NotFound("no vector index file");
    }
    return info.status();
  }
  SKALD_ASSIGN_OR_RETURN(std::unique_ptr<SequentialFile> file, env->NewSequentialFile(path));
  std::unique_ptr<FileReader> r(new FileReader(path, std::move(file), info->size));
  char magic[8];
  uint32_t version = 0;
  if (r->Raw(magic, 8).ok() == false || std::memcmp(magic, kIndexFileMagic, 8) != 0) {
    spdlog::warn("vector index file {}: bad magic", path);
    return Status::Corruption("vector index file: bad magic");
  }
  SKALD_RETURN_IF_ERROR(r->Raw(&version, 4));
  if (version == 0) return Status::Corruption("vector index file: bad version 0");
  if (version > kIndexFormatVersion) {
    return Status::FailedPrecondition("vector index file has format version " +
                                      std::to_string(version) + "; this build reads up to " +
                                      std::to_string(kIndexFormatVersion));
  }
  r->version_ = version;
  return r;
}

Status FileReader::Raw(void* out, size_t n) {
  if (n > file_size_ - offset_) {
    return Status::Corruption("vector index file is truncated");
  }
  char* dst = static_cast<char*>(out);
  size_t need = n;
  while (need > 0) {
    if (buffer_pos_ == buffer_.size()) {
      // No more than the file has left: a small file costs no 1 MiB zero-fill.
      buffer_.resize(std::min(kReadBuffer, file_size_ - offset_ - (n - need)));
      buffer_pos_ = 0;
      SKALD_ASSIGN_OR_RETURN(size_t got, file_->Read(buffer_.data(), buffer_.size()));
      buffer_.resize(got);
      if (got == 0) return Status::Corruption("vector index file: short read");
    }
    size_t take = std::min(need, buffer_.size() - buffer_pos_);
    std::memcpy(dst, buffer_.data() + buffer_pos_, take);
    buffer_pos_ += take;
    dst += take;
    need -= take;
  }
  offset_ += n;
  return Status::Ok();
}

Status FileReader::BeginSection(uint32_t tag) {
  if (in_section_) return Status::Internal("BeginSection inside a section");
  uint32_t got = 0;
  uint64_t len = 0;
  SKALD_RETURN_IF_ERROR(Raw(&got, 4));
  SKALD_RETURN_IF_ERROR(Raw(&len, 8));
  if (got != tag) {
    return Status::Corruption("vector index file: unexpected section at offset " +
                              std::to_string(offset_ - 12));
  }
  if (len > file_size_ - offset_ || file_size_ - offset_ - len < 4) {
    return Status::Corruption("vector index file: section length out of range");
  }
  tag_ = tag;
  section_left_ = len;
  in_section_ = true;
  crc_ = 0;
  return Status::Ok();
}

Status FileReader::ReadSection(uint32_t tag, std::string* payload) {
  SKALD_RETURN_IF_ERROR(BeginSection(tag));
  payload->resize(section_left_);
  SKALD_RETURN_IF_ERROR(GetBytes(payload->data(), payload->size()));
  return EndSection();
}

Status FileReader::GetBytes(void* out, size_t n) {
  if (!in_section_ || n > section_left_) {
    return Status::Corruption("vector index file: section overrun");
  }
  SKALD_RETURN_IF_ERROR(Raw(out, n));
  crc_ = Crc32c(crc_, out, n);
  section_left_ -= n;
  return Status::Ok();
}

Status FileReader::GetString(std::string* s, size_t max_len) {
  uint32_t len = 0;
  SKALD_RETURN_IF_ERROR(GetU32(&len));
  if (len > max_len || len > section_left_) {
    return Status::Corruption("vector index file: string length out of range");
  }
  s->resize(len);
  return GetBytes(s->data(), len);
}

Status FileReader::EndSection() {
  if (!in_section_) return Status::Internal("EndSection outside a section");
  if (section_left_ != 0) {
    return Status::Corruption("vector index file: section has trailing bytes");
  }
  uint32_t stored = 0;
  SKALD_RETURN_IF_ERROR(Raw(&stored, 4));
  in_section_ = false;
  if (stored != crc_) {
    char tag[5] = {char(tag_), char(tag_ >> 8), char(tag_ >> 16), char(tag_ >> 24), 0};
    return Status::Corruption(std::string("vector index file: checksum mismatch in section ") +
                              tag);
  }
  return Status::Ok();
}

Status FileReader::Finish() {
  uint64_t end_offset = offset_;
  SKALD_RETURN_IF_ERROR(BeginSection(kIndexEndTag));
  uint64_t recorded = 0;
  SKALD_RETURN_IF_ERROR(GetU64(&recorded));
  SKALD_RETURN_IF_ERROR(EndSection());
  if (recorded != end_offset || offset_ != file_size_) {
    return Status::Corruption("vector index file: bad end marker");
  }
  return Status::Ok();
}

// ---- header ----

void WriteHeader(FileWriter* w, const IndexFileHeader& h) {
  w->BeginSection(kHeadTag);
  w->PutString(h.kind);
  w->PutString(h.embedder);
  w->PutU32(h.dim);
  w->PutU32(h.metric);
  w->PutU32(h.encoding);
  w->PutI64(h.applied_seq);
  w->PutU32(h.slots);
  w->PutU64(h.live);
}

Status ReadHeader(FileReader* r, IndexFileHeader* h) {
  SKALD_RETURN_IF_ERROR(r->BeginSection(kHeadTag));
  SKALD_RETURN_IF_ERROR(r->GetString(&h->kind, 64));
  SKALD_RETURN_IF_ERROR(r->GetString(&h->embedder, 4096));
  SKALD_RETURN_IF_ERROR(r->GetU32(&h->dim));
  SKALD_RETURN_IF_ERROR(r->GetU32(&h->metric));
  SKALD_RETURN_IF_ERROR(r->GetU32(&h->encoding));
  SKALD_RETURN_IF_ERROR(r->GetI64(&h->applied_seq));
  SKALD_RETURN_IF_ERROR(r->GetU32(&h->slots));
  SKALD_RETURN_IF_ERROR(r->GetU64(&h->live));
  return Status::Ok();
}

}  // namespace skald
