"""The error-evidence detector: which lines count, which do not, bounds and linearity of the scan."""

from __future__ import annotations

import pytest
from conftest import CORPUS
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sanitizer.textkit.evidence import LIMIT, clean_line, find, is_error_line


@pytest.mark.parametrize("line", [
    "ModuleNotFoundError: No module named 'redis_queue'",
    "E       AssertionError: expected 3",
    "E       assert 4 == 3",
    "2026-01-03 10:00:01 worker crashed: KeyError: 'tenant_id'",
    "error: failed to push some refs to 'origin'",
    "Error: Cannot find module 'left-pad'",
    "fatal: not a git repository (or any of the parent directories): .git",
    "panic: runtime error: index out of range [3] with length 3",
    "error[E0425]: cannot find value `x` in this scope",
    "FAILED tests/test_x.py::test_a - AssertionError: boom",
    "ERROR tests/test_y.py - ImportError: cannot import name 'z'",
    "    + CategoryInfo          : ObjectNotFound: (x:String) [], CommandNotFoundException",
    "src/parse.c:41:17: error: 'len' undeclared (first use in this function)",
    "App.cs(3,5): error CS1002: ; expected",
    "npm ERR! code ELIFECYCLE",
    "Process exited with code 2",
    "make: *** [Makefile:12: build] Error 2",
    "     ** (RuntimeError) no :secret_key_base configuration found in SpotterWeb.Endpoint.",
    "** (Mix) The task \"phx.server\" could not be found",
])
def test_error_lines_are_evidence(line: str) -> None:
    assert is_error_line(line)
    assert find("ok\n" + line + "\nok").lines == (clean_line(line),)


@pytest.mark.parametrize("line", [
    "    except KeyError: pass",
    "raise ValueError('x')",
    "src/a.py:3: raise ValueError('x')",
    "ERROR = 1",
    "Process exited with code 0",
    "tests/test_a.py::test_errors PASSED",
    "class ParseError(Exception):",
    "** (note) this is bold text in markdown**",
])
def test_ordinary_lines_are_not_evidence(line: str) -> None:
    assert not find(line)


def test_status_lines_and_traceback_header_are_evidence_without_being_quoted() -> None:
    text = ("Exit code 1\nTraceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n"
            "ValueError: bad input\n[The command completed with exit code 1.]")
    ev = find(text)
    assert ev.traceback and ev.lines == ("ValueError: bad input",) and ev.count == 1
    assert find("Traceback (most recent call last):\n  File \"x.py\"") and not find("all good").count


def test_distinct_lines_are_bounded_and_counted() -> None:
    text = "\n".join(f"src/m{i}.c:1:1: error: e{i}" for i in range(12)) + "\nsrc/m0.c:1:1: error: e0"
    ev = find(text)
    assert len(ev.lines) == LIMIT and ev.count == 12 and ev.lines[0] == "src/m0.c:1:1: error: e0"


def test_ansi_codes_do_not_hide_an_error_line() -> None:
    assert find("\x1b[31mError:\x1b[0m   something   broke").lines == ("Error: something broke",)


@given(st.text(alphabet=st.sampled_from("aE rxo:\nFAILED()"), max_size=200),
       st.text(alphabet=st.sampled_from("ab \n"), max_size=100))
def test_a_planted_error_line_is_always_found(noise: str, tail: str) -> None:
    line = "ModuleNotFoundError: No module named 'planted'"
    ev = find(noise + "\n" + line + "\n" + tail, limit=1000)
    assert line in ev.lines and ev.count == len(ev.lines)
    assert all(len(x) <= 160 and "\n" not in x for x in ev.lines)


def test_a_failed_output_whose_first_lines_are_no_error_still_quotes_its_error_line() -> None:
    from sanitizer.digest.line import digest_line
    output = ("Exit code 2\nCompiling 41 files (.ex)\nGenerated spotter app\n\n  1) test mount (ReviewLiveTest)\n"
              "     test/review_live_test.exs:102\n     ** (RuntimeError) Phoenix LiveView requires lazy_html.\n"
              + "     stacktrace line\n" * 30)
    line = digest_line("Bash", '{"command": "mix test"}', output, True)
    assert line.endswith("-> exit 2, 37 lines; first error: ** (RuntimeError) Phoenix LiveView requires lazy_html.")


