#include "fused/glsl_codegen.h"

#include <bit>
#include <cinttypes>
#include <cstdio>
#include <set>
#include <vector>

#include "switchyard/plugin/dtypes.hpp"
#include "switchyard/plugin/fused_codegen.hpp"
#include "switchyard/plugin/fused_ir.hpp"

namespace sy::vulkan::fusion {
namespace {

namespace fz = ::sy::plugin::fused;
using fz::CodeWriter;
using fz::IsCompare;
using fz::IsReduce;
using fz::OperandPlan;

constexpr int kGroup = 256;  // invocations per workgroup
constexpr fz::IndexSyntax kIndex = {"uint", "u"};

bool Wide(sy_dtype_t d) { return fz::ComputesInDouble(d); }
const char* ValueType(sy_dtype_t d) { return Wide(d) ? "double" : "float"; }
bool Is16(sy_dtype_t d) { return d == SY_DTYPE_F16 || d == SY_DTYPE_BF16; }
bool Is8(sy_dtype_t d) { return d == SY_DTYPE_BOOL || d == SY_DTYPE_I8 || d == SY_DTYPE_U8; }

// The ops computed through a math library: math.glsl (double) or, for
// the HasF32Math ones on float values, math_f32.glsl.
bool NeedsMath(int32_t op) {
  return op == SY_FUSED_RSQRT ||  // 1 / sy_sqrt
         (fz::IsCallOp(op) && op != SY_FUSED_ABS && op != SY_FUSED_MAXIMUM &&
          op != SY_FUSED_MINIMUM);
}
// The ops math_f32.glsl has: on float values they need no shaderFloat64.
bool HasF32Math(int32_t op) {
  switch (op) {
    case SY_FUSED_EXP: case SY_FUSED_LOG: case SY_FUSED_TANH: case SY_FUSED_ERF:
    case SY_FUSED_SIGMOID: case SY_FUSED_SILU: case SY_FUSED_GELU:
    case SY_FUSED_GELU_TANH:
      return true;
    default:
      return false;
  }
}

// GLSL's spelling of the ops the SDK writes as calls; the sy_* functions
// are overloaded for float and double (kHelpers).
const char* GlslFunction(int32_t op, bool w) {
  switch (op) {
    case SY_FUSED_ABS: return "abs";
    case SY_FUSED_EXP: return "sy_exp";
    case SY_FUSED_LOG: return "sy_log";
    case SY_FUSED_SQRT: return "sy_sqrt";
    case SY_FUSED_SIN: return "sy_sin";
    case SY_FUSED_COS: return "sy_cos";
    case SY_FUSED_TANH: return "sy_tanh";
    case SY_FUSED_ERF: return "sy_erf";
    case SY_FUSED_SIGMOID: return "sy_sigmoid";
    case SY_FUSED_SILU: return "sy_silu";
    case SY_FUSED_GELU: return "sy_gelu";
    case SY_FUSED_GELU_TANH: return "sy_gelu_tanh";
    case SY_FUSED_POW: return "sy_pow";
    case SY_FUSED_MAXIMUM: return w ? "sy_maxd" : "sy_maxf";
    default: return w ? "sy_mind" : "sy_minf";  // SY_FUSED_MINIMUM
  }
}

constexpr fz::Dialect kGlsl = {"0.0", "1.0", "0.0LF", "1.0LF", GlslFunction};

// Helpers after common.glsl (and math.glsl under SY_MATH, math_f32.glsl
// under SY_MATH_F32).
// Transcendentals go the way the plugin's unary kernels take them
// (unary.comp): exp log tanh erf sigmoid silu gelu in f32 on f32 values
// (math_f32.glsl), in double on double values; sqrt sin cos pow in double,
// f32 arguments widened with f32_to_f64 so subnormals survive.
constexpr const char* kHelpers = R"(
float sy_maxf(float a, float b) { return a != a ? a : (b != b ? b : max(a, b)); }
float sy_minf(float a, float b) { return a != a ? a : (b != b ? b : min(a, b)); }
float sy_rbool(float x) { return x != 0.0 ? 1.0 : 0.0; }
#ifdef SY_NEED_16
float sy_rh(float x) { return half_to_float(float_to_half(x)); }
float sy_rb(float x) {
  uint f = floatBitsToUint(x);
  uint b = (f & 0x7fffffffu) > 0x7f800000u ? ((f >> 16) | 0x40u)
                                            : ((f + 0x7fffu + ((f >> 16) & 1u)) >> 16);
  return uintBitsToFloat(b << 16);
}
#endif
#ifdef SY_F64
double sy_maxd(double a, double b) { return a != a ? a : (b != b ? b : max(a, b)); }
double sy_mind(double a, double b) { return a != a ? a : (b != b ? b : min(a, b)); }
#endif
#ifdef SY_MATH_F32
float sy_exp(float x) { return exp_f(x); }
float sy_log(float x) { return log_f(x); }
float sy_tanh(float x) { return tanh_f(x); }
float sy_erf(float x) { return erf_f(x); }
float sy_sigmoid(float x) { return sigmoid_f(x); }
float sy_silu(float x) { return x * sigmoid_f(x); }
float sy_gelu(float x) { return gelu_f(x); }
float sy_gelu_tanh(float x) { return gelu_tanh_f(x); }
#endif
#ifdef SY_MATH
#define SY_MATH1(name, expr) \
  double name(double x) { return expr; } \
  float name(float f) { double x = f32_to_f64(f); return float(expr); }
#define SY_MATH1D(name, expr) double name(double x) { return expr; }
SY_MATH1D(sy_exp, exp_d(x))
SY_MATH1D(sy_log, log_d(x))
SY_MATH1(sy_sqrt, sqrt(x))
SY_MATH1(sy_sin, sincos_d(x, false))
SY_MATH1(sy_cos, sincos_d(x, true))
SY_MATH1D(sy_tanh, tanh_d(x))
SY_MATH1D(sy_erf, erf_d(x))
SY_MATH1D(sy_sigmoid, sigmoid_d(x))
SY_MATH1D(sy_silu, x * sigmoid_d(x))
SY_MATH1D(sy_gelu, gelu_d(x))
SY_MATH1D(sy_gelu_tanh, gelu_tanh_d(x))
double sy_pow(double x, double y) { return pow_d(x, y); }
float sy_pow(float x, float y) { return float(pow_d(f32_to_f64(x), f32_to_f64(y))); }
#endif
layout(local_size_x = 256) in;
layout(push_constant, std430) uniform Push { uint64_t addrs; } pc;
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer SyAddrs {
  uint64_t a[];
};
)";

std::string Lit(int64_t v) { return std::to_string(v) + "u"; }

std::string Literal(double imm, bool wide) {
  char text[96];
  if (wide) {
    const uint64_t bits = std::bit_cast<uint64_t>(imm);
    std::snprintf(text, sizeof(text), "packDouble2x32(uvec2(0x%08" PRIx32 "u, 0x%08" PRIx32 "u))",
                  static_cast<uint32_t>(bits), static_cast<uint32_t>(bits >> 32));
  } else {
    const uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(imm));
    std::snprintf(text, sizeof(text), "uintBitsToFloat(0x%08" PRIx32 "u)", bits);
  }
  return text;
}

