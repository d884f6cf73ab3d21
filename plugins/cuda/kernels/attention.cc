// scaled_dot_product_attention (attention.h): check the call, decline what
// the fused kernels do not take, describe the operands (batch dims
// broadcast, any strides; operands the flash kernel cannot read in place
// are packed first), and run cuDNN's fused attention or the plugin's own
// flash kernel (f16, bf16), or two GEMMs around a row kernel (f32, f64:
// attention_gemm.h).
#include "kernels/attention.h"

#include <cuda_runtime_api.h>

#include <cmath>
#include <string>

#include "cuda_util.h"
#include "kernels/attention_cudnn.h"
#include "kernels/attention_gemm.h"
#include "kernels/cudnn_library.h"
#include "kernels/flash_attention.h"
#include "kernels/scratch.h"
#include "switchyard/gpu/kernel_list.h"
#include "switchyard/gpu/kernel_util.h"

namespace sy::cuda {
namespace {

using ::sy::gpu::BeginCall;
using ::sy::gpu::CheckView;
using ::sy::gpu::OpError;
using ::sy::gpu::Stream;
using ::sy::plugin::DataPtr;
using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;

constexpr std::string_view kOp = "scaled_dot_product_attention";
enum MaskKind { kNoMask = 0, kBoolMask = 1, kAddMask = 2 };
enum Variant { kAuto = -1, kFlash = 0, kCudnn = 1, kFlashWide = 2 };
// Scores (batch × Lq × Lk) from which cuDNN runs a call by default.
constexpr int64_t kCudnnMinScores = int64_t{1} << 20;

// Input `arg` of the schema (q k v mask), or NULL for an omitted mask.
const sy_tensor_view_t* Input(const sy_kernel_call_t* call, int arg) {
  if (call->input_offsets == nullptr) {
    return arg < call->num_inputs ? &call->inputs[arg] : nullptr;
  }
  if (call->num_tensor_args <= arg ||
      call->input_offsets[arg + 1] - call->input_offsets[arg] != 1) {
    return nullptr;
  }
  return &call->inputs[call->input_offsets[arg]];
}

// The stride of `view` along output dim `d` (a batch dim) when its dims
// align to the right of the output's `total` dims (as the scores for a
// mask); 0 where it broadcasts.
int64_t BatchStride(const sy_tensor_view_t& view, int d, int total) {
  const int idx = d - (total - view.ndim);
  if (idx < 0 || view.shape[idx] == 1) return 0;
  return view.strides[idx];
}

bool Aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// Whether the flash kernel reads operand `which` (rows of `cols` elements,
// row stride `rs`, column stride `cs`) in place.
bool Direct(const FlashParams& p, int which, const void* base, int64_t rows,
            int64_t cols, int64_t rs, int64_t cs) {
  if (cols % 8 != 0 || (cols > 1 && cs != 1) || !Aligned16(base)) return false;
  if (rows > 1 && rs % 8 != 0) return false;
  for (int d = 0; d < p.batch_ndim; ++d) {
    if (p.batch_stride[which][d] % 8 != 0) return false;
  }
  return true;
}

// Packs operand `which` into a dense [batches, rows, cols rounded up to 8]
// scratch buffer and points `p` at it.
sy_error_t* Pack(FlashParams& p, Scratch& scratch, cudaStream_t stream,
                 int which, const void* src, int64_t rows, int64_t cols,
                 int64_t rs, int64_t cs, const void** base, int64_t* row_stride) {
  const int64_t pad = (cols + 7) / 8 * 8;
  void* dst = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(
      scratch.Get(static_cast<size_t>(p.batches * rows * pad) * 2, kOp,
                  "allocating a packed copy of an operand failed", &dst));
  SY_PLUGIN_RETURN_IF_ERROR(CudaError(
      PackAttentionOperand(p, which, src, rows, cols, rs, cs, dst, pad, stream),
      StrCat("cuda plugin: ", kOp), "packing an operand failed"));
  int64_t stride = rows * pad;
  for (int d = p.batch_ndim - 1; d >= 0; --d) {
    p.batch_stride[which][d] = stride;
    stride *= p.batch_shape[d];
  }
  *base = dst;
  *row_stride = pad;
  return nullptr;
}

// The call as cuDNN's [B, H, S, D] problem, or "" with *key filled; else
// why it does not fit.
std::string CudnnFit(const FlashParams& p, sy_dtype_t dtype, MaskKind mask,
                     const Stream& stream, SdpaKey* key) {
  if (mask == kBoolMask) return "a bool mask";
  if (p.e != p.ev || p.e % 8 != 0) return "E != Ev or E not a multiple of 8";
  if (p.batch_ndim > 2) return "more than two batch dims";
  if (!p.out_vectorized) return "a strided output";
  if (p.mask != nullptr && (p.m_rs == 0 || p.m_cs != 1 || p.lq <= 1)) {
    return "a mask broadcast along Lq or Lk";
  }
  *key = SdpaKey{};
  key->device = stream.device;
  key->dtype = dtype;
  key->causal = p.causal ? 1 : 0;
  key->bias = p.mask != nullptr ? 1 : 0;
  key->sq = p.lq;
  key->skv = p.lk;
  key->d = p.e;
  const int64_t shape[2] = {p.batch_ndim == 2 ? p.batch_shape[0] : 1,
                            p.batch_ndim >= 1 ? p.batch_shape[p.batch_ndim - 1] : 1};
  key->b = shape[0];
  key->h = shape[1];
  // [B, H, S, D] strides of operand `which` with row stride rs; a dim of
  // size 1 gets the stride a packed tensor would have.
  const auto strides = [&](int which, int64_t rs, int64_t rows, int64_t* out) {
    out[3] = 1;
    out[2] = rs;
    const int64_t hs = p.batch_ndim >= 1 ? p.batch_stride[which][p.batch_ndim - 1] : 0;
    const int64_t bs = p.batch_ndim == 2 ? p.batch_stride[which][0] : 0;
    out[1] = key->h > 1 ? hs : rows * rs;
    out[0] = key->b > 1 ? bs : key->h * out[1];
  };
  strides(kAttnQ, p.q_rs, p.lq, key->q);
  strides(kAttnK, p.k_rs, p.lk, key->k);
  strides(kAttnV, p.v_rs, p.lk, key->v);
  strides(kAttnOut, p.o_rs, p.lq, key->o);
  for (int which : {kAttnQ, kAttnK, kAttnV}) {
    const int64_t* s = which == kAttnQ ? key->q : which == kAttnK ? key->k : key->v;
    if ((key->b > 1 && s[0] == 0) || (key->h > 1 && s[1] == 0)) {
      return "q, k or v broadcast along a batch dim";
    }
  }
  if (key->bias != 0) {
    const int64_t hs = p.batch_ndim >= 1 ? p.batch_stride[kAttnMask][p.batch_ndim - 1] : 0;
    const int64_t bs = p.batch_ndim == 2 ? p.batch_stride[kAttnMask][0] : 0;
    key->mask_dims[0] = bs != 0 ? key->b : 1;
    key->mask_dims[1] = hs != 0 ? key->h : 1;
    key->mask_dims[2] = p.lq;
    key->mask_dims[3] = p.lk;
    key->mask[3] = 1;
    key->mask[2] = p.m_rs;
    key->mask[1] = hs != 0 ? hs : p.lq * p.m_rs;
    key->mask[0] = bs != 0 ? bs : key->mask_dims[1] * key->mask[1];
    if (p.m_rs % 8 != 0 || hs % 8 != 0 || bs % 8 != 0 || !Aligned16(p.mask)) {
      return "a mask whose rows are not 16-byte aligned";
    }
  }
  return "";
}

sy_error_t* AttentionImpl(const sy_kernel_call_t* call, sy_dtype_t dtype,
                          MaskKind mask_kind) {
  static const std::string where = gpu::Where(kOp);
  // Decline (and answer queries) first, from shapes alone: a query's
  // outputs have no data and it must touch nothing.
  const sy_tensor_view_t* q = Input(call, 0);
  const sy_tensor_view_t* k = Input(call, 1);
  const sy_tensor_view_t* v = Input(call, 2);
  const sy_tensor_view_t* mask = Input(call, 3);
  if (q == nullptr || k == nullptr || v == nullptr || q->ndim < 2 || k->ndim < 2 ||
      v->ndim < 2 || (mask == nullptr) != (mask_kind == kNoMask)) {
    return OpError(kOp, "expects q, k, v ([..., L, E], rank 2 to 8) and the mask "
                        "its kernel was registered for; the call does not match "
                        "the op's schema");
  }
  const int64_t e = q->shape[q->ndim - 1], ev = v->shape[v->ndim - 1];
  const int64_t lq = q->shape[q->ndim - 2], lk = k->shape[k->ndim - 2];
  const bool by_gemms = dtype == SY_DTYPE_F32 || dtype == SY_DTYPE_F64;
  if (by_gemms) {
    // Note [Attention by GEMMs]: cuBLASLt writes the output's rows.
    const sy_tensor_view_t& o = call->outputs[0];
    if (o.ndim >= 1 && o.shape[o.ndim - 1] > 1 && o.strides != nullptr &&
        o.strides[o.ndim - 1] != 1) {
      return plugin::Decline("the output's last dim is not at unit stride");
    }
  } else if (e > kAttentionMaxHeadDim || ev > kAttentionMaxHeadDim) {
    return plugin::Decline(StrCat("head dim ", e > ev ? e : ev, " > ",
                                  kAttentionMaxHeadDim,
                                  ", the fused attention kernels' limit"));
  }
  if (lk == 0) return plugin::Decline("Lk = 0: no keys to attend to");
  if (plugin::IsQuery(call)) return nullptr;

  Stream* stream = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, kOp, -1, 1, 2, &stream));
  const sy_tensor_view_t& out = call->outputs[0];
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(*q, kOp, "input 'q'", dtype, *stream));
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(*k, kOp, "input 'k'", dtype, *stream));
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(*v, kOp, "input 'v'", dtype, *stream));
  if (mask != nullptr) {
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(*mask, kOp, "input 'mask'",
                                        mask_kind == kBoolMask ? SY_DTYPE_BOOL : dtype,
                                        *stream));
  }
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, kOp, "output", dtype, *stream));
  if (out.ndim < 2 || out.ndim - 2 > kAttnMaxBatchDims) {
    return OpError(kOp, "the output needs rank 2 to 8 ([..., Lq, Ev])");
  }
  bool causal = false;
  SY_PLUGIN_RETURN_IF_ERROR(gpu::ReadBool(call, 0, kOp, "causal", causal));
  double scale = 1.0 / std::sqrt(static_cast<double>(e > 0 ? e : 1));
  if (call->attrs[1].kind != SY_ATTR_NONE) {
    SY_PLUGIN_RETURN_IF_ERROR(gpu::ReadFloat(call, 1, kOp, "scale", scale));
  }
  const int nb = out.ndim - 2;
  if (out.shape[nb] != lq || out.shape[nb + 1] != ev || k->shape[k->ndim - 1] != e ||
      v->shape[v->ndim - 2] != lk) {
    return OpError(kOp, "q, k, v and the output do not chain ([..., Lq, E], "
                        "[..., Lk, E], [..., Lk, Ev] -> [..., Lq, Ev]); allocate "
                        "the output from the op's shape function");
  }
  FlashParams p;
  p.lq = lq;
  p.lk = lk;
  p.e = e;
  p.ev = ev;
  p.scale = static_cast<float>(scale);
  p.causal = causal;
  p.mask_is_bool = mask_kind == kBoolMask;
  const sy_tensor_view_t* views[kAttnOperands] = {q, k, v, mask, &out};
  for (int d = 0; d < nb; ++d) {
    if (out.shape[d] == 1) continue;
    const int n = p.batch_ndim++;
    p.batch_shape[n] = out.shape[d];
    p.batches *= out.shape[d];
    for (int w = 0; w < kAttnOperands; ++w) {
      if (views[w] != nullptr) p.batch_stride[w][n] = BatchStride(*views[w], d, nb + 2);
    }
  }
  if (p.batches == 0 || lq == 0 || ev == 0) return nullptr;
  p.q_rs = q->strides[q->ndim - 2];
  p.k_rs = k->strides[k->ndim - 2];
  p.v_rs = v->strides[v->ndim - 2];
  p.o_rs = out.strides[nb];
  p.o_cs = out.strides[nb + 1];
  p.q = DataPtr<const char>(*q);
  p.k = DataPtr<const char>(*k);
  p.v = DataPtr<const char>(*v);
  p.out = DataPtr<char>(out);
  if (mask != nullptr) {
    p.mask = DataPtr<const char>(*mask);
    p.m_rs = mask->ndim >= 2 && mask->shape[mask->ndim - 2] != 1
                 ? mask->strides[mask->ndim - 2] : 0;
    p.m_cs = mask->shape[mask->ndim - 1] != 1 ? mask->strides[mask->ndim - 1] : 0;
  }
  bool out_rows_aligned = Aligned16(p.out) && (lq <= 1 || p.o_rs % 8 == 0);
  for (int d = 0; d < p.batch_ndim; ++d) {
    out_rows_aligned = out_rows_aligned && p.batch_stride[kAttnOut][d] % 8 == 0;
  }
  p.out_vectorized = ev % 8 == 0 && (ev <= 1 || p.o_cs == 1) && out_rows_aligned;

  Scratch scratch(call, stream->stream);
  if (by_gemms) {
    const GemmAttention gemms{p, scale, q->strides[q->ndim - 1],
                              k->strides[k->ndim - 1], v->strides[v->ndim - 1]};
    return RunGemmAttention(gemms, dtype, *stream, scratch);
  }
  const int variant = call->variant;
  if (variant == kAuto || variant == kCudnn) {
    const CudnnLibrary* lib = CudnnLibrary::Get(nullptr);
    std::string why_not;
    SdpaKey key;
    const bool direct = Direct(p, kAttnQ, p.q, lq, e, p.q_rs, q->strides[q->ndim - 1]) &&
                        Direct(p, kAttnK, p.k, lk, e, p.k_rs, k->strides[k->ndim - 1]) &&
                        Direct(p, kAttnV, p.v, lk, ev, p.v_rs, v->strides[v->ndim - 1]);
    if (lib == nullptr) {
      why_not = "cuDNN is not loaded";
    } else if (!direct) {
      why_not = "q, k or v is not at unit stride with 16-byte aligned rows";
    } else {
      why_not = CudnnFit(p, dtype, mask_kind, *stream, &key);
    }
    const bool large = p.batches * lq * lk >= kCudnnMinScores;
    if (why_not.empty() && (large || variant == kCudnn)) {
      SdpaPointers ptrs{p.q, p.k, p.v, p.mask, p.out, p.scale};
      CudnnHandleLease handle;
      SY_PLUGIN_RETURN_IF_ERROR(handle.Acquire(*lib, *stream, kOp));
      SY_PLUGIN_RETURN_IF_ERROR(
          RunCudnnAttention(*lib, handle.get(), scratch, key, ptrs, &why_not));
      if (why_not.empty()) return nullptr;
    }
    if (variant == kCudnn) {
      return MakeError(SY_STATUS_UNIMPLEMENTED,
                       StrCat(where, ": the cudnn variant cannot run this call (",
                              why_not.empty() ? "too small" : why_not,
                              "); use the flash variant"));
    }
  }
  // The flash kernel; pack what it cannot read in place.
  p.wide = variant == kFlashWide;
  const struct {
    int which;
    const void** base;
    int64_t* rs;
    int64_t rows, cols, cs;
  } operands[3] = {
      {kAttnQ, &p.q, &p.q_rs, lq, e, q->strides[q->ndim - 1]},
      {kAttnK, &p.k, &p.k_rs, lk, e, k->strides[k->ndim - 1]},
      {kAttnV, &p.v, &p.v_rs, lk, ev, v->strides[v->ndim - 1]},
  };
  for (const auto& o : operands) {
    if (!Direct(p, o.which, *o.base, o.rows, o.cols, *o.rs, o.cs)) {
      SY_PLUGIN_RETURN_IF_ERROR(Pack(p, scratch, stream->stream, o.which, *o.base,
                                     o.rows, o.cols, *o.rs, o.cs, o.base, o.rs));
    }
  }
  return CudaError(LaunchFlashAttention(p, dtype, stream->stream), where,
                   "launching the flash attention kernel failed");
}

