"""The package's stubs (PEP 561) cover what it exports: every name of
sy.__all__, every public attribute of sy.Context, and per op a class that is
called, explained and tuned (docs/python.md#types)."""

import ast
from pathlib import Path

import pytest

import switchyard as sy

FOLDER = Path(sy.__file__).parent


def parse(name):
    path = FOLDER / name
    if not path.exists():
        pytest.skip(f"{path} is not there (the build writes the generated stubs)")
    return ast.parse(path.read_text())


def declared(body):
    names = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def class_body(tree, name):
    [node] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    return node.body


def test_every_export_and_context_attribute_is_typed():
    tree = parse("__init__.pyi")
    assert set(sy.__all__) - declared(tree.body) == set()
    context = declared(class_body(tree, "Context"))
    public = {n for n in dir(sy.Context) if not n.startswith("_")}
    assert public - context == set()
    assert {"autotune", "tune_cases", "autotune_export", "autotune_import",
            "autotune_info", "autotune_verdicts"} <= context


def test_each_op_is_called_explained_and_tuned_in_the_generated_stubs():
    tree = parse("_generated_ops.pyi")
    ops = {n.target.id: n.annotation.id for n in class_body(tree, "Ops")
           if isinstance(n, ast.AnnAssign)}
    assert {"matmul", "add", "softmax", "conv2d"} <= set(ops)
    methods = class_body(tree, ops["matmul"])
    by_name = {n.name: n for n in methods if isinstance(n, ast.FunctionDef)}
    assert {"__call__", "explain", "tune"} <= set(by_name)
    tune = by_name["tune"]
    assert [a.arg for a in tune.args.args] == ["self", "a", "b"]
    assert "force" in [a.arg for a in tune.args.kwonlyargs]
    assert ast.unparse(tune.returns) == "TuneReport"
    assert ast.unparse(by_name["explain"].returns) == "str"
    # Overloads of one method stay together, as type checkers require.
    add = [n.name for n in class_body(tree, ops["add"]) if isinstance(n, ast.FunctionDef)]
    assert add == sorted(add, key=["__getattr__", "__call__", "explain", "tune"].index)
    with sy.Context(use_environment=False, use_default_path=False) as core:  # as _stubgen
        assert add.count("tune") == len(core.ops.add.overloads) == 2
