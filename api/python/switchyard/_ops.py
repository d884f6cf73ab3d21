"""switchyard.ops: one Python function per op, generated from the schema
registry when first used (so plugin-registered ops appear too).

    sy.ops.add(a, b)            # the overloads of "add", tried in order
    sy.ops.add.Scalar(a, 2.0)   # one overload by name
    sy.ops.sum(x, dims=[1], keepdim=True)
    sy.ops.cuda.flash_attention(q, k, v)   # a plugin's namespace

Arguments bind like Python's: positionally in schema order or by name;
omitted ones take the schema's defaults. Python ints and floats are
accepted for Scalar, int, float and int[] arguments, a switchyard/NumPy
dtype or a name for ScalarType.
"""

import ctypes
import inspect
import keyword
import numbers

from . import _dtypes
from . import _library as _l
from ._errors import InvalidArgumentError, check

_MISSING = object()


class _BindError(Exception):
    """An overload does not accept these arguments (the message says why)."""


class _Arg:
    __slots__ = ("name", "kind", "kind_name", "optional", "has_default", "default",
                 "default_text", "tensor_index", "attr_index")

    def __init__(self, raw):
        self.name = _l.text(raw.name)
        self.kind = raw.kind
        self.kind_name = _l.text(raw.kind_name)
        self.optional = bool(raw.optional)
        self.has_default = bool(raw.has_default)
        self.default_text = _l.text(raw.default_text)
        self.tensor_index = raw.tensor_index
        self.attr_index = raw.attr_index
        self.default = _decode(raw.default_value) if self.has_default else inspect.Parameter.empty

    @property
    def is_tensor(self):
        return self.kind in (_l.ARG_TENSOR, _l.ARG_TENSOR_LIST)


def _decode(attr):
    kind = attr.kind
    if kind == _l.ATTR_INT:
        return attr.value.i
    if kind == _l.ATTR_FLOAT:
        return attr.value.f
    if kind == _l.ATTR_BOOL:
        return bool(attr.value.b)
    if kind == _l.ATTR_INTS:
        return [attr.value.ints.data[i] for i in range(attr.value.ints.size)]
    if kind == _l.ATTR_STRING:
        return _l.text(attr.value.str.data)
    if kind == _l.ATTR_DTYPE:
        return _dtypes.from_value(attr.value.dtype)
    return None


def _type_name(value):
    return type(value).__name__


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _int64(arg, value, index=None):
    """An int attribute's value, or _BindError when int64 cannot hold it."""
    what = f"argument '{arg.name}'" + ("" if index is None else f"[{index}]")
    try:
        return _l.int64(value, what)
    except InvalidArgumentError as error:
        raise _BindError(str(error)) from None


def _encode(arg, value, keep):
    """The sy_attr_t for one attribute value, or _BindError."""
    attr = _l.Attr()
    if value is None:
        if not arg.optional:
            raise _BindError(f"argument '{arg.name}' ({arg.kind_name}) is not optional")
        attr.kind = _l.ATTR_NONE
        return attr
    kind = arg.kind
    if kind == _l.ARG_INT and _is_int(value):
        attr.kind, attr.value.i = _l.ATTR_INT, _int64(arg, value)
    elif kind == _l.ARG_FLOAT and isinstance(value, numbers.Real) and not isinstance(value, bool):
        attr.kind, attr.value.f = _l.ATTR_FLOAT, _float(arg, value)
    elif kind == _l.ARG_SCALAR and isinstance(value, numbers.Real):
        if isinstance(value, numbers.Integral):
            attr.kind, attr.value.i = _l.ATTR_INT, _int64(arg, value)
        else:
            attr.kind, attr.value.f = _l.ATTR_FLOAT, _float(arg, value)
    elif kind == _l.ARG_BOOL and isinstance(value, (bool, _np_bool())):
        attr.kind, attr.value.b = _l.ATTR_BOOL, int(bool(value))
    elif kind == _l.ARG_INT_LIST and (_is_int(value) or _is_int_sequence(value)):
        values = ([_int64(arg, value)] if _is_int(value)
                  else [_int64(arg, v, i) for i, v in enumerate(value)])
        array = (ctypes.c_int64 * max(len(values), 1))(*values)
        keep.append(array)
        attr.kind = _l.ATTR_INTS
        attr.value.ints.data = ctypes.cast(array, ctypes.POINTER(ctypes.c_int64))
        attr.value.ints.size = len(values)
    elif kind == _l.ARG_STRING and isinstance(value, str):
        raw = value.encode()
        buffer = ctypes.create_string_buffer(raw)
        keep.append(buffer)
        attr.kind = _l.ATTR_STRING
        attr.value.str.data = ctypes.cast(buffer, ctypes.c_char_p)
        attr.value.str.size = len(raw)
    elif kind == _l.ARG_DTYPE:
        try:
            attr.kind, attr.value.dtype = _l.ATTR_DTYPE, _dtypes.as_dtype(value).value
        except (TypeError, ValueError) as error:
            raise _BindError(f"argument '{arg.name}' (ScalarType): {error}") from None
    else:
        raise _BindError(f"argument '{arg.name}' must be {arg.kind_name}, "
                         f"got {_type_name(value)}")
    return attr


