// The engine under every elementwise kernel of the cpu plugin (creation,
// unary, binary, compare, where): element types and their conversions, a
// strided N-operand walk split across threads, and the checks of an
// elementwise call.
//
// Note [Elementwise engine]: a kernel is an *array op* plus operand types.
// The op computes op(n, out, in...) over plain arrays of its compute types
// (n <= kBlock); the engine walks the tensors (StridedLayout runs, split
// across threads by ParallelForEachRun) in blocks of kBlock elements and
// hands each block to the op:
//   - an operand whose memory already holds the compute type with unit
//     step is passed in place (the fast path: no copies at all);
//   - any other input is converted into a stack buffer first (strided
//     gather, f16/bf16 -> f32, bool bytes -> bool, int -> float ...), and a
//     broadcast input (step 0) is converted once per run;
//   - the output likewise, converted back after the op.
// Ops written as one expression per element go through Map, whose loop is
// compiled for AVX-512, AVX2 and baseline x86-64 (GCC target_clones; the
// dynamic loader picks one per process), so `-fopt-info-vec-optimized`
// reports that loop vectorized with 64-, 32- and 16-byte vectors. Ops built
// on libm functions call vector_math.h instead (Note [Vector math]).
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_ELEMENTWISE_ENGINE_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_ELEMENTWISE_ENGINE_H_

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kernels/kernel_list.h"
#include "kernels/kernel_util.h"
#include "kernels/parallel.h"
#include "kernels/strided.h"
#include "kernels/vector_math.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

// Compiles a loop once per x86-64 ISA level; the loader picks the best the
// CPU has. Elsewhere (and under Clang) the loop is compiled once.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SY_CPU_VECTOR_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SY_CPU_VECTOR_CLONES
#endif

namespace sy::cpu {

// ---- Element types -----------------------------------------------------------

using plugin::BFloat16;
using plugin::Half;

// A bool tensor's element: one byte, true when not 0 (DLPack's bool). Kept
// distinct from uint8_t (u8) so that conversions know which it is.
struct BoolByte {
  uint8_t bits;
};

// The type a dtype's elements have in memory.
template <sy_dtype_t D>
struct StorageOf {
  using type = plugin::CType<D>;
};
template <>
struct StorageOf<SY_DTYPE_BOOL> {
  using type = BoolByte;
};
template <sy_dtype_t D>
using Storage = typename StorageOf<D>::type;

// The type arithmetic on a storage type runs in: f16 and bf16 compute in
// f32 and round once on the way out; bool computes as C++ bool.
template <class S>
struct ComputeOf {
  using type = S;
};
template <>
struct ComputeOf<Half> {
  using type = float;
};
template <>
struct ComputeOf<BFloat16> {
  using type = float;
};
template <>
struct ComputeOf<BoolByte> {
  using type = bool;
};
template <sy_dtype_t D>
using Compute = typename ComputeOf<Storage<D>>::type;

template <class T>
inline constexpr bool kIsHalfLike =
    std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// ---- Conversions (the semantics of `cast`) -----------------------------------

namespace internal {

// `v` rounded to float with "round to odd": truncated toward zero, with the
// last bit set when inexact. Rounding that on to f16 or bf16 (13 or 16
// fewer bits) gives the correctly rounded result; rounding to nearest twice
// would not always.
inline float RoundToOddFloat(double v) {
  const float f = static_cast<float>(v);
  if (v != v || static_cast<double>(f) == v) return f;
  uint32_t bits = std::bit_cast<uint32_t>(f);
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) --bits;
  return std::bit_cast<float>(bits | 1u);
}

// Truncates toward zero like a C cast where that is defined; NaN gives 0
// and values beyond I's range saturate to its min or max (a C cast would be
// undefined behaviour).
template <class I, class F>
constexpr I FloatToInt(F v) {
  constexpr F kLo = static_cast<F>(std::numeric_limits<I>::min());  // exact
  constexpr F kHi =  // 2^digits: the first value past the max, exact
      static_cast<F>(uint64_t{1} << std::numeric_limits<I>::digits);
  if (v != v) return 0;
  if (v <= kLo) return std::numeric_limits<I>::min();
  if (v >= kHi) return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}

}  // namespace internal

