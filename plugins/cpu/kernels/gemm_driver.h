// RunGemm: a batch of matrix products C[b] = A[b]·B[b], cache-blocked around
// the micro-kernels of gemm.h and split across the thread pool.
//
// Note [GEMM threading]: the work is cut into tiles, a tile being one
// product's rows [i0, i1) × columns [j0, j1) over all of K, and one parallel
// region runs them all: each thread takes the next tile from a shared
// counter until none is left, so a slow thread (a busy or descheduled core)
// simply takes fewer. PlanGemm picks the tile grid per product from a cost
// model (the largest tile's compute and packing, a per-tile overhead, the
// imbalance a slow thread causes, and a few microseconds per thread to wake
// the pool), so one large product is split into a few row (or column)
// blocks per thread, a large batch of small products runs one product per
// tile, and tiny problems stay on the calling thread. When several tiles
// would each pack the same B (a product split by rows, or a B shared by
// every batch index, as `linear` on a 3-D input), B goes into one shared
// buffer instead, packed group by group (SharedGroup rows × columns) by
// the first tile that needs each group while the others that need it wait;
// the A block is always packed by the tile that uses it. Scratch comes from
// a process-wide cache, so repeated calls do not fault in fresh pages.
//
// Within a tile the loops are GotoBLAS's: column panels of NC, then K in
// blocks of KC, then row blocks of MC, each step packing what it needs.
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_GEMM_DRIVER_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_GEMM_DRIVER_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <thread>

#include "kernels/gemm.h"
#include "kernels/parallel.h"

namespace sy::cpu {

// Blocking, in elements: a KC×NR sliver of B stays in L1, an MC×KC block of
// A in L2, a KC×NC panel of B in L3. Tuned on 2 MiB-L2 Xeons (Sapphire
// Rapids class): 288 × 1024 beat 144 × 2048 by up to 30% at 2048³.
inline constexpr int64_t kGemmKc = 256;
inline constexpr int64_t kGemmMc = 288;   // a multiple of kGemmMr
inline constexpr int64_t kGemmNc = 1024;  // a multiple of every NR
// Buffered products (below) keep a tile's rows × this many columns of C in
// the compute type, and at most this many rows per tile.
inline constexpr int64_t kGemmNcBuffered = 512;
inline constexpr int64_t kGemmMaxBufferedRows = 1024;

struct GemmSizes {
  int64_t batch, m, n, k;
};

// How RunGemm cuts a problem (see Note [GEMM threading]).
struct GemmPlan {
  int64_t tile_m, tile_n;    // rows and columns per tile (the last may be
                             // smaller); multiples of kGemmMr and nr
  int64_t tiles_m, tiles_n;  // tiles per product
  bool prepack_b;            // B packed once per product (or once in all,
                             // when shared) into a buffer the tiles share
  int64_t wave;              // batch indices per parallel region (the
                             // shared buffer's size is capped)
};

// The plan for `sizes` with micro-kernel width `nr`, `elem_size`-byte compute
// elements, on `threads` threads. `buffered` products keep C in a scratch
// tile (kGemmMaxBufferedRows rows at most); `shared_b` means every batch
// index has the same B. A shared packed B is kept under 256 MiB (in waves
// of batch indices; a single larger one is not shared). Thread-safe.
GemmPlan PlanGemm(const GemmSizes& sizes, int nr, size_t elem_size,
                  bool buffered, bool shared_b, int threads);

// Scratch memory, 64-byte aligned, from a process-wide cache of blocks
// (freed when the library unloads). Throws std::bad_alloc. Thread-safe.
class GemmScratch {
 public:
  explicit GemmScratch(size_t bytes);
  ~GemmScratch();
  GemmScratch(const GemmScratch&) = delete;
  GemmScratch& operator=(const GemmScratch&) = delete;

  template <class T>
  T* as() const {
    return static_cast<T*>(block_);
  }

