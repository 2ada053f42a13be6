#include "index/vector_kernels.h"

// GCC 12's AVX-512 headers build some intrinsics from _mm*_undefined_*(),
// which -Wuninitialized flags once inlined (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace skald {
namespace {

// ---- generic: lane-parallel loops (vectorizable without reassociation) ----

float DotF32Generic(const float* a, const float* b, size_t dim) {
  float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  size_t i = 0;
  for (; i + 8 <= dim; i += 8) {
    for (int l = 0; l < 8; ++l) lanes[l] += a[i + l] * b[i + l];
  }
  float sum = ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) +
              ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
  for (; i < dim; ++i) sum += a[i] * b[i];
  return sum;
}

int32_t DotI8Generic(const int8_t* a, const int8_t* b, size_t dim) {
  int32_t sum = 0;
  for (size_t i = 0; i < dim; ++i) sum += int32_t{a[i]} * int32_t{b[i]};
  return sum;
}

void DotF32BatchGeneric(const float* q, const float* base, size_t n, size_t dim, float* out) {
  for (size_t i = 0; i < n; ++i) out[i] = DotF32Generic(q, base + i * dim, dim);
}

void DotI8BatchGeneric(const int8_t* q, const int8_t* base, size_t n, size_t dim, int32_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = DotI8Generic(q, base + i * dim, dim);
}

// ---- AVX2 + FMA ----

__attribute__((target("avx2,fma"))) inline float HorizontalSum256(__m256 v) {
  __m128 lo = _mm256_castps256_ps128(v);
  __m128 hi = _mm256_extractf128_ps(v, 1);
  lo = _mm_add_ps(lo, hi);
  lo = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
  lo = _mm_add_ss(lo, _mm_movehdup_ps(lo));
  return _mm_cvtss_f32(lo);
}

__attribute__((target("avx2,fma"))) inline float DotF32Avx2Inline(const float* a, const float* b,
                                                                  size_t dim) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  __m256 s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= dim; i += 32) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
    s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
  }
  for (; i + 8 <= dim; i += 8) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
  }
  float sum = HorizontalSum256(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
  for (; i < dim; ++i) sum += a[i] * b[i];
  return sum;
}

__attribute__((target("avx2,fma"))) float DotF32Avx2(const float* a, const float* b, size_t dim) {
  return DotF32Avx2Inline(a, b, dim);
}

__attribute__((target("avx2,fma"))) inline int32_t DotI8Avx2Inline(const int8_t* a,
                                                                   const int8_t* b, size_t dim) {
  __m256i acc = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 16 <= dim; i += 16) {
    __m256i x = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    __m256i y = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, y));
  }
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  int32_t sum = _mm_cvtsi128_si32(s);
  for (; i < dim; ++i) sum += int32_t{a[i]} * int32_t{b[i]};
  return sum;
}

__attribute__((target("avx2,fma"))) int32_t DotI8Avx2(const int8_t* a, const int8_t* b,
                                                      size_t dim) {
  return DotI8Avx2Inline(a, b, dim);
}

__attribute__((target("avx2,fma"))) void DotF32BatchAvx2(const float* q, const float* base,
                                                         size_t n, size_t dim, float* out) {
  for (size_t i = 0; i < n; ++i) out[i] = DotF32Avx2Inline(q, base + i * dim, dim);
}

__attribute__((target("avx2,fma"))) void DotI8BatchAvx2(const int8_t* q, const int8_t* base,
                                                        size_t n, size_t dim, int32_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = DotI8Avx2Inline(q, base + i * dim, dim);
}

// ---- AVX-512 (F for float, BW for int8) ----

// Horizontal sums without _mm512_reduce_* (whose GCC 12 expansion trips
// -Wmaybe-uninitialized): fold the 256-bit halves, then finish in AVX2.
__attribute__((target("avx512f,avx512bw,avx2,fma"))) inline float ReduceAdd512(__m512 v) {
  v = _mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, 0x4E));
  return HorizontalSum256(_mm512_castps512_ps256(v));
}

__attribute__((target("avx512f,avx512bw,avx2,fma"))) inline int32_t ReduceAdd512(__m512i v) {
  v = _mm512_add_epi32(v, _mm512_shuffle_i32x4(v, v, 0x4E));
  __m256i x = _mm512_castsi512_si256(v);
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  return _mm_cvtsi128_si32(s);
}

__attribute__((target("avx512f,avx512bw,avx2,fma"))) inline float DotF32Avx512Inline(const float* a,
                                                                            const float* b,
                                                                            size_t dim) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= dim; i += 32) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), s1);
  }
  if (i + 16 <= dim) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    i += 16;
  }
  if (i < dim) {
    __mmask16 m = static_cast<__mmask16>((1u << (dim - i)) - 1);
    s1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), s1);
  }
  return ReduceAdd512(_mm512_add_ps(s0, s1));
}

__attribute__((target("avx512f,avx512bw,avx2,fma"))) float DotF32Avx512(const float* a, const float* b,
                                                               size_t dim) {
  return DotF32Avx512Inline(a, b, dim);
}

__attribute__((target("avx512f,avx512bw,avx2,fma"))) inline int32_t DotI8Avx512Inline(const int8_t* a,
                                                                             const int8_t* b,
                                                                             size_t dim) {
  __m512i acc = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 32 <= dim; i += 32) {
    __m512i x = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)));
    __m512i y = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i)));
    acc = _mm512_add_epi32(acc, _mm512_madd_epi16(x, y));
  }
  int32_t sum = ReduceAdd512(acc);
  for (; i < dim; ++i) sum += int32_t{a[i]} * int32_t{b[i]};
  return sum;
}

