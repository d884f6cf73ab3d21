"""Switchyard from Python in one page: tensors in and out of NumPy, ops
with keyword arguments, DLPack without copies, and what an error looks like.

Run from a build tree:
    SWITCHYARD_LIBRARY=build/release/lib/libswitchyard.so \
    PYTHONPATH=api/python python3 api/examples/hello.py
"""

import numpy as np

import switchyard as sy

print(f"Switchyard {sy.__version__} (C API {sy.api_version[0]}.{sy.api_version[1]}) "
      f"from {sy.library_path}")
for record in sy.load_report():
    print(f"plugin {record.name}: {record.outcome}")
print("devices:", ", ".join(str(d) for d in sy.devices()))

# A tensor holds a copy of the NumPy data; ops come from the schema registry.
x = sy.tensor(np.linspace(-3, 3, 6, dtype=np.float32).reshape(2, 3))
y = sy.ops.gelu(x)                                  # gelu(Tensor x, str approximate="none")
z = sy.ops.sum(y, dims=[1], keepdim=True)           # keyword arguments, schema defaults
print("gelu(x) =\n", y.numpy())
print("row sums:", z.numpy().ravel())
print(sy.ops.sum.__doc__.splitlines()[0])

reference = 0.5 * x.numpy() * (1 + np.vectorize(__import__("math").erf)(x.numpy() / np.sqrt(2)))
assert np.allclose(y.numpy(), reference, atol=1e-6), "gelu disagrees with NumPy"

# DLPack: NumPy reads Switchyard's memory in place.
shared = np.from_dlpack(y)
assert shared.ctypes.data == y.data_ptr
print("np.from_dlpack shares memory:", shared.ctypes.data == y.data_ptr)

# Which kernel would run, and from which plugin.
print("matmul runs as:", sy.ops.matmul.explain(x, sy.tensor(np.ones((3, 2), np.float32))))

# Errors are exceptions carrying the C API's message.
try:
    sy.ops.matmul(x, x)
except sy.InvalidArgumentError as error:
    print("as expected:", error)
