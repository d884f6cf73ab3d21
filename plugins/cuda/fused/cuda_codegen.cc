#include "fused/cuda_codegen.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <utility>

#include "fused/bound_for_16.h"
#include "fused/cuda_prelude.h"
#include "fused/cuda_spelling.h"
#include "fused/online_softmax.h"
#include "fused/vector_width.h"
#include "switchyard/plugin/fused_codegen.hpp"
#include "switchyard/plugin/fused_ir.hpp"

namespace sy::cuda::fusion {
namespace {

using ::sy::plugin::fused::IsCompare;
using ::sy::plugin::fused::IsReduce;

constexpr ::sy::plugin::fused::Dialect kCuda = {"0.f", "1.f", "0.0", "1.0", CudaFunction};
constexpr ::sy::plugin::fused::IndexSyntax kIndex = {"sy_i64", "LL"};


// ---- Code writer ---------------------------------------------------------------

using Writer = ::sy::plugin::fused::CodeWriter;
using OperandPlan = ::sy::plugin::fused::OperandPlan;

std::string I64(int64_t v) { return std::to_string(v) + "LL"; }

class Generator {
 public:
  Generator(const sy_fused_kernel_t& k, const CodegenOptions& o) : k_(k), o_(o) {}

  bool Run(GeneratedKernel* out, std::string* error) {
    // A rank-0 domain runs as [1].
    ::sy::plugin::fused::Domain domain;
    if (!::sy::plugin::fused::ReadDomain(k_, &domain, error)) return false;
    ndim_ = domain.ndim;
    for (int d = 0; d < ndim_; ++d) shape_[d] = domain.shape[d];
    numel_ = domain.numel;
    rows_ = domain.rows;
    row_length_ = domain.row_length;
    if (!::sy::plugin::fused::PlanOperands(k_, domain, &operands_, error)) return false;
    entry_ = EntryName(k_.name);
    PlanVector();
    if (k_.reduce_ndim > 0) sum_pairs_ = FindOnlinePairs(k_);
    bound16_ = BoundFor16Bits(k_);
    std::string body = k_.reduce_ndim > 0 ? RowKernels(out) : LoopKernels(out);
    out->source = std::string(kPreamble) + body;
    return true;
  }

 private:
  // The vector entry's width, the operands it accesses VEC-wide and, for
  // rows of odd length, the shift (vector_width.h).
  void PlanVector() {
    const VectorPlan plan = PlanVectorWidth(operands_, shape_, ndim_, k_.reduce_ndim);
    vec_ = plan.vec;
    shifted_ = plan.shifted;
    shift_operand_ = plan.shift_operand;
    aligned_ = plan.aligned;
  }

  std::string Params() const {
    std::string params;
    for (const OperandPlan& p : operands_) {
      if (!params.empty()) params += ", ";
      params += std::string(p.output ? "" : "const ") + StorageOf(p.dtype).ctype +
                "* __restrict__ " + p.ptr;
    }
    return params;
  }

  // "o_k = i0*s0 + …" over dims [begin, end) of the domain, from the
  // linear index `index` of those dims.
  void Decompose(Writer& w, const std::string& prefix, const std::string& index, int begin,
                 int end, bool for_outputs_too) {
    ::sy::plugin::fused::EmitOffsets(w, shape_, operands_, kIndex, prefix, index, begin, end,
                                     for_outputs_too);
  }

  std::string Name(int i) const { return ::sy::plugin::fused::ValueName(k_, i); }

  // How an element loop reads input k's element: `expr`, a storage value,
  // or with `lane`, lane e of the storage vector `expr` (a bf16 lane then
  // converts from the 32-bit word that holds it: sy_b2f_at). Implicit
  // from a plain expression, which is what the scalar loops return.
  struct Element {
    Element(std::string e, bool l = false) : expr(std::move(e)), lane(l) {}  // NOLINT
    std::string expr;
    bool lane;
  };

  // One instruction as a statement, given how to read input k's element
  // (`load(k)`, an Element) and write output k's value (`store(k, v)`, v
  // the computed value: Stored gives its storage form).
  template <class Load, class Store>
  void Instr(Writer& w, int i, Load&& load, Store&& store) {
    const sy_fused_instr_t& in = k_.instrs[i];
    const bool wide = Wide(in.dtype);
    const std::string name = Name(i);
    const char* type = ValueType(in.dtype);
    auto arg = [&](int32_t j) { return j >= 0 ? Name(j) : std::string(); };
    switch (in.op) {
      case SY_FUSED_LOAD: {
        const Element x = load(in.index);
        w.Line(std::string("const ") + type + " " + name + " = " +
               (x.lane && in.dtype == SY_DTYPE_BF16
                    ? "sy_b2f_at(" + x.expr + ", e)"
                    : ToValue(in.dtype, x.lane ? x.expr + ".v[e]" : x.expr)) +
               ";");
        return;
      }
      case SY_FUSED_STORE:
        store(in.index, arg(in.a));
        return;
      case SY_FUSED_CONST:
        w.Line(std::string("const ") + type + " " + name + " = " + Literal(in.imm, wide) + ";");
        return;
      case SY_FUSED_CAST: {
        // To an integer dtype a value truncates toward zero (as a store
        // would), so a cast back to floating sees the integer.
        const bool integral = in.dtype == SY_DTYPE_I32 || in.dtype == SY_DTYPE_I64 ||
                              in.dtype == SY_DTYPE_I8 || in.dtype == SY_DTYPE_U8;
        const std::string v =
            integral ? std::string(wide ? "trunc((double)(" : "truncf((float)(") + arg(in.a) + "))"
                     : std::string("(") + type + ")(" + arg(in.a) + ")";
        w.Line(std::string("const ") + type + " " + name + " = " +
               (wide ? v : Round(in.dtype, v)) + ";");
        return;
      }
      default: {
        // Compares compute in their operands' type and give a float 0/1.
        const bool w_op = IsCompare(in.op) ? Wide(k_.instrs[in.a].dtype) : wide;
        std::string e = DividesByRow(i)  ? (DividesBySumOfExps(i) ? "sy_div16_by_sum("
                                                                   : "sy_div16_by(") +
                                               arg(in.a) + ", q" + std::to_string(i) + ")"
                        : SumsOfExps(i) ? "sy_exp16_ftz(" + arg(in.a) + ")"
                                         : Sixteen(SpelledAs(i), in.op, arg(in.a), arg(in.b));
        if (e.empty()) {
          e = ::sy::plugin::fused::OpExpr(in.op, w_op, kCuda, arg(in.a), arg(in.b), arg(in.c));
        }
        w.Line(std::string("const ") + type + " " + name + " = " +
               (wide ? e : Intermediate(in.dtype, e)) + ";");
        return;
      }
    }
  }

  // ---- Elementwise kernels ----------------------------------------------------

