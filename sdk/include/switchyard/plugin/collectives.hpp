// Header-only helpers for plugins that implement collectives (plugin.h,
// SY_EXTENSION_COLLECTIVES; ABI 1.2): what the cpu plugin (Gloo) and the
// cuda plugin (NCCL) would otherwise each write — the op list and each
// op's attribute positions, reading the communicator attribute, the
// reductions, the rendezvous store as std::string, the message of an
// engine failure. Not ABI: inline code over plugin.h.
#ifndef SWITCHYARD_PLUGIN_COLLECTIVES_HPP_
#define SWITCHYARD_PLUGIN_COLLECTIVES_HPP_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "switchyard/plugin.h"
#include "switchyard/plugin/errors.hpp"
#include "switchyard/plugin/kernels.hpp"
#include "switchyard/plugin/views.hpp"

namespace sy::plugin {

// The collective ops of the core op set, their schemas' attribute
// positions (kernels read attrs[k…]) and tensor arguments.
namespace collective {
inline constexpr std::string_view kAllReduce = "all_reduce";
inline constexpr std::string_view kAllGather = "all_gather";
inline constexpr std::string_view kReduceScatter = "reduce_scatter";
inline constexpr std::string_view kBroadcast = "broadcast";
inline constexpr std::string_view kSend = "send";
inline constexpr std::string_view kRecv = "recv";
inline constexpr std::string_view kBarrier = "barrier";
// Every op's first attribute is `comm`; then all_reduce/reduce_scatter:
// op (str); broadcast: root; send/recv: peer; recv: shape, dtype.
inline constexpr int kCommAttr = 0;
inline constexpr int kSecondAttr = 1;
}  // namespace collective

// The reductions (the schemas' `op` strings; the shape functions already
// refused any other).
enum class Reduction { kSum, kProd, kMax, kMin, kAvg };

inline std::optional<Reduction> ParseReduction(std::string_view name) {
  if (name == "sum") return Reduction::kSum;
  if (name == "prod") return Reduction::kProd;
  if (name == "max") return Reduction::kMax;
  if (name == "min") return Reduction::kMin;
  if (name == "avg") return Reduction::kAvg;
  return std::nullopt;
}

// The communicator of a collective kernel call (attribute kCommAttr),
// which must have been made by `owner` (this plugin's extension for the
// call's device type): another plugin's handle is opaque.
inline sy_error_t* ReadCommunicator(const sy_kernel_call_t* call,
                                    KernelSite site,
                                    const sy_collectives_extension_t* owner,
                                    const sy_communicator_ref_t*& out) {
  if (call->num_attrs <= collective::kCommAttr) {
    return OpError(site, "the call has no communicator attribute");
  }
  const sy_attr_t& a = call->attrs[collective::kCommAttr];
  if (a.kind != SY_ATTR_COMMUNICATOR || a.value.comm == nullptr) {
    return internal::KindError(site, "comm", a.kind, "a communicator");
  }
  if (a.value.comm->owner != owner) {
    return OpError(site, StrCat("the communicator was made by another "
                                "plugin's engine (",
                                a.value.comm->owner != nullptr &&
                                        a.value.comm->owner->engine != nullptr
                                    ? a.value.comm->owner->engine
                                    : "?",
                                "); call the op on that plugin's device"));
  }
  out = a.value.comm;
  return nullptr;
}

// A view's first byte and its size in bytes (the engines move whole
// buffers).
inline char* BufferOf(const sy_tensor_view_t& v) noexcept {
  return static_cast<char*>(v.data) + v.byte_offset;
}
inline size_t BytesOf(const sy_tensor_view_t& v) noexcept {
  return static_cast<size_t>(NumElements(v)) * DtypeSize(v.dtype);
}

// Engines read and write whole buffers: every view of the call must be
// contiguous.
inline sy_error_t* RequireContiguous(const sy_kernel_call_t* call,
                                     KernelSite site) {
  for (int32_t i = 0; i < call->num_inputs; ++i) {
    if (!IsContiguous(call->inputs[i])) {
      return OpError(site, "input 'x' is not contiguous; collectives move "
                           "whole buffers: call contiguous() first");
    }
  }
  for (int32_t i = 0; i < call->num_outputs; ++i) {
    if (!IsContiguous(call->outputs[i])) {
      return OpError(site, "the output is not contiguous; pass a contiguous "
                           "output tensor");
    }
  }
  return nullptr;
}

// "all_reduce on rank 1 of 4 (nccl)", for messages.
inline std::string DescribeCall(KernelSite site,
                                const sy_communicator_ref_t& comm,
                                std::string_view engine) {
  return StrCat(site.op, " on rank ", comm.rank, " of ", comm.world_size,
                " (", engine, ")");
}

// The error of an engine that failed during a collective: what it said,
// and what usually causes it.
inline sy_error_t* EngineError(sy_status_code_t code, KernelSite site,
                               const sy_communicator_ref_t& comm,
                               std::string_view engine,
                               std::string_view what) {
  return MakeError(
      code, StrCat(site.plugin, ": ", DescribeCall(site, comm, engine), ": ",
                   what, "; a peer may have died or timed out (",
                   comm.timeout_ms, " ms), or called another collective or "
                   "shape: every rank must call the same collectives in the "
                   "same order with the same shapes and dtypes"));
}

// The store's value of `key` (waiting up to the communicator's timeout).
inline sy_error_t* StoreGet(const sy_collective_store_t* store,
                            const std::string& key, std::string& out) {
  size_t size = 0;
  out.resize(64);
  while (true) {
    if (sy_error_t* e = store->get(store->self, key.c_str(), out.data(),
                                   out.size(), &size, 0)) {
      return e;
    }
    if (size <= out.size()) break;
    out.resize(size);
  }
  out.resize(size);
  return nullptr;
}

inline sy_error_t* StoreSet(const sy_collective_store_t* store,
                            const std::string& key, std::string_view value) {
  return store->set(store->self, key.c_str(), value.data(), value.size());
}

}  // namespace sy::plugin

#endif  // SWITCHYARD_PLUGIN_COLLECTIVES_HPP_
