"""`switchyard tune` and `switchyard info --autotune` (docs/autotune.md), run as
a user runs them, over the "planted" test plugin (tests/autotune/test_plugins):
its add.Tensor kernels on fakedev have known speeds and one wrong answer, so
the winner is known (planted.fast_add) and the wrong kernel must never win.
Every test has its own cache folder (SWITCHYARD_CACHE_DIR).

Environment (tests/cli/CMakeLists.txt): SWITCHYARD_CLI, and
SWITCHYARD_AUTOTUNE_TEST_PLUGIN_DIR (v1/ holds planted 1.0.0).
"""
import json
import os
import pathlib
import random
import re
import subprocess

import pytest

CLI = os.environ["SWITCHYARD_CLI"]
PLANTED = pathlib.Path(os.environ["SWITCHYARD_AUTOTUNE_TEST_PLUGIN_DIR"]) / "v1"
FAST = "planted::planted.fast_add"


def tune(*args, cache, plugin_path=PLANTED):
    env = dict(os.environ)
    env.pop("SWITCHYARD_AUTOTUNE", None)
    env["SWITCHYARD_CACHE_DIR"] = str(cache)
    env["SWITCHYARD_PLUGIN_PATH"] = str(plugin_path)
    return subprocess.run([CLI, *args], env=env, capture_output=True, text=True,
                          timeout=300)


def rows_line(result):
    return [line for line in result.stdout.splitlines() if line.startswith("[")]


