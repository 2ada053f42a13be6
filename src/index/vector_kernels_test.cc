#include "index/vector_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace skald {
namespace {

std::vector<const VectorKernels*> AllKernels() {
  std::vector<const VectorKernels*> out;
  for (const char* name : {"generic", "avx2", "avx512"}) {
    if (const VectorKernels* k = GetVectorKernelsFor(name)) out.push_back(k);
  }
  return out;
}

TEST(VectorKernelsTest, EveryLevelAgreesWithDoublePrecisionDot) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0, 1);
  for (const VectorKernels* k : AllKernels()) {
    for (size_t dim : {1, 3, 7, 8, 15, 16, 17, 31, 32, 33, 100, 128, 129, 384, 768, 1000}) {
      std::vector<float> a(dim), b(dim);
      for (size_t i = 0; i < dim; ++i) a[i] = normal(rng), b[i] = normal(rng);
      double ref = 0;
      for (size_t i = 0; i < dim; ++i) ref += double(a[i]) * b[i];
      EXPECT_NEAR(k->dot_f32(a.data(), b.data(), dim), ref, 1e-4 * std::sqrt(double(dim)))
          << k->name << " dim " << dim;
    }
  }
}

TEST(VectorKernelsTest, BatchMatchesSingle) {
  std::mt19937 rng(8);
  std::normal_distribution<float> normal(0, 1);
  std::uniform_int_distribution<int> byte(-127, 127);
  for (const VectorKernels* k : AllKernels()) {
    for (size_t dim : {5, 16, 48, 128, 130}) {
      const size_t n = 37;
      std::vector<float> q(dim), base(n * dim), out(n);
      std::vector<int8_t> q8(dim), base8(n * dim);
      std::vector<int32_t> out8(n);
      for (auto& x : q) x = normal(rng);
      for (auto& x : base) x = normal(rng);
      for (auto& x : q8) x = int8_t(byte(rng));
      for (auto& x : base8) x = int8_t(byte(rng));
      k->dot_f32_batch(q.data(), base.data(), n, dim, out.data());
      k->dot_i8_batch(q8.data(), base8.data(), n, dim, out8.data());
      for (size_t i = 0; i < n; ++i) {
        EXPECT_NEAR(out[i], k->dot_f32(q.data(), base.data() + i * dim, dim), 1e-3)
            << k->name << " dim " << dim << " row " << i;
        int32_t ref = 0;
        for (size_t j = 0; j < dim; ++j) ref += int32_t{q8[j]} * base8[i * dim + j];
        EXPECT_EQ(out8[i], ref) << k->name << " dim " << dim << " row " << i;
        EXPECT_EQ(k->dot_i8(q8.data(), base8.data() + i * dim, dim), ref);
      }
    }
  }
}

TEST(VectorKernelsTest, NormalizeAndQuantize) {
  std::vector<float> v = {3, 4, 0};
  NormalizeL2(v.data(), v.size());
  EXPECT_FLOAT_EQ(v[0], 0.6f);
  EXPECT_FLOAT_EQ(v[1], 0.8f);
  std::vector<float> zero(4, 0.0f);
  NormalizeL2(zero.data(), zero.size());
  EXPECT_EQ(zero[0], 0.0f);

  std::vector<float> x = {0.5f, -1.0f, 0.25f, 0.0f};
  std::vector<int8_t> codes(4);
  float scale = QuantizeInt8(x.data(), x.size(), codes.data());
  EXPECT_FLOAT_EQ(scale, 1.0f / 127);
  EXPECT_EQ(codes[1], -127);
  EXPECT_EQ(codes[0], 64);  // round(63.5) to even is 64
  EXPECT_EQ(codes[3], 0);
  EXPECT_EQ(QuantizeInt8(zero.data(), zero.size(), codes.data()), 0.0f);
}

TEST(VectorKernelsTest, Crc32cKnownValuesAndContinuation) {
  const std::string check = "123456789";
  EXPECT_EQ(Crc32c(0, check.data(), check.size()), 0xE3069283u);
  EXPECT_EQ(Crc32c(0, nullptr, 0), 0u);
  std::string long_text(1000, 'x');
  for (size_t i = 0; i < long_text.size(); ++i) long_text[i] = char(i * 31);
  uint32_t whole = Crc32c(0, long_text.data(), long_text.size());
  uint32_t part = Crc32c(0, long_text.data(), 333);
  part = Crc32c(part, long_text.data() + 333, long_text.size() - 333);
  EXPECT_EQ(whole, part);
  long_text[500] ^= 1;
  EXPECT_NE(Crc32c(0, long_text.data(), long_text.size()), whole);
}

}  // namespace
}  // namespace skald
