// Fuzzes the public C API (api/include/switchyard/switchyard.h) the way a
// careless or hostile program would use it.
//
// An input is a little program: up to kMaxSteps operations decoded from its
// bytes — create tensors of drawn dtypes and shapes, call ops (every op of
// the registry, plus names that are not ops) with drawn inputs, attributes
// of every kind and output counts, release and retain, reuse released,
// stale (their context destroyed), foreign (another context's) and forged
// handles, copy to the host and to a device, export and import DLPack, and
// query everything. Each call must return a status (no crash, no sanitizer
// report, no exception, no leak: ASan/LSan/UBSan run under libFuzzer) and
// keep the header's error contract:
// - sy_last_error_code() is the status returned; the message is non-empty
//   after a failure and "" after a success;
// - a failed call leaves its out-parameters untouched;
// - a released, stale, forged, wrong-kind or NULL handle is INVALID_ARGUMENT.
// After each input every reference it took is released (each release must
// succeed) and the cpu device's allocator must be back where it started.
//
// The contexts are made once per process (c_api_fuzz_world.h).
#include <dlpack/dlpack.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "c_api_fuzz_c_calls.h"
#include "c_api_fuzz_values.h"
#include "c_api_fuzz_world.h"
#include "fuzz_check.h"
#include "fuzzer/FuzzedDataProvider.h"
#include "switchyard/switchyard.h"

// Under the fuzzer a request for more than 2 GiB gets NULL (and so must
// become RESOURCE_EXHAUSTED) rather than an out-of-memory abort: a size
// nothing can hold is bad input, not a crash.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1:max_allocation_size_mb=2048:"
         "detect_leaks=1";
}

namespace {

using sy_fuzz::DrawForgedToken;
using sy_fuzz::ExpectInvalid;
using sy_fuzz::FromToken;
using sy_fuzz::kMaxOutputs;
using sy_fuzz::OpEntry;
using sy_fuzz::Token;
using sy_fuzz::World;

constexpr int kMaxSteps = 48;

// One input's run: the references it holds and the handles it let go.
class Session {
 public:
  Session(World& world, FuzzedDataProvider& in) : w_(world), in_(in) {}

  void Run() {
    for (int step = 0; step < kMaxSteps && in_.remaining_bytes() > 0; ++step) {
      switch (in_.ConsumeIntegralInRange<int>(0, 11)) {
        case 0:
        case 1:
          CreateTensor();
          break;
        case 2:
        case 3:
        case 4:
          CallOp();
          break;
        case 5:
          Release();
          break;
        case 6:
          Retain();
          break;
        case 7:
          ReadBack();
          break;
        case 8:
          ToDevice();
          break;
        case 9:
          DLPackRoundTrip();
          break;
        case 10:
          Lookups();
          break;
        default:
          BadHandles();
          break;
      }
    }
  }

  // Releases every reference taken; each release must succeed, and then no
  // memory of this input may remain allocated.
  ~Session() {
    for (sy_tensor_t t : owned_) {
      FUZZ_CHECK(CALL(sy_tensor_release(t)) == SY_STATUS_OK,
                 "releasing a reference the input owns: %s",
                 sy_last_error_message());
    }
    CALL(sy_context_synchronize(w_.context));
    CALL(sy_context_synchronize(w_.other));
    const uint64_t allocated = sy_fuzz::AllocatedBytes(w_.cpu);
    FUZZ_CHECK(allocated == w_.baseline_allocated,
               "%llu bytes still allocated after releasing everything "
               "(baseline %llu)",
               static_cast<unsigned long long>(allocated),
               static_cast<unsigned long long>(w_.baseline_allocated));
  }

