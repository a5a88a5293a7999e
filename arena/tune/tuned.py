"""The end of a tune: the tuned bot as a new version, a copy of its folder whose bot.toml
has the tuned values as its parameters' defaults (``arena validate`` and ``arena submit``
take it as it is)."""

from __future__ import annotations

import math
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

import tomlkit
from tomlkit.exceptions import TOMLKitError

from arena.errors import ArenaError
from arena.plugins.manifest import MANIFEST_NAME, VERSION_PATTERN, VERSION_RULE, FolderRefused
from arena.runner.botspec import BotSpec, Parameter

TUNED_FOLDER = "tuned"  # in the tune's results folder
SIGNIFICANT_DIGITS = 5  # of a tuned value in the manifest (SPSA's noise is far larger)


def next_version(version: str) -> str:
    """The version after ``version``: its last number one up (1.0.0 -> 1.0.1, v2 -> v3),
    else ".1" appended."""
    match = re.search(r"(\d+)\D*$", version)  # the last number
    if match is None:
        return f"{version}.1"
    return f"{version[:match.start(1)]}{int(match.group(1)) + 1}{version[match.end(1):]}"


def manifest_value(parameter: Parameter, value: float) -> float | int:
    """A tuned value as the manifest writes it: whole for an integer parameter, else to
    :data:`SIGNIFICANT_DIGITS` digits (within the bounds)."""
    if parameter.integer:
        return int(round(parameter.clip(value)))
    if value == 0 or not math.isfinite(value):
        return parameter.clip(value)
    return parameter.clip(float(f"{value:.{SIGNIFICANT_DIGITS}g}"))


def tuned_manifest(text: str, parameters: Sequence[Parameter], values: Sequence[float],
                   version: str) -> str:
    """``text`` (a bot.toml) with ``values`` as its parameters' defaults and ``version``;
    everything else (comments, layout, other keys) as it was."""
    try:
        document = tomlkit.parse(text)
        document["version"] = version
        table = document["parameters"]
        for parameter, value in zip(parameters, values, strict=True):
            table[parameter.name]["default"] = manifest_value(parameter, value)  # type: ignore[index]
    except (TOMLKitError, KeyError, TypeError) as problem:
        raise ArenaError(f"the bot's {MANIFEST_NAME} cannot be rewritten with the tuned "
                         f"values: {problem}") from None
    return tomlkit.dumps(document)


def write_tuned_bot(spec: BotSpec, values: Sequence[float], results_dir: Path,
                    version: str | None = None) -> Path:
    """``results_dir/tuned``: a copy of ``spec``'s folder with the tuned values as the
    defaults of its bot.toml and a new version (default: :func:`next_version`), put in
    place whole (an older one is replaced).  Its path."""
    from arena.plugins.install import copy_bot_folder
    from arena.plugins.manifest import read_regular

    version = version or next_version(spec.version)
    if not VERSION_PATTERN.fullmatch(version):
        raise ArenaError(f"the tuned version {version[:60]!r} is not allowed; use {VERSION_RULE}")
    if spec.folder is None:
        raise ArenaError(f"bot {spec.name} has no folder to copy: put the tuned values in its "
                         "manifest yourself")
    target = results_dir / TUNED_FOLDER
    staging = Path(tempfile.mkdtemp(prefix=f".{TUNED_FOLDER}.", dir=results_dir))
    try:
        copy = staging / TUNED_FOLDER
        copy_bot_folder(spec.folder, copy, links=True)
        manifest = copy / MANIFEST_NAME
        text = read_regular(manifest, 1 << 20, follow_symlinks=False).decode()
        manifest.chmod(0o644)
        manifest.write_text(tuned_manifest(text, spec.parameters, values, version))
        old = None
        if target.exists():
            old = staging / "old"
            os.rename(target, old)
        os.rename(copy, target)
    except (OSError, FolderRefused, UnicodeDecodeError) as problem:
        raise ArenaError(f"cannot write the tuned bot into {target}: {problem}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