// `v` (a float value) rounded to dtype d.
std::string Round(sy_dtype_t d, const std::string& v) {
  if (d == SY_DTYPE_F16) return "sy_rh(" + v + ")";
  if (d == SY_DTYPE_BF16) return "sy_rb(" + v + ")";
  if (d == SY_DTYPE_BOOL) return "sy_rbool(" + v + ")";
  return v;
}

// The storage → value expression of a load at element offset `at`.
std::string Load(const OperandPlan& p, const std::string& at) {
  const std::string call = std::string("ld_") + std::string(::sy::plugin::DtypeName(p.dtype)) + "(" + p.ptr + ", " + at + ")";
  if (p.dtype == SY_DTYPE_F32 || Is16(p.dtype)) return call;
  return std::string(ValueType(p.dtype)) + "(" + call + ")";
}

// The statement storing value `v` at element offset `at`.
std::string Store(const OperandPlan& p, const std::string& at, const std::string& v) {
  std::string x;
  switch (p.dtype) {
    case SY_DTYPE_F32:
    case SY_DTYPE_F16:
    case SY_DTYPE_BF16: x = "float(" + v + ")"; break;
    case SY_DTYPE_BOOL: x = "((" + v + ") != 0.0 ? 1 : 0)"; break;
    case SY_DTYPE_I64: x = "int64_t(" + v + ")"; break;
    default: x = "int(" + v + ")"; break;  // i32, i8, u8
  }
  return std::string("st_") + std::string(::sy::plugin::DtypeName(p.dtype)) + "(" + p.ptr + ", " + at + ", " + x + ");";
}