  std::string LoopKernels(GeneratedKernel* out) {
    Writer w;
    const int threads = 256;
    auto grid = [&](int64_t items) {
      const int64_t blocks = (items + threads - 1) / threads;
      return std::max<int64_t>(1, std::min<int64_t>(blocks, int64_t{o_.sm_count} * 16));
    };
    const int64_t inner = shape_[ndim_ - 1];
    // Scalar entry: one element per step, any alignment.
    w.Open("extern \"C\" __global__ void __launch_bounds__(" + std::to_string(threads) + ") " +
           entry_ + "_s(" + Params() + ")");
    w.Open("for (sy_i64 i = (sy_i64)blockIdx.x * blockDim.x + threadIdx.x; i < " + I64(numel_) +
           "; i += (sy_i64)gridDim.x * blockDim.x)");
    Decompose(w, "", "i", 0, ndim_, true);
    for (int i = 0; i < k_.num_instrs; ++i) {
      Instr(
          w, i,
          [&](int k) { return "__ldg(" + operands_[k].ptr + " + o" + operands_[k].ptr + ")"; },
          [&](int k, const std::string& v) {
            const OperandPlan& p = operands_[k_.num_inputs + k];
            w.Line(p.ptr + "[o" + p.ptr + "] = " + Stored(k, v) + ";");
          });
    }
    w.Close();
    w.Close();
    out->scalar = {entry_ + "_s", grid(numel_), threads, 0};
    const int flat = FlatVectorWidth(operands_, shape_, ndim_);
    if (flat > vec_) {
      // Every operand contiguous (or one element): the domain is one flat
      // array, VEC-wide whatever the innermost extent, and the last
      // numel % VEC elements are a scalar tail.
      const int64_t groups = numel_ / flat, tail = numel_ % flat;
      const std::string V = std::to_string(flat);
      vec_ = flat;
      w.Line("");
      w.Open("extern \"C\" __global__ void __launch_bounds__(" + std::to_string(threads) + ") " +
             entry_ + "(" + Params() + ")");
      for (const OperandPlan& p : operands_) w.Line("const sy_i64 o" + p.ptr + " = 0;");
      w.Open("for (sy_i64 g = (sy_i64)blockIdx.x * blockDim.x + threadIdx.x; g < " + I64(groups) +
             "; g += (sy_i64)gridDim.x * blockDim.x)");
      w.Line("const sy_i64 i = g * " + V + ";");
      VectorBody(w, "i");
      w.Close();
      if (tail > 0) {
        w.Line("// the scalar tail");
        w.Open("if (blockIdx.x == 0 && threadIdx.x < " + std::to_string(tail) + ")");
        w.Line("const sy_i64 t = " + I64(groups * flat) + " + threadIdx.x;");
        for (int i = 0; i < k_.num_instrs; ++i) {
          Instr(
              w, i,
              [&](int k) {
                const OperandPlan& p = operands_[k];
                return "__ldg(" + p.ptr + (p.all_zero ? "" : " + t") + ")";
              },
              [&](int k, const std::string& v) {
                const OperandPlan& p = operands_[k_.num_inputs + k];
                w.Line(p.ptr + (p.all_zero ? "[0]" : "[t]") + " = " + Stored(k, v) + ";");
              });
        }
        w.Close();
      }
      w.Close();
      out->vector = {entry_, grid(groups), threads, 0};
      aligned_.clear();
      for (size_t i = 0; i < operands_.size(); ++i) {
        if (!operands_[i].all_zero) aligned_.push_back(static_cast<int>(i));
      }
    } else if (vec_ > 1) {
      // Vector entry: VEC consecutive elements along the innermost dim.
      const int64_t groups = numel_ / vec_;
      w.Line("");
      w.Open("extern \"C\" __global__ void __launch_bounds__(" + std::to_string(threads) + ") " +
             entry_ + "(" + Params() + ")");
      w.Open("for (sy_i64 g = (sy_i64)blockIdx.x * blockDim.x + threadIdx.x; g < " + I64(groups) +
             "; g += (sy_i64)gridDim.x * blockDim.x)");
      w.Line("const sy_i64 i = g * " + std::to_string(vec_) + ";");
      w.Line("const sy_i64 inner = i % " + I64(inner) + ";");
      Decompose(w, "", "i / " + I64(inner), 0, ndim_ - 1, true);
      VectorBody(w, "inner");
      w.Close();
      w.Close();
      out->vector = {entry_, grid(groups), threads, 0};
    }
    out->vec = vec_;
    out->aligned_operands = aligned_;
    return w.str();
  }

  // Loads the inputs as VEC-wide registers, runs the instructions element
  // by element, and stores the outputs as VEC-wide registers. `base` is
  // the element index along the innermost dim (along the flat domain for
  // a flat walk); the operand's outer offset is in the variable named like
  // its pointer.
  void VectorBody(Writer& w, const std::string& base) {
    std::vector<int> steps;
    for (int i = 0; i < k_.num_instrs; ++i) steps.push_back(i);
    const std::string V = std::to_string(vec_);
    std::vector<bool> loaded(k_.num_inputs, false), stored(k_.num_outputs, false);
    for (int i : steps) {
      const sy_fused_instr_t& in = k_.instrs[i];
      if (in.op == SY_FUSED_LOAD && in.row_level == 0) loaded[in.index] = true;
      if (in.op == SY_FUSED_STORE && in.row_level == 0) stored[in.index] = true;
    }
    for (int k = 0; k < k_.num_inputs; ++k) {
      if (!loaded[k]) continue;
      const OperandPlan& p = operands_[k];
      const std::string t = StorageOf(p.dtype).ctype;
      if (p.unit_inner && !p.all_zero) {
        w.Line("const sy_vec<" + t + ", " + V + "> x" + std::to_string(k) +
               " = *reinterpret_cast<const sy_vec<" + t + ", " + V + ">*>(" + p.ptr + " + o" +
               p.ptr + " + " + base + ");");
      } else {
        w.Line("const " + t + " x" + std::to_string(k) + " = __ldg(" + p.ptr + " + o" + p.ptr +
               ");");
      }
    }
    for (int k = 0; k < k_.num_outputs; ++k) {
      if (stored[k]) DeclareOutputVector(w, k, vec_);
    }
    w.Line("#pragma unroll");
    w.Open("for (int e = 0; e < " + V + "; ++e)");
    for (int i : steps) {
      Instr(
          w, i,
          [&](int k) {
            const OperandPlan& p = operands_[k];
            return Element("x" + std::to_string(k), p.unit_inner && !p.all_zero);
          },
          [&](int k, const std::string& v) {
            w.Line("y" + std::to_string(k) + ".v[e] = " + OutputLane(k, v) + ";");
          });
    }
    w.Close();
    for (int k = 0; k < k_.num_outputs; ++k) {
      if (!stored[k]) continue;
      const OperandPlan& p = operands_[k_.num_inputs + k];
      StoreOutputVector(w, k, p.ptr + " + o" + p.ptr + " + " + base);
    }
  }

