// where(condition, a, b): condition is bool (DT0), a and b share DT1.
#version 450
#include "common.glsl"
#include "select.glsl"
#include "elementwise_push.glsl"

void apply(uint o, uint c0, uint a, uint b) {
  // Copy the chosen element's compute value; for float storage it is the
  // exact value (loads and stores are bit conversions).
  int cond = LD0(pc.in_addr[0], c0);
  C1 r = cond != 0 ? LD1(pc.in_addr[1], a) : LD1(pc.in_addr[2], b);
  STO(pc.out_addr, o, r);
}

#include "elementwise.glsl"
