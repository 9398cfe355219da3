"""Patterns rebuilt from the kept compiled code match exactly as freshly compiled ones; a cache
that is off, missing, damaged, stale or unwritable changes nothing but the time."""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
import regex
from conftest import CORPUS, EXAMPLE, ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

import sanitizer
from sanitizer import cachedir
from sanitizer.secrets import near, scan
from sanitizer.textkit import pattern_cache
from sanitizer.textkit.lazy import LazyPattern


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty cache folder for this test, and the module's state as in a new process."""
    folder = tmp_path / "cache"
    monkeypatch.setenv(cachedir.ENV, str(folder))
    monkeypatch.setattr(pattern_cache, "_known", None)
    monkeypatch.setattr(pattern_cache, "_new", {})
    return folder


def _new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pattern_cache, "_known", None)
    monkeypatch.setattr(pattern_cache, "_new", {})


def _built_in_specs() -> list[tuple[str, int]]:
    """Every pattern the package's code compiles through the cache: the credential kinds, their
    finders, and each module's lazy patterns."""
    found = {(sp.spec, 0) for sp in scan.PATTERNS}
    found |= {(regex.escape(lit) + follows, 0) for lit, follows in near.FOLLOWS.items()}
    for info in pkgutil.walk_packages(sanitizer.__path__, "sanitizer."):
        if info.name.endswith("__main__") or info.name.startswith(("sanitizer.integrations", "sanitizer.engines")):
            continue  # `python -m` entry points, and the optional extras (they import their packages)
        try:
            module = importlib.import_module(info.name)
        except ModuleNotFoundError as exc:  # a module of an optional extra that is not installed
            if (exc.name or "sanitizer").startswith("sanitizer"):
                raise
            continue
        for value in vars(module).values():
            if isinstance(value, LazyPattern):
                found.add((value.pattern, int(value._flags)))
            elif isinstance(value, regex.Pattern) and regex.compile(value.pattern).flags == value.flags:
                found.add((value.pattern, 0))  # compiled at import (`pattern_cache.compile(spec)`)
    return sorted(found)


SPECS = _built_in_specs()
TEXTS = [e.text for k in scan.KINDS for e in k.true] + [t for k in scan.KINDS for t in k.false]
if CORPUS.is_dir():
    for path in sorted(CORPUS.glob("*/*"))[:12]:
        TEXTS.append(path.read_text(encoding="utf-8", errors="replace")[:200_000])
TEXTS.append(EXAMPLE.read_text(encoding="utf-8"))


def _matches(pattern: regex.Pattern[str], text: str) -> list[tuple]:
    return [(m.span(), m.groups(), m.groupdict()) for m in pattern.finditer(text)]