  // Output k's storage value of the computed value v.
  std::string Stored(int k, const std::string& v) const {
    return FromValue(k_.outputs[k].dtype, v);
  }

  // Note [Paired 16-bit stores]: a vector body gathers an f16 or bf16
  // output's v elements as f32 and rounds them two to an instruction at
  // the store (sy_store_pairs: cvt.rn.{bf16,f16}x2 from
  // sm_80), where rounding each as it is computed took a conversion an
  // element and a permute a pair to pack them — the same values.
  bool PairsAtStore(int k) const { return IsSixteenBit(k_.outputs[k].dtype); }
  void DeclareOutputVector(Writer& w, int k, int v) const {
    const std::string t = PairsAtStore(k) ? "float" : StorageOf(k_.outputs[k].dtype).ctype;
    w.Line("sy_vec<" + t + ", " + std::to_string(v) + "> y" + std::to_string(k) + ";");
  }
  std::string OutputLane(int k, const std::string& v) const {
    return PairsAtStore(k) ? "(float)(" + v + ")" : Stored(k, v);
  }
  void StoreOutputVector(Writer& w, int k, const std::string& address) const {
    const std::string store = !PairsAtStore(k)                          ? "sy_store("
                              : k_.outputs[k].dtype == SY_DTYPE_BF16 ? "sy_store_pairs<true>("
                                                                      : "sy_store_pairs<false>(";
    w.Line(store + address + ", y" + std::to_string(k) + ");");
  }

  // ---- Row kernels ------------------------------------------------------------

  // Note [Row kernel shapes] (cuda_codegen.h) is the why of these numbers.
  // sm_90's largest cluster. Past 8 (the portable size) a cluster is
  // non-portable: the kernel is opted in when it is loaded, and one whose
  // device cannot schedule it runs unfused (fused_kernels.cc). Only asked
  // for (SWITCHYARD_CUDA_FUSED_ROWS); no default or launch configuration
  // takes it (Note [Row kernel shapes]).
  static constexpr int kMaxCluster = 16;

  struct RowPlan {
    bool warp = true;
    int block = 256;
    int cluster = 1;          // blocks per row: a thread-block cluster (sm_90+)
    int kept_size = 0;        // widest kept input's element size (0: none kept)
    bool shared = false;      // kept inputs in shared memory, not registers
    std::vector<bool> kept;   // inputs read per element by more than one stage
    std::vector<int> first;   // the stage that loads a kept input
    int threads_per_row() const { return warp ? 32 : block * cluster; }
  };

  // Note [Rows kept in shared memory]: with row_shared, a block row keeps
  // its kept inputs in dynamic shared memory — the block's share of the
  // row, v-wide slots indexed [it * block + thread] so a warp's accesses
  // are consecutive — and its registers hold only the arithmetic. The
  // thread count follows the row as for rows with nothing kept (about 8
  // vector accesses per thread and stage), and the block count per SM is
  // bounded by shared memory (228 KiB an SM on sm_90) instead of the
  // register file: register-kept rows used 64–80 registers a thread, of
  // which 32 held the row, and ran one to three blocks an SM from rows of
  // 16384 bf16 on. Shared rows take blocks of up to 256 threads before a
  // cluster of up to 8 (SharedRowShape). By default (row_shared -1) 16-bit
  // rows are kept in shared memory, and 32-bit rows where a cluster of
  // such blocks holds the row but one block would not (f32 rows of 32769
  // … 65536); measured on the H100 (docs/fusion.md "Row kernels", bf16 at
  // 16384: softmax 0.74 of copy bandwidth in registers, 0.91 in shared
  // memory; f32 at 65536: 0.76 and 0.93; f32 at 4096 and 16384 lose 2–3 %
  // in shared memory, and at 262144, where a cluster needs blocks of 1024
  // threads and 128 KiB, 12 %). Where the block's share exceeds
  // row_max_shared the row is kept in registers.
  RowPlan PlanRows() const {
    if (o_.row_shared == 0) return PlanRows(false);
    RowPlan p = PlanRows(true);
    bool shared = o_.row_shared == 1;
    if (o_.row_shared < 0 && p.kept_size > 0) {
      const RowDefaults shaped = SharedRowShape();
      shared = p.kept_size <= 2 ||
               (p.kept_size == 4 && p.threads_per_row() > DefaultRowShape(4).max_block &&
                p.threads_per_row() <= shaped.max_block * shaped.max_cluster);
    }
    const int64_t room = o_.row_max_shared - ClusterSharedBytes(p);
    if (shared && p.shared && SharedBytes(p, vec_) <= room && SharedBytes(p, 1) <= room) {
      return p;
    }
    return PlanRows(false);
  }

  RowPlan PlanRows(bool shared) const {
    RowPlan p;
    p.kept.assign(k_.num_inputs, false);
    p.first.assign(k_.num_inputs, -1);
    if (k_.reduce_ndim == 1 && k_.num_stages > 1) {
      std::vector<int> uses(k_.num_inputs, 0);
      for (int i = 0; i < k_.num_instrs; ++i) {
        const sy_fused_instr_t& in = k_.instrs[i];
        if (in.op != SY_FUSED_LOAD || in.row_level == 1) continue;
        if (p.first[in.index] < 0) p.first[in.index] = in.stage;
        ++uses[in.index];
      }
      for (int k = 0; k < k_.num_inputs; ++k) {
        if (uses[k] < 2) continue;
        p.kept[k] = true;
        p.kept_size = std::max(p.kept_size, StorageOf(operands_[k].dtype).size);
      }
    }
    // Rows of up to 1024 elements go to a warp, longer ones to a block.
    p.warp = row_length_ <= 1024;
    if (p.warp) return p;
    p.shared = shared && p.kept_size > 0;
    // Threads enough that each keeps at most row_kept_bytes of every kept
    // input in registers (else about 8 vector accesses per stage).
    const int64_t per_thread = p.kept_size > 0 && !p.shared
                                   ? std::max<int64_t>(1, o_.row_kept_bytes / p.kept_size)
                                   : int64_t{8} * std::max(vec_, 1);
    const int64_t threads = (row_length_ + per_thread - 1) / per_thread;
    p.block = 128;
    while (p.block < 1024 && p.block < threads) p.block *= 2;
    // A row that needs more than the largest block's threads to stay in
    // registers spreads over a cluster (sm_90+) where the kept dtype takes
    // clusters: blocks of that size where 8 of them suffice, else twice as
    // large, up to 1024. Beyond 8 × 1024 threads, without clusters, or
    // before sm_90, one block re-reads the row per stage.
    const RowDefaults defaults = p.shared ? SharedRowShape() : DefaultRowShape(p.kept_size);
    const int max_block = o_.row_max_block > 0 ? o_.row_max_block : defaults.max_block;
    const int max_cluster = std::min(
        kMaxCluster, o_.row_max_cluster > 0 ? o_.row_max_cluster : defaults.max_cluster);
    if (threads > max_block && p.kept_size > 0 && o_.arch >= 90 && max_cluster > 1) {
      for (int block = std::max(32, max_block); block <= 1024; block *= 2) {
        int cluster = 1;
        while (cluster < max_cluster && int64_t{cluster} * block < threads) cluster *= 2;
        if (int64_t{cluster} * block >= threads) {
          p.block = block;
          p.cluster = cluster;
          break;
        }
      }
      // Note [Row kernel shapes]: one block of 1024 an SM leaves the SM's
      // memory idle while the block reduces; two blocks of 512 overlap.
      // Only the defaults split: a shape asked for stays as asked.
      if (defaults.split_block > 0 && o_.row_max_block == 0 && o_.row_max_cluster == 0 &&
          p.block == 1024 && p.cluster == max_cluster &&
          p.cluster * (1024 / defaults.split_block) <= kMaxCluster) {
        p.cluster *= 1024 / defaults.split_block;
        p.block = defaults.split_block;
      }
    }
    return p;
  }

