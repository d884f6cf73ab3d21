// PlanGemm, the cpu plugin's GEMM tiling policy (plugins/cpu/kernels/
// gemm_driver.h), tested directly: which problems it splits across threads
// and how. matmul_test.cc checks the products themselves.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "kernels/gemm_driver.h"

namespace sy::cpu {
namespace {

// The tiles cover [0, m) × [0, n) exactly, in multiples of the micro-tile.
void ExpectCovers(const GemmPlan& p, const GemmSizes& s, int nr) {
  EXPECT_GE(p.tiles_m, 1);
  EXPECT_GE(p.tiles_n, 1);
  EXPECT_LT((p.tiles_m - 1) * p.tile_m, s.m);
  EXPECT_GE(p.tiles_m * p.tile_m, s.m);
  EXPECT_LT((p.tiles_n - 1) * p.tile_n, s.n);
  EXPECT_GE(p.tiles_n * p.tile_n, s.n);
  if (p.tiles_m > 1) {
    EXPECT_EQ(p.tile_m % kGemmMr, 0);
  }
  if (p.tiles_n > 1) {
    EXPECT_EQ(p.tile_n % nr, 0);
  }
  EXPECT_GE(p.wave, 1);
  EXPECT_LE(p.wave, s.batch);
}

TEST(GemmPlanTest, SplitsOneLargeProductAcrossEveryThread) {
  for (int threads : {2, 3, 16}) {
    for (int64_t size : {512, 1024, 2048}) {
      const GemmSizes s{1, size, size, size};
      const GemmPlan p = PlanGemm(s, 32, 4, false, false, threads);
      SCOPED_TRACE(std::to_string(threads) + " threads, " +
                   std::to_string(size));
      ExpectCovers(p, s, 32);
      EXPECT_GE(p.tiles_m * p.tiles_n, threads);
      EXPECT_EQ(p.prepack_b, p.tiles_m > 1);
    }
  }
}

TEST(GemmPlanTest, SplitsColumnsWhenThereAreFewRows) {
  const GemmSizes s{1, 7, 4096, 1024};
  const GemmPlan p = PlanGemm(s, 32, 4, false, false, 16);
  ExpectCovers(p, s, 32);
  EXPECT_GE(p.tiles_n, 8);
}

TEST(GemmPlanTest, KeepsSmallProductsWhole) {
  // A batch with enough products for every thread: one tile per product.
  GemmSizes s{256, 64, 64, 64};
  GemmPlan p = PlanGemm(s, 32, 4, false, false, 16);
  EXPECT_EQ(p.tiles_m * p.tiles_n, 1);
  EXPECT_FALSE(p.prepack_b);
  // Too little work to wake the pool.
  s = {1, 32, 32, 32};
  p = PlanGemm(s, 32, 4, false, false, 16);
  EXPECT_EQ(p.tiles_m * p.tiles_n, 1);
  // One thread never splits (beyond the buffered row cap).
  s = {1, 2048, 2048, 2048};
  p = PlanGemm(s, 32, 4, false, false, 1);
  EXPECT_EQ(p.tiles_m * p.tiles_n, 1);
}

TEST(GemmPlanTest, PacksASharedBOnce) {
  const GemmSizes s{16, 64, 512, 512};
  const GemmPlan p = PlanGemm(s, 32, 4, false, /*shared_b=*/true, 1);
  EXPECT_TRUE(p.prepack_b);
  EXPECT_EQ(p.wave, 16);
}

TEST(GemmPlanTest, CapsBufferedTilesAndSharedMemory) {
  GemmSizes s{1, 5000, 64, 64};
  GemmPlan p = PlanGemm(s, 16, 4, /*buffered=*/true, false, 1);
  ExpectCovers(p, s, 16);
  EXPECT_LE(p.tile_m, kGemmMaxBufferedRows);
  EXPECT_TRUE(p.prepack_b);  // several row tiles share B
  // Row tiles share B, 128 MiB of it per product: 2 products per wave.
  s = {3, 2048, 8192, 4096};
  p = PlanGemm(s, 32, 4, /*buffered=*/true, false, 1);
  ExpectCovers(p, s, 32);
  EXPECT_TRUE(p.prepack_b);
  EXPECT_EQ(p.wave, 2);
  // 512 MiB per product: each tile packs its own.
  s = {3, 2048, 16384, 8192};
  p = PlanGemm(s, 32, 4, /*buffered=*/true, false, 1);
  ExpectCovers(p, s, 32);
  EXPECT_GT(p.tiles_m, 1);
  EXPECT_FALSE(p.prepack_b);
}

TEST(GemmPlanTest, AlwaysCoversTheProduct) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> dim(1, 3000), batch(1, 40);
  for (int i = 0; i < 2000; ++i) {
    const GemmSizes s{batch(rng), dim(rng), dim(rng), dim(rng) / 3};
    const int nr = 4 << (i % 4);
    const int threads = 1 + i % 17;
    const bool buffered = i % 3 == 0, shared = i % 5 == 0;
    const GemmPlan p = PlanGemm(s, nr, 4, buffered, shared, threads);
    ExpectCovers(p, s, nr);
    if (buffered) {
      EXPECT_LE(p.tile_m, kGemmMaxBufferedRows);
    }
    if (HasFailure()) {
      FAIL() << "batch " << s.batch << " m " << s.m << " n " << s.n << " k "
             << s.k << " nr " << nr << " threads " << threads;
    }
  }
}

}  // namespace
}  // namespace sy::cpu
