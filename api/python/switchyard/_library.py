"""Loading the compiled half (switchyard._C) and the library it links.

_C links libswitchyard.so.0 and finds it through its run path: three
folders up when installed (<prefix>/lib/python3*/dist-packages/switchyard
-> <prefix>/lib), switchyard/lib/ in a wheel, the build's lib/ in a build
tree. Then libswitchyard finds its plugins next to itself (or through
SWITCHYARD_PLUGIN_PATH).

SWITCHYARD_LIBRARY (a path to libswitchyard.so, or its folder) loads that
library first, and _C then uses it: the dynamic loader reuses a library
already loaded under the same soname.

Used from a source checkout (PYTHONPATH=api/python), the package finds _C in
the build trees (build/release, build/debug).
"""

import importlib
import os
import sys
from pathlib import Path

_NAMES = ("libswitchyard.so.0", "libswitchyard.so")


def _preload():
    env = os.environ.get("SWITCHYARD_LIBRARY")
    if not env:
        return
    import ctypes
    path = Path(env)
    candidates = [path / name for name in _NAMES] if path.is_dir() else [path]
    tried = []
    for candidate in candidates:
        try:
            ctypes.CDLL(str(candidate), mode=ctypes.RTLD_GLOBAL)
            return
        except OSError as error:
            tried.append(f"{candidate} ({error})")
    raise ImportError("switchyard: SWITCHYARD_LIBRARY is set but cannot be loaded; "
                      "tried:\n  " + "\n  ".join(tried))


def _import_extension():
    package = sys.modules[__package__]
    try:
        return importlib.import_module("._C", __package__)
    except ImportError as first:
        # A source checkout: api/python/switchyard -> <root>/build/<preset>/python.
        root = Path(__file__).resolve().parents[3]
        for preset in ("release", "debug"):
            folder = root / "build" / preset / "python" / "switchyard"
            if any(folder.glob("_C*.so")):
                package.__path__.append(str(folder))
                return importlib.import_module("._C", __package__)
        raise ImportError(
            f"switchyard: the compiled module switchyard._C is missing ({first}). "
            "Build it with the library (cmake --build --preset release builds "
            "build/release/python; use PYTHONPATH=build/release/python), or "
            "install the package (cmake --install, the .deb, or the wheel)."
        ) from None


_preload()
_C = _import_extension()
path = os.path.normpath(_C.library_path())
api_version = _C.api_version()
if api_version[0] != 1:
    raise ImportError(
        f"switchyard: {path} speaks C API {api_version[0]}.{api_version[1]}, but this "
        "package needs 1.x; use the package that came with that library")


def text(raw):
    """A C string (bytes or None) as str."""
    return raw.decode("utf-8", "replace") if raw is not None else ""


INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def int64(value, what):
    """`value` (any Python or NumPy integer) as an int that fits a C int64_t,
    or InvalidArgumentError naming `what` (C would otherwise see a wrapped
    value, or Python an OverflowError that names nothing)."""
    number = int(value)
    if not INT64_MIN <= number <= INT64_MAX:
        from ._errors import InvalidArgumentError
        raise InvalidArgumentError(
            f"{what} is {number}, outside the int64 range [-2**63, 2**63 - 1]")
    return number


def __getattr__(name):
    # The raw C API through ctypes, for debugging and tests: sy._library.lib
    # is the same loaded library as _C's (same thread-local last error).
    if name == "lib":
        import ctypes
        lib = ctypes.CDLL(path)
        handle = ctypes.c_void_p
        for function, restype, argtypes in (
                ("sy_op_find", ctypes.c_int, [handle, ctypes.c_char_p, ctypes.POINTER(handle)]),
                ("sy_last_error_message", ctypes.c_char_p, []),
                ("sy_library_version", ctypes.c_char_p, [])):
            getattr(lib, function).restype = restype
            getattr(lib, function).argtypes = argtypes
        globals()["lib"] = lib
        return lib
    if name == "c_handle":
        import ctypes
        return ctypes.c_void_p
    raise AttributeError(f"module 'switchyard._library' has no attribute '{name}'")
