// Log lines into Python (sy.set_log_handler; docs/python.md#logging).
//
// Note [The log bridge]: sy_log_set_callback calls its callback on whichever
// thread logs, possibly while the library holds a lock, and the callback
// must not call into Switchyard. Taking the GIL there could deadlock: a
// Python thread holding the GIL may be waiting in Switchyard for that very
// lock. So the callback never touches Python: it copies the line into a
// queue here (a mutex and a deque; bounded, counting what it drops) and
// returns. A Python thread the package starts (switchyard/_logging.py)
// waits on the queue without the GIL (log_wait), takes the lines out and
// hands them to the user's handler with the GIL held and no Switchyard lock
// held, so the handler may do anything, Switchyard calls included. The
// queue is never destroyed: a line logged by a native thread while the
// interpreter shuts down still has somewhere to go (and the package
// detaches the callback at exit, before the interpreter is finalized). A
// child made by fork() gets a fresh queue and a new thread (log_forked).
#ifndef SWITCHYARD_API_PYTHON_SRC_LOG_FUNCTIONS_H_
#define SWITCHYARD_API_PYTHON_SRC_LOG_FUNCTIONS_H_

#include "py_util.h"

namespace sy::python {

// log_attach(), log_detach(), log_wait(), log_done(), log_flush(timeout),
// log_forked(),
// ended by a null entry.
extern PyMethodDef g_log_functions[];

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_LOG_FUNCTIONS_H_
