"""Switchyard's log lines in Python (sy.set_log_handler; docs/python.md#logging):
to a callable and to a logging.Logger, from other threads, in order; bad
handlers refused; a handler that raises does not stop the lines; a forked
child gets its own bridge; a process that exits with a handler installed
exits cleanly."""

import logging
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import switchyard as sy


@pytest.fixture
def restore_logging():
    level = sy.log_level()
    yield
    sy.set_log_handler(None)
    sy.set_log_level(level)


def test_lines_from_another_thread_reach_a_callable(restore_logging):
    lines = []
    assert sy.set_log_handler(lambda level, message: lines.append((level, message))) is None
    sy.set_log_level("info")

    def load():  # a plugin load on a thread of its own logs at info
        with sy.Context(use_environment=False, allow=["cpu"]):
            pass

    thread = threading.Thread(target=load)
    thread.start()
    thread.join()
    assert sy.flush_log()
    assert lines, "no log line arrived"
    assert all(level in ("error", "warning", "info", "debug") for level, _ in lines)
    assert any(level == "info" and "cpu" in message for level, message in lines)
    # None: back to stderr, and the previous handler is returned.
    previous = sy.set_log_handler(None)
    assert callable(previous) and sy.log_handler() is None
    count = len(lines)
    with sy.Context(use_environment=False, allow=["cpu"]):
        pass
    assert sy.flush_log() and len(lines) == count


def test_a_logger_gets_records_at_the_matching_level(restore_logging, caplog):
    caplog.set_level(logging.DEBUG, logger="switchyard")
    sy.set_log_handler(logging.getLogger("switchyard"))
    sy.set_log_level("debug")  # one line per op call saying how it ran
    with sy.Context(use_environment=False, allow=["cpu"]) as ctx:
        x = sy.tensor(np.ones(4, np.float32), context=ctx)
        ctx.ops.neg(x)
        ctx.ops.exp(x)
        assert sy.flush_log()
    records = [r for r in caplog.records if r.name == "switchyard"]
    debug = [r.getMessage() for r in records if r.levelno == logging.DEBUG]
    neg = [i for i, m in enumerate(debug) if "neg" in m]
    exp = [i for i, m in enumerate(debug) if "exp" in m]
    assert neg and exp and neg[0] < exp[0], debug  # in the order they were logged
    assert {r.levelno for r in records} <= {logging.ERROR, logging.WARNING, logging.INFO,
                                            logging.DEBUG}


def test_a_handler_that_raises_does_not_stop_the_lines(restore_logging, capfd):
    seen = []

    def handler(level, message):
        seen.append(message)
        if len(seen) == 1:
            raise RuntimeError("handler bug")

    sy.set_log_handler(handler)
    sy.set_log_level("debug")
    with sy.Context(use_environment=False, allow=["cpu"]) as ctx:
        x = sy.tensor(np.ones(4, np.float32), context=ctx)
        ctx.ops.neg(x)
        ctx.ops.neg(x)
        assert sy.flush_log()
    assert len(seen) >= 2
    assert "the log handler raised" in capfd.readouterr().err


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() here")
def test_a_forked_child_gets_its_lines_on_a_thread_of_its_own(restore_logging):
    lines = []
    sy.set_log_handler(lambda level, message: lines.append(message))
    sy.set_log_level("info")
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report how many lines reached the handler
        status = 1
        try:
            lines.clear()
            with sy.Context(use_environment=False, allow=["cpu"]):
                pass
            ok = sy.flush_log() and any("cpu" in m for m in lines)
            os.write(write_end, b"ok" if ok else repr(lines).encode())
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        answer = pipe.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert answer == b"ok"
    # The parent's bridge is untouched.
    with sy.Context(use_environment=False, allow=["cpu"]):
        pass
    assert sy.flush_log() and any("cpu" in m for m in lines)


def test_bad_handlers_are_refused(restore_logging):
    with pytest.raises(TypeError, match="the log handler must be a logging.Logger, a "
                                        r"callable handler\(level, message\) or None, got int"):
        sy.set_log_handler(42)
    assert sy.log_handler() is None


def test_exit_with_a_handler_installed_is_clean():
    # Lines keep coming from other threads while the package detaches its
    # handler at exit (atexit runs last-registered first: `stop` runs after
    # the package's hook, then joins the threads before finalization).
    code = """
import atexit, threading
done = threading.Event()
threads = []
def stop():
    done.set()
    for t in threads:
        t.join()
atexit.register(stop)
import numpy as np, switchyard as sy
sy.set_log_handler(lambda level, message: None)
sy.set_log_level("debug")
ctx = sy.Context(use_environment=False, allow=["cpu"])
x = sy.tensor(np.ones(4, np.float32), context=ctx)
def spin():
    while not done.is_set():
        ctx.ops.neg(x)
threads += [threading.Thread(target=spin, daemon=True) for _ in range(2)]
for t in threads:
    t.start()
print("ok")
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60, env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
    assert "Fatal" not in result.stderr and "Traceback" not in result.stderr
