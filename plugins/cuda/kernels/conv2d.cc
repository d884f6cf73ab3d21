// conv2d through cuDNN's legacy API (conv2d.h): check the call, describe
// the tensors, pick the algorithm (searched once per problem, cached),
// run, add the bias.
#include "kernels/conv2d.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_util.h"
#include "kernels/cudnn_library.h"
#include "kernels/kernel_list.h"
#include "kernels/strided_copy4d.h"
#include "switchyard/gpu/kernel_list.h"
#include "switchyard/gpu/kernel_util.h"

namespace sy::cuda {
namespace {

using ::sy::gpu::BeginCall;
using ::sy::gpu::CheckLaunched;
using ::sy::gpu::CheckView;
using ::sy::gpu::DtypeList;
using ::sy::gpu::KernelList;
using ::sy::gpu::OpError;
using ::sy::gpu::ReadInt;
using ::sy::gpu::ReadInts;
using ::sy::gpu::Stream;
using ::sy::plugin::DataPtr;
using ::sy::plugin::MakeError;
using ::sy::plugin::Shape;
using ::sy::plugin::ShapeToString;
using ::sy::plugin::StrCat;

constexpr std::string_view kOp = "conv2d";

// The checked call.
struct ConvProblem {
  sy_dtype_t dtype = SY_DTYPE_NONE;
  int64_t x[4] = {};  // N C H W
  int64_t w[4] = {};  // K C/g kH kW
  int64_t y[4] = {};  // N K OH OW
  int64_t stride[2] = {}, padding[2] = {}, dilation[2] = {};
  int64_t groups = 1;
  bool has_bias = false;
};

cudnnDataType_t CudnnType(sy_dtype_t dtype) {
  switch (dtype) {
    case SY_DTYPE_F16: return CUDNN_DATA_HALF;
    case SY_DTYPE_BF16: return CUDNN_DATA_BFLOAT16;
    default: return CUDNN_DATA_FLOAT;
  }
}

sy_error_t* ReadPair(const sy_kernel_call_t* call, int index,
                     std::string_view name, int64_t min, int64_t* out) {
  std::span<const int64_t> v;
  SY_PLUGIN_RETURN_IF_ERROR(ReadInts(call, index, kOp, name, v));
  if (v.size() != 2) {
    return OpError(kOp, StrCat("attribute '", name, "' has ", v.size(),
                               " values; pass 2 ints [height, width]"));
  }
  if (v[0] < min || v[1] < min || v[0] > INT_MAX || v[1] > INT_MAX) {
    return OpError(kOp, StrCat("attribute '", name, "' is [", v[0], ", ", v[1],
                               "]; each value must be in [", min, ", ",
                               INT_MAX, "]"));
  }
  out[0] = v[0];
  out[1] = v[1];
  return nullptr;
}

sy_error_t* Prepare(const sy_kernel_call_t* call, sy_dtype_t dtype,
                    Stream** stream, ConvProblem* p) {
  SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, kOp, -1, 1, 4, stream));
  if (call->num_inputs < 2 || call->num_inputs > 3) {
    return OpError(kOp, StrCat("expects 2 or 3 input tensors (x, weight, "
                               "bias) but the call has ", call->num_inputs,
                               "; the call does not match the op's schema"));
  }
  p->dtype = dtype;
  p->has_bias = call->num_inputs == 3;
  const char* const names[] = {"input 'x'", "input 'weight'", "input 'bias'"};
  for (int i = 0; i < call->num_inputs; ++i) {
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->inputs[i], kOp, names[i], dtype, **stream));
  }
  const sy_tensor_view_t& x = call->inputs[0];
  const sy_tensor_view_t& w = call->inputs[1];
  const sy_tensor_view_t& y = call->outputs[0];
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(y, kOp, "output", dtype, **stream));
  SY_PLUGIN_RETURN_IF_ERROR(ReadPair(call, 0, "stride", 1, p->stride));
  SY_PLUGIN_RETURN_IF_ERROR(ReadPair(call, 1, "padding", 0, p->padding));
  SY_PLUGIN_RETURN_IF_ERROR(ReadPair(call, 2, "dilation", 1, p->dilation));
  SY_PLUGIN_RETURN_IF_ERROR(ReadInt(call, 3, kOp, "groups", p->groups));
  const int64_t g = p->groups;
  if (g < 1 || g > INT_MAX) {
    return OpError(kOp, StrCat("attribute 'groups' is ", g, "; it must be >= 1"));
  }
  if (x.ndim != 4) {
    return OpError(kOp, StrCat("input 'x' has shape ", ShapeToString(Shape(x)),
                               " but must have rank 4: [N, C, H, W]"));
  }
  if (w.ndim != 4) {
    return OpError(kOp, StrCat("input 'weight' has shape ",
                               ShapeToString(Shape(w)), " but must have rank "
                               "4: [C_out, C_in / groups, kH, kW]"));
  }
  for (int d = 0; d < 4; ++d) {
    p->x[d] = x.shape[d];
    p->w[d] = w.shape[d];
  }
  if (p->x[1] % g != 0 || p->w[0] % g != 0 || p->w[1] * g != p->x[1]) {
    return OpError(kOp, StrCat("input 'x' has shape ", ShapeToString(Shape(x)),
                               " and 'weight' ", ShapeToString(Shape(w)),
                               " with groups=", g, "; C and C_out must be "
                               "multiples of groups and weight's second dim "
                               "must be C / groups"));
  }
  if (p->w[2] < 1 || p->w[3] < 1) {
    return OpError(kOp, StrCat("input 'weight' has shape ",
                               ShapeToString(Shape(w)),
                               ", an empty kernel; kernel sizes must be >= 1"));
  }
  if (p->has_bias) {
    const sy_tensor_view_t& b = call->inputs[2];
    if (b.ndim != 1 || b.shape[0] != p->w[0]) {
      return OpError(kOp, StrCat("input 'bias' has shape ",
                                 ShapeToString(Shape(b)),
                                 "; pass a bias of shape [", p->w[0], "]"));
    }
  }
  p->y[0] = p->x[0];
  p->y[1] = p->w[0];
  for (int d = 0; d < 2; ++d) {
    const int64_t span = p->dilation[d] * (p->w[2 + d] - 1) + 1;
    const int64_t padded = p->x[2 + d] + 2 * p->padding[d];
    if (padded < span) {
      return OpError(kOp, StrCat("the output ", d == 0 ? "height" : "width",
                                 " would be 0: the padded input is ", padded,
                                 " but the dilated kernel spans ", span,
                                 "; pad more, or use a smaller kernel or "
                                 "dilation"));
    }
    p->y[2 + d] = (padded - span) / p->stride[d] + 1;
  }
  for (int d = 0; d < 4; ++d) {
    if (y.ndim != 4 || y.shape[d] != p->y[d]) {
      return OpError(kOp, StrCat("the output has shape ",
                                 ShapeToString(Shape(y)), " but the call "
                                 "gives ", ShapeToString(p->y), "; allocate "
                                 "it from the op's shape function"));
    }
  }
  return nullptr;
}

