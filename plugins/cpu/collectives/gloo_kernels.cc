// The collective ops' cpu kernels, over Gloo's algorithms: allreduce (ring),
// allgather, broadcast, barrier, and unbound buffers for send/recv.
// reduce_scatter is Gloo's allreduce followed by keeping this rank's share,
// as torch.distributed's Gloo backend does (Gloo's own reduce-scatter takes
// only sum and product of float vectors). avg is a sum divided by the
// world size afterwards (integers divide truncating, as NCCL's ncclAvg).
//
// Note [Gloo call agreement]: Gloo ends the process (an enforce on its I/O
// thread) when two ranks pass buffers of different sizes to one
// operation. So before each collective the ranks all-gather a 32-byte
// header (op, dtype, elements, reduction, root) and refuse the call, all of
// them alike, when the headers differ; send and recv exchange the header
// and an answer before the data. It costs one small message per call — the
// price of an error instead of a crash on cpu. (NCCL has no such failure:
// the cuda plugin does not check.)
#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/gloo_comm.h"
#include "gloo/allgather.h"
#include "gloo/allreduce.h"
#include "gloo/barrier.h"
#include "gloo/broadcast.h"
#include "gloo/common/error.h"
#include "gloo/types.h"
#include "kernels/kernel_list.h"
#include "kernels/elementwise_engine.h"
#include "kernels/kernel_util.h"