def _float(arg, value):
    """A float attribute's value; an int too large for a double is a _BindError
    (float() would raise OverflowError, which names no argument)."""
    try:
        return float(value)
    except OverflowError:
        raise _BindError(f"argument '{arg.name}' is {value}, too large for a "
                         "float (double)") from None


def _np_bool():
    import numpy as np
    return np.bool_


def _is_int_sequence(value):
    return isinstance(value, (list, tuple)) and all(_is_int(v) for v in value)


class OpOverload:
    """One op overload (one schema), callable."""

    def __init__(self, context, handle):
        self._context = context
        self._handle = handle
        info = _l.OpInfo(struct_size=ctypes.sizeof(_l.OpInfo))
        check(_l.lib.sy_op_get_info(handle, ctypes.byref(info)))
        self.full_name = _l.text(info.full_name)
        self.namespace = _l.text(info.ns)
        self.name = _l.text(info.name)
        self.overload = _l.text(info.overload)
        self.schema = _l.text(info.schema)
        self.owner = _l.text(info.owner)
        self.num_outputs = info.num_outputs
        self.live = bool(info.live)
        self._num_attrs = info.num_attrs
        self.args = []
        for i in range(info.num_args):
            raw = _l.OpArg(struct_size=ctypes.sizeof(_l.OpArg))
            check(_l.lib.sy_op_get_arg(handle, i, ctypes.byref(raw)))
            self.args.append(_Arg(raw))
        self._by_name = {a.name: a for a in self.args}
        self.__name__ = self.overload or self.name
        self.__qualname__ = self.full_name
        self.__doc__ = f"{self.schema}\n\nRegistered by {self.owner}."
        self.__signature__ = inspect.Signature([
            inspect.Parameter(a.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                              default=(None if a.optional and not a.has_default else a.default))
            for a in self.args])

    def __repr__(self):
        return f"<switchyard op {self.schema}>"

    def _bind(self, args, kwargs):
        from ._tensor import Tensor
        if len(args) > len(self.args):
            raise _BindError(f"takes {len(self.args)} argument(s) but {len(args)} were given")
        values = dict(zip((a.name for a in self.args), args))
        for name, value in kwargs.items():
            if name not in self._by_name:
                raise _BindError(f"got an unexpected keyword argument '{name}'")
            if name in values:
                raise _BindError(f"got multiple values for argument '{name}'")
            values[name] = value
        inputs, attrs, keep = [], [None] * self._num_attrs, []
        for arg in self.args:
            value = values.get(arg.name, _MISSING)
            if value is _MISSING and not (arg.has_default or arg.optional):
                raise _BindError(f"missing required argument '{arg.name}' ({arg.kind_name})")
            if arg.kind == _l.ARG_TENSOR:
                if value is _MISSING or value is None:
                    if not arg.optional:
                        raise _BindError(f"argument '{arg.name}' must be a Tensor, got None")
                    inputs.append(None)
                elif isinstance(value, Tensor):
                    inputs.append(value.handle)
                else:
                    hint = "; wrap it with switchyard.tensor()" if hasattr(value, "__array__") else ""
                    raise _BindError(f"argument '{arg.name}' must be a Tensor, "
                                     f"got {_type_name(value)}{hint}")
            elif arg.kind == _l.ARG_TENSOR_LIST:
                if not isinstance(value, (list, tuple)) or not all(
                        isinstance(v, Tensor) for v in value):
                    raise _BindError(f"argument '{arg.name}' must be a list of Tensors, "
                                     f"got {_type_name(value)}")
                inputs.extend(v.handle for v in value)
            elif value is _MISSING:
                attrs[arg.attr_index] = _l.Attr(kind=_l.ATTR_DEFAULT)
            else:
                attrs[arg.attr_index] = _encode(arg, value, keep)
        while attrs and attrs[-1] is not None and attrs[-1].kind == _l.ATTR_DEFAULT:
            attrs.pop()
        return inputs, attrs, keep

    def _invoke(self, inputs, attrs):
        from ._tensor import Tensor
        c_inputs = (_l.c_handle * max(len(inputs), 1))(*inputs)
        c_attrs = (_l.Attr * max(len(attrs), 1))(*attrs)
        outputs = (_l.c_handle * self.num_outputs)()
        check(_l.lib.sy_op_call(self._handle, c_inputs, len(inputs), c_attrs, len(attrs),
                                outputs, self.num_outputs))
        results = tuple(Tensor(self._context, h) for h in outputs)
        return results[0] if self.num_outputs == 1 else results

    def __call__(self, *args, **kwargs):
        try:
            inputs, attrs, keep = self._bind(args, kwargs)
        except _BindError as error:
            raise InvalidArgumentError(f"{self.full_name}: {error}; schema: {self.schema}") from None
        result = self._invoke(inputs, attrs)
        del keep  # the attribute buffers lived through the call
        return result

    def explain(self, *args, **kwargs):
        """How a call with these arguments would run (which kernel, plugin), without running it."""
        try:
            inputs, attrs, keep = self._bind(args, kwargs)
        except _BindError as error:
            raise InvalidArgumentError(f"{self.full_name}: {error}; schema: {self.schema}") from None
        c_inputs = (_l.c_handle * max(len(inputs), 1))(*inputs)
        c_attrs = (_l.Attr * max(len(attrs), 1))(*attrs)
        text = ctypes.c_char_p()
        check(_l.lib.sy_op_explain(self._handle, c_inputs, len(inputs), c_attrs, len(attrs),
                                   ctypes.byref(text)))
        del keep
        return _l.text(text.value)


