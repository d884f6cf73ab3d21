// How the CUDA code generator spells IR values in CUDA C (cuda_spelling.h).
#include "fused/cuda_spelling.h"

#include <bit>
#include <cinttypes>
#include <cstdio>

#include "switchyard/plugin/fused_ir.hpp"

namespace sy::cuda::fusion {

// ---- Dtypes -------------------------------------------------------------------


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
//
// Note [16-bit intermediates]: an f16 or bf16 value is rounded where the
// graph makes it 16 bits — a cast to f16/bf16, and the store to a 16-bit
// output — and nowhere else: every other instruction of a fused kernel
// keeps its f32 value (Intermediate), as torch.compile's kernels do. The
// eager kernels round every op's output, so fused and unfused results
// differ by a few ulp of the dtype, the fused ones closer to float64.
// Rounding after every instruction, as codegen 5 did, made 16-bit row
// kernels compute-bound: a conversion to 16 bits issues at 16 per clock
// and SM on sm_90 (an eighth of f32's rate), and bf16 softmax took six of
// them per element — at rows of 4096 it ran at 0.75 of copy bandwidth
// with the SM 92 % busy (ncu, H100), where f32 reached 1.03.
std::string Round(sy_dtype_t d, const std::string& v) {
  if (d == SY_DTYPE_F16) return "sy_rh(" + v + ")";
  if (d == SY_DTYPE_BF16) return "sy_rb(" + v + ")";
  if (d == SY_DTYPE_BOOL) return "((" + v + ") != 0 ? 1.f : 0.f)";
  return v;
}

// The value an ordinary instruction of dtype d keeps (Note [16-bit
// intermediates]): f16 and bf16 stay in f32; bool becomes 0 or 1.
std::string Intermediate(sy_dtype_t d, const std::string& v) {
  return d == SY_DTYPE_BOOL ? Round(d, v) : v;
}

std::string Literal(double imm, bool wide) {
  char text[64];
  if (wide) {
    const uint64_t bits = std::bit_cast<uint64_t>(imm);
    std::snprintf(text, sizeof(text), "__longlong_as_double(0x%016" PRIx64 "LL)", bits);
  } else {
    const uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(imm));
    std::snprintf(text, sizeof(text), "__int_as_float(0x%08" PRIx32 ")", bits);
  }
  return text;
}


// Note [16-bit results]: where an op's result is f16 or bf16 (kept in f32,
// Note [16-bit intermediates], but bound for 16 bits: it is cast or stored
// as such, or feeds values that are), its f32 value needs only ~12 good
// bits (the approximations below are good to 2^-21 relative, tanh's to
// 2^-11 absolute), and the accurate f32 functions
// make 16-bit row kernels compute-bound: softmax in bf16 reached 0.62 of
// copy bandwidth at rows of 1024 (H100), where f32 reached 1.04. exp,
// tanh, sigmoid and division then use the hardware's approximations
// (ex2.approx, tanh.approx, rcp.approx), as torch.compile's Triton kernels
// do for exp. f32 and f64 results keep the accurate functions.
// Even so, bf16 softmax rows issued an instruction nearly every cycle
// (ncu on the H200: 83 % of issue slots at rows of 4096, 0.82 of copy),
// so two more cuts, each giving the same values: a division by one value
// of the row (softmax's sum) multiplies by its reciprocal, taken once a
// row (DividesByRow in cuda_codegen.cc, sy_rcp16 in the prelude), and a bf16 element of a
// vector converts from the 32-bit word that holds it (sy_b2f_at): 12–14 %
// fewer instructions executed in bf16 softmax, and 0.82 → 0.92 of copy
// at rows of 4096, 0.69 → 0.80 at 65536 (H200; docs/fusion.md; codegen
// 9). Then (codegen 10) the exps that only softmax's sum reads flush
// results below 2^-126 to 0 (SumsOfExps there, sy_exp16_ftz): __expf spends
// three instructions an exp on subnormal results, and the sum, which
// holds exp(0) = 1, cannot see them; the output's exps keep them (bf16
// reaches 2^-133). Another 11 % fewer instructions; 0.89 → 0.93 at 4096,
// 0.82 → 0.87 at 16384, 0.79 → 0.84 at 65536.
// Codegen 15 cut 14 % more at bf16 262144 (the vector entry's SASS), the
// same values again: a 16-bit row max compares words two elements at a
// time (Note [Packed 16-bit max] in cuda_codegen.cc), results round two to
// an instruction at the store (Note [Paired 16-bit stores]), and
// softmax's division by its sum, which is at least 1, drops the scaling
// (sy_div16_by_sum). 0.94 → 0.96 at 16384; the long rows did not move.
// Codegen 16: f32 values that only reach 16-bit results take these
// spellings too (Note [f32 values bound for 16 bits] in bound_for_16.h):
// bf16 softmax through its f32 decomposition went from 0.60-0.63 of copy
// over vocabulary rows to 0.87-0.91.
// The expression of `op` with a 16-bit result `dtype`, or "" when the
// accurate one stands.
bool IsSixteenBit(sy_dtype_t d) { return d == SY_DTYPE_F16 || d == SY_DTYPE_BF16; }

std::string Sixteen(sy_dtype_t dtype, int32_t op, const std::string& a, const std::string& b) {
  if (!IsSixteenBit(dtype)) return "";
  switch (op) {
    case SY_FUSED_EXP: return "__expf(" + a + ")";
    case SY_FUSED_TANH: return "sy_tanh16(" + a + ")";
    case SY_FUSED_SIGMOID: return "sy_sigmoid16(" + a + ")";
    case SY_FUSED_DIV: return "sy_div16(" + a + ", " + b + ")";
    default: return "";
  }
}

// CUDA's spelling of the ops the SDK writes as calls (fused_codegen.hpp).
const char* CudaFunction(int32_t op, bool w) {
  switch (op) {
    case SY_FUSED_ABS: return w ? "fabs" : "fabsf";
    case SY_FUSED_EXP: return w ? "exp" : "expf";
    case SY_FUSED_LOG: return w ? "log" : "logf";
    case SY_FUSED_SQRT: return w ? "sqrt" : "sqrtf";
    case SY_FUSED_SIN: return w ? "sin" : "sinf";
    case SY_FUSED_COS: return w ? "cos" : "cosf";
    case SY_FUSED_TANH: return w ? "tanh" : "tanhf";
    case SY_FUSED_ERF: return w ? "erf" : "erff";
    case SY_FUSED_SIGMOID: return w ? "sy_sigmoidd" : "sy_sigmoidf";
    case SY_FUSED_SILU: return w ? "sy_silud" : "sy_siluf";
    case SY_FUSED_GELU: return w ? "sy_gelud" : "sy_geluf";
    case SY_FUSED_GELU_TANH: return w ? "sy_gelu_tanhd" : "sy_gelu_tanhf";
    case SY_FUSED_POW: return w ? "pow" : "powf";
    case SY_FUSED_MAXIMUM: return w ? "sy_maxd" : "sy_maxf";
    default: return w ? "sy_mind" : "sy_minf";  // SY_FUSED_MINIMUM
  }
}

}  // namespace sy::cuda::fusion