  // Per thread: the steps of v elements along the innermost dim (for one
  // reduced dim; several reduced dims loop over the outer ones too). 0 for
  // rows of length 0: nothing to keep.
  int64_t RowIters(const RowPlan& plan, int v) const {
    const int64_t inner = k_.reduce_ndim == 1 ? shape_[ndim_ - 1] : row_length_;
    // Shifted rows (Note [Shifted rows]) have at most as many whole steps.
    return (inner / v + plan.threads_per_row() - 1) / plan.threads_per_row();
  }

  // Whether the row kernel's form of width v shifts its rows.
  bool Shifted(int v) const { return shifted_ && v > 1 && k_.reduce_ndim == 1; }

  // Bytes of one step of input k: v-wide where unit along the row.
  int LoadedBytes(int k, int v) const {
    const OperandPlan& p = operands_[k];
    return StorageOf(p.dtype).size * (v > 1 && p.unit_inner && !p.all_zero ? v : 1);
  }

  // Byte offset of kept input k's slots in the block's shared memory
  // (k == num_inputs: the total), each input's slots 16-byte aligned.
  int64_t SharedOffset(const RowPlan& plan, int v, int upto) const {
    int64_t at = 0;
    for (int k = 0; k < upto; ++k) {
      if (!plan.kept[k]) continue;
      at += (RowIters(plan, v) * plan.block * LoadedBytes(k, v) + 15) / 16 * 16;
    }
    return at;
  }
  int64_t SharedBytes(const RowPlan& plan, int v) const {
    return plan.shared ? SharedOffset(plan, v, k_.num_inputs) : 0;
  }

  std::string RowKernels(GeneratedKernel* out) {
    const RowPlan plan = PlanRows();
    const int rows_per_block = plan.warp ? plan.block / 32 : 1;
    const int64_t grid =
        std::max<int64_t>(1, (rows_ + rows_per_block - 1) / rows_per_block) * plan.cluster;
    Writer w;
    // The vector form needs one reduced dim (the innermost) and the
    // operands unit or zero along it.
    const bool can_vector = vec_ > 1 && k_.reduce_ndim == 1;
    for (int form = 0; form < (can_vector ? 2 : 1); ++form) {
      const bool vector = form == 1;
      const int v = vector ? vec_ : 1;
      const std::string name = vector ? entry_ : entry_ + "_s";
      RowKernel(w, name, plan, v);
      const LaunchShape shape{name, grid, plan.block, static_cast<int>(SharedBytes(plan, v)),
                              plan.cluster};
      (vector ? out->vector : out->scalar) = shape;
      w.Line("");
    }
    out->vec = can_vector ? vec_ : 1;
    if (can_vector) out->aligned_operands = aligned_;
    return (plan.cluster > 1 ? std::string(kClusterPreamble) : std::string()) + w.str();
  }