 private:
  // A tensor handle for an argument: mostly one this input owns, sometimes
  // anything else a program could pass.
  sy_tensor_t PickTensor(bool* bad = nullptr) {
    if (bad != nullptr) *bad = false;
    if (!owned_.empty() && in_.ConsumeProbability<float>() < 0.85f) {
      return owned_[in_.ConsumeIntegralInRange<size_t>(0, owned_.size() - 1)];
    }
    if (bad != nullptr) *bad = true;
    switch (in_.ConsumeIntegralInRange<int>(0, 7)) {
      case 0:
        return nullptr;
      case 1:
        if (!released_.empty()) {
          return FromToken<sy_tensor_t>(released_[in_.ConsumeIntegralInRange<size_t>(
              0, released_.size() - 1)]);
        }
        return nullptr;
      case 2:
        return FromToken<sy_tensor_t>(w_.stale[3]);
      case 3:
        if (bad != nullptr) *bad = false;  // valid, but of another context
        return w_.other_tensor;
      case 4:
        return FromToken<sy_tensor_t>(Token(w_.cpu));  // wrong kind
      case 5:
        return FromToken<sy_tensor_t>(
            Token(w_.ops[in_.ConsumeIntegralInRange<size_t>(0, w_.ops.size() - 1)]
                      .handle));
      default: {
        const uint64_t token = DrawForgedToken(in_);
        if (bad != nullptr) *bad = !w_.IsAlive(token, owned_);
        return FromToken<sy_tensor_t>(token);
      }
    }
  }

  void CreateTensor() {
    const sy_dtype_t dtype = sy_fuzz::DrawDType(in_);
    const sy_fuzz::Shape shape = sy_fuzz::DrawShape(in_);
    sy_device_handle_t device = w_.cpu;
    if (in_.ConsumeProbability<float>() < 0.05f) {
      device = FromToken<sy_device_handle_t>(
          in_.ConsumeBool() ? w_.stale[1] : DrawForgedToken(in_));
    }
    const int64_t* dims = shape.dims.empty() && in_.ConsumeBool()
                              ? nullptr
                              : shape.dims.data();
    sy_tensor_t sentinel = FromToken<sy_tensor_t>(0x5e);
    sy_tensor_t out = sentinel;
    sy_status_code_t status;
    if (in_.ConsumeBool()) {
      status = CALL(sy_tensor_empty(device, dtype, dims, shape.ndim, &out));
    } else {
      size_t nbytes = 0;
      if (!shape.hostile) nbytes = Numel(shape) * sy_dtype_size(dtype);
      if (in_.ConsumeProbability<float>() < 0.1f) {  // a size mismatch
        nbytes = nbytes > 0 && in_.ConsumeBool() ? nbytes - 1 : nbytes + 1;
      }
      std::vector<uint8_t> data = in_.ConsumeBytes<uint8_t>(nbytes);
      data.resize(nbytes, 0x3c);
      const void* ptr = data.data();
      if (in_.ConsumeProbability<float>() < 0.03f) ptr = nullptr;
      status = CALL(sy_tensor_from_host(device, dtype, dims, shape.ndim, ptr,
                                        nbytes, &out));
    }
    if (status == SY_STATUS_OK) {
      FUZZ_CHECK(!shape.hostile, "a tensor of rank %d / size %lld accepted",
                 shape.ndim, static_cast<long long>(shape.dims.at(0)));
      owned_.push_back(out);
    } else {
      FUZZ_CHECK(out == sentinel, "failed create wrote its out-parameter");
    }
  }

