"""``-o``: a file is written atomically, a link is followed (the link stays, its target gets
the content), a device or a FIFO is written directly, ``-`` is standard output, a folder is
a clear error; the same for every command with ``-o`` (issue 31).

/dev/stdout itself is never risked: a link in tmp_path to a FIFO or to /dev/null stands
in for it."""

from __future__ import annotations

import io
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import main
from arena.errors import ArenaError
from arena.league.backends import FunctionBackend
from arena.league.config import load_league
from arena.league.run import run_league
from arena.outputs import FILE, SPECIAL, TO_STDOUT, open_output, output_target, write_output
from tests.league.fakes import FakePlay, bots


class FifoReader:
    """A thread reading everything written into a FIFO (opening a FIFO for writing waits
    for a reader)."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.data = b""
        self.thread = threading.Thread(target=self._read, args=(path,), daemon=True)
        self.thread.start()

    def _read(self, path: Path) -> None:
        with open(path, "rb") as fifo:
            self.data = fifo.read()

    def text(self) -> str:
        self.thread.join(timeout=60)
        assert not self.thread.is_alive()
        return self.data.decode()


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[FifoReader]:
    reader = FifoReader(tmp_path / "fifo")
    yield reader
    if reader.thread.is_alive():  # the test failed before writing: let the reader go
        with open(tmp_path / "fifo", "wb"):
            pass
        reader.thread.join(timeout=10)


def no_leftovers(folder: Path) -> bool:
    return not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


# --- the rules -------------------------------------------------------------------------


def test_a_new_file_is_written_with_the_users_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        output = write_output(tmp_path / "new.txt", "hello\n")
    finally:
        os.umask(old)
    assert output.kind == FILE
    assert (tmp_path / "new.txt").read_text() == "hello\n"
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640
    assert no_leftovers(tmp_path)


def test_an_existing_file_is_replaced_and_keeps_its_permission_bits(tmp_path: Path) -> None:
    path = tmp_path / "old.txt"
    path.write_text("old content, longer than the new one\n")
    path.chmod(0o600)
    write_output(path, "new\n")
    assert path.read_text() == "new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert no_leftovers(tmp_path)


def test_a_link_stays_and_its_target_gets_the_content(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "real.txt"
    target.write_text("old\n")
    target.chmod(0o604)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    output = output_target(link)
    assert output.kind == FILE and output.path == target
    write_output(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o604
    # the temporary file was made beside the target (a rename never crosses folders)
    assert no_leftovers(tmp_path) and no_leftovers(elsewhere)


def test_links_are_followed_to_the_end_relative_ones_and_dangling_ones_too(
    tmp_path: Path,
) -> None:
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "first").symlink_to("second")  # relative to the link's folder
    (tmp_path / "dir" / "second").symlink_to("../made.txt")  # nothing there yet
    (tmp_path / "via").symlink_to("dir")  # a linked folder on the way
    write_output(tmp_path / "via" / "first", "content\n")
    assert (tmp_path / "made.txt").read_text() == "content\n"
    assert (tmp_path / "dir" / "first").is_symlink()
    assert (tmp_path / "dir" / "second").is_symlink()


def test_a_failure_while_writing_leaves_the_old_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "keep.txt"
    path.write_text("the old file\n")
    with pytest.raises(RuntimeError), open_output(path) as out:
        out.write("half of the new")
        raise RuntimeError("the work failed")
    assert path.read_text() == "the old file\n"
    assert no_leftovers(tmp_path)


def test_dash_is_standard_output(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    output = write_output("-", "to stdout\n")
    assert output.kind == TO_STDOUT and str(output) == "standard output"
    assert capsys.readouterr().out == "to stdout\n"
    assert not (tmp_path / "-").exists()


def test_dev_null_is_written_directly() -> None:
    output = output_target("/dev/null")
    assert output.kind == SPECIAL
    write_output(output, "nothing\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_fifo_is_streamed_into_not_replaced(tmp_path: Path, fifo: FifoReader) -> None:
    path = tmp_path / "fifo"
    assert output_target(path).kind == SPECIAL
    with open_output(path) as out:
        for line in range(1000):
            out.write(f"line {line}\n")
    assert fifo.text().splitlines()[-1] == "line 999"
    assert stat.S_ISFIFO(path.lstat().st_mode)


def test_a_link_to_a_fifo_stays_a_link_like_dev_stdout(tmp_path: Path, fifo: FifoReader
                                                      ) -> None:
    """/dev/stdout is a link to /proc/self/fd/1, a pipe or a terminal: a link in tmp_path
    to a FIFO stands in for it (the real one is never risked)."""
    stdout = tmp_path / "stdout"
    stdout.symlink_to(tmp_path / "fifo")
    write_output(stdout, "through the link\n")
    assert fifo.text() == "through the link\n"
    assert stdout.is_symlink() and stat.S_ISFIFO((tmp_path / "fifo").lstat().st_mode)
    assert no_leftovers(tmp_path)


def test_a_link_to_a_character_device_stays_a_link(tmp_path: Path) -> None:
    link = tmp_path / "null"
    link.symlink_to("/dev/null")
    assert output_target(link).kind == SPECIAL
    write_output(link, "gone\n")
    assert link.is_symlink() and os.readlink(link) == "/dev/null"
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_link_into_proc_writes_into_the_open_file(tmp_path: Path) -> None:
    """/dev/stdout when standard output is a file: /proc/self/fd/1 names the open file;
    writing goes into it (as a shell's redirection would), no file is renamed over it."""
    path = tmp_path / "redirected.txt"
    with open(path, "w") as redirected:
        link = tmp_path / "stdout"
        link.symlink_to(f"/proc/self/fd/{redirected.fileno()}")
        inode = path.stat().st_ino
        output = output_target(link)
        assert output.kind == SPECIAL
        write_output(output, "into the open file\n")
    assert path.stat().st_ino == inode and path.read_text() == "into the open file\n"
    assert link.is_symlink()


def test_a_folder_or_a_missing_folder_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ArenaError, match="it is a folder; name a file"):
        output_target(tmp_path)
    (tmp_path / "to-folder").symlink_to(tmp_path)
    with pytest.raises(ArenaError, match="it is a folder"):
        write_output(tmp_path / "to-folder", "x")
    with pytest.raises(ArenaError, match="the folder .*missing does not exist"):
        output_target(tmp_path / "missing" / "x.html")