// Descriptors destroyed when the call returns.
struct Descriptors {
  const CudnnLibrary& lib;
  std::vector<cudnnTensorDescriptor_t> tensors;
  cudnnFilterDescriptor_t filter = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  explicit Descriptors(const CudnnLibrary& l) : lib(l) {}
  ~Descriptors() {
    for (cudnnTensorDescriptor_t t : tensors) lib.cudnnDestroyTensorDescriptor(t);
    if (filter != nullptr) lib.cudnnDestroyFilterDescriptor(filter);
    if (conv != nullptr) lib.cudnnDestroyConvolutionDescriptor(conv);
  }
};

// Stream-ordered temporaries freed when the call returns.
struct Temporaries {
  cudaStream_t stream = nullptr;
  std::vector<void*> buffers;
  ~Temporaries() {
    for (void* b : buffers) cudaFreeAsync(b, stream);
  }
  sy_error_t* Allocate(size_t bytes, std::string_view what, void** out) {
    SY_PLUGIN_RETURN_IF_ERROR(CudaError(cudaMallocAsync(out, bytes, stream),
                                        StrCat("cuda plugin: ", kOp), what));
    buffers.push_back(*out);
    return nullptr;
  }
};

// A packed NCHW 4-d tensor descriptor.
sy_error_t* TensorDesc(Descriptors& d, sy_dtype_t dtype, const int64_t* shape,
                       std::string_view what,
                       cudnnTensorDescriptor_t* out) {
  int dims[4], st[4];
  int64_t dense = 1;
  for (int i = 3; i >= 0; --i) {
    if (shape[i] > INT_MAX || dense > INT_MAX) {
      return OpError(kOp, StrCat(what, " has shape ", ShapeToString({shape, 4}),
                                 ", too large for cuDNN's 32-bit tensor "
                                 "descriptors; split the batch"));
    }
    dims[i] = static_cast<int>(shape[i]);
    st[i] = static_cast<int>(dense);
    dense *= shape[i];
  }
  SY_PLUGIN_RETURN_IF_ERROR(CudnnError(
      d.lib, d.lib.cudnnCreateTensorDescriptor(out), kOp,
      "cudnnCreateTensorDescriptor failed"));
  d.tensors.push_back(*out);
  return CudnnError(d.lib,
                    d.lib.cudnnSetTensorNdDescriptor(*out, CudnnType(dtype), 4,
                                                     dims, st),
                    kOp, StrCat("describing ", what, " failed"));
}

