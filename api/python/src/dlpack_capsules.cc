#include "dlpack_capsules.h"

#include "api/src/dlpack_v1.h"
#include "errors.h"
#include "switchyard/switchyard.h"
#include "tensor_object.h"

namespace sy::python {
namespace {

constexpr const char* kLegacy = "dltensor";
constexpr const char* kLegacyUsed = "used_dltensor";
constexpr const char* kVersioned = "dltensor_versioned";
constexpr const char* kVersionedUsed = "used_dltensor_versioned";

// Destructors run while an exception may be in flight: keep it.
void DestroyLegacy(PyObject* capsule) {
  PyObject *type, *value, *trace;
  PyErr_Fetch(&type, &value, &trace);
  if (PyCapsule_IsValid(capsule, kLegacy)) {
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kLegacy));
    if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
  }
  PyErr_Restore(type, value, trace);
}

void DestroyVersioned(PyObject* capsule) {
  PyObject *type, *value, *trace;
  PyErr_Fetch(&type, &value, &trace);
  if (PyCapsule_IsValid(capsule, kVersioned)) {
    auto* managed =
        static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kVersioned));
    if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
  }
  PyErr_Restore(type, value, trace);
}

}  // namespace

PyObject* ToDLPack(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3 || !IsTensor(args[0])) {
    PyErr_SetString(PyExc_TypeError, "to_dlpack(tensor, versioned, flags)");
    return nullptr;
  }
  const sy_tensor_t handle = AsTensor(args[0])->handle;
  const int versioned = PyObject_IsTrue(args[1]);
  const unsigned long long flags = PyLong_AsUnsignedLongLong(args[2]);
  if (versioned < 0 || PyErr_Occurred()) return nullptr;
  sy_status_code_t status;
  if (versioned) {
    DLManagedTensorVersioned* managed = nullptr;
    Py_BEGIN_ALLOW_THREADS  // the export waits for the tensor's work
    status = sy_tensor_to_dlpack_versioned(handle, flags, &managed);
    Py_END_ALLOW_THREADS
    if (status != SY_STATUS_OK) return RaiseLastError(status);
    PyObject* capsule = PyCapsule_New(managed, kVersioned, DestroyVersioned);
    if (capsule == nullptr) managed->deleter(managed);
    return capsule;
  }
  if (flags != 0) {
    PyErr_SetString(PyExc_BufferError, "DLPack 0.6 capsules carry no flags");
    return nullptr;
  }
  DLManagedTensor* managed = nullptr;
  Py_BEGIN_ALLOW_THREADS
  status = sy_tensor_to_dlpack(handle, &managed);
  Py_END_ALLOW_THREADS
  if (status != SY_STATUS_OK) return RaiseLastError(status);
  PyObject* capsule = PyCapsule_New(managed, kLegacy, DestroyLegacy);
  if (capsule == nullptr) managed->deleter(managed);
  return capsule;
}

PyObject* FromDLPack(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 4) {
    PyErr_SetString(PyExc_TypeError, "from_dlpack(context, context_handle, capsule, mode)");
    return nullptr;
  }
  sy_context_t context;
  if (!HandleFromPy(args[1], &context)) return nullptr;
  PyObject* capsule = args[2];
  const long mode = PyLong_AsLong(args[3]);
  if (mode == -1 && PyErr_Occurred()) return nullptr;
  const bool versioned = PyCapsule_IsValid(capsule, kVersioned);
  if (!versioned && !PyCapsule_IsValid(capsule, kLegacy)) {
    PyErr_SetString(PyExc_ValueError,
                    "not an unused DLPack capsule: expected a PyCapsule named "
                    "'dltensor' or 'dltensor_versioned' (a capsule can be consumed "
                    "only once)");
    return nullptr;
  }
  void* pointer = PyCapsule_GetPointer(capsule, versioned ? kVersioned : kLegacy);
  if (pointer == nullptr) return nullptr;
  sy_tensor_t out;
  sy_status_code_t status;
  Py_BEGIN_ALLOW_THREADS  // a copy or a foreign deleter may take time
  status = versioned
               ? sy_tensor_from_dlpack_versioned(
                     context, static_cast<DLManagedTensorVersioned*>(pointer),
                     static_cast<int32_t>(mode), &out)
               : sy_tensor_from_dlpack(context, static_cast<DLManagedTensor*>(pointer),
                                       static_cast<int32_t>(mode), &out);
  Py_END_ALLOW_THREADS
  if (status != SY_STATUS_OK) return RaiseLastError(status);
  // Switchyard owns the tensor now: the capsule's destructor must not free it.
  if (PyCapsule_SetName(capsule, versioned ? kVersionedUsed : kLegacyUsed) < 0) {
    sy_tensor_release(out);
    return nullptr;
  }
  return NewTensor(args[0], out);
}

}  // namespace sy::python
