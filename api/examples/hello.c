/* The C API in one page: make a context, put data on the cpu, call ops,
 * read the result back, and see what an error looks like.
 * Built as switchyard_example_c; docs/c-api.md walks through it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "switchyard/switchyard.h"

/* Every call returns a status; on failure the thread's last error says what
 * went wrong, where and what to do. */
#define CHECK(call)                                                  \
  do {                                                               \
    if ((call) != SY_STATUS_OK) {                                    \
      fprintf(stderr, "%s failed: %s\n", #call, sy_last_error_message()); \
      exit(1);                                                       \
    }                                                                \
  } while (0)

int main(void) {
  uint32_t major, minor;
  CHECK(sy_api_version(&major, &minor));
  printf("Switchyard %s, C API %u.%u\n", sy_library_version(), major, minor);

  sy_context_t ctx;
  CHECK(sy_context_create(NULL, &ctx)); /* discovers the installed plugins */

  int32_t num_records;
  CHECK(sy_context_plugin_record_count(ctx, &num_records));
  for (int32_t i = 0; i < num_records; ++i) {
    sy_plugin_record_t record = {.struct_size = sizeof record};
    CHECK(sy_context_plugin_record(ctx, i, &record));
    printf("plugin %s: %s\n", record.name, record.description);
  }

  sy_device_handle_t cpu;
  CHECK(sy_device_find(ctx, "cpu:0", &cpu));

  /* a = [[1, -2, 3], [-4, 5, -6]], b = 0.5 everywhere */
  const float a_data[6] = {1, -2, 3, -4, 5, -6};
  const float b_data[6] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
  const int64_t shape[2] = {2, 3};
  sy_tensor_t a, b;
  CHECK(sy_tensor_from_host(cpu, SY_DTYPE_F32, shape, 2, a_data, sizeof a_data, &a));
  CHECK(sy_tensor_from_host(cpu, SY_DTYPE_F32, shape, 2, b_data, sizeof b_data, &b));

  /* Find ops once, call them by handle: y = relu(a) * b. */
  sy_op_t relu, mul;
  CHECK(sy_op_find(ctx, "relu", &relu));
  CHECK(sy_op_find(ctx, "mul.Tensor", &mul));
  sy_tensor_t r, y;
  CHECK(sy_op_call(relu, &a, 1, NULL, 0, &r, 1));
  const sy_tensor_t mul_inputs[2] = {r, b};
  CHECK(sy_op_call(mul, mul_inputs, 2, NULL, 0, &y, 1));

  /* sum over dim 1, an attribute: sum(Tensor x, int[] dims=[], bool keepdim=False) */
  sy_op_t sum;
  CHECK(sy_op_find(ctx, "sum", &sum));
  const int64_t dims[1] = {1};
  sy_attr_t attrs[1] = {{.kind = SY_ATTR_INTS}};
  attrs[0].value.ints.data = dims;
  attrs[0].value.ints.size = 1;
  sy_tensor_t s;
  CHECK(sy_op_call(sum, &y, 1, attrs, 1, &s, 1));

  float y_host[6], s_host[2];
  CHECK(sy_tensor_to_host(y, y_host, sizeof y_host));
  CHECK(sy_tensor_to_host(s, s_host, sizeof s_host));
  int ok = 1;
  for (int i = 0; i < 6; ++i) {
    const float want = (a_data[i] > 0 ? a_data[i] : 0) * b_data[i];
    ok &= fabsf(y_host[i] - want) <= 1e-6f;
  }
  ok &= fabsf(s_host[0] - 2.0f) <= 1e-6f && fabsf(s_host[1] - 2.5f) <= 1e-6f;
  printf("relu(a) * b = [%g %g %g; %g %g %g], row sums = [%g %g]\n", y_host[0],
         y_host[1], y_host[2], y_host[3], y_host[4], y_host[5], s_host[0],
         s_host[1]);

  /* Bad input is an error with a message, never a crash. */
  if (sy_op_call(relu, &a, 1, attrs, 1, &r, 1) != SY_STATUS_OK) {
    printf("as expected: %s\n", sy_last_error_message());
  }

  sy_tensor_release(s);
  sy_tensor_release(y);
  sy_tensor_release(r);
  sy_tensor_release(b);
  sy_tensor_release(a);
  CHECK(sy_context_destroy(ctx));
  if (!ok) {
    fprintf(stderr, "wrong result\n");
    return 1;
  }
  return 0;
}