// The element strides of a packed (row-major) 4-d tensor of `shape`.
void PackedStrides(const int64_t* shape, int64_t* strides) {
  int64_t next = 1;
  for (int i = 3; i >= 0; --i) {
    strides[i] = next;
    next *= shape[i];
  }
}

// A packed NCHW pointer to a 4-d tensor (`shape`, element `strides`): the
// data itself when it is already packed, else a temporary filled by
// CopyStrided4d.
sy_error_t* Packed(Temporaries& temps, const void* data, const int64_t* shape,
                   const int64_t* strides, sy_dtype_t dtype,
                   std::string_view what, const void** out) {
  int64_t dense[4];
  PackedStrides(shape, dense);
  int64_t n = 1;
  bool packed = true;
  for (int i = 0; i < 4; ++i) {
    if (shape[i] != 1 && strides[i] != dense[i]) packed = false;
    n *= shape[i];
  }
  if (packed || n == 0) {
    *out = data;
    return nullptr;
  }
  void* copy = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(temps.Allocate(
      n * plugin::DtypeSize(dtype),
      StrCat("allocating a contiguous copy of ", what, " failed"), &copy));
  SY_PLUGIN_RETURN_IF_ERROR(CudaError(
      CopyStrided4d(data, strides, copy, dense, shape, plugin::DtypeSize(dtype),
                    temps.stream),
      StrCat("cuda plugin: ", kOp), StrCat("packing ", what, " failed")));
  *out = copy;
  return nullptr;
}

// cuDNN's ranked algorithms per problem, cached (never evicted: one small
// entry per distinct shape, like the GEMM plans).
struct AlgoCache {
  std::mutex mu;
  std::map<std::string, std::vector<cudnnConvolutionFwdAlgoPerf_t>> ranked;
};

AlgoCache& Algos() {
  static AlgoCache* cache = new AlgoCache;  // outlives static destructors
  return *cache;
}

std::string ProblemKey(int device, const ConvProblem& p) {
  return StrCat(device, "/", static_cast<int>(p.dtype), "/",
                ShapeToString(p.x), ShapeToString(p.w), ShapeToString(p.stride),
                ShapeToString(p.padding), ShapeToString(p.dilation), p.groups);
}

// The most workspace the one-time search lets an algorithm use.
constexpr size_t kSearchWorkspaceBytes = size_t{256} << 20;

