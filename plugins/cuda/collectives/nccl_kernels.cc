// The collective ops' cuda kernels: one NCCL call each, enqueued on the
// call's stream (NCCL's own algorithms and transports: NVLink, PCIe,
// InfiniBand, sockets). avg is ncclAvg; barrier is an all-reduce of one
// int in kernel workspace (NCCL has no barrier), ordered on the stream like
// every other op. The ranks are not checked to call the same op with the
// same sizes (NCCL cannot say; the cpu plugin can, Note [Gloo call
// agreement]): a mismatch waits until the watchdog's timeout (Note [NCCL
// watchdog]).
#include <string_view>

#include "collectives/nccl_comm.h"
#include "switchyard/gpu/kernel_util.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {
namespace {

using plugin::BufferOf;
using plugin::BytesOf;
using plugin::KernelSite;
using plugin::Reduction;
namespace col = plugin::collective;

constexpr std::string_view kPlugin = "cuda plugin";

ncclDataType_t NcclType(sy_dtype_t dtype) {
  switch (dtype) {
    case SY_DTYPE_F32: return ncclFloat32;
    case SY_DTYPE_F64: return ncclFloat64;
    case SY_DTYPE_F16: return ncclFloat16;
    case SY_DTYPE_BF16: return ncclBfloat16;
    case SY_DTYPE_I32: return ncclInt32;
    case SY_DTYPE_I64: return ncclInt64;
    case SY_DTYPE_I8: return ncclInt8;
    default: return ncclUint8;  // u8, and bool (one byte each)
  }
}

ncclRedOp_t NcclOp(const sy_kernel_call_t* call) {
  const sy_attr_t& a = call->attrs[col::kSecondAttr];
  switch (*plugin::ParseReduction({a.value.str.data, static_cast<size_t>(a.value.str.size)})) {
    case Reduction::kSum: return ncclSum;
    case Reduction::kProd: return ncclProd;
    case Reduction::kMax: return ncclMax;
    case Reduction::kMin: return ncclMin;
    case Reduction::kAvg: return ncclAvg;
  }
  return ncclSum;
}

size_t Count(const sy_tensor_view_t& v) {
  return static_cast<size_t>(plugin::NumElements(v));
}

// The checks every collective makes, then `enqueue(comm, stream)`.
template <class F>
sy_error_t* Collective(const sy_kernel_call_t* call, std::string_view op,
                       int num_inputs, F&& enqueue) {
  const KernelSite site{kPlugin, op};
  return plugin::Guard(kPlugin, [&]() -> sy_error_t* {
    gpu::Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(
        gpu::BeginCall(call, op, num_inputs, 1, call->num_attrs, &stream));
    const sy_communicator_ref_t* ref = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(
        plugin::ReadCommunicator(call, site, &kCudaCollectivesExtension, ref));
    SY_PLUGIN_RETURN_IF_ERROR(plugin::RequireContiguous(call, site));
    auto& comm = *static_cast<NcclComm*>(ref->handle);
    if (stream->device != comm.device()) {
      return plugin::OpError(site, plugin::StrCat(
          "the call runs on cuda:", stream->device, " but the communicator is "
          "bound to cuda:", comm.device()));
    }
    return enqueue(comm, *ref, site, stream->stream);
  });
}

sy_error_t* AllReduceKernel(const sy_kernel_call_t* call) {
  return Collective(call, col::kAllReduce, 1, [&](NcclComm& comm, const auto& ref,
                                                  KernelSite site, cudaStream_t s) {
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t& out = call->outputs[0];
    if (Count(x) == 0) return static_cast<sy_error_t*>(nullptr);
    return comm.Enqueue(site, ref, s, [&](ncclComm_t c) {
      return comm.lib().ncclAllReduce(BufferOf(x), BufferOf(out), Count(x),
                                      NcclType(x.dtype), NcclOp(call), c, s);
    });
  });
}

sy_error_t* ReduceScatterKernel(const sy_kernel_call_t* call) {
  return Collective(call, col::kReduceScatter, 1, [&](NcclComm& comm, const auto& ref,
                                                      KernelSite site, cudaStream_t s) {
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t& out = call->outputs[0];
    if (Count(out) == 0) return static_cast<sy_error_t*>(nullptr);
    return comm.Enqueue(site, ref, s, [&](ncclComm_t c) {
      return comm.lib().ncclReduceScatter(BufferOf(x), BufferOf(out), Count(out),
                                          NcclType(x.dtype), NcclOp(call), c, s);
    });
  });
}

sy_error_t* AllGatherKernel(const sy_kernel_call_t* call) {
  return Collective(call, col::kAllGather, 1, [&](NcclComm& comm, const auto& ref,
                                                  KernelSite site, cudaStream_t s) {
    const sy_tensor_view_t& x = call->inputs[0];
    if (BytesOf(x) == 0) return static_cast<sy_error_t*>(nullptr);
    return comm.Enqueue(site, ref, s, [&](ncclComm_t c) {
      return comm.lib().ncclAllGather(BufferOf(x), BufferOf(call->outputs[0]), BytesOf(x),
                                      ncclUint8, c, s);
    });
  });
}

sy_error_t* BroadcastKernel(const sy_kernel_call_t* call) {
  return Collective(call, col::kBroadcast, 1, [&](NcclComm& comm, const auto& ref,
                                                  KernelSite site, cudaStream_t s) {
    const sy_tensor_view_t& x = call->inputs[0];
    const int root = static_cast<int>(call->attrs[col::kSecondAttr].value.i);
    if (BytesOf(x) == 0) return static_cast<sy_error_t*>(nullptr);
    return comm.Enqueue(site, ref, s, [&](ncclComm_t c) {
      return comm.lib().ncclBroadcast(BufferOf(x), BufferOf(call->outputs[0]), BytesOf(x),
                                      ncclUint8, root, c, s);
    });
  });
}

sy_error_t* SendKernel(const sy_kernel_call_t* call) {
  return Collective(call, col::kSend, 1, [&](NcclComm& comm, const auto& ref,
                                             KernelSite site, cudaStream_t s) {
    const sy_tensor_view_t& x = call->inputs[0];
    const int peer = static_cast<int>(call->attrs[col::kSecondAttr].value.i);
    if (BytesOf(x) == 0) return static_cast<sy_error_t*>(nullptr);
    return comm.Enqueue(site, ref, s, [&](ncclComm_t c) {
      return comm.lib().ncclSend(BufferOf(x), BytesOf(x), ncclUint8, peer, c, s);
    });
  });
}

sy_error_t* RecvKernel(const sy_kernel_call_t* call) {
  return Collective(call, col::kRecv, 0, [&](NcclComm& comm, const auto& ref,
                                             KernelSite site, cudaStream_t s) {
    const sy_tensor_view_t& out = call->outputs[0];
    const int peer = static_cast<int>(call->attrs[col::kSecondAttr].value.i);
    if (BytesOf(out) == 0) return static_cast<sy_error_t*>(nullptr);
    return comm.Enqueue(site, ref, s, [&](ncclComm_t c) {
      return comm.lib().ncclRecv(BufferOf(out), BytesOf(out), ncclUint8, peer, c, s);
    });
  });
}

sy_error_t* BarrierKernel(const sy_kernel_call_t* call) {
  return Collective(call, col::kBarrier, 0, [&](NcclComm& comm, const auto& ref,
                                                KernelSite site, cudaStream_t s) {
    void* scratch = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(plugin::Workspace(call, sizeof(int32_t), &scratch));
    return comm.Enqueue(site, ref, s, [&](ncclComm_t c) {
      return comm.lib().ncclAllReduce(scratch, scratch, 1, ncclInt32, ncclSum, c, s);
    });
  });
}

constexpr sy_dtype_t kAll[] = {SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16,
                               SY_DTYPE_BF16, SY_DTYPE_I32, SY_DTYPE_I64,
                               SY_DTYPE_I8,  SY_DTYPE_U8,  SY_DTYPE_BOOL};

}  // namespace

std::span<const plugin::KernelSpec> CollectiveKernels() {
  static const plugin::KernelList list = [] {
    plugin::KernelList l(gpu::ThisTarget().priority);
    for (const sy_dtype_t& d : kAll) {
      const std::span<const sy_dtype_t> one(&d, 1);
      if (d != SY_DTYPE_BOOL) {
        l.Add(col::kAllReduce, one, AllReduceKernel);
        l.Add(col::kReduceScatter, one, ReduceScatterKernel);
      }
      l.Add(col::kAllGather, one, AllGatherKernel);
      l.Add(col::kBroadcast, one, BroadcastKernel);
      l.Add(col::kSend, one, SendKernel);
    }
    l.Add(col::kRecv, std::span<const sy_dtype_t>(), RecvKernel);
    l.Add(col::kBarrier, std::span<const sy_dtype_t>(), BarrierKernel);
    return l;
  }();
  return list.specs();
}

}  // namespace sy::cuda
