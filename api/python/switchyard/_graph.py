"""Graphs: capture ops once, fuse them, replay them (docs/python.md#graphs).

    with sy.graph() as g:                 # this thread records, runs nothing
        x = g.input(x0)                   # symbolic, shaped like x0
        g.output(sy.ops.softmax(x * w, -1))
    y = g(x1)                             # fused kernels on new inputs

    @sy.compile
    def block(x, w):
        return sy.ops.gelu(x @ w, approximate="tanh")
    block(a, b)                           # captures, compiles, runs
    block(c, d)                           # same signature: replays

The C API's graph functions (switchyard/graph.h) do the work; this file
adds the Python shapes of them.
"""

import functools
import threading
import warnings

from ._context import default_context
from ._errors import Error
from ._library import _C

__all__ = ["Graph", "graph", "compile", "CompiledFunction", "GraphBreakWarning"]

_PATTERNS = {"measured": 0, "always": 1, "off": 2}


class GraphBreakWarning(UserWarning):
    """A function given to sy.compile could not be captured and runs
    eagerly (op by op) for that input signature."""


def _compile_flags(fuse, plugin_compilers, decompose, patterns):
    if patterns not in _PATTERNS:
        raise ValueError(f"patterns must be one of {', '.join(_PATTERNS)}, not {patterns!r}")
    return (bool(fuse), bool(plugin_compilers), bool(decompose), _PATTERNS[patterns])


class Graph:
    """A captured graph. Made by `with sy.graph() as g:`; after the block it
    is compiled, and calling it — g(x, y), one tensor per g.input in order —
    launches it on new inputs of the captured dtypes, shapes and devices.
    It returns one tensor per g.output (a tuple when there are several).

    Inside the block, every op the thread calls is recorded, not run: its
    results are symbolic tensors (dtype, shape, device; no values), which
    more ops take and g.output marks. Real tensors the ops read without
    being declared with g.input are constants (weights): read at every
    launch, so an update in place is seen. An op whose output shape depends
    on values ends the capture; the error leaves the with block."""

    def __init__(self, context=None, *, uncapturable=(), fuse=True, plugin_compilers=True,
                 decompose=True, patterns="measured"):
        self._context = context if context is not None else default_context()
        self._uncapturable = tuple(uncapturable)
        self._flags = _compile_flags(fuse, plugin_compilers, decompose, patterns)
        self._handle = None
        self._capturing = False
        self._num_outputs = 0

    # ---- capture -----------------------------------------------------------
    def __enter__(self):
        if self._handle is not None or self._capturing:
            raise RuntimeError("a switchyard.Graph is captured once; make a new sy.graph()")
        _C.graph_capture_begin(self._context.handle, self._uncapturable)
        self._capturing = True
        return self

    def input(self, example, name=None):
        """Declares the next input, shaped like `example` (a Tensor; its
        values are never read). Returns the symbolic tensor to compute with."""
        self._check_capturing("input")
        return _C.graph_capture_input(self._context.handle, self._context, example, name)

    def output(self, *tensors, name=None):
        """Marks tensors (results of the captured ops, inputs, or real
        tensors) as the next outputs, in order."""
        self._check_capturing("output")
        for tensor in tensors:
            _C.graph_capture_output(self._context.handle, tensor, name)

    def __exit__(self, kind, error, traceback):
        self._capturing = False
        if kind is not None:
            # The body failed: end the capture and drop what it recorded;
            # the body's exception is the one that matters.
            try:
                _C.graph_release(_C.graph_capture_end(self._context.handle))
            except Error:
                pass
            return False
        self._handle = _C.graph_capture_end(self._context.handle)
        self._num_outputs = _C.graph_info(self._handle)[1]
        self.compile_with(*self._flags)
        return False

    def _check_capturing(self, what):
        if not self._capturing:
            raise RuntimeError(f"Graph.{what}() is for inside the `with sy.graph() as g:` "
                               "block that captures")

    # ---- compile, launch ---------------------------------------------------
    def compile(self, *, fuse=True, plugin_compilers=True, decompose=True,
                patterns="measured"):
        """Compiles again with other options (after the with block, the
        graph is compiled with those sy.graph() was given)."""
        self.compile_with(*_compile_flags(fuse, plugin_compilers, decompose, patterns))

    def compile_with(self, fuse, plugin_compilers, decompose, patterns):
        _C.graph_compile(self._live(), fuse, plugin_compilers, decompose, patterns)

    def __call__(self, *inputs):
        outputs = self._launch(inputs)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _launch(self, inputs):
        return _C.graph_launch(self._live(), self._context, inputs, self._num_outputs)

    # ---- queries -----------------------------------------------------------
    @property
    def inputs(self):
        """(name, dtype, shape, device label) of each input."""
        return [self._value(False, i) for i in range(self.info()["num_inputs"])]

    @property
    def outputs(self):
        return [self._value(True, i) for i in range(self.info()["num_outputs"])]

    def info(self):
        """Counts and the current compilation's statistics (sy_graph_info_t)."""
        names = ("num_inputs", "num_outputs", "num_ops", "compiled", "fused_groups",
                 "fused_ops", "unfused_groups", "patterns", "kernels_compiled",
                 "kernels_from_memory", "kernels_from_disk", "compile_ms")
        return dict(zip(names, _C.graph_info(self._live())))

    def explain(self, *, json=False, kernels=False):
        """How the graph runs: each fused group with its ops, its kernel and
        the plugin that compiled it, each op that runs alone and why. With
        json=True a dict (fields: docs/c-api.md, sy_graph_explain)."""
        text = _C.graph_explain(self._live(), (1 if json else 0) | (2 if kernels else 0))
        if json:
            import json as _json
            return _json.loads(text)
        return text

    def _value(self, is_output, index):
        from ._dtypes import ALL
        name, dtype, shape, device = _C.graph_value(self._live(), is_output, index)
        dtype = next((d for d in ALL if d.value == dtype), dtype)
        return (name, dtype, shape, self._context._device(device).label)

    def _live(self):
        if self._handle is None:
            raise RuntimeError("the graph is not captured yet (or was released)")
        return self._handle

    def release(self):
        """Frees the graph now (else when it is garbage-collected)."""
        handle, self._handle = self._handle, None
        if handle is not None:
            _C.graph_release(handle)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle is not None:
            try:
                _C.graph_release(handle)
            except Exception:  # noqa: BLE001 — the context may be gone
                pass

    def __repr__(self):
        if self._handle is None:
            return "<switchyard.Graph capturing>" if self._capturing else \
                "<switchyard.Graph (none)>"
        i = self.info()
        return (f"<switchyard.Graph {i['num_inputs']} input(s), {i['num_outputs']} "
                f"output(s), {i['num_ops']} op(s); {i['fused_groups']} fused group(s)>")


