#include "context_functions.h"

#include <string>
#include <vector>

#include "errors.h"
#include "handle_calls.h"
#include "switchyard/switchyard.h"

namespace sy::python {
namespace {

#define SY_CHECK(call)                                        \
  do {                                                        \
    if (sy_status_code_t status_ = (call); status_ != SY_STATUS_OK) \
      return RaiseLastError(status_);                         \
  } while (0)

// Strings of a Python sequence, kept alive (as UTF-8) for one C call.
class Strings {
 public:
  bool Read(PyObject* sequence) {
    PyRef fast(PySequence_Fast(sequence, "expected a sequence of str"));
    if (!fast) return false;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.get());
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyRef text(PyObject_Str(PySequence_Fast_GET_ITEM(fast.get(), i)));
      if (!text) return false;
      const char* utf8 = PyUnicode_AsUTF8(text.get());
      if (utf8 == nullptr) return false;
      owned_.emplace_back(utf8);
    }
    for (const std::string& s : owned_) pointers_.push_back(s.c_str());
    return true;
  }
  const char* const* data() const { return pointers_.empty() ? nullptr : pointers_.data(); }
  int32_t size() const { return static_cast<int32_t>(pointers_.size()); }

 private:
  std::vector<std::string> owned_;
  std::vector<const char*> pointers_;
};

PyObject* ContextCreate(PyObject*, PyObject* args) {
  // (plugin_paths, plugin_manifests, allow, deny, use_environment,
  //  use_default_path, cpu_fallback, plugin_options) -> handle
  PyObject *paths, *manifests, *allow, *deny, *plugin_options;
  int use_environment, use_default_path, cpu_fallback;
  if (!PyArg_ParseTuple(args, "OOOOppiO:context_create", &paths, &manifests, &allow, &deny,
                        &use_environment, &use_default_path, &cpu_fallback,
                        &plugin_options)) {
    return nullptr;
  }
  Strings p, m, a, d, o;
  if (!p.Read(paths) || !m.Read(manifests) || !a.Read(allow) || !d.Read(deny) ||
      !o.Read(plugin_options)) {
    return nullptr;
  }
  sy_context_options_t options;
  sy_context_options_init(&options);
  options.plugin_paths = p.data();
  options.num_plugin_paths = p.size();
  options.plugin_manifests = m.data();
  options.num_plugin_manifests = m.size();
  options.allow = a.data();
  options.num_allow = a.size();
  options.deny = d.data();
  options.num_deny = d.size();
  options.use_environment = use_environment;
  options.use_default_path = use_default_path;
  options.cpu_fallback = cpu_fallback;
  options.plugin_options = o.data();
  options.num_plugin_options = o.size();
  sy_context_t context;
  sy_status_code_t status;
  Py_BEGIN_ALLOW_THREADS  // loads plugins
  status = sy_context_create(&options, &context);
  Py_END_ALLOW_THREADS
  if (status != SY_STATUS_OK) return RaiseLastError(status);
  return HandleToPy(context);
}

template <typename Handle>
bool One(PyObject* arg, Handle* out) {
  return HandleFromPy(arg, out);
}

// HandleTextCall's argument formats (handle_calls.h).
constexpr char kLoadPluginFormat[] = "Os:load_plugin";
constexpr char kUnloadPluginFormat[] = "Os:unload_plugin";

PyObject* ContextRecords(PyObject*, PyObject* arg) {
  sy_context_t context;
  if (!One(arg, &context)) return nullptr;
  int32_t count = 0;
  SY_CHECK(sy_context_plugin_record_count(context, &count));
  PyRef list(PyList_New(0));
  if (!list) return nullptr;
  for (int32_t i = 0; i < count; ++i) {
    sy_plugin_record_t r{};
    r.struct_size = sizeof r;
    SY_CHECK(sy_context_plugin_record(context, i, &r));
    PyRef item(Py_BuildValue(
        "(NNNiiNNNNiiid)", Text(r.name), Text(r.manifest_path), Text(r.library_path),
        r.outcome, r.requested, Text(r.stage), Text(r.reason), Text(r.description),
        Text(r.plugin_version), r.num_devices, r.num_schemas, r.num_kernels, r.load_ms));
    if (!item || PyList_Append(list.get(), item.get()) < 0) return nullptr;
  }
  return list.release();
}

PyObject* ContextInfoJson(PyObject*, PyObject* arg) {
  sy_context_t context;
  if (!One(arg, &context)) return nullptr;
  const char* json = nullptr;
  SY_CHECK(sy_context_info_json(context, &json));
  return Text(json);
}

