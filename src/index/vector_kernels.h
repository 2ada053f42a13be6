#pragma once

// Distance kernels with runtime dispatch: AVX-512 (F + BW), AVX2 + FMA, or a
// portable fallback, chosen once from CPUID. The default build targets plain
// x86-64 (no -march=native); only these functions carry target attributes.
//
// Thread safety: all functions are pure; GetVectorKernels() is safe to call
// from any thread (the choice is made once, thread-safely).

#include <cstddef>
#include <cstdint>

namespace skald {

struct VectorKernels {
  // Inner product of two float vectors of `dim` elements.
  float (*dot_f32)(const float* a, const float* b, size_t dim);
  // Inner product of two int8 vectors (exact, int32 accumulation).
  int32_t (*dot_i8)(const int8_t* a, const int8_t* b, size_t dim);
  // out[i] = dot(q, base + i * dim) for i in [0, n). `base` rows are contiguous.
  void (*dot_f32_batch)(const float* q, const float* base, size_t n, size_t dim, float* out);
  void (*dot_i8_batch)(const int8_t* q, const int8_t* base, size_t n, size_t dim, int32_t* out);
  // "avx512", "avx2" or "generic".
  const char* name;
};

// The best kernels this CPU supports. The environment variable SKALD_SIMD
// ("generic", "avx2", "avx512") caps the choice (tests use it to cover every path).
const VectorKernels& GetVectorKernels();

// Kernels of one level, for tests; returns nullptr when the CPU lacks it.
const VectorKernels* GetVectorKernelsFor(const char* name);

// Scales `v` to unit L2 norm in place (a zero vector stays zero).
void NormalizeL2(float* v, size_t dim);

// Symmetric int8 quantization: codes[i] = round(v[i] / scale), scale =
// max|v| / 127 (0 for a zero vector). Returns the scale.
float QuantizeInt8(const float* v, size_t dim, int8_t* codes);

// CRC-32C (Castagnoli) of `n` bytes, continuing from `crc` (0 to start).
// Uses the SSE4.2 instruction when present.
uint32_t Crc32c(uint32_t crc, const void* data, size_t n);

}  // namespace skald
