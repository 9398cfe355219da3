"""Before/after equivalence of the command line and the library over a matrix of options.

Runs `sanitize` (in process, through click) and the library on the bundled example and on every
file of `../shared/corpus/` with each preset, `--to text|messages`, `--summary`, `--check`,
`--budget` at 30% and 10% of the input's tokens, the whole-file path of streamable files, and
`--jobs 2` over all inputs at once, and records a sha256 of every output and of every JSON report
(with its timings taken out).

    python scripts/equivalence.py record MANIFEST     # write what this checkout produces
    python scripts/equivalence.py check MANIFEST      # compare with it (exit 1 and a list on a difference)
    python scripts/equivalence.py dump DIR            # write every output in full, to diff two checkouts

`tests/test_equivalence.py` runs `check` against `fixtures/equivalence.json`, recorded at the
commit before the package was reorganised; an intended change of output re-records it in the same
commit, so the diff of the manifest shows which cases changed.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
EXAMPLE = ROOT / "examples" / "claude_code_session.jsonl"
PRESETS = ("default", "genericagent", "hermes", "display", "none")
VOLATILE = {"seconds", "elapsed", "time"}


def inputs() -> list[Path]:
    """The example and every corpus transcript (the corpus is read in place, never copied)."""
    found = [EXAMPLE]
    if CORPUS.is_dir():
        found += sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "SOURCES.md")
    return found


def label(path: Path) -> str:
    return str(path.relative_to(CORPUS)) if CORPUS in path.parents else f"examples/{path.name}"


def digest(data: bytes | str) -> str:
    """A short fingerprint of an output, with the corpus and the clone written as `<corpus>`, `<repo>`."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    raw = raw.replace(str(CORPUS).encode(), b"<corpus>").replace(str(ROOT).encode(), b"<repo>")
    return hashlib.sha256(raw).hexdigest()[:16]


def stable(obj: Any) -> Any:
    """A JSON report without what changes from run to run or clone to clone (timings, the folder)."""
    if isinstance(obj, dict):
        return {k: stable(v) for k, v in obj.items() if k not in VOLATILE}
    if isinstance(obj, list):
        return [stable(v) for v in obj]
    if isinstance(obj, str):
        return obj.replace(str(CORPUS), "<corpus>").replace(str(ROOT), "<repo>")
    return obj


def run_cli(args: list[str]) -> tuple[int, bytes, str]:
    """`sanitize ARGS` in this process: exit code, stdout bytes, stderr text."""
    from sanitizer.cli import main  # the same name in every layout

    out, err = io.BytesIO(), io.StringIO()
    text_out = io.TextIOWrapper(out, encoding="utf-8", errors="surrogateescape", write_through=True)
    saved = sys.stdout
    try:
        sys.stdout = text_out
        with redirect_stderr(err):
            try:
                main.main(args=args, prog_name="sanitize", standalone_mode=False)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except Exception as exc:  # a traceback is a result too: recorded, never hidden
                code, err_text = 99, f"{type(exc).__name__}: {exc}"
                err.write(err_text)
        text_out.flush()
    finally:
        sys.stdout = saved
    return code, out.getvalue(), err.getvalue()


def report_of(stderr: str, report_file: Path) -> Any:
    if report_file.exists() and report_file.stat().st_size:
        return stable(json.loads(report_file.read_text(encoding="utf-8")))
    return None