PyObject* ContextDevices(PyObject*, PyObject* arg) {
  sy_context_t context;
  if (!One(arg, &context)) return nullptr;
  int32_t count = 0;
  SY_CHECK(sy_device_count(context, &count));
  PyRef list(PyList_New(0));
  if (!list) return nullptr;
  for (int32_t i = 0; i < count; ++i) {
    sy_device_handle_t device;
    SY_CHECK(sy_device_get(context, i, &device));
    PyRef item(HandleToPy(device));
    if (!item || PyList_Append(list.get(), item.get()) < 0) return nullptr;
  }
  return list.release();
}

PyObject* DeviceFind(PyObject*, PyObject* args) {
  PyObject* handle;
  const char* spec;
  if (!PyArg_ParseTuple(args, "Os:device_find", &handle, &spec)) return nullptr;
  sy_context_t context;
  if (!One(handle, &context)) return nullptr;
  sy_device_handle_t device;
  SY_CHECK(sy_device_find(context, spec, &device));
  return HandleToPy(device);
}

PyObject* DeviceInfo(PyObject*, PyObject* arg) {
  sy_device_handle_t device;
  if (!One(arg, &device)) return nullptr;
  sy_device_info_t i{};
  i.struct_size = sizeof i;
  SY_CHECK(sy_device_get_info(device, &i));
  return Py_BuildValue("(NNNNNNiiK(ii)I)", Text(i.label), Text(i.type), Text(i.plugin),
                       Text(i.name), Text(i.vendor), Text(i.driver_version), i.index,
                       i.compute_units,
                       static_cast<unsigned long long>(i.total_memory_bytes),
                       i.dl_device.device_type, i.dl_device.device_id,
                       static_cast<unsigned int>(i.float_flags));
}

PyObject* DeviceAllocatorStats(PyObject*, PyObject* arg) {
  sy_device_handle_t device;
  if (!One(arg, &device)) return nullptr;
  sy_allocator_stats_t s{};
  s.struct_size = sizeof s;
  SY_CHECK(sy_device_allocator_stats(device, &s));
  return Py_BuildValue("(KKKKKKK)", s.allocated_bytes, s.reserved_bytes,
                       s.peak_allocated_bytes, s.num_allocations, s.cache_hits,
                       s.device_allocations, s.device_frees);
}

PyObject* OpHandles(PyObject*, PyObject* arg) {
  // Every op handle, read as one consistent list: sy_op_count and sy_op_get
  // are separate calls, and a plugin loaded or unloaded on another thread
  // in between changes the list; read again until a count taken after the
  // last sy_op_get matches the first.
  sy_context_t context;
  if (!One(arg, &context)) return nullptr;
  for (int attempt = 0; attempt < 100; ++attempt) {
    int32_t count = 0;
    SY_CHECK(sy_op_count(context, &count));
    PyRef list(PyList_New(0));
    if (!list) return nullptr;
    bool shrank = false;
    for (int32_t i = 0; i < count && !shrank; ++i) {
      sy_op_t op;
      const sy_status_code_t status = sy_op_get(context, i, &op);
      if (status == SY_STATUS_OUT_OF_RANGE) {
        shrank = true;
        break;
      }
      if (status != SY_STATUS_OK) return RaiseLastError(status);
      PyRef item(HandleToPy(op));
      if (!item || PyList_Append(list.get(), item.get()) < 0) return nullptr;
    }
    int32_t after = 0;
    SY_CHECK(sy_op_count(context, &after));
    if (!shrank && after == count) return list.release();
  }
  return RaiseStatus(SY_STATUS_ABORTED,
                     "the op list kept changing while it was read (plugins loading "
                     "and unloading on other threads); try again");
}

PyObject* OpFind(PyObject*, PyObject* args) {
  PyObject* handle;
  const char* name;
  if (!PyArg_ParseTuple(args, "Os:op_find", &handle, &name)) return nullptr;
  sy_context_t context;
  if (!One(handle, &context)) return nullptr;
  sy_op_t op;
  SY_CHECK(sy_op_find(context, name, &op));
  return HandleToPy(op);
}

