#include "fused/cuda_codegen.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "switchyard/plugin/fused_ir.hpp"

namespace sy::cuda::fusion {
namespace {

// ---- Dtypes -------------------------------------------------------------------

struct Storage {
  const char* ctype;
  int size;
};

using ::sy::plugin::fused::IsCompare;
using ::sy::plugin::fused::IsReduce;

Storage StorageOf(sy_dtype_t d) {
  switch (d) {
    case SY_DTYPE_F32: return {"float", 4};
    case SY_DTYPE_F64: return {"double", 8};
    case SY_DTYPE_F16:
    case SY_DTYPE_BF16: return {"unsigned short", 2};
    case SY_DTYPE_I32: return {"int", 4};
    case SY_DTYPE_I64: return {"long long", 8};
    case SY_DTYPE_I8: return {"signed char", 1};
    default: return {"unsigned char", 1};  // u8, bool
  }
}

// Values compute in double for f64 and the wide integers, else float.
bool Wide(sy_dtype_t d) { return ::sy::plugin::fused::ComputesInDouble(d); }
const char* ValueType(sy_dtype_t d) { return Wide(d) ? "double" : "float"; }

std::string ToValue(sy_dtype_t d, const std::string& raw) {
  switch (d) {
    case SY_DTYPE_F32:
    case SY_DTYPE_F64: return raw;
    case SY_DTYPE_F16: return "sy_h2f(" + raw + ")";
    case SY_DTYPE_BF16: return "sy_b2f(" + raw + ")";
    case SY_DTYPE_BOOL: return "((" + raw + ") != 0 ? 1.f : 0.f)";
    default: return std::string("(") + ValueType(d) + ")(" + raw + ")";
  }
}

std::string FromValue(sy_dtype_t d, const std::string& v) {
  switch (d) {
    case SY_DTYPE_F32: return "(float)(" + v + ")";
    case SY_DTYPE_F64: return "(double)(" + v + ")";
    case SY_DTYPE_F16: return "sy_f2h((float)(" + v + "))";
    case SY_DTYPE_BF16: return "sy_f2b((float)(" + v + "))";
    case SY_DTYPE_BOOL: return "(unsigned char)((" + v + ") != 0)";
    default: return std::string("(") + StorageOf(d).ctype + ")(" + v + ")";
  }
}

// `v` (a float value) rounded to dtype d.
std::string Round(sy_dtype_t d, const std::string& v) {
  if (d == SY_DTYPE_F16) return "sy_rh(" + v + ")";
  if (d == SY_DTYPE_BF16) return "sy_rb(" + v + ")";
  if (d == SY_DTYPE_BOOL) return "((" + v + ") != 0 ? 1.f : 0.f)";
  return v;
}

std::string Literal(double imm, bool wide) {
  char text[64];
  if (wide) {
    uint64_t bits;
    std::memcpy(&bits, &imm, 8);
    std::snprintf(text, sizeof(text), "__longlong_as_double(0x%016" PRIx64 "LL)", bits);
  } else {
    const float f = static_cast<float>(imm);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    std::snprintf(text, sizeof(text), "__int_as_float(0x%08" PRIx32 ")", bits);
  }
  return text;
}


// The expression of an arithmetic op on operand expressions; `w`: double.
std::string OpExpr(int32_t op, bool w, const std::string& a, const std::string& b,
                   const std::string& c) {
  const char* f = w ? "" : "f";  // the float suffix of math functions
  const std::string one = w ? "1.0" : "1.f";
  auto fn = [&](const char* name, const std::string& x) {
    return std::string(name) + f + "(" + x + ")";
  };
  switch (op) {
    case SY_FUSED_NEG: return "(-(" + a + "))";
    case SY_FUSED_ABS: return w ? "fabs(" + a + ")" : "fabsf(" + a + ")";
    case SY_FUSED_RELU: return "((" + a + ") < 0 ? (" + (w ? "0.0" : "0.f") + ") : (" + a + "))";
    case SY_FUSED_SQUARE: return "((" + a + ") * (" + a + "))";
    case SY_FUSED_EXP: return fn("exp", a);
    case SY_FUSED_LOG: return fn("log", a);
    case SY_FUSED_SQRT: return fn("sqrt", a);
    case SY_FUSED_RSQRT: return "(" + one + " / " + fn("sqrt", a) + ")";
    case SY_FUSED_SIN: return fn("sin", a);
    case SY_FUSED_COS: return fn("cos", a);
    case SY_FUSED_TANH: return fn("tanh", a);
    case SY_FUSED_ERF: return fn("erf", a);
    case SY_FUSED_SIGMOID: return std::string(w ? "sy_sigmoidd(" : "sy_sigmoidf(") + a + ")";
    case SY_FUSED_SILU: return std::string(w ? "sy_silud(" : "sy_siluf(") + a + ")";
    case SY_FUSED_RECIPROCAL: return "(" + one + " / (" + a + "))";
    case SY_FUSED_GELU: return std::string(w ? "sy_gelud(" : "sy_geluf(") + a + ")";
    case SY_FUSED_GELU_TANH: return std::string(w ? "sy_gelu_tanhd(" : "sy_gelu_tanhf(") + a + ")";
    case SY_FUSED_ADD: return "((" + a + ") + (" + b + "))";
    case SY_FUSED_SUB: return "((" + a + ") - (" + b + "))";
    case SY_FUSED_MUL: return "((" + a + ") * (" + b + "))";
    case SY_FUSED_DIV: return "((" + a + ") / (" + b + "))";
    case SY_FUSED_POW: return std::string(w ? "pow(" : "powf(") + a + ", " + b + ")";
    case SY_FUSED_MAXIMUM: return std::string(w ? "sy_maxd(" : "sy_maxf(") + a + ", " + b + ")";
    case SY_FUSED_MINIMUM: return std::string(w ? "sy_mind(" : "sy_minf(") + a + ", " + b + ")";
    case SY_FUSED_EQ: return "((" + a + ") == (" + b + ") ? 1.f : 0.f)";
    case SY_FUSED_NE: return "((" + a + ") != (" + b + ") ? 1.f : 0.f)";
    case SY_FUSED_LT: return "((" + a + ") < (" + b + ") ? 1.f : 0.f)";
    case SY_FUSED_LE: return "((" + a + ") <= (" + b + ") ? 1.f : 0.f)";
    case SY_FUSED_GT: return "((" + a + ") > (" + b + ") ? 1.f : 0.f)";
    case SY_FUSED_GE: return "((" + a + ") >= (" + b + ") ? 1.f : 0.f)";
    case SY_FUSED_WHERE: return "((" + a + ") != 0.f ? (" + b + ") : (" + c + "))";
    default: return a;
  }
}

constexpr const char* kPreamble = R"(// Generated by the Switchyard cuda plugin from a fused kernel's IR.
#define SY_INLINE __device__ __forceinline__
typedef long long sy_i64;
template <class T, int N> struct alignas(sizeof(T) * N) sy_vec { T v[N]; };
SY_INLINE float sy_h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
SY_INLINE unsigned short sy_f2h(float f) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
SY_INLINE float sy_b2f(unsigned short b) { return __uint_as_float(((unsigned int)b) << 16); }
SY_INLINE unsigned short sy_f2b(float f) {
  unsigned int u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
}
SY_INLINE float sy_rh(float f) { return sy_h2f(sy_f2h(f)); }
SY_INLINE float sy_rb(float f) { return sy_b2f(sy_f2b(f)); }
SY_INLINE float sy_maxf(float a, float b) { return a != a ? a : (b != b ? b : (a > b ? a : b)); }
SY_INLINE float sy_minf(float a, float b) { return a != a ? a : (b != b ? b : (a < b ? a : b)); }
SY_INLINE double sy_maxd(double a, double b) { return a != a ? a : (b != b ? b : (a > b ? a : b)); }
SY_INLINE double sy_mind(double a, double b) { return a != a ? a : (b != b ? b : (a < b ? a : b)); }
SY_INLINE float sy_sigmoidf(float x) { float e = expf(-fabsf(x)); float s = 1.f / (1.f + e); return x >= 0.f ? s : e * s; }
SY_INLINE double sy_sigmoidd(double x) { double e = exp(-fabs(x)); double s = 1.0 / (1.0 + e); return x >= 0.0 ? s : e * s; }
SY_INLINE float sy_siluf(float x) { return x * sy_sigmoidf(x); }
SY_INLINE double sy_silud(double x) { return x * sy_sigmoidd(x); }
SY_INLINE float sy_geluf(float x) { return 0.5f * x * erfcf(-x * 0.70710678118654752f); }
SY_INLINE double sy_gelud(double x) { return 0.5 * x * erfc(-x * 0.70710678118654752440); }
SY_INLINE float sy_gelu_tanhf(float x) { return x / (1.f + expf(-1.5957691216057308f * (x + 0.044715f * x * x * x))); }
SY_INLINE double sy_gelu_tanhd(double x) { return x / (1.0 + exp(-1.5957691216057307 * (x + 0.044715 * x * x * x))); }
struct sy_sum { template <class T> SY_INLINE T operator()(T a, T b) const { return a + b; } };
struct sy_max { SY_INLINE float operator()(float a, float b) const { return sy_maxf(a, b); }
                SY_INLINE double operator()(double a, double b) const { return sy_maxd(a, b); } };
struct sy_min { SY_INLINE float operator()(float a, float b) const { return sy_minf(a, b); }
                SY_INLINE double operator()(double a, double b) const { return sy_mind(a, b); } };
template <class T, class Op> SY_INLINE T sy_warp_reduce(T v, Op op) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
// Every thread of the block gets the result; `buf` holds 32 values.
template <class T, class Op> SY_INLINE T sy_block_reduce(T v, Op op, T* buf, T identity) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = sy_warp_reduce(v, op);
  if (lane == 0) buf[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (int)(blockDim.x >> 5) ? buf[lane] : identity;
    v = sy_warp_reduce(v, op);
    if (lane == 0) buf[0] = v;
  }
  __syncthreads();
  v = buf[0];
  __syncthreads();
  return v;
}
)";

