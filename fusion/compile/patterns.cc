#include "fusion/compile/patterns.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/base/call_tracker.h"
#include "dispatcher/base/plugin_instance.h"
#include "dispatcher/dispatch/run.h"
#include "dispatcher/memory/tensor.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/ops/schema.h"
#include "dispatcher/registry/op_registry.h"
#include "fusion/compile/node_calls.h"
#include "fusion/compile/verdicts.h"

namespace sy::fusion {
namespace {

// A match: graph node of each pattern node, graph value of each pattern
// input.
struct Match {
  std::vector<int> nodes;
  std::vector<int> inputs;
};

bool SameAttr(const sy_attr_t& want, const sy_attr_t& got) {
  if (want.kind == -1) return true;  // any value
  if (want.kind != got.kind) return false;
  switch (want.kind) {
    case SY_ATTR_NONE: return true;
    case SY_ATTR_INT: return want.value.i == got.value.i;
    case SY_ATTR_FLOAT: return want.value.f == got.value.f;
    case SY_ATTR_BOOL: return (want.value.b != 0) == (got.value.b != 0);
    case SY_ATTR_DTYPE: return want.value.dtype == got.value.dtype;
    case SY_ATTR_INTS:
      return want.value.ints.size == got.value.ints.size &&
             std::equal(want.value.ints.data, want.value.ints.data + want.value.ints.size,
                        got.value.ints.data);
    case SY_ATTR_STRING:
      return absl::string_view(want.value.str.data, want.value.str.size) ==
             absl::string_view(got.value.str.data, got.value.str.size);
    default: return false;
  }
}

// Matches pattern node `p` at graph node `n`, and recursively what feeds
// it; fills `m`. Inner nodes are checked for outside readers afterwards.
bool MatchAt(const OpGraph& g, const sy_pattern_t& pattern, int p, int n, Match& m) {
  const sy_pattern_node_t& want = pattern.nodes[p];
  const Node& node = g.nodes[n];
  if (node.dead || want.op == nullptr || node.name() != want.op) return false;
  if (m.nodes[p] >= 0) return m.nodes[p] == n;
  if (static_cast<int>(node.inputs.size()) != want.num_inputs || want.num_inputs > 4) {
    return false;
  }
  if (want.num_attrs > 0) {
    if (want.attrs == nullptr || node.attrs.size() < static_cast<size_t>(want.num_attrs)) {
      return false;
    }
    for (int j = 0; j < want.num_attrs; ++j) {
      if (!SameAttr(want.attrs[j], node.attrs[j])) return false;
    }
  }
  m.nodes[p] = n;
  for (int k = 0; k < want.num_inputs; ++k) {
    const int v = node.inputs[k];
    const int source = want.inputs[k];
    if (source >= 0) {
      // An earlier pattern node's output, exactly as it produced it (a
      // view in between is not part of the pattern).
      if (source >= p) return false;
      const int producer = g.Producer(v);
      if (producer < 0 || g.nodes[producer].outputs.size() != 1 ||
          g.nodes[producer].outputs[0] != v || !MatchAt(g, pattern, source, producer, m)) {
        return false;
      }
    } else {
      const int input = -source - 1;
      if (input >= pattern.num_inputs) return false;
      if (m.inputs[input] >= 0 && m.inputs[input] != v) return false;
      m.inputs[input] = v;
    }
  }
  return true;
}

// Whether the match ends on a device of the pattern's type. Matches on
// other devices are passed over without a note: a graph on cpu would
// otherwise list every GPU plugin's patterns as not replaced.
bool OnItsDeviceType(const OpGraph& g, const sy_pattern_t& pattern, const Match& m) {
  const Node& last = g.nodes[m.nodes.back()];
  return last.device != nullptr && pattern.device_type != nullptr &&
         last.device->type().name() == pattern.device_type;
}

// Whether the match's inner results are read only inside it, it sits on
// one device, and every pattern input is bound.
std::string WhyNotSelfContained(const OpGraph& g, const Match& m,
                                const std::vector<std::vector<int>>& consumers) {
  const Node& last = g.nodes[m.nodes.back()];
  for (int v : m.inputs) {
    if (v < 0) return "an input of the pattern is not bound";
  }
  for (size_t p = 0; p + 1 < m.nodes.size(); ++p) {
    if (m.nodes[p] < 0) return "a node of the pattern feeds nothing";
    const Node& inner = g.nodes[m.nodes[p]];
    if (inner.device != last.device) return "its ops run on different devices";
    const int buffer = g.values[inner.outputs[0]].buffer;
    for (int reader : consumers[buffer]) {
      if (std::find(m.nodes.begin(), m.nodes.end(), reader) == m.nodes.end()) {
        return absl::StrCat("the result of ", inner.name(), " is also read outside it");
      }
    }
    for (const GraphOutput& out : g.outputs) {
      if (g.values[out.value].buffer == buffer) {
        return absl::StrCat("the result of ", inner.name(), " is a graph output");
      }
    }
  }
  return "";
}

// The replacement call for a match: its op's inputs (one per pattern input,
// in order, the rest of its tensor arguments omitted) and attributes
// (MatchAttrs).
struct Replacement {
  const core::OpDef* op = nullptr;
  std::vector<int32_t> offsets;
  OwnedAttrs attrs;
  std::string resolution;
};

// The replacement's attributes: each takes the attribute of the same name
// and kind of the match's ops (conv2d's stride, padding… for
// cuda::conv2d_relu; gelu's approximate for a linear_gelu that has one),
// else its default. Ops of the match that disagree on one leave the match
// alone: the replacement could not compute both.
absl::StatusOr<OwnedAttrs> MatchAttrs(const OpGraph& g, const Match& m,
                                      const sy_pattern_t& pattern, const core::OpDef& op) {
  std::vector<sy_attr_t> attrs;
  for (int j = 0; j < op.num_attrs(); ++j) {
    const core::SchemaArg& want = op.schema().args[op.schema().attr_args[j]];
    const sy_attr_t* found = nullptr;
    const Node* from = nullptr;
    for (int n : m.nodes) {
      const Node& node = g.nodes[n];
      for (int i = 0; i < node.op->num_attrs(); ++i) {
        const core::SchemaArg& has = node.op->schema().args[node.op->schema().attr_args[i]];
        if (has.name != want.name || has.kind != want.kind) continue;
        if (found != nullptr && !SameAttr(*found, node.attrs[i])) {
          return absl::FailedPreconditionError(absl::StrCat(
              from->name(), " and ", node.name(), " disagree on '", want.name, "', which ",
              pattern.replacement, " takes once"));
        }
        found = &node.attrs[i];
        from = &node;
      }
    }
    if (found == nullptr && op.attr_required(j)) {
      return absl::FailedPreconditionError(absl::StrCat(
          pattern.replacement, " requires '", want.name, "', which no op of the match has"));
    }
    attrs.push_back(found != nullptr ? *found : op.default_attr(j));
  }
  return OwnedAttrs(attrs);
}

absl::StatusOr<Replacement> Resolve(core::Dispatcher& d, const OpGraph& g,
                                    const sy_pattern_t& pattern, const Match& m,
                                    const std::vector<core::Tensor>& tensors) {
  absl::StatusOr<core::OpHandle> handle = d.FindOp(pattern.replacement);
  if (!handle.ok()) return handle.status();
  Replacement r;
  r.op = handle->def();
  const int num_args = r.op->num_tensor_args();
  if (pattern.num_inputs > num_args || r.op->list_arg() >= 0 ||
      r.op->num_outputs() != 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        pattern.replacement, " does not take the pattern's ", pattern.num_inputs,
        " inputs as its leading tensor arguments and give one output"));
  }
  absl::StatusOr<OwnedAttrs> attrs = MatchAttrs(g, m, pattern, *r.op);
  if (!attrs.ok()) return attrs.status();
  r.attrs = *std::move(attrs);
  std::vector<const core::Tensor*> inputs;
  for (int k = 0; k < num_args; ++k) {
    inputs.push_back(k < pattern.num_inputs ? &tensors[k] : nullptr);
    r.offsets.push_back(std::min(k, pattern.num_inputs));
  }
  r.offsets.push_back(pattern.num_inputs);
  core::BoundCall bound;
  if (absl::Status s = core::BindCall(*r.op, inputs, r.attrs.span(), {}, bound); !s.ok()) {
    return s;
  }
  const Value& out = g.values[g.nodes[m.nodes.back()].outputs[0]];
  if (bound.outputs.size() != 1 || bound.outputs[0].dtype != out.meta.dtype ||
      bound.outputs[0].ndim != out.meta.ndim ||
      !std::equal(out.meta.shape, out.meta.shape + out.meta.ndim, bound.outputs[0].shape)) {
    return absl::FailedPreconditionError(absl::StrCat(
        pattern.replacement, " gives ", MetaText(bound.outputs[0]), " where the match gives ",
        MetaText(out.meta)));
  }
  // The layout it writes must be the match's: the captured code's views
  // of the result were made for that one (conv2d's channels-last output,
  // Note [Channels-last outputs], and relu's after it, Note [Elementwise
  // output layout]; a plugin op's, as its schema asks: ABI 1.4).
  int64_t strides[SY_MAX_RANK];
  core::KernelOutputStrides(*r.op, bound.outputs[0], inputs, strides);
  for (int k = 0; k < out.meta.ndim; ++k) {
    if (out.meta.shape[k] > 1 && strides[k] != out.strides[k]) {
      return absl::FailedPreconditionError(absl::StrCat(
          pattern.replacement, " writes its result with strides [",
          absl::StrJoin(absl::MakeConstSpan(strides, out.meta.ndim), ", "),
          "] where the match writes [", absl::StrJoin(out.stride_span(), ", "), "]"));
    }
  }
  core::CallTracker::Scope in_flight(d.state().calls);
  absl::StatusOr<core::Resolution> res = core::Resolve(d.state(), bound);
  if (!res.ok()) return res.status();
  if (res->route != core::Route::kKernel) {
    return absl::FailedPreconditionError(absl::StrCat(
        pattern.replacement, " has no kernel for these inputs (",
        core::DescribeResolution(*res), ")"));
  }
  // A kernel that may decline is asked now, so a replacement never lands
  // on a kernel that would refuse the call at launch.
  if (res->kernel.kernel->may_decline()) {
    absl::Status answer = core::QueryKernel(bound, res->kernel);
    if (absl::IsAborted(answer)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "its kernel ", res->kernel.kernel->QualifiedName(), " declines these inputs (",
          answer.message(), ")"));
    }
    if (!answer.ok()) return answer;
  }
  r.resolution = core::DescribeResolution(*res);
  return r;
}