def cli_cases(path: Path, tmp: Path) -> Iterator[tuple[str, Callable[[], dict[str, Any]]]]:
    """(case name, runner) for one input file."""
    src = str(path)

    def case(*extra: str) -> Callable[[], dict[str, Any]]:
        def go() -> dict[str, Any]:
            rf = tmp / "report.json"
            rf.unlink(missing_ok=True)
            code, out, _ = run_cli([src, "--report", "none", "--report-file", str(rf), *extra])
            return {"exit": code, "out": digest(out), "report": digest(json.dumps(report_of("", rf),
                                                                                   sort_keys=True))}
        return go

    for preset in PRESETS:
        yield f"cli --preset {preset}", case("--preset", preset)
    yield "cli --to text", case("--to", "text")
    yield "cli --to messages", case("--to", "messages")
    yield "cli --summary", case("--summary")
    yield "cli --check", case("--check")
    yield "cli --strict (whole-file path)", case("--strict")
    tokens = _tokens(path, tmp)
    if tokens:
        for share in (30, 10):
            yield f"cli --budget {share}%", case("--budget", str(max(1, tokens * share // 100)))


def _tokens(path: Path, tmp: Path) -> int:
    rf = tmp / "tokens.json"
    rf.unlink(missing_ok=True)
    run_cli([str(path), "--preset", "none", "--report", "none", "--report-file", str(rf)])
    if not rf.exists():
        return 0
    return int(json.loads(rf.read_text(encoding="utf-8")).get("totals", {}).get("tokens_before") or 0)


def library_case(path: Path) -> dict[str, Any]:
    """The library's one-call path and its renderings."""
    from sanitizer import Sanitizer

    try:
        result = Sanitizer().sanitize_file(path)
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    report = stable(result.report.to_dict()) if hasattr(result.report, "to_dict") else None
    try:
        conversations = json.dumps(result.conversations(), sort_keys=True, ensure_ascii=False)
    except Exception as exc:
        conversations = f"{type(exc).__name__}: {exc}"
    return {"dumps": digest(result.dumps()), "text": digest(result.text()), "messages": digest(conversations),
            "report": digest(json.dumps(report, sort_keys=True, default=str))}


def jobs_case(files: list[Path], tmp: Path) -> dict[str, Any]:
    """`--jobs 2` over every input at once: each output file, and the exit code."""
    out_dir = tmp / "jobs"
    out_dir.mkdir(exist_ok=True)
    code, _, _ = run_cli([*map(str, files), "--jobs", "2", "-o", str(out_dir), "--report", "none"])
    outputs = {p.name: digest(p.read_bytes()) for p in sorted(out_dir.iterdir())}
    return {"exit": code, "outputs": outputs}


def record() -> dict[str, Any]:
    manifest: dict[str, Any] = {}
    files = inputs()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for path in files:
            name = label(path)
            for case, go in cli_cases(path, tmp):
                manifest[f"{name} :: {case}"] = go()
            manifest[f"{name} :: library"] = library_case(path)
        manifest["all inputs :: cli --jobs 2"] = jobs_case(files, tmp)
    return manifest


def compare(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    lines = []
    for key in sorted(old.keys() | new.keys()):
        if key not in new:
            lines.append(f"missing now: {key}")
        elif key not in old:
            lines.append(f"new case: {key}")
        elif old[key] != new[key]:
            lines.append(f"differs: {key}: {old[key]} -> {new[key]}")
    return lines


def dump(folder: Path) -> None:
    """Every CLI output in full (for a diff of two checkouts when `check` finds a difference)."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as d:
        for path in inputs():
            for case, _ in cli_cases(path, Path(d)):
                args = case.removeprefix("cli ").split()
                if "--budget" in args or "(whole-file" in case:
                    continue
                code, out, err = run_cli([str(path), "--report", "none", *args])
                name = f"{label(path).replace('/', '__')}{'_'.join(args)}"
                (folder / name).write_bytes(out + f"\n[exit {code}]\n{err}".encode("utf-8", "surrogateescape"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    for verb in ("record", "check"):
        sub.add_parser(verb).add_argument("manifest", type=Path)
    sub.add_parser("dump").add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    if args.verb == "dump":
        dump(args.folder)
        return 0
    with redirect_stdout(sys.stderr):
        new = record()
    if args.verb == "record":
        args.manifest.write_text(json.dumps(new, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"recorded {len(new)} cases in {args.manifest}")
        return 0
    old = json.loads(args.manifest.read_text(encoding="utf-8"))
    if not CORPUS.is_dir():  # without the corpus only the example's cases can be compared
        old = {k: v for k, v in old.items() if k.startswith("examples/")}
        new = {k: v for k, v in new.items() if k.startswith("examples/")}
    problems = compare(old, new)
    for line in problems:
        print(line)
    print(f"{len(new)} cases, {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