 private:
  void* block_ = nullptr;
  size_t size_ = 0;
};

// RunGemm's view of a problem. P provides:
//   using Compute = S;  // float, double, uint32_t or uint64_t
//   // C goes through Store instead of being accumulated in place.
//   static constexpr bool kBuffered;
//   bool shared_b() const;  // every batch index has the same B
//   bool b_columns_contiguous() const;  // B's unit stride is along K
//   // Packs A[batch] rows [i0, i0+mc) × cols [p0, p0+kc) (PackA's layout).
//   void PackA(int64_t batch, int64_t i0, int64_t p0, int64_t mc,
//              int64_t kc, S* out) const;
//   // Packs B[batch] rows [p0, p0+kc) × cols [j0, j0+nc) (PackB's layout,
//   // slivers `sliver` elements apart).
//   template <int NR> void PackB(int64_t batch, int64_t p0, int64_t j0,
//                                int64_t kc, int64_t nc, S* out,
//                                int64_t sliver) const;
//   // Unbuffered: &C[batch](i, j) as S*, and C's element strides.
//   S* CAt(int64_t batch, int64_t i, int64_t j) const;
//   int64_t c_rs() const, c_cs() const;
//   // Buffered: writes C[batch] rows [i0, i0+mc) × cols [j0, j0+nc) from
//   // buf (row stride ld).
//   void Store(int64_t batch, int64_t i0, int64_t j0, int64_t mc,
//              int64_t nc, const S* buf, int64_t ld) const;
// Every member may be called concurrently for different tiles. K = 0 gives
// zeros (through Store, when buffered). Throws std::bad_alloc.
template <class P>
void RunGemm(const P& p, const GemmSizes& sizes);

// ---- Implementation ------------------------------------------------------

namespace gemm_internal {

constexpr int64_t RoundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }
constexpr int64_t CeilDiv(int64_t x, int64_t m) { return (x + m - 1) / m; }

// A shared packed B is packed in groups of rows × columns (a divisor of
// kGemmKc × a multiple of every NR), each by the first tile that needs it,
// while the other tiles that need it wait: tiles that start together pack
// B together. A group is long along B's unit stride, so that packing reads
// long runs: 64 × 256 when B's rows are contiguous, 256 × 64 when its
// columns are (a transposed weight).
struct SharedGroup {
  int64_t rows, cols;
};
inline SharedGroup SharedGroupFor(bool columns_contiguous) {
  return columns_contiguous ? SharedGroup{256, 64} : SharedGroup{64, 256};
}
enum : uint32_t { kUnpacked = 0, kPacking = 1, kPacked = 2 };

// Waits for a group another thread is packing (it packs without waiting
// on anything, so this ends).
inline void WaitPacked(const std::atomic<uint32_t>& state) {
  for (int spins = 0; state.load(std::memory_order_acquire) != kPacked;
       ++spins) {
    if (spins < 4096) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else {
      std::this_thread::yield();  // the packer may be descheduled
    }
  }
}

template <class P, int NR>
class Runner {
 public:
  using S = typename P::Compute;

  Runner(const P& p, const GemmSizes& sizes, const MicroKernel<S>& kernel)
      : p_(p),
        s_(sizes),
        macro_(kernel.macro),
        plan_(PlanGemm(sizes, NR, sizeof(S), P::kBuffered, p.shared_b(),
                       NumThreads())),
        nc_max_(P::kBuffered ? kGemmNcBuffered : kGemmNc),
        n_pad_(RoundUp(sizes.n, NR)),
        k_blocks_(CeilDiv(sizes.k, kGemmKc)),
        group_(SharedGroupFor(p.b_columns_contiguous())),
        subs_(kGemmKc / group_.rows),
        groups_(CeilDiv(sizes.n, group_.cols)) {}