// Converts one value between element and compute types, as `cast` does:
// - to bool (BoolByte or bool): v != 0, so NaN is true; from bool: 0 or 1;
// - floating to integer: truncates toward zero; NaN gives 0 and values
//   beyond the range saturate (internal::FloatToInt);
// - integer to integer wraps modulo 2^bits (C++20 conversions);
// - to floating: rounds to nearest even, overflowing to infinity; f64 and
//   wide integers reach f16/bf16 through round-to-odd, so they round once
//   (i64 beyond 2^53 can still round twice, through f64).
template <class To, class From>
constexpr To Convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<From, BoolByte>) {
    return Convert<To>(v.bits != 0);
  } else if constexpr (kIsHalfLike<From>) {
    return Convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, BoolByte>) {
    return BoolByte{static_cast<uint8_t>(v != From{0})};
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From{0};
  } else if constexpr (kIsHalfLike<To>) {
    if constexpr (std::is_same_v<From, float> || sizeof(From) <= 2) {
      return To(static_cast<float>(v));  // exact for bool, i8, u8
    } else {
      return To(internal::RoundToOddFloat(static_cast<double>(v)));
    }
  } else if constexpr (std::is_integral_v<To> &&
                       std::is_floating_point_v<From>) {
    return internal::FloatToInt<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// ---- Loops -----------------------------------------------------------------

// Elements per block handed to an array op (Note [Elementwise engine]):
// small enough that a block of every operand stays in L1.
inline constexpr int64_t kBlock = 512;

// out[i] = f(in[i]...) for i in [0, n). Operands never overlap (outputs do
// not alias inputs, and buffers are the engine's own).
template <class F, class O, class... I>
SY_CPU_VECTOR_CLONES void MapLoop(const F& f, int64_t n, O* __restrict out,
                                  const I* __restrict... in) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]...);
}

// An array op from an element function: Map{[](float a, float b) { … }}.
template <class F>
struct Map {
  F f;
  template <class O, class... I>
  void operator()(int64_t n, O* out, const I*... in) const {
    MapLoop(f, n, out, in...);
  }
};
template <class F>
Map(F) -> Map<F>;

// out[i] = Convert<To>(in[i]), vectorized where the conversion allows.
template <class To, class From>
SY_CPU_VECTOR_CLONES void ConvertLoop(int64_t n, To* __restrict out,
                                      const From* __restrict in) {
  for (int64_t i = 0; i < n; ++i) out[i] = Convert<To>(in[i]);
}

namespace internal {

// buf[i] = Convert<C>(p[i * step]) for i in [0, m).
template <class C, class S>
void Load(int64_t m, C* buf, const S* p, int64_t step) {
  if (step == 1) {
    if constexpr (std::is_same_v<S, Half> && std::is_same_v<C, float>) {
      return HalfToFloat(m, buf, p);
    } else {
      return ConvertLoop(m, buf, p);
    }
  }
  for (int64_t i = 0; i < m; ++i) buf[i] = Convert<C>(p[i * step]);
}

// p[i * step] = Convert<S>(buf[i]) for i in [0, m).
template <class S, class C>
void Store(int64_t m, S* p, int64_t step, const C* buf) {
  if (step == 1) {
    if constexpr (std::is_same_v<S, Half> && std::is_same_v<C, float>) {
      return FloatToHalf(m, p, buf);
    } else {
      return ConvertLoop(m, p, buf);
    }
  }
  for (int64_t i = 0; i < m; ++i) p[i * step] = Convert<S>(buf[i]);
}

// Uninitialized room for one block of each type (C++20 creates the objects
// implicitly in an unsigned char array).
template <class... C>
struct Scratch {
  static constexpr size_t kOffsets[] = {0, sizeof(C)...};
  alignas(64) unsigned char bytes[(size_t{0} + ... + sizeof(C)) * kBlock + 1];

