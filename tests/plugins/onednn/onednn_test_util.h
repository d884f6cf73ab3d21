// Shared pieces of the onednn plugin tests: a runtime with the cpu and
// onednn plugins, random tensors held as float64 values of their dtype,
// view helpers, float64 references and the comparison.
#ifndef SWITCHYARD_TESTS_PLUGINS_ONEDNN_ONEDNN_TEST_UTIL_H_
#define SWITCHYARD_TESTS_PLUGINS_ONEDNN_ONEDNN_TEST_UTIL_H_

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dispatcher/runtime/runtime.h"
#include "gtest/gtest.h"

namespace sy::onednn_test {
using namespace ::sy::core;  // NOLINT: until this file uses the public API only

// A host tensor: row-major float64 values (already rounded to `dtype`).
struct HostTensor {
  sy_dtype_t dtype = SY_DTYPE_F32;
  std::vector<int64_t> shape;
  std::vector<double> values;
  int64_t numel() const;
};

// The runtime the tests share: cpu + onednn loaded from the build's plugin
// folder, nothing from the environment. Created once per process.
Runtime& TestRuntime();
Device& Cpu();
OpHandle Op(const char* name);

// True when oneDNN registers bf16 kernels on this machine: the CPU reports
// avx512_bf16 (or AMX) and DNNL_MAX_CPU_ISA does not cap it.
bool ExpectBf16Kernels();

// The seed of this test run: SWITCHYARD_ONEDNN_TEST_SEED or a fresh random
// one, printed so that a failure reproduces.
uint32_t Seed();

// Uniform values in [lo, hi], rounded to `dtype` (f32 or bf16).
HostTensor Random(std::mt19937& gen, sy_dtype_t dtype,
                  std::vector<int64_t> shape, double lo = -2, double hi = 2);

// Rounds a double to what `dtype` stores.
double RoundTo(sy_dtype_t dtype, double value);

Tensor Upload(const HostTensor& host);
HostTensor Download(const Tensor& tensor);

// The same values in a non-contiguous layout: uploaded with the dims
// reversed and permuted back (every stride differs from row-major).
Tensor UploadTransposed(const HostTensor& host);
// The last dim uploaded padded to 2n+1 with NaN between the values, then
// sliced with step 2: an offset and a stride, and a kernel that reads the
// gaps returns NaN.
Tensor UploadStrided(const HostTensor& host);

// Calls `op` and returns its single output, failing the test on error.
Tensor CallOne(const char* op, std::vector<Tensor> inputs,
               std::vector<Attr> attrs = {});

// "kernel onednn::matmul.f32.f32 (priority)" …
std::string Explain(const char* op, std::vector<Tensor> inputs,
                    std::vector<Attr> attrs = {});

// ---- float64 references ----------------------------------------------------
// out[..., n] = sum_k x[..., k] w[n, k] (+ b[n]); `scale` gets, per output,
// the L2 norm of the summed terms (for the tolerance).
HostTensor RefLinear(const HostTensor& x, const HostTensor& w,
                     const HostTensor* b, std::vector<double>* scale);
// NumPy matmul for rank >= 2 operands with broadcast batch dims.
HostTensor RefMatmul(const HostTensor& a, const HostTensor& b,
                     std::vector<double>* scale);
// NCHW, padding/stride/dilation per dim, groups.
HostTensor RefConv2d(const HostTensor& x, const HostTensor& w,
                     const HostTensor* b, std::vector<int64_t> stride,
                     std::vector<int64_t> padding,
                     std::vector<int64_t> dilation, int64_t groups,
                     std::vector<double>* scale);
double Gelu(double x, bool tanh_form);

// Expects |got − want| ≤ atol + rtol·|want| + acc·scale[i] everywhere
// (scale may be empty), printing the first mismatches and `context`.
void ExpectNear(const HostTensor& got, const HostTensor& want,
                const std::vector<double>& scale, double rtol, double atol,
                double acc, const std::string& context);

// Tolerances: f32 contractions 1e-5 (relative and of the L2 scale);
// bf16 2·2⁻⁷, as docs/testing.md.
double ContractionTol(sy_dtype_t dtype);

}  // namespace sy::onednn_test

#endif  // SWITCHYARD_TESTS_PLUGINS_ONEDNN_ONEDNN_TEST_UTIL_H_
