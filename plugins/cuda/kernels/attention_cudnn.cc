// The cuDNN attention graph and its plan cache (attention_cudnn.h).
//
// The graph is the one cudnn-frontend's SDPA node writes for inference
// (scaled_dot_product_flash_attention.h of frontend 1.x): every
// intermediate is a virtual f32 tensor, the indices of GEN_INDEX int32, the
// comparison boolean; masked scores become the lowest float (not -inf, so
// that a fully masked tile never gives inf - inf). Which variant of the
// pattern a cuDNN release's engines take is not documented for the
// backend API alone, so the graph is built in a few, until one gets an
// engine: the softmax statistics (log-sum-exp) virtual, as an output (into
// a scratch buffer) or absent, and the probabilities entering P·V in f32
// or in the inputs' dtype. The answer is cached per problem.
#include "kernels/attention_cudnn.h"

#include <cstring>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "kernels/cudnn_graph.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {
namespace {

using ::sy::plugin::StrCat;

constexpr std::string_view kOp = "scaled_dot_product_attention";
constexpr size_t kCapacity = 64;  // problems

enum : int64_t {
  kQ = 1, kK, kV, kO, kScale, kBias, kLowest, kStats,
  kS = 101, kScaled, kBiased, kRow, kCol, kKeep, kMasked, kMax, kSub, kExp,
  kSum, kP, kLog,
};

// Where the softmax statistics go.
enum class Stats { kVirtual, kOutput, kNone };

struct Plan {
  CudnnPlan plan;
  bool stats = false;  // an output the call must provide
};

struct Outcome {
  std::shared_ptr<const Plan> plan;
  std::string why_not;
};

struct KeyHash {
  size_t operator()(const SdpaKey& k) const {
    const auto* p = reinterpret_cast<const unsigned char*>(&k);
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof(SdpaKey); ++i) h = (h ^ p[i]) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};
struct KeyEq {
  bool operator()(const SdpaKey& a, const SdpaKey& b) const {
    return std::memcmp(&a, &b, sizeof(SdpaKey)) == 0;
  }
};

class Cache {
 public:
  bool Find(const SdpaKey& key, Outcome* out) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    if (it == map_.end()) return false;
    lru_.splice(lru_.begin(), lru_, it->second.second);
    *out = it->second.first;
    return true;
  }
  void Insert(const SdpaKey& key, const Outcome& outcome) {
    std::lock_guard<std::mutex> lock(mu_);
    if (map_.count(key) != 0) return;
    lru_.push_front(key);
    map_.emplace(key, std::make_pair(outcome, lru_.begin()));
    while (map_.size() > kCapacity) {
      map_.erase(lru_.back());
      lru_.pop_back();
    }
  }

 private:
  std::mutex mu_;
  std::list<SdpaKey> lru_;
  std::unordered_map<SdpaKey, std::pair<Outcome, std::list<SdpaKey>::iterator>,
                     KeyHash, KeyEq>
      map_;
};

Cache& TheCache() {
  static Cache* cache = new Cache;  // outlives static destructors
  return *cache;
}

std::string Describe(const SdpaKey& k) {
  return StrCat(plugin::DtypeName(static_cast<sy_dtype_t>(k.dtype)), " B=", k.b,
                " H=", k.h, " Sq=", k.sq, " Skv=", k.skv, " D=", k.d,
                k.causal ? " causal" : "", k.bias ? " +bias" : "");
}

// Packed strides of [d0, d1, d2, d3].
std::vector<int64_t> Packed(int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
  (void)d0;
  return {d1 * d2 * d3, d2 * d3, d3, 1};
}

