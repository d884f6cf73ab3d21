// The core's own C++ call path (sy::core::Dispatcher::CallOut, Call,
// Execute), which has no public face, beside the kernel it ends in, called
// as the host calls it: issue 13's "over the direct call" targets are
// stated on this path. It lives with the core's tests because it includes
// the core (tools/ sees only the public headers); bench_dispatch times the
// public paths (C API, switchyard.hpp) and the libtorch and NumPy anchors.
//
//   build/release/bin/bench_core_calls [--benchmark_filter=…]
//
// The default plugin set: every manifest of the build's plugin folder, as
// an application's runtime finds them. Also the parts of a tuned slot's
// verdict lookup (bench_autotune times the whole through the C API).
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "dispatcher/base/plugin_instance.h"
#include "dispatcher/dispatch/bind.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/dispatch/kernel_call.h"
#include "dispatcher/dispatch/resolve.h"
#include "dispatcher/runtime/runtime.h"

namespace sy::bench {
namespace {

namespace fs = std::filesystem;

struct Core {
  std::unique_ptr<sy::core::Runtime> runtime;
  sy::core::OpHandle add;
  sy::core::Tensor a, b, out;
};

Core* g_core = nullptr;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "bench_core_calls: %s\n", what.c_str());
  std::exit(1);
}

// The manifests of the build's plugin folder: the default plugin set.
std::vector<std::string> DefaultManifests() {
  std::vector<std::string> manifests;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(SWITCHYARD_PLUGIN_DIR, ec)) {
    if (e.path().extension() == ".json") manifests.push_back(e.path().string());
  }
  if (manifests.empty()) Fail("no plugin manifests in " SWITCHYARD_PLUGIN_DIR);
  return manifests;
}

// The kernel the core's add resolves to, called as the host calls it
// (its call frame built once, flagged as checked by the host).
void BM_CoreDirect(benchmark::State& state) {
  const sy::core::Tensor* inputs[2] = {&g_core->a, &g_core->b};
  const sy::core::Tensor* outputs[1] = {&g_core->out};
  sy::core::BoundCall bound;
  if (!sy::core::BindCall(*g_core->add.def(), inputs, {}, {}, bound).ok()) Fail("bind");
  absl::StatusOr<sy::core::Resolution> resolution =
      sy::core::Resolve(g_core->runtime->state(), bound);
  if (!resolution.ok() || resolution->route != sy::core::Route::kKernel) Fail("resolve");
  sy::core::KernelCallFrame frame(bound, outputs, resolution->kernel);
  const sy_kernel_fn fn = resolution->kernel.kernel->fn;
  for (auto _ : state) {
    sy_error_t* error = fn(&frame.call());
    benchmark::DoNotOptimize(error);
  }
}

void BM_CoreCallOut(benchmark::State& state) {
  const sy::core::Tensor inputs[2] = {g_core->a, g_core->b};
  const sy::core::Tensor outputs[1] = {g_core->out};
  for (auto _ : state) {
    absl::Status status = g_core->runtime->CallOut(g_core->add, inputs, {}, outputs);
    benchmark::DoNotOptimize(status);
  }
}

void BM_CoreCall(benchmark::State& state) {
  const sy::core::Tensor inputs[2] = {g_core->a, g_core->b};
  for (auto _ : state) {
    auto result = g_core->runtime->Call(g_core->add, inputs);
    benchmark::DoNotOptimize(result);
  }
}

// Execute with the pointers ready: what the C API's call path ends in.
void BM_CoreExecute(benchmark::State& state) {
  const sy::core::Tensor* inputs[2] = {&g_core->a, &g_core->b};
  const sy::core::Tensor* outputs[1] = {&g_core->out};
  sy::core::CallArgs args;
  args.inputs = inputs;
  args.outputs = outputs;
  for (auto _ : state) {
    absl::Status status = g_core->runtime->Execute(g_core->add, args);
    benchmark::DoNotOptimize(status);
  }
}

// ---- The parts of a tuned call's verdict lookup ------------------------------
// bench_autotune times the whole through the C API (Tuned − PinnedWithOnednn);
// the parts have no public face: the call's bucket signature (Note [Bucket
// signatures]), finding it in the slot's bucket table, and, for comparison,
// building the whole ShapeBucket (what explain and the tuner do). A runtime
// of their own, so the columns above keep their untuned slot.

struct TunedSlot {
  std::unique_ptr<sy::core::Runtime> runtime;
  sy::core::OpHandle add;
  sy::core::Tensor a, b;
  sy::core::BoundCall bound;
  const sy::core::BucketTable* table = nullptr;
};

TunedSlot* g_tuned = nullptr;

