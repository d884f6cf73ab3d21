// The push constants of every elementwise shader (elementwise.glsl); the
// host mirrors them in kernels/elementwise.h (ElementwisePush).
layout(local_size_x = 256) in;

layout(push_constant, std430) uniform Push {
  uint64_t out_addr;
  uint64_t in_addr[3];
  uint64_t layout_addr;
  uint n;
  uint step[4];
  float scalar_f;
  int scalar_i;
  uint scalar_lo;
  uint scalar_hi;
} pc;

