"""The switchyard wheel, made by scripts/build-wheel.sh from a staged copy of
a build's package (build/<preset>/python/switchyard with _C, libswitchyard
and the in-tree plugins bundled under switchyard/lib/). Nothing is compiled
here: the wheel holds what the CMake build made, so it is tagged for the
Python and platform it was built on (has_ext_modules)."""

import os

from setuptools import setup
from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


def package_files():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "switchyard")
    files = []
    for folder, _, names in os.walk(root):
        for name in names:
            if name.endswith((".py", ".pyc")):
                continue  # packages= takes those
            files.append(os.path.relpath(os.path.join(folder, name), root))
    return files


setup(
    name="switchyard",
    version=os.environ.get("SWITCHYARD_VERSION", "0.0.0"),
    description="Operator dispatcher for deep-learning runtimes: tensors and ops "
                "from Python (bundles libswitchyard and its in-tree plugins)",
    license="Apache-2.0",
    packages=["switchyard"],
    package_data={"switchyard": package_files()},
    install_requires=["numpy"],
    python_requires=">=3.9",
    distclass=BinaryDistribution,
    zip_safe=False,
)