void InitTunedSlot(const sy::core::RuntimeOptions& options) {
  absl::StatusOr<std::unique_ptr<sy::core::Runtime>> runtime = sy::core::Runtime::Create(options);
  if (!runtime.ok()) Fail(std::string(runtime.status().message()));
  auto* t = new TunedSlot;  // lives as long as the process
  t->runtime = *std::move(runtime);
  sy::core::Device* cpu = t->runtime->GetDevice("cpu").value();
  t->add = t->runtime->FindOp("add.Tensor").value();
  const std::vector<float> ones(16, 1.0f);
  t->a = t->runtime->FromHost(*cpu, SY_DTYPE_F32, {16}, ones.data(), 64).value();
  t->b = t->runtime->FromHost(*cpu, SY_DTYPE_F32, {16}, ones.data(), 64).value();
  const sy::core::Tensor* in[] = {&t->a, &t->b};
  if (!sy::core::BindCall(*t->add.def(), in, {}, {}, t->bound).ok()) Fail("bind");
  std::string cpu_add;
  for (const sy::core::KernelEntry* k : t->runtime->state().kernels.KernelsFor(t->add.def())) {
    if (k->plugin != nullptr && k->plugin->name() == "cpu" &&
        k->dtypes == std::vector<sy_dtype_t>{SY_DTYPE_F32, SY_DTYPE_F32}) {
      cpu_add = k->QualifiedName();
    }
  }
  const absl::Status s = t->runtime->state().kernels.SetTunedChoice(
      t->add.def(), t->bound.key(), t->bound.bucket(), cpu_add, -1);
  if (!s.ok()) Fail(std::string(s.message()));
  const sy::core::DispatchSlot* slot = t->add.def()->dispatch()->Find(t->bound.key());
  t->table = slot != nullptr ? slot->bucket_table() : nullptr;
  if (t->table == nullptr) Fail("the tuned slot has no bucket table");
  g_tuned = t;
}

void BM_CoreBucketSignature(benchmark::State& state) {
  const sy::core::BoundCall& bound = g_tuned->bound;
  for (auto _ : state) {
    benchmark::DoNotOptimize(bound.tensors.data());
    uint64_t signature = sy::core::BucketSignatureOf(bound.metas.data(), bound.tensors.data(),
                                                     bound.tensors.size());
    benchmark::DoNotOptimize(signature);
  }
}

void BM_CoreShapeBucket(benchmark::State& state) {
  for (auto _ : state) {
    sy::core::ShapeBucket bucket = g_tuned->bound.bucket();
    benchmark::DoNotOptimize(bucket);
  }
}

void BM_CoreBucketTableFind(benchmark::State& state) {
  uint64_t signature = g_tuned->bound.bucket().Signature();
  for (auto _ : state) {
    benchmark::DoNotOptimize(signature);
    benchmark::DoNotOptimize(g_tuned->table->Find(signature));
  }
}

void RegisterCoreBenchmarks() {
  sy::core::RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = DefaultManifests();
  absl::StatusOr<std::unique_ptr<sy::core::Runtime>> runtime = sy::core::Runtime::Create(options);
  if (!runtime.ok()) Fail(std::string(runtime.status().message()));
  auto* core = new Core;  // lives as long as the process
  core->runtime = *std::move(runtime);
  sy::core::Device* cpu = core->runtime->GetDevice("cpu").value();
  core->add = core->runtime->FindOp("add.Tensor").value();
  const float one = 1.0f, two = 2.0f;
  core->a = core->runtime->FromHost(*cpu, SY_DTYPE_F32, {1}, &one, 4).value();
  core->b = core->runtime->FromHost(*cpu, SY_DTYPE_F32, {1}, &two, 4).value();
  core->out = core->runtime->Empty(*cpu, SY_DTYPE_F32, {1}).value();
  g_core = core;
  benchmark::RegisterBenchmark("BM_CoreDirect", BM_CoreDirect);
  benchmark::RegisterBenchmark("BM_CoreCallOut", BM_CoreCallOut);
  benchmark::RegisterBenchmark("BM_CoreCall", BM_CoreCall);
  benchmark::RegisterBenchmark("BM_CoreExecute", BM_CoreExecute);
  InitTunedSlot(options);
  benchmark::RegisterBenchmark("BM_CoreBucketSignature", BM_CoreBucketSignature);
  benchmark::RegisterBenchmark("BM_CoreShapeBucket", BM_CoreShapeBucket);
  benchmark::RegisterBenchmark("BM_CoreBucketTableFind", BM_CoreBucketTableFind);
}

}  // namespace
}  // namespace sy::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  sy::bench::RegisterCoreBenchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
