"""A real distribution with an ``arena`` entry point, pip-installed into a fresh virtualenv,
is found by ``arena bots`` run with that virtualenv's Python."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

PLUGIN_MODULE = """\
from pathlib import Path

from arena.plugins import hookimpl


@hookimpl
def arena_bot_folders():
    return [Path(__file__).parent / "bots"]
"""

SHIPPED_MANIFEST = """\
name = "shipped"
version = "3.1.4"
command = ["{python}", "bot.py"]
[games]
ra = [2, 3]
"""


def build_wheel(directory: Path) -> Path:
    """A minimal pure-Python wheel, written by hand so the test needs no build backend."""
    dist_info = "arena_test_plugin-1.0.dist-info"
    files = {
        "arena_test_plugin/__init__.py": PLUGIN_MODULE,
        "arena_test_plugin/bots/shipped/bot.toml": SHIPPED_MANIFEST,
        "arena_test_plugin/bots/shipped/bot.py": "print('hello')\n",
        f"{dist_info}/METADATA": "Metadata-Version: 2.1\nName: arena-test-plugin\nVersion: 1.0\n",
        f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: ra-arena-tests\n"
        "Root-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist_info}/entry_points.txt": "[arena]\nshipped = arena_test_plugin\n",
    }
    record = []
    for name, text in files.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = "\n".join(record) + "\n"
    wheel = directory / "arena_test_plugin-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


def make_virtualenv(directory: Path) -> Path:
    """A fresh virtualenv that also sees this environment's packages (arena, pluggy, pip)
    through a .pth file, so nothing is downloaded."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(directory)], check=True)
    python = directory / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    ours = [sysconfig.get_path("purelib"), *site.getsitepackages()]
    line = f"import site; list(map(site.addsitedir, {sorted(set(ours))!r}))\n"
    Path(purelib, "zz_parent_environment.pth").write_text(line)
    return python


@pytest.mark.slow
def test_installed_distribution_is_found_by_arena_bots(tmp_path: Path) -> None:
    python = make_virtualenv(tmp_path / "venv")
    wheel = build_wheel(tmp_path)
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONNOUSERSITE": "1"}
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True, env=env,
    )
    workdir = tmp_path / "empty"
    workdir.mkdir()  # no ./bots here: whatever is found comes from the distribution
    listed = subprocess.run(
        [str(python), "-m", "arena", "bots", "--json"],
        check=True, capture_output=True, text=True, cwd=workdir, env=env,
    )
    bots = {bot["name"]: bot for bot in json.loads(listed.stdout)["bots"]}
    shipped = bots["shipped"]
    assert shipped["ready"], shipped["problems"]
    assert shipped["version"] == "3.1.4"
    assert "of entry point shipped (distribution arena-test-plugin 1.0)" in shipped["source"]
    assert shipped["folder"].startswith(str(tmp_path / "venv"))

    # and this environment, where it is not installed, does not see it
    here = subprocess.run(
        [sys.executable, "-m", "arena", "bots", "--json"],
        check=True, capture_output=True, text=True, cwd=workdir,
    )
    assert "shipped" not in {bot["name"] for bot in json.loads(here.stdout)["bots"]}
