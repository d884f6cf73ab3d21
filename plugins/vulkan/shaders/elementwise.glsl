// The body of every elementwise shader (unary, binary, compare, where,
// cast, copy, fill, embedding). The including file defines
//   struct Vals                              what one element's inputs load
//   Vals load_vals(uint a, uint b, uint c)   loads them from input element
//                                            offsets a, b, c
//   void store_vals(uint o, Vals v)          computes and stores output
//                                            element offset o
// and then includes this file.
//
// Offsets: with layout_addr == 0 the op is one dense run and operand k's
// element i sits at i·step[k] (step 0 for a broadcast scalar); otherwise
// layout_addr points at a Layout (common.glsl) of the merged dims, and the
// offsets come from unravelling i over it. Offsets are 32-bit element
// counts (the host refuses larger tensors).
//
// Each invocation takes SY_EPT elements, 256 apart (so every load and
// store of a subgroup is coalesced), and issues all their loads before any
// store: stores go through buffer references the compiler must assume may
// alias the inputs, so an invocation that stored before its next load
// would keep one load in flight at a time, and one 4-byte load per
// invocation is too few bytes in flight to fill a GPU's memory pipe
// (docs/vulkan.md, "Memory-bound kernels", also for why 4 and not 8). The
// host dispatches
// ceil(n / (256·SY_EPT)) workgroups (kernels/elementwise.h, kElementsPerGroup).
// (The push constants are in elementwise_push.glsl, included earlier.)
#define SY_EPT 4u

void main() {
  uint first = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * (256u * SY_EPT) +
               gl_LocalInvocationID.x;
  Vals v[SY_EPT];
  uint out_off[SY_EPT];
  if (pc.layout_addr == 0ul) {
    for (uint j = 0u; j < SY_EPT; ++j) {
      uint i = first + j * 256u;
      if (i < pc.n) {
        v[j] = load_vals(i * pc.step[1], i * pc.step[2], i * pc.step[3]);
        out_off[j] = i * pc.step[0];
      }
    }
  } else {
    Layout l = Layout(pc.layout_addr);
    uint ndim = l.ndim;
    for (uint j = 0u; j < SY_EPT; ++j) {
      uint i = first + j * 256u;
      if (i < pc.n) {
        uint off[4] = uint[4](0u, 0u, 0u, 0u);
        uint rem = i;
        for (int d = int(ndim) - 1; d >= 0; --d) {
          uint size = l.shape[d];
          uint idx = rem % size;
          rem /= size;
          for (int k = 0; k < 4; ++k) off[k] += idx * l.stride[k][d];
        }
        v[j] = load_vals(off[1], off[2], off[3]);
        out_off[j] = off[0];
      }
    }
  }
  for (uint j = 0u; j < SY_EPT; ++j) {
    if (first + j * 256u < pc.n) store_vals(out_off[j], v[j]);
  }
}
