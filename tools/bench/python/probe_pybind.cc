// The binding-cost probe, pybind11 side (Debian's pybind11-dev): the same
// `add(a, b)` over sy_op_call as probe_capi.cc, written the idiomatic
// pybind11 way (a py::class_ holder, typed arguments). bench_binding.py
// times both. Not part of the package.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <stdexcept>

#include "switchyard/switchyard.h"

namespace py = pybind11;

namespace {

sy_op_t g_op = nullptr;

struct ProbeTensor {
  explicit ProbeTensor(sy_tensor_t h) : handle(h) {}
  ProbeTensor(const ProbeTensor&) = delete;
  ~ProbeTensor() { sy_tensor_release(handle); }
  sy_tensor_t handle;
};

void Check(sy_status_code_t status) {
  if (status != SY_STATUS_OK) throw py::value_error(sy_last_error_message());
}

}  // namespace

PYBIND11_MODULE(_probe_pybind, m) {
  py::class_<ProbeTensor>(m, "Tensor");
  m.def("wrap", [](uint64_t h) {
    auto handle = reinterpret_cast<sy_tensor_t>(h);
    Check(sy_tensor_retain(handle));
    return new ProbeTensor(handle);
  });
  m.def("set_op", [](uint64_t h) { g_op = reinterpret_cast<sy_op_t>(h); });
  m.def("add", [](const ProbeTensor& a, const ProbeTensor& b) {
    const sy_tensor_t inputs[2] = {a.handle, b.handle};
    sy_tensor_t out;
    Check(sy_op_call(g_op, inputs, 2, nullptr, 0, &out, 1));
    return new ProbeTensor(out);
  });
  m.def("noop", [](const ProbeTensor&, const ProbeTensor&) {});
}
