#include "distributed_functions.h"

#include "errors.h"
#include "switchyard/switchyard.h"

namespace sy::python {
namespace {

// (device handle, rank, world_size, rendezvous, timeout_ms) -> handle. The
// rendezvous blocks until every rank arrives: the GIL is released, so the
// process's other threads run meanwhile.
PyObject* CommunicatorCreate(PyObject*, PyObject* args) {
  PyObject* device_handle;
  int rank, world_size;
  const char* rendezvous;
  long long timeout_ms;
  if (!PyArg_ParseTuple(args, "OiisL:communicator_create", &device_handle, &rank,
                        &world_size, &rendezvous, &timeout_ms)) {
    return nullptr;
  }
  sy_communicator_args_t a;
  sy_communicator_args_init(&a);
  if (!HandleFromPy(device_handle, &a.device)) return nullptr;
  a.rank = rank;
  a.world_size = world_size;
  a.rendezvous = rendezvous;
  a.timeout_ms = timeout_ms;
  sy_communicator_t comm = nullptr;
  sy_status_code_t status;
  Py_BEGIN_ALLOW_THREADS
  status = sy_communicator_create(&a, &comm);
  Py_END_ALLOW_THREADS
  if (status != SY_STATUS_OK) return RaiseLastError(status);
  return HandleToPy(comm);
}

PyObject* CommunicatorDestroy(PyObject*, PyObject* arg) {
  sy_communicator_t comm;
  if (!HandleFromPy(arg, &comm)) return nullptr;
  if (sy_status_code_t s = sy_communicator_destroy(comm); s != SY_STATUS_OK) {
    return RaiseLastError(s);
  }
  Py_RETURN_NONE;
}

// -> (rank, world_size, device handle, engine, rendezvous, timeout_ms)
PyObject* CommunicatorInfo(PyObject*, PyObject* arg) {
  sy_communicator_t comm;
  if (!HandleFromPy(arg, &comm)) return nullptr;
  sy_communicator_info_t i{};
  i.struct_size = sizeof i;
  if (sy_status_code_t s = sy_communicator_get_info(comm, &i); s != SY_STATUS_OK) {
    return RaiseLastError(s);
  }
  return Py_BuildValue("(iiNNNL)", i.rank, i.world_size, HandleToPy(i.device),
                       Text(i.engine), Text(i.rendezvous),
                       static_cast<long long>(i.timeout_ms));
}

}  // namespace

PyMethodDef g_distributed_functions[] = {
    {"communicator_create", CommunicatorCreate, METH_VARARGS, nullptr},
    {"communicator_destroy", CommunicatorDestroy, METH_O, nullptr},
    {"communicator_info", CommunicatorInfo, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace sy::python