  template <size_t K>
  auto* get() {
    size_t offset = 0;
    for (size_t j = 1; j <= K; ++j) offset += kOffsets[j] * kBlock;
    using T = std::tuple_element_t<K, std::tuple<C...>>;
    return reinterpret_cast<T*>(bytes + offset);
  }
};

// One run of the walk: n elements, operand k at p[k] with step s[k].
template <class Out, class... In, class Op, size_t... K>
void RunBlocks(const Op& op, int64_t n, std::index_sequence<K...>,
               typename Out::Storage* out, int64_t out_step,
               const std::tuple<const typename In::Storage*...>& in,
               const std::array<int64_t, sizeof...(In)>& step) {
  using OutC = typename Out::Compute;
  // A bool result may be written as C++ bool straight into bool bytes (0 or
  // 1); only reading them needs the != 0 conversion.
  constexpr bool kOutInPlace =
      std::is_same_v<typename Out::Storage, OutC> ||
      (std::is_same_v<typename Out::Storage, BoolByte> &&
       std::is_same_v<OutC, bool>);
  constexpr bool kInPlace[] = {
      std::is_same_v<typename In::Storage, typename In::Compute>..., false};
  Scratch<OutC, typename In::Compute...> scratch;
  OutC* const out_buf = scratch.template get<0>();
  const std::tuple<typename In::Compute*...> buf{
      scratch.template get<K + 1>()...};
  // A broadcast input holds one value for the whole run.
  (
      [&] {
        if (step[K] == 0 && !(kInPlace[K] && n == 1)) {
          const auto value = Convert<typename In::Compute>(*std::get<K>(in));
          std::fill_n(std::get<K>(buf), std::min(n, kBlock), value);
        }
      }(),
      ...);
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    [[maybe_unused]] const auto source = [&]<size_t J>(std::integral_constant<size_t, J>) {
      using C = std::tuple_element_t<J, std::tuple<typename In::Compute...>>;
      const auto* p = std::get<J>(in);
      const int64_t s = step[J];
      if constexpr (kInPlace[J]) {
        if (s == 1 || (s == 0 && n == 1)) return static_cast<const C*>(p + b);
      }
      C* into = std::get<J>(buf);
      if (s != 0) Load(m, into, p + b * s, s);
      return static_cast<const C*>(into);
    };
    const bool out_in_place = kOutInPlace && out_step == 1;
    OutC* const dst =
        out_in_place ? reinterpret_cast<OutC*>(out + b) : out_buf;
    op(m, dst, source(std::integral_constant<size_t, K>{})...);
    if (!out_in_place) Store(m, out + b * out_step, out_step, out_buf);
  }
}

}  // namespace internal

// An operand of an elementwise kernel: its element type in memory and the
// type the array op reads or writes.
template <class S, class C = typename ComputeOf<S>::type>
struct Operand {
  using Storage = S;
  using Compute = C;
};

// Runs `op` over every element of `out` and the inputs `in` (already
// broadcast to out's shape, checked by CheckElementwise), on the thread
// pool when there are more than kParallelGrain elements. `op` is called
// concurrently on disjoint blocks.
template <class Out, class... In, class Op>
void RunElementwise(const Op& op, const sy_tensor_view_t& out,
                    const std::array<const sy_tensor_view_t*, sizeof...(In)>&
                        in) {
  constexpr size_t kN = sizeof...(In);
  std::array<const int64_t*, kN + 1> strides{};
  strides[0] = out.strides;
  for (size_t k = 0; k < kN; ++k) strides[k + 1] = in[k]->strides;
  // Note [Elementwise memory order] (switchyard/plugin/views.hpp): a
  // channels-last output and inputs of its layout are one dense run.
  const plugin::MemoryOrderedDims<kN + 1> dims(plugin::Shape(out), strides);
  const StridedLayout<kN + 1> layout(dims.shape(), dims.strides());
  auto* const po = plugin::DataPtr<typename Out::Storage>(out);
  const auto pin = [&]<size_t... K>(std::index_sequence<K...>) {
    return std::tuple<const typename In::Storage*...>{
        plugin::DataPtr<const typename In::Storage>(*in[K])...};
  }(std::index_sequence_for<In...>{});
  ParallelForEachRun(
      layout, kParallelGrain,
      [&](const auto& offsets, int64_t n, const auto& steps) {
        [&]<size_t... K>(std::index_sequence<K...> seq) {
          internal::RunBlocks<Out, In...>(
              op, n, seq, po + offsets[0], steps[0],
              std::tuple<const typename In::Storage*...>{std::get<K>(pin) +
                                                         offsets[K + 1]...},
              std::array<int64_t, kN>{steps[K + 1]...});
        }(std::index_sequence_for<In...>{});
      });
}

// ---- Checks -------------------------------------------------------------------

// Checks an elementwise kernel's call before it touches memory: the counts
// (inputs.size() inputs, one output, `num_attrs` attributes), every view,
// each input's dtype against the kernel's registered `dtypes`, and each
// input's shape against the output's (the core broadcasts first). The
// output's dtype is the kernel's to check (CheckOutputDtype): it may depend
// on attributes. `inputs` names the inputs in messages: "input 'a'".
// Nothing is checked when the host already did (plugin::HostChecked).
sy_error_t* CheckElementwise(const sy_kernel_call_t* call, std::string_view op,
                             std::span<const std::string_view> inputs,
                             std::span<const sy_dtype_t> dtypes,
                             int num_attrs);

// Checks that the output has dtype `want`, what `op` on an input of dtype
// `input` (and `detail`, e.g. " and a float Scalar") gives.
sy_error_t* CheckOutputDtype(const sy_tensor_view_t& out, std::string_view op,
                             sy_dtype_t input, sy_dtype_t want,
                             std::string_view detail = "");