// ---- Code writer --------------------------------------------------------------

class Writer {
 public:
  void Line(const std::string& text) {
    out_ << std::string(indent_ * 2, ' ') << text << "\n";
  }
  void Open(const std::string& text) {
    Line(text + " {");
    ++indent_;
  }
  void Close(const std::string& tail = "") {
    --indent_;
    Line("}" + tail);
  }
  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
  int indent_ = 0;
};

std::string I64(int64_t v) { return std::to_string(v) + "LL"; }

// How the generator sees one operand along the domain.
struct OperandPlan {
  sy_dtype_t dtype = 0;
  bool output = false;
  int index = 0;               // among inputs or outputs
  std::string ptr;             // "in0", "out1"
  int64_t strides[SY_MAX_RANK] = {};
  bool zero_inner = false;     // stride 0 along the innermost dim
  bool unit_inner = false;     // stride 1 along it
  bool all_zero = false;
};

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
    for (int i = 0; i < k_.num_inputs + k_.num_outputs; ++i) {
      const bool output = i >= k_.num_inputs;
      const sy_fused_operand_t& src =
          output ? k_.outputs[i - k_.num_inputs] : k_.inputs[i];
      if (!::sy::plugin::fused::IsKnownDtype(src.dtype)) {
        *error = "an operand has an unknown dtype";
        return false;
      }
      OperandPlan p;
      p.dtype = src.dtype;
      p.output = output;
      p.index = output ? i - k_.num_inputs : i;
      p.ptr = (output ? "out" : "in") + std::to_string(p.index);
      p.all_zero = true;
      for (int d = 0; d < ndim_; ++d) {
        p.strides[d] = k_.ndim == 0 ? 0 : src.strides[d];
        if (shape_[d] == 1) p.strides[d] = 0;  // never stepped
        if (p.strides[d] != 0) p.all_zero = false;
      }
      p.zero_inner = p.strides[ndim_ - 1] == 0;
      p.unit_inner = p.strides[ndim_ - 1] == 1;
      operands_.push_back(p);
    }
    entry_ = EntryName(k_.name);
    PlanVector();
    std::string body = k_.reduce_ndim > 0 ? RowKernels(out) : LoopKernels(out);
    out->source = std::string(kPreamble) + body;
    return true;
  }

 private:
  // Whether (and how wide) the vector entry is: every operand is unit or
  // zero along the innermost dim, that dim is a multiple of VEC, and every
  // other step of a unit operand keeps 16-byte alignment.
  void PlanVector() {
    int widest = 1;
    bool ok = true;
    for (const OperandPlan& p : operands_) {
      if (p.all_zero) continue;
      if (!p.unit_inner && !p.zero_inner) ok = false;
      if (p.unit_inner) widest = std::max(widest, StorageOf(p.dtype).size);
    }
    vec_ = ok ? 16 / widest : 1;
    if (vec_ < 2) vec_ = 1;
    while (vec_ > 1 && shape_[ndim_ - 1] % vec_ != 0) vec_ /= 2;
    for (const OperandPlan& p : operands_) {
      if (!p.unit_inner) continue;
      const int size = StorageOf(p.dtype).size;
      for (int d = 0; d < ndim_ - 1; ++d) {
        while (vec_ > 1 && (p.strides[d] * size) % (vec_ * size) != 0) vec_ /= 2;
      }
    }
    if (vec_ > 1) {
      for (size_t i = 0; i < operands_.size(); ++i) {
        if (operands_[i].unit_inner && !operands_[i].all_zero) {
          aligned_.push_back(static_cast<int>(i));
        }
      }
    }
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
    bool any = false;
    for (int d = begin; d < end; ++d) {
      for (const OperandPlan& p : operands_) any = any || p.strides[d] != 0;
    }
    if (any && end > begin) {
      w.Line("sy_i64 " + prefix + "r = " + index + ";");
      for (int d = end - 1; d >= begin; --d) {
        if (d == begin) {
          w.Line("const sy_i64 " + prefix + "d" + std::to_string(d) + " = " + prefix + "r;");
        } else {
          w.Line("const sy_i64 " + prefix + "d" + std::to_string(d) + " = " + prefix + "r % " +
                 I64(shape_[d]) + "; " + prefix + "r /= " + I64(shape_[d]) + ";");
        }
      }
    }
    for (size_t i = 0; i < operands_.size(); ++i) {
      const OperandPlan& p = operands_[i];
      if (p.output && !for_outputs_too) continue;
      std::string sum;
      for (int d = begin; d < end; ++d) {
        if (p.strides[d] == 0) continue;
        if (!sum.empty()) sum += " + ";
        sum += prefix + "d" + std::to_string(d) + " * " + I64(p.strides[d]);
      }
      w.Line("const sy_i64 " + prefix + "o" + p.ptr + " = " + (sum.empty() ? "0" : sum) + ";");
    }
  }

  std::string Name(int i) const {
    const sy_fused_instr_t& in = k_.instrs[i];
    return (in.row_level == 1 || IsReduce(in.op) ? "r" : "v") + std::to_string(i);
  }

  // One instruction as a statement, given how to read input k's element
  // (`load(k)`, a raw storage expression) and write output k's.
  template <class Load, class Store>
  void Instr(Writer& w, int i, Load&& load, Store&& store) {
    const sy_fused_instr_t& in = k_.instrs[i];
    const bool wide = Wide(in.dtype);
    const std::string name = Name(i);
    const char* type = ValueType(in.dtype);
    auto arg = [&](int32_t j) { return j >= 0 ? Name(j) : std::string(); };
    switch (in.op) {
      case SY_FUSED_LOAD:
        w.Line(std::string("const ") + type + " " + name + " = " +
               ToValue(in.dtype, load(in.index)) + ";");
        return;
      case SY_FUSED_STORE:
        store(in.index, FromValue(k_.outputs[in.index].dtype, arg(in.a)));
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
        const std::string e = OpExpr(in.op, w_op, arg(in.a), arg(in.b), arg(in.c));
        w.Line(std::string("const ") + type + " " + name + " = " +
               (wide ? e : Round(in.dtype, e)) + ";");
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
            w.Line(p.ptr + "[o" + p.ptr + "] = " + v + ";");
          });
    }
    w.Close();
    w.Close();
    out->scalar = {entry_ + "_s", grid(numel_), threads, 0};
    if (vec_ > 1) {
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
      VectorBody(w, "inner", [&](int, int) { return true; });
      w.Close();
      w.Close();
      out->vector = {entry_, grid(groups), threads, 0};
    }
    out->vec = vec_;
    out->aligned_operands = aligned_;
    return w.str();
  }

  // Loads the inputs a set of instructions reads as VEC-wide registers,
  // runs them element by element, and stores the outputs as VEC-wide
  // registers. `base` is the element index along the innermost dim; the
  // operand's outer offset is in the variable named like its pointer.
  template <class Include>
  void VectorBody(Writer& w, const std::string& base, Include&& include,
                  const std::vector<int>* list = nullptr,
                  const std::vector<std::string>* cached = nullptr) {
    std::vector<int> steps;
    if (list != nullptr) {
      steps = *list;
    } else {
      for (int i = 0; i < k_.num_instrs; ++i) steps.push_back(i);
    }
    const std::string V = std::to_string(vec_);
    std::vector<bool> loaded(k_.num_inputs, false), stored(k_.num_outputs, false);
    for (int i : steps) {
      const sy_fused_instr_t& in = k_.instrs[i];
      if (in.op == SY_FUSED_LOAD && in.row_level == 0) loaded[in.index] = true;
      if (in.op == SY_FUSED_STORE && in.row_level == 0) stored[in.index] = true;
    }
    for (int k = 0; k < k_.num_inputs; ++k) {
      if (!loaded[k] || (cached != nullptr && !(*cached)[k].empty())) continue;
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
      if (!stored[k]) continue;
      const OperandPlan& p = operands_[k_.num_inputs + k];
      w.Line("sy_vec<" + std::string(StorageOf(p.dtype).ctype) + ", " + V + "> y" +
             std::to_string(k) + ";");
    }
    w.Line("#pragma unroll");
    w.Open("for (int e = 0; e < " + V + "; ++e)");
    for (int i : steps) {
      if (!include(i, 0)) continue;
      Instr(
          w, i,
          [&](int k) {
            if (cached != nullptr && !(*cached)[k].empty()) return (*cached)[k] + "[e]";
            const OperandPlan& p = operands_[k];
            return "x" + std::to_string(k) + (p.unit_inner && !p.all_zero ? ".v[e]" : "");
          },
          [&](int k, const std::string& v) {
            w.Line("y" + std::to_string(k) + ".v[e] = " + v + ";");
          });
    }
    w.Close();
    for (int k = 0; k < k_.num_outputs; ++k) {
      if (!stored[k]) continue;
      const OperandPlan& p = operands_[k_.num_inputs + k];
      const std::string t = StorageOf(p.dtype).ctype;
      w.Line("*reinterpret_cast<sy_vec<" + t + ", " + V + ">*>(" + p.ptr + " + o" + p.ptr +
             " + " + base + ") = y" + std::to_string(k) + ";");
    }
  }

  // ---- Row kernels ------------------------------------------------------------

  std::string RowKernels(GeneratedKernel* out) {
    // Rows of up to 1024 elements go to a warp, longer ones to a block.
    const bool warp = row_length_ <= 1024;
    int block = 256;
    if (!warp) {
      const int64_t per_thread = 8 * std::max(vec_, 1);
      block = 128;
      while (block < 1024 && block * per_thread < row_length_) block *= 2;
    }
    const int rows_per_block = warp ? block / 32 : 1;
    const int64_t grid = std::max<int64_t>(1, (rows_ + rows_per_block - 1) / rows_per_block);
    Writer w;
    // The vector form needs one reduced dim (the innermost) and the
    // operands unit or zero along it.
    const bool can_vector = vec_ > 1 && k_.reduce_ndim == 1;
    for (int form = 0; form < (can_vector ? 2 : 1); ++form) {
      const bool vector = form == 1;
      const int v = vector ? vec_ : 1;
      const std::string name = vector ? entry_ : entry_ + "_s";
      RowKernel(w, name, warp, block, v);
      const LaunchShape shape{name, grid, block, 0};
      (vector ? out->vector : out->scalar) = shape;
      w.Line("");
    }
    out->vec = can_vector ? vec_ : 1;
    if (can_vector) out->aligned_operands = aligned_;
    return w.str();
  }

  void RowKernel(Writer& w, const std::string& name, bool warp, int block, int v) {
    const int first_reduced = ndim_ - k_.reduce_ndim;
    const int64_t inner = shape_[ndim_ - 1];
    const int threads_per_row = warp ? 32 : block;
    // Per thread: `iters` steps of v elements along the innermost dim (for
    // one reduce dim; several reduced dims loop over the outer ones too).
    const int64_t slots = (k_.reduce_ndim == 1 ? inner : row_length_);
    const int64_t iters = (slots / v + threads_per_row - 1) / threads_per_row;
    // (iters is 0 for rows of length 0: nothing to keep.)
    const bool cache = k_.reduce_ndim == 1 && iters >= 1 && iters * v <= 32 && k_.num_stages > 1;
    w.Open("extern \"C\" __global__ void __launch_bounds__(" + std::to_string(block) + ") " +
           name + "(" + Params() + ")");
    w.Line("__shared__ float sy_buf_f[32];");
    w.Line("__shared__ double sy_buf_d[32];");
    if (warp) {
      w.Line("const sy_i64 row = (sy_i64)blockIdx.x * " + std::to_string(block / 32) +
             " + (threadIdx.x >> 5);");
      w.Line("const int lane = threadIdx.x & 31;");
      w.Line("if (row >= " + I64(rows_) + ") return;");
    } else {
      // Uniform over the block (so no __syncthreads is skipped by some
      // threads): only an empty domain launches a block with no row.
      w.Line("const sy_i64 row = blockIdx.x;");
      w.Line("const int lane = threadIdx.x;");
      w.Line("if (row >= " + I64(rows_) + ") return;");
    }
    Decompose(w, "row_", "row", 0, first_reduced, true);
    // Inputs read per element in more than one stage stay in registers.
    std::vector<std::string> cached(k_.num_inputs);
    std::vector<int> first_stage(k_.num_inputs, -1), uses(k_.num_inputs, 0);
    if (cache) {
      for (int i = 0; i < k_.num_instrs; ++i) {
        const sy_fused_instr_t& in = k_.instrs[i];
        if (in.op != SY_FUSED_LOAD || in.row_level == 1) continue;
        if (first_stage[in.index] < 0) first_stage[in.index] = in.stage;
        ++uses[in.index];
      }
      for (int k = 0; k < k_.num_inputs; ++k) {
        if (uses[k] < 2) continue;
        const std::string t = ValueType(operands_[k].dtype);
        w.Line(t + " c" + std::to_string(k) + "[" + std::to_string(iters) + "][" +
               std::to_string(v) + "];");
      }
    }
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
              w.Line("if (lane == 0) " + p.ptr + "[row_o" + p.ptr + "] = " + val + ";");
            });
      }
      if (elem_steps.empty()) continue;
      for (int i : elem_steps) {
        const sy_fused_instr_t& in = k_.instrs[i];
        if (!IsReduce(in.op)) continue;
        const bool wide = Wide(in.dtype);
        const std::string init = in.op == SY_FUSED_REDUCE_SUM ? (wide ? "0.0" : "0.f")
                                 : in.op == SY_FUSED_REDUCE_MAX
                                     ? (wide ? "-__longlong_as_double(0x7ff0000000000000LL)"
                                             : "-__int_as_float(0x7f800000)")
                                     : (wide ? "__longlong_as_double(0x7ff0000000000000LL)"
                                             : "__int_as_float(0x7f800000)");
        w.Line(std::string(ValueType(in.dtype)) + " a" + std::to_string(i) + " = " + init + ";");
      }
      // Which inputs this stage reads from registers, and which it loads
      // into them for later stages.
      std::vector<std::string> from_cache(k_.num_inputs);
      std::vector<bool> fill(k_.num_inputs, false);
      if (cache) {
        for (int k = 0; k < k_.num_inputs; ++k) {
          if (uses[k] < 2) continue;
          if (first_stage[k] == s) {
            fill[k] = true;
          } else {
            from_cache[k] = "c" + std::to_string(k) + "[it]";
          }
        }
      }
      ElementLoop(w, elem_steps, warp, threads_per_row, v, iters, cache, from_cache, fill);
      for (int i : elem_steps) {
        const sy_fused_instr_t& in = k_.instrs[i];
        if (!IsReduce(in.op)) continue;
        const bool wide = Wide(in.dtype);
        const std::string op = in.op == SY_FUSED_REDUCE_SUM ? "sy_sum()"
                               : in.op == SY_FUSED_REDUCE_MAX ? "sy_max()"
                                                              : "sy_min()";
        const std::string acc = "a" + std::to_string(i);
        const std::string reduced =
            warp ? "sy_warp_reduce(" + acc + ", " + op + ")"
                 : "sy_block_reduce(" + acc + ", " + op + ", " +
                       (wide ? "sy_buf_d" : "sy_buf_f") + ", " +
                       (in.op == SY_FUSED_REDUCE_SUM ? (wide ? "0.0" : "0.f") : acc) + ")";
        w.Line(std::string("const ") + ValueType(in.dtype) + " r" + std::to_string(i) + " = " +
               (wide ? reduced : Round(in.dtype, reduced)) + ";");
      }
    }
    w.Close();
  }

  void ElementLoop(Writer& w, const std::vector<int>& steps, bool warp, int threads_per_row,
                   int v, int64_t iters, bool cache, const std::vector<std::string>& from_cache,
                   const std::vector<bool>& fill) {
    const int first_reduced = ndim_ - k_.reduce_ndim;
    const int64_t inner = shape_[ndim_ - 1];
    const std::string T = std::to_string(threads_per_row);
    const std::string V = std::to_string(v);
    std::vector<std::string> cached_names(k_.num_inputs);
    for (int k = 0; k < k_.num_inputs; ++k) {
      if (!from_cache[k].empty()) cached_names[k] = from_cache[k];
    }
    if (k_.reduce_ndim == 1) {
      if (cache) {
        w.Line("#pragma unroll");
        w.Open("for (int it = 0; it < " + std::to_string(iters) + "; ++it)");
        w.Line("const sy_i64 j = ((sy_i64)it * " + T + " + lane) * " + V + ";");
        w.Open("if (j < " + I64(inner) + ")");
      } else {
        w.Open("for (sy_i64 j = (sy_i64)lane * " + V + "; j < " + I64(inner) + "; j += " +
               std::to_string(threads_per_row * v) + ")");
      }
      // Operand offsets: the row's plus j along the innermost dim.
      for (const OperandPlan& p : operands_) {
        w.Line("const sy_i64 o" + p.ptr + " = row_o" + p.ptr + (p.strides[ndim_ - 1] != 0
                   ? " + j * " + I64(p.strides[ndim_ - 1]) : "") + ";");
      }
    } else {
      w.Open("for (sy_i64 j = lane; j < " + I64(row_length_) + "; j += " + T + ")");
      Decompose(w, "e_", "j", first_reduced, ndim_, true);
      for (const OperandPlan& p : operands_) {
        w.Line("const sy_i64 o" + p.ptr + " = row_o" + p.ptr + " + e_o" + p.ptr + ";");
      }
    }
    // Reductions accumulate per element; the fills into registers, too.
    std::vector<int> body = steps;
    if (v > 1) {
      VectorBodyWithReduce(w, body, cached_names, fill);
    } else {
      ScalarBodyWithReduce(w, body, cached_names, fill);
    }
    if (k_.reduce_ndim == 1 && cache) w.Close();
    w.Close();
    (void)warp;
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

  // A load of an input the row's first stage kept in registers: the cache
  // holds values already converted from storage (what that stage's load
  // produced), so they are read as they are — converting them again read a
  // float as f16/bf16 bits (every softmax value came out 1/n).
  bool ReadFromCache(Writer& w, int i, const std::vector<std::string>& cached,
                     const std::string& element) {
    const sy_fused_instr_t& in = k_.instrs[i];
    if (in.op != SY_FUSED_LOAD || in.row_level != 0 || cached[in.index].empty()) return false;
    w.Line(std::string("const ") + ValueType(in.dtype) + " " + Name(i) + " = " +
           cached[in.index] + element + ";");
    return true;
  }

  void ScalarBodyWithReduce(Writer& w, const std::vector<int>& steps,
                            const std::vector<std::string>& cached,
                            const std::vector<bool>& fill) {
    for (int i : steps) {
      const sy_fused_instr_t& in = k_.instrs[i];
      if (IsReduce(in.op)) {
        Accumulate(w, i);
        continue;
      }
      if (ReadFromCache(w, i, cached, "[0]")) continue;
      Instr(
          w, i,
          [&](int k) {
            return "__ldg(" + operands_[k].ptr + " + o" + operands_[k].ptr + ")";
          },
          [&](int k, const std::string& val) {
            const OperandPlan& p = operands_[k_.num_inputs + k];
            w.Line(p.ptr + "[o" + p.ptr + "] = " + val + ";");
          });
      if (in.op == SY_FUSED_LOAD && in.row_level == 0 && fill[in.index]) {
        w.Line("c" + std::to_string(in.index) + "[it][0] = " + Name(i) + ";");
      }
    }
  }

  void VectorBodyWithReduce(Writer& w, const std::vector<int>& steps,
                            const std::vector<std::string>& cached,
                            const std::vector<bool>& fill) {
    const std::string V = std::to_string(vec_);
    std::vector<bool> loaded(k_.num_inputs, false), stored(k_.num_outputs, false);
    for (int i : steps) {
      const sy_fused_instr_t& in = k_.instrs[i];
      if (in.op == SY_FUSED_LOAD) loaded[in.index] = true;
      if (in.op == SY_FUSED_STORE) stored[in.index] = true;
    }
    for (int k = 0; k < k_.num_inputs; ++k) {
      if (!loaded[k] || !cached[k].empty()) continue;
      const OperandPlan& p = operands_[k];
      const std::string t = StorageOf(p.dtype).ctype;
      if (p.unit_inner && !p.all_zero) {
        w.Line("const sy_vec<" + t + ", " + V + "> x" + std::to_string(k) +
               " = *reinterpret_cast<const sy_vec<" + t + ", " + V + ">*>(" + p.ptr + " + o" +
               p.ptr + ");");
      } else {
        w.Line("const " + t + " x" + std::to_string(k) + " = __ldg(" + p.ptr + " + o" + p.ptr +
               ");");
      }
    }
    for (int k = 0; k < k_.num_outputs; ++k) {
      if (!stored[k]) continue;
      const OperandPlan& p = operands_[k_.num_inputs + k];
      w.Line("sy_vec<" + std::string(StorageOf(p.dtype).ctype) + ", " + V + "> y" +
             std::to_string(k) + ";");
    }
    w.Line("#pragma unroll");
    w.Open("for (int e = 0; e < " + V + "; ++e)");
    for (int i : steps) {
      const sy_fused_instr_t& in = k_.instrs[i];
      if (IsReduce(in.op)) {
        Accumulate(w, i);
        continue;
      }
      if (ReadFromCache(w, i, cached, "[e]")) continue;
      Instr(
          w, i,
          [&](int k) {
            const OperandPlan& p = operands_[k];
            return "x" + std::to_string(k) + (p.unit_inner && !p.all_zero ? ".v[e]" : "");
          },
          [&](int k, const std::string& val) {
            w.Line("y" + std::to_string(k) + ".v[e] = " + val + ";");
          });
      if (in.op == SY_FUSED_LOAD && fill[in.index]) {
        w.Line("c" + std::to_string(in.index) + "[it][e] = " + Name(i) + ";");
      }
    }
    w.Close();
    for (int k = 0; k < k_.num_outputs; ++k) {
      if (!stored[k]) continue;
      const OperandPlan& p = operands_[k_.num_inputs + k];
      const std::string t = StorageOf(p.dtype).ctype;
      w.Line("*reinterpret_cast<sy_vec<" + t + ", " + V + ">*>(" + p.ptr + " + o" + p.ptr +
             ") = y" + std::to_string(k) + ";");
    }
  }

  const sy_fused_kernel_t& k_;
  const CodegenOptions& o_;
  int ndim_ = 1;
  int64_t shape_[SY_MAX_RANK] = {};
  int64_t numel_ = 1, rows_ = 1, row_length_ = 1;
  std::vector<OperandPlan> operands_;
  std::vector<int> aligned_;
  int vec_ = 1;
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
