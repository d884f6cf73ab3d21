// A strided copy of raw elements of SY_BYTES bytes (1, 2, 4 or 8): copy,
// contiguous and concat move bits, never values, so one shader per
// element size serves every dtype (NaN payloads and subnormals included).
// fill (SY_FILL) writes the pattern scalar_lo/scalar_hi instead.
#version 450
#if SY_BYTES == 1
#define DT0 6
#elif SY_BYTES == 2
#define DT0 2
#endif
#include "common.glsl"
#include "elementwise_push.glsl"

#if SY_BYTES == 1
struct Vals { uint8_t x; };
Vals load_vals(uint a, uint b, uint c) {
  return Vals(SY_FILL != 0 ? uint8_t(pc.scalar_lo) : BufU8(pc.in_addr[0]).v[a]);
}
void store_vals(uint o, Vals v) { BufU8(pc.out_addr).v[o] = v.x; }
#elif SY_BYTES == 2
struct Vals { uint16_t x; };
Vals load_vals(uint a, uint b, uint c) {
  return Vals(SY_FILL != 0 ? uint16_t(pc.scalar_lo) : BufU16(pc.in_addr[0]).v[a]);
}
void store_vals(uint o, Vals v) { BufU16(pc.out_addr).v[o] = v.x; }
#elif SY_BYTES == 4
struct Vals { uint x; };
Vals load_vals(uint a, uint b, uint c) {
  return Vals(SY_FILL != 0 ? pc.scalar_lo : BufU32(pc.in_addr[0]).v[a]);
}
void store_vals(uint o, Vals v) { BufU32(pc.out_addr).v[o] = v.x; }
#else
struct Vals { int64_t x; };
Vals load_vals(uint a, uint b, uint c) {
  return Vals(SY_FILL != 0 ? int64_t((uint64_t(pc.scalar_hi) << 32) | uint64_t(pc.scalar_lo))
                           : BufI64(pc.in_addr[0]).v[a]);
}
void store_vals(uint o, Vals v) { BufI64(pc.out_addr).v[o] = v.x; }
#endif

#include "elementwise.glsl"
