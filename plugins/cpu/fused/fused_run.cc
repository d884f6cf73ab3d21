// RunProgram: walking the domain in tiles (Note [Tiled evaluator]).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "fused/fused_array_ops.h"
#include "fused/fused_program.h"
#include "kernels/elementwise_engine.h"
#include "kernels/parallel.h"
#include "kernels/reduce_simd.h"
#include "switchyard/plugin/fused_ir.hpp"

namespace sy::cpu::fusion {
namespace {

using ::sy::plugin::fused::IsReduce;

size_t SizeOf(sy_dtype_t dtype) { return SY_DTYPE_BITS(dtype) / 8; }

template <class F>
void WithStorage(sy_dtype_t dtype, F&& f) {
  VisitDtype(dtype, [&]<sy_dtype_t D> { f.template operator()<Storage<D>>(); });
}

// n elements of `dtype`, `step` apart, at p → buf of C.
template <class C>
void LoadArray(C* buf, const char* p, sy_dtype_t dtype, int64_t step, int64_t n) {
  WithStorage(dtype, [&]<class S> {
    const S* src = reinterpret_cast<const S*>(p);
    if (step == 0) {
      std::fill_n(buf, n, Convert<C>(src[0]));
    } else {
      internal::Load(n, buf, src, step);
    }
  });
}

template <class C>
void StoreArray(char* p, sy_dtype_t dtype, int64_t step, const C* buf, int64_t n) {
  WithStorage(dtype, [&]<class S> { internal::Store(n, reinterpret_cast<S*>(p), step, buf); });
}

double LoadScalar(const char* p, sy_dtype_t dtype, Kind kind) {
  double v = 0;
  WithStorage(dtype, [&]<class S> {
    const S s = *reinterpret_cast<const S*>(p);
    v = kind == Kind::kF32 ? static_cast<double>(Convert<float>(s)) : Convert<double>(s);
  });
  return v;
}

void StoreScalar(char* p, sy_dtype_t dtype, Kind kind, double v) {
  WithStorage(dtype, [&]<class S> {
    *reinterpret_cast<S*>(p) =
        kind == Kind::kF32 ? Convert<S>(static_cast<float>(v)) : Convert<S>(v);
  });
}

template <class T>
T NanMax(T a, T b) {
  return a != a ? a : b != b ? b : a > b ? a : b;
}
template <class T>
T NanMin(T a, T b) {
  return a != a ? a : b != b ? b : a < b ? a : b;
}

// One thread's working memory for a run.
class State {
 public:
  explicit State(const Program& p)
      : p_(p),
        memory_(static_cast<double*>(std::aligned_alloc(
            64, static_cast<size_t>(std::max(p.num_slots, 1)) * kTile * sizeof(double)))),
        ptr_(p.steps.size(), nullptr),
        row_(p.steps.size(), 0.0),
        in_(p.inputs.size()),
        out_(p.outputs.size()) {
    // Per-element constants are the same everywhere: filled once.
    for (int v : p.broadcast_values) {
      if (p.steps[v].op == SY_FUSED_CONST) Fill(v, p.steps[v].imm);
    }
  }
  ~State() { std::free(memory_); }

  void* slot(int s) { return memory_ + static_cast<size_t>(s) * kTile; }

  // The value of a per-row instruction or reduction, as a tile buffer.
  void Fill(int v, double value) {
    const Step& s = p_.steps[v];
    void* buf = slot(p_.broadcast_slot[v]);
    // A tile never runs past the innermost dim: fill only that much.
    const int64_t n = std::min(kTile, p_.shape[p_.ndim - 1]);
    if (s.kind == Kind::kF32) {
      std::fill_n(static_cast<float*>(buf), n, static_cast<float>(value));
    } else {
      std::fill_n(static_cast<double*>(buf), n, value);
    }
    ptr_[v] = buf;
  }

  // Runs the per-element steps of `stage` over n elements whose operands
  // start at in_/out_ and step by the domain's innermost stride.
  void Tile(int stage, int64_t n);
  // Runs the per-row steps of `stage` for the row whose operands start at
  // in_/out_.
  void Row(int stage);

  template <class T>
  void Arith(const Step& s, int i, int64_t n);

