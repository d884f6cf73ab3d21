// PlanGemm's cost model and the scratch cache; see Note [GEMM threading] in
// gemm_driver.h.
#include "kernels/gemm_driver.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace sy::cpu {
namespace {

using gemm_internal::CeilDiv;
using gemm_internal::RoundUp;

// Costs in micro-kernel flops (~130 GFLOP/s on one AVX-512 core). Packing
// an element (a load, a conversion, a store; often a cache miss) costs
// about as much as 32 flops; starting a tile (scratch, atomics, ragged
// micro-tiles) about a microsecond; waking the pool about 1.5 µs per thread
// (measured: 25 µs for 16 threads), paid once per parallel region.
constexpr double kPackCost = 32;
// The micro-kernel streams each packed B sliver from L2/L3 into L1 once per
// MC-row block and reuses it across the block's 6-row micro-tiles; a
// streamed element costs about 12 flops (a 6×32 tile does 384 flops per 32
// floats of B), so tiles of few rows run slower per flop.
constexpr double kReadBCost = 12;
constexpr double kTileCost = 1.5e5;
constexpr double kWakeCostPerThread = 2e5;
// One thread may run slower than the rest (a shared or busy core); with
// tiles taken one at a time, that costs about this fraction of a tile.
constexpr double kStragglerShare = 0.5;
// A shared packed B is capped at this much memory; batches whose Bs do not
// fit together run in waves.
constexpr int64_t kMaxPrepackBytes = int64_t{256} << 20;

struct Tiling {
  int64_t tile_m, tile_n, tiles_m, tiles_n;
};

// Splits `size` into about `parts` pieces, each a multiple of `unit` (but
// one piece covers all of it, padded or not).
std::pair<int64_t, int64_t> Split(int64_t size, int64_t parts, int64_t unit) {
  if (parts <= 1) return {size, 1};
  const int64_t piece = RoundUp(CeilDiv(size, parts), unit);
  if (piece >= size) return {size, 1};
  return {piece, CeilDiv(size, piece)};
}

class Planner {
 public:
  Planner(const GemmSizes& s, int nr, size_t elem_size, bool buffered,
          bool shared_b, int threads)
      : s_(s),
        nr_(nr),
        elem_size_(elem_size),
        buffered_(buffered),
        shared_b_(shared_b),
        threads_(std::max(threads, 1)) {}

  GemmPlan Plan() const {
    const int64_t min_tm =
        buffered_ ? CeilDiv(s_.m, kGemmMaxBufferedRows) : int64_t{1};
    GemmPlan best = Make(min_tm, 1);
    const double flops = 2.0 * s_.m * s_.n * std::max<int64_t>(s_.k, 1) *
                         static_cast<double>(s_.batch);
    if (threads_ == 1 || flops < 2 * kWakeCostPerThread * threads_) {
      return best;
    }
    double best_cost = Cost(best);
    // Beyond about 4 tiles per thread, tiles only get smaller.
    const int64_t limit = std::max(min_tm, CeilDiv(4 * threads_, s_.batch));
    const int64_t max_tm = std::min(CeilDiv(s_.m, kGemmMr), limit);
    const int64_t max_tn = std::min(CeilDiv(s_.n, nr_), limit);
    for (int64_t tm = min_tm; tm <= max_tm; ++tm) {
      for (int64_t tn = 1; tn <= max_tn && tm * tn <= limit; ++tn) {
        const GemmPlan plan = Make(tm, tn);
        const double cost = Cost(plan);
        if (cost < best_cost) {
          best = plan;
          best_cost = cost;
        }
      }
    }
    return best;
  }

 private:
  GemmPlan Make(int64_t tm, int64_t tn) const {
    GemmPlan plan;
    std::tie(plan.tile_m, plan.tiles_m) = Split(s_.m, tm, kGemmMr);
    std::tie(plan.tile_n, plan.tiles_n) = Split(s_.n, tn, nr_);
    // One product's B that would not fit the cap is packed by each tile
    // for itself (again per row tile, but in bounded memory).
    const int64_t per_batch =
        s_.k * RoundUp(s_.n, nr_) * static_cast<int64_t>(elem_size_);
    plan.prepack_b = s_.k > 0 && per_batch <= kMaxPrepackBytes &&
                     (plan.tiles_m > 1 || (shared_b_ && s_.batch > 1));
    plan.wave = s_.batch;
    if (plan.prepack_b && !shared_b_) {
      plan.wave =
          std::clamp<int64_t>(kMaxPrepackBytes / per_batch, 1, s_.batch);
    }
    return plan;
  }

