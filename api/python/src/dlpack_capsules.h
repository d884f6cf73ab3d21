// DLPack capsules: the "dltensor" (0.6) and "dltensor_versioned" (1.0)
// PyCapsule protocol NumPy, PyTorch and others speak.
//
// Producer: a capsule owns the managed tensor until a consumer takes it
// (consumers rename it "used_dltensor[_versioned]"); a capsule that dies
// untaken runs the tensor's deleter. Consumer: the pointer is taken out of
// another library's capsule and, once Switchyard owns it, the capsule is
// renamed so its destructor leaves it alone.
#ifndef SWITCHYARD_API_PYTHON_SRC_DLPACK_CAPSULES_H_
#define SWITCHYARD_API_PYTHON_SRC_DLPACK_CAPSULES_H_

#include "py_util.h"

namespace sy::python {

// _C.to_dlpack(tensor, versioned, flags) -> capsule.
PyObject* ToDLPack(PyObject* module, PyObject* const* args, Py_ssize_t nargs);
// _C.from_dlpack(context, context_handle, capsule, mode) -> Tensor.
PyObject* FromDLPack(PyObject* module, PyObject* const* args, Py_ssize_t nargs);
// _C.cuda_wait_legacy_stream(device_id): see cuda_interop.cc.
PyObject* CudaWaitLegacyStream(PyObject* module, PyObject* arg);

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_DLPACK_CAPSULES_H_