namespace sy::cpu {
namespace {

using plugin::KernelSite;
using plugin::Reduction;
namespace col = plugin::collective;

constexpr std::string_view kPlugin = "cpu plugin";
// Send/recv buffers' slot: above every slot Gloo's collectives derive from
// their tags (Slot::build puts a prefix byte under bit 56).
constexpr uint64_t kP2PSlot = uint64_t{1} << 62;

// What one rank calls (Note [Gloo call agreement]).
struct Header {
  uint32_t magic = 0x53594331;  // "SYC1"
  uint32_t op = 0;              // index into kOpNames
  int32_t dtype = 0;
  int32_t reduction = -1;
  int64_t elements = 0;
  int64_t root = -1;
  bool operator==(const Header&) const = default;
};
static_assert(sizeof(Header) == 32);

constexpr std::string_view kOpNames[] = {col::kAllReduce, col::kAllGather,
                                         col::kReduceScatter, col::kBroadcast,
                                         col::kSend, col::kBarrier};
constexpr std::string_view kReductionNames[] = {"sum", "prod", "max", "min",
                                                "avg"};

std::string Describe(const Header& h) {
  if (h.magic != Header{}.magic || h.op >= std::size(kOpNames)) {
    return "something that is not a Switchyard collective";
  }
  std::string text(kOpNames[h.op]);
  if (h.reduction >= 0 && h.reduction < 5) {
    text = plugin::StrCat(text, "(", kReductionNames[h.reduction], ")");
  }
  if (h.op == 5) return text;  // barrier
  text = plugin::StrCat(text, " of ", h.elements, " ",
                        plugin::DtypeName(static_cast<sy_dtype_t>(h.dtype)));
  if (h.root >= 0) text = plugin::StrCat(text, h.op == 4 ? " for rank " : " from root ", h.root);
  return text;
}

Header MakeHeader(std::string_view op, const sy_tensor_view_t* x,
                  int reduction, int64_t root) {
  Header h;
  h.op = static_cast<uint32_t>(
      std::find(std::begin(kOpNames), std::end(kOpNames), op) - std::begin(kOpNames));
  if (x != nullptr) {
    h.dtype = static_cast<int32_t>(x->dtype);
    h.elements = plugin::NumElements(*x);
  }
  h.reduction = reduction;
  h.root = root;
  return h;
}

// Thrown when the ranks disagree; every rank throws it for the same call,
// so the communicator stays usable.
struct Disagreement {
  std::string what;
};

void Agree(GlooComm& comm, const Header& mine) {
  std::vector<Header> all(static_cast<size_t>(comm.size));
  gloo::AllgatherOptions opts(comm.context);
  opts.setInput(const_cast<Header*>(&mine), 1);
  opts.setOutput(all.data(), all.size());
  opts.setTag(comm.next_tag++);
  opts.setTimeout(comm.timeout);
  gloo::allgather(opts);
  for (const Header& theirs : all) {
    if (theirs == mine) continue;
    std::string list;
    for (size_t r = 0; r < all.size(); ++r) {
      list = plugin::StrCat(list, r == 0 ? "" : ", ", "rank ", r, " ",
                            Describe(all[r]));
    }
    throw Disagreement{plugin::StrCat("the ranks called different "
                                      "collectives: ", list)};
  }
}

using plugin::BufferOf;
using plugin::BytesOf;

// Runs `body(comm, ref)` holding the communicator, turning Gloo's
// exceptions into errors and marking the communicator broken after one
// (Gloo closes the pairs of a context that failed).
template <class Body>
sy_error_t* RunCollective(const sy_kernel_call_t* call, std::string_view op,
                          Body&& body) {
  const KernelSite site{kPlugin, op};
  return plugin::Guard(kPlugin, [&]() -> sy_error_t* {
    const sy_communicator_ref_t* ref = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(
        plugin::ReadCommunicator(call, site, &kCpuCollectivesExtension, ref));
    SY_PLUGIN_RETURN_IF_ERROR(plugin::RequireContiguous(call, site));
    auto& comm = *static_cast<GlooComm*>(ref->handle);
    std::lock_guard<std::mutex> lock(comm.mu);
    if (!comm.broken.empty()) {
      return plugin::MakeError(
          SY_STATUS_FAILED_PRECONDITION,
          plugin::StrCat(kPlugin, ": ", plugin::DescribeCall(site, *ref, "gloo"),
                         ": the communicator failed earlier (", comm.broken,
                         "); destroy it and make a new one on every rank"));
    }
    try {
      body(comm);
      return nullptr;
    } catch (const Disagreement& d) {
      return plugin::MakeError(
          SY_STATUS_FAILED_PRECONDITION,
          plugin::StrCat(kPlugin, ": ", plugin::DescribeCall(site, *ref, "gloo"),
                         ": ", d.what, "; every rank must call the same "
                         "collectives in the same order with the same shapes "
                         "and dtypes"));
    } catch (const gloo::Exception& e) {
      comm.broken = e.what();
      const bool timed_out =
          std::string_view(e.what()).find("imed out") != std::string_view::npos;
      return plugin::EngineError(
          timed_out ? SY_STATUS_DEADLINE_EXCEEDED : SY_STATUS_UNAVAILABLE, site,
          *ref, "gloo", plugin::StrCat("Gloo: ", e.what()));
    }
  });
}

// c[i] = a[i] op b[i]; f16 and bf16 compute in float and round once.
template <class T, Reduction R>
void Combine(void* c, const void* a, const void* b, size_t n) {
  auto* out = static_cast<T*>(c);
  const auto* x = static_cast<const T*>(a);
  const auto* y = static_cast<const T*>(b);
  using Compute = std::conditional_t<std::is_same_v<T, plugin::Half> ||
                                         std::is_same_v<T, plugin::BFloat16>,
                                     float, T>;
  for (size_t i = 0; i < n; ++i) {
    const Compute u = static_cast<Compute>(x[i]);
    const Compute v = static_cast<Compute>(y[i]);
    Compute r;
    if constexpr (R == Reduction::kSum || R == Reduction::kAvg) {
      r = static_cast<Compute>(u + v);
    } else if constexpr (R == Reduction::kProd) {
      r = static_cast<Compute>(u * v);
    } else if constexpr (R == Reduction::kMax) {
      r = std::max(u, v);
    } else {
      r = std::min(u, v);
    }
    out[i] = static_cast<T>(r);
  }
}

template <class T>
gloo::AllreduceOptions::Func CombineFor(Reduction r) {
  switch (r) {
    case Reduction::kSum:
    case Reduction::kAvg: return &Combine<T, Reduction::kSum>;
    case Reduction::kProd: return &Combine<T, Reduction::kProd>;
    case Reduction::kMax: return &Combine<T, Reduction::kMax>;
    case Reduction::kMin: return &Combine<T, Reduction::kMin>;
  }
  return &Combine<T, Reduction::kSum>;
}

template <class T>
void DivideBy(T* data, size_t n, int divisor) {
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, plugin::Half> ||
                  std::is_same_v<T, plugin::BFloat16>) {
      data[i] = T(static_cast<float>(data[i]) / static_cast<float>(divisor));
    } else {
      data[i] = static_cast<T>(data[i] / static_cast<T>(divisor));
    }
  }
}

