"""The autotuner from Python (docs/autotune.md, docs/python.md#autotuning):
the mode, tuning a call and a case list for real on cpu with the cpu and
onednn plugins competing, the verdict seen afterwards (by explain and in
the cache), export → import into a fresh cache, and bad input of each kind.

Every test has a cache of its own (SWITCHYARD_CACHE_DIR in a tmp folder) and
small shapes, so the measurements take a few hundred milliseconds."""

import json

import numpy as np
import pytest

import switchyard as sy

# onednn declines calls below its thresholds (Note [Declining small calls]);
# at 0 its kernels are candidates for these small shapes too, beside cpu's.
COMPETING = {"onednn.min_elements": 0, "onednn.min_matmul_flops": 0}
MATMUL = {"cpu::matmul.f32.f32", "onednn::matmul.f32.f32"}


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("SWITCHYARD_CACHE_DIR", str(folder))
    monkeypatch.delenv("SWITCHYARD_AUTOTUNE", raising=False)
    return folder


def make_context():
    try:
        return sy.Context(use_environment=False, allow=["cpu", "onednn"],
                          plugin_options=COMPETING)
    except sy.Error as error:  # a build without oneDNN
        pytest.skip(f"the cpu and onednn plugins do not both load: {error}")


@pytest.fixture
def tctx(cache_dir):
    context = make_context()
    yield context
    context.close()


def random(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def test_mode_is_read_and_switched_by_name(tctx):
    assert tctx.autotune == "cached"  # the default
    tctx.autotune = "on"
    assert tctx.autotune == "on"
    tctx.autotune = "OFF"  # case does not matter
    assert tctx.autotune == "off"
    with pytest.raises(sy.InvalidArgumentError,
                       match="unknown autotune mode 'fast'; use off, cached or on"):
        tctx.autotune = "fast"
    with pytest.raises(TypeError, match=r"autotune mode must be a str .* got int"):
        tctx.autotune = 1
    assert tctx.autotune == "off"  # neither refusal changed it


def test_tuning_a_call_stores_a_verdict_that_later_calls_run(tctx, cache_dir, rng):
    a_np, b_np = random(rng, 48, 64), random(rng, 64, 40)
    a, b = sy.tensor(a_np, context=tctx), sy.tensor(b_np, context=tctx)
    report = tctx.ops.matmul.tune(a, b)
    assert report["op"] == "matmul" and report["device"].startswith("cpu")
    assert report["measured"] and report["written"] and report["applied"]
    assert {c["candidate"] for c in report["candidates"]} == MATMUL
    # Both computed the right result and were timed; the slower may be
    # stopped early (docs/autotune.md, "Rounds").
    assert all(c["outcome"] in ("measured", "stopped early") and c["median_ns"] > 0
               for c in report["candidates"]), report["candidates"]
    winner = report["winner"]["kernel"]
    assert winner in MATMUL

    # The verdict is in the cache, for this bucket, and calls run it.
    verdicts = tctx.autotune_verdicts("matmul")
    assert [(v.kernel, v.dtypes, v.device, v.source) for v in verdicts] == \
        [(winner, "f32,f32", "cpu", "measured")]
    assert verdicts[0].bucket == "2|c:11,11|c:11,11"  # [<=64, <=64] twice, contiguous
    assert tctx.autotune_verdicts("add.Tensor") == []
    assert tctx.ops.matmul.explain(a, b) == f"kernel {winner} (autotuned)"
    got = np.asarray(tctx.ops.matmul(a, b))
    want = a_np.astype(np.float64) @ b_np.astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
    info = tctx.autotune_info()
    assert info["verdicts"] == 1 and info["exists"]
    assert info["path"].startswith(str(cache_dir))

    # Asked again, the cache answers; force measures again, and the cache
    # keeps its first verdict.
    again = tctx.ops.matmul.tune(a, b)
    assert not again["measured"] and again["winner"]["kernel"] == winner
    forced = tctx.ops.matmul.tune(a, b, force=True)
    assert forced["measured"] and forced["winner"]["kernel"] == winner
    # One overload by name tunes the same way.
    assert tctx.ops.matmul.overloads[0].tune(a, b)["key_hash"] == report["key_hash"]


def test_tune_cases_runs_every_case_and_reports_each(tctx):
    cases = [
        {"op": "add.Tensor", "inputs": [{"dtype": "f32", "shape": [300]},
                                        {"dtype": "f32", "shape": [300]}]},
        {"op": "matmul", "device": "cpu",
         "inputs": [{"dtype": "f32", "shape": [32, 16]},
                    {"dtype": "f32", "shape": [16, 8], "layout": "transposed"}]},
        {"op": "no_such_op", "inputs": []},
    ]
    seen = []
    rows = tctx.tune_cases(cases, progress=lambda done, total, row: seen.append(
        (done, total, row["ok"])))
    assert seen == [(1, 3, True), (2, 3, True), (3, 3, False)]
    assert [r["ok"] for r in rows] == [True, True, False]
    assert rows[0]["case"] == "add.Tensor f32[300] f32[300] on cpu"
    assert rows[1]["case"] == "matmul f32[32, 16] f32[16, 8]t on cpu"
    assert rows[1]["report"]["winner"]["kernel"] in MATMUL
    assert "no_such_op" in rows[2]["error"] and "report" not in rows[2]
    assert {v.op for v in tctx.autotune_verdicts()} == {"add.Tensor", "matmul"}

    # The same document as a file, and as {"cases": [...]}: the cache answers.
    rows = tctx.tune_cases({"cases": cases[:1]})
    assert rows[0]["ok"] and not rows[0]["report"]["measured"]


def test_a_progress_callback_that_raises_is_raised_after_the_cases(tctx, tmp_path):
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"cases": [
        {"op": "relu", "inputs": [{"dtype": "f32", "shape": [64]}]},
        {"op": "neg", "inputs": [{"dtype": "f32", "shape": [64]}]}]}))
    calls = []

    def progress(done, total, row):
        calls.append(done)
        raise KeyError("stop")

    with pytest.raises(KeyError, match="stop"):
        tctx.tune_cases(path, progress=progress)
    assert calls == [1]  # not called again after it raised
    assert {v.op for v in tctx.autotune_verdicts()} == {"relu", "neg"}  # both ran