sy_error_t* Reduction(const CudnnBuilder& b, cudnnReduceTensorOp_t op,
                      const CudnnDesc& x, const CudnnDesc& y, CudnnDesc* out) {
  CudnnDesc red;
  SY_PLUGIN_RETURN_IF_ERROR(b.Create(CUDNN_BACKEND_REDUCTION_DESCRIPTOR, &red));
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  SY_PLUGIN_RETURN_IF_ERROR(b.Set(red, CUDNN_ATTR_REDUCTION_OPERATOR,
                                  CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &op));
  SY_PLUGIN_RETURN_IF_ERROR(
      b.Set(red, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32));
  SY_PLUGIN_RETURN_IF_ERROR(b.Finalize(red, "a reduction descriptor"));
  CudnnDesc o;
  SY_PLUGIN_RETURN_IF_ERROR(b.Create(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, &o));
  SY_PLUGIN_RETURN_IF_ERROR(b.SetDesc(o, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x));
  SY_PLUGIN_RETURN_IF_ERROR(b.SetDesc(o, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y));
  SY_PLUGIN_RETURN_IF_ERROR(b.SetDesc(o, CUDNN_ATTR_OPERATION_REDUCTION_DESC, red));
  SY_PLUGIN_RETURN_IF_ERROR(b.Finalize(o, "a reduction"));
  *out = std::move(o);
  return nullptr;
}

sy_error_t* Matmul(const CudnnBuilder& b, const CudnnDesc& a, const CudnnDesc& bb,
                   const CudnnDesc& c, CudnnDesc* out) {
  CudnnDesc mm;
  SY_PLUGIN_RETURN_IF_ERROR(b.Create(CUDNN_BACKEND_MATMUL_DESCRIPTOR, &mm));
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  SY_PLUGIN_RETURN_IF_ERROR(
      b.Set(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32));
  SY_PLUGIN_RETURN_IF_ERROR(b.Finalize(mm, "a matmul descriptor"));
  CudnnDesc o;
  SY_PLUGIN_RETURN_IF_ERROR(b.Create(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, &o));
  SY_PLUGIN_RETURN_IF_ERROR(b.SetDesc(o, CUDNN_ATTR_OPERATION_MATMUL_ADESC, a));
  SY_PLUGIN_RETURN_IF_ERROR(b.SetDesc(o, CUDNN_ATTR_OPERATION_MATMUL_BDESC, bb));
  SY_PLUGIN_RETURN_IF_ERROR(b.SetDesc(o, CUDNN_ATTR_OPERATION_MATMUL_CDESC, c));
  SY_PLUGIN_RETURN_IF_ERROR(b.SetDesc(o, CUDNN_ATTR_OPERATION_MATMUL_DESC, mm));
  SY_PLUGIN_RETURN_IF_ERROR(b.Finalize(o, "a matmul"));
  *out = std::move(o);
  return nullptr;
}

