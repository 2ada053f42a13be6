#pragma once

// Process-wide heap setting of the `skald` binary (and of benchmarks that
// measure what it does). Not applied by the library: a program embedding
// Skald owns its process's allocator settings.

#include <malloc.h>

namespace skald {

// glibc gives the top of the heap back to the kernel as soon as 128 KiB of
// it are free, so work that allocates and frees a few hundred KiB per step
// (zlib's state for each archive entry, per-batch buffers of an import)
// pays a brk(2) and freshly zeroed pages every time: zipping and uploading
// 5,000 files spent 2.5 of 3.5 s there (an import's CPU changed by less
// than the noise of the measurement).
// Up to 64 MiB of freed heap is kept for reuse instead. Setting it turns
// off glibc's sliding mmap threshold, so the threshold is set too (to that
// sliding threshold's ceiling): blocks under 32 MiB come from the heap and
// are reused, not mapped and unmapped (and faulted in) each time.
inline void KeepFreedHeapForReuse() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

}  // namespace skald