  void RowKernel(Writer& w, const std::string& name, const RowPlan& plan, int v) {
    const int first_reduced = ndim_ - k_.reduce_ndim;
    const int threads_per_row = plan.threads_per_row();
    const int64_t iters = RowIters(plan, v);
    // In registers, one element per step takes a whole register, however
    // narrow; in shared memory, the plan made room (PlanRows).
    const int64_t kept_bytes = iters * (v > 1 ? v * plan.kept_size : std::max(plan.kept_size, 4));
    const bool cache = plan.kept_size > 0 && iters >= 1 &&
                       (plan.shared || kept_bytes <= o_.row_kept_bytes);
    // How the element loop reads kept input k's slot after "c<k>".
    const std::string slot = plan.shared ? "[it * " + std::to_string(plan.block) + "]" : "[it]";
    std::string attrs = "__launch_bounds__(" + std::to_string(plan.block) + ")";
    if (plan.cluster > 1) {
      attrs = "__cluster_dims__(" + std::to_string(plan.cluster) + ", 1, 1) " + attrs;
    }
    w.Open("extern \"C\" __global__ void " + attrs + " " + name + "(" + Params() + ")");
    if (plan.cluster == 1) {
      w.Line("__shared__ float sy_buf_f[32];");
      w.Line("__shared__ double sy_buf_d[32];");
    }
    // Note [Online softmax]: in block and cluster rows, max-then-sum stage
    // pairs reduce once, as (max, sum) pairs. pair_max[i] / pair_sum[i]:
    // the pair instruction i opens / closes.
    const std::vector<OnlinePair> pairs = RowPairs(plan);
    row_pairs_ = pairs;
    std::vector<int> pair_max(k_.num_instrs, -1), pair_sum(k_.num_instrs, -1);
    for (size_t p = 0; p < pairs.size(); ++p) {
      pair_max[pairs[p].max] = static_cast<int>(p);
      pair_sum[pairs[p].sum] = static_cast<int>(p);
    }
    if (!pairs.empty() && plan.cluster == 1) w.Line("__shared__ sy_ms sy_buf_ms[32];");
    // Note [Cluster reductions by pushes] (cuda_prelude.cc): a barrier per
    // reduction, f32 ones first, then f64, then the online pairs, and
    // room for every warp's partial of each.
    cluster_ = plan.cluster > 1 ? CountClusterReductions(plan, pairs) : ClusterReductions{};
    cluster_reduces_ = 0;
    const int bars = cluster_.bars();
    if (bars > 0) {
      const std::string parts = std::to_string(cluster_.parts());
      w.Line("__shared__ __align__(8) unsigned long long sy_bars[" + std::to_string(bars) + "];");
      if (cluster_.f > 0) {
        w.Line("__shared__ float sy_parts_f[" + std::to_string(cluster_.f) + " * " + parts + "];");
      }
      if (cluster_.d > 0) {
        w.Line("__shared__ double sy_parts_d[" + std::to_string(cluster_.d) + " * " + parts + "];");
      }
      if (cluster_.ms > 0) {
        w.Line("__shared__ sy_ms sy_parts_ms[" + std::to_string(cluster_.ms) + " * " + parts + "];");
      }
    }
    if (plan.warp) {
      w.Line("const sy_i64 row = (sy_i64)blockIdx.x * " + std::to_string(plan.block / 32) +
             " + (threadIdx.x >> 5);");
      w.Line("const int lane = threadIdx.x & 31;");
    } else if (plan.cluster > 1) {
      // A cluster per row: 1-D clusters are consecutive blocks. Uniform
      // over the cluster, so no barrier is skipped by some of its threads.
      const std::string c = std::to_string(plan.cluster);
      w.Line("const sy_i64 row = blockIdx.x / " + c + ";");
      w.Line("const int lane = (int)(blockIdx.x % " + c + ") * " + std::to_string(plan.block) +
             " + threadIdx.x;");
    } else {
      // Uniform over the block (so no __syncthreads is skipped by some
      // threads): only an empty domain launches a block with no row.
      w.Line("const sy_i64 row = blockIdx.x;");
      w.Line("const int lane = threadIdx.x;");
    }
    w.Line("if (row >= " + I64(rows_) + ") return;");
    if (bars > 0) {
      w.Open("if (threadIdx.x == 0)");
      for (int b = 0; b < bars; ++b) {
        w.Line("sy_bar_init(sy_bars + " + std::to_string(b) + ", " +
               std::to_string(cluster_.BarBytes(b)) + "u);");
      }
      w.Close();
      w.Line("sy_cluster_begin();");
    }
    Decompose(w, "row_", "row", 0, first_reduced, true);
    // Note [Shifted rows]: the row's head (the elements before its first
    // aligned one), its whole steps and its tail, and each kept input's
    // edge element (of the head or tail) in one register.
    if (Shifted(v)) {
      const std::string V = std::to_string(v), inner = I64(shape_[ndim_ - 1]);
      w.Line("const sy_i64 sy_head = min((" + V + " - row_o" + operands_[shift_operand_].ptr + " % " + V +
             ") % " + V + ", " + inner + ");");
      w.Line("const sy_i64 sy_steps = (" + inner + " - sy_head) / " + V + ";");
      w.Line("const sy_i64 sy_edges = " + inner + " - sy_steps * " + V + ";");
      for (int k = 0; k < k_.num_inputs; ++k) {
        if (plan.kept[k]) {
          w.Line(std::string(StorageOf(operands_[k].dtype).ctype) + " ce" + std::to_string(k) +
                 " = 0;");
        }
      }
    }
    // Kept inputs stay in registers (or shared memory) as they are in
    // memory (storage dtype, v-wide), so f16/bf16 keep twice the elements
    // of f32.
    if (cache && plan.shared) {
      w.Line("extern __shared__ __align__(16) unsigned char sy_keep[];");
      for (int k = 0; k < k_.num_inputs; ++k) {
        if (!plan.kept[k]) continue;
        const std::string t = LoadedType(k, v);
        w.Line(t + "* const c" + std::to_string(k) + " = reinterpret_cast<" + t +
               "*>(sy_keep + " + std::to_string(SharedOffset(plan, v, k)) + ") + threadIdx.x;");
      }
    } else if (cache) {
      for (int k = 0; k < k_.num_inputs; ++k) {
        if (plan.kept[k]) {
          w.Line(LoadedType(k, v) + " c" + std::to_string(k) + "[" + std::to_string(iters) + "];");
        }
      }
    }
    int f_reduction = 0, d_reduction = 0;  // cluster rows' f32 and f64 ones so far
    for (int s = 0; s < k_.num_stages; ++s) {
      w.Line("// stage " + std::to_string(s));
      std::vector<int> row_steps, elem_steps;
      for (int i = 0; i < k_.num_instrs; ++i) {
        if (k_.instrs[i].stage != s) continue;
        (k_.instrs[i].row_level == 1 ? row_steps : elem_steps).push_back(i);
      }
      for (int i : row_steps) {
        Instr(
            w, i,
            [&](int k) { return "__ldg(" + operands_[k].ptr + " + row_o" + operands_[k].ptr + ")"; },
            [&](int k, const std::string& val) {
              const OperandPlan& p = operands_[k_.num_inputs + k];
              w.Line("if (lane == 0) " + p.ptr + "[row_o" + p.ptr + "] = " + Stored(k, val) + ";");
            });
      }
      if (elem_steps.empty()) continue;
      for (int i : elem_steps) {
        const sy_fused_instr_t& in = k_.instrs[i];
        if (!IsReduce(in.op)) continue;
        w.Line(std::string(ValueType(in.dtype)) + " a" + std::to_string(i) + " = " +
               ReduceInit(in) + ";");
        const int paired = PairReduced(i, v);
        if (paired >= 0) {
          w.Line("unsigned p" + std::to_string(i) + " = " + PairIdentity(i, paired) + ";");
        }
      }
      // Per kept input: whether this stage loads it into registers (its
      // first) or reads it from them.
      std::vector<int> keep(k_.num_inputs, 0);  // 0 memory, 1 fill, 2 read
      if (cache) {
        for (int k = 0; k < k_.num_inputs; ++k) {
          if (plan.kept[k]) keep[k] = plan.first[k] == s ? 1 : 2;
        }
      }
      // A pair's sum runs on the thread's own max, in a scope where that
      // is the max's name.
      int closing = -1;
      for (int i : elem_steps) closing = pair_sum[i] >= 0 ? i : closing;
      for (int i : elem_steps) {
        if (!DividesByRow(i)) continue;
        w.Line("const sy_rcp16 q" + std::to_string(i) + " = sy_rcp16_of(" +
               Name(k_.instrs[i].b) + ");");
      }
      if (closing >= 0) {
        const int m = pairs[pair_sum[closing]].max;
        w.Open("");
        w.Line("const float " + Name(m) + " = sy_online_base(a" + std::to_string(m) + ");");
      }
      ElementLoop(w, elem_steps, threads_per_row, v, iters, cache, keep, slot);
      if (closing >= 0) w.Close();
      for (int i : elem_steps) {
        const int paired = PairReduced(i, v);
        if (paired < 0) continue;
        const std::string a = "a" + std::to_string(i);
        w.Line(a + " = " + (k_.instrs[i].op == SY_FUSED_REDUCE_MAX ? "sy_maxf(" : "sy_minf(") +
               a + ", sy_pair_result<" + PairOp(i, paired) + ">(p" + std::to_string(i) + "));");
      }
      for (int i : elem_steps) {
        const sy_fused_instr_t& in = k_.instrs[i];
        if (!IsReduce(in.op) || pair_max[i] >= 0) continue;  // a pair reduces at its sum
        if (pair_sum[i] >= 0) {
          PairReduction(w, plan, pairs[pair_sum[i]], pair_sum[i]);
          continue;
        }
        const bool wide = Wide(in.dtype);
        const std::string op = in.op == SY_FUSED_REDUCE_SUM ? "sy_sum()"
                               : in.op == SY_FUSED_REDUCE_MAX ? "sy_max()"
                                                              : "sy_min()";
        const std::string acc = "a" + std::to_string(i);
        // max/min take the thread's own value as the identity of lanes
        // without one: it belongs to the row.
        const std::string identity =
            in.op == SY_FUSED_REDUCE_SUM ? (wide ? "0.0" : "0.f") : acc;
        const std::string buf = wide ? "sy_buf_d" : "sy_buf_f";
        std::string reduced;
        if (plan.warp) {
          reduced = "sy_warp_reduce(" + acc + ", " + op + ")";
        } else if (plan.cluster > 1) {
          // Barriers: the f32 reductions', then the f64 ones'.
          int& index = wide ? d_reduction : f_reduction;
          reduced = ClusterReduce(acc, op, wide ? "sy_parts_d" : "sy_parts_f", index,
                                  (wide ? cluster_.f : 0) + index, identity);
          ++index;
        } else {
          reduced = "sy_block_reduce(" + acc + ", " + op + ", " + buf + ", " + identity + ")";
        }
        w.Line(std::string("const ") + ValueType(in.dtype) + " r" + std::to_string(i) + " = " +
               (wide ? reduced : Intermediate(in.dtype, reduced)) + ";");
      }
    }
    w.Close();
  }