class OpPacket:
    """Every overload of one op name; calling it picks the first overload
    whose schema accepts the arguments."""

    def __init__(self, name, overloads):
        self.__name__ = name
        self.overloads = overloads
        for overload in overloads:
            if overload.overload:
                setattr(self, _identifier(overload.overload), overload)
        schemas = "\n".join(o.schema for o in overloads)
        owners = sorted({o.owner for o in overloads})
        self.__doc__ = f"{schemas}\n\nRegistered by {', '.join(owners)}."
        if len(overloads) == 1:
            self.__signature__ = overloads[0].__signature__

    def _choose(self, args, kwargs):
        if len(self.overloads) == 1:
            overload = self.overloads[0]
            try:
                return overload, overload._bind(args, kwargs)
            except _BindError as error:
                raise InvalidArgumentError(
                    f"{overload.full_name}: {error}; schema: {overload.schema}") from None
        problems = []
        for overload in self.overloads:
            try:
                return overload, overload._bind(args, kwargs)
            except _BindError as error:
                problems.append(f"  {overload.schema}: {error}")
        raise InvalidArgumentError(
            f"{self.overloads[0].namespace + '::' if self.overloads[0].namespace else ''}"
            f"{self.__name__}: no overload accepts these arguments:\n" + "\n".join(problems))

    def __call__(self, *args, **kwargs):
        overload, (inputs, attrs, keep) = self._choose(args, kwargs)
        result = overload._invoke(inputs, attrs)
        del keep
        return result

    def explain(self, *args, **kwargs):
        overload, _ = self._choose(args, kwargs)
        return overload.explain(*args, **kwargs)

    def __repr__(self):
        return f"<switchyard op {self.__name__}: {len(self.overloads)} overload(s)>"


class Namespace:
    """Ops as attributes; plugin namespaces as nested Namespaces."""

    def __init__(self, name):
        self.__name__ = name

    def __repr__(self):
        names = sorted(n for n in vars(self) if not n.startswith("_"))
        return f"<switchyard ops namespace {self.__name__!r}: {len(names)} names>"

    def __dir__(self):
        return sorted(n for n in vars(self) if not n.startswith("_"))


def _identifier(name):
    return name + "_" if keyword.iskeyword(name) else name


def _op_handles(context):
    """Every op handle of `context`, read as one consistent list.

    sy_op_count and sy_op_get are separate calls: a plugin unloaded by
    another thread in between shortens the list (sy_op_get then says
    OUT_OF_RANGE), one loaded lengthens it. So the list is read until a
    count taken after the last sy_op_get still matches the first."""
    from ._errors import OutOfRangeError
    for _ in range(100):
        count = ctypes.c_int32()
        check(_l.lib.sy_op_count(context.handle, ctypes.byref(count)))
        handles = []
        try:
            for i in range(count.value):
                handle = _l.c_handle()
                check(_l.lib.sy_op_get(context.handle, i, ctypes.byref(handle)))
                handles.append(handle.value)
        except OutOfRangeError:
            continue  # it shrank while we read: read again
        after = ctypes.c_int32()
        check(_l.lib.sy_op_count(context.handle, ctypes.byref(after)))
        if after.value == count.value:
            return handles
    from ._errors import UnavailableError
    raise UnavailableError("switchyard.ops: the op list kept changing while it was "
                           "read (plugins loading and unloading without pause); "
                           "try again")


def build_namespace(context):
    """sy.ops for `context`: every op the registry holds right now."""
    groups = {}  # (namespace, name) -> [OpOverload], in registration order
    for handle in _op_handles(context):
        overload = OpOverload(context, handle)
        if not overload.live:
            continue  # its plugin was unloaded while the list was read
        groups.setdefault((overload.namespace, overload.name), []).append(overload)
    root = Namespace("switchyard.ops")
    for (namespace, name), overloads in groups.items():
        target = root
        if namespace:
            target = getattr(root, _identifier(namespace), None)
            if not isinstance(target, Namespace):
                target = Namespace(f"switchyard.ops.{namespace}")
                setattr(root, _identifier(namespace), target)
        setattr(target, _identifier(name), OpPacket(name, overloads))
    return root
