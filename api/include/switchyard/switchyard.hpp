// Switchyard — a header-only C++ layer over the C API (switchyard.h), as
// oneDNN's dnnl.hpp is over dnnl.h: the same library, the same rules
// (handles, threads, lifetimes: see switchyard.h), with RAII handles,
// result types and vectors instead of counts and out-parameters.
//
//   auto ctx = sy::Context::Create().value();         // discovers plugins
//   sy::Device cpu = ctx.device("cpu").value();
//   sy::Tensor x = sy::Tensor::FromVector<float>(cpu, {2, 3}, {1, 2, 3, 4, 5, 6}).value();
//   sy::Op relu = ctx.op("relu").value();             // once
//   sy::Result<std::vector<sy::Tensor>> y = relu.call({x});
//   if (!y.ok()) std::cerr << y.status().message() << "\n";
//   std::vector<float> values = (*y)[0].ToVector<float>().value();
//
// Needs C++20 (std::span) and links libswitchyard.so (CMake:
// Switchyard::api). Nothing here throws: every call that can fail returns
// sy::Status or sy::Result<T>, which carry the C API's code and message.
// Result::value() on an error prints the message and aborts (as
// absl::StatusOr::value() in a build without exceptions); test ok() first
// or use value_or(). Getters of a handle whose context was destroyed
// return zero values (SY_DTYPE_NONE, empty shapes, "").
//
// Ownership: Context owns its sy_context_t (destroyed with it; move-only).
// Tensor owns one reference to its sy_tensor_t (copying retains, destruction
// releases). Device and Op are plain handles that belong to their context
// (nothing to release) and must not be used after it is destroyed. Every
// class is as thread-safe as the C functions it calls: objects may be used
// from several threads, but one object must not be assigned to while
// another thread uses it.
//
// The classes live in one header per area, which this one includes (as
// switchyard.h includes the C API's); include this one:
//   switchyard/base.hpp         sy::Status, sy::Result, versions, dtypes
//   switchyard/logging.hpp      the log and traces
//   switchyard/device.hpp       sy::Device
//   switchyard/tensor.hpp       sy::Tensor
//   switchyard/op.hpp           sy::Op, sy::Attr, routes, kernels
//   switchyard/context.hpp      sy::Context, options, load records
//   switchyard/graph.hpp        sy::Graph, sy::GraphCapture
//   switchyard/distributed.hpp  sy::Communicator
#ifndef SWITCHYARD_SWITCHYARD_HPP_
#define SWITCHYARD_SWITCHYARD_HPP_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "switchyard/switchyard.h"

#include "switchyard/base.hpp"         // sy::Status, sy::Result, versions
#include "switchyard/logging.hpp"      // the log, traces
#include "switchyard/device.hpp"       // sy::Device
#include "switchyard/tensor.hpp"       // sy::Tensor
#include "switchyard/op.hpp"           // sy::Op, sy::Attr
#include "switchyard/context.hpp"      // sy::Context
#include "switchyard/graph.hpp"        // sy::Graph, sy::GraphCapture
#include "switchyard/distributed.hpp"  // sy::Communicator

#endif  // SWITCHYARD_SWITCHYARD_HPP_