// cuDNN's algorithms for problem `p`, fastest first: timed once per problem
// with cudnnFindConvolutionForwardAlgorithmEx on the call's own buffers (it
// writes the output, which the call then overwrites), falling back to the
// heuristic ranking (cudnnGetConvolutionForwardAlgorithm_v7) when the
// search fails. Cached per problem.
sy_error_t* RankedAlgos(const CudnnLibrary& lib, cudnnHandle_t h,
                        const Stream& stream, const ConvProblem& p,
                        cudnnTensorDescriptor_t x, const void* x_data,
                        cudnnFilterDescriptor_t w, const void* w_data,
                        cudnnConvolutionDescriptor_t conv,
                        cudnnTensorDescriptor_t y, void* y_data,
                        std::vector<cudnnConvolutionFwdAlgoPerf_t>* out) {
  const std::string key = ProblemKey(stream.device, p);
  {
    std::lock_guard<std::mutex> lock(Algos().mu);
    auto it = Algos().ranked.find(key);
    if (it != Algos().ranked.end()) {
      *out = it->second;
      return nullptr;
    }
  }
  int max = 0;
  SY_PLUGIN_RETURN_IF_ERROR(CudnnError(
      lib, lib.cudnnGetConvolutionForwardAlgorithmMaxCount(h, &max), kOp,
      "cudnnGetConvolutionForwardAlgorithmMaxCount failed"));
  std::vector<cudnnConvolutionFwdAlgoPerf_t> results(std::max(max, 1));
  int found = 0;
  // The search's workspace: as much as kSearchWorkspaceBytes, less when
  // the device is short of memory (algorithms that need more are skipped).
  size_t free_bytes = 0, total_bytes = 0;
  (void)cudaMemGetInfo(&free_bytes, &total_bytes);
  size_t ws_bytes = std::min(kSearchWorkspaceBytes, free_bytes / 4);
  void* ws = nullptr;
  if (ws_bytes > 0 && cudaMallocAsync(&ws, ws_bytes, stream.stream) != cudaSuccess) {
    (void)cudaGetLastError();
    ws = nullptr;
    ws_bytes = 0;
  }
  cudnnStatus_t st = lib.cudnnFindConvolutionForwardAlgorithmEx(
      h, x, x_data, w, w_data, conv, y, y_data,
      static_cast<int>(results.size()), &found, results.data(), ws, ws_bytes);
  if (ws != nullptr) cudaFreeAsync(ws, stream.stream);
  if (st != CUDNN_STATUS_SUCCESS || found == 0) {
    SY_PLUGIN_RETURN_IF_ERROR(CudnnError(
        lib, lib.cudnnGetConvolutionForwardAlgorithm_v7(
                 h, x, w, conv, y, static_cast<int>(results.size()), &found,
                 results.data()),
        kOp, "cuDNN's algorithm heuristic failed"));
    for (int i = 0; i < found; ++i) results[i].time = -1;  // not measured
  }
  results.resize(found);
  std::erase_if(results, [&](const cudnnConvolutionFwdAlgoPerf_t& r) {
    // f32 must never run on TF32 tensor cores (docs/cuda.md).
    return r.status != CUDNN_STATUS_SUCCESS ||
           (p.dtype == SY_DTYPE_F32 && r.mathType != CUDNN_FMA_MATH &&
            r.mathType != CUDNN_DEFAULT_MATH);
  });
  std::lock_guard<std::mutex> lock(Algos().mu);
  Algos().ranked.emplace(key, results);
  *out = std::move(results);
  return nullptr;
}

