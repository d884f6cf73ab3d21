#include "fused/spirv_compiler.h"

#include <shaderc/shaderc.hpp>

#include <cstring>
#include <memory>

namespace sy::vulkan::fusion {
namespace {

// Serves the embedded library; anything else is an error of the generator.
class LibraryIncluder : public shaderc::CompileOptions::IncluderInterface {
 public:
  shaderc_include_result* GetInclude(const char* requested, shaderc_include_type,
                                     const char*, size_t) override {
    auto* result = new Result;
    const char* text = FindGlslLibraryFile(requested);
    if (text != nullptr) {
      result->name = requested;
      result->text = text;
    } else {
      // An empty source_name tells shaderc the include failed; content is
      // the message.
      result->text = std::string("no file '") + requested + "' in the vulkan plugin's shader library";
    }
    result->source_name = result->name.c_str();
    result->source_name_length = result->name.size();
    result->content = result->text.c_str();
    result->content_length = result->text.size();
    result->user_data = result;
    return result;
  }
  void ReleaseInclude(shaderc_include_result* data) override {
    delete static_cast<Result*>(data->user_data);
  }

 private:
  struct Result : shaderc_include_result {
    std::string name, text;
  };
};

}  // namespace

bool CompileGlsl(const std::string& source, const std::string& name,
                 std::vector<uint32_t>* spirv, std::string* error) {
  shaderc::Compiler compiler;
  if (!compiler.IsValid()) {
    *error = "shaderc could not create a compiler";
    return false;
  }
  shaderc::CompileOptions options;
  options.SetTargetEnvironment(shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_2);
  options.SetOptimizationLevel(shaderc_optimization_level_performance);
  options.SetIncluder(std::make_unique<LibraryIncluder>());
  const shaderc::SpvCompilationResult result =
      compiler.CompileGlslToSpv(source, shaderc_compute_shader, name.c_str(), options);
  if (result.GetCompilationStatus() != shaderc_compilation_status_success) {
    *error = "shaderc could not compile the generated GLSL of '" + name +
             "' (a bug in the vulkan plugin's generator; please report it with "
             "the graph): " + result.GetErrorMessage();
    return false;
  }
  spirv->assign(result.cbegin(), result.cend());
  return true;
}

std::string ShadercVersion() {
  unsigned int version = 0, revision = 0;
  shaderc_get_spv_version(&version, &revision);
  return "shaderc (SPIR-V " + std::to_string((version >> 16) & 0xff) + "." +
         std::to_string((version >> 8) & 0xff) + " r" + std::to_string(revision) + ")";
}

}  // namespace sy::vulkan::fusion