  // Estimated time of `plan`, in flops of one thread.
  double Cost(const GemmPlan& plan) const {
    const double k = static_cast<double>(std::max<int64_t>(s_.k, 1));
    const double rows = static_cast<double>(RoundUp(plan.tile_m, kGemmMr));
    const double cols = static_cast<double>(RoundUp(plan.tile_n, nr_));
    const double panels = static_cast<double>(
        CeilDiv(plan.tile_n, buffered_ ? kGemmNcBuffered : kGemmNc));
    const double row_blocks =
        static_cast<double>(CeilDiv(plan.tile_m, kGemmMc));
    double tile = 2 * rows * cols * k + kPackCost * rows * k * panels +
                  kReadBCost * cols * k * row_blocks + kTileCost;
    if (!plan.prepack_b) tile += kPackCost * cols * k;
    const int64_t tiles = plan.wave * plan.tiles_m * plan.tiles_n;
    const int64_t threads = std::min(tiles, threads_);
    double wave = static_cast<double>(CeilDiv(tiles, threads_)) * tile;
    if (threads > 1) {
      wave += kStragglerShare * tile + kWakeCostPerThread * threads_;
    }
    if (plan.prepack_b) {  // packed once, shared by `threads` threads
      const double slots = shared_b_ ? 1.0 : static_cast<double>(plan.wave);
      wave += kPackCost * k * static_cast<double>(RoundUp(s_.n, nr_)) * slots /
              static_cast<double>(threads);
    }
    return static_cast<double>(CeilDiv(s_.batch, plan.wave)) * wave;
  }

  const GemmSizes s_;
  const int nr_;
  const size_t elem_size_;
  const bool buffered_, shared_b_;
  const int64_t threads_;
};

// Blocks handed back by GemmScratch, for the next one to reuse. A thread
// gets back a block it used itself when one fits: its lines are likely
// still in that core's caches, where another core would first have to take
// them over.
class ScratchCache {
 public:
  ~ScratchCache() {
    for (const Block& block : free_) std::free(block.data);
  }

  // A block of at least `bytes`: the smallest cached one that fits (one of
  // this thread's, if any fits), else a new one. Returns NULL data when
  // memory runs out.
  std::pair<void*, size_t> Take(size_t bytes) {
    const std::thread::id self = std::this_thread::get_id();
    {
      std::lock_guard lock(mutex_);
      size_t best = free_.size();
      for (size_t i = 0; i < free_.size(); ++i) {
        if (free_[i].size < bytes) continue;
        if (best == free_.size() || Better(free_[i], free_[best], self)) {
          best = i;
        }
      }
      if (best != free_.size()) {
        const Block block = free_[best];
        free_[best] = free_.back();
        free_.pop_back();
        cached_ -= block.size;
        return {block.data, block.size};
      }
    }
    const size_t size = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
    return {std::aligned_alloc(64, size), size};
  }

  void Give(void* data, size_t size) {
    {
      std::lock_guard lock(mutex_);
      if (cached_ + size <= kMaxCachedBytes) {
        // On bad_alloc the caller frees the block.
        free_.push_back({data, size, std::this_thread::get_id()});
        cached_ += size;
        return;
      }
    }
    std::free(data);
  }

 private:
  struct Block {
    void* data;
    size_t size;
    std::thread::id owner;  // the thread that last used it
  };

  static bool Better(const Block& a, const Block& b, std::thread::id self) {
    if ((a.owner == self) != (b.owner == self)) return a.owner == self;
    return a.size < b.size;
  }

  static constexpr size_t kMaxCachedBytes = size_t{256} << 20;
  std::mutex mutex_;
  std::vector<Block> free_;
  size_t cached_ = 0;
};

ScratchCache& Cache() {
  // Destroyed when the library unloads (after unload joined the pool).
  static ScratchCache cache;
  return cache;
}

}  // namespace

GemmPlan PlanGemm(const GemmSizes& sizes, int nr, size_t elem_size,
                  bool buffered, bool shared_b, int threads) {
  return Planner(sizes, nr, elem_size, buffered, shared_b, threads).Plan();
}

GemmScratch::GemmScratch(size_t bytes) {
  std::tie(block_, size_) = Cache().Take(bytes);
  if (block_ == nullptr) throw std::bad_alloc();
}

GemmScratch::~GemmScratch() {
  if (block_ == nullptr) return;
  try {
    Cache().Give(block_, size_);
  } catch (...) {  // the cache's vector could not grow
    std::free(block_);
  }
}

}  // namespace sy::cpu