def test_tune_from_flags_measures_then_the_cache_answers(tmp_path):
    first = tune("tune", "add", "-s", "64x64", "-d", "fakedev", cache=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert re.fullmatch(
        r"\[1/1\] add\.Tensor f32\[64, 64\] f32\[64, 64\] on fakedev -> "
        r"planted::planted\.fast_add [0-9.]+ (ns|us|ms) \(measured, 4 candidate\(s\)\)",
        rows_line(first)[0]), first.stdout
    assert (tmp_path / "autotune-1.sqlite3").exists()
    again = tune("tune", "add", "-s", "64x64", "-d", "fakedev", cache=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert rows_line(again)[0].endswith("(cached, 4 candidate(s))"), again.stdout


def test_explain_shows_each_candidate_and_the_wrong_one_is_out(tmp_path):
    result = tune("tune", "add", "-s", "128x128", "-d", "fakedev", "--explain",
                  cache=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = {line.split()[0]: line for line in result.stdout.splitlines()
             if line.startswith("    planted::")}
    assert set(lines) == {"planted::planted.decliner_add", "planted::planted.slow_add",
                          "planted::planted.wrong_add", FAST}, result.stdout
    assert lines[FAST].rstrip().endswith("<- winner"), lines[FAST]
    assert re.search(r"\s+-\s+wrong\s", lines["planted::planted.wrong_add"]), result.stdout
    assert "<- winner" not in lines["planted::planted.wrong_add"]
    assert "    reference: " in result.stdout


def test_a_case_file_of_random_shapes_tunes_each(tmp_path):
    rng = random.Random(15)
    cases = []
    for _ in range(4):
        shape = [rng.randint(1, 300) for _ in range(rng.randint(1, 3))]
        cases.append({"op": "add", "device": "fakedev",
                      "inputs": [{"dtype": "f32", "shape": shape},
                                 {"dtype": "f32", "shape": shape}]})
    cases.append({"op": "mul", "device": "fakedev",
                  "inputs": [{"shape": [16, 16]}, {"shape": [16, 16], "layout": "transposed"}]})
    case_file = tmp_path / "cases.json"
    case_file.write_text(json.dumps({"cases": cases}))
    result = tune("tune", "--cases", str(case_file), "--json", cache=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = json.loads(result.stdout)
    assert len(rows) == 5
    for row in rows[:4]:
        assert row["ok"], row
        assert row["report"]["winner"]["kernel"] == FAST, row
        outcomes = {c["candidate"]: c["outcome"] for c in row["report"]["candidates"]}
        assert outcomes.get("planted::planted.wrong_add") in ("wrong", None), outcomes
    assert rows[4]["report"]["winner"]["variant_name"] == "fast"


def test_export_then_import_into_another_cache(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    exported = tmp_path / "verdicts.json"
    result = tune("tune", "add", "-s", "32x32", "-d", "fakedev", "--export", str(exported),
                  cache=first)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"exported 1 verdict(s) to {exported}" in result.stdout
    assert json.loads(exported.read_text())["format"] == "switchyard-autotune"

    result = tune("tune", "--import", str(exported), cache=second)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith(
        f"imported 1 verdict(s) from {exported}; 0 already present, 0 ignored"), result.stdout
    info = tune("info", "--autotune", cache=second)
    assert info.returncode == 0, info.stdout + info.stderr
    assert f"Autotune cache: {second / 'autotune-1.sqlite3'}" in info.stdout
    assert re.search(rf"add\.Tensor\s+f32,f32\s+fakedev .* {re.escape(FAST)} .*"
                     r"\(imported from verdicts\.json\)", info.stdout), info.stdout
    assert f"{exported}: 1 imported, 0 present, 0 ignored" in info.stdout
    as_json = json.loads(tune("info", "--autotune", "--json", cache=second).stdout)
    assert as_json["verdicts"] == 1 and as_json["applied"] == 1
    assert as_json["entries"][0]["kernel"] == FAST
    # The tuned call now runs the imported verdict, without measuring.
    result = tune("tune", "add", "-s", "32x32", "-d", "fakedev", cache=second)
    assert rows_line(result)[0].endswith("(cached, 4 candidate(s))"), result.stdout


def test_info_autotune_on_an_empty_cache(tmp_path):
    result = tune("info", "--autotune", cache=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith(
        f"Autotune cache: {tmp_path / 'autotune-1.sqlite3'} (not created yet)\n"
        "  mode cached; 0 verdict(s), 0 applied here, 0 stale"), result.stdout


@pytest.mark.parametrize("args, code, message", [
    (["tune", "nosuch", "-s", "2"], 2, "switchyard tune: no op named 'nosuch'"),
    (["tune", "add", "-s", "2", "--mode", "fast"], 2,
     "switchyard tune: unknown autotune mode 'fast'; use off, cached or on\n"),
    (["tune", "--import", "/nonexistent/verdicts.json"], 1,
     "switchyard tune: cannot read /nonexistent/verdicts.json: No such file or directory\n"),
    (["tune", "--cases", "/nonexistent/cases.json"], 2,
     "switchyard tune: cannot read the case file /nonexistent/cases.json\n"),
    (["tune"], 2, "switchyard tune: name an op (switchyard tune matmul -s 512x512), a case "
                  "file (--cases FILE), or --import FILE / --export FILE\n"),
    (["tune", "add"], 2, "add.Tensor takes tensor arguments (a, b); give a --shape for each"),
    (["tune", "add", "-s", "2", "-t", "f33"], 2, '--dtype "f33" is not a dtype'),
    (["tune", "add", "-s", "2x2", "--transposed", "5"], 2,
     "switchyard tune: --transposed 5: there are inputs 0 to 1\n"),
    (["tune", "sub", "-s", "4", "-d", "fakedev"], 1,
     "nothing to tune: sub.Tensor has no kernel for these dtypes on fakedev:0"),
])
def test_bad_input_is_a_message(tmp_path, args, code, message):
    result = tune(*args, cache=tmp_path)
    assert result.returncode == code, result.stdout + result.stderr
    assert message in result.stderr + result.stdout, result.stdout + result.stderr


def test_a_case_file_that_is_not_a_case_list(tmp_path):
    bad = tmp_path / "cases.json"
    bad.write_text('{"cases": [{"inputs": []}]}')
    result = tune("tune", "--cases", str(bad), cache=tmp_path)
    assert result.returncode == 2
    assert result.stderr == "switchyard tune: tune case 0: 'op' is missing\n", result.stderr


def test_an_import_that_is_not_an_export(tmp_path):
    bad = tmp_path / "verdicts.json"
    bad.write_text('{"format": "something-else"}')
    result = tune("tune", "--import", str(bad), cache=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith(f"switchyard tune: {bad}: "), result.stderr


def test_attributes_from_flags_reach_the_op(tmp_path):
    # A dtype attribute travels as {"dtype": …} in the case; an int as an int.
    result = tune("tune", "cast", "-s", "10", "-a", "dtype=i32", "--json", cache=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)[0]["report"]["winner"]["kernel"].startswith("cpu::cast")
    result = tune("tune", "softmax", "-s", "7x19", "-a", "dim=0", cache=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert rows_line(result)[0].startswith("[1/1] softmax f32[7, 19] on cpu -> "), \
        result.stdout
