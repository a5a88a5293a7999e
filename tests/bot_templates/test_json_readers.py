"""The JSON readers the C, C++, Java and Rust templates carry: each, built into a small
echo program (tests/bot_templates/json_echo/) beside the made bot's own reader, reads
tricky lines back as JSON, compared with Python's reading of the same lines; what is not
JSON is refused.  The C and C++ echoes run under AddressSanitizer and UndefinedBehavior-
Sanitizer where the compiler has them: no leak, overflow or undefined behaviour either."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.bot_templates.conftest import BUILD_TIMEOUT, HandBuilt, build_environment

ECHO_SOURCES = Path(__file__).parent / "json_echo"
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g"]

VALID = [
    "{}", "[]", "0", "-0", "1", "-1", "123456789012345678", "9223372036854775807",
    "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
    "100000000000000000000000", "1.5", "-1.5e-300", "1E+2", "1e-2", "0.1", "2.5e3",
    "123.456e-7", "1e999", "-1e999", "0.30000000000000004", "5e-324",
    '""', r'"\"\\\/\b\f\n\r\t"', r'"\u0000"', r'"a\u0000b"', r'"\u00e9"', '"é"',
    r'"\ud83d\ude00"', r'"\uD83D\uDE00"', '"😀"', r'"\u20ac€"', r'"\u001f\u007f"',
    r'"a\u0041"', "true", "false", "null",
    '[[[[]]]]', '{"a":{"b":[1,{"c":null}]},"d":[true,false,-0.5]}',
    ' \t{ "a" : [ 1 , 2 ] , "b" : { } } \t',
    r'{"\u0074ype":"x","é":1,"\ud83d\ude00":[]}', r'{"a\u0000b":1,"a":2}',
    '{"a":1,"a":2}',  # a repeated key: the last one counts (read back, then read again)
    '{"type":"request","id":3,"observation":{"players":[{"seat":0,"suns":[2,6,13],'
    '"tiles":{"god":1}}],"auction":null},"legal":[{"type":"draw"},{"type":"bid","sun":7}]}',
]
DEEPEST = "[" * 512 + "]" * 512  # as deep as the readers go; one more is refused
LONE_SURROGATES = {  # a lone surrogate is no character: U+FFFD stands in
    r'"\ud800"': "\ufffd", r'"\udc00x"': "\ufffdx", r'"\ud800\u0041"': "\ufffdA",
    r'"\ud83d\ud83d\ude00"': "\ufffd😀", r'"x\ude00\ud83d"': "x\ufffd\ufffd",
}
INVALID = [
    "", " ", "{", "}", "[", "]", "[1,]", '{"a":1,}', "[1 2]", '{"a" 1}', "{a:1}", "{1:2}",
    "'x'", '"abc', r'"\x"', r'"\u12"', r'"\u12G4"', r'"\u"', '"\\', "01", "-01", "-", "1.",
    ".5", "1e", "1e+", "+1", "0x10", "NaN", "Infinity", "-Infinity", "tru", "nul", "True",
    "[1]x", '{"a":1}}', "1 2", '"tab\there"', "[" * 513 + "]" * 513,
    "\u00a0[]",  # only space, tab, CR and LF are whitespace
]


def expected(text: str) -> Any:
    return json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))


def same(read: Any, wanted: Any) -> bool:
    """Equal as JSON values: a whole number of 64 bits exactly, any other number as the
    same double (however it is written), containers item by item."""
    if isinstance(wanted, bool) or isinstance(read, bool):
        return read is wanted
    if isinstance(wanted, int | float) and isinstance(read, int | float):
        if isinstance(wanted, int) and -2**63 <= wanted < 2**63:
            return isinstance(read, int) and read == wanted  # exact, as a whole number
        return float(read) == float(wanted)  # any other number: the same double
    if isinstance(wanted, list) and isinstance(read, list):
        return len(read) == len(wanted) and all(map(same, read, wanted))
    if isinstance(wanted, dict) and isinstance(read, dict):
        return read.keys() == wanted.keys() and all(same(read[k], wanted[k]) for k in wanted)
    return type(read) is type(wanted) and read == wanted


def build_echo(language: str, bot: HandBuilt, scratch: Path) -> list[str]:
    """The echo program of ``language`` built with the made bot's reader: its argv."""
    folder = scratch / language
    folder.mkdir()
    environment = build_environment(scratch)

    def run(*argv: str) -> None:
        done = subprocess.run(argv, cwd=folder, env=environment, capture_output=True,
                              text=True, timeout=BUILD_TIMEOUT)
        assert done.returncode == 0, f"{' '.join(argv)}:\n{done.stdout}{done.stderr}"

    if language in ("c", "cpp"):
        compiler, source, standard, reader = (
            ("gcc", "echo.c", "-std=c11", ["json.c"]) if language == "c"
            else ("g++", "echo.cpp", "-std=c++17", []))
        for name in [source, "json.h" if language == "c" else "json.hpp", *reader]:
            origin = ECHO_SOURCES / name if name == source else bot.folder / name
            shutil.copy(origin, folder / name)
        sanitize = SANITIZE if _compiles_with(compiler, SANITIZE, folder, environment) else []
        run(compiler, standard, "-O1", "-Wall", "-Wextra", "-Werror", *sanitize,
            "-o", "echo", source, *reader)
        return [str(folder / "echo")]
    if language == "java":
        shutil.copy(ECHO_SOURCES / "Echo.java", folder)
        shutil.copy(bot.folder / "Json.java", folder)
        run("javac", "--release", "17", "-encoding", "UTF-8", "-Xlint:all", "-Werror",
            "-d", "classes", "Echo.java", "Json.java")
        return ["java", "-cp", str(folder / "classes"), "Echo"]
    shutil.copy(ECHO_SOURCES / "echo.rs", folder)
    shutil.copy(bot.folder / "src" / "json.rs", folder)
    run("rustc", "--edition", "2021", "-D", "warnings", "-o", "echo", "echo.rs")
    return [str(folder / "echo")]