  void Run() {
    const int64_t tiles = plan_.tiles_m * plan_.tiles_n;
    // The shared packed B (one slot per batch index of a wave, or one for
    // all when B is shared) and the state of each of its groups.
    std::optional<GemmScratch> packed;
    std::unique_ptr<std::atomic<uint32_t>[]> states;
    const int64_t slots = p_.shared_b() ? 1 : plan_.wave;
    const int64_t slot_states = k_blocks_ * subs_ * groups_;
    if (plan_.prepack_b) {
      packed.emplace(static_cast<size_t>(slots * s_.k * n_pad_) * sizeof(S));
      states.reset(new std::atomic<uint32_t>[slots * slot_states]());
    }
    for (int64_t b0 = 0; b0 < s_.batch; b0 += plan_.wave) {
      const int64_t b1 = std::min(s_.batch, b0 + plan_.wave);
      if (plan_.prepack_b && b0 > 0 && !p_.shared_b()) {
        for (int64_t i = 0; i < slots * slot_states; ++i) {
          states[i].store(kUnpacked, std::memory_order_relaxed);
        }
      }
      Parallel((b1 - b0) * tiles, [&](int64_t t, S* a_buf, S* b_buf, S* c_buf) {
        const int64_t batch = b0 + t / tiles;
        const int64_t r = t % tiles;
        const int64_t i0 = r / plan_.tiles_n * plan_.tile_m;
        const int64_t j0 = r % plan_.tiles_n * plan_.tile_n;
        Shared shared;
        if (plan_.prepack_b) {
          const int64_t slot = p_.shared_b() ? 0 : batch - b0;
          shared = {packed->as<S>() + slot * s_.k * n_pad_,
                    states.get() + slot * slot_states};
        }
        Tile(batch, i0, std::min(s_.m, i0 + plan_.tile_m), j0,
             std::min(s_.n, j0 + plan_.tile_n), shared, a_buf, b_buf, c_buf);
      });
    }
  }

 private:
  // One batch index's slot of the shared packed B: K rows × n_pad_ columns
  // in blocks of kGemmKc rows, each block NR-column slivers (the block at
  // row p0 starts at p0 * n_pad_, its column j0 at j0 * kc).
  struct Shared {
    S* data = nullptr;
    std::atomic<uint32_t>* states = nullptr;  // k_blocks_ × subs_ × groups_
  };

