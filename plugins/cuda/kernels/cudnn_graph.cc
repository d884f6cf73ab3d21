// The graph-API layer (cudnn_graph.h). The handle attributes of the
// operation graph and the plan are deprecated in cuDNN 9.19 in favour of
// device-property descriptors, which older cuDNN 9 releases (PyTorch's
// wheels ship several) lack; the handle still works in every 9.x.
#include "kernels/cudnn_graph.h"

#include <algorithm>

#include "switchyard/plugin.hpp"

namespace sy::cuda {

using ::sy::plugin::StrCat;

sy_error_t* CudnnBuilder::Check(cudnnStatus_t status, std::string_view what) const {
  if (status == CUDNN_STATUS_SUCCESS) return nullptr;
  last_error_ = CudnnErrorText(lib_, status, op_, what, &last_code_);
  return plugin::MakeError(last_code_, last_error_);
}

sy_error_t* CudnnBuilder::Create(cudnnBackendDescriptorType_t type,
                                 CudnnDesc* out) const {
  cudnnBackendDescriptor_t d = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(Check(lib_.cudnnBackendCreateDescriptor(type, &d),
      StrCat("creating a backend descriptor (type ", static_cast<int>(type),
             ") failed")));
  *out = CudnnDesc(&lib_, d);
  return nullptr;
}

sy_error_t* CudnnBuilder::Set(const CudnnDesc& d, cudnnBackendAttributeName_t name,
                              cudnnBackendAttributeType_t type, int64_t count,
                              const void* values) const {
  return Check(lib_.cudnnBackendSetAttribute(d.get(), name, type, count, values),
               StrCat("setting backend attribute ", static_cast<int>(name),
                                " failed"));
}

sy_error_t* CudnnBuilder::Finalize(const CudnnDesc& d, std::string_view what) const {
  return Check(lib_.cudnnBackendFinalize(d.get()),
                    StrCat("finalizing ", what, " failed"));
}

sy_error_t* CudnnBuilder::Tensor(const TensorSpec& spec, CudnnDesc* out) const {
  CudnnDesc t;
  SY_PLUGIN_RETURN_IF_ERROR(Create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
  const int64_t n = static_cast<int64_t>(spec.dims.size());
  SY_PLUGIN_RETURN_IF_ERROR(
      Set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &spec.type));
  SY_PLUGIN_RETURN_IF_ERROR(
      Set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, n, spec.dims.data()));
  SY_PLUGIN_RETURN_IF_ERROR(
      Set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, n, spec.strides.data()));
  SY_PLUGIN_RETURN_IF_ERROR(
      Set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &spec.uid));
  SY_PLUGIN_RETURN_IF_ERROR(Set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT,
                                CUDNN_TYPE_INT64, 1, &spec.alignment));
  if (spec.is_virtual) {
    const bool v = true;
    SY_PLUGIN_RETURN_IF_ERROR(
        Set(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &v));
  }
  if (spec.by_value) {
    const bool v = true;
    SY_PLUGIN_RETURN_IF_ERROR(
        Set(t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &v));
  }
  SY_PLUGIN_RETURN_IF_ERROR(Finalize(t, StrCat("tensor ", spec.uid)));
  *out = std::move(t);
  return nullptr;
}

sy_error_t* CudnnBuilder::Pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t math,
                                    const CudnnDesc& x, const CudnnDesc* b,
                                    const CudnnDesc* t, const CudnnDesc& y,
                                    CudnnDesc* out, int64_t axis) const {
  CudnnDesc pw;
  SY_PLUGIN_RETURN_IF_ERROR(Create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &pw));
  SY_PLUGIN_RETURN_IF_ERROR(
      Set(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode));
  SY_PLUGIN_RETURN_IF_ERROR(
      Set(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &math));
  if (axis >= 0) {
    SY_PLUGIN_RETURN_IF_ERROR(
        Set(pw, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &axis));
  }
  SY_PLUGIN_RETURN_IF_ERROR(Finalize(pw, "a pointwise descriptor"));
  CudnnDesc op;
  SY_PLUGIN_RETURN_IF_ERROR(Create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
  SY_PLUGIN_RETURN_IF_ERROR(SetDesc(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pw));
  SY_PLUGIN_RETURN_IF_ERROR(SetDesc(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x));
  if (b != nullptr) {
    SY_PLUGIN_RETURN_IF_ERROR(SetDesc(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b));
  }
  if (t != nullptr) {
    SY_PLUGIN_RETURN_IF_ERROR(SetDesc(op, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, *t));
  }
  SY_PLUGIN_RETURN_IF_ERROR(SetDesc(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y));
  SY_PLUGIN_RETURN_IF_ERROR(Finalize(op, "a pointwise operation"));
  *out = std::move(op);
  return nullptr;
}

