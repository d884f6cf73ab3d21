// Shared by every shader of the vulkan plugin: tensors as buffer device
// addresses (Note [Vulkan memory handles], vk_memory.h), dtype loads and
// stores, and the element-offset walk of strided operands.
//
// A variant is compiled per dtype combination (plugins/vulkan/CMakeLists.txt
// passes -DDT0=… for input 0, -DDT1, -DDT2, -DDTO for the output). Each
// dtype brings its load (ld_<dt>: storage → compute type) and store
// (st_<dt>: compute type → storage). Compute types: float for f32, f16 and
// bf16 (f16 and bf16 are converted bit by bit, so subnormals survive on
// devices that flush them in arithmetic), int for i32/i8/u8/bool, int64_t
// for i64. Only the extensions a variant's dtypes need are enabled, so a
// pipeline never asks a device for a capability its dtypes do not use.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#define DT_F32 1
#define DT_F16 2
#define DT_BF16 3
#define DT_I32 4
#define DT_I64 5
#define DT_I8 6
#define DT_U8 7
#define DT_BOOL 8

#if DT0 == DT_F16 || DT1 == DT_F16 || DT2 == DT_F16 || DTO == DT_F16 || \
    DT0 == DT_BF16 || DT1 == DT_BF16 || DT2 == DT_BF16 || DTO == DT_BF16
#define SY_NEED_16 1
#endif
#if DT0 >= DT_I8 || DT1 >= DT_I8 || DT2 >= DT_I8 || DTO >= DT_I8
#define SY_NEED_8 1
#endif

#ifdef SY_NEED_16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#endif
#ifdef SY_NEED_8
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#endif

layout(buffer_reference, std430, buffer_reference_align = 4) buffer BufF32 { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer BufI32 { int v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer BufU32 { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer BufI64 { int64_t v[]; };
#ifdef SY_NEED_16
layout(buffer_reference, std430, buffer_reference_align = 2) buffer BufU16 { uint16_t v[]; };
#endif
#ifdef SY_NEED_8
layout(buffer_reference, std430, buffer_reference_align = 1) buffer BufI8 { int8_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 1) buffer BufU8 { uint8_t v[]; };
#endif

float ld_f32(uint64_t a, uint i) { return BufF32(a).v[i]; }
void st_f32(uint64_t a, uint i, float x) { BufF32(a).v[i] = x; }
int ld_i32(uint64_t a, uint i) { return BufI32(a).v[i]; }
void st_i32(uint64_t a, uint i, int x) { BufI32(a).v[i] = x; }
int64_t ld_i64(uint64_t a, uint i) { return BufI64(a).v[i]; }
void st_i64(uint64_t a, uint i, int64_t x) { BufI64(a).v[i] = x; }

#ifdef SY_NEED_16
// IEEE binary16 ↔ float, as sy::plugin::Half does it: exact widening,
// round-to-nearest-even narrowing, NaN stays NaN, overflow to infinity.
float half_to_float(uint h) {
  uint sign = (h & 0x8000u) << 16;
  uint e = (h >> 10) & 0x1fu;
  uint m = h & 0x3ffu;
  if (e == 0x1fu) return uintBitsToFloat(sign | 0x7f800000u | (m << 13));
  if (e == 0u) {
    float mag = float(m) * 5.9604644775390625e-8;  // m · 2^-24, exact
    return uintBitsToFloat(sign | floatBitsToUint(mag));
  }
  return uintBitsToFloat(sign | ((e + 112u) << 23) | (m << 13));
}
uint float_to_half(float x) {
  uint f = floatBitsToUint(x);
  uint sign = (f >> 16) & 0x8000u;
  uint a = f & 0x7fffffffu;
  if (a >= 0x7f800000u) return sign | 0x7c00u | (a > 0x7f800000u ? 0x200u : 0u);
  if (a >= 0x477ff000u) return sign | 0x7c00u;
  if (a < 0x38800000u) {
    // Below 2^-14: a subnormal half. Shift the mantissa (with its hidden
    // bit) right, rounding to nearest even, in integers.
    uint e = a >> 23;
    if (e < 102u) return sign;  // below half the smallest subnormal
    uint mant = (a & 0x7fffffu) | 0x800000u;
    uint shift = 126u - e;  // 14 + 13 - (e - 112) - 1 + ... = 126 - e
    uint q = mant >> shift;
    uint rem = mant & ((1u << shift) - 1u);
    uint half_ulp = 1u << (shift - 1u);
    if (rem > half_ulp || (rem == half_ulp && (q & 1u) != 0u)) q += 1u;
    return sign | q;
  }
  uint odd = (a >> 13) & 1u;
  uint r = a + 0xc8000fffu + odd;
  return sign | ((r >> 13) & 0x7fffu);
}
float ld_f16(uint64_t a, uint i) { return half_to_float(uint(BufU16(a).v[i])); }
void st_f16(uint64_t a, uint i, float x) { BufU16(a).v[i] = uint16_t(float_to_half(x)); }
float ld_bf16(uint64_t a, uint i) { return uintBitsToFloat(uint(BufU16(a).v[i]) << 16); }
void st_bf16(uint64_t a, uint i, float x) {
  uint f = floatBitsToUint(x);
  uint b = (f & 0x7fffffffu) > 0x7f800000u ? ((f >> 16) | 0x40u)
                                            : ((f + 0x7fffu + ((f >> 16) & 1u)) >> 16);
  BufU16(a).v[i] = uint16_t(b);
}
#endif
#ifdef SY_NEED_8
int ld_i8(uint64_t a, uint i) { return int(BufI8(a).v[i]); }
void st_i8(uint64_t a, uint i, int x) { BufI8(a).v[i] = int8_t(x); }
int ld_u8(uint64_t a, uint i) { return int(BufU8(a).v[i]); }
void st_u8(uint64_t a, uint i, int x) { BufU8(a).v[i] = uint8_t(x); }
int ld_bool(uint64_t a, uint i) { return BufU8(a).v[i] != uint8_t(0) ? 1 : 0; }
void st_bool(uint64_t a, uint i, int x) { BufU8(a).v[i] = uint8_t(x != 0 ? 1 : 0); }
#endif

// The linear invocation index of a 1-D problem dispatched as a 2-D grid of
// 256-wide workgroups (groups beyond maxComputeWorkGroupCount[0] wrap to y).
uint linear_index() {
  return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u +
         gl_LocalInvocationID.x;
}

// The stride table of a strided elementwise op, uploaded per op (host:
// kernels/elementwise.h, StridedLayout). Operand 0 is the output.
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Layout {
  uint ndim;
  uint pad0, pad1, pad2;
  uint shape[8];
  uint stride[4][8];
};
