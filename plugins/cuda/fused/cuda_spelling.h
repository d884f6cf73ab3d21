// How the CUDA code generator (cuda_codegen.cc) spells the fused-kernel
// IR's dtypes, values, literals and ops in CUDA C: storage types, the
// conversions between storage and the float (or double) values kernels
// compute in, rounding to 16 bits (Note [16-bit intermediates]), the
// hardware approximations of 16-bit results (Note [16-bit results]) and
// the math functions. Text only; the helpers it names are the prelude's
// (cuda_prelude.h).
//
// Thread-safety: pure functions.
#ifndef SWITCHYARD_PLUGINS_CUDA_FUSED_CUDA_SPELLING_H_
#define SWITCHYARD_PLUGINS_CUDA_FUSED_CUDA_SPELLING_H_

#include <cstdint>
#include <string>

#include "switchyard/plugin.h"

namespace sy::cuda::fusion {

// A dtype as it is stored: its C type and size in bytes.
struct Storage {
  const char* ctype;
  int size;
};
Storage StorageOf(sy_dtype_t d);

// Values compute in double for f64 and the wide integers, else float.
bool Wide(sy_dtype_t d);
const char* ValueType(sy_dtype_t d);

// A stored element (`raw`) as a value, and a value as what dtype d stores.
std::string ToValue(sy_dtype_t d, const std::string& raw);
std::string FromValue(sy_dtype_t d, const std::string& v);

// `v` rounded to dtype d, and the value an ordinary instruction of dtype
// d keeps (Note [16-bit intermediates] in cuda_spelling.cc).
std::string Round(sy_dtype_t d, const std::string& v);
std::string Intermediate(sy_dtype_t d, const std::string& v);

// An IR constant as a float (or, `wide`, double) literal, bit-exact.
std::string Literal(double imm, bool wide);

// The expression of `op` with a 16-bit result `dtype` (Note [16-bit
// results] in cuda_spelling.cc), or "" when the accurate one stands.
std::string Sixteen(sy_dtype_t dtype, int32_t op, const std::string& a, const std::string& b);

// Whether d is f16 or bf16.
bool IsSixteenBit(sy_dtype_t d);

// CUDA's spelling of the ops the SDK writes as calls (fused_codegen.hpp).
const char* CudaFunction(int32_t op, bool w);

}  // namespace sy::cuda::fusion

#endif  // SWITCHYARD_PLUGINS_CUDA_FUSED_CUDA_SPELLING_H_