sy_error_t* Conv2dImpl(const sy_kernel_call_t* call, sy_dtype_t dtype) {
  Stream* stream = nullptr;
  ConvProblem p;
  SY_PLUGIN_RETURN_IF_ERROR(Prepare(call, dtype, &stream, &p));
  const sy_tensor_view_t& y = call->outputs[0];
  if (plugin::NumElements(y) == 0) return nullptr;  // N, C_out or a size is 0
  const CudnnLibrary* lib_ptr = CudnnLibrary::Get(nullptr);
  if (lib_ptr == nullptr) {
    return MakeError(SY_STATUS_FAILED_PRECONDITION,
                     "cuda plugin: conv2d: cuDNN is not loaded; install "
                     "cuDNN 9 or run conv2d on cpu");
  }
  const CudnnLibrary& lib = *lib_ptr;
  CudnnHandleLease handle;
  SY_PLUGIN_RETURN_IF_ERROR(handle.Acquire(lib, *stream, kOp));
  const cudnnHandle_t h = handle.get();
  Descriptors d(lib);
  Temporaries temps{stream->stream, {}};
  const float one = 1.0f, zero = 0.0f;

  // The output, packed: in place, or a temporary copied back at the end.
  cudnnTensorDescriptor_t y_desc = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(TensorDesc(d, dtype, p.y, "the output", &y_desc));
  const bool y_packed = plugin::IsContiguous(y);
  void* y_data = DataPtr<char>(y);
  if (!y_packed) {
    SY_PLUGIN_RETURN_IF_ERROR(temps.Allocate(
        plugin::NumElements(y) * plugin::DtypeSize(dtype),
        "allocating a temporary output failed", &y_data));
  }

  if (p.x[1] == 0) {
    // No input channels: the output is the bias (or zeros).
    SY_PLUGIN_RETURN_IF_ERROR(CudnnError(
        lib, lib.cudnnSetTensor(h, y_desc, y_data, &zero), kOp,
        "zeroing the output failed"));
  } else {
    const void* x_data = nullptr;
    const void* w_data = nullptr;
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t& w = call->inputs[1];
    SY_PLUGIN_RETURN_IF_ERROR(Packed(temps, DataPtr<const char>(x), p.x,
                                     x.strides, dtype, "input 'x'", &x_data));
    SY_PLUGIN_RETURN_IF_ERROR(Packed(temps, DataPtr<const char>(w), p.w,
                                     w.strides, dtype, "input 'weight'", &w_data));
    cudnnTensorDescriptor_t x_desc = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(TensorDesc(d, dtype, p.x, "input 'x'", &x_desc));
    for (int i = 0; i < 4; ++i) {
      if (p.w[i] > INT_MAX) {
        return OpError(kOp, StrCat("input 'weight' has shape ",
                                   ShapeToString(p.w), ", too large for "
                                   "cuDNN's 32-bit descriptors"));
      }
    }
    SY_PLUGIN_RETURN_IF_ERROR(CudnnError(
        lib, lib.cudnnCreateFilterDescriptor(&d.filter), kOp,
        "cudnnCreateFilterDescriptor failed"));
    SY_PLUGIN_RETURN_IF_ERROR(CudnnError(
        lib, lib.cudnnSetFilter4dDescriptor(
                 d.filter, CudnnType(dtype), CUDNN_TENSOR_NCHW,
                 static_cast<int>(p.w[0]), static_cast<int>(p.w[1]),
                 static_cast<int>(p.w[2]), static_cast<int>(p.w[3])),
        kOp, "describing input 'weight' failed"));
    SY_PLUGIN_RETURN_IF_ERROR(CudnnError(
        lib, lib.cudnnCreateConvolutionDescriptor(&d.conv), kOp,
        "cudnnCreateConvolutionDescriptor failed"));
    SY_PLUGIN_RETURN_IF_ERROR(CudnnError(
        lib, lib.cudnnSetConvolution2dDescriptor(
                 d.conv, static_cast<int>(p.padding[0]),
                 static_cast<int>(p.padding[1]), static_cast<int>(p.stride[0]),
                 static_cast<int>(p.stride[1]), static_cast<int>(p.dilation[0]),
                 static_cast<int>(p.dilation[1]), CUDNN_CROSS_CORRELATION,
                 CUDNN_DATA_FLOAT),
        kOp, "describing the convolution failed"));
    SY_PLUGIN_RETURN_IF_ERROR(CudnnError(
        lib, lib.cudnnSetConvolutionGroupCount(d.conv, static_cast<int>(p.groups)),
        kOp, "setting groups failed"));
    const cudnnMathType_t base_math =
        dtype == SY_DTYPE_F32 ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
    SY_PLUGIN_RETURN_IF_ERROR(CudnnError(
        lib, lib.cudnnSetConvolutionMathType(d.conv, base_math), kOp,
        "setting the math type failed"));
    std::vector<cudnnConvolutionFwdAlgoPerf_t> algos;
    SY_PLUGIN_RETURN_IF_ERROR(RankedAlgos(lib, h, *stream, p, x_desc, x_data,
                                          d.filter, w_data, d.conv, y_desc,
                                          y_data, &algos));
    // The first algorithm (in cuDNN's order) whose workspace we can get
    // and that runs.
    cudnnStatus_t last = CUDNN_STATUS_NOT_SUPPORTED;
    bool done = false;
    for (const cudnnConvolutionFwdAlgoPerf_t& a : algos) {
      if (dtype != SY_DTYPE_F32) {
        // Half types: the math type the heuristic ranked the algorithm with.
        lib.cudnnSetConvolutionMathType(d.conv, a.mathType);
      }
      // The search measured each algorithm's workspace (perf.memory); ask
      // only for heuristic results, where it is an estimate.
      size_t bytes = a.memory;
      if (a.time < 0 &&
          lib.cudnnGetConvolutionForwardWorkspaceSize(
              h, x_desc, d.filter, d.conv, y_desc, a.algo, &bytes) !=
              CUDNN_STATUS_SUCCESS) {
        continue;
      }
      void* workspace = nullptr;
      if (bytes > 0) {
        if (cudaMallocAsync(&workspace, bytes, stream->stream) != cudaSuccess) {
          (void)cudaGetLastError();  // too large now: try the next one
          continue;
        }
        temps.buffers.push_back(workspace);
      }
      last = lib.cudnnConvolutionForward(h, &one, x_desc, x_data, d.filter,
                                         w_data, d.conv, a.algo, workspace,
                                         bytes, &zero, y_desc, y_data);
      if (last == CUDNN_STATUS_SUCCESS) {
        done = true;
        break;
      }
      if (static_cast<int>(last) / 1000 * 1000 != CUDNN_STATUS_NOT_SUPPORTED) {
        break;
      }
    }
    if (!done) {
      if (last == CUDNN_STATUS_SUCCESS) last = CUDNN_STATUS_NOT_SUPPORTED;
      return CudnnError(lib, last, kOp,
                        StrCat("no cuDNN algorithm ran for x ",
                               ShapeToString(p.x), ", weight ",
                               ShapeToString(p.w), " (", algos.size(),
                               " ranked)"));
    }
  }

  if (p.has_bias) {
    const sy_tensor_view_t& b = call->inputs[2];
    const int64_t shape[4] = {1, p.w[0], 1, 1};
    const int64_t strides[4] = {0, b.strides[0], 0, 0};
    const void* b_data = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(Packed(temps, DataPtr<const char>(b), shape,
                                     strides, dtype, "input 'bias'", &b_data));
    cudnnTensorDescriptor_t b_desc = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(
        TensorDesc(d, dtype, shape, "input 'bias'", &b_desc));
    SY_PLUGIN_RETURN_IF_ERROR(CudnnError(
        lib, lib.cudnnAddTensor(h, &one, b_desc, b_data, &one, y_desc, y_data),
        kOp, "adding the bias failed"));
  }
  if (!y_packed) {
    int64_t dense[4];
    PackedStrides(p.y, dense);
    SY_PLUGIN_RETURN_IF_ERROR(CudaError(
        CopyStrided4d(y_data, dense, DataPtr<char>(y), y.strides, p.y,
                      plugin::DtypeSize(dtype), stream->stream),
        StrCat("cuda plugin: ", kOp), "writing the strided output failed"));
  }
  return CheckLaunched(kOp);
}

template <sy_dtype_t D>
sy_error_t* Conv2dKernel(const sy_kernel_call_t* call) {
  return plugin::Guard("cuda plugin: conv2d", [&] { return Conv2dImpl(call, D); });
}

template <sy_dtype_t D>
void AddFor(KernelList& list) {
  list.Add(kOp, DtypeList<D, D, D>, Conv2dKernel<D>);
  list.Add(kOp, DtypeList<D, D, SY_DTYPE_NONE>, Conv2dKernel<D>);
}

}  // namespace

std::span<const plugin::KernelSpec> Conv2dKernels() {
  static const KernelList* list = [] {
    auto* l = new KernelList;
    AddFor<SY_DTYPE_F32>(*l);
    AddFor<SY_DTYPE_F16>(*l);
    AddFor<SY_DTYPE_BF16>(*l);
    return l;
  }();
  return list->specs();
}

}  // namespace sy::cuda