  void CallOp() {
    // The op: almost always one of the registry's.
    const OpEntry* op = &w_.ops[in_.ConsumeIntegralInRange<size_t>(0, w_.ops.size() - 1)];
    sy_op_t handle = op->handle;
    bool bad_op = false;
    const int how = in_.ConsumeIntegralInRange<int>(0, 39);
    if (how == 0) {
      const std::string name = in_.ConsumeRandomLengthString(24);
      sy_op_t found = nullptr;
      if (CALL(sy_op_find(w_.context, name.c_str(), &found)) == SY_STATUS_OK) {
        handle = found;
      }
    } else if (how == 1) {
      handle = FromToken<sy_op_t>(w_.stale[2]);
      bad_op = true;
    } else if (how == 2) {
      handle = w_.other_op;  // valid op of another context
    } else if (how == 3) {
      const uint64_t token = DrawForgedToken(in_);
      bad_op = !w_.IsAlive(token, owned_);
      handle = FromToken<sy_op_t>(token);
    }

    // Inputs: the schema's count (more for a Tensor[]), sometimes off by one.
    int32_t num_inputs = op->info.num_tensor_args;
    if (op->info.list_arg >= 0) num_inputs += in_.ConsumeIntegralInRange<int32_t>(-1, 3);
    if (in_.ConsumeProbability<float>() < 0.1f) {
      num_inputs += in_.ConsumeIntegralInRange<int32_t>(-2, 2);
    }
    num_inputs = std::clamp<int32_t>(num_inputs, -1, 12);
    sy_tensor_t inputs[12] = {};
    for (int32_t i = 0; i < std::max(num_inputs, 0); ++i) inputs[i] = PickTensor();

    // Attributes: a prefix of the schema's, mostly of the right kind.
    int32_t num_attrs =
        in_.ConsumeIntegralInRange<int32_t>(0, static_cast<int32_t>(op->attr_kinds.size()));
    if (in_.ConsumeProbability<float>() < 0.05f) num_attrs += in_.ConsumeIntegralInRange<int32_t>(-1, 2);
    num_attrs = std::clamp<int32_t>(num_attrs, -1, 8);
    sy_attr_t attrs[8] = {};
    sy_fuzz::AttrStorage storage[8];
    for (int32_t i = 0; i < std::max(num_attrs, 0); ++i) {
      int32_t kind;
      const float p = in_.ConsumeProbability<float>();
      if (p < 0.75f && i < static_cast<int32_t>(op->attr_kinds.size())) {
        kind = sy_fuzz::AttrKindFor(op->attr_kinds[i], in_);
      } else if (p < 0.85f) {
        kind = SY_ATTR_DEFAULT;
      } else {
        kind = in_.ConsumeIntegralInRange<int32_t>(-2, 8);
      }
      attrs[i] = sy_fuzz::DrawAttrOfKind(in_, kind, storage[i]);
    }

    int32_t num_outputs = op->info.num_outputs;
    if (in_.ConsumeProbability<float>() < 0.05f) {
      num_outputs = in_.ConsumeIntegralInRange<int32_t>(-1, kMaxOutputs);
    }
    const sy_tensor_t sentinel = FromToken<sy_tensor_t>(0x5e);
    sy_tensor_t outputs[kMaxOutputs];
    std::fill(std::begin(outputs), std::end(outputs), sentinel);
    const sy_attr_t* attr_ptr = in_.ConsumeProbability<float>() < 0.02f ? nullptr : attrs;
    const sy_tensor_t* input_ptr = in_.ConsumeProbability<float>() < 0.02f ? nullptr : inputs;

    switch (in_.ConsumeIntegralInRange<int>(0, 5)) {
      case 0: {  // explain
        const char* text = nullptr;
        if (CALL(sy_op_explain(handle, input_ptr, num_inputs, attr_ptr,
                               num_attrs, &text)) == SY_STATUS_OK) {
          FUZZ_CHECK(text != nullptr && text[0] != '\0', "empty explanation");
        } else {
          FUZZ_CHECK(text == nullptr, "failed explain wrote its out-parameter");
          if (bad_op) ExpectInvalid(sy_last_error_code(), "sy_op_explain");
        }
        return;
      }
      case 1: {  // into outputs the input picks
        sy_tensor_t outs[kMaxOutputs] = {};
        for (int32_t i = 0; i < std::max(num_outputs, 0); ++i) outs[i] = PickTensor();
        const sy_status_code_t status = CALL(sy_op_call_out(
            handle, input_ptr, num_inputs, attr_ptr, num_attrs, outs, num_outputs));
        if (status != SY_STATUS_OK && bad_op) ExpectInvalid(status, "sy_op_call_out");
        return;
      }
      default:
        break;
    }
    const sy_status_code_t status = CALL(sy_op_call(
        handle, input_ptr, num_inputs, attr_ptr, num_attrs, outputs, num_outputs));
    if (status == SY_STATUS_OK) {
      FUZZ_CHECK(!bad_op, "a call through a bad op handle succeeded");
      for (int32_t i = 0; i < num_outputs; ++i) {
        FUZZ_CHECK(outputs[i] != sentinel && outputs[i] != nullptr,
                   "output %d of %s not written", i, op->info.full_name);
        owned_.push_back(outputs[i]);
      }
    } else {
      if (bad_op) ExpectInvalid(status, "sy_op_call");
      for (sy_tensor_t t : outputs) {
        FUZZ_CHECK(t == sentinel, "failed sy_op_call wrote an output");
      }
    }
  }