// A Scalar attribute as the host passes it (SY_ATTR_INT, _FLOAT or _BOOL).
struct ScalarValue {
  int32_t kind = SY_ATTR_INT;
  int64_t i = 0;   // SY_ATTR_INT, and SY_ATTR_BOOL as 0 or 1
  double f = 0.0;  // SY_ATTR_FLOAT
  bool is_float() const { return kind == SY_ATTR_FLOAT; }
};

// Reads attribute `index`, named `name` ("attribute 'b'"), as a Scalar.
sy_error_t* ReadScalar(const sy_kernel_call_t* call, int index,
                       std::string_view op, std::string_view name,
                       ScalarValue& out);

// The value of `s` in the compute type C of a tensor of dtype `dtype`: an
// integer that does not fit the dtype is an error naming `name` and
// `tensor`; a float Scalar for an integer dtype is the caller's to avoid
// (it makes the result f32).
template <class C>
sy_error_t* ScalarAs(const ScalarValue& s, sy_dtype_t dtype,
                     std::string_view op, std::string_view name,
                     std::string_view tensor, C& out);

// The range check behind ScalarAs: the error when `value` does not fit in
// the integer dtype `dtype`.
sy_error_t* CheckIntFits(int64_t value, sy_dtype_t dtype, std::string_view op,
                         std::string_view name, std::string_view tensor);

template <class C>
sy_error_t* ScalarAs(const ScalarValue& s, sy_dtype_t dtype,
                     std::string_view op, std::string_view name,
                     std::string_view tensor, C& out) {
  if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
    SY_PLUGIN_RETURN_IF_ERROR(CheckIntFits(s.i, dtype, op, name, tensor));
    out = static_cast<C>(s.i);
  } else {
    out = s.is_float() ? Convert<C>(s.f) : Convert<C>(s.i);
  }
  return nullptr;
}

// ---- Kernel entry points --------------------------------------------------------

namespace internal {
template <const std::string_view& kOp>
struct WhereChars {
  static constexpr std::string_view kPrefix = "cpu plugin: ";
  static constexpr auto value = [] {
    std::array<char, kPrefix.size() + kOp.size()> chars{};
    std::copy(kPrefix.begin(), kPrefix.end(), chars.begin());
    std::copy(kOp.begin(), kOp.end(), chars.begin() + kPrefix.size());
    return chars;
  }();
};
}  // namespace internal

// "cpu plugin: <op>", built at compile time, for plugin::Guard: a kernel
// entry point allocates nothing to name itself. `kOp` must be a static
// constexpr string_view.
template <const std::string_view& kOp>
inline constexpr std::string_view kWhere{
    internal::WhereChars<kOp>::value.data(),
    internal::WhereChars<kOp>::value.size()};

// Zero strides for SY_MAX_RANK dims: a view of one value broadcast to any
// shape (the Scalar overloads pass their Scalar to the engine this way).
inline constexpr int64_t kBroadcastStrides[SY_MAX_RANK] = {};

// ---- Registration helpers -------------------------------------------------------

// The nine dtypes of core op set v1, for registering one kernel per dtype:
// ForEachDtype(AllDtypes{}, [&]<sy_dtype_t D> { … }).
template <sy_dtype_t... D>
struct DtypePack {};
using AllDtypes = DtypePack<SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16,
                            SY_DTYPE_BF16, SY_DTYPE_I32, SY_DTYPE_I64,
                            SY_DTYPE_I8, SY_DTYPE_U8, SY_DTYPE_BOOL>;
using NumericDtypes = DtypePack<SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16,
                                SY_DTYPE_BF16, SY_DTYPE_I32, SY_DTYPE_I64,
                                SY_DTYPE_I8, SY_DTYPE_U8>;

template <sy_dtype_t... D, class F>
void ForEachDtype(DtypePack<D...>, F&& f) {
  (f.template operator()<D>(), ...);
}

template <sy_dtype_t D>
inline constexpr bool kIsFloatDtype = std::is_floating_point_v<Compute<D>>;

// Calls f.template operator()<D>() for D == `dtype`; false when `dtype` is
// not one of the nine.
template <class F>
bool VisitDtype(sy_dtype_t dtype, F&& f) {
  bool found = false;
  ForEachDtype(AllDtypes{}, [&]<sy_dtype_t D> {
    if (D == dtype) {
      found = true;
      f.template operator()<D>();
    }
  });
  return found;
}

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_ELEMENTWISE_ENGINE_H_
