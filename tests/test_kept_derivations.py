"""What is derived from the credential specs and kept in the cache folder between processes.

Two derivations go through `cachedir.kept`: the `[fast]` gate's anchors (`anchors.kept_anchors`,
about 20 ms to derive) and the plain scan's leads (`leads.kept_leads`, about 7 ms, read at the
first scan of every process).  Each is read back as derived, in a file named after the code that
derives it, derived anew where the file is damaged, and never written by a forked worker or where
the cache is off.
"""

from __future__ import annotations

import hashlib
import marshal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import ROOT

from sanitizer import cachedir
from sanitizer.secrets import anchors, leads
from sanitizer.secrets import scan as secrets

SPECS = [sp.spec for sp in secrets.PATTERNS if not sp.folded]

# (module, its kept function, the name of its derive function, entries that must not be read back)
DERIVED: dict[str, tuple[ModuleType, Callable[[list[str]], list[Any]], str, dict[str, Any]]] = {
    "anchors": (anchors, anchors.kept_anchors, "anchors_of", {
        "empty literal": ((("",), 0),), "negative reach": ((("ghp_",), -1),), "a list": [(("ghp_",), 0)],
        "no literal": (((), 0),), "a reach that is no int": ((("ghp_",), 0.5),)}),
    "leads": (leads, leads.kept_leads, "leads", {
        "empty tuple": (), "one-char literal": ("g",), "a list": ["ghp_"], "not a string": (1,),
        "a string alone": "ghp_"}),
}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of this test's own, empty."""
    monkeypatch.setenv(cachedir.ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def derive_all(what: str) -> list[Any]:
    module, _, derive, _ = DERIVED[what]
    return [getattr(module, derive)(spec) for spec in SPECS]


@pytest.mark.parametrize("what", DERIVED)
def test_kept_values_are_the_derived_ones_and_save_deriving_them(what: str, folder: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    module, kept, derive, _ = DERIVED[what]
    derived = derive_all(what)
    assert any(derived)
    assert kept(SPECS) == derived  # derived, and kept
    assert (folder / module._kept_name()).is_file()
    monkeypatch.setattr(module, derive, lambda spec: pytest.fail(f"derived again: {spec}"))
    assert kept(SPECS) == derived  # read back, as a new process does


@pytest.mark.parametrize("what", DERIVED)
def test_the_file_is_named_after_the_deriving_code_and_python(what: str, folder: Path) -> None:
    module = DERIVED[what][0]
    name = module._kept_name()
    assert name.startswith(f"{what}-")
    assert hashlib.sha256(Path(module.__file__).read_bytes()).hexdigest()[:16] in name
    assert name.endswith(f"-py{''.join(map(str, sys.version_info[:3]))}.bin")


DAMAGE = [(what, damage) for what, (*_, bad) in DERIVED.items()
          for damage in [*bad, "not a dict", "another spec only", "a spec no pattern has", "cut short"]]


@pytest.mark.parametrize(("what", "damage"), DAMAGE)
def test_values_kept_wrong_are_derived_anew(what: str, damage: str, folder: Path) -> None:
    module, kept, _, bad = DERIVED[what]
    name = module._kept_name()
    derived = derive_all(what)
    first = SPECS[[bool(v) for v in derived].index(True)]  # a spec that has a value to spoil
    table = dict(zip(SPECS, derived, strict=True))
    if damage == "cut short":
        body = marshal.dumps(table)[:-20]
    else:
        body = marshal.dumps({"not a dict": [1, 2], "another spec only": {"abc": derived[0]},
                              "a spec no pattern has": {**table, "abc": derived[0]}}.get(damage)
                             or {**table, first: bad[damage]})
    cachedir.write(name, body)
    assert kept(SPECS) == derived
    assert marshal.loads(cachedir.read(name)) == table  # written anew, whole, with only these specs


@pytest.mark.parametrize("what", DERIVED)
def test_a_forked_worker_or_a_folder_that_is_off_keeps_nothing(what: str, folder: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    module, kept, _, _ = DERIVED[what]
    want = derive_all(what)[:5]
    monkeypatch.setattr(module, "_owner", -1)  # as in a process forked after import
    assert kept(SPECS[:5]) == want
    assert not (folder / module._kept_name()).exists()
    monkeypatch.undo()
    monkeypatch.setenv(cachedir.ENV, "")
    assert kept(SPECS[:5]) == want
    assert not folder.exists()


def test_the_first_scan_of_a_process_reads_the_leads_a_former_one_kept(tmp_path: Path) -> None:
    code = ("from sanitizer.secrets import leads, scan\n"
            "calls = []\n"
            "derive = leads.leads\n"
            "leads.leads = lambda spec: calls.append(spec) or derive(spec)\n"
            "print(scan.redact('token ghp_' + 'a1B2c3D4e5' * 4)[0])\n"
            "print(len(calls), all(sp.leads == derive(sp.spec) for sp in scan.PATTERNS if not sp.folded))\n")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "SANITIZER_PLAIN": "1",
           cachedir.ENV: str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
                           env=env).stdout.splitlines() for _ in range(2)]
    assert runs[0][0] == runs[1][0] and "[REDACTED:github-token:" in runs[0][0]
    assert runs[0][1] == f"{len(SPECS)} True"  # the first process derives every spec's leads, and keeps them
    assert runs[1][1] == "0 True"  # the second reads them all


# --- the shipped packs' tables (`config.files.pack_table`) ---------------------------------------


def test_every_shipped_pack_reads_back_as_the_toml_reader_parses_it(folder: Path) -> None:
    import tomllib

    from sanitizer.config import files as config_files

    for name in config_files.pack_names():
        text = (config_files._packs() / f"{name}.toml").read_text(encoding="utf-8")
        first, second = config_files.pack_table(name), config_files.pack_table(name)  # parsed, then read back
        assert first == second == (tomllib.loads(text), f"rules/{name}.toml")
        assert (folder / config_files._kept_name(name)).is_file()
    assert config_files.pack_table("none") == ({}, "<preset none>")


@pytest.mark.parametrize("damage", ["garbage", "another text", "not a table"])
def test_a_pack_kept_wrong_is_parsed_anew(damage: str, folder: Path) -> None:
    import tomllib

    from sanitizer.config import files as config_files

    text = (config_files._packs() / "default.toml").read_text(encoding="utf-8")
    config_files.pack_table("default")
    kept = folder / config_files._kept_name("default")
    if damage == "garbage":
        kept.write_bytes(b"\x00" * 40)
    else:
        key = "[settings]\nkeep_recent = 1\n" if damage == "another text" else text
        cachedir.write(kept.name, marshal.dumps({key: {"rule": []} if damage == "another text" else ["a list"]}))
    assert config_files.pack_table("default")[0] == tomllib.loads(text)


def test_a_process_after_the_first_reads_the_pack_without_the_toml_reader(tmp_path: Path) -> None:
    code = ("import sys\nfrom sanitizer import config\n"
            "c = config.load('default')\n"
            "print(len(c.active), 'tomllib' in sys.modules)\n")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", cachedir.ENV: str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True,
                           env=env).stdout.split() for _ in range(2)]
    assert runs[0][0] == runs[1][0] and int(runs[0][0]) > 10
    assert (runs[0][1], runs[1][1]) == ("True", "False")
