"""ctest sets SWITCHYARD_LIBRARY, SWITCHYARD_TEST_PLUGIN_DIR and PYTHONPATH;
run by hand with
    SWITCHYARD_LIBRARY=build/release/lib/libswitchyard.so \\
    SWITCHYARD_TEST_PLUGIN_DIR=build/release/test_plugins \\
    PYTHONPATH=build/release/python python3 -m pytest tests/distributed/python
"""

import os
from pathlib import Path

import pytest


@pytest.fixture
def test_plugin_dir():
    folder = os.environ.get("SWITCHYARD_TEST_PLUGIN_DIR")
    if not folder or not Path(folder).is_dir():
        pytest.skip("SWITCHYARD_TEST_PLUGIN_DIR is not set (ctest sets it)")
    return Path(folder)
