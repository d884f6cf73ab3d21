"""switchyard.ops: one callable per op, made from the schema registry when
first used (so plugin-registered ops appear too).

    sy.ops.add(a, b)            # the overloads of "add", tried in order
    sy.ops.add.Scalar(a, 2.0)   # one overload by name
    sy.ops.sum(x, dims=[1], keepdim=True)   # or dim=1, as in PyTorch
    sy.ops.add(a, b, out=c)     # into an existing tensor
    sy.ops.cuda.flash_attention(q, k, v)   # a plugin's namespace

Calls run in the compiled module (_C.OpOverload, _C.OpPacket): arguments
bind by a plan made once per overload from the schema. This file only
builds the objects and their documentation.
"""

import inspect
import keyword

from ._library import _C

# Argument kinds (sy_arg_kind_t).
(ARG_TENSOR, ARG_TENSOR_LIST, ARG_INT, ARG_INT_LIST, ARG_FLOAT, ARG_BOOL,
 ARG_SCALAR, ARG_STRING, ARG_DTYPE, ARG_COMMUNICATOR) = range(10)

# Keyword names accepted besides the schema's (op_plan.cc keeps the same list).
ALIASES = {"dims": ("dim", "axis"), "keepdim": ("keepdims",),
           "causal": ("is_causal",), "mask": ("attn_mask",)}


class Arg:
    """One schema argument, as help() and inspect show it."""

    __slots__ = ("name", "kind", "kind_name", "optional", "has_default", "default",
                 "default_text")

    def __init__(self, name, kind, kind_name, optional, has_default, default, default_text):
        self.name = name
        self.kind = kind
        self.kind_name = kind_name
        self.optional = bool(optional)
        self.has_default = bool(has_default)
        self.default = default if has_default else inspect.Parameter.empty
        self.default_text = default_text

    @property
    def is_tensor(self):
        return self.kind in (ARG_TENSOR, ARG_TENSOR_LIST)

    def __repr__(self):
        text = f"{self.kind_name} {self.name}"
        return f"<Arg {text}{' = ' + self.default_text if self.has_default else ''}>"


def _signature(args):
    # The schema's arguments; out= (every op takes it) is in the docstring.
    return inspect.Signature([
        inspect.Parameter(a.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          default=(None if a.optional and not a.has_default else a.default))
        for a in args])


def _arguments_doc(args):
    lines = []
    for a in args:
        default = f" = {a.default_text}" if a.has_default else ""
        aliases = ALIASES.get(a.name, ())
        also = f" (also {', '.join(aliases)}=)" if aliases else ""
        lines.append(f"    {a.name}: {a.kind_name}{default}{also}")
    return "\n".join(lines)


def make_overload(context, handle):
    """The callable for one overload, documented from its schema."""
    overload = _C.OpOverload(context, handle)
    overload.args = [Arg(*row) for row in overload._arg_table]
    overload.__name__ = overload.overload or overload.name
    overload.__qualname__ = overload.full_name
    overload.__doc__ = (f"{overload.schema}\n\nArguments:\n{_arguments_doc(overload.args)}\n"
                        f"    out: Tensor to write the result into (keyword only)\n\n"
                        f"Registered by {overload.owner}.")
    overload.__signature__ = _signature(overload.args)
    return overload


def make_packet(name, overloads):
    """Every overload of one name; a call runs the first that takes the arguments."""
    packet = _C.OpPacket(name, overloads)
    packet.__name__ = name
    for overload in overloads:
        if overload.overload:
            setattr(packet, _identifier(overload.overload), overload)
    schemas = "\n".join(o.schema for o in overloads)
    owners = ", ".join(sorted({o.owner for o in overloads}))
    if len(overloads) == 1:
        packet.__doc__ = overloads[0].__doc__
        packet.__signature__ = overloads[0].__signature__
    else:
        packet.__doc__ = (f"{schemas}\n\nThe first overload whose schema takes the "
                          f"arguments runs. Pass out= to write into a tensor.\n\n"
                          f"Registered by {owners}.")
    return packet


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


def build_namespace(context):
    """sy.ops for `context`: every op the registry holds right now. Ops whose
    plugin was unloaded meanwhile (another thread) are left out."""
    groups = {}  # (namespace, name) -> [overload], in registration order
    for handle in _C.op_handles(context.handle):
        overload = make_overload(context, handle)
        if not overload.live:
            continue
        groups.setdefault((overload.namespace, overload.name), []).append(overload)
    root = Namespace("switchyard.ops")
    for (namespace, name), overloads in groups.items():
        target = root
        if namespace:
            target = getattr(root, _identifier(namespace), None)
            if not isinstance(target, Namespace):
                target = Namespace(f"switchyard.ops.{namespace}")
                setattr(root, _identifier(namespace), target)
        setattr(target, _identifier(name), make_packet(name, overloads))
    return root