class Generator {
 public:
  Generator(const sy_fused_kernel_t& k, const GlslTarget& t) : k_(k), t_(t) {}

  bool Run(GlslKernel* out, std::string* error) {
    if (!fz::ReadDomain(k_, &d_, error)) return false;
    if (!fz::PlanOperands(k_, d_, &ops_, error)) return false;
    if (!Check(error)) return false;
    CodeWriter w;
    w.Line("#version 450");
    w.Line("// Generated by the Switchyard vulkan plugin from fused kernel '" +
           std::string(k_.name != nullptr ? k_.name : "fused") + "'.");
    w.Line(std::string("#define DT0 ") + (need16_ ? "2" : "0"));  // DT_F16: 16-bit storage
    w.Line(std::string("#define DT1 ") + (need8_ ? "6" : "0"));   // DT_I8: 8-bit storage
    w.Line("#define DT2 0");
    w.Line("#define DTO 0");
    if (wide_) w.Line("#define SY_F64 1");
    if (math_) w.Line("#define SY_MATH 1");
    if (math_ || math_f32_) w.Line("#define SY_MATH_F32 1");
    w.Line("#include \"common.glsl\"");
    if (math_) w.Line("#include \"math.glsl\"");
    if (math_ || math_f32_) w.Line("#include \"math_f32.glsl\"");
    std::string text = w.str() + kHelpers;
    out->num_operands = static_cast<int>(ops_.size());
    out->rows = k_.reduce_ndim > 0;
    out->workgroups = out->rows ? static_cast<uint64_t>(d_.rows)
                                : static_cast<uint64_t>((d_.numel + kGroup - 1) / kGroup);
    out->source = text + (out->rows ? RowKernel() : ElementKernel());
    return true;
  }

 private:
  // What the kernel needs of the device, and the 32-bit index bound.
  bool Check(std::string* error) {
    auto refuse = [&](const std::string& why) {
      *error = why;
      return false;
    };
    for (const OperandPlan& p : ops_) {
      if (p.dtype == SY_DTYPE_F64) return refuse("f64 operands are not supported");
      need16_ = need16_ || Is16(p.dtype);
      need8_ = need8_ || Is8(p.dtype);
      if (p.dtype == SY_DTYPE_I64 && !t_.int64) return refuse("i64 operands need shaderInt64");
      int64_t extent = 0;
      for (int dim = 0; dim < d_.ndim; ++dim) {
        if (p.strides[dim] < 0) return refuse("an operand has a negative stride");
        if (d_.shape[dim] > 0) extent += (d_.shape[dim] - 1) * p.strides[dim];
      }
      if (extent >= (int64_t{1} << 32)) {
        return refuse("an operand spans 2^32 elements or more (32-bit offsets)");
      }
    }
    if (d_.numel >= (int64_t{1} << 32)) return refuse("the domain has 2^32 elements or more");
    for (int i = 0; i < k_.num_instrs; ++i) {
      const sy_fused_instr_t& in = k_.instrs[i];
      wide_ = wide_ || (Wide(in.dtype) && in.op != SY_FUSED_STORE);
      need16_ = need16_ || Is16(in.dtype);
      if (NeedsMath(in.op)) {
        // In f32 where math_f32.glsl has the op and the value is a float
        // (Note [f32 math] in docs/vulkan.md); in double otherwise.
        (HasF32Math(in.op) && !Wide(in.dtype) ? math_f32_ : math_) = true;
      }
      if (IsReduce(in.op)) (Wide(in.dtype) ? wide_reduce_ : float_reduce_).insert(in.op);
    }
    // i32/i64 values compute in double, as the SDK's compute types say.
    if ((wide_ || math_) && !t_.float64) {
      return refuse(math_ ? "sqrt, rsqrt, sin, cos, pow and math on i32/i64 values need "
                            "shaderFloat64"
                          : "f64, i32 and i64 values need shaderFloat64");
    }
    if (need16_ && !t_.storage16) return refuse("f16 and bf16 need 16-bit storage");
    if (need8_ && !t_.storage8) return refuse("bool, i8 and u8 need 8-bit storage");
    if (math_) wide_ = true;  // math.glsl computes in double
    return true;
  }

  std::string Name(int i) const { return fz::ValueName(k_, i); }