  // Runs fn(task, a_buf, b_buf, c_buf) for tasks [0, n) on the pool: each
  // thread takes the next task until none is left, so a slow thread takes
  // fewer. A failed allocation stops the remaining tasks and is rethrown
  // here (ParallelFor bodies must not throw).
  template <class Fn>
  void Parallel(int64_t n, const Fn& fn) {
    const int64_t tile_m = std::min(plan_.tile_m, s_.m);
    const int64_t nc = std::min(nc_max_, RoundUp(plan_.tile_n, NR));
    const size_t a_elems = static_cast<size_t>(RoundUp(
        RoundUp(std::min(kGemmMc, tile_m), kGemmMr) * std::min(kGemmKc, s_.k),
        16));
    const size_t b_elems =
        plan_.prepack_b
            ? 0
            : static_cast<size_t>(RoundUp(std::min(kGemmKc, s_.k) * nc, 16));
    const size_t c_elems =
        P::kBuffered ? static_cast<size_t>(RoundUp(tile_m * nc, 16)) : 0;
    std::atomic<int64_t> next{0};
    std::atomic<bool> failed{false};
    ParallelFor(std::min<int64_t>(n, NumThreads()), 1, [&](int64_t, int64_t) {
      try {
        GemmScratch scratch((a_elems + b_elems + c_elems) * sizeof(S));
        S* a_buf = scratch.as<S>();
        for (int64_t t;
             !failed.load(std::memory_order_relaxed) &&
             (t = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
          fn(t, a_buf, a_buf + a_elems, a_buf + a_elems + b_elems);
        }
      } catch (const std::bad_alloc&) {
        failed.store(true);
      }
    });
    if (failed.load()) throw std::bad_alloc();
  }

  // The packed panel of B rows [pc, pc+kc) × cols [jc, jc+nc) in `shared`,
  // packing the groups no other tile has claimed and waiting for the rest.
  const S* Panel(int64_t batch, const Shared& shared, int64_t pc, int64_t kc,
                 int64_t jc, int64_t nc) const {
    std::atomic<uint32_t>* states =
        shared.states + pc / kGemmKc * subs_ * groups_;
    S* block = shared.data + pc * n_pad_;
    const int64_t subs = CeilDiv(kc, group_.rows);
    const int64_t g0 = jc / group_.cols;
    const int64_t g1 = CeilDiv(jc + nc, group_.cols);
    for (int64_t sub = 0; sub < subs; ++sub) {
      for (int64_t g = g0; g < g1; ++g) {
        std::atomic<uint32_t>& state = states[sub * groups_ + g];
        uint32_t expected = kUnpacked;
        if (state.load(std::memory_order_relaxed) == kUnpacked &&
            state.compare_exchange_strong(expected, kPacking,
                                          std::memory_order_acquire)) {
          const int64_t p = sub * group_.rows;
          const int64_t j = g * group_.cols;
          p_.template PackB<NR>(batch, pc + p, j, std::min(group_.rows, kc - p),
                                std::min(group_.cols, s_.n - j),
                                block + j * kc + p * NR, kc * NR);
          state.store(kPacked, std::memory_order_release);
        }
      }
    }
    for (int64_t sub = 0; sub < subs; ++sub) {
      for (int64_t g = g0; g < g1; ++g) WaitPacked(states[sub * groups_ + g]);
    }
    return block + jc * kc;
  }

  // C[batch] rows [i0, i1) × cols [j0, j1) over all of K, with B from
  // `shared` when it has data, else packed into b_buf.
  void Tile(int64_t batch, int64_t i0, int64_t i1, int64_t j0, int64_t j1,
            const Shared& shared, S* a_buf, S* b_buf, S* c_buf) const {
    const int64_t ld = RoundUp(std::min(nc_max_, j1 - j0), NR);
    for (int64_t jc = j0; jc < j1; jc += nc_max_) {
      const int64_t nc = std::min(nc_max_, j1 - jc);
      S* c = c_buf;
      int64_t c_rs = ld, c_cs = 1;
      if constexpr (!P::kBuffered) {
        c = p_.CAt(batch, i0, jc);
        c_rs = p_.c_rs();
        c_cs = p_.c_cs();
      }
      if (s_.k == 0) {
        for (int64_t i = 0; i < i1 - i0; ++i) {
          for (int64_t j = 0; j < nc; ++j) c[i * c_rs + j * c_cs] = S{};
        }
      }
      for (int64_t pc = 0; pc < s_.k; pc += kGemmKc) {
        const int64_t kc = std::min(kGemmKc, s_.k - pc);
        const S* bp;
        if (shared.data != nullptr) {
          bp = Panel(batch, shared, pc, kc, jc, nc);
        } else {
          p_.template PackB<NR>(batch, pc, jc, kc, nc, b_buf, kc * NR);
          bp = b_buf;
        }
        for (int64_t ic = i0; ic < i1; ic += kGemmMc) {
          const int64_t mc = std::min(kGemmMc, i1 - ic);
          p_.PackA(batch, ic, pc, mc, kc, a_buf);
          macro_(mc, nc, kc, a_buf, bp, c + (ic - i0) * c_rs, c_rs, c_cs,
                 /*accumulate=*/pc > 0);
        }
      }
      if constexpr (P::kBuffered) {
        p_.Store(batch, i0, jc, i1 - i0, nc, c_buf, ld);
      }
    }
  }

  const P& p_;
  const GemmSizes s_;
  decltype(MicroKernel<S>::macro) macro_;
  const GemmPlan plan_;
  const int64_t nc_max_;
  const int64_t n_pad_;
  const int64_t k_blocks_;
  const SharedGroup group_;
  const int64_t subs_;    // groups per kGemmKc rows
  const int64_t groups_;  // groups across n
};

}  // namespace gemm_internal

template <class P>
void RunGemm(const P& p, const GemmSizes& sizes) {
  using S = typename P::Compute;
  if (sizes.batch <= 0 || sizes.m <= 0 || sizes.n <= 0) return;
  const MicroKernel<S>& kernel = ActiveGemmKernel().template For<S>();
  switch (kernel.nr) {
    case 4:
      return gemm_internal::Runner<P, 4>(p, sizes, kernel).Run();
    case 8:
      return gemm_internal::Runner<P, 8>(p, sizes, kernel).Run();
    case 16:
      return gemm_internal::Runner<P, 16>(p, sizes, kernel).Run();
    default:
      return gemm_internal::Runner<P, 32>(p, sizes, kernel).Run();
  }
}

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_GEMM_DRIVER_H_
