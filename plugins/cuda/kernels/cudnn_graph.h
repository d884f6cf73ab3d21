// A thin C++ layer over cuDNN's graph (backend) API (cudnn_graph.h), as
// the plugin uses it for conv2d and attention: descriptors that free
// themselves, attribute setters that turn a failure into the plugin's
// error, engine configurations from the heuristics, and execution plans
// with their workspace size. No cudnn-frontend (not packaged here): the
// graphs are spelled out by their users (conv2d.cc, attention_cudnn.cc).
//
// Every function takes the loaded library (cudnn_library.h) and names
// `op` in its errors. Thread safety: descriptors are plain objects; a plan
// may be executed by one thread at a time with the handle it was built
// with (CudnnHandleLease serializes that per device).
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_CUDNN_GRAPH_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_CUDNN_GRAPH_H_

#include <cudnn.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cudnn_library.h"
#include "switchyard/plugin.h"

namespace sy::cuda {

// One backend descriptor, destroyed with the object.
class CudnnDesc {
 public:
  CudnnDesc() = default;
  CudnnDesc(const CudnnLibrary* lib, cudnnBackendDescriptor_t d) : lib_(lib), d_(d) {}
  ~CudnnDesc() { Reset(); }
  CudnnDesc(CudnnDesc&& o) noexcept : lib_(o.lib_), d_(o.d_) { o.d_ = nullptr; }
  CudnnDesc& operator=(CudnnDesc&& o) noexcept {
    if (this != &o) {
      Reset();
      lib_ = o.lib_;
      d_ = o.d_;
      o.d_ = nullptr;
    }
    return *this;
  }
  CudnnDesc(const CudnnDesc&) = delete;
  CudnnDesc& operator=(const CudnnDesc&) = delete;

  cudnnBackendDescriptor_t get() const { return d_; }
  void Reset() {
    if (d_ != nullptr) lib_->cudnnBackendDestroyDescriptor(d_);
    d_ = nullptr;
  }

 private:
  const CudnnLibrary* lib_ = nullptr;
  cudnnBackendDescriptor_t d_ = nullptr;
};

// Builds descriptors for one graph; every step names `op` in its error.
class CudnnBuilder {
 public:
  CudnnBuilder(const CudnnLibrary& lib, std::string_view op) : lib_(lib), op_(op) {}

  const CudnnLibrary& lib() const { return lib_; }
  std::string_view op() const { return op_; }

  // NULL for success; else an error (as CudnnError), whose text and code
  // also stay in last_error() and last_code(): a plan cache keeps those,
  // as it cannot keep an error object.
  sy_error_t* Check(cudnnStatus_t status, std::string_view what) const;
  const std::string& last_error() const { return last_error_; }
  sy_status_code_t last_code() const { return last_code_; }

  sy_error_t* Create(cudnnBackendDescriptorType_t type, CudnnDesc* out) const;
  sy_error_t* Set(const CudnnDesc& d, cudnnBackendAttributeName_t name,
                  cudnnBackendAttributeType_t type, int64_t count,
                  const void* values) const;
  sy_error_t* SetDesc(const CudnnDesc& d, cudnnBackendAttributeName_t name,
                      const CudnnDesc& value) const {
    cudnnBackendDescriptor_t v = value.get();
    return Set(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v);
  }
  sy_error_t* Finalize(const CudnnDesc& d, std::string_view what) const;

  // A tensor: `dims` and element `strides` (same length, 3..8), unique id
  // `uid`. Virtual tensors live only inside a graph; by-value tensors are
  // scalars passed through the variant pack as host pointers.
  struct TensorSpec {
    int64_t uid = 0;
    cudnnDataType_t type = CUDNN_DATA_FLOAT;
    std::vector<int64_t> dims, strides;
    bool is_virtual = false;
    bool by_value = false;
    int64_t alignment = 16;
  };
  sy_error_t* Tensor(const TensorSpec& spec, CudnnDesc* out) const;

  // A pointwise operation y = mode(x [, b [, t]]) computed in `math`.
  // axis >= 0 sets CUDNN_ATTR_POINTWISE_AXIS (GEN_INDEX).
  sy_error_t* Pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t math,
                        const CudnnDesc& x, const CudnnDesc* b,
                        const CudnnDesc* t, const CudnnDesc& y, CudnnDesc* out,
                        int64_t axis = -1) const;

 private:
  const CudnnLibrary& lib_;
  std::string op_;
  mutable std::string last_error_;
  mutable sy_status_code_t last_code_ = SY_STATUS_OK;
};

// A built execution plan and what running it needs.
struct CudnnPlan {
  CudnnDesc plan;
  int64_t workspace = 0;
  std::string engine;  // "engine 12" for messages and logs
};

// The operation graph of `ops` for `handle`.
sy_error_t* MakeOperationGraph(const CudnnBuilder& b, cudnnHandle_t handle,
                               std::span<const CudnnDesc* const> ops,
                               CudnnDesc* out);

// Engine configurations for `graph` from heuristics mode A, then B and
// FALLBACK for engines A did not return (and once more with the device's
// properties descriptor when none returns any), best first, without those whose engine carries a
// numerical note in `refused_notes` (TENSOR_CORE and DOWN_CONVERT_INPUTS
// for f32: no TF32). At most `max` are returned; none is not an error.
sy_error_t* EngineConfigs(const CudnnBuilder& b, cudnnHandle_t handle,
                          const CudnnDesc& graph,
                          std::span<const cudnnBackendNumericalNote_t> refused_notes,
                          int max, std::vector<CudnnDesc>* out);

// The plan of one engine configuration. NOT_SUPPORTED comes back as an
// error like any other: the caller tries the next configuration.
sy_error_t* MakePlan(const CudnnBuilder& b, cudnnHandle_t handle,
                     const CudnnDesc& config, CudnnPlan* out);

// Runs `plan` with the tensors `uids` at `pointers` (device pointers; host
// pointers for by-value tensors) and `workspace` (plan.workspace bytes).
// Destroys an error the caller will not return (NULL is fine).
void DropError(sy_error_t* error);

sy_error_t* ExecutePlan(const CudnnBuilder& b, cudnnHandle_t handle,
                        const CudnnPlan& plan, std::span<const int64_t> uids,
                        std::span<void* const> pointers, void* workspace);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_CUDNN_GRAPH_H_