def test_every_built_in_pattern_rebuilt_from_the_cache_matches_as_compiled(
        cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(SPECS) > 140
    fresh = {key: regex.compile(*key) for key in SPECS}
    for spec, flags in SPECS:
        pattern_cache.compile(spec, flags)
    pattern_cache._save()
    assert len(list(cache.iterdir())) == 1
    _new_process(monkeypatch)

    def no_compile(*args: object, **kw: object) -> None:
        raise AssertionError("compiled although its code was kept")

    monkeypatch.setattr(pattern_cache.regex, "compile", no_compile)
    for key, want in fresh.items():
        got = pattern_cache.compile(*key)
        assert (got.pattern, got.flags, got.groups, got.groupindex) == (
            want.pattern, want.flags, want.groups, want.groupindex), key[0][:80]
        for text in TEXTS:
            assert _matches(got, text) == _matches(want, text), key[0][:80]
    assert pattern_cache._new == {}  # nothing new to keep


@settings(max_examples=60, deadline=None)
@given(st.text(st.sampled_from(list("abcAZ09_-=:/.@ \n\t\"'{}[]ghpskAKIA")), max_size=200))
def test_rebuilt_credential_patterns_redact_as_compiled_ones(text: str) -> None:
    for sp in scan.PATTERNS[:40]:
        rebuilt = pattern_cache._regex.compile(*regex.compile(sp.spec)._pickled_data)
        assert _matches(rebuilt, text) == _matches(regex.compile(sp.spec), text)


def _write_raw(folder: Path, body: bytes, crc: int | None = None) -> Path:
    path = cachedir.path(pattern_cache._name())
    assert path is not None and path.parent == folder
    folder.mkdir(parents=True, exist_ok=True)
    path.write_bytes((zlib.crc32(body) if crc is None else crc).to_bytes(4, "big") + body)
    return path


@pytest.mark.parametrize("damage", ["truncated", "bad crc", "not marshal", "a list", "short entry", "other spec"])
def test_a_damaged_or_stale_cache_is_compiled_anew(cache: Path, monkeypatch: pytest.MonkeyPatch,
                                                   damage: str) -> None:
    import marshal

    spec = r"(?<![A-Za-z0-9])ghp_[A-Za-z0-9]{36}"
    good = regex.compile(spec)._pickled_data
    bodies = {
        "truncated": marshal.dumps({(spec, 0): good})[:-9],
        "bad crc": marshal.dumps({(spec, 0): good}),
        "not marshal": b"\xff\xfe not marshal data",
        "a list": marshal.dumps([1, 2, 3]),
        "short entry": marshal.dumps({(spec, 0): (spec, 0)}),
        "other spec": marshal.dumps({(spec, 0): regex.compile("x+")._pickled_data}),
    }
    path = _write_raw(cache, bodies[damage], crc=0 if damage == "bad crc" else None)
    got = pattern_cache.compile(spec)
    text = "token ghp_" + "a1" * 18 + " end, xghp_" + "b" * 36
    assert _matches(got, text) == _matches(regex.compile(spec), text) != []
    pattern_cache._save()  # written anew, whole, and then taken as it is
    _new_process(monkeypatch)
    assert path.is_file() and pattern_cache._read() == {(spec, 0): good}


def test_a_save_keeps_what_the_file_held(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pattern_cache.compile(r"first\d+")
    pattern_cache._save()
    _new_process(monkeypatch)
    pattern_cache.compile(r"second\d+")
    pattern_cache._save()
    assert set(pattern_cache._read()) == {(r"first\d+", 0), (r"second\d+", 0)}


def test_where_the_cache_is_and_where_it_is_off(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(cachedir.ENV, "")
    assert cachedir.folder() is None
    monkeypatch.delenv(cachedir.ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cachedir.folder() == tmp_path / "xdg" / "sanitizer"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # not absolute: ignored, as the spec says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cachedir.folder() == tmp_path / "home" / ".cache" / "sanitizer"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.delenv("HOME")
    assert cachedir.folder() is None  # no home known: nothing is kept anywhere


def test_with_the_cache_off_nothing_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cachedir.ENV, "")
    _new_process(monkeypatch)
    pattern_cache.compile(r"off\d+")
    assert pattern_cache._new == {}


def test_a_forked_worker_keeps_nothing(cache: Path) -> None:
    pid = os.fork()
    if pid == 0:  # the child: compiles a new pattern and exits as a worker would at the end
        try:
            pattern_cache.compile(r"child\d+")
            pattern_cache._save()
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert not cache.exists()


def _run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    code = ("import sys; from sanitizer.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    code = e.code\n"
            "from sanitizer.textkit import pattern_cache\n"
            "print('NEW', len(pattern_cache._new))\n"
            "sys.exit(code)")
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", **env})


def test_a_run_keeps_the_code_and_the_next_run_compiles_none_of_it(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    env = {cachedir.ENV: str(folder)}
    outs = []
    for i in range(2):
        out = tmp_path / f"out{i}.jsonl"
        run = _run([str(EXAMPLE), "-o", str(out), "-q"], env, tmp_path)
        assert run.returncode == 0, run.stderr
        outs.append(out.read_bytes())
        new = int(run.stdout.split()[-1])
        assert (new > 20) if i == 0 else (new == 0), run.stdout
        assert (folder / pattern_cache._name()).is_file()
    off = tmp_path / "off.jsonl"
    assert _run([str(EXAMPLE), "-o", str(off), "-q"], {cachedir.ENV: ""}, tmp_path).returncode == 0
    assert outs[0] == outs[1] == off.read_bytes()


def test_an_unwritable_cache_folder_changes_nothing(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    out = tmp_path / "out.jsonl"
    run = _run([str(EXAMPLE), "-o", str(out), "-q"], {cachedir.ENV: str(blocker / "cache")}, tmp_path)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    off = tmp_path / "off.jsonl"
    assert _run([str(EXAMPLE), "-o", str(off), "-q"], {cachedir.ENV: ""}, tmp_path).returncode == 0
    assert out.read_bytes() == off.read_bytes()
    assert blocker.read_text() == "not a folder"