sy_error_t* MakeOperationGraph(const CudnnBuilder& b, cudnnHandle_t handle,
                               std::span<const CudnnDesc* const> ops,
                               CudnnDesc* out) {
  CudnnDesc g;
  SY_PLUGIN_RETURN_IF_ERROR(b.Create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
  std::vector<cudnnBackendDescriptor_t> list;
  for (const CudnnDesc* op : ops) list.push_back(op->get());
  SY_PLUGIN_RETURN_IF_ERROR(b.Set(g, CUDNN_ATTR_OPERATIONGRAPH_OPS,
                                  CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                  static_cast<int64_t>(list.size()), list.data()));
  SY_PLUGIN_RETURN_IF_ERROR(
      b.Set(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle));
  SY_PLUGIN_RETURN_IF_ERROR(b.Finalize(g, "the operation graph"));
  *out = std::move(g);
  return nullptr;
}

void DropError(sy_error_t* e) {
  const sy_host_api_t* host = plugin::Host();
  if (e != nullptr && host != nullptr) host->error_destroy(e);
}

namespace {

// The engine inside a configuration, and whether it carries a refused note.
bool Refused(const CudnnBuilder& b, const CudnnDesc& config,
             std::span<const cudnnBackendNumericalNote_t> refused, int64_t* index) {
  CudnnDesc engine;
  if (sy_error_t* e = b.Create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &engine)) {
    DropError(e);
    return true;
  }
  cudnnBackendDescriptor_t e = engine.get();
  int64_t got = 0;
  if (b.lib().cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE,
                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got,
                                       &e) != CUDNN_STATUS_SUCCESS) {
    return true;
  }
  b.lib().cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX,
                                   CUDNN_TYPE_INT64, 1, &got, index);
  if (refused.empty()) return false;
  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT] = {};
  int64_t count = 0;
  if (b.lib().cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                                       CUDNN_TYPE_NUMERICAL_NOTE,
                                       CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &count,
                                       notes) != CUDNN_STATUS_SUCCESS) {
    return true;  // unknown numerics: not for a call that must not use TF32
  }
  for (int64_t i = 0; i < count; ++i) {
    if (std::find(refused.begin(), refused.end(), notes[i]) != refused.end()) {
      return true;
    }
  }
  return false;
}

// A configuration's identity: its engine and knob choices, as
// "62:3=1,7=0" (knobs sorted by type), or the engine alone where the
// knobs cannot be read. Heuristics return one engine with several knob
// settings (tile shapes, split-K); each is its own candidate, as
// cudnn-frontend's plan tags make them for PyTorch.
std::string ConfigTag(const CudnnBuilder& b, const CudnnDesc& config, int64_t engine) {
  std::string tag = StrCat(engine, ":");
  // cuDNN fills a caller-made array of knob-choice descriptors (a count
  // query with no array is refused), so make one per knob type.
  constexpr int64_t kMaxKnobs = CUDNN_KNOB_TYPE_COUNTS;
  std::vector<CudnnDesc> choices(static_cast<size_t>(kMaxKnobs));
  std::vector<cudnnBackendDescriptor_t> raw(static_cast<size_t>(kMaxKnobs));
  for (int64_t i = 0; i < kMaxKnobs; ++i) {
    if (sy_error_t* e = b.Create(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &choices[i])) {
      DropError(e);
      return tag;
    }
    raw[i] = choices[i].get();
  }
  int64_t got = 0;
  if (b.lib().cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, kMaxKnobs, &got,
                                       raw.data()) != CUDNN_STATUS_SUCCESS) {
    return tag;
  }
  const int64_t count = std::min(got, kMaxKnobs);
  std::vector<std::pair<int64_t, int64_t>> knobs;
  for (int64_t i = 0; i < count; ++i) {
    cudnnBackendKnobType_t type{};
    int64_t value = 0, n = 0;
    if (b.lib().cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
                                         CUDNN_TYPE_KNOB_TYPE, 1, &n, &type) !=
            CUDNN_STATUS_SUCCESS ||
        b.lib().cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE,
                                         CUDNN_TYPE_INT64, 1, &n, &value) !=
            CUDNN_STATUS_SUCCESS) {
      continue;
    }
    knobs.emplace_back(static_cast<int64_t>(type), value);
  }
  std::sort(knobs.begin(), knobs.end());
  for (size_t i = 0; i < knobs.size(); ++i) {
    tag += StrCat(i == 0 ? "" : ",", knobs[i].first, "=", knobs[i].second);
  }
  return tag;
}

