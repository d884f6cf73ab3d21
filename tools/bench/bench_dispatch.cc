// Per-call cost of a 1-element f32 add into a preallocated output, with the
// default plugin set (cpu + onednn, as an application gets it), each column
// beside the same anchors in one run:
//   Direct          — the cpu plugin's add kernel called through its function
//                     pointer with a ready sy_kernel_call_t (the floor;
//                     private_plugin.h);
//   CCallOut        — sy_op_call_out (C API: handle lookups, no lock, no
//                     allocation);
//   CCallRelease    — sy_op_call + sy_tensor_release (a new output and its
//                     handle each call);
//   HppCallOut      — sy::Op::call_out (switchyard.hpp over the C API);
//   TorchAddOut     — at::add_out on the same sizes (when libtorch is found);
//   NumpyAddOut     — np.add(a, b, out=c), the ufunc called from C through
//                     the Python C API (when Python's headers are found).
// The core's own C++ path (CallOut, Call, Execute) has no public face:
// build/release/bin/bench_core_calls times it beside the kernel it ends in
// (tests/dispatcher/bench/bench_core_calls.cc).
// Run: build/release/bin/bench_dispatch --benchmark_repetitions=10
//        --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "bench_util.h"
#include "nlohmann/json.hpp"
#include "private_plugin.h"
#include "switchyard/switchyard.hpp"

#ifdef SWITCHYARD_HAVE_TORCH
#include <ATen/ATen.h>
#endif
#ifdef SWITCHYARD_HAVE_PYTHON
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#endif

namespace {

struct Fixture {
  sy::Context context;
  sy::Device cpu;
  sy::Op add;
  sy::Tensor a, b, out;

  static Fixture& Get() {
    static Fixture* fixture = [] {
      auto* f = new Fixture;
      f->context = sy::bench::DefaultContext();
      f->cpu = sy::bench::Must(f->context.device("cpu"), "cpu");
      f->add = sy::bench::Must(f->context.op("add.Tensor"), "add");
      f->a = sy::bench::Must(sy::Tensor::FromVector<float>(f->cpu, {1}, {1.0f}), "a");
      f->b = sy::bench::Must(sy::Tensor::FromVector<float>(f->cpu, {1}, {2.0f}), "b");
      f->out = sy::bench::EmptyF32(f->cpu, {1});
      return f;
    }();
    return *fixture;
  }
};

// The library a manifest names.
std::string LibraryOf(const std::string& manifest) {
  std::ifstream in(manifest);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.contains("library")) return "";
  return (std::filesystem::path(manifest).parent_path() / doc["library"].get<std::string>())
      .string();
}

// The cpu plugin's f32 add kernel called through its function pointer, on a
// private copy of the plugin: the floor under every dispatched call.
// `flags` 0 is a direct caller's call (the kernel checks everything);
// SY_KERNEL_CALL_HOST_CHECKED is the call as the host makes it.
void RunDirect(benchmark::State& state, uint32_t flags) {
  static std::unique_ptr<sy::bench::PrivatePlugin> plugin =
      sy::bench::PrivatePlugin::Load(LibraryOf(sy::bench::DefaultManifest("cpu")));
  const sy::bench::PrivatePlugin::Kernel* kernel =
      plugin->Find("add.Tensor", {SY_DTYPE_F32, SY_DTYPE_F32});
  const sy_device_api_t* device = plugin->Device("cpu");
  if (kernel == nullptr || device == nullptr) {
    state.SkipWithError("the cpu plugin has no f32 add kernel or no cpu device");
    return;
  }
  // Memory and a stream of the private copy's own device.
  void* memory[3] = {};
  for (void*& p : memory) device->allocate(device->device_data, 0, 64, 64, &p);
  static_cast<float*>(memory[0])[0] = 1.0f;
  static_cast<float*>(memory[1])[0] = 2.0f;
  sy_stream_t stream = nullptr;
  device->stream_create(device->device_data, 0, &stream);
  const int64_t shape[1] = {1}, strides[1] = {1};
  const sy_device_t cpu = {device->dlpack_device_type, 0};
  sy_tensor_view_t inputs[2], outputs[1];
  for (int i = 0; i < 3; ++i) {
    sy_tensor_view_t& v = i < 2 ? inputs[i] : outputs[0];
    v = {memory[i], cpu, 1, SY_DTYPE_F32, shape, strides, 0};
  }
  const int32_t offsets[3] = {0, 1, 2};
  sy_kernel_call_t call{};
  call.struct_size = sizeof(call);
  call.inputs = inputs;
  call.num_inputs = 2;
  call.num_tensor_args = 2;
  call.input_offsets = offsets;
  call.outputs = outputs;
  call.num_outputs = 1;
  call.stream = stream;
  call.variant = -1;
  call.kernel_data = kernel->data;
  call.flags = flags;
  const sy_kernel_fn fn = kernel->fn;
  for (auto _ : state) {
    sy_error_t* error = fn(&call);
    benchmark::DoNotOptimize(error);
  }
}

