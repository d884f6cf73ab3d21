// Fuzzes the attribute arrays of sy_op_call / sy_op_explain (switchyard.h,
// sy_attr_t in plugin.h): every op of the registry, called on well-formed
// tensors from a fixed pool, with drawn attribute arrays — counts below,
// at and past the schema's (and negative), NULL arrays, every kind (wrong
// ones, SY_ATTR_DEFAULT, kinds outside the enum), edge integers and floats,
// int lists of 0 to 32 entries (NULL with a size, negative sizes, sizes
// past 2^20 with NULL data), strings, dtypes inside and outside the nine.
//
// Checks, besides "no crash, no sanitizer report": the C API's error
// contract on every call; sy_op_explain failing means sy_op_call fails with
// the same code ("a call that would fail fails here with the same
// error"); an array the header calls malformed (a negative count, NULL
// with entries, an int list whose size is negative or whose data is NULL
// with a size, a string with NULL data, a kind outside the enum) never
// succeeds; outputs are released and the cpu allocator is back at its
// baseline after every input.
//
// Note [String size fields]: sy_attr_t's str.size must be the string's
// length before its NUL. The core does not check that yet (the check
// belongs in CheckAttr, dispatcher/dispatch/call_binding.cc): a negative
// size becomes a huge std::string_view. Strings drawn here always carry
// their true size unless kHostileStringSizes is on; turn it on once the
// core refuses a size that disagrees with the NUL (the oracle then expects
// INVALID_ARGUMENT for every such string).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "c_api_fuzz_values.h"
#include "c_api_fuzz_world.h"
#include "fuzz_check.h"
#include "fuzzer/FuzzedDataProvider.h"
#include "switchyard/switchyard.h"

extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1:max_allocation_size_mb=2048:detect_leaks=1";
}

