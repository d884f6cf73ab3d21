"""Switchyard's log lines into Python (docs/python.md#logging).

    import logging
    sy.set_log_handler(logging.getLogger("switchyard"))   # into logging
    sy.set_log_handler(lambda level, message: ...)        # or a callable
    sy.set_log_handler(None)                              # back to stderr

The library calls its log callback on whichever thread logs (a plugin's
load, an op call on another thread), possibly holding a lock. The compiled
half queues the lines there without touching Python, and a daemon thread
started here ("switchyard-log") hands them to the handler with the GIL held
and no library lock held (Note [The log bridge], src/log_functions.h).
`sy.flush_log()` waits until the lines logged so far have been handled. At
interpreter exit the callback is detached (lines go to stderr again) and the
thread ends. A child made by fork() starts its own thread, with the same
handler.
"""

import atexit
import logging
import os
import sys
import threading
import traceback

from ._library import _C

# sy_log_level_t (plugin.h): the library's levels, and logging's.
LEVEL_NAMES = {0: "error", 1: "warning", 2: "info", 3: "debug"}
LOGGING_LEVELS = {0: logging.ERROR, 1: logging.WARNING, 2: logging.INFO, 3: logging.DEBUG}

_lock = threading.Lock()
_handler = None
_thread = None


def _deliver(handler, level, message):
    if isinstance(handler, logging.Logger):
        handler.log(LOGGING_LEVELS.get(level, logging.WARNING), message)
    else:
        handler(LEVEL_NAMES.get(level, "warning"), message)


def _pump():
    while True:
        lines = _C.log_wait()
        if lines is None:
            return
        handler = _handler
        try:
            for level, message in lines:
                try:
                    _deliver(handler, level, message)
                except Exception:  # noqa: BLE001 — a handler's bug must not end the thread
                    sys.stderr.write("switchyard: the log handler raised:\n")
                    traceback.print_exc()
        finally:
            _C.log_done()


def set_log_handler(handler):
    """Sends Switchyard's log lines (plugin loads, declines, and at level
    "debug" one line per op call) to `handler` instead of stderr: a
    logging.Logger (each line a record at the matching level), a callable
    `handler(level, message)` with level "error", "warning", "info" or
    "debug", or None for stderr again. sy.set_log_level still filters first.
    Lines from any thread arrive on one thread of the package's, in order,
    shortly after they are logged; sy.flush_log() waits for them. Returns
    the previous handler (None for stderr)."""
    global _handler, _thread
    if handler is not None and not isinstance(handler, logging.Logger) \
            and not callable(handler):
        raise TypeError("the log handler must be a logging.Logger, a callable "
                        f"handler(level, message) or None, got {type(handler).__name__}")
    with _lock:
        previous = _handler
        if handler is not None:
            _handler = handler
            if _thread is None:
                _C.log_attach()
                _thread = threading.Thread(target=_pump, name="switchyard-log", daemon=True)
                _thread.start()
        elif _thread is not None:
            # New lines go to stderr; the thread hands what is queued to the
            # old handler, then ends.
            _C.log_detach()
            thread, _thread = _thread, None
            if thread is not threading.current_thread():
                thread.join(timeout=5)
            _handler = None
    return previous


def log_handler():
    """The handler set_log_handler installed, or None (stderr)."""
    return _handler


def flush_log(timeout=5.0):
    """Waits until every line logged before the call has reached the
    handler; True when they have, False after `timeout` seconds (or when
    called from the handler itself, which would wait for itself)."""
    if _thread is None or _thread is threading.current_thread():
        return _thread is None
    return _C.log_flush(float(timeout))


def _after_fork_in_child():
    # The parent's thread does not exist here, and its queue's lock may have
    # been held by one of its threads: start over, with the same handler.
    global _lock, _handler, _thread
    handler = _handler
    _lock, _handler, _thread = threading.Lock(), None, None
    _C.log_forked()
    if handler is not None:
        set_log_handler(handler)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


@atexit.register
def _detach_at_exit():
    # Before the interpreter is finalized: later lines go to stderr, and no
    # handler runs in a half-torn-down interpreter.
    if _thread is not None:
        set_log_handler(None)
