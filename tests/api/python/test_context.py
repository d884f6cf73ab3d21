"""Contexts, devices, the load report and the exception classes."""

import numpy as np
import pytest

import switchyard as sy


def test_version_and_library():
    assert sy.api_version[0] == 1
    assert sy.__version__
    assert "libswitchyard.so" in sy.library_path


def test_load_report_and_devices(ctx):
    records = ctx.load_report()
    cpu = [r for r in records if r.name == "cpu"]
    assert cpu and cpu[0].outcome == "loaded" and cpu[0].num_kernels > 0
    assert "loaded" in cpu[0].description
    devices = ctx.devices()
    # The default plugin set: cpu first; optional plugins add devices where
    # their hardware is (vulkan:0 on lavapipe, which CI installs).
    labels = [d.label for d in devices]
    assert labels[0] == "cpu:0"
    assert all(label.split(":")[0] in ("cpu", "cuda", "vulkan") for label in labels)
    device = devices[0]
    assert device == ctx.device("cpu") == ctx.device("cpu:0")
    assert device.type == "cpu" and device.plugin == "cpu" and device.compute_units > 0
    assert device.float_flags == 0  # the cpu keeps subnormals
    assert (sy.FLOAT_FLUSHES_F32_SUBNORMALS, sy.FLOAT_FLUSHES_F16_SUBNORMALS,
            sy.FLOAT_FLUSHES_F64_SUBNORMALS) == (1, 2, 4)
    assert device.dlpack_device == (1, 0)
    device.synchronize()
    ctx.synchronize()
    stats = device.allocator_stats()
    assert stats.reserved_bytes >= stats.allocated_bytes
    device.empty_cache()
    info = ctx.info()
    assert {"plugins", "devices", "ops"} <= set(info)


def test_broken_plugins_are_explained_in_plain_words(test_plugin_dir):
    context = sy.Context(plugin_paths=[test_plugin_dir / "broken"], use_environment=False)
    try:
        failed = {r.name: r for r in context.load_report() if r.outcome == "failed"}
        assert "wrong_major" in failed
        assert failed["wrong_major"].stage == "version"
        assert "wrong_major" in failed["wrong_major"].description
        assert context.devices()  # cpu still loaded from the default folder
    finally:
        context.close()


def test_a_requested_plugin_that_fails_raises(test_plugin_dir):
    with pytest.raises(sy.FailedPreconditionError, match="missing_library"):
        sy.Context(plugin_manifests=[test_plugin_dir / "broken" / "missing_library.json"],
                   use_environment=False)


def test_a_device_of_a_plugin_without_devices_says_why(ctx):
    # The cuda plugin loads without a GPU ("loaded, no devices"); asking
    # for its device carries the plugin's reason.
    records = {r.name: r for r in ctx.load_report()}
    if "cuda" not in records or records["cuda"].outcome != "loaded, no devices":
        pytest.skip("needs the cuda plugin loaded without a GPU")
    with pytest.raises(sy.NotFoundError) as info:
        ctx.device("cuda:0")
    assert "device type 'cuda' has no devices: plugin 'cuda' loaded without any (" in str(info.value)
    assert "no CUDA device" in str(info.value)


def test_errors_map_to_classes_with_the_c_message(ctx):
    with pytest.raises(sy.NotFoundError) as info:
        ctx.device("nosuch:7")
    present = ", ".join(d.label for d in ctx.devices())
    assert present.startswith("cpu:0")
    assert str(info.value) == f"sy_device_find: no device 'nosuch:7'; devices present: {present}"
    assert isinstance(info.value, LookupError) and isinstance(info.value, sy.Error)
    with pytest.raises(sy.NotFoundError, match="no op named 'frobnicate'"):
        _find_op(ctx, "frobnicate")
    with pytest.raises(sy.FailedPreconditionError):
        ctx.load_plugin("/nonexistent/plugin.json")
    assert ctx.device("cpu").label == "cpu:0"  # still works


def _find_op(ctx, name):
    import ctypes
    from switchyard._errors import check
    handle = sy._library.c_handle()
    check(sy._library.lib.sy_op_find(ctx.handle, name.encode(), ctypes.byref(handle)))


def test_context_manager_and_default_context():
    with sy.Context(use_environment=False) as context:
        t = sy.tensor([1.0, 2.0], context=context)
        assert t.context is context
    assert sy.default_context() is sy.default_context()
    assert sy.device().label == "cpu:0"
    np.testing.assert_array_equal(sy.tensor([3.0]).numpy(), [3.0])


def test_plugin_options_reach_the_plugin():
    cpu = [r for r in sy.Context(use_environment=False).load_report() if r.name == "cpu"][0]
    # Accepted as "plugin.option=value" texts or a dict; the cpu plugin
    # runs with them.
    for options in (["cpu.num_threads=1"], {"cpu.num_threads": 2}):
        with sy.Context(plugin_manifests=[cpu.manifest_path], use_environment=False,
                        use_default_path=False, plugin_options=options) as ctx:
            x = sy.tensor(np.arange(6, dtype=np.float32), device=ctx.device("cpu"))
            np.testing.assert_array_equal((x + x).numpy(), 2 * np.arange(6))
    # An option the plugin does not declare fails the load, naming it.
    with pytest.raises(sy.FailedPreconditionError, match="no_such_option"):
        sy.Context(plugin_manifests=[cpu.manifest_path], use_environment=False,
                   use_default_path=False, plugin_options=["cpu.no_such_option=1"])


def test_log_level_by_name():
    before = sy.log_level()
    try:
        sy.set_log_level("debug")
        assert sy.log_level() == "debug"
        with pytest.raises(sy.InvalidArgumentError, match="warning"):
            sy.set_log_level("loud")  # the message lists the levels
        assert sy.log_level() == "debug"  # unchanged by the refusal
    finally:
        sy.set_log_level(before)