  void Release() {
    if (!owned_.empty() && in_.ConsumeProbability<float>() < 0.7f) {
      const size_t i = in_.ConsumeIntegralInRange<size_t>(0, owned_.size() - 1);
      const sy_tensor_t t = owned_[i];
      owned_.erase(owned_.begin() + static_cast<ptrdiff_t>(i));
      FUZZ_CHECK(CALL(sy_tensor_release(t)) == SY_STATUS_OK,
                 "releasing an owned reference: %s", sy_last_error_message());
      // Stale once no other reference of this input holds it.
      if (std::find(owned_.begin(), owned_.end(), t) == owned_.end()) {
        released_.push_back(Token(t));
      }
      return;
    }
    bool bad = false;
    const sy_tensor_t t = PickTensor(&bad);
    if (!bad) return;  // never drop a reference someone else holds
    ExpectInvalid(CALL(sy_tensor_release(t)), "sy_tensor_release");
  }

  void Retain() {
    bool bad = false;
    const sy_tensor_t t = PickTensor(&bad);
    if (t == w_.other_tensor) return;  // would need a matching release
    const sy_status_code_t status = CALL(sy_tensor_retain(t));
    if (bad) {
      ExpectInvalid(status, "sy_tensor_retain");
    } else if (status == SY_STATUS_OK) {
      owned_.push_back(t);
    }
  }

  // Getters and the copy to the host.
  void ReadBack() {
    bool bad = false;
    const sy_tensor_t t = PickTensor(&bad);
    size_t nbytes = 0;
    const sy_status_code_t status = CALL(sy_tensor_nbytes(t, &nbytes));
    if (bad) {
      ExpectInvalid(status, "sy_tensor_nbytes");
      sy_dtype_t dtype = 0;
      ExpectInvalid(CALL(sy_tensor_dtype(t, &dtype)), "sy_tensor_dtype");
      ExpectInvalid(CALL(sy_tensor_to_host(t, &dtype, sizeof dtype)), "sy_tensor_to_host");
      return;
    }
    if (status != SY_STATUS_OK) return;
    int32_t ndim = -1;
    if (CALL(sy_tensor_ndim(t, &ndim)) == SY_STATUS_OK) {
      FUZZ_CHECK(ndim >= 0 && ndim <= SY_MAX_RANK, "rank %d", ndim);
    }
    int64_t dims[SY_MAX_RANK + 1];
    const int32_t capacity = in_.ConsumeIntegralInRange<int32_t>(-1, SY_MAX_RANK);
    const sy_status_code_t shape_status = CALL(
        in_.ConsumeBool() ? sy_tensor_shape(t, dims, capacity)
                          : sy_tensor_strides(t, dims, capacity));
    FUZZ_CHECK((shape_status == SY_STATUS_OK) == (capacity >= ndim),
               "shape/strides with capacity %d for rank %d: %s", capacity,
               ndim, sy_status_code_name(shape_status));
    int64_t numel = 0;
    CALL(sy_tensor_numel(t, &numel));
    sy_dtype_t dtype = 0;
    CALL(sy_tensor_dtype(t, &dtype));
    FUZZ_CHECK(nbytes == static_cast<size_t>(numel) * sy_dtype_size(dtype),
               "nbytes %zu for %lld elements of %s", nbytes,
               static_cast<long long>(numel), sy_dtype_name(dtype));
    sy_device_handle_t device = nullptr;
    CALL(sy_tensor_device(t, &device));
    void* ptr = nullptr;
    CALL(sy_tensor_data_ptr(t, &ptr));

    size_t request = nbytes;
    if (in_.ConsumeProbability<float>() < 0.1f) {
      request += in_.ConsumeBool() ? 1 : static_cast<size_t>(-1);
    }
    std::vector<uint8_t> host(std::min(request, nbytes) + 1);
    void* dst = in_.ConsumeProbability<float>() < 0.03f ? nullptr : host.data();
    const sy_status_code_t copy = CALL(sy_tensor_to_host(t, dst, request));
    if (request != nbytes || (dst == nullptr && nbytes > 0)) {
      FUZZ_CHECK(copy == SY_STATUS_INVALID_ARGUMENT,
                 "to_host of %zu bytes into %zu: %s", nbytes, request,
                 sy_status_code_name(copy));
    }
  }

  void ToDevice() {
    const sy_tensor_t t = PickTensor();
    sy_device_handle_t device = w_.cpu;
    switch (in_.ConsumeIntegralInRange<int>(0, 5)) {
      case 0:
        device = w_.other_cpu;
        break;
      case 1:
        device = FromToken<sy_device_handle_t>(w_.stale[1]);
        break;
      case 2:
        device = FromToken<sy_device_handle_t>(DrawForgedToken(in_));
        break;
      default:
        break;
    }
    const sy_tensor_t sentinel = FromToken<sy_tensor_t>(0x5e);
    sy_tensor_t out = sentinel;
    if (CALL(sy_tensor_to_device(t, device, &out)) == SY_STATUS_OK) {
      owned_.push_back(out);
    } else {
      FUZZ_CHECK(out == sentinel, "failed to_device wrote its out-parameter");
    }
  }