// Reduces `n` elements at `data` in place across the ranks.
template <class T>
void AllReduceInPlace(GlooComm& comm, T* data, size_t n, Reduction r) {
  if (n == 0) return;
  gloo::AllreduceOptions opts(comm.context);
  opts.setOutput(data, n);
  opts.setReduceFunction(CombineFor<T>(r));
  opts.setTag(comm.next_tag++);
  opts.setTimeout(comm.timeout);
  gloo::allreduce(opts);
  if (r == Reduction::kAvg) DivideBy(data, n, comm.size);
}

std::string_view ReductionName(const sy_kernel_call_t* call) {
  const sy_attr_t& a = call->attrs[col::kSecondAttr];
  return {a.value.str.data, static_cast<size_t>(a.value.str.size)};
}

template <sy_dtype_t D>
sy_error_t* AllReduceKernel(const sy_kernel_call_t* call) {
  using T = plugin::CType<D>;
  return RunCollective(call, col::kAllReduce, [&](GlooComm& comm) {
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t& out = call->outputs[0];
    const Reduction r = *plugin::ParseReduction(ReductionName(call));
    Agree(comm, MakeHeader(col::kAllReduce, &x, static_cast<int>(r), -1));
    if (BytesOf(x) > 0) std::memcpy(BufferOf(out), BufferOf(x), BytesOf(x));
    AllReduceInPlace(comm, reinterpret_cast<T*>(BufferOf(out)),
                     static_cast<size_t>(plugin::NumElements(out)), r);
  });
}

template <sy_dtype_t D>
sy_error_t* ReduceScatterKernel(const sy_kernel_call_t* call) {
  using T = plugin::CType<D>;
  return RunCollective(call, col::kReduceScatter, [&](GlooComm& comm) {
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t& out = call->outputs[0];
    const size_t n = static_cast<size_t>(plugin::NumElements(x));
    const Reduction r = *plugin::ParseReduction(ReductionName(call));
    Agree(comm, MakeHeader(col::kReduceScatter, &x, static_cast<int>(r), -1));
    if (n == 0) return;
    std::vector<T> all(n);
    std::memcpy(all.data(), BufferOf(x), BytesOf(x));
    AllReduceInPlace(comm, all.data(), n, r);
    const size_t share = n / static_cast<size_t>(comm.size);
    std::memcpy(BufferOf(out), all.data() + share * comm.rank, share * sizeof(T));
  });
}

sy_error_t* AllGatherKernel(const sy_kernel_call_t* call) {
  return RunCollective(call, col::kAllGather, [&](GlooComm& comm) {
    const sy_tensor_view_t& x = call->inputs[0];
    const size_t bytes = BytesOf(x);
    Agree(comm, MakeHeader(col::kAllGather, &x, -1, -1));
    if (bytes == 0) return;
    gloo::AllgatherOptions opts(comm.context);
    opts.setInput(reinterpret_cast<uint8_t*>(BufferOf(x)), bytes);
    opts.setOutput(reinterpret_cast<uint8_t*>(BufferOf(call->outputs[0])),
                   bytes * static_cast<size_t>(comm.size));
    opts.setTag(comm.next_tag++);
    opts.setTimeout(comm.timeout);
    gloo::allgather(opts);
  });
}

sy_error_t* BroadcastKernel(const sy_kernel_call_t* call) {
  return RunCollective(call, col::kBroadcast, [&](GlooComm& comm) {
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t& out = call->outputs[0];
    const int root = static_cast<int>(call->attrs[col::kSecondAttr].value.i);
    const size_t bytes = BytesOf(x);
    Agree(comm, MakeHeader(col::kBroadcast, &x, -1, root));
    if (bytes == 0) return;
    if (comm.rank == root) std::memcpy(BufferOf(out), BufferOf(x), bytes);
    gloo::BroadcastOptions opts(comm.context);
    opts.setOutput(reinterpret_cast<uint8_t*>(BufferOf(out)), bytes);
    opts.setRoot(root);
    opts.setTag(comm.next_tag++);
    opts.setTimeout(comm.timeout);
    gloo::broadcast(opts);
  });
}

