// Compiler::Compile: the passes in order (graph.h, docs/fusion.md) and the
// plan's description.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <functional>
#include <queue>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "fusion/backend/backends.h"
#include "fusion/backend/kernel_cache.h"
#include "fusion/compile/lower.h"
#include "fusion/compile/own_or_fused.h"
#include "fusion/compile/partition.h"
#include "fusion/compile/patterns.h"
#include "fusion/compile/plan.h"
#include "fusion/compile/rebuild.h"
#include "fusion/compile/simplify.h"
#include "fusion/graph.h"

namespace sy::fusion {
namespace {

// Composite ops worth decomposing where the device fuses: their
// decompositions are reductions and elementwise ops that then fuse with
// the ops around them into one kernel.
bool WorthDecomposing(const Node& node) {
  if (!node.op->owner().empty()) return false;
  const std::string& name = node.op->full_name();
  return name == "softmax" || name == "log_softmax" || name == "layer_norm" ||
         name == "rms_norm" || name == "contiguous";
}

// Note [Native single ops]: a composite op is decomposed so that its
// parts fuse with the ops around it. Where its decomposition fuses with
// nothing — the group is exactly its parts, as rms_norm between a graph
// input and a matmul — the fused kernel only re-derives what the
// plugin's own kernel for the op already is, and measured slower on the
// H100 (docs/fusion.md, "Native kernels"). So such an op runs its own
// kernel: the captured nodes returned here are rebuilt undecomposed.
// Only where the captured op resolved to a kernel (a plugin has one for
// the device and dtypes); CompileOptions::native_single_ops = false keeps
// the fused kernel (to measure one against the other).
std::vector<int> LoneDecompositions(const OpGraph& captured, const OpGraph& g,
                                    const Partition& part, const std::vector<int>& origin,
                                    const std::function<bool(int)>& decomposed) {
  std::vector<int> live(captured.nodes.size(), 0);
  for (size_t m = 0; m < g.nodes.size(); ++m) {
    if (!g.nodes[m].dead && origin[m] >= 0) ++live[origin[m]];
  }
  std::vector<int> lone;
  for (const Group& group : part.groups) {
    const int n = origin[group.nodes.front()];
    if (n < 0) continue;
    bool one = live[n] == static_cast<int>(group.nodes.size());
    for (int m : group.nodes) one = one && origin[m] == n;
    if (one && captured.nodes[n].route == core::Route::kKernel && decomposed(n)) {
      lone.push_back(n);
    }
  }
  return lone;
}

constexpr const char* kNativeWhy =
    "its own kernel: decomposed, it would fuse with nothing (docs/fusion.md, "
    "\"Native kernels\")";

std::string BaseName(const Node& node) { return node.op->schema().name; }

std::string GroupName(int index, const OpGraph& g, const Group& group) {
  std::string name = absl::StrCat("fused", index, "_", BaseName(g.nodes[group.nodes.front()]));
  if (group.nodes.size() > 1) absl::StrAppend(&name, "_", BaseName(g.nodes[group.nodes.back()]));
  for (char& c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) c = '_';
  }
  return name;
}

std::string OpList(const OpGraph& g, const std::vector<int>& nodes) {
  std::vector<std::string> names;
  for (int n : nodes) names.push_back(g.nodes[n].name());
  if (names.size() > 12) {
    const size_t more = names.size() - 10;
    names.resize(10);
    names.push_back(absl::StrCat("… (", more, " more)"));
  }
  return absl::StrJoin(names, ", ");
}

// Orders the units (a compiled group, or one op) so every unit comes after
// the units it reads from; among ready units the one with the smallest
// node number goes first, which keeps the captured order where it can.
std::vector<Step> OrderSteps(const OpGraph& g, const std::vector<int>& step_of_node,
                             const std::vector<FusedStep>& fused) {
  const int n = static_cast<int>(g.nodes.size());
  // Units: 0..fused.size()-1 are groups; fused.size()+node for single ops.
  const int base = static_cast<int>(fused.size());
  auto unit_of = [&](int node) { return step_of_node[node] >= 0 ? step_of_node[node] : base + node; };
  std::vector<std::set<int>> next(base + n);
  std::vector<int> indegree(base + n, 0), first(base + n, n);
  std::vector<bool> exists(base + n, false);
  for (int i = 0; i < n; ++i) {
    if (g.nodes[i].dead) continue;
    const int u = unit_of(i);
    exists[u] = true;
    first[u] = std::min(first[u], i);
    for (int v : g.nodes[i].inputs) {
      const int p = g.Producer(v);
      if (p < 0 || unit_of(p) == u) continue;
      if (next[unit_of(p)].insert(u).second) ++indegree[u];
    }
  }
  using Item = std::pair<int, int>;  // (first node, unit)
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
  for (int u = 0; u < base + n; ++u) {
    if (exists[u] && indegree[u] == 0) ready.push({first[u], u});
  }
  std::vector<Step> steps;
  while (!ready.empty()) {
    const int u = ready.top().second;
    ready.pop();
    steps.push_back(u < base ? Step{Step::Kind::kFused, u} : Step{Step::Kind::kOp, u - base});
    for (int w : next[u]) {
      if (--indegree[w] == 0) ready.push({first[w], w});
    }
  }
  return steps;
}

std::string Describe(const Plan& plan, const Partition& part,
                     const std::vector<std::string>& notes) {
  const OpGraph& g = plan.graph;
  const CompileStats& s = plan.stats;
  std::string out = absl::StrCat(
      "compiled graph: ", g.inputs.size(), " input(s), ", g.outputs.size(),
      " output(s); ", s.captured_ops, " op(s) captured, ", s.ops_after_decomposition,
      " after decomposition, ", s.ops_after_decomposition - s.dead_ops - s.merged_ops,
      " after clean-up (", s.dead_ops, " dead, ", s.merged_ops, " merged); ",
      s.patterns, " pattern kernel(s); ", s.fused_groups, " fused group(s) of ",
      s.fused_ops, " op(s)", s.unfused_groups ? absl::StrCat(", ", s.unfused_groups,
                                                             " group(s) unfused") : "",
      "; compiled in ", absl::StrFormat("%.2f", s.total_ms), " ms (kernels: ",
      s.kernels_compiled, " compiled, ", s.kernels_from_disk, " from disk, ",
      s.kernels_from_memory, " from memory; ", absl::StrFormat("%.2f", s.codegen_ms),
      " ms)\n");
  int index = 0;
  for (const Step& step : plan.steps) {
    ++index;
    if (step.kind == Step::Kind::kFused) {
      const FusedStep& f = plan.fused[step.index];
      const FusedKernel& k = f.ir;
      std::vector<int64_t> shape(k.shape, k.shape + k.ndim);
      absl::StrAppend(
          &out, "  [", index, "] fused on ", f.device->label(), ": ", f.nodes.size(),
          " ops (", OpList(g, f.nodes), ")\n        → kernel ", k.name, " by plugin ",
          f.kernel->plugin(), " (",
          k.reduce_ndim > 0 ? absl::StrCat(k.rows(), " rows of ", k.row_length(), ", ",
                                           k.num_stages, " stages")
                            : absl::StrCat("elementwise over [", absl::StrJoin(shape, ", "), "]"),
          "; ", k.inputs.size(), " in, ", k.outputs.size(), " out, ", k.instrs.size(),
          " instructions)", f.launch.empty() ? "" : "\n        launch configuration: ",
          f.launch, "\n");
    } else {
      const Node& node = g.nodes[step.index];
      absl::StrAppend(&out, "  [", index, "] op %", step.index, " ", node.name(), " on ",
                      node.device->label(), " → ", node.resolution);
      const std::string& why = part.why_not.empty() ? std::string() : part.why_not[step.index];
      if (!why.empty()) absl::StrAppend(&out, "  (not fused: ", why, ")");
      absl::StrAppend(&out, "\n");
    }
  }
  for (const std::string& note : notes) absl::StrAppend(&out, "  note: ", note, "\n");
  return out;
}

}  // namespace