def _compiles_with(compiler: str, flags: list[str], folder: Path,
                   environment: dict[str, str]) -> bool:
    probe = folder / "probe.c"
    probe.write_text("int main(void) { return 0; }\n")
    done = subprocess.run([compiler, *flags, "-x", "c" if compiler == "gcc" else "c++",
                           "-o", str(folder / "probe"), str(probe)], env=environment,
                          capture_output=True, timeout=BUILD_TIMEOUT)
    return done.returncode == 0


@pytest.fixture(scope="module")
def echo(hand_built: Callable[[str], HandBuilt], tmp_path_factory: pytest.TempPathFactory
         ) -> Callable[[str, list[str]], list[str]]:
    """``echo(language, lines)``: what the reader of ``language`` reads back, a line each."""
    programs: dict[str, list[str]] = {}
    scratch = tmp_path_factory.mktemp("json-echo")

    def read_back(language: str, lines: list[str]) -> list[str]:
        if language not in programs:
            programs[language] = build_echo(language, hand_built(language), scratch)
        data = "".join(f"{line}\n" for line in lines).encode()
        done = subprocess.run(programs[language], input=data, capture_output=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        out = done.stdout.decode().split("\n")
        assert out[-1] == "" and len(out) == len(lines) + 1, done.stdout
        return out[:-1]

    return read_back


READERS = ["c", "cpp", "java", "rust"]


@pytest.mark.parametrize("language", READERS)
def test_it_reads_json_as_python_does(
        language: str, echo: Callable[[str, list[str]], list[str]]) -> None:
    for text, read in zip(VALID, echo(language, VALID), strict=True):
        assert not read.startswith("error"), (text, read)
        assert same(json.loads(read), expected(text)), (text, read)
    assert echo(language, [DEEPEST]) == [DEEPEST]


@pytest.mark.parametrize("language", READERS)
def test_a_lone_surrogate_reads_as_the_replacement_character(
        language: str, echo: Callable[[str, list[str]], list[str]]) -> None:
    texts = list(LONE_SURROGATES)
    for text, read in zip(texts, echo(language, texts), strict=True):
        assert json.loads(read) == LONE_SURROGATES[text], (text, read)


@pytest.mark.parametrize("language", READERS)
def test_what_is_not_json_is_refused_saying_where(
        language: str, echo: Callable[[str, list[str]], list[str]]) -> None:
    for text, read in zip(INVALID, echo(language, INVALID), strict=True):
        assert read.startswith("error: ") and " at " in read, (text, read)