sy_error_t* Heuristic(const CudnnBuilder& b, const CudnnDesc& graph,
                      cudnnBackendHeurMode_t mode, const CudnnDesc* device_prop,
                      std::vector<CudnnDesc>* out) {
  CudnnDesc heur;
  SY_PLUGIN_RETURN_IF_ERROR(b.Create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
  SY_PLUGIN_RETURN_IF_ERROR(b.SetDesc(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph));
  if (device_prop != nullptr) {
    SY_PLUGIN_RETURN_IF_ERROR(
        b.SetDesc(heur, CUDNN_ATTR_ENGINEHEUR_DEVICEPROP, *device_prop));
  }
  SY_PLUGIN_RETURN_IF_ERROR(
      b.Set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode));
  SY_PLUGIN_RETURN_IF_ERROR(b.Finalize(heur, "the engine heuristic"));
  int64_t count = 0;
  SY_PLUGIN_RETURN_IF_ERROR(b.Check(b.lib().cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                       nullptr), "counting the heuristic's results failed"));
  std::vector<CudnnDesc> configs(static_cast<size_t>(count));
  std::vector<cudnnBackendDescriptor_t> raw(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    SY_PLUGIN_RETURN_IF_ERROR(b.Create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &configs[i]));
    raw[i] = configs[i].get();
  }
  int64_t got = 0;
  if (count > 0) {
    SY_PLUGIN_RETURN_IF_ERROR(b.Check(b.lib().cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                         CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                                         &got, raw.data()), "reading the heuristic's results failed"));
  }
  configs.resize(static_cast<size_t>(std::min(got, count)));
  *out = std::move(configs);
  return nullptr;
}

}  // namespace