// A verdict's key: (pattern, device, the replacement's attributes, how the
// plan runs the match without it, input layouts).
std::string VerdictKey(const OpGraph& g, const PatternEntry& entry, const Match& m,
                       const OwnedAttrs& attrs, const Unreplaced& plan) {
  std::string key = absl::StrCat(entry.plugin != nullptr ? entry.plugin->name() : "", "/",
                                 entry.pattern->name, "/", g.nodes[m.nodes.back()].device->label(),
                                 "/", attrs.ToString(), "/", plan.Key());
  for (int v : m.inputs) {
    const Value& value = g.values[v];
    absl::StrAppend(&key, "|", MetaText(value.meta), "/",
                    absl::StrJoin(value.stride_span(), ","));
  }
  return key;
}

std::string Where(const OpGraph& g, const Match& m) {
  std::vector<std::string> ops;
  for (int n : m.nodes) ops.push_back(absl::StrCat(g.nodes[n].name(), " %", n));
  return absl::StrJoin(ops, " → ");
}

}  // namespace

PatternOutcome ApplyPatterns(core::Dispatcher& dispatcher, OpGraph& graph,
                             const Backends& backends, CompileOptions::Patterns policy) {
  PatternOutcome outcome;
  if (policy == CompileOptions::Patterns::kOff) return outcome;
  // Longest patterns first, then in registration order.
  std::vector<const PatternEntry*> order;
  for (const PatternEntry& entry : backends.patterns) {
    if (entry.pattern != nullptr && entry.pattern->num_nodes > 0 &&
        entry.pattern->nodes != nullptr && entry.pattern->replacement != nullptr) {
      order.push_back(&entry);
    }
  }
  std::stable_sort(order.begin(), order.end(), [](const PatternEntry* a, const PatternEntry* b) {
    return a->pattern->num_nodes > b->pattern->num_nodes;
  });
  for (const PatternEntry* entry : order) {
    const sy_pattern_t& pattern = *entry->pattern;
    const int last = pattern.num_nodes - 1;
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
      Match m{std::vector<int>(pattern.num_nodes, -1), std::vector<int>(pattern.num_inputs, -1)};
      if (!MatchAt(graph, pattern, last, static_cast<int>(n), m)) continue;
      const std::string where = Where(graph, m);
      const std::string head = absl::StrCat("pattern ", pattern.name, " (plugin '",
                                            entry->plugin != nullptr ? entry->plugin->name() : "",
                                            "') at ", where, ": ");
      if (std::find(m.nodes.begin(), m.nodes.end(), -1) != m.nodes.end()) continue;
      if (!OnItsDeviceType(graph, pattern, m)) continue;
      const std::vector<std::vector<int>> consumers = graph.ConsumersByBuffer();
      const std::string why = WhyNotSelfContained(graph, m, consumers);
      if (!why.empty()) {
        outcome.notes.push_back(absl::StrCat(head, "not replaced: ", why));
        continue;
      }
      // What the replacement is bound, resolved and (kMeasured) timed on.
      absl::StatusOr<std::vector<core::Tensor>> scratch =
          ScratchTensors(dispatcher, *graph.nodes[m.nodes.back()].device, graph, m.inputs);
      if (!scratch.ok()) {
        outcome.notes.push_back(absl::StrCat(head, "not replaced: ", scratch.status().message()));
        continue;
      }
      absl::StatusOr<Replacement> r = Resolve(dispatcher, graph, pattern, m, *scratch);
      if (!r.ok()) {
        outcome.notes.push_back(absl::StrCat(head, "not replaced: ", r.status().message()));
        continue;
      }
      Node replaced = graph.nodes[n];
      replaced.op = r->op;
      replaced.inputs = m.inputs;
      replaced.offsets = r->offsets;
      replaced.list_sizes.clear();
      replaced.attrs = r->attrs;
      replaced.route = core::Route::kKernel;
      replaced.resolution = absl::StrCat(r->resolution, " (pattern ", pattern.name, ")");
      std::string measured;
      if (policy == CompileOptions::Patterns::kMeasured) {
        const Unreplaced plan = PlanWithout(graph, m.nodes, consumers, backends);
        const std::string key = VerdictKey(graph, *entry, m, replaced.attrs, plan);
        std::optional<bool> faster = FindVerdict(key);
        if (faster.has_value()) {
          measured = "measured earlier in this process";
        } else {
          absl::StatusOr<VerdictTimes> times =
              MeasureVerdict(dispatcher, graph, m.nodes, m.inputs, plan, replaced, *scratch);
          if (!times.ok()) {
            outcome.notes.push_back(absl::StrCat(head, "not replaced: measuring it failed: ",
                                                 times.status().message()));
            continue;
          }
          faster = times->replacement_us < times->unreplaced_us;
          measured = absl::StrCat(absl::SixDigits(times->replacement_us), " µs vs ",
                                  absl::SixDigits(times->unreplaced_us), " µs ",
                                  plan.Describe(graph, m.nodes));
          KeepVerdict(key, *faster);
        }
        if (!*faster) {
          outcome.notes.push_back(
              absl::StrCat(head, "not replaced: ", pattern.replacement, " was not faster (",
                           measured, ")"));
          continue;
        }
      }
      for (int p = 0; p < last; ++p) graph.nodes[m.nodes[p]].dead = true;
      graph.nodes[n] = std::move(replaced);
      outcome.replaced.push_back(static_cast<int>(n));
      outcome.notes.push_back(absl::StrCat(
          head, "replaced by ", pattern.replacement,
          measured.empty() ? std::string() : absl::StrCat(" (", measured, ")")));
    }
  }
  return outcome;
}

}  // namespace sy::fusion
