"""The compiled Ra core (arena/games/ra/_core.pyx), built when it can be.

Everything else about the package is in pyproject.toml.  The core is a Cython extension
marked optional: with Cython (a build requirement, fetched from the package index like
setuptools) and a C compiler, ``pip install .``, ``pip install -e .`` (built in place)
and ``pip wheel .`` build it; without a compiler the build warns and goes on, and the
pure-Python engine plays (``arena bots`` says which engine runs).  ``ARENA_PURE_PYTHON=1``
leaves the extension out altogether: a pure wheel (py3-none-any) that installs anywhere.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

CORE = "arena.games.ra._core"
SOURCE = "arena/games/ra/_core.pyx"
PURE = os.environ.get("ARENA_PURE_PYTHON", "") not in ("", "0")


def say(message: str) -> None:
    print(f"ra-arena: {message}", file=sys.stderr)


class OptionalBuildExt(build_ext):
    """build_ext that never fails the install: a missing or broken compiler leaves the
    pure-Python engine, said on stderr (pip shows it with -v)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # no compiler at all: setuptools' own errors vary
            say(f"the compiled Ra core was not built ({error}); the pure-Python engine "
                "will play")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:
            say(f"the compiled Ra core was not built ({error}); the pure-Python engine "
                "will play")
        else:
            say("built the compiled Ra core")


def extensions() -> list[Extension]:
    if PURE:
        say("ARENA_PURE_PYTHON is set: the pure-Python engine only, no compiled core")
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        say("Cython is not installed: no compiled Ra core, the pure-Python engine plays")
        return []
    # No fused multiply-add: the core's floats must round as Python's do, operation by
    # operation (GCC contracts a * b + c on aarch64 and others by default).
    flags = [] if sys.platform == "win32" else ["-O2", "-ffp-contract=off"]
    # the source it was built from: arena.games.ra.engines refuses a core older than the
    # _core.pyx beside it (an editable install not rebuilt after an edit)
    digest = hashlib.sha256((Path(__file__).parent / SOURCE).read_bytes()).hexdigest()
    core = Extension(CORE, [SOURCE], extra_compile_args=flags, optional=True,
                     define_macros=[("RA_CORE_SOURCE_SHA256", f'"{digest}"')])
    return list(cythonize([core], language_level=3, quiet=True))


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