// The graph of `k` (with the statistics output when `stats`).
// `p_io`: the probabilities P that enter P·V in q's dtype (as
// TransformerEngine's graphs have them) rather than f32.
sy_error_t* BuildGraph(const CudnnBuilder& b, cudnnHandle_t handle,
                       const SdpaKey& k, Stats stats, bool p_io, CudnnDesc* graph) {
  const cudnnDataType_t io =
      k.dtype == SY_DTYPE_F16 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16;
  std::vector<CudnnDesc> tensors;  // keeps every tensor alive
  std::vector<CudnnDesc> ops;
  const auto tensor = [&](int64_t uid, cudnnDataType_t type, std::vector<int64_t> dims,
                          std::vector<int64_t> strides, bool is_virtual,
                          bool by_value = false) -> sy_error_t* {
    CudnnBuilder::TensorSpec s;
    s.uid = uid;
    s.type = type;
    s.dims = std::move(dims);
    s.strides = std::move(strides);
    s.is_virtual = is_virtual;
    s.by_value = by_value;
    tensors.emplace_back();
    return b.Tensor(s, &tensors.back());
  };
  // Index into `tensors` by the order made.
  std::unordered_map<int64_t, size_t> at;
  const auto make = [&](int64_t uid, cudnnDataType_t type, std::vector<int64_t> dims,
                        std::vector<int64_t> strides, bool is_virtual,
                        bool by_value = false) -> sy_error_t* {
    at[uid] = tensors.size();
    return tensor(uid, type, std::move(dims), std::move(strides), is_virtual, by_value);
  };
  tensors.reserve(32);
  ops.reserve(24);
  const auto t = [&](int64_t uid) -> const CudnnDesc& { return tensors[at[uid]]; };
  const int64_t B = k.b, H = k.h, Sq = k.sq, Skv = k.skv, D = k.d;
  const std::vector<int64_t> s_dims = {B, H, Sq, Skv};
  const std::vector<int64_t> s_strides = Packed(B, H, Sq, Skv);
  const std::vector<int64_t> r_dims = {B, H, Sq, 1};
  const std::vector<int64_t> r_strides = Packed(B, H, Sq, 1);
  const std::vector<int64_t> one = {1, 1, 1, 1};
  constexpr cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  SY_PLUGIN_RETURN_IF_ERROR(make(kQ, io, {B, H, Sq, D}, {k.q[0], k.q[1], k.q[2], k.q[3]}, false));
  // Kᵀ: [B, H, D, Skv], k's strides with the last two swapped.
  SY_PLUGIN_RETURN_IF_ERROR(make(kK, io, {B, H, D, Skv}, {k.k[0], k.k[1], k.k[3], k.k[2]}, false));
  SY_PLUGIN_RETURN_IF_ERROR(make(kV, io, {B, H, Skv, D}, {k.v[0], k.v[1], k.v[2], k.v[3]}, false));
  SY_PLUGIN_RETURN_IF_ERROR(make(kO, io, {B, H, Sq, D}, {k.o[0], k.o[1], k.o[2], k.o[3]}, false));
  SY_PLUGIN_RETURN_IF_ERROR(make(kScale, f32, one, one, false, true));
  SY_PLUGIN_RETURN_IF_ERROR(make(kS, f32, s_dims, s_strides, true));
  SY_PLUGIN_RETURN_IF_ERROR(make(kScaled, f32, s_dims, s_strides, true));
  ops.emplace_back();
  SY_PLUGIN_RETURN_IF_ERROR(Matmul(b, t(kQ), t(kK), t(kS), &ops.back()));
  ops.emplace_back();
  SY_PLUGIN_RETURN_IF_ERROR(b.Pointwise(CUDNN_POINTWISE_MUL, f32, t(kS), &t(kScale),
                                        nullptr, t(kScaled), &ops.back()));
  int64_t last = kScaled;
  if (k.bias != 0) {
    SY_PLUGIN_RETURN_IF_ERROR(make(kBias, io,
                                   {k.mask_dims[0], k.mask_dims[1], k.mask_dims[2], k.mask_dims[3]},
                                   {k.mask[0], k.mask[1], k.mask[2], k.mask[3]}, false));
    SY_PLUGIN_RETURN_IF_ERROR(make(kBiased, f32, s_dims, s_strides, true));
    ops.emplace_back();
    SY_PLUGIN_RETURN_IF_ERROR(b.Pointwise(CUDNN_POINTWISE_ADD, f32, t(last), &t(kBias),
                                          nullptr, t(kBiased), &ops.back()));
    last = kBiased;
  }
  if (k.causal != 0) {
    SY_PLUGIN_RETURN_IF_ERROR(make(kRow, CUDNN_DATA_INT32, s_dims, s_strides, true));
    SY_PLUGIN_RETURN_IF_ERROR(make(kCol, CUDNN_DATA_INT32, s_dims, s_strides, true));
    SY_PLUGIN_RETURN_IF_ERROR(make(kKeep, CUDNN_DATA_BOOLEAN, s_dims, s_strides, true));
    SY_PLUGIN_RETURN_IF_ERROR(make(kLowest, f32, one, one, false, true));
    SY_PLUGIN_RETURN_IF_ERROR(make(kMasked, f32, s_dims, s_strides, true));
    ops.emplace_back();
    SY_PLUGIN_RETURN_IF_ERROR(b.Pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32,
                                          t(last), nullptr, nullptr, t(kRow),
                                          &ops.back(), 2));
    ops.emplace_back();
    SY_PLUGIN_RETURN_IF_ERROR(b.Pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32,
                                          t(last), nullptr, nullptr, t(kCol),
                                          &ops.back(), 3));
    ops.emplace_back();
    SY_PLUGIN_RETURN_IF_ERROR(b.Pointwise(CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN,
                                          t(kRow), &t(kCol), nullptr, t(kKeep),
                                          &ops.back()));
    ops.emplace_back();
    SY_PLUGIN_RETURN_IF_ERROR(b.Pointwise(CUDNN_POINTWISE_BINARY_SELECT, f32, t(last),
                                          &t(kLowest), &t(kKeep), t(kMasked),
                                          &ops.back()));
    last = kMasked;
  }
  SY_PLUGIN_RETURN_IF_ERROR(make(kMax, f32, r_dims, r_strides, true));
  SY_PLUGIN_RETURN_IF_ERROR(make(kSub, f32, s_dims, s_strides, true));
  SY_PLUGIN_RETURN_IF_ERROR(make(kExp, f32, s_dims, s_strides, true));
  SY_PLUGIN_RETURN_IF_ERROR(make(kSum, f32, r_dims, r_strides, true));
  SY_PLUGIN_RETURN_IF_ERROR(make(kP, p_io ? io : f32, s_dims, s_strides, true));
  ops.emplace_back();
  SY_PLUGIN_RETURN_IF_ERROR(Reduction(b, CUDNN_REDUCE_TENSOR_MAX, t(last), t(kMax), &ops.back()));
  ops.emplace_back();
  SY_PLUGIN_RETURN_IF_ERROR(b.Pointwise(CUDNN_POINTWISE_SUB, f32, t(last), &t(kMax), nullptr,
                                        t(kSub), &ops.back()));
  ops.emplace_back();
  SY_PLUGIN_RETURN_IF_ERROR(b.Pointwise(CUDNN_POINTWISE_EXP, f32, t(kSub), nullptr, nullptr,
                                        t(kExp), &ops.back()));
  ops.emplace_back();
  SY_PLUGIN_RETURN_IF_ERROR(Reduction(b, CUDNN_REDUCE_TENSOR_ADD, t(kExp), t(kSum), &ops.back()));
  if (stats != Stats::kNone) {
    SY_PLUGIN_RETURN_IF_ERROR(make(kLog, f32, r_dims, r_strides, true));
    SY_PLUGIN_RETURN_IF_ERROR(
        make(kStats, f32, r_dims, r_strides, stats == Stats::kVirtual));
    ops.emplace_back();
    SY_PLUGIN_RETURN_IF_ERROR(b.Pointwise(CUDNN_POINTWISE_LOG, f32, t(kSum), nullptr, nullptr,
                                          t(kLog), &ops.back()));
    ops.emplace_back();
    SY_PLUGIN_RETURN_IF_ERROR(b.Pointwise(CUDNN_POINTWISE_ADD, f32, t(kMax), &t(kLog), nullptr,
                                          t(kStats), &ops.back()));
  }
  ops.emplace_back();
  SY_PLUGIN_RETURN_IF_ERROR(b.Pointwise(CUDNN_POINTWISE_DIV, f32, t(kExp), &t(kSum), nullptr,
                                        t(kP), &ops.back()));
  ops.emplace_back();
  SY_PLUGIN_RETURN_IF_ERROR(Matmul(b, t(kP), t(kV), t(kO), &ops.back()));
  std::vector<const CudnnDesc*> list;
  for (const CudnnDesc& op : ops) list.push_back(&op);
  return MakeOperationGraph(b, handle, list, graph);
}

