"""The `switchyard` command line, run as a user runs it.

Environment (set by tests/cli/CMakeLists.txt):
  SWITCHYARD_CLI              the switchyard binary
  SWITCHYARD_TEST_PLUGIN_DIR  the test plugins (good and broken, one folder each)
  HOSTILE_PLUGIN_DIR          the hostile corpus (tests/hostile)
  SWITCHYARD_PLUGIN_DIR       the in-tree plugins (cpu), for tests that name
                              their plugin folders explicitly
"""
import json
import os
import pathlib
import re
import subprocess

import pytest

CLI = os.environ["SWITCHYARD_CLI"]
TEST_PLUGINS = pathlib.Path(os.environ["SWITCHYARD_TEST_PLUGIN_DIR"])
HOSTILE = pathlib.Path(os.environ["HOSTILE_PLUGIN_DIR"])
PLUGINS = pathlib.Path(os.environ.get("SWITCHYARD_PLUGIN_DIR", "/nonexistent"))


def switchyard(*args, plugin_path=None):
    env = dict(os.environ)
    env.pop("SWITCHYARD_PLUGIN_PATH", None)
    # Under AddressSanitizer a crash would be caught by ASan's handler, which
    # exits with status 1; let signals kill the process as they do in a
    # release build, so a probe child's death reads the same in both.
    if "ASAN_OPTIONS" in env:
        env["ASAN_OPTIONS"] += ":handle_segv=0:handle_abort=0"
    if plugin_path is not None:
        env["SWITCHYARD_PLUGIN_PATH"] = str(plugin_path)
    return subprocess.run([CLI, *args], env=env, capture_output=True, text=True,
                          timeout=300)


def plugin_lines(stdout):
    section = stdout.split("Plugins:\n", 1)[1].split("\n\n", 1)[0]
    return {re.match(r"\s*plugin '([^']+)'", line).group(1): line.strip()
            for line in section.splitlines()}


# ---- help, version -------------------------------------------------------------

def test_no_arguments_prints_help_and_exits_2():
    result = switchyard()
    assert result.returncode == 2
    assert "Usage: switchyard" in result.stdout
    for command in ["info", "ops", "demo", "run", "tune"]:
        assert re.search(rf"^\s+{command}\s", result.stdout, re.M), command


def test_help_lists_the_environment():
    result = switchyard("--help")
    assert result.returncode == 0
    for variable in ["SWITCHYARD_PLUGIN_PATH", "SWITCHYARD_PLUGINS", "SWITCHYARD_PLUGIN_OPTIONS",
                     "SWITCHYARD_CPU_FALLBACK", "SWITCHYARD_LOG", "SWITCHYARD_TRACE",
                     "SWITCHYARD_CPU_ISA", "SWITCHYARD_NUM_THREADS",
                     "SWITCHYARD_ALLOW_INSECURE_PLUGIN_DIRS", "SWITCHYARD_AUTOTUNE",
                     "SWITCHYARD_CACHE_DIR"]:
        assert variable in result.stdout, variable


def test_version_names_library_api_and_abi():
    result = switchyard("--version")
    assert result.returncode == 0
    assert re.fullmatch(r"switchyard \S+ \(C API 1\.\d+, plugin ABI 1\.\d+\)\n",
                        result.stdout), result.stdout


# ---- info: broken plugins explained in plain words ---------------------------

# manifest file → (the step that failed, words the explanation must contain)
BROKEN = {
    "bad_json": ("manifest", ["is not valid JSON", "fix the file or remove it"]),
    "future_format": ("manifest", ['"format_version" is 7', "upgrade Switchyard"]),
    "missing_library": ("manifest", ["does not exist", "reinstall the plugin"]),
    "wrong_major": ("version", ["plugin ABI 2.0", "rebuild the plugin"]),
    "impostor": ("init", ["calls itself 'test_good'", "do not belong together"]),
}


def test_info_explains_each_broken_plugin_and_keeps_the_good_ones():
    result = switchyard("info", plugin_path=TEST_PLUGINS / "broken")
    assert result.returncode == 0, result.stderr
    lines = plugin_lines(result.stdout)
    for name, (step, words) in BROKEN.items():
        line = lines[name]
        assert f"failed at the {step} step" in line, line
        for word in words:
            assert word in line, (word, line)
    # The checksum pin names both hashes.
    pinned = [l for l in lines.values() if "sha_mismatch.json" in l]
    assert len(pinned) == 1 and "failed at the checksum step" in pinned[0]
    assert "but the manifest pins 0000" in pinned[0]
    # The cpu plugin still loads and its device is listed.
    assert lines["cpu"].startswith("plugin 'cpu'") and ": loaded," in lines["cpu"]
    assert re.search(r"^\s+cpu:0 ", result.stdout, re.M)
    # Each failure is also a warning on stderr.
    for name in BROKEN:
        assert f"plugin '{name}'" in result.stderr


