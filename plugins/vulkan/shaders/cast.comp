// cast (DT0 → DTO) and copy/contiguous (DT0 == DTO). Float to integer
// truncates toward zero; anything to bool is `!= 0` (NaN is true); bool
// is 0 or 1.
#version 450
#include "common.glsl"
#include "select.glsl"
#include "elementwise_push.glsl"

struct Vals { C0 x; };
Vals load_vals(uint a, uint b, uint c) { return Vals(LD0(pc.in_addr[0], a)); }

void store_vals(uint o, Vals v) {
  C0 x = v.x;
#if DTO == DT_BOOL
  STO(pc.out_addr, o, x != C0(0) ? 1 : 0);
#else
  STO(pc.out_addr, o, CO(x));
#endif
}

#include "elementwise.glsl"
