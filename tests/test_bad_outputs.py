"""Bad outputs at the command line: devices, FIFOs, sockets, links, /dev/stdout, a full disk, a
read-only folder, a reader that goes away; lone surrogates and non-finite numbers written back.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from cli_procs import (
    ROOT_ONLY,
    assert_no_process_left,
    big_files,
    expected_copy,
    one_line,
    sanitize,
    session_file,
    snapshot,
)
from hypothesis import given
from hypothesis import strategies as st

session = pytest.fixture(session_file)
big_inputs = pytest.fixture(scope="module")(big_files)


# --- 1. output safety ---------------------------------------------------------------------------


@ROOT_ONLY
def test_output_to_a_char_device_is_written_through_not_replaced(tmp_path: Path, session: Path) -> None:
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.stat("/dev/null").st_rdev)
    before = snapshot(tmp_path)
    ran = sanitize(str(session), "-q", "-o", str(null), cwd=tmp_path)
    assert ran.code == 0 and ran.stderr == "" and ran.stdout == b""
    assert stat.S_ISCHR(null.lstat().st_mode) and null.lstat().st_rdev == os.stat("/dev/null").st_rdev
    assert snapshot(tmp_path) == before


@ROOT_ONLY
def test_a_full_disk_is_one_line_and_the_device_stays(tmp_path: Path, session: Path) -> None:
    full = tmp_path / "full"
    os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    before = snapshot(tmp_path)
    one_line(sanitize(str(session), "-o", str(full), cwd=tmp_path), 1, str(full), "no space left on device")
    assert stat.S_ISCHR(full.lstat().st_mode)
    assert snapshot(tmp_path) == before


def test_output_to_a_fifo_is_written_through(tmp_path: Path, session: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    before = snapshot(tmp_path)
    ran = sanitize(str(session), "-q", "-o", str(fifo), cwd=tmp_path)
    reader.join(timeout=120)
    assert ran.code == 0, ran.stderr
    assert got == [expected_copy(tmp_path)]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert snapshot(tmp_path) == before


def test_output_to_a_socket_fails_in_one_line_and_the_socket_stays(tmp_path: Path, session: Path) -> None:
    path = tmp_path / "out.sock"
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(path))
        before = snapshot(tmp_path)
        one_line(sanitize(str(session), "-o", str(path), cwd=tmp_path), 1, str(path), "cannot write")
        assert stat.S_ISSOCK(path.lstat().st_mode)
        assert snapshot(tmp_path) == before
    finally:
        sock.close()


def test_output_to_dev_stdout_writes_into_the_callers_file(tmp_path: Path, session: Path) -> None:
    target = tmp_path / "redirected.jsonl"
    with target.open("wb") as fh:
        inode = os.fstat(fh.fileno()).st_ino
        ran = sanitize(str(session), "-q", "-o", "/dev/stdout", cwd=tmp_path, stdout=fh)
    assert ran.code == 0, ran.stderr
    assert target.stat().st_ino == inode, "the caller's file was replaced, not written"
    assert target.read_bytes() == expected_copy(tmp_path)


def test_output_to_a_file_descriptor_path_like_process_substitution(tmp_path: Path, session: Path) -> None:
    read_end, write_end = os.pipe()
    got: list[bytes] = []

    def drain() -> None:
        with os.fdopen(read_end, "rb") as fh:
            got.append(fh.read())

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        ran = sanitize(str(session), "-q", "-o", f"/dev/fd/{write_end}", cwd=tmp_path, pass_fds=(write_end,))
    finally:
        os.close(write_end)
    reader.join(timeout=120)
    assert ran.code == 0, ran.stderr
    assert got == [expected_copy(tmp_path)]


def test_a_symlink_output_replaces_its_target_and_stays_a_link(tmp_path: Path, session: Path) -> None:
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "clean.jsonl"
    real.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    ran = sanitize(str(session), "-q", "-o", str(link), cwd=tmp_path)
    assert ran.code == 0, ran.stderr
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == expected_copy(tmp_path)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["clean.jsonl", "link.jsonl", "real", "session.jsonl"]


@pytest.mark.parametrize("how", ["symlink", "hardlink"])
def test_the_input_is_never_the_output(tmp_path: Path, session: Path, how: str) -> None:
    other = tmp_path / "other.jsonl"
    other.symlink_to(session) if how == "symlink" else os.link(session, other)
    before = snapshot(tmp_path)
    ran = sanitize(str(session), "-o", str(other), cwd=tmp_path)
    assert ran.code == 2 and "refusing to overwrite the input" in ran.stderr
    assert snapshot(tmp_path) == before


def test_a_read_only_output_folder_is_one_line(tmp_path: Path, session: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    if os.geteuid() == 0:  # root writes through permissions: /sys refuses new files to anyone
        target = Path("/sys/clean.jsonl")
        if not os.path.isdir("/sys") or os.path.exists(target):
            pytest.fail("/sys is needed to test a folder that refuses writing as root")
    else:
        target = ro / "clean.jsonl"
        ro.chmod(0o555)
    before = snapshot(tmp_path)
    try:
        one_line(sanitize(str(session), "-o", str(target), cwd=tmp_path), 1, str(target), "cannot write")
    finally:
        ro.chmod(0o755)
    assert snapshot(tmp_path) == before and not target.exists()


def test_an_output_folder_under_a_file_is_one_line(tmp_path: Path, session: Path) -> None:
    before = snapshot(tmp_path)
    one_line(sanitize(str(session), "-o", str(session / "x.jsonl"), cwd=tmp_path), 1, "cannot write: not a directory")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("kind", ["session", "dataset", "dataset-jobs", "files-jobs"])
def test_a_reader_that_goes_away_stops_the_run_in_one_line(tmp_path: Path, big_inputs: dict[str, Path],
                                                           kind: str) -> None:
    files = {"session": ["session"], "dataset": ["dataset"], "dataset-jobs": ["dataset"],
             "files-jobs": ["s0", "s1"]}[kind]
    args = [str(big_inputs[f]) for f in files] + (["--jobs", "2"] if kind.endswith("jobs") else [])
    before = snapshot(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "sanitizer", *args, "-q"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # like `| head -c 0`: the reader is gone before the first write
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 1
    assert_no_process_left(proc.pid)
    assert err.splitlines() == ["sanitize: <stdout>: cannot write: the reader went away (broken pipe)"], err
    assert snapshot(tmp_path) == before


SURROGATE = [{"role": "user", "content": "fix the parser \ud800 now"},
             {"role": "assistant", "content": "done \udfff"}]


@pytest.mark.parametrize("mode", [["--to", "text"], ["--to", "messages"], ["--summary"], []])
def test_lone_surrogates_are_written_back_as_escapes(tmp_path: Path, mode: list[str]) -> None:
    src = tmp_path / "chat.json"
    src.write_text(json.dumps(SURROGATE))  # ASCII with `\ud800` escapes
    before = snapshot(tmp_path)
    ran = sanitize(str(src), "-q", *mode, cwd=tmp_path)
    assert ran.code == 0 and ran.stderr == ""
    text = ran.stdout.decode("utf-8")  # valid UTF-8
    assert "\\ud800" in text
    if mode != ["--summary"]:
        assert "\\udfff" in text
    if mode in (["--to", "messages"], []):
        assert json.loads(text)[0]["content"] == "fix the parser \ud800 now"
    assert snapshot(tmp_path) == before


# --- 4. non-finite numbers are written back as they were read ---------------------------------

AWS_KEY = "AKIA" + "Q3EGRTLP7VMZ2XKD"  # not AWS's documented example key, which is left alone
NONFINITE = ('{"role": "assistant", "content": "the key is ' + AWS_KEY + '", "score": 1e999, "low": -1E+400, '
             '"m": -Infinity, "n": NaN, "p": Infinity, "ok": 2.5e10}')


@pytest.mark.parametrize("layout", ["jsonl", "json"])
def test_non_finite_numbers_in_a_changed_record_are_written_verbatim(tmp_path: Path, layout: str) -> None:
    src = tmp_path / f"chat.{layout}"
    ask, thanks = '{"role": "user", "content": "find the key"}', '{"role": "user", "content": "thanks"}'
    records = [ask, NONFINITE, thanks]
    src.write_text("".join(r + "\n" for r in records) if layout == "jsonl" else f"[{', '.join(records)}]\n")
    before = snapshot(tmp_path)
    ran = sanitize(str(src), "-q", cwd=tmp_path)
    assert ran.code == 0, ran.stderr
    out = ran.stdout.decode()
    assert AWS_KEY not in out, "the record was changed (redacted)"
    for literal in ('"score":1e999', '"low":-1E+400', '"m":-Infinity', '"n":NaN', '"p":Infinity', '"ok":25000000000.0'):
        assert literal in out.replace(" ", ""), literal
    assert "inf" not in out.replace("Infinity", "")
    assert snapshot(tmp_path) == before


def test_a_string_that_looks_like_a_number_marker_is_left_alone() -> None:
    from sanitizer.document import json_numbers, loader

    value = [json_numbers.decoder.decode('{"a": 1e999, "b": "NaN and Infinity in prose"}')]
    assert loader.dumps_value(value) == '[{"a": 1e999, "b": "NaN and Infinity in prose"}]'
    assert loader.dumps_value([{"b": "NaN"}]) == '[{"b": "NaN"}]'


# --- invariants of the writer's two escapes ----------------------------------------------------

_LITERALS = st.sampled_from(["1e999", "-1e999", "1E+400", "NaN", "Infinity", "-Infinity", "2.5", "0", "-3e-7"])


@given(st.lists(st.tuples(st.text(max_size=8), _LITERALS), max_size=8), st.sampled_from([None, 2]))
def test_every_number_literal_survives_a_write(pairs: list[tuple[str, str]], indent: int | None) -> None:
    from sanitizer.document import json_numbers, loader

    text = "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in dict(pairs).items()) + "}"
    value = json_numbers.decoder.decode(text)
    written = loader.dumps_value(value, indent=indent)
    again = json_numbers.decoder.decode(written)
    assert list(again) == list(value)
    for key, literal in dict(pairs).items():
        got = again[key]
        if isinstance(got, json_numbers.RawNumber):
            assert got.text == literal
        else:
            assert got == float(literal) or got == int(literal)


@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0xFFFF), max_size=40))
def test_output_text_always_encodes_and_lone_surrogates_become_escapes(text: str) -> None:
    from sanitizer.run.output import encode

    data = encode(text)
    decoded = data.decode("utf-8", errors="surrogateescape")  # never raises: valid UTF-8 but smuggled bytes
    for ch in text:
        if 0xD800 <= ord(ch) <= 0xDFFF and not 0xDC80 <= ord(ch) <= 0xDCFF:
            assert f"\\u{ord(ch):04x}" in decoded
    if not any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        assert decoded == text


def test_a_temporary_output_is_a_new_private_file_beside_its_target(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """What `tempfile.mkstemp` gives: a file only this call created, mode 0600, in the folder; a
    name already taken (a file, a symlink an attacker planted) is never opened, another is drawn."""
    from sanitizer.run import output

    fd, name = output._mkstemp(tmp_path, ".out.jsonl.")
    os.close(fd)
    path = Path(name)
    assert path.parent == tmp_path and path.name.startswith(".out.jsonl.") and len(path.name) == len(".out.jsonl.") + 12
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and path.stat().st_size == 0
    draws = iter([b"\x00" * 6, b"\x00" * 6, b"\x01" * 6])
    monkeypatch.setattr(output.os, "urandom", lambda n: next(draws))
    taken = tmp_path / (".x." + "00" * 6)
    taken.symlink_to(tmp_path / "elsewhere")
    fd, name = output._mkstemp(tmp_path, ".x.")
    os.close(fd)
    assert name == str(tmp_path / (".x." + "01" * 6)) and taken.is_symlink() and not (tmp_path / "elsewhere").exists()