// Gloo's waits return false when they time out.
void CheckWait(bool done, std::string_view what, int peer,
               std::chrono::milliseconds timeout) {
  if (!done) {
    throw gloo::IoException(plugin::StrCat("Timed out after ", timeout.count(),
                                           " ms waiting to ", what, " rank ",
                                           peer));
  }
}

void SendBytes(GlooComm& comm, void* data, size_t size, int peer,
               uint64_t slot) {
  auto buffer = comm.context->createUnboundBuffer(data, size);
  buffer->send(peer, slot);
  CheckWait(buffer->waitSend(comm.timeout), "send to", peer, comm.timeout);
}

void RecvBytes(GlooComm& comm, void* data, size_t size, int peer,
               uint64_t slot) {
  auto buffer = comm.context->createUnboundBuffer(data, size);
  buffer->recv(peer, slot);
  CheckWait(buffer->waitRecv(comm.timeout), "receive from", peer,
            comm.timeout);
}

// The sender's header, then the receiver's answer (what it expects), then
// the data when they agree (Note [Gloo call agreement]).
sy_error_t* SendKernel(const sy_kernel_call_t* call) {
  return RunCollective(call, col::kSend, [&](GlooComm& comm) {
    const sy_tensor_view_t& x = call->inputs[0];
    const int peer = static_cast<int>(call->attrs[col::kSecondAttr].value.i);
    Header mine = MakeHeader(col::kSend, &x, -1, peer), theirs;
    SendBytes(comm, &mine, sizeof mine, peer, kP2PSlot);
    RecvBytes(comm, &theirs, sizeof theirs, peer, kP2PSlot + 1);
    if (!(theirs == mine)) {
      throw Disagreement{plugin::StrCat("this rank sends ", Describe(mine),
                                        " but rank ", peer, " receives ",
                                        Describe(theirs))};
    }
    if (BytesOf(x) > 0) SendBytes(comm, BufferOf(x), BytesOf(x), peer, kP2PSlot + 2);
  });
}

sy_error_t* RecvKernel(const sy_kernel_call_t* call) {
  return RunCollective(call, col::kRecv, [&](GlooComm& comm) {
    const sy_tensor_view_t& out = call->outputs[0];
    const int peer = static_cast<int>(call->attrs[col::kSecondAttr].value.i);
    Header expected = MakeHeader(col::kSend, &out, -1, comm.rank), theirs;
    RecvBytes(comm, &theirs, sizeof theirs, peer, kP2PSlot);
    SendBytes(comm, &expected, sizeof expected, peer, kP2PSlot + 1);
    if (!(theirs == expected)) {
      throw Disagreement{plugin::StrCat("this rank receives ",
                                        Describe(expected), " but rank ", peer,
                                        " sends ", Describe(theirs))};
    }
    if (BytesOf(out) > 0) {
      RecvBytes(comm, BufferOf(out), BytesOf(out), peer, kP2PSlot + 2);
    }
  });
}

sy_error_t* BarrierKernel(const sy_kernel_call_t* call) {
  // The agreement's all-gather is itself a barrier.
  return RunCollective(call, col::kBarrier, [&](GlooComm& comm) {
    Agree(comm, MakeHeader(col::kBarrier, nullptr, -1, -1));
  });
}

}  // namespace

std::span<const plugin::KernelSpec> CollectiveKernels() {
  static const KernelList list = [] {
    KernelList l;
    // Reductions take every dtype but bool (the shape functions say so).
    ForEachDtype(AllDtypes{}, [&]<sy_dtype_t D> {
      if constexpr (D != SY_DTYPE_BOOL) {
        l.Add(col::kAllReduce, DtypeList<D>, AllReduceKernel<D>);
        l.Add(col::kReduceScatter, DtypeList<D>, ReduceScatterKernel<D>);
      }
    });
    ForEachDtype(AllDtypes{}, [&]<sy_dtype_t D> {
      l.Add(col::kAllGather, DtypeList<D>, AllGatherKernel);
      l.Add(col::kBroadcast, DtypeList<D>, BroadcastKernel);
      l.Add(col::kSend, DtypeList<D>, SendKernel);
    });
    l.Add(col::kRecv, std::span<const sy_dtype_t>(), RecvKernel);
    l.Add(col::kBarrier, std::span<const sy_dtype_t>(), BarrierKernel);
    return l;
  }();
  return list.specs();
}

}  // namespace sy::cpu