Outcome Build(const CudnnLibrary& lib, cudnnHandle_t handle, const SdpaKey& k) {
  CudnnBuilder b(lib, kOp);
  Outcome out;
  std::string why;
  struct Attempt {
    Stats stats;
    bool p_io;
  };
  constexpr Attempt kAttempts[] = {
      {Stats::kVirtual, false}, {Stats::kVirtual, true}, {Stats::kOutput, false},
      {Stats::kOutput, true},   {Stats::kNone, false},   {Stats::kNone, true}};
  for (const Attempt& attempt : kAttempts) {
    const Stats stats = attempt.stats;
    CudnnDesc graph;
    if (sy_error_t* e = BuildGraph(b, handle, k, stats, attempt.p_io, &graph)) {
      DropError(e);
      why += StrCat(why.empty() ? "" : "; ", "building the graph failed: ", b.last_error());
      continue;
    }
    std::vector<CudnnDesc> configs;
    if (sy_error_t* e = EngineConfigs(b, handle, graph, {}, 8, &configs)) {
      DropError(e);
      why += StrCat(why.empty() ? "" : "; ", "the heuristics failed: ", b.last_error());
      continue;
    }
    if (configs.empty()) {
      why += StrCat(why.empty() ? "" : "; ", "the heuristics returned no engine");
      continue;
    }
    for (CudnnDesc& config : configs) {
      auto plan = std::make_shared<Plan>();
      if (sy_error_t* e = MakePlan(b, handle, config, &plan->plan)) {
        DropError(e);
        why += StrCat(why.empty() ? "" : "; ", "no plan built: ", b.last_error());
        continue;
      }
      plan->stats = stats == Stats::kOutput;
      out.plan = std::move(plan);
      plugin::Log(plugin::Host(), nullptr, SY_LOG_DEBUG,
                  StrCat("cuda plugin: ", kOp, ": cuDNN ", out.plan->plan.engine,
                         " for ", Describe(k),
                         stats == Stats::kVirtual  ? " (virtual statistics"
                         : stats == Stats::kOutput ? " (statistics as an output"
                                                   : " (no statistics",
                         attempt.p_io ? ", P in the input dtype)" : ", P in f32)",
                         ", ", out.plan->plan.workspace, " bytes of workspace"));
      return out;
    }
  }
  if (why.size() > 1500) why = why.substr(0, 1500) + " …";
  out.why_not = StrCat("cuDNN has no engine for ", Describe(k), " (", why, ")");
  plugin::Log(plugin::Host(), nullptr, SY_LOG_DEBUG,
              StrCat("cuda plugin: ", kOp, ": ", out.why_not,
                     "; the plugin's own kernel runs it"));
  return out;
}

}  // namespace