  void Addresses(CodeWriter& w) {
    w.Line("SyAddrs sy_t = SyAddrs(pc.addrs);");
    for (size_t i = 0; i < ops_.size(); ++i) {
      w.Line("const uint64_t " + ops_[i].ptr + " = sy_t.a[" + std::to_string(i) + "];");
    }
  }

  // One instruction as a statement; `at` is the element-offset variable
  // prefix ("o" per element, "row_o" per row).
  void Instr(CodeWriter& w, int i, const std::string& at, bool guard_store) {
    const sy_fused_instr_t& in = k_.instrs[i];
    const bool wide = Wide(in.dtype);
    const std::string type = ValueType(in.dtype);
    const std::string def = "const " + type + " " + Name(i) + " = ";
    auto arg = [&](int32_t j) { return j >= 0 ? Name(j) : std::string(); };
    switch (in.op) {
      case SY_FUSED_LOAD: {
        const OperandPlan& p = ops_[in.index];
        w.Line(def + Load(p, at + p.ptr) + ";");
        return;
      }
      case SY_FUSED_STORE: {
        const OperandPlan& p = ops_[k_.num_inputs + in.index];
        w.Line(std::string(guard_store ? "if (lane == 0u) " : "") + Store(p, at + p.ptr, arg(in.a)));
        return;
      }
      case SY_FUSED_CONST: w.Line(def + Literal(in.imm, wide) + ";"); return;
      case SY_FUSED_CAST: {
        // To an integer dtype a value truncates toward zero (as a store
        // would), so a cast back to floating sees the integer.
        const bool integral = in.dtype == SY_DTYPE_I32 || in.dtype == SY_DTYPE_I64 ||
                              in.dtype == SY_DTYPE_I8 || in.dtype == SY_DTYPE_U8;
        const std::string v = integral ? "trunc(" + type + "(" + arg(in.a) + "))"
                                       : type + "(" + arg(in.a) + ")";
        w.Line(def + (wide ? v : Round(in.dtype, v)) + ";");
        return;
      }
      default: {
        // Compares compute in their operands' type and give 1.0 or 0.0.
        const bool w_op = IsCompare(in.op) ? Wide(k_.instrs[in.a].dtype) : wide;
        const std::string e = fz::OpExpr(in.op, w_op, kGlsl, arg(in.a), arg(in.b), arg(in.c));
        w.Line(def + (wide ? e : Round(in.dtype, e)) + ";");
        return;
      }
    }
  }

  std::string ElementKernel() {
    CodeWriter w;
    w.Open("void main()");
    w.Line("const uint i = linear_index();");
    w.Line("if (i >= " + Lit(d_.numel) + ") return;");
    Addresses(w);
    fz::EmitOffsets(w, d_.shape, ops_, kIndex, "", "i", 0, d_.ndim);
    for (int i = 0; i < k_.num_instrs; ++i) Instr(w, i, "o", false);
    w.Close();
    return w.str();
  }

  static std::string ReduceFn(int32_t op, bool wide) {
    return std::string("sy_wg_") +
           (op == SY_FUSED_REDUCE_SUM ? "sum" : op == SY_FUSED_REDUCE_MAX ? "max" : "min") +
           (wide ? "_d" : "_f");
  }

  // The workgroup reductions the kernel uses: every invocation passes its
  // partial result and gets the workgroup's.
  void ReduceFunctions(CodeWriter& w) {
    for (int wide = 0; wide < 2; ++wide) {
      const std::set<int32_t>& ops = wide ? wide_reduce_ : float_reduce_;
      if (ops.empty()) continue;
      const std::string t = wide ? "double" : "float";
      const std::string buf = wide ? "sy_sd" : "sy_sf";
      w.Line("shared " + t + " " + buf + "[" + std::to_string(kGroup) + "];");
      for (int32_t op : ops) {
        const std::string a = buf + "[l]", b = buf + "[l + s]";
        const std::string combine =
            op == SY_FUSED_REDUCE_SUM ? a + " + " + b
                                      : std::string(op == SY_FUSED_REDUCE_MAX ? "sy_max" : "sy_min") +
                                            (wide ? "d(" : "f(") + a + ", " + b + ")";
        w.Open(t + " " + ReduceFn(op, wide) + "(" + t + " v)");
        w.Line("const uint l = gl_LocalInvocationID.x;");
        w.Line(a + " = v;");
        w.Line("memoryBarrierShared();");
        w.Line("barrier();");
        w.Open("for (uint s = " + Lit(kGroup / 2) + "; s > 0u; s >>= 1u)");
        w.Line("if (l < s) " + a + " = " + combine + ";");
        w.Line("memoryBarrierShared();");
        w.Line("barrier();");
        w.Close();
        w.Line("const " + t + " r = " + buf + "[0];");
        w.Line("barrier();");
        w.Line("return r;");
        w.Close();
      }
    }
  }

