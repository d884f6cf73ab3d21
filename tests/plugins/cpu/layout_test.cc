// concat and embedding through the ABI: every dtype's bytes moved intact,
// strided inputs and outputs, empty pieces, parallel-sized copies, index
// checks (an out-of-range index is an error naming value and position,
// never a read), and bad calls.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpu_fixture.h"
#include "typed_tensor.h"

namespace sy::testing {
namespace {

class LayoutTest : public CpuPluginTest {
 protected:
  Status Concat(const std::vector<const TypedTensor*>& inputs,
                const TypedTensor& out, int64_t dim) {
    const sy_dtype_t key[] = {inputs.empty() ? out.dtype()
                                             : inputs[0]->dtype()};
    const RegisteredKernel* kernel = host_->FindKernel("concat", key);
    if (kernel == nullptr) return {SY_STATUS_NOT_FOUND, "no kernel"};
    std::vector<sy_tensor_view_t> views;
    for (const TypedTensor* t : inputs) views.push_back(t->view());
    return RunCall(*kernel, views, {0, static_cast<int32_t>(views.size())},
                   out.view(), {IntAttr(dim)}, stream_);
  }
  Status Embedding(const TypedTensor& weight, const TypedTensor& indices,
                   const TypedTensor& out) {
    const sy_dtype_t key[] = {weight.dtype(), indices.dtype()};
    const RegisteredKernel* kernel = host_->FindKernel("embedding", key);
    if (kernel == nullptr) return {SY_STATUS_NOT_FOUND, "no kernel"};
    return RunCall(*kernel, {weight.view(), indices.view()}, {0, 1, 2},
                   out.view(), {}, stream_);
  }
};

// The reference: out[..., at + j, ...] = input[..., j, ...].
void ExpectConcatenated(const std::vector<const TypedTensor*>& inputs,
                        const TypedTensor& out, int dim) {
  int64_t at = 0;
  for (const TypedTensor* t : inputs) {
    ForEachIndex(t->shape(), [&](std::span<const int64_t> i) {
      std::vector<int64_t> o(i.begin(), i.end());
      o[dim] += at;
      ASSERT_EQ(out.Get(o), t->Get(i)) << ShapeString(o);
    });
    at += t->shape()[dim];
  }
}

TEST_F(LayoutTest, ConcatsEveryDtypeAlongEveryDim) {
  for (sy_dtype_t dtype :
       {SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16, SY_DTYPE_BF16, SY_DTYPE_I32,
        SY_DTYPE_I64, SY_DTYPE_I8, SY_DTYPE_U8, SY_DTYPE_BOOL}) {
    for (int dim : {0, 1, 2}) {
      SCOPED_TRACE(std::string(plugin::DtypeName(dtype)) + " dim " +
                   std::to_string(dim));
      std::vector<int64_t> a = {2, 3, 4}, b = a, c = a;
      b[dim] = 0;  // an empty piece
      c[dim] = 5;
      const TypedTensor ta =
          TypedTensor::Random(dtype, a, 1, Layout::kContiguous, -50, 50);
      const TypedTensor tb =
          TypedTensor::Random(dtype, b, 2, Layout::kPadded, -50, 50);
      const TypedTensor tc =
          TypedTensor::Random(dtype, c, 3, Layout::kTransposed, -50, 50);
      std::vector<int64_t> shape = a;
      shape[dim] = a[dim] + c[dim];
      TypedTensor out = TypedTensor::Make(dtype, shape, Layout::kPadded);
      const Status status = Concat({&ta, &tb, &tc}, out, dim - 3);
      ASSERT_TRUE(status.ok()) << status.message;
      ExpectConcatenated({&ta, &tb, &tc}, out, dim);
      EXPECT_TRUE(out.Untouched());
    }
  }
}

TEST_F(LayoutTest, ConcatsLargeInputsInParallel) {
  const TypedTensor a = TypedTensor::Random(SY_DTYPE_F32, {300, 700}, 4);
  const TypedTensor b =
      TypedTensor::Random(SY_DTYPE_F32, {300, 300}, 5, Layout::kTransposed);
  TypedTensor out = TypedTensor::Make(SY_DTYPE_F32, {300, 1000});
  ASSERT_TRUE(Concat({&a, &b}, out, 1).ok());
  ExpectConcatenated({&a, &b}, out, 1);
}

TEST_F(LayoutTest, ConcatRejectsBadCalls) {
  const TypedTensor a = TypedTensor::Random(SY_DTYPE_F32, {2, 3}, 1);
  const TypedTensor b = TypedTensor::Random(SY_DTYPE_F32, {3, 3}, 1);
  TypedTensor out = TypedTensor::Make(SY_DTYPE_F32, {5, 3});
  Status status = Concat({&a, &b}, out, 1);
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: concat: input 'tensors[1]' has shape [3, 3] but "
            "'tensors[0]' has [2, 3]; all dims except dim 1 must be equal");
  status = Concat({&a, &b}, out, 2);
  EXPECT_EQ(status.message,
            "cpu plugin: concat: attribute 'dim' = 2 has dim 2, out of range "
            "for input 'tensors[0]' of rank 2; dims must be in [-2, 1]");
  status = Concat({}, out, 0);
  EXPECT_EQ(status.message,
            "cpu plugin: concat: input 'tensors' is an empty list; concat "
            "needs at least one tensor");
  TypedTensor small = TypedTensor::Make(SY_DTYPE_F32, {4, 3});
  status = Concat({&a, &b}, small, 0);
  EXPECT_EQ(status.message,
            "cpu plugin: concat: output has shape [4, 3] but concatenating 2 "
            "inputs along dim 0 gives [5, 3]; allocate the output from "
            "concat's shape function");
  EXPECT_TRUE(small.Untouched());
  const TypedTensor i = TypedTensor::Random(SY_DTYPE_I32, {3, 3}, 1);
  status = Concat({&a, &i}, out, 0);
  EXPECT_EQ(status.message,
            "cpu plugin: concat: input 'tensors[1]' has dtype i32 but this "
            "kernel was registered for f32; the call does not match the "
            "kernel's key");
}

TEST_F(LayoutTest, EmbeddingGathersRows) {
  for (sy_dtype_t dtype :
       {SY_DTYPE_F32, SY_DTYPE_BF16, SY_DTYPE_I64, SY_DTYPE_BOOL}) {
    for (sy_dtype_t index_dtype : {SY_DTYPE_I32, SY_DTYPE_I64}) {
      SCOPED_TRACE(std::string(plugin::DtypeName(dtype)) + "/" +
                   std::string(plugin::DtypeName(index_dtype)));
      const TypedTensor weight =
          TypedTensor::Random(dtype, {10, 6}, 1, Layout::kTransposed, -9, 9);
      const TypedTensor indices =
          TypedTensor::Random(index_dtype, {3, 4}, 2, Layout::kPadded, 0, 10);
      TypedTensor out = TypedTensor::Make(dtype, {3, 4, 6}, Layout::kPadded);
      const Status status = Embedding(weight, indices, out);
      ASSERT_TRUE(status.ok()) << status.message;
      ForEachIndex(out.shape(), [&](std::span<const int64_t> i) {
        const int64_t row = static_cast<int64_t>(indices.Get(i.first(2)));
        const int64_t w[] = {row, i[2]};
        ASSERT_EQ(out.Get(i), weight.Get(w)) << ShapeString(i);
      });
      EXPECT_TRUE(out.Untouched());
    }
  }
}

TEST_F(LayoutTest, EmbeddingOfManyIndicesAndEmptyCases) {
  const TypedTensor weight = TypedTensor::Random(SY_DTYPE_F32, {1000, 64}, 3);
  const TypedTensor indices = TypedTensor::Random(SY_DTYPE_I64, {4096}, 4,
                                                  Layout::kContiguous, 0, 1000);
  TypedTensor out = TypedTensor::Make(SY_DTYPE_F32, {4096, 64});
  ASSERT_TRUE(Embedding(weight, indices, out).ok());
  ForEachIndex(out.shape(), [&](std::span<const int64_t> i) {
    const int64_t w[] = {static_cast<int64_t>(indices.Get(i.first(1))), i[1]};
    ASSERT_EQ(out.Get(i), weight.Get(w));
  });
  // No indices, and rank-0 indices.
  const TypedTensor none = TypedTensor::Make(SY_DTYPE_I32, {0});
  TypedTensor empty = TypedTensor::Make(SY_DTYPE_F32, {0, 64});
  EXPECT_TRUE(Embedding(weight, none, empty).ok());
  const TypedTensor one = TypedTensor::From(SY_DTYPE_I32, {}, {999});
  TypedTensor row = TypedTensor::Make(SY_DTYPE_F32, {64});
  ASSERT_TRUE(Embedding(weight, one, row).ok());
  const int64_t last[] = {999, 63}, r63[] = {63};
  EXPECT_EQ(row.Get(r63), weight.Get(last));
}

TEST_F(LayoutTest, EmbeddingRejectsIndicesOutOfRange) {
  const TypedTensor weight = TypedTensor::Random(SY_DTYPE_F32, {5, 2}, 1);
  TypedTensor indices =
      TypedTensor::From(SY_DTYPE_I64, {2, 3}, {0, 4, 1, 3, 7, 5});
  TypedTensor out = TypedTensor::Make(SY_DTYPE_F32, {2, 3, 2});
  Status status = Embedding(weight, indices, out);
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: embedding: input 'indices' holds 7 at position "
            "[1, 1], but input 'weight' has 5 rows; indices must be in "
            "[0, 4]");
  EXPECT_TRUE(out.Untouched());
  EXPECT_EQ(TypedTensor::Make(SY_DTYPE_F32, {2, 3, 2}).Values(), out.Values());
  const TypedTensor negative = TypedTensor::From(SY_DTYPE_I32, {2}, {1, -1});
  TypedTensor out2 = TypedTensor::Make(SY_DTYPE_F32, {2, 2});
  status = Embedding(weight, negative, out2);
  EXPECT_EQ(status.message,
            "cpu plugin: embedding: input 'indices' holds -1 at position [1], "
            "but input 'weight' has 5 rows; indices must be in [0, 4]");
  // Past the parallel threshold, the first bad index is still the one named.
  TypedTensor many = TypedTensor::Make(SY_DTYPE_I64, {100000});
  for (int64_t i = 0; i < 100000; ++i) {
    many.Set({&i, 1}, i == 70000 || i == 90000 ? 5 : i % 5);
  }
  TypedTensor out3 = TypedTensor::Make(SY_DTYPE_F32, {100000, 2});
  status = Embedding(weight, many, out3);
  EXPECT_EQ(status.message,
            "cpu plugin: embedding: input 'indices' holds 5 at position "
            "[70000], but input 'weight' has 5 rows; indices must be in "
            "[0, 4]");
  const TypedTensor no_rows = TypedTensor::Make(SY_DTYPE_F32, {0, 2});
  status = Embedding(no_rows, negative, out2);
  EXPECT_EQ(status.message,
            "cpu plugin: embedding: input 'indices' holds 1 at position [0], "
            "but input 'weight' has 0 rows, so no index is valid");
  const TypedTensor flat = TypedTensor::Random(SY_DTYPE_F32, {5}, 1);
  status = Embedding(flat, negative, out2);
  EXPECT_EQ(status.message,
            "cpu plugin: embedding: input 'weight' has shape [5]; embedding "
            "needs a 2-D weight [num_embeddings, embedding_dim]");
}

}  // namespace
}  // namespace sy::testing
