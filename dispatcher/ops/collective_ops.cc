// Shape functions of the collective ops: all_reduce all_gather
// reduce_scatter broadcast send recv barrier (docs/distributed.md). They
// read the world size and rank from the Communicator argument, which
// binding has checked (a live communicator on the inputs' device).
//
// Every op returns a tensor, as every schema of v1 does: send and barrier
// return an empty one (shape [0]) that only says "enqueued", like a JAX
// token; recv makes a tensor of the shape and dtype it is told.
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "dispatcher/ops/absl_compat.h"
#include "dispatcher/ops/core_op_families.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/ops/shape_context.h"
#include "dispatcher/ops/shape_util.h"

namespace sy::core::op_set {
namespace {

constexpr int kX = 0;

const sy_communicator_ref_t& Comm(const ShapeContext& ctx, int j) {
  return *ctx.attr(j).value.comm;
}

// The reductions every engine has (NCCL's ncclRedOp_t, Gloo's functions).
absl::Status CheckReduction(const ShapeContext& ctx, int j) {
  const std::string_view op = ctx.string_attr(j);
  if (op == "sum" || op == "prod" || op == "max" || op == "min" ||
      op == "avg") {
    return absl::OkStatus();
  }
  return ctx.AttrError(j, absl::StrCat("is '", AsAbsl(op),
                                       "', an unknown reduction; use one of "
                                       "sum, prod, max, min, avg"));
}

// A rank argument (root, peer) must name a rank of the communicator; a
// peer must not be the caller itself (NCCL and Gloo would wait forever).
absl::Status CheckRank(const ShapeContext& ctx, int j, int comm, bool peer) {
  const sy_communicator_ref_t& c = Comm(ctx, comm);
  const int64_t r = ctx.int_attr(j);
  if (r < 0 || r >= c.world_size) {
    return ctx.AttrError(j, absl::StrCat("is ", r, ", not a rank of the "
                                         "communicator (world size ",
                                         c.world_size, "); use 0..",
                                         c.world_size - 1));
  }
  if (peer && r == c.rank) {
    return ctx.AttrError(j, absl::StrCat("is ", r, ", this process's own rank; "
                                         "send to and receive from another "
                                         "rank"));
  }
  return absl::OkStatus();
}

absl::Status AllReduceShape(const ShapeContext& ctx,
                            absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kOp = 1;
  if (absl::Status s = RequireNotBool(ctx, kX); !s.ok()) return s;
  if (absl::Status s = CheckReduction(ctx, kOp); !s.ok()) return s;
  outputs[0] = ctx.tensor(kX);
  return absl::OkStatus();
}

absl::Status AllGatherShape(const ShapeContext& ctx,
                            absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kComm = 0;
  const sy_tensor_meta_t& x = ctx.tensor(kX);
  const int64_t world = Comm(ctx, kComm).world_size;
  sy_tensor_meta_t out = x;
  if (x.ndim == 0) {
    out.ndim = 1;
    out.shape[0] = world;
  } else {
    out.shape[0] = x.shape[0] * world;  // CheckOutputMetas bounds the size
    if (x.shape[0] != 0 && out.shape[0] / world != x.shape[0]) {
      return ctx.TensorError(kX, "is too large to gather from every rank");
    }
  }
  outputs[0] = out;
  return absl::OkStatus();
}

absl::Status ReduceScatterShape(const ShapeContext& ctx,
                                absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kComm = 0, kOp = 1;
  if (absl::Status s = RequireNotBool(ctx, kX); !s.ok()) return s;
  if (absl::Status s = CheckReduction(ctx, kOp); !s.ok()) return s;
  if (absl::Status s = RequireMinRank(ctx, kX, 1); !s.ok()) return s;
  const sy_tensor_meta_t& x = ctx.tensor(kX);
  const int64_t world = Comm(ctx, kComm).world_size;
  if (x.shape[0] % world != 0) {
    return ctx.TensorError(
        kX, absl::StrCat("has ", x.shape[0], " rows (dim 0), which the world "
                         "size ", world, " does not divide; every rank gets "
                         "an equal share, so pad dim 0 to a multiple of ",
                         world));
  }
  outputs[0] = x;
  outputs[0].shape[0] = x.shape[0] / world;
  return absl::OkStatus();
}

absl::Status BroadcastShape(const ShapeContext& ctx,
                            absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kComm = 0, kRoot = 1;
  if (absl::Status s = CheckRank(ctx, kRoot, kComm, false); !s.ok()) return s;
  outputs[0] = ctx.tensor(kX);
  return absl::OkStatus();
}

sy_tensor_meta_t Token(sy_dtype_t dtype) {
  sy_tensor_meta_t meta{};
  meta.dtype = dtype;
  meta.ndim = 1;
  meta.shape[0] = 0;
  return meta;
}

absl::Status SendShape(const ShapeContext& ctx,
                       absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kComm = 0, kPeer = 1;
  if (absl::Status s = CheckRank(ctx, kPeer, kComm, true); !s.ok()) return s;
  outputs[0] = Token(ctx.tensor(kX).dtype);
  return absl::OkStatus();
}

absl::Status RecvShape(const ShapeContext& ctx,
                       absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kComm = 0, kPeer = 1, kShape = 2, kDType = 3;
  if (absl::Status s = CheckRank(ctx, kPeer, kComm, true); !s.ok()) return s;
  const absl::Span<const int64_t> shape = ctx.ints_attr(kShape);
  if (shape.size() > SY_MAX_RANK) {
    return ctx.AttrError(kShape, absl::StrCat("has ", shape.size(),
                                              " dims; at most ", SY_MAX_RANK));
  }
  sy_tensor_meta_t out{};
  out.dtype = ctx.dtype_attr(kDType);
  if (!IsValidDType(out.dtype)) {
    return ctx.AttrError(kDType, "is not a valid dtype; use one of f32 f64 "
                                 "f16 bf16 i32 i64 i8 u8 bool");
  }
  out.ndim = static_cast<int32_t>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      return ctx.AttrError(kShape, absl::StrCat("is ", FormatShape(shape),
                                                "; sizes must be >= 0"));
    }
    out.shape[d] = shape[d];
  }
  outputs[0] = out;
  return absl::OkStatus();
}

absl::Status BarrierShape(const ShapeContext&,
                          absl::Span<sy_tensor_meta_t> outputs) {
  outputs[0] = Token(SY_DTYPE_U8);
  return absl::OkStatus();
}

constexpr OpKind kC = OpKind::kCollective;
constexpr CoreOpDef kOps[] = {
    {"all_reduce(Tensor x, Communicator comm, str op=\"sum\") -> Tensor",
     &Checked<AllReduceShape>, kC},
    {"all_gather(Tensor x, Communicator comm) -> Tensor",
     &Checked<AllGatherShape>, kC},
    {"reduce_scatter(Tensor x, Communicator comm, str op=\"sum\") -> Tensor",
     &Checked<ReduceScatterShape>, kC},
    {"broadcast(Tensor x, Communicator comm, int root=0) -> Tensor",
     &Checked<BroadcastShape>, kC},
    {"send(Tensor x, Communicator comm, int peer) -> Tensor",
     &Checked<SendShape>, kC},
    {"recv(Communicator comm, int peer, int[] shape, ScalarType dtype) -> "
     "Tensor",
     &Checked<RecvShape>, kC},
    {"barrier(Communicator comm) -> Tensor", &Checked<BarrierShape>, kC},
};

}  // namespace

absl::Span<const CoreOpDef> CollectiveOps() { return kOps; }

}  // namespace sy::core::op_set