_PIECES = ["Error: x", "rror: ", "Exception: boom", "exit code 2", "EXIT STATUS 1", "exİt code 3", "ExIt code 4",
           "exıt status 5", "returned code 7", "RETURN CODE 9", "*** [all] Error 2", "except ValueError: x", " ",
           "class FooError: y", "raise KeyError: z", "é", "中", "İ", "ı", "ſ", "code", "status", "-1", "=", ":",
           "a.b.CustomError: no", "exited with code 1"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES) | st.text(max_size=6), max_size=8).map("".join))
def test_the_cheap_guard_never_changes_which_lines_are_evidence(line: str) -> None:
    from sanitizer.textkit import evidence

    line = line.replace("\n", " ")
    reference = evidence._LINE.match(line) is not None or evidence._INSIDE.search(line) is not None
    assert evidence.is_error_line(line) == reference


# Pieces placed at the edges of what the windows must cover: an exception name 60 and 61 chars
# long, look-behinds just before, `exit` and `return` in any case, after a word char or not.
_LONG_PIECES = [*_PIECES, " A" + "b" * 59 + "Error: x", " A" + "b" * 60 + "Error: x", " Z" + "." * 60 + "Exception: e",
                " A" + "b" * 61 + "Error: x", "Error: x",
                "except X.YError: q", ".KeyError: k", "_ValueError: v", "Error: ", "Exception:  ", "xexit code 3",
                "_return code 4", "Exit  : 5", "return code -1", "exited with status 2", "*** [x] Error 3", "\t"]
_FILLER = st.text(st.characters(max_codepoint=127).filter(lambda c: c not in "\n\r"), min_size=1, max_size=80)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_LONG_PIECES) | _FILLER, min_size=1, max_size=40).map("".join), st.integers(0, 700))
@example(" A" + "b" * 60 + "Error: x", 600)
@example(" A" + "b" * 60 + "Error: ", 600)
@example(" EXIT  : 5", 600)
@example(" Returned code 7", 600)
@example(" *** [all] Error 2", 600)
@example("é EXIT STATUS 1", 600)
@example("中 exİt code 3", 600)
@example("ı — Returned code 7", 600)
@example("— A" + "b" * 60 + "Error: x", 600)
def test_long_lines_are_searched_near_their_literals_with_the_same_verdict(body: str, pad: int) -> None:
    """A long line is searched only next to its literals: the verdict is the whole search's."""
    from sanitizer.textkit import evidence

    line = ("x" * pad + body).replace("\n", " ").replace("\r", " ")
    reference = evidence._INSIDE.search(line) is not None
    assert evidence._inside(line) == reference
    assert evidence.is_error_line(line) == (evidence._LINE.match(line) is not None or reference)


def test_long_corpus_lines_get_the_whole_searchs_verdict() -> None:
    """The same on every long line of the corpus (skipped where `../shared/` is absent)."""
    from sanitizer.textkit import evidence

    if not CORPUS.is_dir():
        pytest.skip(f"{CORPUS} not found: the corpus sits in ../shared/ beside the clone")
    lines = {line for path in sorted(CORPUS.glob("*/*")) if path.is_file()
             for line in path.read_text(encoding="utf-8", errors="replace").replace("\\n", "\n").split("\n")
             if evidence.WINDOWED_CHARS <= len(line) <= 200_000}
    assert len(lines) > 100
    for line in lines:
        assert evidence._inside(line) == (evidence._INSIDE.search(line) is not None), line[:80]


_LINE_PIECES = ["Error: x", "error", "ERROR ", "FAILED ", "fatal: y", "panic: z", "npm ERR! q", "CategoryInfo : w",
                "exit code 2", "Exit code 1", "status", "E   assert 1", "** (RuntimeError) r", "Traceback (most recent "
                "call last)", "ValueError: v", "\x1b[31m", "\r", " ", "x", "\n", "\n\n", "中", "\t"]


def _reference(text: str, limit: int) -> tuple[tuple[str, ...], int, bool]:
    """What `find` gives, the slow way: every line holding a literal, judged in order."""
    from sanitizer.textkit import evidence

    seen: dict[str, None] = {}
    traceback = False
    for line in text.split("\n"):
        if any(lit in line for lit in evidence._LITERALS):
            verdict = evidence._verdict(line)
            if verdict == evidence._TRACEBACK_LINE:
                traceback = True
            elif verdict:
                seen.setdefault(verdict, None)
    return tuple(seen)[:limit], len(seen), traceback


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_LINE_PIECES) | st.text(max_size=4), max_size=40).map("".join), st.integers(1, 6))
def test_find_judges_every_line_holding_a_literal_once_in_order(text: str, limit: int) -> None:
    ev = find(text, limit)
    assert (ev.lines, ev.count, ev.traceback) == _reference(text, limit)