  const Program& p_;
  double* memory_;
  std::vector<const void*> ptr_;
  std::vector<double> row_;  // per-row values and finished reductions
  std::vector<const char*> in_;
  std::vector<char*> out_;
  std::vector<double> acc_;  // reductions in progress
};

template <class T>
void State::Arith(const Step& s, int i, int64_t n) {
  T* out = static_cast<T*>(slot(s.slot));
  const T* a = static_cast<const T*>(ptr_[s.a]);
  if (s.op >= SY_FUSED_NEG && s.op <= SY_FUSED_GELU_TANH) {
    UnaryArray<T>(s.op, n, out, a);
  } else if (s.op >= SY_FUSED_ADD && s.op <= SY_FUSED_MINIMUM) {
    BinaryArray<T>(s.op, n, out, a, static_cast<const T*>(ptr_[s.b]));
  } else if (s.op == SY_FUSED_WHERE) {
    WhereArray<T>(n, out, static_cast<const float*>(ptr_[s.a]),
                  static_cast<const T*>(ptr_[s.b]), static_cast<const T*>(ptr_[s.c]));
  }
  if constexpr (std::is_same_v<T, float>) {
    if (s.dtype != SY_DTYPE_F32) RoundArray(s.dtype, n, out);
  }
  ptr_[i] = out;
}

void State::Tile(int stage, int64_t n) {
  const int last = p_.ndim - 1;
  for (int i : p_.elem_steps[stage]) {
    const Step& s = p_.steps[i];
    switch (s.op) {
      case SY_FUSED_LOAD: {
        const Operand& o = p_.inputs[s.index];
        const int64_t step = o.strides[last];
        if (step == 1 && ((s.kind == Kind::kF32 && o.dtype == SY_DTYPE_F32) ||
                          (s.kind == Kind::kF64 && o.dtype == SY_DTYPE_F64))) {
          ptr_[i] = in_[s.index];  // read in place
        } else if (s.kind == Kind::kF32) {
          LoadArray(static_cast<float*>(slot(s.slot)), in_[s.index], o.dtype, step, n);
          ptr_[i] = slot(s.slot);
        } else {
          LoadArray(static_cast<double*>(slot(s.slot)), in_[s.index], o.dtype, step, n);
          ptr_[i] = slot(s.slot);
        }
        break;
      }
      case SY_FUSED_STORE: {
        const Operand& o = p_.outputs[s.index];
        const int64_t step = o.strides[last];
        if (p_.steps[s.a].kind == Kind::kF32) {
          StoreArray(out_[s.index], o.dtype, step, static_cast<const float*>(ptr_[s.a]), n);
        } else {
          StoreArray(out_[s.index], o.dtype, step, static_cast<const double*>(ptr_[s.a]), n);
        }
        break;
      }
      case SY_FUSED_CAST: {
        const Step& src = p_.steps[s.a];
        if (s.kind == Kind::kF32) {
          float* out = static_cast<float*>(slot(s.slot));
          if (src.kind == Kind::kF32) {
            std::memcpy(out, ptr_[s.a], n * sizeof(float));
          } else {
            ConvertLoop(n, out, static_cast<const double*>(ptr_[s.a]));
          }
          if (s.dtype != SY_DTYPE_F32) RoundArray(s.dtype, n, out);
          ptr_[i] = out;
        } else if (src.kind == Kind::kF64) {
          ptr_[i] = ptr_[s.a];  // f64 ← f64 (or an integer carried as f64)
        } else {
          double* out = static_cast<double*>(slot(s.slot));
          ConvertLoop(n, out, static_cast<const float*>(ptr_[s.a]));
          ptr_[i] = out;
        }
        break;
      }
      case SY_FUSED_REDUCE_SUM:
      case SY_FUSED_REDUCE_MAX:
      case SY_FUSED_REDUCE_MIN: {
        if (n == 0) break;
        const bool f32 = p_.steps[s.a].kind == Kind::kF32;
        const void* x = ptr_[s.a];
        if (s.op == SY_FUSED_REDUCE_SUM) {
          acc_[i] += f32 ? simd::SumF(static_cast<const float*>(x), n)
                         : simd::SumF(static_cast<const double*>(x), n);
        } else {
          const double m = f32 ? static_cast<double>(
                                     s.op == SY_FUSED_REDUCE_MAX
                                         ? simd::Max(static_cast<const float*>(x), n)
                                         : simd::Min(static_cast<const float*>(x), n))
                               : (s.op == SY_FUSED_REDUCE_MAX
                                      ? simd::Max(static_cast<const double*>(x), n)
                                      : simd::Min(static_cast<const double*>(x), n));
          acc_[i] = s.op == SY_FUSED_REDUCE_MAX ? NanMax(acc_[i], m) : NanMin(acc_[i], m);
        }
        break;
      }
      default:
        if (s.op >= SY_FUSED_EQ && s.op <= SY_FUSED_GE) {
          float* out = static_cast<float*>(slot(s.slot));
          if (p_.steps[s.a].kind == Kind::kF32) {
            CompareArray<float>(s.op, n, out, static_cast<const float*>(ptr_[s.a]),
                                static_cast<const float*>(ptr_[s.b]));
          } else {
            CompareArray<double>(s.op, n, out, static_cast<const double*>(ptr_[s.a]),
                                 static_cast<const double*>(ptr_[s.b]));
          }
          ptr_[i] = out;
        } else if (s.kind == Kind::kF32) {
          Arith<float>(s, i, n);
        } else {
          Arith<double>(s, i, n);
        }
        break;
    }
  }
}

void State::Row(int stage) {
  for (int i : p_.row_steps[stage]) {
    const Step& s = p_.steps[i];
    const bool f32 = s.kind == Kind::kF32;
    double v = 0;
    switch (s.op) {
      case SY_FUSED_LOAD:
        v = LoadScalar(in_[s.index], p_.inputs[s.index].dtype, s.kind);
        break;
      case SY_FUSED_STORE:
        StoreScalar(out_[s.index], p_.outputs[s.index].dtype, p_.steps[s.a].kind, row_[s.a]);
        continue;
      case SY_FUSED_CONST:
        v = f32 ? static_cast<float>(s.imm) : s.imm;
        break;
      case SY_FUSED_CAST:
        v = f32 ? RoundScalar(s.dtype, static_cast<float>(row_[s.a])) : row_[s.a];
        break;
      case SY_FUSED_WHERE:
        v = row_[s.a] != 0.0 ? row_[s.b] : row_[s.c];
        break;
      default:
        if (s.op >= SY_FUSED_EQ && s.op <= SY_FUSED_GE) {
          v = p_.steps[s.a].kind == Kind::kF32
                  ? CompareScalar<float>(s.op, static_cast<float>(row_[s.a]),
                                         static_cast<float>(row_[s.b]))
                  : CompareScalar<double>(s.op, row_[s.a], row_[s.b]);
        } else if (s.op >= SY_FUSED_ADD && s.op <= SY_FUSED_MINIMUM) {
          v = f32 ? RoundScalar(s.dtype, BinaryScalar<float>(s.op, static_cast<float>(row_[s.a]),
                                                             static_cast<float>(row_[s.b])))
                  : BinaryScalar<double>(s.op, row_[s.a], row_[s.b]);
        } else {
          v = f32 ? RoundScalar(s.dtype, UnaryScalar<float>(s.op, static_cast<float>(row_[s.a])))
                  : UnaryScalar<double>(s.op, row_[s.a]);
        }
        break;
    }
    row_[i] = v;
  }
}

// Element offset of `index` (row-major over dims [begin, end)) for each
// operand.
void Offsets(const Program& p, int begin, int end, int64_t index,
             const std::vector<Operand>& operands, int64_t* out) {
  for (size_t k = 0; k < operands.size(); ++k) out[k] = 0;
  for (int d = end - 1; d >= begin; --d) {
    const int64_t i = index % p.shape[d];
    index /= p.shape[d];
    for (size_t k = 0; k < operands.size(); ++k) out[k] += i * operands[k].strides[d];
  }
}

struct Bases {
  std::vector<const char*> in;
  std::vector<char*> out;
  std::vector<size_t> in_size, out_size;
  Bases(const Program& p, const sy_tensor_view_t* inputs, const sy_tensor_view_t* outputs) {
    for (size_t k = 0; k < p.inputs.size(); ++k) {
      in.push_back(static_cast<const char*>(inputs[k].data) + inputs[k].byte_offset);
      in_size.push_back(SizeOf(p.inputs[k].dtype));
    }
    for (size_t k = 0; k < p.outputs.size(); ++k) {
      out.push_back(static_cast<char*>(outputs[k].data) + outputs[k].byte_offset);
      out_size.push_back(SizeOf(p.outputs[k].dtype));
    }
  }
};

void RunLoop(const Program& p, const Bases& b) {
  const int last = p.ndim - 1;
  const int64_t inner = p.shape[last];
  int64_t outer = 1;
  for (int d = 0; d < last; ++d) outer *= p.shape[d];
  const int64_t tiles_per_row = (inner + p.tile - 1) / p.tile;
  const int64_t tiles = outer * tiles_per_row;
  if (tiles == 0) return;
  const int64_t tile_elems = std::min(inner, p.tile);
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(tile_elems, 1));
  ParallelFor(tiles, grain, [&](int64_t begin, int64_t end) {
    State state(p);
    std::vector<int64_t> in_off(p.inputs.size()), out_off(p.outputs.size());
    int64_t current_outer = -1;
    for (int64_t t = begin; t < end; ++t) {
      const int64_t o = t / tiles_per_row;
      const int64_t j0 = (t % tiles_per_row) * p.tile;
      if (o != current_outer) {
        Offsets(p, 0, last, o, p.inputs, in_off.data());
        Offsets(p, 0, last, o, p.outputs, out_off.data());
        current_outer = o;
      }
      for (size_t k = 0; k < p.inputs.size(); ++k) {
        state.in_[k] = b.in[k] + (in_off[k] + j0 * p.inputs[k].strides[last]) * b.in_size[k];
      }
      for (size_t k = 0; k < p.outputs.size(); ++k) {
        state.out_[k] = b.out[k] + (out_off[k] + j0 * p.outputs[k].strides[last]) * b.out_size[k];
      }
      state.Tile(0, std::min(p.tile, inner - j0));
    }
  });
}

void RunRows(const Program& p, const sy_tensor_view_t* inputs,
             const sy_tensor_view_t* outputs) {
  const Bases b(p, inputs, outputs);
  const int last = p.ndim - 1;
  const int first_reduced = p.ndim - p.reduce_ndim;
  const int64_t inner = p.shape[last];
  int64_t row_outer = 1;  // the reduced dims but the innermost
  for (int d = first_reduced; d < last; ++d) row_outer *= p.shape[d];
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(p.row_length, 1));
  ParallelFor(p.rows, grain, [&](int64_t begin, int64_t end) {
    State state(p);
    state.acc_.assign(p.steps.size(), 0.0);
    std::vector<int64_t> in_row(p.inputs.size()), out_row(p.outputs.size());
    std::vector<int64_t> in_ro(p.inputs.size()), out_ro(p.outputs.size());
    for (int64_t r = begin; r < end; ++r) {
      Offsets(p, 0, first_reduced, r, p.inputs, in_row.data());
      Offsets(p, 0, first_reduced, r, p.outputs, out_row.data());
      for (int stage = 0; stage < p.num_stages; ++stage) {
        for (size_t k = 0; k < p.inputs.size(); ++k) state.in_[k] = b.in[k] + in_row[k] * b.in_size[k];
        for (size_t k = 0; k < p.outputs.size(); ++k) {
          state.out_[k] = b.out[k] + out_row[k] * b.out_size[k];
        }
        state.Row(stage);
        for (int v : p.stage_fills[stage]) state.Fill(v, state.row_[v]);
        bool reduces = false;
        for (int i : p.elem_steps[stage]) {
          const int32_t op = p.steps[i].op;
          if (!IsReduce(op)) continue;
          reduces = true;
          state.acc_[i] = op == SY_FUSED_REDUCE_SUM ? 0.0
                          : op == SY_FUSED_REDUCE_MAX ? -std::numeric_limits<double>::infinity()
                                                      : std::numeric_limits<double>::infinity();
        }
        for (int64_t ro = 0; ro < row_outer; ++ro) {
          Offsets(p, first_reduced, last, ro, p.inputs, in_ro.data());
          Offsets(p, first_reduced, last, ro, p.outputs, out_ro.data());
          for (int64_t j0 = 0; j0 < inner; j0 += p.tile) {
            for (size_t k = 0; k < p.inputs.size(); ++k) {
              state.in_[k] = b.in[k] + (in_row[k] + in_ro[k] + j0 * p.inputs[k].strides[last]) *
                                           b.in_size[k];
            }
            for (size_t k = 0; k < p.outputs.size(); ++k) {
              state.out_[k] = b.out[k] +
                              (out_row[k] + out_ro[k] + j0 * p.outputs[k].strides[last]) *
                                  b.out_size[k];
            }
            state.Tile(stage, std::min(p.tile, inner - j0));
          }
        }
        if (!reduces) continue;
        for (int i : p.elem_steps[stage]) {
          const Step& s = p.steps[i];
          if (!IsReduce(s.op)) continue;
          state.row_[i] = s.kind == Kind::kF32
                              ? static_cast<double>(RoundScalar(s.dtype, static_cast<float>(state.acc_[i])))
                              : state.acc_[i];
        }
      }
    }
  });
}

}  // namespace

void RunProgram(const Program& p, const sy_tensor_view_t* inputs,
                const sy_tensor_view_t* outputs) {
  if (p.reduce_ndim > 0) return RunRows(p, inputs, outputs);
  RunLoop(p, Bases(p, inputs, outputs));
}

}  // namespace sy::cpu::fusion
