"""Fixtures for the Python package tests. ctest sets SWITCHYARD_LIBRARY and
PYTHONPATH; run by hand with
    SWITCHYARD_LIBRARY=build/release/lib/libswitchyard.so \
    SWITCHYARD_TEST_PLUGIN_DIR=build/release/test_plugins \
    PYTHONPATH=api/python python3 -m pytest tests/api/python
"""

import os
from pathlib import Path

import numpy as np
import pytest

import switchyard as sy


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture
def ctx():
    """A context of its own, with the plugins next to the library only."""
    context = sy.Context(use_environment=False)
    yield context
    context.close()


@pytest.fixture
def test_plugin_dir():
    folder = os.environ.get("SWITCHYARD_TEST_PLUGIN_DIR")
    if not folder or not Path(folder).is_dir():
        pytest.skip("SWITCHYARD_TEST_PLUGIN_DIR is not set (ctest sets it)")
    return Path(folder)