namespace {

using sy_fuzz::World;

#ifndef SWITCHYARD_FUZZ_HOSTILE_STRING_SIZES
constexpr bool kHostileStringSizes = false;
#else
constexpr bool kHostileStringSizes = true;
#endif

// Findings in code this target cannot fix yet, skipped so that CI stays
// meaningful; each input is kept in tests/fuzz/known/attr/ for replay once
// fixed (docs/reliability.md, "Fuzzing"):
// - slice: a step far past the size overflows step * stride in
//   dispatcher/dispatch/view_ops.cc (Slice); known/attr/slice_step_overflow.
constexpr const char* kSkippedOps[] = {"slice"};

constexpr int kMaxAttrs = 12;
constexpr int kListCapacity = 64;
constexpr int kStringCapacity = 64;

// Tensors every input may use as inputs, made once.
const std::vector<sy_tensor_t>& Pool(World& w) {
  static const std::vector<sy_tensor_t>* pool = [&w] {
    auto* p = new std::vector<sy_tensor_t>;
    struct Spec {
      sy_dtype_t dtype;
      std::vector<int64_t> shape;
    };
    const Spec specs[] = {{SY_DTYPE_F32, {2, 3}},       {SY_DTYPE_F32, {3}},
                          {SY_DTYPE_F32, {}},           {SY_DTYPE_F32, {2, 3, 4}},
                          {SY_DTYPE_F32, {1, 2, 5, 5}}, {SY_DTYPE_F32, {4, 2, 3, 3}},
                          {SY_DTYPE_I64, {3}},          {SY_DTYPE_BOOL, {2, 3}},
                          {SY_DTYPE_F16, {2, 3}},       {SY_DTYPE_I32, {2, 3}}};
    for (const Spec& s : specs) {
      int64_t numel = 1;
      for (int64_t d : s.shape) numel *= d;
      std::vector<uint8_t> zeros(static_cast<size_t>(numel) * 8, 0);
      sy_tensor_t t = nullptr;
      FUZZ_CHECK(sy_tensor_from_host(w.cpu, s.dtype, s.shape.data(),
                                     static_cast<int32_t>(s.shape.size()), zeros.data(),
                                     static_cast<size_t>(numel) * sy_dtype_size(s.dtype),
                                     &t) == SY_STATUS_OK,
                 "pool: %s", sy_last_error_message());
      p->push_back(t);
    }
    return p;
  }();
  return *pool;
}

struct Storage {
  int64_t ints[kListCapacity] = {};
  char text[kStringCapacity] = {};
};

// One attribute; `malformed` is set when the header says the call must
// refuse it whatever the op.
sy_attr_t DrawAttr(FuzzedDataProvider& in, int32_t kind, Storage& storage,
                   bool* malformed) {
  sy_attr_t attr{};
  attr.kind = kind;
  switch (kind) {
    case SY_ATTR_INTS: {
      const int64_t size = in.ConsumeProbability<float>() < 0.9f
                               ? in.ConsumeIntegralInRange<int64_t>(0, SY_MAX_RANK)
                               : in.ConsumeIntegralInRange<int64_t>(0, 32);
      for (int64_t i = 0; i < size; ++i) storage.ints[i] = sy_fuzz::DrawInt(in);
      attr.value.ints.data = storage.ints;
      attr.value.ints.size = size;
      if (in.ConsumeProbability<float>() < 0.08f) {
        // NULL with a size, a negative size, or a huge size over NULL.
        switch (in.ConsumeIntegralInRange<int>(0, 2)) {
          case 0:
            attr.value.ints.data = nullptr;
            attr.value.ints.size = std::max<int64_t>(size, 1);
            break;
          case 1:
            attr.value.ints.size = in.PickValueInArray(
                {int64_t{-1}, std::numeric_limits<int64_t>::min()});
            break;
          default:
            attr.value.ints.data = nullptr;
            attr.value.ints.size = in.PickValueInArray(
                {int64_t{1} << 20, int64_t{1} << 40, std::numeric_limits<int64_t>::max()});
        }
        *malformed = true;
      }
      break;
    }
    case SY_ATTR_STRING: {
      std::string text = in.ConsumeBool() ? std::string(in.PickValueInArray(sy_fuzz::kStrings))
                                          : in.ConsumeRandomLengthString(32);
      text = text.substr(0, std::min<size_t>(text.size(), 32));
      std::memcpy(storage.text, text.data(), text.size());  // the rest stays NUL
      const int64_t length = static_cast<int64_t>(std::strlen(storage.text));
      attr.value.str.data = storage.text;
      attr.value.str.size = length;
      if (in.ConsumeProbability<float>() < 0.04f) {
        attr.value.str.data = nullptr;
        *malformed = true;
      } else if (kHostileStringSizes && in.ConsumeProbability<float>() < 0.08f) {
        // Still inside the zero-filled buffer, so reading `size` bytes is
        // safe; only the NUL disagrees.
        attr.value.str.size = in.PickValueInArray(
            {length + 1, length + 8, length - 1, int64_t{-1},
             std::numeric_limits<int64_t>::min()});
        *malformed = attr.value.str.size != length;
      }
      break;
    }
    case SY_ATTR_INT:
    case SY_ATTR_FLOAT:
    case SY_ATTR_BOOL:
    case SY_ATTR_DTYPE:
    case SY_ATTR_NONE:
    case SY_ATTR_DEFAULT: {
      sy_fuzz::AttrStorage unused;
      attr = sy_fuzz::DrawAttrOfKind(in, kind, unused);
      break;
    }
    case SY_ATTR_COMMUNICATOR:
      // A forged or garbage token: the fuzz world makes no communicator, so
      // no call with one can succeed.
      attr.value.i = static_cast<int64_t>(sy_fuzz::DrawForgedToken(in));
      *malformed = true;
      break;
    default:  // outside the enum
      attr.value.i = in.ConsumeIntegral<int64_t>();
      *malformed = true;
  }
  return attr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  FuzzedDataProvider in(bytes, size);
  World& w = sy_fuzz::GetWorld();
  const std::vector<sy_tensor_t>& pool = Pool(w);
  static const uint64_t baseline = sy_fuzz::AllocatedBytes(w.cpu);  // with the pool

  // An op, mostly one with attributes.
  const sy_fuzz::OpEntry* op = &w.ops[in.ConsumeIntegralInRange<size_t>(0, w.ops.size() - 1)];
  for (int tries = 0; tries < 4 && op->attr_kinds.empty() && in.ConsumeBool(); ++tries) {
    op = &w.ops[in.ConsumeIntegralInRange<size_t>(0, w.ops.size() - 1)];
  }
  for (const char* skipped : kSkippedOps) {
    if (std::strcmp(op->info.full_name, skipped) == 0) return 0;
  }

  // Inputs: one pool tensor per tensor argument (a list takes 1 to 3),
  // sometimes NULL (an omitted optional tensor, or a refusal).
  std::vector<sy_tensor_t> inputs;
  for (int32_t k = 0; k < op->info.num_tensor_args; ++k) {
    const int count = k == op->info.list_arg ? in.ConsumeIntegralInRange<int>(1, 3) : 1;
    for (int c = 0; c < count; ++c) {
      inputs.push_back(in.ConsumeProbability<float>() < 0.05f
                           ? nullptr
                           : pool[in.ConsumeIntegralInRange<size_t>(0, pool.size() - 1)]);
    }
  }

  // The attribute array.
  const int32_t schema_attrs = static_cast<int32_t>(op->attr_kinds.size());
  int32_t num_attrs = in.ConsumeIntegralInRange<int32_t>(0, schema_attrs);
  if (in.ConsumeProbability<float>() < 0.1f) {
    num_attrs = in.ConsumeIntegralInRange<int32_t>(-2, kMaxAttrs);
  }
  sy_attr_t attrs[kMaxAttrs] = {};
  Storage storage[kMaxAttrs];
  bool malformed = num_attrs < 0;
  for (int32_t j = 0; j < std::max(num_attrs, 0); ++j) {
    const float p = in.ConsumeProbability<float>();
    int32_t kind;
    if (p < 0.7f && j < schema_attrs) {
      kind = sy_fuzz::AttrKindFor(op->attr_kinds[j], in);
    } else if (p < 0.8f) {
      kind = SY_ATTR_DEFAULT;
    } else if (p < 0.95f) {
      kind = in.ConsumeIntegralInRange<int32_t>(SY_ATTR_NONE, SY_ATTR_COMMUNICATOR);
    } else {
      kind = in.PickValueInArray({int32_t{8}, int32_t{-2}, int32_t{1000},
                                  std::numeric_limits<int32_t>::min()});
    }
    bool bad = false;
    attrs[j] = DrawAttr(in, kind, storage[j], &bad);
    malformed |= bad;
  }
  const sy_attr_t* attr_ptr = attrs;
  if (num_attrs > 0 && in.ConsumeProbability<float>() < 0.03f) {
    attr_ptr = nullptr;
    malformed = true;
  }

  const int32_t num_inputs = static_cast<int32_t>(inputs.size());
  const char* text = nullptr;
  const sy_status_code_t explained =
      CALL(sy_op_explain(op->handle, inputs.data(), num_inputs, attr_ptr, num_attrs, &text));
  sy_tensor_t outputs[sy_fuzz::kMaxOutputs] = {};
  const sy_status_code_t called =
      CALL(sy_op_call(op->handle, inputs.data(), num_inputs, attr_ptr, num_attrs, outputs,
                      op->info.num_outputs));
  if (explained != SY_STATUS_OK) {
    FUZZ_CHECK(called == explained, "%s: explain said %s, the call %s",
               op->info.full_name, sy_status_code_name(explained),
               sy_status_code_name(called));
  }
  if (malformed) {
    FUZZ_CHECK(called != SY_STATUS_OK, "%s accepted a malformed attribute array",
               op->info.full_name);
  }
  if (called == SY_STATUS_OK) {
    for (int32_t i = 0; i < op->info.num_outputs; ++i) {
      FUZZ_CHECK(CALL(sy_tensor_release(outputs[i])) == SY_STATUS_OK, "release output %d", i);
    }
  }
  FUZZ_CHECK(sy_fuzz::AllocatedBytes(w.cpu) == baseline,
             "%s left %lld bytes allocated on cpu", op->info.full_name,
             static_cast<long long>(sy_fuzz::AllocatedBytes(w.cpu) - baseline));
  return 0;
}
