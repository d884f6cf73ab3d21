// cast (DT0 → DTO) and copy/contiguous (DT0 == DTO). Float to integer
// truncates toward zero; anything to bool is `!= 0` (NaN is true); bool
// is 0 or 1.
#version 450
#include "common.glsl"
#include "select.glsl"
#include "elementwise_push.glsl"

void apply(uint o, uint a, uint b, uint c) {
  C0 x = LD0(pc.in_addr[0], a);
#if DTO == DT_BOOL
  STO(pc.out_addr, o, x != C0(0) ? 1 : 0);
#else
  STO(pc.out_addr, o, CO(x));
#endif
}

#include "elementwise.glsl"