sy_error_t* RunCudnnAttention(const CudnnLibrary& lib, cudnnHandle_t handle,
                              Scratch& scratch, const SdpaKey& key,
                              const SdpaPointers& ptrs, std::string* why_not) {
  Outcome outcome;
  if (!TheCache().Find(key, &outcome)) {
    outcome = Build(lib, handle, key);
    TheCache().Insert(key, outcome);
  }
  if (outcome.plan == nullptr) {
    *why_not = outcome.why_not;
    return nullptr;
  }
  const Plan& plan = *outcome.plan;
  void* workspace = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(scratch.Get(static_cast<size_t>(plan.plan.workspace), kOp,
                                        "allocating the cuDNN workspace failed",
                                        &workspace));
  void* stats = nullptr;
  if (plan.stats) {
    SY_PLUGIN_RETURN_IF_ERROR(scratch.Get(
        static_cast<size_t>(key.b * key.h * key.sq) * sizeof(float), kOp,
        "allocating the softmax statistics failed", &stats));
  }
  float scale = ptrs.scale;
  float lowest = std::numeric_limits<float>::lowest();
  std::vector<int64_t> uids = {kQ, kK, kV, kO, kScale};
  std::vector<void*> pointers = {const_cast<void*>(ptrs.q), const_cast<void*>(ptrs.k),
                                 const_cast<void*>(ptrs.v), ptrs.o, &scale};
  if (key.bias != 0) {
    uids.push_back(kBias);
    pointers.push_back(const_cast<void*>(ptrs.bias));
  }
  if (key.causal != 0) {
    uids.push_back(kLowest);
    pointers.push_back(&lowest);
  }
  if (plan.stats) {
    uids.push_back(kStats);
    pointers.push_back(stats);
  }
  return ExecutePlan(CudnnBuilder(lib, kOp), handle, plan.plan, uids, pointers, workspace);
}

}  // namespace sy::cuda