void BM_Direct(benchmark::State& state) { RunDirect(state, SY_KERNEL_CALL_HOST_CHECKED); }
BENCHMARK(BM_Direct);

void BM_DirectChecked(benchmark::State& state) { RunDirect(state, 0); }
BENCHMARK(BM_DirectChecked);

void BM_CCallOut(benchmark::State& state) {
  Fixture& f = Fixture::Get();
  const sy_tensor_t inputs[2] = {f.a.get(), f.b.get()};
  const sy_tensor_t outputs[1] = {f.out.get()};
  for (auto _ : state) {
    sy_status_code_t code = sy_op_call_out(f.add.get(), inputs, 2, nullptr, 0, outputs, 1);
    benchmark::DoNotOptimize(code);
  }
}
BENCHMARK(BM_CCallOut);

void BM_CCallRelease(benchmark::State& state) {
  Fixture& f = Fixture::Get();
  const sy_tensor_t inputs[2] = {f.a.get(), f.b.get()};
  for (auto _ : state) {
    sy_tensor_t out = nullptr;
    sy_status_code_t code = sy_op_call(f.add.get(), inputs, 2, nullptr, 0, &out, 1);
    benchmark::DoNotOptimize(code);
    sy_tensor_release(out);
  }
}
BENCHMARK(BM_CCallRelease);

void BM_HppCallOut(benchmark::State& state) {
  Fixture& f = Fixture::Get();
  const sy::Tensor inputs[2] = {f.a, f.b};
  const sy::Tensor outputs[1] = {f.out};
  for (auto _ : state) {
    sy::Status status = f.add.call_out(inputs, {}, outputs);
    benchmark::DoNotOptimize(status);
  }
}
BENCHMARK(BM_HppCallOut);

#ifdef SWITCHYARD_HAVE_TORCH
void BM_TorchAddOut(benchmark::State& state) {
  at::Tensor a = at::ones({1}, at::kFloat);
  at::Tensor b = at::ones({1}, at::kFloat);
  at::Tensor out = at::empty({1}, at::kFloat);
  for (auto _ : state) {
    at::add_out(out, a, b);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_TorchAddOut);
#endif

#ifdef SWITCHYARD_HAVE_PYTHON
// NumPy's np.add(a, b, out=c) on 1-element float32 arrays, the ufunc object
// called from C (PyObject_Call): NumPy's own dispatch, without the Python
// interpreter's bytecode loop around it.
void BM_NumpyAddOut(benchmark::State& state) {
  static PyObject* add = nullptr;
  static PyObject* args = nullptr;
  static PyObject* kwargs = nullptr;
  if (add == nullptr) {
    Py_InitializeEx(0);
    PyObject* numpy = PyImport_ImportModule("numpy");
    if (numpy == nullptr) {
      PyErr_Clear();
      state.SkipWithError("numpy cannot be imported by the embedded Python");
      return;
    }
    add = PyObject_GetAttrString(numpy, "add");
    PyObject* ones = PyObject_GetAttrString(numpy, "ones");
    PyObject* f32 = PyObject_GetAttrString(numpy, "float32");
    PyObject* shape = Py_BuildValue("(i)", 1);
    PyObject* dtype = Py_BuildValue("{s:O}", "dtype", f32);
    PyObject* shape_args = PyTuple_Pack(1, shape);
    PyObject* a = PyObject_Call(ones, shape_args, dtype);
    PyObject* b = PyObject_Call(ones, shape_args, dtype);
    PyObject* out = PyObject_Call(ones, shape_args, dtype);
    args = PyTuple_Pack(2, a, b);
    kwargs = Py_BuildValue("{s:O}", "out", out);
  }
  for (auto _ : state) {
    PyObject* result = PyObject_Call(add, args, kwargs);
    benchmark::DoNotOptimize(result);
    Py_XDECREF(result);
  }
}
BENCHMARK(BM_NumpyAddOut);
#endif

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
