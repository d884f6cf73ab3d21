#include "sdk/conformance/tool/plugin_only_backend.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace sy::conformance {
namespace {

using op_harness::AttrValue;
using op_harness::BackendUnderTest;
using op_harness::CallMode;
using op_harness::DeviceTensor;
using op_harness::RefTensor;
using op_harness::Result;
using op_harness::Status;

class PluginOnlyBackend : public BackendUnderTest {
 public:
  PluginOnlyBackend(std::unique_ptr<BackendUnderTest> inner, std::string plugin,
                    bool provides_device, KernelsByOp kernels)
      : inner_(std::move(inner)), plugin_(std::move(plugin)),
        provides_device_(provides_device), kernels_(std::move(kernels)) {}

  std::string DeviceLabel() const override { return inner_->DeviceLabel(); }
  uint32_t FloatFlags() const override { return inner_->FloatFlags(); }
  Result<DeviceTensor> Upload(const RefTensor& host) override {
    return inner_->Upload(host);
  }
  Result<RefTensor> Download(const DeviceTensor& tensor) override {
    return inner_->Download(tensor);
  }

  Result<std::vector<DeviceTensor>> Call(std::string_view op,
                                         std::span<const DeviceTensor> inputs,
                                         std::span<const AttrValue> attrs,
                                         std::span<const int32_t> list_sizes,
                                         CallMode mode) override {
    const std::string name(op);  // absl::StrCat takes no std::string_view
    if (mode == CallMode::kDecomposed && !provides_device_) {
      return Status::Error(
          SY_STATUS_UNIMPLEMENTED,
          absl::StrCat("not registered by ", plugin_, ": the decomposition of ",
                       name, " would run the device provider's kernels, not ",
                       plugin_, "'s"));
    }
    if (mode == CallMode::kDispatch) {
      const std::string how = inner_->Explain(op, inputs, attrs, list_sizes);
      if (std::string refusal = Refusal(name, how); !refusal.empty()) {
        // The plugin's own kernel for these inputs, by name, if one takes
        // them.
        std::string declined;
        if (auto it = kernels_.find(name); it != kernels_.end()) {
          for (const std::string& kernel : it->second) {
            Result<std::string> named =
                inner_->ExplainKernel(op, inputs, attrs, list_sizes, kernel);
            if (named.ok()) {
              return inner_->CallKernel(op, inputs, attrs, list_sizes, kernel);
            }
            if (named.status().code == SY_STATUS_FAILED_PRECONDITION) {
              declined = named.status().message;  // it serves them but declines
            }
          }
        }
        if (!declined.empty()) {
          return Status::Error(
              SY_STATUS_UNIMPLEMENTED,
              absl::StrCat("not registered by ", plugin_, " for these inputs: ", declined,
                           " (a plugin option may lower its threshold: "
                           "--option plugin.name=value)"));
        }
        return Status::Error(SY_STATUS_UNIMPLEMENTED, std::move(refusal));
      }
    }
    return inner_->Call(op, inputs, attrs, list_sizes, mode);
  }

  std::string Explain(std::string_view op, std::span<const DeviceTensor> inputs,
                      std::span<const AttrValue> attrs,
                      std::span<const int32_t> list_sizes) override {
    return inner_->Explain(op, inputs, attrs, list_sizes);
  }

 private:
  // "" when the call may go through, else why not. `how` is the runtime's
  // Explain: "kernel p::name (why)", "view", "decomposition", "cpu
  // fallback" — each perhaps followed by "; declined: …" — or the error
  // the call would return.
  std::string Refusal(const std::string& op, const std::string& explained) const {
    const std::string how = explained.substr(0, explained.find("; declined: "));
    if (absl::StartsWith(how, "kernel ")) {
      if (absl::StartsWith(how, absl::StrCat("kernel ", plugin_, "::"))) return "";
      return absl::StrCat("not registered by ", plugin_, ": ", op,
                          " with these dtypes runs ", explained);
    }
    // Views run no kernel (the core computes the layout), and the harness
    // makes its transposed, strided and broadcast inputs with them.
    if (how == "view") return "";
    // On the plugin's own device a decomposition runs only its kernels.
    if (how == "decomposition" && provides_device_) return "";
    if (how == "decomposition" || how == "cpu fallback") {
      return absl::StrCat("not registered by ", plugin_, ": ", op,
                          " with these dtypes has no kernel of ", plugin_,
                          " and would run as a ", how);
    }
    return "";  // an error: let the call return it
  }

  std::unique_ptr<BackendUnderTest> inner_;
  std::string plugin_;
  bool provides_device_;
  KernelsByOp kernels_;
};

}  // namespace

std::unique_ptr<op_harness::BackendUnderTest> MakePluginOnlyBackend(
    std::unique_ptr<op_harness::BackendUnderTest> inner, std::string plugin,
    bool plugin_provides_device, KernelsByOp kernels) {
  return std::make_unique<PluginOnlyBackend>(std::move(inner), std::move(plugin),
                                             plugin_provides_device, std::move(kernels));
}

}  // namespace sy::conformance