def graph(context=None, **options):
    """`with sy.graph() as g:` — see Graph. Options: uncapturable (more op
    names that end a capture), fuse, plugin_compilers, decompose, patterns
    ("measured", "always", "off")."""
    return Graph(context, **options)


# ---- sy.compile ------------------------------------------------------------

_EAGER = object()  # a signature that runs eagerly (capture failed)


def _flatten(value, tensors):
    """The structure of `value` with each Tensor replaced by its index in
    `tensors` (appended); the structure is hashable when the rest is."""
    from ._tensor import Tensor
    if isinstance(value, Tensor):
        tensors.append(value)
        return ("T", len(tensors) - 1)
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_flatten(v, tensors) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _flatten(v, tensors)) for k, v in sorted(value.items())))
    return ("V", value)


def _rebuild(structure, tensors):
    tag, body = structure
    if tag == "T":
        return tensors[body]
    if tag in ("tuple", "list"):
        items = [_rebuild(item, tensors) for item in body]
        return tuple(items) if tag == "tuple" else items
    if tag == "dict":
        return {k: _rebuild(v, tensors) for k, v in body}
    return body


def _tensor_key(t):
    # Strides matter only for inputs that are not contiguous: a graph
    # captured contiguous takes any layout (copied), a strided one the same.
    return (t.dtype.name, tuple(t.shape), t.device.label,
            None if t.is_contiguous else tuple(t.strides))