PyObject* OpInfo(PyObject*, PyObject* arg) {
  // (full_name, ns, name, overload, schema, owner, num_outputs, live)
  sy_op_t op;
  if (!One(arg, &op)) return nullptr;
  sy_op_info_t i{};
  i.struct_size = sizeof i;
  SY_CHECK(sy_op_get_info(op, &i));
  return Py_BuildValue("(NNNNNNiN)", Text(i.full_name), Text(i.ns), Text(i.name),
                       Text(i.overload), Text(i.schema), Text(i.owner), i.num_outputs,
                       PyBool_FromLong(i.live));
}

PyObject* LibraryVersion(PyObject*, PyObject*) { return Text(sy_library_version()); }

PyObject* ApiVersion(PyObject*, PyObject*) {
  uint32_t major = 0, minor = 0;
  sy_api_version(&major, &minor);
  return Py_BuildValue("(II)", major, minor);
}

PyObject* LastErrorMessage(PyObject*, PyObject*) { return Text(sy_last_error_message()); }

// The process-wide log level, by name (sy_log_set_level: an unknown name
// is an error that lists the levels).
PyObject* LogSetLevel(PyObject*, PyObject* arg) {
  const char* level = PyUnicode_AsUTF8(arg);
  if (level == nullptr) return nullptr;
  const sy_status_code_t status = sy_log_set_level(level);
  if (status != SY_STATUS_OK) return RaiseLastError(status);
  Py_RETURN_NONE;
}

PyObject* LogLevel(PyObject*, PyObject*) { return Text(sy_log_level()); }

PyObject* StatusCodeName(PyObject*, PyObject* arg) {
  const long code = PyLong_AsLong(arg);
  if (code == -1 && PyErr_Occurred()) return nullptr;
  return Text(sy_status_code_name(static_cast<sy_status_code_t>(code)));
}

PyObject* DTypeFromName(PyObject*, PyObject* arg) {
  const char* name = PyUnicode_AsUTF8(arg);
  if (name == nullptr) return nullptr;
  sy_dtype_t dtype;
  SY_CHECK(sy_dtype_from_name(name, &dtype));
  return PyLong_FromUnsignedLong(dtype);
}

PyObject* DTypeSize(PyObject*, PyObject* arg) {
  const unsigned long dtype = PyLong_AsUnsignedLong(arg);
  if (PyErr_Occurred()) return nullptr;
  return PyLong_FromSize_t(sy_dtype_size(static_cast<sy_dtype_t>(dtype)));
}

#undef SY_CHECK

}  // namespace

PyMethodDef g_context_functions[] = {
    {"context_create", ContextCreate, METH_VARARGS, nullptr},
    {"context_destroy", HandleCall<sy_context_t, sy_context_destroy>, METH_O, nullptr},
    {"context_load_plugin",
     HandleTextCall<sy_context_t, sy_context_load_plugin, kLoadPluginFormat>, METH_VARARGS,
     nullptr},
    {"context_unload_plugin",
     HandleTextCall<sy_context_t, sy_context_unload_plugin, kUnloadPluginFormat>,
     METH_VARARGS, nullptr},
    {"context_records", ContextRecords, METH_O, nullptr},
    {"context_info_json", ContextInfoJson, METH_O, nullptr},
    {"context_synchronize", HandleCall<sy_context_t, sy_context_synchronize>, METH_O, nullptr},
    {"context_devices", ContextDevices, METH_O, nullptr},
    {"device_find", DeviceFind, METH_VARARGS, nullptr},
    {"device_info", DeviceInfo, METH_O, nullptr},
    {"device_synchronize", HandleCall<sy_device_handle_t, sy_device_synchronize>, METH_O,
     nullptr},
    {"device_allocator_stats", DeviceAllocatorStats, METH_O, nullptr},
    {"device_empty_cache",
     HandleCall<sy_device_handle_t, sy_device_empty_cache, Gil::kKeep>, METH_O, nullptr},
    {"op_handles", OpHandles, METH_O, nullptr},
    {"op_find", OpFind, METH_VARARGS, nullptr},
    {"op_info", OpInfo, METH_O, nullptr},
    {"library_version", LibraryVersion, METH_NOARGS, nullptr},
    {"api_version", ApiVersion, METH_NOARGS, nullptr},
    {"last_error_message", LastErrorMessage, METH_NOARGS, nullptr},
    {"log_set_level", LogSetLevel, METH_O, nullptr},
    {"log_level", LogLevel, METH_NOARGS, nullptr},
    {"status_code_name", StatusCodeName, METH_O, nullptr},
    {"dtype_from_name", DTypeFromName, METH_O, nullptr},
    {"dtype_size", DTypeSize, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace sy::python