  // Note [Cluster reductions by pushes]: how many reductions of each value
  // type a cluster row makes, and the partials each receives.
  struct ClusterReductions {
    int f = 0, d = 0, ms = 0;  // f32, f64, (max, sum) pairs
    int ranks = 0, warps = 0;  // blocks of the cluster, warps of a block
    int parts() const { return ranks * warps; }
    int bars() const { return f + d + ms; }
    // The bytes barrier b counts: the f32 reductions' come first, then the
    // 8-byte ones (f64, pairs).
    int BarBytes(int b) const { return parts() * (b < f ? 4 : 8); }
    // The partials and barriers in shared memory.
    int64_t SharedBytes() const {
      int64_t bytes = 0;
      for (int b = 0; b < bars(); ++b) bytes += BarBytes(b) + 8;
      return bytes;
    }
  };
  // Note [Online softmax]: the (max, sum) pairs a row kernel of `plan`
  // reduces as one value.
  std::vector<OnlinePair> RowPairs(const RowPlan& plan) const {
    return o_.online_softmax && !plan.warp ? FindOnlinePairs(k_) : std::vector<OnlinePair>();
  }
  ClusterReductions CountClusterReductions(const RowPlan& plan,
                                           const std::vector<OnlinePair>& pairs) const {
    ClusterReductions n;
    n.ranks = plan.cluster;
    n.warps = plan.block / 32;
    n.ms = static_cast<int>(pairs.size());
    for (int i = 0; i < k_.num_instrs; ++i) {
      if (!IsReduce(k_.instrs[i].op)) continue;
      bool paired = false;
      for (const OnlinePair& p : pairs) paired = paired || p.max == i || p.sum == i;
      if (!paired) (Wide(k_.instrs[i].dtype) ? n.d : n.f) += 1;
    }
    return n;
  }
  // The shared memory a cluster row's reductions take (PlanRows' limit).
  int64_t ClusterSharedBytes(const RowPlan& plan) const {
    return plan.cluster == 1 ? 0 : CountClusterReductions(plan, RowPairs(plan)).SharedBytes();
  }

  // A call of sy_cluster_reduce: partials `parts` + index, barrier `bar`.
  std::string ClusterReduce(const std::string& acc, const std::string& op,
                            const std::string& parts, int index, int bar,
                            const std::string& identity) {
    const std::string first = cluster_reduces_++ == 0 ? "true" : "false";
    return "sy_cluster_reduce<" + std::to_string(cluster_.ranks) + ", " +
           std::to_string(cluster_.warps) + ">(" + acc + ", " + op + ", " + parts + " + " +
           std::to_string(index * cluster_.parts()) + ", sy_bars + " + std::to_string(bar) + ", " +
           identity + ", " + first + ")";
  }

  // A 16-bit division in a row kernel's element loop by one value of the
  // row (a reduction's result, or a row-level value): its reciprocal is
  // taken once per row, before the loop (sy_rcp16 in the prelude; Note
  // [16-bit results]), and each element multiplies.
  bool DividesByRow(int i) const {
    const sy_fused_instr_t& in = k_.instrs[i];
    const sy_dtype_t d = SpelledAs(i);
    if (k_.reduce_ndim < 1 || in.op != SY_FUSED_DIV || in.row_level != 0 || in.b < 0 ||
        !IsSixteenBit(d)) {
      return false;
    }
    const sy_fused_instr_t& b = k_.instrs[in.b];
    return b.row_level == 1 || IsReduce(b.op);
  }

  // The dtype instruction i's result is spelled for: its own, or bf16 for
  // an f32 value bound for 16 bits (Note [f32 values bound for 16 bits] in
  // bound_for_16.h), which takes the 16-bit results' functions.
  sy_dtype_t SpelledAs(int i) const {
    return bound16_[i] ? SY_DTYPE_BF16 : k_.instrs[i].dtype;
  }

  // Note [Packed 16-bit max]: a row's max (or min) over an f16 or bf16
  // input, read v-wide, compares the words that hold it two elements to an
  // instruction (max.NaN.bf16x2 and kin, sm_80 on), on the storage values:
  // conversion to f32 is exact and keeps the order, so the result is the
  // same, and the per-element conversions it saves are dead code. In bf16
  // softmax that is two instructions an element of the max's stage (a
  // conversion and a compare) become half of one. The input k it reduces
  // (the reduction's operand is k's LOAD, through casts to f32 or to k's
  // own dtype), or -1 — also for an online pair's max, which reduces as a
  // pair (Note [Online softmax]).
  int PairReduced(int i, int v) const {
    const sy_fused_instr_t& in = k_.instrs[i];
    if (o_.arch < 80 || v < 2 || k_.reduce_ndim != 1 || Wide(in.dtype) ||
        (in.op != SY_FUSED_REDUCE_MAX && in.op != SY_FUSED_REDUCE_MIN) || InOnlinePair(i)) {
      return -1;
    }
    int j = in.a;
    while (j >= 0 && k_.instrs[j].op == SY_FUSED_CAST && k_.instrs[j].a >= 0 &&
           (k_.instrs[j].dtype == SY_DTYPE_F32 ||
            k_.instrs[j].dtype == k_.instrs[k_.instrs[j].a].dtype)) {
      j = k_.instrs[j].a;
    }
    if (j < 0 || k_.instrs[j].op != SY_FUSED_LOAD || k_.instrs[j].row_level != 0) return -1;
    const int k = k_.instrs[j].index;
    const OperandPlan& p = operands_[k];
    return IsSixteenBit(p.dtype) && p.unit_inner && !p.all_zero ? k : -1;
  }
  // sy_pair_reduce's kOp for reduction i over input k, and its identity
  // word (two -inf for a max, two +inf for a min).
  std::string PairOp(int i, int k) const {
    const bool bf16 = operands_[k].dtype == SY_DTYPE_BF16;
    const bool max = k_.instrs[i].op == SY_FUSED_REDUCE_MAX;
    return std::to_string((bf16 ? 0 : 2) + (max ? 0 : 1));
  }
  std::string PairIdentity(int i, int k) const {
    const bool bf16 = operands_[k].dtype == SY_DTYPE_BF16;
    const bool max = k_.instrs[i].op == SY_FUSED_REDUCE_MAX;
    return bf16 ? (max ? "0xff80ff80u" : "0x7f807f80u") : (max ? "0xfc00fc00u" : "0x7c007c00u");
  }
  bool InOnlinePair(int i) const {
    for (const OnlinePair& p : row_pairs_) {
      if (p.max == i || p.sum == i) return true;
    }
    return false;
  }