__attribute__((target("avx512f,avx512bw,avx2,fma"))) int32_t DotI8Avx512(const int8_t* a, const int8_t* b,
                                                                size_t dim) {
  return DotI8Avx512Inline(a, b, dim);
}

// Four rows at a time: four independent dependency chains and four streams
// in flight, so the loop is limited by memory rather than by FMA latency.
__attribute__((target("avx512f,avx512bw,avx2,fma"))) void DotF32BatchAvx512(const float* q,
                                                                   const float* base, size_t n,
                                                                   size_t dim, float* out) {
  size_t i = 0;
  if (dim % 16 == 0) {
    for (; i + 4 <= n; i += 4) {
      const float* r0 = base + i * dim;
      const float* r1 = r0 + dim;
      const float* r2 = r1 + dim;
      const float* r3 = r2 + dim;
      __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
      __m512 s2 = _mm512_setzero_ps(), s3 = _mm512_setzero_ps();
      for (size_t j = 0; j < dim; j += 16) {
        __m512 qv = _mm512_loadu_ps(q + j);
        s0 = _mm512_fmadd_ps(qv, _mm512_loadu_ps(r0 + j), s0);
        s1 = _mm512_fmadd_ps(qv, _mm512_loadu_ps(r1 + j), s1);
        s2 = _mm512_fmadd_ps(qv, _mm512_loadu_ps(r2 + j), s2);
        s3 = _mm512_fmadd_ps(qv, _mm512_loadu_ps(r3 + j), s3);
      }
      out[i] = ReduceAdd512(s0);
      out[i + 1] = ReduceAdd512(s1);
      out[i + 2] = ReduceAdd512(s2);
      out[i + 3] = ReduceAdd512(s3);
    }
  }
  for (; i < n; ++i) out[i] = DotF32Avx512Inline(q, base + i * dim, dim);
}

__attribute__((target("avx512f,avx512bw,avx2,fma"))) void DotI8BatchAvx512(const int8_t* q,
                                                                  const int8_t* base, size_t n,
                                                                  size_t dim, int32_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = DotI8Avx512Inline(q, base + i * dim, dim);
}

const VectorKernels kGeneric = {DotF32Generic, DotI8Generic, DotF32BatchGeneric,
                                DotI8BatchGeneric, "generic"};
const VectorKernels kAvx2 = {DotF32Avx2, DotI8Avx2, DotF32BatchAvx2, DotI8BatchAvx2, "avx2"};
const VectorKernels kAvx512 = {DotF32Avx512, DotI8Avx512, DotF32BatchAvx512, DotI8BatchAvx512,
                               "avx512"};

bool HasAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
bool HasAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}

const VectorKernels& ChooseKernels() {
  const char* cap = std::getenv("SKALD_SIMD");
  std::string_view limit = cap ? cap : "avx512";
  if (limit == "generic") return kGeneric;
  if (limit != "avx2" && HasAvx512()) return kAvx512;
  if (HasAvx2()) return kAvx2;
  return kGeneric;
}

// ---- CRC-32C ----

std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    table[i] = c;
  }
  return table;
}

uint32_t Crc32cSoftware(uint32_t c, const uint8_t* p, size_t n) {
  static const std::array<uint32_t, 256> table = MakeCrcTable();
  for (size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c;
}

__attribute__((target("sse4.2"))) uint32_t Crc32cHardware(uint32_t c, const uint8_t* p,
                                                          size_t n) {
  uint64_t c64 = c;
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c64 = _mm_crc32_u64(c64, word);
    p += 8;
    n -= 8;
  }
  c = static_cast<uint32_t>(c64);
  while (n > 0) {
    c = _mm_crc32_u8(c, *p++);
    --n;
  }
  return c;
}

bool HasSse42() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}

}  // namespace

const VectorKernels& GetVectorKernels() {
  static const VectorKernels& chosen = ChooseKernels();
  return chosen;
}

const VectorKernels* GetVectorKernelsFor(const char* name) {
  std::string_view n = name;
  if (n == "generic") return &kGeneric;
  if (n == "avx2") return HasAvx2() ? &kAvx2 : nullptr;
  if (n == "avx512") return HasAvx512() ? &kAvx512 : nullptr;
  return nullptr;
}

void NormalizeL2(float* v, size_t dim) {
  double sum = 0;
  for (size_t i = 0; i < dim; ++i) sum += double{v[i]} * v[i];
  if (sum <= 0) return;
  float inv = static_cast<float>(1.0 / std::sqrt(sum));
  for (size_t i = 0; i < dim; ++i) v[i] *= inv;
}

float QuantizeInt8(const float* v, size_t dim, int8_t* codes) {
  float max_abs = 0;
  for (size_t i = 0; i < dim; ++i) max_abs = std::max(max_abs, std::fabs(v[i]));
  if (max_abs == 0) {
    std::memset(codes, 0, dim);
    return 0;
  }
  float scale = max_abs / 127.0f;
  float inv = 127.0f / max_abs;
  for (size_t i = 0; i < dim; ++i) {
    float c = std::nearbyint(v[i] * inv);
    codes[i] = static_cast<int8_t>(std::clamp(c, -127.0f, 127.0f));
  }
  return scale;
}

uint32_t Crc32c(uint32_t crc, const void* data, size_t n) {
  static const bool hardware = HasSse42();
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t c = ~crc;
  c = hardware ? Crc32cHardware(c, p, n) : Crc32cSoftware(c, p, n);
  return ~c;
}

}  // namespace skald