Compiler::Compiler(core::Dispatcher& dispatcher, CompilerOptions options)
    : dispatcher_(&dispatcher),
      cache_(std::make_shared<KernelCache>(
          !options.disk_cache ? std::string()
          : options.cache_dir.empty() ? DiskCache::DefaultDir()
                                      : options.cache_dir)),
      launch_(options.launch) {}

Compiler::~Compiler() = default;

absl::StatusOr<CompiledGraph> Compiler::Compile(const Graph& graph,
                                                const CompileOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (!graph.graph_) return absl::InvalidArgumentError("Compile: the graph is empty");
  if (core::CaptureActive()) {
    return absl::FailedPreconditionError(
        "Compile: a capture is recording on this thread; compile after it ends");
  }
  core::Dispatcher& d = *dispatcher_;
  Backends backends = FindBackends(d.state());
  if (!options.fuse || !options.plugin_compilers) backends.fusion.clear();
  std::vector<std::string> notes = backends.notes;
  auto plan = std::make_shared<Plan>();
  plan->dispatcher = dispatcher_;
  absl::StatusOr<core::OpHandle> copy = d.FindOp("copy");
  if (!copy.ok()) return copy.status();
  plan->copy = *copy;
  CompileStats& stats = plan->stats;
  stats.captured_ops = graph.num_ops();

  const OpGraph& captured = *graph.graph_;
  // Captured composites that run their own kernel (LoneDecompositions).
  std::vector<bool> native(captured.nodes.size(), false);
  auto decompose = [&](int n) {
    const Node& node = captured.nodes[n];
    if (native[n] || !options.decompose || !WorthDecomposing(node) ||
        backends.For(node.device->type()) == nullptr) {
      return false;
    }
    std::vector<sy_tensor_meta_t> metas;
    for (int v : node.inputs) metas.push_back(captured.values[v].meta);
    return node.op->decomposition_applies(metas);
  };
  // Decompose, clean up, substitute patterns and partition; a second time
  // without the decompositions that fused with nothing and run their own
  // kernel.
  OpGraph g;
  Partition part;
  std::vector<int> origin;
  std::vector<std::string> pattern_notes, lone_notes;
  std::vector<std::string> own_why(captured.nodes.size());  // a verdict's reason
  StoredChoices stored_choices(launch_);
  // Note [Own kernel or fused, measured]: the lone composite `n`'s group in
  // this round's partition, lowered, against its own kernel.
  auto own_or_fused = [&](int n) -> OwnOrFused {
    for (size_t gi = 0; gi < part.groups.size(); ++gi) {
      const Group& group = part.groups[gi];
      if (origin[group.nodes.front()] != n) continue;
      const std::vector<int> stored =
          StoredBuffers(g, group, part.group_of, static_cast<int>(gi));
      absl::StatusOr<LoweredGroup> lowered =
          Lower(g, group, stored, GroupName(static_cast<int>(gi), g, group));
      if (!lowered.ok()) break;
      return ChooseOwnOrFused(
          d, launch_, stored_choices, captured, captured.nodes[n], *group.backend,
          lowered->kernel,
          [&]() -> absl::StatusOr<std::shared_ptr<CompiledKernel>> {
            absl::StatusOr<LaunchChoice> got = CompileTuned(
                *cache_, launch_, d, *group.backend, *group.device, lowered->kernel);
            if (!got.ok()) return got.status();
            stats.codegen_ms += got->codegen_ms;
            stats.kernels_compiled += got->compiled;
            stats.kernels_from_disk += got->from_disk;
            stats.kernels_from_memory += got->from_memory;
            return got->kernel;
          });
    }
    return OwnOrFused();
  };
  for (int round = 0; round < 2; ++round) {
    absl::StatusOr<OpGraph> rebuilt = Rebuild(d, captured, decompose, &origin);
    if (!rebuilt.ok()) return rebuilt.status();
    g = *std::move(rebuilt);
    stats.ops_after_decomposition = g.num_live_nodes();
    stats.dead_ops = EliminateDeadCode(g);
    stats.merged_ops = EliminateCommonSubexpressions(g);
    stats.dead_ops += EliminateDeadCode(g);

    PartitionOptions partition_options;
    partition_options.opaque.assign(g.nodes.size(), false);
    pattern_notes.clear();
    stats.patterns = 0;
    if (options.fuse && options.patterns != CompileOptions::Patterns::kOff) {
      PatternOutcome patterns = ApplyPatterns(d, g, backends, options.patterns);
      stats.patterns = static_cast<int>(patterns.replaced.size());
      for (int n : patterns.replaced) partition_options.opaque[n] = true;
      pattern_notes = std::move(patterns.notes);
    }
    origin.resize(g.nodes.size(), -1);  // pattern replacements come from no one op

    if (options.fuse) {
      part = PartitionGraph(g, backends, partition_options);
    } else {
      part = Partition();
      part.group_of.assign(g.nodes.size(), -1);
      part.why_not.assign(g.nodes.size(), "");
    }
    if (round > 0 || !options.fuse || !options.native_single_ops) break;
    bool own_kernels = false;
    for (int n : LoneDecompositions(captured, g, part, origin, decompose)) {
      const OwnOrFused choice = own_or_fused(n);
      if (choice.fused) {
        lone_notes.push_back(absl::StrCat(
            captured.nodes[n].name(), " %", n, " runs as the fused kernel of its parts, "
            "faster than its own kernel (", choice.Describe(), ")"));
        continue;
      }
      native[n] = own_kernels = true;
      own_why[n] = choice.Describe();
    }
    if (!own_kernels) break;
  }
  for (std::string& note : pattern_notes) notes.push_back(std::move(note));
  for (std::string& note : lone_notes) notes.push_back(std::move(note));
  for (size_t m = 0; m < g.nodes.size(); ++m) {
    if (!g.nodes[m].dead && origin[m] >= 0 && native[origin[m]]) {
      const std::string& why = own_why[origin[m]];
      part.why_not[m] = why.empty() ? std::string(kNativeWhy)
                                    : absl::StrCat(kNativeWhy, "; not slower than the fused "
                                                   "kernel of its parts (", why, ")");
    }
  }
  std::vector<int> step_of_node(g.nodes.size(), -1);
  for (size_t gi = 0; gi < part.groups.size(); ++gi) {
    const Group& group = part.groups[gi];
    const std::string name = GroupName(static_cast<int>(gi), g, group);
    const std::vector<int> stored =
        StoredBuffers(g, group, part.group_of, static_cast<int>(gi));
    absl::StatusOr<LoweredGroup> lowered = Lower(g, group, stored, name);
    absl::Status status = lowered.status();
    std::shared_ptr<CompiledKernel> kernel;
    std::string launch;
    if (status.ok()) {
      // The kernel in the launch configuration the autotuner's mode picks
      // (backend/launch_tuning.h).
      absl::StatusOr<LaunchChoice> got = CompileTuned(*cache_, launch_, d, *group.backend,
                                                      *group.device, lowered->kernel);
      status = got.status();
      if (got.ok()) {
        kernel = std::move(got->kernel);
        launch = got->Describe();
        stats.codegen_ms += got->codegen_ms;
        stats.kernels_compiled += got->compiled;
        stats.kernels_from_disk += got->from_disk;
        stats.kernels_from_memory += got->from_memory;
        stats.launch_measured += got->source == LaunchSource::kMeasured ? 1 : 0;
        stats.launch_cached += got->source == LaunchSource::kCached ? 1 : 0;
        stats.launch_tune_ms += got->tune_ms;
      }
    }
    if (!status.ok()) {
      ++stats.unfused_groups;
      const std::string why = absl::StrCat("its group (", OpList(g, group.nodes),
                                           ") runs unfused: ", status.message());
      for (int n : group.nodes) part.why_not[n] = why;
      continue;
    }
    FusedStep step;
    step.kernel = std::move(kernel);
    step.launch = std::move(launch);
    step.ir = std::move(lowered->kernel);
    step.input_values = std::move(lowered->input_values);
    step.output_buffers = std::move(lowered->output_buffers);
    step.nodes = group.nodes;
    step.device = group.device;
    for (int n : group.nodes) step_of_node[n] = static_cast<int>(plan->fused.size());
    ++stats.fused_groups;
    stats.fused_ops += static_cast<int>(group.nodes.size());
    plan->fused.push_back(std::move(step));
  }
  plan->steps = OrderSteps(g, step_of_node, plan->fused);
  plan->graph = std::move(g);
  stats.total_ms = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start).count();
  plan->description = Describe(*plan, part, notes);
  plan->why_not = std::move(part.why_not);
  plan->notes = std::move(notes);
  CompiledGraph compiled;
  compiled.plan_ = std::move(plan);
  return compiled;
}

}  // namespace sy::fusion