def test_a_loop_of_links_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(ArenaError, match="too many levels of symbolic links"):
        output_target(tmp_path / "a")


# --- the commands ----------------------------------------------------------------------


@pytest.fixture
def played(league_file) -> Path:
    path = league_file('roster = ["a", "b", "c"]')
    assert run_league(load_league(path), quiet=True, backend=FunctionBackend(FakePlay()),
                      bots=bots(["a", "b", "c"]), out=io.StringIO()) == 0
    return load_league(path).results_dir


def test_export_to_dash_to_a_fifo_through_a_link_and_to_a_link(
    played: Path, tmp_path: Path, fifo: FifoReader, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["export", str(played), "-o", "-"]) == 0
    captured = capsys.readouterr()
    games = captured.out.splitlines()
    assert len(games) == 3 and "exported 3 games" in captured.err
    stdout = tmp_path / "stdout"
    stdout.symlink_to(tmp_path / "fifo")
    assert main(["export", str(played), "-o", str(stdout)]) == 0
    assert fifo.text().splitlines() == games and stdout.is_symlink()
    real = tmp_path / "real.jsonl"
    real.write_text("")
    (tmp_path / "link.jsonl").symlink_to(real)
    assert main(["export", str(played), "-o", str(tmp_path / "link.jsonl")]) == 0
    assert real.read_text().splitlines() == games
    assert (tmp_path / "link.jsonl").is_symlink()
    assert main(["export", str(played), "-o", str(tmp_path)]) == 2
    assert "it is a folder" in capsys.readouterr().err


def test_report_to_dash_writes_the_page_and_says_so_on_stderr(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(played), "-o", "-"]) == 0
    captured = capsys.readouterr()
    assert captured.out.lstrip().startswith("<!DOCTYPE html>")
    assert captured.out.rstrip().endswith("</html>")
    assert "wrote standard output" in captured.err
    assert not (tmp_path / "-").exists()
    assert main(["report", str(played), "-o", "/dev/null"]) == 0
    assert "wrote /dev/null" in capsys.readouterr().err
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_merge_refuses_dash_and_special_files_in_one_line(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["merge", str(played), "-o", "-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a stream" in err
    assert main(["merge", str(played), "-o", "/dev/null"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "it is a special file" in err
    (tmp_path / "file").write_text("")
    assert main(["merge", str(played), "-o", str(tmp_path / "file")]) == 2
    assert "it is a file" in capsys.readouterr().err
    # a link to a folder is a folder
    (tmp_path / "merged").mkdir()
    (tmp_path / "to-merged").symlink_to(tmp_path / "merged")
    assert main(["merge", str(played), "-o", str(tmp_path / "to-merged")]) == 0
    assert (tmp_path / "to-merged").is_symlink() and any((tmp_path / "merged").iterdir())
