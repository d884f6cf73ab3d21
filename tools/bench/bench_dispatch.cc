// Per-call cost of a 1-element f32 add with a preallocated output:
//   Direct        — the cpu plugin's add kernel called through its function
//                   pointer with a ready sy_kernel_call_t (the floor);
//   CallOut       — Runtime::CallOut through an op handle (the dispatcher);
//   Call          — Runtime::Call, which also allocates the output;
//   TorchAddOut   — at::add_out on the same sizes (when libtorch is found).
// Run: build/release/bin/bench_dispatch --benchmark_repetitions=10
//        --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>

#include "dispatcher/dispatch/bind.h"
#include "dispatcher/loading/plugin_loader.h"
#include "dispatcher/runtime/runtime.h"

#ifdef SWITCHYARD_HAVE_TORCH
#include <ATen/ATen.h>
#endif

namespace {

struct Fixture {
  std::unique_ptr<sy::core::Runtime> runtime;
  sy::core::Device* cpu = nullptr;
  sy::core::OpHandle add;
  sy::core::Tensor a, b, out;

  static Fixture& Get() {
    static Fixture* fixture = [] {
      auto* f = new Fixture;
      sy::core::RuntimeOptions options;
      options.loader.use_environment = false;
      // The cpu plugin alone: the figures are its own, whatever else is built.
      options.loader.use_default_path = false;
      options.loader.search_paths = {sy::core::DefaultPluginDirectory() + "/cpu.json"};
      f->runtime = sy::core::Runtime::Create(options).value();
      f->cpu = f->runtime->GetDevice("cpu").value();
      f->add = f->runtime->FindOp("add.Tensor").value();
      const float one = 1.0f, two = 2.0f;
      f->a = f->runtime->FromHost(*f->cpu, SY_DTYPE_F32, {1}, &one, 4).value();
      f->b = f->runtime->FromHost(*f->cpu, SY_DTYPE_F32, {1}, &two, 4).value();
      f->out = f->runtime->Empty(*f->cpu, SY_DTYPE_F32, {1}).value();
      return f;
    }();
    return *fixture;
  }
};

void BM_Direct(benchmark::State& state) {
  Fixture& f = Fixture::Get();
  const sy::core::OpDispatch* table = f.add.def()->dispatch();
  const sy::core::DispatchKey key = sy::core::MakeDispatchKey(
      f.cpu->type().id(), {SY_DTYPE_F32, SY_DTYPE_F32});
  const sy::core::DispatchSlot* slot = table->Find(key);
  sy_tensor_view_t inputs[2] = {f.a.view(), f.b.view()};
  sy_tensor_view_t outputs[1] = {f.out.view()};
  const int32_t offsets[3] = {0, 1, 2};
  sy_kernel_call_t call{};
  call.struct_size = sizeof(call);
  call.inputs = inputs;
  call.num_inputs = 2;
  call.num_tensor_args = 2;
  call.input_offsets = offsets;
  call.outputs = outputs;
  call.num_outputs = 1;
  call.stream = f.cpu->stream();
  call.variant = -1;
  call.kernel_data = slot->choices[0].kernel->kernel_data;
  sy_kernel_fn fn = slot->choices[0].kernel->fn;
  for (auto _ : state) {
    sy_error_t* error = fn(&call);
    benchmark::DoNotOptimize(error);
  }
}
BENCHMARK(BM_Direct);

void BM_CallOut(benchmark::State& state) {
  Fixture& f = Fixture::Get();
  const sy::core::Tensor inputs[2] = {f.a, f.b};
  const sy::core::Tensor outputs[1] = {f.out};
  for (auto _ : state) {
    absl::Status status = f.runtime->CallOut(f.add, inputs, {}, outputs);
    benchmark::DoNotOptimize(status);
  }
}
BENCHMARK(BM_CallOut);

void BM_Call(benchmark::State& state) {
  Fixture& f = Fixture::Get();
  const sy::core::Tensor inputs[2] = {f.a, f.b};
  for (auto _ : state) {
    auto result = f.runtime->Call(f.add, inputs);
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_Call);

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

}  // namespace

BENCHMARK_MAIN();
