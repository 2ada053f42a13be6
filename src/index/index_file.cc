#include "index/index_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "index/vector_kernels.h"

namespace skald {
namespace {

constexpr uint32_t kHeadTag = SectionTag("HEAD");

Status ErrnoStatus(const std::string& what, const std::string& path) {
  return Status::IOError(what + " " + path + ": " + std::strerror(errno));
}

Status SyncDirectory(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open directory", dir);
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return ErrnoStatus("fsync directory", dir);
  return Status::Ok();
}

}  // namespace

// ---- FileWriter ----

FileWriter::FileWriter(std::string path, std::string tmp, std::FILE* f)
    : path_(std::move(path)), tmp_(std::move(tmp)), file_(f) {}

FileWriter::~FileWriter() {
  if (file_ != nullptr) std::fclose(file_);
  if (!committed_) ::unlink(tmp_.c_str());
}

Result<std::unique_ptr<FileWriter>> FileWriter::Create(const std::string& path) {
  std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return ErrnoStatus("create", tmp);
  std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
  std::unique_ptr<FileWriter> w(new FileWriter(path, tmp, f));
  if (std::fwrite(kIndexFileMagic, 1, 8, f) != 8) w->failed_ = true;
  uint32_t version = kIndexFormatVersion;
  if (std::fwrite(&version, 4, 1, f) != 1) w->failed_ = true;
  return w;
}

void FileWriter::BeginSection(uint32_t tag) {
  if (std::fwrite(&tag, 4, 1, file_) != 1) failed_ = true;
  section_start_ = ::ftello(file_);
  uint64_t placeholder = 0;
  if (std::fwrite(&placeholder, 8, 1, file_) != 1) failed_ = true;
  section_len_ = 0;
  crc_ = 0;
}

void FileWriter::PutBytes(const void* data, size_t n) {
  if (n == 0) return;
  if (std::fwrite(data, 1, n, file_) != n) failed_ = true;
  crc_ = Crc32c(crc_, data, n);
  section_len_ += n;
}

void FileWriter::PutString(std::string_view s) {
  PutU32(static_cast<uint32_t>(s.size()));
  PutBytes(s.data(), s.size());
}

Status FileWriter::EndSection() {
  if (section_start_ < 0) return Status::Internal("EndSection without BeginSection");
  if (std::fwrite(&crc_, 4, 1, file_) != 1) failed_ = true;
  long long end = ::ftello(file_);
  if (::fseeko(file_, section_start_, SEEK_SET) != 0 ||
      std::fwrite(&section_len_, 8, 1, file_) != 1 || ::fseeko(file_, end, SEEK_SET) != 0) {
    failed_ = true;
  }
  section_start_ = -1;
  if (failed_) return ErrnoStatus("write", tmp_);
  return Status::Ok();
}

Status FileWriter::Commit() {
  uint64_t end_offset = static_cast<uint64_t>(::ftello(file_));
  BeginSection(kIndexEndTag);
  PutU64(end_offset);
  SKALD_RETURN_IF_ERROR(EndSection());
  if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0) failed_ = true;
  if (std::fclose(file_) != 0) failed_ = true;
  file_ = nullptr;
  if (failed_) return ErrnoStatus("write", tmp_);
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) return ErrnoStatus("rename", tmp_);
  committed_ = true;
  return SyncDirectory(path_);
}

// ---- FileReader ----

FileReader::FileReader(std::string path, std::FILE* f, uint64_t size)
    : path_(std::move(path)), file_(f), file_size_(size) {}

FileReader::~FileReader() {
  if (file_ != nullptr) std::fclose(file_);
}

Result<std::unique_ptr<FileReader>> FileReader::Open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    if (errno == ENOENT) return Status::NotFound("no vector index file " + path);
    return ErrnoStatus("open", path);
  }
  struct stat st;
  if (::fstat(::fileno(f), &st) != 0) {
    std::fclose(f);
    return ErrnoStatus("stat", path);
  }
  std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
  std::unique_ptr<FileReader> r(new FileReader(path, f, static_cast<uint64_t>(st.st_size)));
  char magic[8];
  uint32_t version = 0;
  if (r->Raw(magic, 8).ok() == false || std::memcmp(magic, kIndexFileMagic, 8) != 0) {
    return Status::Corruption("vector index file " + path + ": bad magic");
  }
  SKALD_RETURN_IF_ERROR(r->Raw(&version, 4));
  if (version == 0) return Status::Corruption("vector index file " + path + ": bad version 0");
  if (version > kIndexFormatVersion) {
    return Status::FailedPrecondition("vector index file " + path + " has format version " +
                                      std::to_string(version) + "; this build reads up to " +
                                      std::to_string(kIndexFormatVersion));
  }
  return r;
}

Status FileReader::Raw(void* out, size_t n) {
  if (n > file_size_ - offset_) {
    return Status::Corruption("vector index file " + path_ + " is truncated");
  }
  if (n > 0 && std::fread(out, 1, n, file_) != n) {
    return Status::Corruption("vector index file " + path_ + ": short read");
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
    return Status::Corruption("vector index file " + path_ + ": unexpected section at offset " +
                              std::to_string(offset_ - 12));
  }
  if (len > file_size_ - offset_ || file_size_ - offset_ - len < 4) {
    return Status::Corruption("vector index file " + path_ + ": section length out of range");
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
    return Status::Corruption("vector index file " + path_ + ": section overrun");
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
    return Status::Corruption("vector index file " + path_ + ": string length out of range");
  }
  s->resize(len);
  return GetBytes(s->data(), len);
}

Status FileReader::EndSection() {
  if (!in_section_) return Status::Internal("EndSection outside a section");
  if (section_left_ != 0) {
    return Status::Corruption("vector index file " + path_ + ": section has trailing bytes");
  }
  uint32_t stored = 0;
  SKALD_RETURN_IF_ERROR(Raw(&stored, 4));
  in_section_ = false;
  if (stored != crc_) {
    char tag[5] = {char(tag_), char(tag_ >> 8), char(tag_ >> 16), char(tag_ >> 24), 0};
    return Status::Corruption("vector index file " + path_ + ": checksum mismatch in section " +
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
    return Status::Corruption("vector index file " + path_ + ": bad end marker");
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