  // Export to DLPack; then import (into this or the other context, perhaps
  // with fields changed) or just delete.
  void DLPackRoundTrip() {
    const sy_tensor_t t = PickTensor();
    DLManagedTensor* managed = nullptr;
    if (CALL(sy_tensor_to_dlpack(t, &managed)) != SY_STATUS_OK) {
      FUZZ_CHECK(managed == nullptr, "failed export wrote its out-parameter");
      return;
    }
    FUZZ_CHECK(managed != nullptr && managed->deleter != nullptr, "bad export");
    if (in_.ConsumeBool()) {
      managed->deleter(managed);
      return;
    }
    // Changes keep the tensor within the memory it describes (or describe
    // a dtype the import must refuse): a producer that lies about its
    // extent cannot be caught by any consumer.
    const DLTensor saved = managed->dl_tensor;
    bool has_elements = true;
    for (int i = 0; i < saved.ndim; ++i) has_elements = has_elements && saved.shape[i] > 0;
    switch (in_.ConsumeIntegralInRange<int>(0, 6)) {
      case 0:  // lanes: refused
        managed->dl_tensor.dtype.lanes = 2;
        break;
      case 1: {  // any code, at most as wide; or widths none of the nine has
        static constexpr uint8_t kBits[] = {0, 1, 7, 8, 16, 32, 64, 128};
        uint8_t bits = in_.PickValueInArray(kBits);
        if (bits > saved.dtype.bits && bits != 128) bits = saved.dtype.bits;
        managed->dl_tensor.dtype.code = in_.ConsumeIntegral<uint8_t>();
        managed->dl_tensor.dtype.bits = bits;
        break;
      }
      case 2: {
        // Written as a C producer would: any code, including those newer
        // DLPack versions added (kDLOneAPI 14 … kDLMAIA 17), which this
        // header's enum does not list.
        static_assert(sizeof(DLDeviceType) == sizeof(int32_t));
        const int32_t type = in_.ConsumeIntegralInRange<int32_t>(0, 17);
        std::memcpy(&managed->dl_tensor.device.device_type, &type, sizeof type);
        managed->dl_tensor.device.device_id = in_.ConsumeIntegralInRange<int>(-1, 2);
        break;
      }
      case 3:  // the leading dims only: inside the memory when none is 0
        if (has_elements) {
          managed->dl_tensor.ndim = in_.ConsumeIntegralInRange<int>(-1, saved.ndim);
        }
        break;
      default:
        break;
    }
    const sy_context_t into = in_.ConsumeBool() ? w_.context : w_.other;
    const int32_t mode = in_.ConsumeIntegralInRange<int32_t>(-1, 3);
    const sy_tensor_t sentinel = FromToken<sy_tensor_t>(0x5e);
    sy_tensor_t out = sentinel;
    if (CALL(sy_tensor_from_dlpack(into, managed, mode, &out)) == SY_STATUS_OK) {
      owned_.push_back(out);  // the context owns `managed` now
    } else {
      FUZZ_CHECK(out == sentinel, "failed import wrote its out-parameter");
      managed->dl_tensor = saved;
      managed->deleter(managed);
    }
  }