  std::string RowKernel() {
    CodeWriter w;
    ReduceFunctions(w);
    const int first_reduced = d_.ndim - d_.reduce_ndim;
    w.Open("void main()");
    // Uniform over the workgroup, so no barrier is skipped by some.
    w.Line("const uint row = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;");
    w.Line("if (row >= " + Lit(d_.rows) + ") return;");
    w.Line("const uint lane = gl_LocalInvocationID.x;");
    Addresses(w);
    fz::EmitOffsets(w, d_.shape, ops_, kIndex, "row_", "row", 0, first_reduced);
    const std::vector<fz::StageSteps> stages = fz::SplitStages(k_);
    for (size_t s = 0; s < stages.size(); ++s) {
      w.Line("// stage " + std::to_string(s));
      for (int i : stages[s].row) Instr(w, i, "row_o", true);
      if (stages[s].elem.empty()) continue;
      for (int i : stages[s].elem) {
        const sy_fused_instr_t& in = k_.instrs[i];
        if (!IsReduce(in.op)) continue;
        const bool wide = Wide(in.dtype);
        const char* inf = wide ? "packDouble2x32(uvec2(0u, 0x7ff00000u))"
                               : "uintBitsToFloat(0x7f800000u)";
        const std::string init = in.op == SY_FUSED_REDUCE_SUM ? (wide ? "0.0LF" : "0.0")
                                 : in.op == SY_FUSED_REDUCE_MAX ? std::string("-") + inf
                                                                : std::string(inf);
        w.Line(std::string(ValueType(in.dtype)) + " a" + std::to_string(i) + " = " + init + ";");
      }
      w.Open("for (uint j = lane; j < " + Lit(d_.row_length) + "; j += " + Lit(kGroup) + ")");
      fz::EmitOffsets(w, d_.shape, ops_, kIndex, "e_", "j", first_reduced, d_.ndim);
      for (const OperandPlan& p : ops_) {
        w.Line("const uint o" + p.ptr + " = row_o" + p.ptr + " + e_o" + p.ptr + ";");
      }
      for (int i : stages[s].elem) {
        const sy_fused_instr_t& in = k_.instrs[i];
        if (!IsReduce(in.op)) {
          Instr(w, i, "o", false);
          continue;
        }
        const std::string acc = "a" + std::to_string(i), x = Name(in.a);
        const bool wide = Wide(in.dtype);
        if (in.op == SY_FUSED_REDUCE_SUM) {
          w.Line(acc + " += " + x + ";");
        } else {
          w.Line(acc + " = " + (in.op == SY_FUSED_REDUCE_MAX ? "sy_max" : "sy_min") +
                 (wide ? "d(" : "f(") + acc + ", " + x + ");");
        }
      }
      w.Close();
      for (int i : stages[s].elem) {
        const sy_fused_instr_t& in = k_.instrs[i];
        if (!IsReduce(in.op)) continue;
        const bool wide = Wide(in.dtype);
        const std::string reduced = ReduceFn(in.op, wide) + "(a" + std::to_string(i) + ")";
        w.Line(std::string("const ") + ValueType(in.dtype) + " " + Name(i) + " = " +
               (wide ? reduced : Round(in.dtype, reduced)) + ";");
      }
    }
    w.Close();
    return w.str();
  }

  const sy_fused_kernel_t& k_;
  const GlslTarget& t_;
  fz::Domain d_;
  std::vector<OperandPlan> ops_;
  bool need16_ = false, need8_ = false, wide_ = false, math_ = false, math_f32_ = false;
  std::set<int32_t> float_reduce_, wide_reduce_;
};

}  // namespace

bool GenerateGlsl(const sy_fused_kernel_t& kernel, const GlslTarget& target, GlslKernel* out,
                  std::string* error) {
  *out = GlslKernel{};
  return Generator(kernel, target).Run(out, error);
}

}  // namespace sy::vulkan::fusion
