// where(condition, a, b): condition is bool (DT0), a and b share DT1.
#version 450
#include "common.glsl"
#include "select.glsl"
#include "elementwise_push.glsl"

// The chosen element's compute value; for float storage it is the exact
// value (loads and stores are bit conversions). Only the chosen input is
// read.
struct Vals { C1 r; };
Vals load_vals(uint c0, uint a, uint b) {
  int cond = LD0(pc.in_addr[0], c0);
  return Vals(cond != 0 ? LD1(pc.in_addr[1], a) : LD1(pc.in_addr[2], b));
}

void store_vals(uint o, Vals v) { STO(pc.out_addr, o, v.r); }

#include "elementwise.glsl"