  // Look-ups by fuzzed names and indices, and out-structs of fuzzed sizes.
  void Lookups() {
    const std::string text = in_.ConsumeRandomLengthString(24);
    const int32_t index = in_.ConsumeIntegralInRange<int32_t>(-2, 400);
    alignas(8) unsigned char buffer[512] = {};
    static constexpr size_t kSizes[] = {0, 8, 16, 24, 64, 200, 512};
    const size_t struct_size = in_.PickValueInArray(kSizes);
    std::memcpy(buffer, &struct_size, sizeof struct_size);
    switch (in_.ConsumeIntegralInRange<int>(0, 9)) {
      case 0: {
        sy_op_t op = nullptr;
        CALL(sy_op_find(w_.context, text.c_str(), &op));
        break;
      }
      case 1: {
        sy_op_t op = nullptr;
        CALL(sy_op_get(w_.context, index, &op));
        break;
      }
      case 2: {
        const OpEntry& op = w_.ops[static_cast<size_t>(index + 2) % w_.ops.size()];
        CALL(sy_op_get_info(op.handle, reinterpret_cast<sy_op_info_t*>(buffer)));
        break;
      }
      case 3: {
        const OpEntry& op = w_.ops[in_.ConsumeIntegralInRange<size_t>(0, w_.ops.size() - 1)];
        CALL(sy_op_get_arg(op.handle, index % 12, reinterpret_cast<sy_op_arg_t*>(buffer)));
        break;
      }
      case 4: {
        sy_device_handle_t device = nullptr;
        CALL(sy_device_find(w_.context, text.c_str(), &device));
        CALL(sy_device_get(w_.context, index % 4, &device));
        break;
      }
      case 5:
        CALL(sy_device_get_info(w_.cpu, reinterpret_cast<sy_device_info_t*>(buffer)));
        CALL(sy_device_allocator_stats(w_.cpu,
                                       reinterpret_cast<sy_allocator_stats_t*>(buffer)));
        break;
      case 6: {
        sy_dtype_t dtype = 0;
        CALL(sy_dtype_from_name(text.c_str(), &dtype));
        FUZZ_CHECK(sy_dtype_name(static_cast<sy_dtype_t>(index)) != nullptr,
                   "NULL dtype name");
        // Codes outside the enum too, as only C can pass them.
        FUZZ_CHECK(sy_fuzz_status_code_name(index) != nullptr, "NULL code name");
        break;
      }
      case 7:
        CALL(sy_context_plugin_record(w_.context, index % 4,
                                      reinterpret_cast<sy_plugin_record_t*>(buffer)));
        break;
      case 8: {
        // Names that are not a plugin (never "cpu": unloading it would end
        // every later input). Loading is left out: every attempt adds a
        // load record to the context for good, so state would grow with
        // each input; the manifest fuzzer covers that parser.
        const std::string name = "no_such_plugin" + text;
        FUZZ_CHECK(CALL(sy_context_unload_plugin(w_.context, name.c_str())) !=
                       SY_STATUS_OK,
                   "unloaded '%s'", name.c_str());
        break;
      }
      default:
        CALL(sy_context_synchronize(w_.context));
        CALL(sy_device_empty_cache(w_.cpu));
        break;
    }
  }

  // Handles that cannot be valid, where a context, device or op belongs.
  void BadHandles() {
    uint64_t token = 0;
    switch (in_.ConsumeIntegralInRange<int>(0, 4)) {
      case 0:
        token = w_.stale[in_.ConsumeIntegralInRange<size_t>(0, w_.stale.size() - 1)];
        break;
      case 1:
        if (!owned_.empty()) token = Token(owned_.front());  // a tensor: wrong kind
        break;
      case 2:
        if (!released_.empty()) token = released_.back();
        break;
      default:
        token = DrawForgedToken(in_);
        break;
    }
    const bool wrong_kind = !owned_.empty() && token == Token(owned_.front());
    if (!wrong_kind && w_.IsAlive(token, owned_)) return;  // valid by chance
    int32_t count = 0;
    switch (in_.ConsumeIntegralInRange<int>(0, 3)) {
      case 0:
        ExpectInvalid(CALL(sy_context_destroy(FromToken<sy_context_t>(token))),
                      "sy_context_destroy");
        break;
      case 1:
        ExpectInvalid(CALL(sy_op_count(FromToken<sy_context_t>(token), &count)),
                      "sy_op_count");
        break;
      case 2: {
        sy_device_info_t info{};
        info.struct_size = sizeof info;
        ExpectInvalid(CALL(sy_device_get_info(FromToken<sy_device_handle_t>(token), &info)),
                      "sy_device_get_info");
        break;
      }
      default: {
        sy_op_info_t info{};
        info.struct_size = sizeof info;
        ExpectInvalid(CALL(sy_op_get_info(FromToken<sy_op_t>(token), &info)),
                      "sy_op_get_info");
        break;
      }
    }
  }

  World& w_;
  FuzzedDataProvider& in_;
  std::vector<sy_tensor_t> owned_;  // one entry per reference held
  std::vector<uint64_t> released_;  // tokens this input made stale
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  World& world = sy_fuzz::GetWorld();
  FuzzedDataProvider in(data, size);
  Session(world, in).Run();
  return 0;
}