def test_export_then_import_into_a_fresh_cache(tmp_path, monkeypatch, rng):
    monkeypatch.delenv("SWITCHYARD_AUTOTUNE", raising=False)
    monkeypatch.setenv("SWITCHYARD_CACHE_DIR", str(tmp_path / "first"))
    exported = tmp_path / "verdicts.json"
    with make_context() as first:
        a = sy.tensor(random(rng, 64, 64), context=first)
        winner = first.ops.matmul.tune(a, a)["winner"]["kernel"]
        assert first.autotune_export(exported) == 1
        assert first.autotune_export(str(exported), all_devices=True) == 1
    document = json.loads(exported.read_text())
    assert document["format"] == "switchyard-autotune" and document["version"] == 1
    assert [v["kernel"] for v in document["verdicts"]] == [winner]

    monkeypatch.setenv("SWITCHYARD_CACHE_DIR", str(tmp_path / "second"))
    with make_context() as second:
        assert second.autotune_verdicts() == []
        a = sy.tensor(random(rng, 64, 64), context=second)
        assert "autotuned" not in second.ops.matmul.explain(a, a)
        record = second.autotune_import(exported)
        assert (record["imported"], record["present"], record["ignored"]) == (1, 0, 0)
        assert record["file"] == str(exported)
        [verdict] = second.autotune_verdicts()
        assert verdict.kernel == winner and verdict.source.startswith("imported")
        assert second.ops.matmul.explain(a, a) == f"kernel {winner} (autotuned)"
        assert not second.ops.matmul.tune(a, a)["measured"]  # the import answers
        again = second.autotune_import(exported)
        assert (again["imported"], again["present"]) == (0, 1)
        assert len(second.autotune_info()["imports"]) == 2


def test_bad_input_is_refused_with_the_reason(tctx, tmp_path, rng):
    a = sy.tensor(random(rng, 8, 8), context=tctx)
    # Import: a missing file, a file that is not JSON, one of another format.
    with pytest.raises(sy.NotFoundError, match="cannot read .*missing.json"):
        tctx.autotune_import(tmp_path / "missing.json")
    garbage = tmp_path / "garbage.json"
    garbage.write_text("not json at all")
    with pytest.raises(sy.InvalidArgumentError, match="autotune export: the file is not JSON"):
        tctx.autotune_import(garbage)
    garbage.write_text('{"format": "something-else", "version": 1, "verdicts": []}')
    with pytest.raises(sy.InvalidArgumentError, match='"format" is not "switchyard-autotune"'):
        tctx.autotune_import(garbage)
    # Wrong types.
    with pytest.raises(TypeError, match="path must be a str or os.PathLike path, got int"):
        tctx.autotune_import(3)
    with pytest.raises(TypeError, match="all_devices must be a bool, got int"):
        tctx.autotune_export(tmp_path / "x.json", all_devices=1)
    with pytest.raises(TypeError, match="tune\\(\\): force must be a bool, got int"):
        tctx.ops.matmul.tune(a, a, force=1)
    with pytest.raises(TypeError, match="force must be a bool, got str"):
        tctx.tune_cases([], force="yes")
    with pytest.raises(TypeError, match="cases must be a path to a case file"):
        tctx.tune_cases(42)
    with pytest.raises(TypeError, match="progress must be callable or None, got int"):
        tctx.tune_cases([], progress=1)
    with pytest.raises(TypeError, match="op must be an op name"):
        tctx.autotune_verdicts(1)
    # Case documents that are not case lists: nothing runs.
    with pytest.raises(sy.NotFoundError, match="cannot read the case file .*nope.json"):
        tctx.tune_cases(tmp_path / "nope.json")
    with pytest.raises(sy.InvalidArgumentError, match="tune case 0: 'op' is missing"):
        tctx.tune_cases([{"inputs": []}])
    with pytest.raises(sy.InvalidArgumentError,
                       match="tune case 1: 'inputs' is missing or not a list"):
        tctx.tune_cases([{"op": "relu", "inputs": [{"shape": [4]}]}, {"op": "relu"}])
    with pytest.raises(sy.InvalidArgumentError, match=r"expected a JSON object \{\"cases\""):
        tctx.tune_cases({"no_cases": []})
    assert tctx.autotune_verdicts() == []
    # A call the op does not take, and a call no kernel serves.
    with pytest.raises(sy.InvalidArgumentError, match="matmul: .*'b'"):
        tctx.ops.matmul.tune(a)
    ints = sy.tensor(np.ones((4, 4), np.int8), context=tctx)
    with pytest.raises(sy.Error):
        tctx.ops.matmul.tune(ints, a)
    assert tctx.autotune_verdicts() == []
    # A closed context.
    tctx.close()
    with pytest.raises(sy.FailedPreconditionError, match="was closed"):
        tctx.autotune = "on"
