// embedding(weight, indices): out[..., d] = weight[indices[...], d]. Walks
// the output like an elementwise op (elementwise.glsl): input 0 is weight
// seen as its column offset (stride along d only), input 1 the indices
// (stride 0 along d); step[0] is weight's row stride, scalar_i its rows. An index outside [0, rows) writes 0 and sets the flag at
// scalar_lo/hi (an address), which the host reads back to report it.
#version 450
#include "common.glsl"
#include "select.glsl"
#include "elementwise_push.glsl"

struct Vals { bool ok; C0 x; };
Vals load_vals(uint a, uint b, uint c) {
  uint rows = uint(pc.scalar_i);
  uint row_stride = pc.step[0];
  // Compared in the index's own type (an i32 index widened to int64_t
  // lost its sign on lavapipe).
  C1 row = LD1(pc.in_addr[1], b);
  bool ok = row >= C1(0) && row < C1(rows);
  return Vals(ok, ok ? LD0(pc.in_addr[0], uint(row) * row_stride + a) : C0(0));
}

void store_vals(uint o, Vals v) {
  if (!v.ok) BufU32((uint64_t(pc.scalar_hi) << 32) | uint64_t(pc.scalar_lo)).v[0] = 1u;
  STO(pc.out_addr, o, CO(v.x));
}

#include "elementwise.glsl"
