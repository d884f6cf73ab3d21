// ForEachRow: how the normalization kernels (softmax, log_softmax,
// layer_norm, rms_norm) walk their input. Each normalizes "rows": the
// elements that share every index outside a set of row dims (softmax: its
// dim; layer_norm: the trailing normalized dims; rms_norm: the last dim).
//
// A row function sees one row at a time as a dense array in the compute
// type (float for f16/bf16) and writes the result row beside it. When the
// element type is the compute type and a row is dense in both x and the
// output (the common case: the last dim of contiguous tensors), it reads x
// and writes the output in place; otherwise rows are gathered into per-chunk
// scratch, up to kRowTile rows at a time, converted, computed and scattered
// back (rounded once to the element type). Gathering several rows at once,
// one element of each per step, keeps the reads sequential when the row dim
// is not the innermost one (softmax over dim 0 of a row-major matrix).
// Rows are split across threads in chunks of at least kParallelGrain
// elements; the row function runs concurrently on disjoint rows.
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_NORM_ROWS_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_NORM_ROWS_H_

#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "kernels/reduce_util.h"
#include "kernels/strided.h"
#include "kernels/vector_math.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {

inline constexpr int64_t kRowTile = 16;

namespace internal {

// Copies n elements (at `step`) of each of `rows` rows (row t starts at
// x + t * row_step) to buf + t * ld, converting to C. Walks one element of
// every row per step when the rows are the contiguous direction.
template <class T, class C>
void GatherRun(C* buf, int64_t ld, const T* x, int64_t row_step, int64_t rows,
               int64_t n, int64_t step) {
  if constexpr (std::is_same_v<T, plugin::Half>) {
    if (step == 1) {  // F16C where the CPU has it
      for (int64_t t = 0; t < rows; ++t) {
        HalfToFloat(n, buf + t * ld, x + t * row_step);
      }
      return;
    }
  }
  if (step == 1 || rows == 1) {
    for (int64_t t = 0; t < rows; ++t) {
      for (int64_t i = 0; i < n; ++i) {
        buf[t * ld + i] = C(x[t * row_step + i * step]);
      }
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t t = 0; t < rows; ++t) {
      buf[t * ld + i] = C(x[t * row_step + i * step]);
    }
  }
}

// The inverse of GatherRun, rounding each element to T once.
template <class T, class C>
void ScatterRun(T* out, int64_t row_step, const C* buf, int64_t ld,
                int64_t rows, int64_t n, int64_t step) {
  if constexpr (std::is_same_v<T, plugin::Half>) {
    if (step == 1) {
      for (int64_t t = 0; t < rows; ++t) {
        FloatToHalf(n, out + t * row_step, buf + t * ld);
      }
      return;
    }
  }
  if (step == 1 || rows == 1) {
    for (int64_t t = 0; t < rows; ++t) {
      for (int64_t i = 0; i < n; ++i) {
        out[t * row_step + i * step] = T(buf[t * ld + i]);
      }
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t t = 0; t < rows; ++t) {
      out[t * row_step + i * step] = T(buf[t * ld + i]);
    }
  }
}

}  // namespace internal

// Calls row(in, out, n) for every row of x (element type T), where `in` and
// `out` are dense arrays of n = the row's element count in ReduceCompute<T> (they
// may be the same array), then stores `out` into the matching row of
// `output`. x and output have the same shape (checked by the caller);
// row_dim[d] marks the row dims. Allocates scratch before any thread
// starts, so it may throw std::bad_alloc; `row` must not throw.
template <class T, class RowFn>
void ForEachRow(const sy_tensor_view_t& x, const sy_tensor_view_t& output,
                const bool* row_dim, RowFn&& row) {
  using C = ReduceCompute<T>;
  int64_t outer[SY_MAX_RANK], outer_xs[SY_MAX_RANK], outer_os[SY_MAX_RANK];
  int64_t inner[SY_MAX_RANK], inner_xs[SY_MAX_RANK], inner_os[SY_MAX_RANK];
  int no = 0, ni = 0;
  int64_t len = 1;
  for (int d = 0; d < x.ndim; ++d) {
    if (row_dim[d]) {
      inner[ni] = x.shape[d];
      inner_xs[ni] = x.strides[d];
      inner_os[ni++] = output.strides[d];
      len *= x.shape[d];
    } else {
      outer[no] = x.shape[d];
      outer_xs[no] = x.strides[d];
      outer_os[no++] = output.strides[d];
    }
  }
  const StridedLayout<2> rows(std::span<const int64_t>(outer, no),
                              {outer_xs, outer_os});
  const std::span<const int64_t> row_shape(inner, ni);
  const StridedLayout<2> row_layout(row_shape, {inner_xs, inner_os});
  if (rows.numel() == 0 || len == 0) return;
  const T* px = plugin::DataPtr<const T>(x);
  T* po = plugin::DataPtr<T>(output);
  const int64_t grain = GrainFor(len);

  if constexpr (std::is_same_v<T, C>) {
    if (row_layout.all_dense()) {
      ParallelFor(rows.numel(), grain, [&](int64_t begin, int64_t end) {
        rows.ForEachRun(
            begin, end, [&](const auto& off, int64_t count, const auto& st) {
              for (int64_t t = 0; t < count; ++t) {
                row(px + off[0] + t * st[0], po + off[1] + t * st[1], len);
              }
            });
      });
      return;
    }
  }

  const int64_t tile =
      std::clamp<int64_t>((int64_t{1} << 16) / len, 1, kRowTile);
  // Scratch rows one cache line longer than a row: rows a power of two
  // apart would all map to the same L1 set while a tile is gathered.
  const int64_t ld = len + 64 / static_cast<int64_t>(sizeof(C));
  const int64_t chunks = NumChunks(rows.numel(), grain);
  std::vector<std::vector<C>> scratch(static_cast<size_t>(chunks));
  for (auto& s : scratch) s.resize(static_cast<size_t>(tile * ld));
  // Gathers a tile of rows, computes them in the scratch, scatters back.
  const auto tile_of_rows = [&](C* buf, const T* xb, T* ob, int64_t tn,
                                int64_t x_step, int64_t o_step) {
    int64_t pos = 0;
    plugin::ForEachStridedRun<1>(
        row_shape, {inner_xs}, [&](const auto& off, int64_t n, const auto& st) {
          internal::GatherRun(buf + pos, ld, xb + off[0], x_step, tn, n, st[0]);
          pos += n;
        });
    for (int64_t t = 0; t < tn; ++t) row(buf + t * ld, buf + t * ld, len);
    pos = 0;
    plugin::ForEachStridedRun<1>(
        row_shape, {inner_os}, [&](const auto& off, int64_t n, const auto& st) {
          internal::ScatterRun(ob + off[0], o_step, buf + pos, ld, tn, n,
                               st[0]);
          pos += n;
        });
  };
  ForEachChunk(
      rows.numel(), grain, [&](int64_t chunk, int64_t begin, int64_t end) {
        C* buf = scratch[chunk].data();
        rows.ForEachRun(
            begin, end, [&](const auto& off, int64_t count, const auto& st) {
              for (int64_t t0 = 0; t0 < count; t0 += tile) {
                tile_of_rows(buf, px + off[0] + t0 * st[0],
                             po + off[1] + t0 * st[1],
                             std::min(tile, count - t0), st[0], st[1]);
              }
            });
      });
}

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_NORM_ROWS_H_