@pytest.mark.parametrize("plugin, step, words", [
    ("test_init_error", "init", ["this plugin needs a frobnicator"]),
    ("test_reports_major2", "version", ["reports plugin ABI 2.", "rebuild"]),
    ("test_no_entry", "symbol", ["does not export sy_plugin_init", "SY_PLUGIN_EXPORT"]),
])
def test_info_explains_a_plugin_that_fails_in_its_code(plugin, step, words):
    result = switchyard("info", plugin_path=TEST_PLUGINS / plugin)
    assert result.returncode == 0, result.stderr
    line = plugin_lines(result.stdout)[plugin]
    assert f"failed at the {step}" in line, line
    for word in words:
        assert word in line, (word, line)


def test_info_probe_keeps_a_plugin_that_crashes_in_init_out_of_the_process():
    path = f"{HOSTILE / 'crash_in_init'}:{TEST_PLUGINS / 'test_good'}"
    result = switchyard("info", "--probe", plugin_path=path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = plugin_lines(result.stdout)
    assert lines["hostile_crash_in_init"].endswith(
        "failed at the probe step — loading it killed a probe process with "
        "signal 11 (Segmentation fault) in its sy_plugin_init; it was not loaded "
        "here — report it to its vendor or remove it from the plugin path")
    assert ": loaded," in lines["test_good"]
    assert ": loaded," in lines["cpu"]


# Issue 14: the probe names the step a plugin died in, and lets nothing
# through that did not positively survive (a plugin that calls exit(0) in
# its load used to pass, and then ended the real process too).
@pytest.mark.parametrize("kind, words", [
    ("crash_in_constructor",
     "loading it killed a probe process with signal 11 (Segmentation fault) while "
     "the dynamic loader opened its library (in the library's constructors or its "
     "dependencies'; sy_plugin_init had not run); it was not loaded here"),
    ("exits_in_load",
     "loading it ended a probe process with exit status 0 in its load slot before "
     "the probe confirmed it survived (the plugin's code ended the process); it "
     "was not loaded here"),
])
def test_info_probe_names_the_step_and_fails_closed(kind, words):
    result = switchyard("info", "--probe",
                        plugin_path=f"{HOSTILE / kind}:{TEST_PLUGINS / 'test_good'}")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = plugin_lines(result.stdout)
    assert f"failed at the probe step — {words}" in lines[f"hostile_{kind}"], \
        lines[f"hostile_{kind}"]
    assert ": loaded," in lines["test_good"]


# Issue 14, point 2: a truncated library (an interrupted copy) killed
# `switchyard info` with SIGBUS inside dlopen; now the ELF check refuses it.
def test_info_refuses_a_truncated_library(tmp_path):
    good = TEST_PLUGINS / "test_good"
    (tmp_path / "test_good.json").write_bytes((good / "test_good.json").read_bytes())
    library = good / "libswitchyard_test_good.so"
    (tmp_path / library.name).write_bytes(library.read_bytes()[:16384])
    for args in (["info"], ["info", "--probe"]):
        result = switchyard(*args, plugin_path=tmp_path)
        assert result.returncode == 0, result.stdout + result.stderr
        line = plugin_lines(result.stdout)["test_good"]
        assert "failed at the open step — library " in line, line
        assert " is truncated: its segment " in line, line


def test_info_json_carries_the_load_records():
    result = switchyard("info", "--json", plugin_path=TEST_PLUGINS / "broken")
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    outcomes = {p["name"]: p for p in info["plugins"]}
    assert set(BROKEN) <= set(outcomes)
    for name in BROKEN:
        assert outcomes[name]["outcome"] == "failed", outcomes[name]
    assert outcomes["cpu"]["outcome"] == "loaded"
    assert any(d["label"] == "cpu:0" for d in info["devices"])
    assert any(op["name"] == "add.Tensor" for op in info["ops"])


def test_info_lists_plugin_options_with_their_source():
    env_options = "cpu.num_threads=1"
    env = dict(os.environ, SWITCHYARD_PLUGIN_OPTIONS=env_options)
    env.pop("SWITCHYARD_PLUGIN_PATH", None)
    result = subprocess.run([CLI, "info"], env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert re.search(r"^\s+cpu\.num_threads = 1\s+int\s+\(SWITCHYARD_PLUGIN_OPTIONS\) threads",
                     result.stdout, re.M), result.stdout
    assert re.search(r"^\s+cpu\.isa = \"\"\s+string\s+\(default\)", result.stdout, re.M)


def test_a_plugin_without_devices_is_reported_and_its_reason_reaches_device_errors():
    info = json.loads(switchyard("info", "--json").stdout)
    no_devices = [p["name"] for p in info["plugins"] if p["outcome"] == "loaded, no devices"]
    if not no_devices:
        pytest.skip("needs a plugin that loads without devices (cuda, rocm or vulkan "
                    "on a machine without that GPU)")
    name = no_devices[0]
    lines = plugin_lines(switchyard("info").stdout)
    assert ": loaded, no devices" in lines[name], lines[name]
    result = run("add", "-s", "2", "-d", name)
    assert result.returncode == 2
    assert f"device type '{name}' has no devices: plugin '{name}' loaded without any" \
        in result.stderr, result.stderr


def test_ops_lists_schemas():
    result = switchyard("ops")
    assert result.returncode == 0
    assert re.search(r"^add\.Tensor\(Tensor a, Tensor b", result.stdout, re.M)
    ops = json.loads(switchyard("ops", "--json").stdout)
    assert any(op["name"] == "softmax.int" or op["name"] == "softmax" for op in ops)


# ---- run ---------------------------------------------------------------------

def run(*args):
    return switchyard("run", *args, "--repeat", "3")


@pytest.mark.parametrize("args", [
    ["add", "-s", "33x17"],
    ["add", "-s", "4x1x5", "-s", "3x1", "-t", "f32", "-t", "f64"],
    ["matmul", "-s", "16x40", "-s", "40x8", "-t", "bf16"],
    ["softmax", "-s", "7x19", "-a", "dim=0"],
    ["sum", "-s", "6x5x4", "-a", "dims=0,2", "-a", "keepdim=true"],
    ["concat", "-s", "2x3", "-s", "4x3", "-s", "1x3"],
    ["gelu", "-s", "100", "-a", "approximate=tanh", "-t", "f16"],
    ["cast", "-s", "10", "-a", "dtype=i32", "--low", "-100", "--high", "100"],
    ["mul", "-s", "0x3", "-t", "i64"],
    ["linear", "-s", "4x8", "-s", "16x8"],             # optional bias left out
    ["linear", "-s", "4x8", "-s", "16x8", "-s", "16"],
    ["layer_norm", "-s", "4x8", "-a", "normalized_shape=8"],
])
def test_run_checks_against_float64_and_times(args):
    result = run(*args)
    assert result.returncode == 0, result.stdout + result.stderr
    # "decomposition; declined: onednn::…" where a kernel declined the call.
    assert re.search(r"^\S+ on cpu:0 — (kernel \w+::|decomposition(;|$))", result.stdout,
                     re.M)
    assert re.search(r"max error \S+ vs .* on cpu \(tolerance \S+\): ok", result.stdout)
    assert re.search(r"time:\s+median [0-9.]+ us, min [0-9.]+ us over 3 calls",
                     result.stdout)


@pytest.mark.parametrize("args, message", [
    (["nosuch", "-s", "2"], "no op named 'nosuch'"),
    (["add", "-s", "2x3", "-d", "gpu:7"], "gpu"),
    (["add"], "add.Tensor takes tensor arguments (a, b); give a --shape for each"),
    (["add", "-s", "2", "-s", "2", "-s", "2"], "— 3 given"),
    (["add", "-s", "2xq"], '"q" is not an integer'),
    (["add", "-s", "2x-3"], "extents must be >= 0"),
    (["add", "-s", "2", "-t", "f33"], '--dtype "f33" is not a dtype'),
    (["add", "-s", "2", "-t", "f32", "-t", "f32", "-t", "f32"],
     "one per input (2), not 3"),
    (["sum", "-s", "3", "-a", "dim=0"],
     "sum has no attribute by that name; its attributes are: dims, keepdim"),
    (["sum", "-s", "3", "-a", "keepdim=maybe"], "expected true or false"),
    (["sum", "-s", "3", "-a", "keepdim=1", "-a", "keepdim=0"], "given twice"),
    (["softmax", "-s", "3", "-a", "dim"], "attributes are written name=value"),
    (["cast", "-s", "3"], "needs argument 'dtype' (ScalarType): add --attr dtype=VALUE"),
    (["cast", "-s", "3", "-a", "dtype=float7"], "expected a dtype"),
])
def test_run_rejects_a_command_line_that_does_not_fit_the_op(args, message):
    result = run(*args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr, result.stderr


# Issue 14, point 7: sizes that do not fit died of std::bad_alloc or
# std::length_error (SIGABRT); now they are messages and exit codes.
@pytest.mark.parametrize("shape, code, message", [
    ("3037000500x3037000500", 2,
     '--shape "3037000500x3037000500": more elements than int64 can count'),
    ("1000000x1000000", 1,
     "an input of shape [1000000, 1000000] needs 7450.6 GiB of host memory"),
])
def test_run_with_sizes_that_do_not_fit_fails_in_words(shape, code, message):
    result = switchyard("run", "relu", "-s", shape, "--repeat", "1",
                        plugin_path=PLUGINS)
    assert result.returncode == code, result.stdout + result.stderr
    assert message in result.stderr, result.stderr


def test_run_reports_an_op_error_with_its_message():
    result = run("add", "-s", "2x3", "-s", "4x5")
    assert result.returncode == 1
    assert "FAILED:  add.Tensor: argument 'b' has shape [4, 5], which does not " \
           "broadcast with shape [2, 3] of 'a'" in result.stdout


# ---- demo --------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo():
    """One `switchyard demo` run for the demo tests (it takes a second)."""
    return switchyard("demo")


def test_demo_runs_the_block_on_cpu_and_matches_the_reference(demo):
    result = demo
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Transformer block on cpu:0" in result.stdout
    for op in ["embedding", "rms_norm", "scaled_dot_product_attention", "gelu"]:
        assert re.search(rf"^\s+{op}\b.*(kernel \w+::|decomposition)",
                         result.stdout, re.M), op
    assert "Every step matches the float64 reference" in result.stdout


def test_demo_runs_the_block_as_a_compiled_graph_on_cpu(demo):
    """The captured + fused half: both times, the groups and which plugin
    compiled each, and the graph's output against the float64 reference."""
    result = demo
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "The same block captured as a graph and compiled on cpu:0" in out
    groups = re.search(r"^\s+(\d+) ops captured; (\d+) fused group\(s\) of (\d+) op\(s\) "
                       r"in all, 0 group\(s\) unfused", out, re.M)
    assert groups, out
    # residual+rms_norm, the bias+gelu and the residuals fuse. The pattern
    # pass may instead take onednn's matmul→add→gelu or matmul→add where it
    # measured them faster on this machine (docs/fusion.md, "Pattern
    # kernels"); the choice is timed, so any mix is right, and each pattern
    # kernel stands for a group it took the ops of.
    patterns = re.search(r"; (\d+) pattern kernel\(s\);", out)
    assert patterns, out
    fused, replaced = int(groups.group(2)), int(patterns.group(1))
    assert replaced == len(re.findall(r"\(pattern matmul_add(?:_gelu)?\)", out)), out
    assert fused >= 2 and fused + replaced >= 3, out
    if replaced == 0:
        assert re.search(r"fused on cpu:0: \d+ ops \(add.Tensor, gelu\)", out), out
    for mode in ["eager (op by op)", "compiled graph (fused)"]:
        assert re.search(rf"^\s+{re.escape(mode)}\s+[\d.]+ us per run", out, re.M), mode
    # The second rms_norm fuses with the residual add before it; the first,
    # whose parts would fuse with nothing, runs the plugin's own kernel
    # (docs/fusion.md, "Native kernels").
    assert re.search(r"fused on cpu:0: \d+ ops \(add.Tensor, square, mean, add.Scalar, rsqrt",
                     out), out
    assert re.search(r"op %\d+ rms_norm on cpu:0 → kernel cpu::rms_norm\S* .*its own kernel",
                     out), out
    assert re.search(r"→ kernel fused\w+ by plugin cpu", out), out
    error = re.search(r"graph output: max error (\S+) vs the float64 cpu run\n", out)
    assert error and float(error.group(1)) <= 1e-4, out
