"""Plugin options are per context (Note [Options per runtime],
plugins/onednn/thresholds.h): contexts of one process share the loaded
onednn plugin, but each declines calls by its own min_elements, whichever
was made last."""

import numpy as np
import pytest

import switchyard as sy

ONEDNN = "kernel onednn::add.Tensor.f32.f32 (priority)"
CPU = "kernel cpu::add.Tensor.f32.f32 (priority); declined: onednn::add.Tensor.f32.f32: "


def context(min_elements):
    try:
        ctx = sy.Context(use_environment=False, allow=["cpu", "onednn"],
                         plugin_options={"onednn.min_elements": min_elements})
    except sy.Error as error:  # a build without oneDNN
        pytest.skip(f"the cpu and onednn plugins do not both load: {error}")
    ctx.autotune = "off"  # the static order only: no verdict of any cache
    return ctx


def test_each_context_declines_by_its_own_options(tmp_path, monkeypatch, rng):
    monkeypatch.setenv("SWITCHYARD_CACHE_DIR", str(tmp_path))
    with context(64) as low, context(1 << 20) as high:
        for round_ in range(2):  # and again after a third context loaded onednn
            def add(ctx, n):
                data = rng.standard_normal(n).astype(np.float32)
                x = sy.tensor(data, context=ctx)
                np.testing.assert_array_equal(np.asarray(ctx.ops.add(x, x)), data + data)
                return ctx.ops.add.explain(x, x)

            assert add(low, 4096) == ONEDNN
            assert add(low, 32) == CPU + "elements 32 < min_elements 64"
            assert add(high, 4096) == CPU + "elements 4096 < min_elements 1048576"
            if round_ == 0:
                third = context(1)
        assert add(third, 2) == ONEDNN
        third.close()