sy_error_t* EngineConfigs(const CudnnBuilder& b, cudnnHandle_t handle,
                          const CudnnDesc& graph,
                          std::span<const cudnnBackendNumericalNote_t> refused_notes,
                          int max, std::vector<CudnnDesc>* out) {
  out->clear();
  std::vector<std::string> seen;  // ConfigTag of each kept configuration
  std::string errors;
  // The device properties, for a second round when the first finds no
  // engine: cuDNN 9.19 deprecates the handle in the graph in favour of
  // them, and its runtime-compiled engines may want them. Older releases
  // lack the descriptor; then there is no second round.
  CudnnDesc device_prop;
  for (int round = 0; round < 2 && out->empty(); ++round) {
    if (round == 1) {
      sy_error_t* e = b.Create(CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR, &device_prop);
      if (e == nullptr) {
        e = b.Set(device_prop, CUDNN_ATTR_DEVICEPROP_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
      }
      if (e == nullptr) e = b.Finalize(device_prop, "the device properties");
      if (e != nullptr) {
        DropError(e);
        errors += StrCat("; device properties: ", b.last_error());
        break;
      }
    }
    for (cudnnBackendHeurMode_t mode :
         {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_B, CUDNN_HEUR_MODE_FALLBACK}) {
      std::vector<CudnnDesc> configs;
      if (sy_error_t* e = Heuristic(b, graph, mode, round == 1 ? &device_prop : nullptr,
                                    &configs)) {
        // One mode may not support the graph; another may. Only when none
        // returns an engine is the failure the answer.
        DropError(e);
        errors += StrCat(errors.empty() ? "" : "; ", round == 1 ? "with device properties, " : "",
                         "mode ", static_cast<int>(mode), ": ", b.last_error());
        continue;
      }
      for (CudnnDesc& c : configs) {
        if (static_cast<int>(out->size()) >= max) return nullptr;
        int64_t index = -1;
        if (Refused(b, c, refused_notes, &index)) continue;
        // Mode B repeats much of A: keep the first of each engine and knob
        // setting (ConfigTag).
        std::string tag = ConfigTag(b, c, index);
        if (std::find(seen.begin(), seen.end(), tag) != seen.end()) continue;
        seen.push_back(std::move(tag));
        out->push_back(std::move(c));
      }
    }
  }
  if (out->empty() && !errors.empty()) {
    return b.Check(CUDNN_STATUS_NOT_SUPPORTED,
                   StrCat("no engine heuristic takes the graph (", errors, ")"));
  }
  return nullptr;
}

namespace {

// A plan of `config` bound to the device through the handle, or (when
// `device_prop`) through the device-properties descriptor as well.
sy_error_t* FinalizePlan(const CudnnBuilder& b, cudnnHandle_t handle,
                         const CudnnDesc& config, const CudnnDesc* device_prop,
                         CudnnDesc* out) {
  CudnnDesc plan;
  SY_PLUGIN_RETURN_IF_ERROR(b.Create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
  SY_PLUGIN_RETURN_IF_ERROR(
      b.Set(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle));
  if (device_prop != nullptr) {
    SY_PLUGIN_RETURN_IF_ERROR(
        b.SetDesc(plan, CUDNN_ATTR_EXECUTION_PLAN_DEVICEPROP, *device_prop));
  }
  SY_PLUGIN_RETURN_IF_ERROR(
      b.SetDesc(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config));
  SY_PLUGIN_RETURN_IF_ERROR(b.Finalize(plan, "the execution plan"));
  *out = std::move(plan);
  return nullptr;
}

}  // namespace

sy_error_t* MakePlan(const CudnnBuilder& b, cudnnHandle_t handle,
                     const CudnnDesc& config, CudnnPlan* out) {
  CudnnDesc plan;
  if (sy_error_t* e = FinalizePlan(b, handle, config, nullptr, &plan)) {
    // Once more with the device-properties descriptor (cudnn_graph.h).
    const std::string first = b.last_error();
    DropError(e);
    CudnnDesc device_prop;
    e = b.Create(CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR, &device_prop);
    if (e == nullptr) {
      e = b.Set(device_prop, CUDNN_ATTR_DEVICEPROP_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
    }
    if (e == nullptr) e = b.Finalize(device_prop, "the device properties");
    if (e == nullptr) e = FinalizePlan(b, handle, config, &device_prop, &plan);
    if (e != nullptr) {
      DropError(e);
      return b.Check(CUDNN_STATUS_NOT_SUPPORTED,
                     StrCat("building the plan failed (", first, "; with device "
                            "properties: ", b.last_error(), ")"));
    }
  }
  int64_t workspace = 0, got = 0;
  SY_PLUGIN_RETURN_IF_ERROR(b.Check(b.lib().cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                       CUDNN_TYPE_INT64, 1, &got, &workspace), "reading the plan's workspace size failed"));
  int64_t index = -1;
  Refused(b, config, {}, &index);
  out->plan = std::move(plan);
  out->workspace = workspace;
  // "engine 62 (knobs 3=1,7=0)": configurations of one engine differ by knobs.
  const std::string tag = ConfigTag(b, config, index);
  const std::string knobs = tag.substr(tag.find(':') + 1);
  out->engine = StrCat("engine ", index, knobs.empty() ? "" : StrCat(" (knobs ", knobs, ")"));
  return nullptr;
}

sy_error_t* ExecutePlan(const CudnnBuilder& b, cudnnHandle_t handle,
                        const CudnnPlan& plan, std::span<const int64_t> uids,
                        std::span<void* const> pointers, void* workspace) {
  CudnnDesc pack;
  SY_PLUGIN_RETURN_IF_ERROR(b.Create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
  SY_PLUGIN_RETURN_IF_ERROR(b.Set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
                                  CUDNN_TYPE_INT64,
                                  static_cast<int64_t>(uids.size()), uids.data()));
  SY_PLUGIN_RETURN_IF_ERROR(b.Set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                                  CUDNN_TYPE_VOID_PTR,
                                  static_cast<int64_t>(pointers.size()),
                                  pointers.data()));
  SY_PLUGIN_RETURN_IF_ERROR(b.Set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
                                  CUDNN_TYPE_VOID_PTR, 1, &workspace));
  SY_PLUGIN_RETURN_IF_ERROR(b.Finalize(pack, "the variant pack"));
  return b.Check(b.lib().cudnnBackendExecute(handle, plan.plan.get(), pack.get()), StrCat("running ", plan.engine, " failed"));
}

}  // namespace sy::cuda