  // A DividesByRow division whose divisor is softmax's sum — the sum of an
  // online pair, exp(x − max(x)) over the row, the pair's max included:
  // 1 ≤ sum ≤ n or NaN, so no scaling (sy_div16_by_sum).
  bool DividesBySumOfExps(int i) const {
    for (const OnlinePair& p : sum_pairs_) {
      if (k_.instrs[i].b == p.sum) return true;
    }
    return false;
  }

  // A 16-bit exp whose values only softmax's sum reads — the EXP of an
  // online pair (FindOnlinePairs: sum of exp(x − max(x)), nothing else in
  // its stage) — may flush results below 2^-126 to 0: the sum holds
  // exp(0) = 1 for the max, so n such terms are below its f32 rounding
  // (n · 2^-126 ≪ 2^-24). The output stage's exps keep subnormals.
  bool SumsOfExps(int i) const {
    const sy_fused_instr_t& in = k_.instrs[i];
    const sy_dtype_t d = SpelledAs(i);
    if (in.op != SY_FUSED_EXP || !IsSixteenBit(d)) return false;
    for (const OnlinePair& p : sum_pairs_) {
      if (k_.instrs[p.sum].a == i) return true;
    }
    return false;
  }

  // Note [Online softmax]: the (max, sum) pair `pair` (the p-th) reduced
  // over a block or cluster row as one value.
  void PairReduction(Writer& w, const RowPlan& plan, const OnlinePair& pair, int p) {
    const std::string m = std::to_string(pair.max), sum = std::to_string(pair.sum);
    const std::string acc = "sy_ms{a" + m + ", a" + sum + "}";
    const std::string identity = "sy_ms{-__int_as_float(0x7f800000), 0.f}";
    std::string reduced;
    if (plan.cluster > 1) {
      reduced = ClusterReduce(acc, "sy_online()", "sy_parts_ms", p,
                              cluster_.f + cluster_.d + p, identity);
    } else {
      reduced = "sy_block_reduce(" + acc + ", sy_online(), sy_buf_ms, " + identity + ")";
    }
    w.Line("const sy_ms q" + sum + " = " + reduced + ";");
    w.Line("const float " + Name(pair.max) + " = " +
           Intermediate(k_.instrs[pair.max].dtype, "q" + sum + ".m") + ";");
    w.Line("const float " + Name(pair.sum) + " = " +
           Intermediate(k_.instrs[pair.sum].dtype, "q" + sum + ".s") + ";");
  }

  std::string ReduceInit(const sy_fused_instr_t& in) const {
    const bool wide = Wide(in.dtype);
    if (in.op == SY_FUSED_REDUCE_SUM) return wide ? "0.0" : "0.f";
    const char* inf =
        wide ? "__longlong_as_double(0x7ff0000000000000LL)" : "__int_as_float(0x7f800000)";
    return std::string(in.op == SY_FUSED_REDUCE_MAX ? "-" : "") + inf;
  }

  // How input k is held per step of a row's element loop: v-wide where it
  // is unit along the row, else one element.
  std::string LoadedType(int k, int v) const {
    const OperandPlan& p = operands_[k];
    const std::string t = StorageOf(p.dtype).ctype;
    return v > 1 && p.unit_inner && !p.all_zero ? "sy_vec<" + t + ", " + std::to_string(v) + ">"
                                                : t;
  }

  // `slot`: how kept input k's slot is indexed after "c<k>" — registers
  // "[it]", shared memory "[it * <block>]" (RowKernel).
  void ElementLoop(Writer& w, const std::vector<int>& steps, int threads_per_row, int v,
                   int64_t iters, bool cache, const std::vector<int>& keep,
                   const std::string& slot) {
    const int first_reduced = ndim_ - k_.reduce_ndim;
    const int64_t inner = shape_[ndim_ - 1];
    const std::string T = std::to_string(threads_per_row);
    const std::string V = std::to_string(v);
    // Note [Shifted rows]: the whole steps begin sy_head elements in, and
    // there are sy_steps of them (RowKernel's).
    const bool shifted = Shifted(v);
    const std::string start = shifted ? "sy_head + " : "";
    const std::string end = shifted ? "sy_steps * " + V : I64(inner);
    if (k_.reduce_ndim == 1) {
      if (cache) {
        w.Line("#pragma unroll");
        w.Open("for (int it = 0; it < " + std::to_string(iters) + "; ++it)");
        w.Line("const sy_i64 j = ((sy_i64)it * " + T + " + lane) * " + V + ";");
        // Note [Unguarded row steps]: the first `full` steps lie inside
        // the row for every lane (lane < threads_per_row), so they carry
        // no bound check, and the unrolled loop no branch between them; a
        // part-filled last step is checked alone. With a check on every
        // step (codegen 10: the compiler does not know lane's range) each
        // step's load waited behind a branch for the one before: bf16
        // rms_norm at 16384 ran at 60 % of DRAM bandwidth, its warps two
        // thirds of the time waiting on L1TEX (ncu, H200). Without them
        // (codegen 11) it went from 0.85-0.87 of copy to 0.93-0.94, and
        // rms_norm bf16 at 262144 from 0.69 to 0.84-0.87; only bf16
        // softmax at 262144 lost (0.77 to 0.74; docs/fusion.md).
        // Shifted, a row has at least inner / v − 1 whole steps.
        const int64_t full =
            shifted ? std::max<int64_t>(0, inner / v - 1) / threads_per_row
                    : inner / v / threads_per_row;
        if (full < iters) {
          w.Open("if (" + (full > 0 ? "it < " + std::to_string(full) + " || " : std::string()) +
                 "j < " + end + ")");
        } else {
          w.Open("");
        }
      } else {
        w.Open("for (sy_i64 j = (sy_i64)lane * " + V + "; j < " + end + "; j += " +
               std::to_string(int64_t{threads_per_row} * v) + ")");
      }
      // Operand offsets: the row's plus j along the innermost dim.
      RowStepOffsets(w, start + "j");
    } else {
      w.Open("for (sy_i64 j = lane; j < " + I64(row_length_) + "; j += " + T + ")");
      Decompose(w, "e_", "j", first_reduced, ndim_, true);
      for (const OperandPlan& p : operands_) {
        w.Line("const sy_i64 o" + p.ptr + " = row_o" + p.ptr + " + e_o" + p.ptr + ";");
      }
    }
    // Reductions accumulate per element; the fills into registers, too.
    BodyWithReduce(w, steps, v, keep, "c", slot);
    if (k_.reduce_ndim == 1 && cache) w.Close();
    w.Close();
    if (!shifted) return;
    // The head's and the tail's elements, one a lane, kept (where a stage
    // keeps an input) in the lane's edge register ce<k>.
    w.Open("if (lane < sy_edges)");
    w.Line("const sy_i64 j = lane < sy_head ? (sy_i64)lane : sy_steps * " + V + " + lane;");
    RowStepOffsets(w, "j");
    BodyWithReduce(w, steps, 1, keep, "ce", "");
    w.Close();
  }

