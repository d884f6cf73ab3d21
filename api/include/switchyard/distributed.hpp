// switchyard/distributed.hpp — the C++ layer over switchyard/distributed.h:
// a communicator that destroys itself, and the attribute that passes it to
// a collective op. Included by switchyard.hpp; header-only, like it.
//
//   auto comm = sy::Communicator::Create(
//       device, {.rank = 0, .world_size = 2, .rendezvous = "tcp://127.0.0.1:29500"});
//   sy::Tensor y = all_reduce.call({x}, {comm->attr(), "sum"}).value()[0];
//
// Thread-safety, errors and lifetimes are the C functions' (distributed.h).
#ifndef SWITCHYARD_DISTRIBUTED_HPP_
#define SWITCHYARD_DISTRIBUTED_HPP_

#include <chrono>
#include <string>
#include <utility>

#include "switchyard/base.hpp"
#include "switchyard/device.hpp"
#include "switchyard/distributed.h"
#include "switchyard/op.hpp"
#include "switchyard/tensor.hpp"

namespace sy {

class Communicator {
 public:
  struct Options {
    int rank = 0;
    int world_size = 1;
    std::string rendezvous;  // "file:///dir" or "tcp://host:port"
    std::chrono::milliseconds timeout{0};  // 0: the default, 60 s
  };

  // Joins the group (blocks until every rank arrived); see
  // sy_communicator_create.
  static Result<Communicator> Create(const Device& device, const Options& options) {
    sy_communicator_args_t args;
    sy_communicator_args_init(&args);
    args.device = device.get();
    args.rank = options.rank;
    args.world_size = options.world_size;
    args.rendezvous = options.rendezvous.c_str();
    args.timeout_ms = options.timeout.count();
    sy_communicator_t handle = nullptr;
    if (sy_status_code_t code = sy_communicator_create(&args, &handle);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return Communicator(handle);
  }

  Communicator() = default;
  Communicator(Communicator&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)) {}
  Communicator& operator=(Communicator&& other) noexcept {
    if (this != &other) {
      destroy();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  ~Communicator() { destroy(); }

  sy_communicator_t get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

  // The attribute for a collective op's `comm` argument.
  Attr attr() const {
    Attr a;
    static_cast<sy_attr_t&>(a) = sy_attr_communicator(handle_);
    return a;
  }

  Result<sy_communicator_info_t> info() const {
    sy_communicator_info_t i{};
    i.struct_size = sizeof i;
    if (sy_status_code_t code = sy_communicator_get_info(handle_, &i);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return i;
  }

  // Destroys it now (the destructor does otherwise); a second call is a
  // no-op.
  Status destroy() {
    if (handle_ == nullptr) return Status();
    return Status::FromCode(sy_communicator_destroy(std::exchange(handle_, nullptr)));
  }

 private:
  explicit Communicator(sy_communicator_t handle) : handle_(handle) {}
  sy_communicator_t handle_ = nullptr;
};

}  // namespace sy

#endif  // SWITCHYARD_DISTRIBUTED_HPP_
