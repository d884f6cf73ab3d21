// The body of every elementwise shader (unary, binary, compare, where,
// cast, copy, fill). The including file defines
//   void apply(uint o, uint a, uint b, uint c)
// which computes output element offset `o` from input element offsets
// a, b, c, and then includes this file.
//
// Offsets: with layout_addr == 0 the op is one dense run and operand k's
// element i sits at i·step[k] (step 0 for a broadcast scalar); otherwise
// layout_addr points at a Layout (common.glsl) of the merged dims, and the
// offsets come from unravelling i over it. Offsets are 32-bit element
// counts (the host refuses larger tensors).
// (The push constants are in elementwise_push.glsl, included earlier.)
void main() {
  uint i = linear_index();
  if (i >= pc.n) return;
  uint off[4];
  if (pc.layout_addr == 0ul) {
    for (int k = 0; k < 4; ++k) off[k] = i * pc.step[k];
  } else {
    Layout l = Layout(pc.layout_addr);
    for (int k = 0; k < 4; ++k) off[k] = 0u;
    uint rem = i;
    for (int d = int(l.ndim) - 1; d >= 0; --d) {
      uint size = l.shape[d];
      uint idx = rem % size;
      rem /= size;
      for (int k = 0; k < 4; ++k) off[k] += idx * l.stride[k][d];
    }
  }
  apply(off[0], off[1], off[2], off[3]);
}