class CompiledFunction:
    """What sy.compile returns: calls `fn` through graphs, one per input
    signature (each tensor's dtype, shape, device and — if not contiguous —
    strides, and the values of the other arguments)."""

    def __init__(self, fn, context, fullgraph, cache_size_limit, options):
        self._fn = fn
        self._context = context
        self._fullgraph = fullgraph
        self._limit = cache_size_limit
        self._flags = _compile_flags(**options)
        self._lock = threading.Lock()
        self._cache = {}  # signature -> (Graph, output structure) or _EAGER
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        tensors = []
        structure = _flatten((args, kwargs), tensors)
        try:
            signature = (structure, tuple(_tensor_key(t) for t in tensors))
            hash(signature)
        except TypeError:
            return self._eager(args, kwargs, "an argument is not hashable (the graph "
                               "would bake its value in)", key=None)
        with self._lock:
            entry = self._cache.get(signature)
        if entry is _EAGER:
            return self._fn(*args, **kwargs)
        if entry is None:
            with self._lock:
                full = len(self._cache) >= self._limit
            if full:
                return self._eager(args, kwargs, f"cache_size_limit ({self._limit}) input "
                                   "signatures are captured already", key=signature)
            entry = self._capture(structure, tensors, args, kwargs, signature)
            if entry is _EAGER:
                return self._fn(*args, **kwargs)
        g, out_structure = entry
        return _rebuild(out_structure, g._launch(tensors))

    def _capture(self, structure, tensors, args, kwargs, signature):
        context = self._context or (tensors[0].context if tensors else default_context())
        g = Graph(context)
        try:
            with g:
                symbolic = [g.input(t) for t in tensors]
                s_args, s_kwargs = _rebuild(structure, symbolic)
                result = self._fn(*s_args, **s_kwargs)
                outputs = []
                out_structure = _flatten(result, outputs)
                if not outputs:
                    raise _NoTensorOutput()
                g.output(*outputs)
            g.compile_with(*self._flags)
        except _NoTensorOutput:
            return self._break(signature, "it returns no tensor")
        except Error as error:
            if self._fullgraph:
                raise
            return self._break(signature, str(error))
        with self._lock:
            entry = self._cache.setdefault(signature, (g, out_structure))
        return entry

    def _break(self, signature, why):
        warnings.warn(f"sy.compile: {self.__qualname__} runs eagerly for this input "
                      f"signature: {why}", GraphBreakWarning, stacklevel=4)
        with self._lock:
            self._cache[signature] = _EAGER
        return _EAGER

    def _eager(self, args, kwargs, why, key):
        if self._fullgraph:
            raise RuntimeError(f"sy.compile(fullgraph=True): {self.__qualname__}: {why}")
        if key is not None:
            self._break(key, why)
        else:
            warnings.warn(f"sy.compile: {self.__qualname__} runs eagerly: {why}",
                          GraphBreakWarning, stacklevel=3)
        return self._fn(*args, **kwargs)

    def graphs(self):
        """The graphs captured so far, by signature (eager ones left out)."""
        with self._lock:
            return {k: v[0] for k, v in self._cache.items() if v is not _EAGER}


class _NoTensorOutput(Exception):
    pass


def compile(fn=None, *, context=None, fullgraph=False, cache_size_limit=8, fuse=True,
            plugin_compilers=True, decompose=True, patterns="measured"):
    """Compiles `fn` into graphs (usable as @sy.compile or
    @sy.compile(fullgraph=True, ...)).

    The first call with an input signature — each tensor argument's dtype,
    shape, device (and strides when not contiguous), and the values of the
    other arguments, which the graph bakes in — calls `fn` once on symbolic
    tensors to capture it, compiles the graph (fusing what the device's
    plugin can) and launches it; later calls with that signature launch it
    again. Tensors may sit in tuples, lists and dicts; `fn` returns a tensor
    or such a structure of them.

    When `fn` cannot be captured for a signature (an op whose output shape
    depends on values, Python that reads a tensor's values — `if x.sum() >
    0:`, float(x), x.numpy() — or an unhashable argument), it runs eagerly
    for that signature from then on, with a GraphBreakWarning; with
    fullgraph=True the error is raised instead. Past cache_size_limit
    signatures, new ones run eagerly (with a warning). Exceptions other than
    switchyard.Error propagate.

    Python side effects in `fn` happen once per signature (at capture), as
    with torch.compile; values computed from tensors outside the returned
    ones are not kept."""
    options = dict(fuse=fuse, plugin_compilers=plugin_compilers, decompose=decompose,
                   patterns=patterns)

    def wrap(f):
        return CompiledFunction(f, context, fullgraph, cache_size_limit, options)

    return wrap if fn is None else wrap(fn)
