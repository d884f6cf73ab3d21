// sy_communicator_*: communicators for collective ops (distributed.h).
#include <chrono>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "api/src/context_state.h"
#include "api/src/handle_table.h"
#include "api/src/lookups.h"
#include "api/src/status.h"
#include "dispatcher/collectives/communicator.h"

namespace sy::capi {
namespace {

constexpr int64_t kDefaultTimeoutMs = 60000;

absl::StatusOr<CommunicatorObject*> CommOf(sy_communicator_t handle) {
  return HandleTable::Instance().Find<CommunicatorObject>(Token(handle),
                                                          "comm");
}

}  // namespace

absl::StatusOr<const sy_communicator_ref_t*> CommunicatorRefIn(
    const ContextState* context, int64_t token, absl::string_view what) {
  const HandleTable& table = HandleTable::Instance();
  const auto t = static_cast<uint64_t>(token);
  HandleObject* object = table.TryFind(t, HandleKind::kCommunicator);
  if (object == nullptr) return table.FindError(t, HandleKind::kCommunicator, what);
  if (object->context != context) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " (", TokenText(t), ") belongs to another context; make the "
        "communicator on a device of the op's context"));
  }
  return &static_cast<CommunicatorObject*>(object)->comm->ref();
}

}  // namespace sy::capi

using sy::capi::CheckNotNull;
using sy::capi::Guard;

extern "C" {

SY_API sy_status_code_t sy_communicator_create(
    const sy_communicator_args_t* args, sy_communicator_t* out_comm) {
  return Guard("sy_communicator_create", [&]() -> absl::Status {
    if (args == nullptr) return CheckNotNull(args, "args");
    if (absl::Status s = sy::capi::CheckStructSize(
            args->struct_size, SY_STRUCT_SIZE(sy_communicator_args_t, timeout_ms),
            "args", "sy_communicator_args_t");
        !s.ok()) {
      return s;
    }
    if (absl::Status s = CheckNotNull(out_comm, "out_comm"); !s.ok()) return s;
    sy::capi::ContextState* context = nullptr;
    absl::StatusOr<sy::core::Device*> device =
        sy::capi::LiveDeviceOf(args->device, &context);
    if (!device.ok()) return device.status();
    if (args->rendezvous == nullptr) {
      return absl::InvalidArgumentError(
          "args->rendezvous is NULL; pass \"file:///dir\" or "
          "\"tcp://host:port\"");
    }
    if (args->timeout_ms < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "args->timeout_ms is ", args->timeout_ms,
          "; pass milliseconds > 0, or 0 for the default (60000)"));
    }
    sy::core::CommunicatorOptions options;
    options.rank = args->rank;
    options.world_size = args->world_size;
    options.rendezvous = args->rendezvous;
    options.timeout = std::chrono::milliseconds(
        args->timeout_ms > 0 ? args->timeout_ms : sy::capi::kDefaultTimeoutMs);
    absl::StatusOr<std::shared_ptr<sy::core::Communicator>> comm =
        sy::core::Communicator::Create(**device, options);
    if (!comm.ok()) return comm.status();
    absl::StatusOr<uint64_t> token = sy::capi::HandleTable::Instance().Add(
        new sy::capi::CommunicatorObject(context->shared_from_this(),
                                         *std::move(comm)));
    if (!token.ok()) return token.status();
    *out_comm = sy::capi::FromToken<sy_communicator_t>(*token);
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_communicator_destroy(sy_communicator_t comm) {
  return Guard("sy_communicator_destroy", [&]() -> absl::Status {
    absl::StatusOr<sy::capi::CommunicatorObject*> found = sy::capi::CommOf(comm);
    if (!found.ok()) return found.status();
    sy::capi::HandleTable::Instance().Discard(sy::capi::Token(comm));
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_communicator_get_info(
    sy_communicator_t comm, sy_communicator_info_t* out_info) {
  return Guard("sy_communicator_get_info", [&]() -> absl::Status {
    absl::StatusOr<sy::capi::CommunicatorObject*> found = sy::capi::CommOf(comm);
    if (!found.ok()) return found.status();
    if (absl::Status s = sy::capi::CheckOutStruct(
            out_info, SY_STRUCT_SIZE(sy_communicator_info_t, timeout_ms),
            "out_info", "sy_communicator_info_t");
        !s.ok()) {
      return s;
    }
    const sy::core::Communicator& c = *(*found)->comm;
    absl::StatusOr<uint64_t> device =
        (*found)->keep_context->DeviceHandle(&c.device());
    if (!device.ok()) return device.status();
    sy_communicator_info_t info{};
    info.rank = c.rank();
    info.world_size = c.world_size();
    info.device = sy::capi::FromToken<sy_device_handle_t>(*device);
    info.engine = c.engine();
    info.rendezvous = c.rendezvous().c_str();
    info.timeout_ms = c.ref().timeout_ms;
    sy::capi::WriteOutStruct(out_info, info);
    return absl::OkStatus();
  });
}

}  // extern "C"
