#pragma once

// SegmentedArray<T>: an append-only array of fixed-width rows whose rows never
// move. Rows live in chunks of doubling size (1024, 1024, 2048, 4096, ...), so
// a small index stays small and a large one needs ~23 chunk pointers.
//
// Thread safety: one writer grows the array (Reserve) and fills rows; readers
// may read any row whose contents were published to them through a
// release/acquire edge (a snapshot taken under a mutex, or an atomic link).
// Growth never touches rows that readers can see.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace skald {

// Zero-filled, 64-byte aligned heap memory (calloc'd, so untouched pages of a
// large block are never made resident).
template <typename T>
class AlignedBlock {
 public:
  AlignedBlock() = default;
  explicit AlignedBlock(size_t count) {
    raw_ = std::calloc(count * sizeof(T) + 64, 1);
    if (raw_ == nullptr) throw std::bad_alloc();
    auto addr = reinterpret_cast<uintptr_t>(raw_);
    data_ = reinterpret_cast<T*>((addr + 63) & ~uintptr_t{63});
  }
  ~AlignedBlock() { std::free(raw_); }
  AlignedBlock(AlignedBlock&& other) noexcept : raw_(other.raw_), data_(other.data_) {
    other.raw_ = nullptr;
    other.data_ = nullptr;
  }
  AlignedBlock& operator=(AlignedBlock&& other) noexcept {
    if (this != &other) {
      std::free(raw_);
      raw_ = other.raw_;
      data_ = other.data_;
      other.raw_ = nullptr;
      other.data_ = nullptr;
    }
    return *this;
  }
  AlignedBlock(const AlignedBlock&) = delete;
  AlignedBlock& operator=(const AlignedBlock&) = delete;

  T* data() const { return data_; }

 private:
  void* raw_ = nullptr;
  T* data_ = nullptr;
};

// Slot -> chunk mapping: chunk 0 holds [0, 1024); chunk c >= 1 holds
// [2^(c+9), 2^(c+10)).
inline uint32_t SegmentChunkOf(uint32_t slot) {
  return slot < 1024 ? 0 : static_cast<uint32_t>(std::bit_width(slot)) - 10;
}
inline uint32_t SegmentChunkStart(uint32_t chunk) { return chunk == 0 ? 0 : 1u << (chunk + 9); }
inline uint32_t SegmentChunkSize(uint32_t chunk) { return chunk == 0 ? 1024 : 1u << (chunk + 9); }

template <typename T>
class SegmentedArray {
 public:
  static constexpr uint32_t kMaxChunks = 22;  // 2^31 rows
  static constexpr uint32_t kMaxRows = 1u << 31;

  explicit SegmentedArray(size_t width = 1) : width_(width) {}
  SegmentedArray(const SegmentedArray&) = delete;
  SegmentedArray& operator=(const SegmentedArray&) = delete;

  size_t width() const { return width_; }
  uint32_t capacity() const { return capacity_; }

  // First element of row `slot`. REQUIRES: slot < capacity() (as published).
  T* at(uint32_t slot) const {
    uint32_t c = SegmentChunkOf(slot);
    return chunks_[c].data() + size_t{slot - SegmentChunkStart(c)} * width_;
  }

  // Makes rows [0, rows) addressable, zero-filled. Writer only.
  // REQUIRES: rows <= kMaxRows.
  void Reserve(uint32_t rows) {
    while (capacity_ < rows) {
      uint32_t c = SegmentChunkOf(capacity_);
      chunks_[c] = AlignedBlock<T>(size_t{SegmentChunkSize(c)} * width_);
      capacity_ = SegmentChunkStart(c) + SegmentChunkSize(c);
    }
  }

  // Number of rows from `slot` to the end of its chunk (a contiguous run).
  static uint32_t RunLength(uint32_t slot) {
    uint32_t c = SegmentChunkOf(slot);
    return SegmentChunkStart(c) + SegmentChunkSize(c) - slot;
  }

 private:
  size_t width_;
  std::array<AlignedBlock<T>, kMaxChunks> chunks_;
  uint32_t capacity_ = 0;
};

}  // namespace skald
