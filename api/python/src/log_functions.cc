#include "log_functions.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <utility>

#include "errors.h"
#include "switchyard/switchyard.h"

namespace sy::python {
namespace {

// Lines waiting for the Python thread. Beyond this many (a debug log of a
// busy program whose handler is slow) lines are dropped and counted.
constexpr size_t kMaxQueued = 10000;

struct LogQueue {
  std::mutex mu;
  std::condition_variable changed;
  std::deque<std::pair<int32_t, std::string>> lines;
  bool attached = false;
  uint64_t queued = 0;     // lines ever queued or dropped
  uint64_t delivered = 0;  // lines the Python thread has handled (or dropped)
  uint64_t dropped = 0;    // since the last report
  uint64_t handed = 0;     // lines the last log_wait handed out
};

// Never destroyed (Note [The log bridge]). Replaced, not reset, in a forked
// child (log_forked): its mutex may have been held by a thread the child
// does not have.
std::atomic<LogQueue*> g_queue{new LogQueue};

LogQueue& Queue() { return *g_queue.load(std::memory_order_acquire); }

// sy_log_fn: copies the line; never touches Python.
void Enqueue(void*, int32_t level, const char* message) {
  LogQueue& q = Queue();
  {
    std::lock_guard<std::mutex> lock(q.mu);
    ++q.queued;
    if (q.lines.size() >= kMaxQueued) {
      ++q.dropped;
      ++q.delivered;
      return;
    }
    q.lines.emplace_back(level, message != nullptr ? message : "");
  }
  q.changed.notify_all();
}

// log_attach(): lines go to the queue from now on.
PyObject* LogAttach(PyObject*, PyObject*) {
  {
    std::lock_guard<std::mutex> lock(Queue().mu);
    Queue().attached = true;
  }
  sy_log_set_callback(Enqueue, nullptr);
  Py_RETURN_NONE;
}

// log_detach(): lines go to stderr again; log_wait returns None once the
// queue is empty.
PyObject* LogDetach(PyObject*, PyObject*) {
  sy_log_set_callback(nullptr, nullptr);
  {
    std::lock_guard<std::mutex> lock(Queue().mu);
    Queue().attached = false;
  }
  Queue().changed.notify_all();
  Py_RETURN_NONE;
}

// log_wait() -> [(level, message), …], or None when detached and empty.
// Waits without the GIL.
PyObject* LogWait(PyObject*, PyObject*) {
  LogQueue& q = Queue();
  std::deque<std::pair<int32_t, std::string>> lines;
  uint64_t dropped = 0;
  // The lock is let go before the GIL is taken back: Enqueue runs under the
  // library's log lock, which a thread holding the GIL may be waiting for.
  Py_BEGIN_ALLOW_THREADS {
    std::unique_lock<std::mutex> lock(q.mu);
    q.changed.wait(lock, [&] { return !q.lines.empty() || q.dropped > 0 || !q.attached; });
    lines.swap(q.lines);
    q.handed = lines.size();
    dropped = std::exchange(q.dropped, 0);
  }
  Py_END_ALLOW_THREADS
  if (lines.empty() && dropped == 0) Py_RETURN_NONE;
  PyRef list(PyList_New(0));
  if (!list) return nullptr;
  for (const auto& [level, message] : lines) {
    PyRef item(Py_BuildValue("(iN)", level, Text(message.c_str())));
    if (!item || PyList_Append(list.get(), item.get()) < 0) return nullptr;
  }
  if (dropped > 0) {
    const std::string note = std::to_string(dropped) +
                             " log lines were dropped: the Python log handler fell "
                             "behind (a slow handler at level debug?)";
    constexpr int kWarning = 1;  // SY_LOG_WARNING (plugin.h)
    PyRef item(Py_BuildValue("(iN)", kWarning, Text(note.c_str())));
    if (!item || PyList_Append(list.get(), item.get()) < 0) return nullptr;
  }
  return list.release();
}

// log_done(): the Python thread handled the lines of the last log_wait.
PyObject* LogDone(PyObject*, PyObject*) {
  {
    std::lock_guard<std::mutex> lock(Queue().mu);
    Queue().delivered += std::exchange(Queue().handed, 0);
  }
  Queue().changed.notify_all();
  Py_RETURN_NONE;
}

// log_flush(timeout_seconds) -> True when every line queued before the
// call has been handled, False on timeout. Waits without the GIL.
PyObject* LogFlush(PyObject*, PyObject* arg) {
  const double seconds = PyFloat_AsDouble(arg);
  if (seconds == -1.0 && PyErr_Occurred()) return nullptr;
  LogQueue& q = Queue();
  bool done;
  Py_BEGIN_ALLOW_THREADS {  // the lock ends before the GIL is taken (LogWait)
    std::unique_lock<std::mutex> lock(q.mu);
    const uint64_t target = q.queued;
    done = q.changed.wait_for(lock, std::chrono::duration<double>(seconds > 0 ? seconds : 0),
                              [&] { return q.delivered >= target; });
  }
  Py_END_ALLOW_THREADS
  return PyBool_FromLong(done);
}

// log_forked(): in a child made by fork(), a fresh queue (the parent's may
// be mid-update) and lines to stderr until the package attaches again.
PyObject* LogForked(PyObject*, PyObject*) {
  g_queue.store(new LogQueue, std::memory_order_release);  // the old one leaks
  sy_log_set_callback(nullptr, nullptr);
  Py_RETURN_NONE;
}

}  // namespace

PyMethodDef g_log_functions[] = {
    {"log_attach", LogAttach, METH_NOARGS, nullptr},
    {"log_detach", LogDetach, METH_NOARGS, nullptr},
    {"log_wait", LogWait, METH_NOARGS, nullptr},
    {"log_done", LogDone, METH_NOARGS, nullptr},
    {"log_flush", LogFlush, METH_O, nullptr},
    {"log_forked", LogForked, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace sy::python