template <sy_dtype_t D, MaskKind M>
sy_error_t* AttentionKernel(const sy_kernel_call_t* call) {
  return plugin::Guard("cuda plugin: scaled_dot_product_attention",
                       [&] { return AttentionImpl(call, D, M); });
}

struct Variants {
  int32_t configs[3] = {kFlash, kCudnn, kFlashWide};
  sy_kernel_variant_t variants[3] = {
      {sizeof(sy_kernel_variant_t), nullptr, "flash", &configs[0], sizeof(int32_t)},
      {sizeof(sy_kernel_variant_t), nullptr, "cudnn", &configs[1], sizeof(int32_t)},
      {sizeof(sy_kernel_variant_t), nullptr, "flash_wide", &configs[2], sizeof(int32_t)}};
};

template <sy_dtype_t D, MaskKind M>
sy_error_t* RegisterOne(const sy_host_api_t* host, sy_host_context_t* context) {
  static const Variants variants;
  const sy_dtype_t mask = M == kNoMask ? SY_DTYPE_NONE : M == kBoolMask ? SY_DTYPE_BOOL : D;
  const sy_dtype_t dtypes[4] = {D, D, D, mask};
  const std::string name = plugin::KernelName(kOp, dtypes);
  sy_kernel_desc_t desc{};
  desc.struct_size = sizeof(desc);
  desc.op = "scaled_dot_product_attention";
  desc.device_type = "cuda";
  desc.name = name.c_str();
  desc.dtypes = dtypes;
  desc.num_dtypes = 4;
  desc.priority = gpu::ThisTarget().priority;
  desc.fn = AttentionKernel<D, M>;
  if constexpr (D == SY_DTYPE_F16 || D == SY_DTYPE_BF16) {
    desc.variants = variants.variants;
    desc.num_variants = 3;
  }
  desc.flags = SY_KERNEL_FLAG_MAY_DECLINE;
  return host->register_kernel(context, &desc);
}

template <sy_dtype_t D>
sy_error_t* RegisterFor(const sy_host_api_t* host, sy_host_context_t* context) {
  SY_PLUGIN_RETURN_IF_ERROR((RegisterOne<D, kNoMask>(host, context)));
  SY_PLUGIN_RETURN_IF_ERROR((RegisterOne<D, kBoolMask>(host, context)));
  return RegisterOne<D, kAddMask>(host, context);
}

}  // namespace

sy_error_t* RegisterAttentionKernels(const sy_host_api_t* host,
                                     sy_host_context_t* context) {
  SY_PLUGIN_RETURN_IF_ERROR(RegisterFor<SY_DTYPE_F16>(host, context));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterFor<SY_DTYPE_BF16>(host, context));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterFor<SY_DTYPE_F32>(host, context));
  return RegisterFor<SY_DTYPE_F64>(host, context);
}

}  // namespace sy::cuda
