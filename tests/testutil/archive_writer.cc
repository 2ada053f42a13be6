#include "tests/testutil/archive_writer.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cstdio>
#include <memory>

namespace skald::testing {
namespace {

struct WriterFree {
  void operator()(archive* a) const { archive_write_free(a); }
};
struct EntryFree {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};

bool Fail(archive* a, const char* step) {
  std::fprintf(stderr, "WriteTestArchive: %s: %s\n", step,
               archive_error_string(a) ? archive_error_string(a) : "?");
  return false;
}

}  // namespace

bool WriteTestArchive(const std::string& path, ArchiveFormat format,
                      const std::vector<ArchiveItem>& items) {
  std::unique_ptr<archive, WriterFree> a(archive_write_new());
  if (format == ArchiveFormat::kZip) {
    archive_write_set_format_zip(a.get());
    archive_write_zip_set_compression_deflate(a.get());
  } else {
    archive_write_set_format_pax_restricted(a.get());
    if (format == ArchiveFormat::kTarGz) archive_write_add_filter_gzip(a.get());
  }
  if (archive_write_open_filename(a.get(), path.c_str()) != ARCHIVE_OK)
    return Fail(a.get(), "open");
  for (const ArchiveItem& item : items) {
    std::unique_ptr<archive_entry, EntryFree> e(archive_entry_new());
    archive_entry_set_pathname(e.get(), item.name.c_str());
    archive_entry_set_perm(e.get(), 0644);
    switch (item.kind) {
      case ArchiveItem::Kind::kFile:
        archive_entry_set_filetype(e.get(), AE_IFREG);
        archive_entry_set_size(e.get(), static_cast<la_int64_t>(item.content.size() + item.zeros));
        break;
      case ArchiveItem::Kind::kDir:
        archive_entry_set_filetype(e.get(), AE_IFDIR);
        archive_entry_set_perm(e.get(), 0755);
        break;
      case ArchiveItem::Kind::kSymlink:
        archive_entry_set_filetype(e.get(), AE_IFLNK);
        archive_entry_set_symlink(e.get(), item.target.c_str());
        break;
      case ArchiveItem::Kind::kHardlink:
        archive_entry_set_filetype(e.get(), AE_IFREG);
        archive_entry_set_hardlink(e.get(), item.target.c_str());
        archive_entry_set_size(e.get(), 0);
        break;
      case ArchiveItem::Kind::kCharDevice:
        archive_entry_set_filetype(e.get(), AE_IFCHR);
        archive_entry_set_rdev(e.get(), makedev(1, 3));
        break;
    }
    if (archive_write_header(a.get(), e.get()) != ARCHIVE_OK) return Fail(a.get(), "header");
    if (item.kind != ArchiveItem::Kind::kFile) continue;
    if (!item.content.empty() &&
        archive_write_data(a.get(), item.content.data(), item.content.size()) < 0) {
      return Fail(a.get(), "data");
    }
    static const std::string kZeros(1 << 16, '\0');
    for (uint64_t left = item.zeros; left > 0;) {
      const size_t n = left < kZeros.size() ? static_cast<size_t>(left) : kZeros.size();
      if (archive_write_data(a.get(), kZeros.data(), n) < 0) return Fail(a.get(), "zeros");
      left -= n;
    }
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK) return Fail(a.get(), "close");
  return true;
}

}  // namespace skald::testing