  // Each operand's offset at element `at` of the row.
  void RowStepOffsets(Writer& w, const std::string& at) {
    const std::string term = at.find(' ') == std::string::npos ? at : "(" + at + ")";
    for (const OperandPlan& p : operands_) {
      w.Line("const sy_i64 o" + p.ptr + " = row_o" + p.ptr + (p.strides[ndim_ - 1] != 0
                 ? " + " + term + " * " + I64(p.strides[ndim_ - 1]) : "") + ";");
    }
  }

  void Accumulate(Writer& w, int i) {
    const sy_fused_instr_t& in = k_.instrs[i];
    const std::string acc = "a" + std::to_string(i);
    const std::string x = Name(in.a);
    const bool wide = Wide(in.dtype);
    if (in.op == SY_FUSED_REDUCE_SUM) {
      w.Line(acc + " += " + x + ";");
    } else {
      w.Line(acc + " = " + (in.op == SY_FUSED_REDUCE_MAX ? (wide ? "sy_maxd(" : "sy_maxf(")
                                                         : (wide ? "sy_mind(" : "sy_minf(")) +
             acc + ", " + x + ");");
    }
  }

  // One step of a row's element loop: each input the steps read is loaded
  // once (v-wide where it is unit along the row) from memory or from the
  // registers (or shared memory) an earlier stage filled — storage values
  // either way, so a LOAD converts them exactly once — then the steps run
  // per element and the outputs are stored (v-wide where unit along the row).
  // `kept` names the registers (or shared memory) an input is kept in:
  // "c" (its slots, indexed by `slot`), or "ce" (a shifted row's edge
  // register: Note [Shifted rows]).
  void BodyWithReduce(Writer& w, const std::vector<int>& steps, int v,
                      const std::vector<int>& keep, const std::string& kept,
                      const std::string& slot) {
    std::vector<bool> loaded(k_.num_inputs, false), stored(k_.num_outputs, false);
    for (int i : steps) {
      const sy_fused_instr_t& in = k_.instrs[i];
      if (in.op == SY_FUSED_LOAD) loaded[in.index] = true;
      if (in.op == SY_FUSED_STORE) stored[in.index] = true;
    }
    for (int k = 0; k < k_.num_inputs; ++k) {
      if (!loaded[k]) continue;
      const OperandPlan& p = operands_[k];
      const std::string type = LoadedType(k, v);
      const std::string x = "x" + std::to_string(k), c = kept + std::to_string(k) + slot;
      if (keep[k] == 2) {
        w.Line("const " + type + " " + x + " = " + c + ";");
        continue;
      }
      if (type != StorageOf(p.dtype).ctype) {
        w.Line("const " + type + " " + x + " = *reinterpret_cast<const " + type + "*>(" +
               p.ptr + " + o" + p.ptr + ");");
      } else {
        w.Line("const " + type + " " + x + " = __ldg(" + p.ptr + " + o" + p.ptr + ");");
      }
      if (keep[k] == 1) w.Line(c + " = " + x + ";");
    }
    const bool vector = v > 1;
    for (int k = 0; k < k_.num_outputs; ++k) {
      if (stored[k] && vector) DeclareOutputVector(w, k, v);
    }
    for (int i : steps) {
      const int k = PairReduced(i, v);
      if (k < 0) continue;
      const std::string p = "p" + std::to_string(i);
      w.Line(p + " = sy_pair_reduce<" + PairOp(i, k) + ">(" + p + ", x" + std::to_string(k) + ");");
    }
    if (vector) {
      w.Line("#pragma unroll");
      w.Open("for (int e = 0; e < " + std::to_string(v) + "; ++e)");
    }
    for (int i : steps) {
      if (IsReduce(k_.instrs[i].op)) {
        if (PairReduced(i, v) < 0) Accumulate(w, i);
        continue;
      }
      Instr(
          w, i,
          [&](int k) {
            return Element("x" + std::to_string(k),
                           LoadedType(k, v) != StorageOf(operands_[k].dtype).ctype);
          },
          [&](int k, const std::string& val) {
            if (vector) {
              w.Line("y" + std::to_string(k) + ".v[e] = " + OutputLane(k, val) + ";");
            } else {
              const OperandPlan& p = operands_[k_.num_inputs + k];
              w.Line(p.ptr + "[o" + p.ptr + "] = " + Stored(k, val) + ";");
            }
          });
    }
    if (!vector) return;
    w.Close();
    for (int k = 0; k < k_.num_outputs; ++k) {
      if (!stored[k]) continue;
      const OperandPlan& p = operands_[k_.num_inputs + k];
      StoreOutputVector(w, k, p.ptr + " + o" + p.ptr);
    }
  }

  const sy_fused_kernel_t& k_;
  const CodegenOptions& o_;
  int ndim_ = 1;
  int64_t shape_[SY_MAX_RANK] = {};
  int64_t numel_ = 1, rows_ = 1, row_length_ = 1;
  std::vector<OperandPlan> operands_;
  std::vector<OnlinePair> sum_pairs_;  // of a row kernel (SumsOfExps), in either form
  std::vector<bool> bound16_;          // per instruction (SpelledAs)
  ClusterReductions cluster_;  // of the row kernel being written
  std::vector<OnlinePair> row_pairs_;  // its online pairs (RowPairs)
  int cluster_reduces_ = 0;     // written so far in it (ClusterReduce's `first`)
  std::vector<int> aligned_;
  int vec_ = 1;
  bool shifted_ = false;  // Note [Shifted rows] (vector_width.h)
  int shift_operand_ = -1;
  std::string entry_;
};

}  // namespace

std::string EntryName(const char* name) {
  std::string out = "sy_";
  for (const char* p = name != nullptr ? name : "fused"; *p != '\0'; ++p) {
    out += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
  }
  return out;
}

bool GenerateCuda(const sy_fused_kernel_t& kernel, const CodegenOptions& options,
                  GeneratedKernel* out, std::string* error) {
  *out = GeneratedKernel{};
  return Generator(kernel, options).Run(out, error);
}

}  // namespace sy::cuda::fusion
