// Unary elementwise kernels (shaders/unary.comp). neg abs relu square run
// in the dtype's compute type; exp log tanh sigmoid silu erf gelu in f32
// (shaders/math_f32.glsl, on every device); sqrt rsqrt sin cos reciprocal
// in double (shaders/math.glsl), so they need shaderFloat64 (docs/vulkan.md,
// "Accuracy", says why those stay). Integer and bool inputs of the floating
// ops give f32, as the core op set says.
#include "kernels/elementwise.h"

namespace sy::vulkan {
namespace {

using ::sy::plugin::StrCat;

// OP codes of unary.comp.
// The floating ops computed in double: the rest of kOp >= 4 are f32.
constexpr bool InDouble(int op) {
  return op == 6 || op == 7 || op == 8 || op == 9 || op == 14;
}

template <int kOp>
sy_error_t* Unary(const sy_kernel_call_t* call) {
  static constexpr const char* kNames[] = {
      "neg", "abs", "relu", "square", "exp", "log", "sqrt", "rsqrt", "sin",
      "cos", "tanh", "sigmoid", "silu", "erf", "reciprocal", "gelu"};
  const std::string_view op = kNames[kOp];
  return plugin::Guard(StrCat("vulkan plugin: ", op), [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    const int attrs = kOp == 15 ? 1 : 0;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 1, 1, attrs, &stream));
    const sy_dtype_t in = call->inputs[0].dtype;
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->inputs[0], op, "input 'x'", in, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->outputs[0], op, "output", SY_DTYPE_NONE, *stream));
    uint32_t code = kOp;
    if (kOp == 15) {
      std::string_view approximate;
      SY_PLUGIN_RETURN_IF_ERROR(ReadString(call, 0, op, "approximate", approximate));
      if (approximate == "tanh") {
        code = 16;
      } else if (approximate != "none") {
        return OpError(op, StrCat("attribute 'approximate' is '", approximate,
                                  "'; pass \"none\" or \"tanh\""));
      }
    }
    const uint32_t spec[] = {code};
    const std::string variant =
        StrCat(kOp < 4 ? "unary_num_" : (InDouble(kOp) ? "unary_float_" : "unary_f32math_"),
               ShaderDtype(in));
    return RunSimple(*stream, call, op, variant, spec, 1);
  });
}

template <int kOp>
void AddOp(const Caps& caps, KernelList& list, const char* op) {
  static constexpr sy_dtype_t kF32[] = {SY_DTYPE_F32};
  static constexpr sy_dtype_t kF16[] = {SY_DTYPE_F16};
  static constexpr sy_dtype_t kI32[] = {SY_DTYPE_I32};
  static constexpr sy_dtype_t kI64[] = {SY_DTYPE_I64};
  static constexpr sy_dtype_t kBool[] = {SY_DTYPE_BOOL};
  if (InDouble(kOp) && !caps.float64) return;
  list.Add(op, kF32, Unary<kOp>);
  if (caps.storage16) list.Add(op, kF16, Unary<kOp>);
  list.Add(op, kI32, Unary<kOp>);
  list.Add(op, kI64, Unary<kOp>);
  if (kOp >= 4 && caps.storage8) list.Add(op, kBool, Unary<kOp>);
}

}  // namespace

void AddUnaryKernels(const Caps& caps, KernelList& list) {
  AddOp<0>(caps, list, "neg");
  AddOp<1>(caps, list, "abs");
  AddOp<2>(caps, list, "relu");
  AddOp<3>(caps, list, "square");
  AddOp<4>(caps, list, "exp");
  AddOp<5>(caps, list, "log");
  AddOp<6>(caps, list, "sqrt");
  AddOp<7>(caps, list, "rsqrt");
  AddOp<8>(caps, list, "sin");
  AddOp<9>(caps, list, "cos");
  AddOp<10>(caps, list, "tanh");
  AddOp<11>(caps, list, "sigmoid");
  AddOp<12>(caps, list, "silu");
  AddOp<13>(caps, list, "erf");
  AddOp<14>(caps, list, "reciprocal");
  AddOp<15>(caps, list, "gelu");
}

}  // namespace sy::vulkan
