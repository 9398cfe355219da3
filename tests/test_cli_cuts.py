"""`sanitize FILE --cuts SIDECAR` and `sanitize expand SIDECAR ID`: the command line's side of
recoverable cuts, and the plain report said on stderr when it is not a terminal."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from conftest import EXAMPLE

from sanitizer.cli.command import main
from sanitizer.cli.table import top_rules_line
from sanitizer.cuts import to_bytes
from sanitizer.report import Report, RuleStats

# Rules whose changes leave no marker or placeholder to carry an id (README, "Where ids show").
MARKERLESS = {"collapse-blank-lines", "collapse-code", "strip-block", "trim-call-args"}
SECRET = "ghp_" + "Z7q9K2m4N6p8R1s3T5v7X9y2A4c6E8g0J3kL"


def sanitize(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "sanitizer", *args], cwd=cwd, capture_output=True, timeout=300)


def sidecar(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def chat_file(tmp_path: Path, body: str, name: str = "chat.json") -> Path:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."},
                                  {"role": "user", "content": "Fix the build."},
                                  {"role": "assistant", "content": "Send me the log."},
                                  {"role": "user", "content": body}]  # not the first ask: that one is kept
    for i in range(12):
        msgs += [{"role": "assistant", "content": f"step {i}"}, {"role": "user", "content": f"go on {i}"}]
    msgs.append({"role": "user", "content": "What failed?"})
    path = tmp_path / name
    path.write_text(json.dumps(msgs, ensure_ascii=False), encoding="utf-8")
    return path


def long_body(middle: str = "") -> str:
    lines = "\n".join(f"log line {k}: all is well in ünïcødé 日本 🙂" for k in range(400))
    return f"{lines}\n{middle}\n{lines}"


def test_without_cuts_the_output_is_unchanged_and_no_sidecar_is_written(tmp_path: Path) -> None:
    plain = sanitize(str(EXAMPLE), "--report", "none", cwd=tmp_path)
    with_ids = sanitize(str(EXAMPLE), "--report", "none", "--cuts", "cuts.jsonl", cwd=tmp_path)
    assert plain.returncode == with_ids.returncode == 0
    assert " · c1" not in plain.stdout.decode() and list(tmp_path.iterdir()) == [tmp_path / "cuts.jsonl"]
    assert re.sub(r" · c[0-9]+", "", with_ids.stdout.decode()) == plain.stdout.decode()
    entries = sidecar(tmp_path / "cuts.jsonl")
    assert [e["id"] for e in entries] == [f"c{i}" for i in range(1, len(entries) + 1)]
    assert set(entries[0]) == {"id", "rule", "rules", "record", "line", "path", "kind", "text", "sha256", "redacted"}
    marked = [e for e in entries if not set(e["rules"]) <= MARKERLESS]
    assert marked
    for e in marked:
        assert f" · {e['id']}" in with_ids.stdout.decode()


def test_the_html_page_of_the_same_run_names_every_cut_of_the_sidecar(tmp_path: Path) -> None:
    ran = sanitize(str(EXAMPLE), "--cuts", "s.jsonl", "--html", "page.html", "--report", "none", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    entries = sidecar(tmp_path / "s.jsonl")
    assert entries and all(f'data-cut="{e["id"]}"' in page for e in entries)


def test_expand_prints_the_text_byte_exact(tmp_path: Path) -> None:
    body = long_body("the one line that matters")
    src = chat_file(tmp_path, body)
    ran = sanitize(str(src), "--cuts", "s.jsonl", "-o", "out.json", "--report", "none", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    out = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert "· c1]…" in out[3]["content"]
    got = sanitize("expand", "s.jsonl", "c1", cwd=tmp_path)
    assert got.returncode == 0 and got.stderr == b""
    assert got.stdout == body.encode("utf-8")  # no newline added
    assert sidecar(tmp_path / "s.jsonl")[0]["sha256"] == hashlib.sha256(got.stdout).hexdigest()


def test_expand_gives_back_bytes_the_input_could_not_decode(tmp_path: Path) -> None:
    raw = long_body().encode() + b"\xff\xfe broken bytes " + long_body().encode()
    line = (b'{"role": "user", "content": "start"}\n{"role": "assistant", "content": "ok"}\n'
            b'{"role": "user", "content": "' + raw.replace(b"\n", b"\\n") + b'"}')
    rest = b"".join(b'\n{"role": "assistant", "content": "ok %d"}\n{"role": "user", "content": "more %d"}' % (i, i)
                    for i in range(12))
    src = tmp_path / "bytes.jsonl"
    src.write_bytes(b'{"role": "system", "content": "agent"}\n' + line + rest + b"\n")
    ran = sanitize(str(src), "--cuts", "s.jsonl", "-o", "out.jsonl", "--format", "openai_chat", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    got = sanitize("expand", "s.jsonl", "c1", cwd=tmp_path)
    assert got.returncode == 0 and got.stdout == raw


def test_secrets_stay_out_of_the_sidecar_unless_asked_for(tmp_path: Path) -> None:
    src = chat_file(tmp_path, long_body(f"export GITHUB_TOKEN={SECRET}"))
    assert sanitize(str(src), "--cuts", "a.jsonl", "-o", "o1.json", cwd=tmp_path).returncode == 0
    assert sanitize(str(src), "--cuts", "b.jsonl", "--cuts-include-secrets", "-o", "o2.json",
                    cwd=tmp_path).returncode == 0
    assert SECRET not in (tmp_path / "a.jsonl").read_text(encoding="utf-8")
    assert sidecar(tmp_path / "a.jsonl")[0]["redacted"] is True
    assert SECRET in sidecar(tmp_path / "b.jsonl")[0]["text"] and sidecar(tmp_path / "b.jsonl")[0]["redacted"] is False
    assert (tmp_path / "o1.json").read_bytes() == (tmp_path / "o2.json").read_bytes()
    assert SECRET not in (tmp_path / "o2.json").read_text(encoding="utf-8")


def test_several_inputs_write_one_sidecar_each_into_a_folder(tmp_path: Path) -> None:
    a = chat_file(tmp_path, long_body("first"), "a.json")
    b = chat_file(tmp_path, long_body("second"), "b.json")
    ran = sanitize(str(a), str(b), "--cuts", "side", "-o", "out", "--jobs", "2", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    for name, word in (("a.json", "first"), ("b.json", "second")):
        entries = sidecar(tmp_path / "side" / f"{name}.cuts.jsonl")
        assert entries[0]["id"] == "c1" and word in entries[0]["text"]
    (tmp_path / "file.jsonl").write_text("", encoding="utf-8")
    refused = sanitize(str(a), str(b), "--cuts", "file.jsonl", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.decode().splitlines() == [
        "sanitize: --cuts file.jsonl: with several inputs, give a folder (one NAME.cuts.jsonl per input)"]


def test_a_dataset_jsonl_gets_ids_across_its_conversations(tmp_path: Path) -> None:
    def episode(word: str) -> str:
        msgs = [{"role": "user", "content": "start"}, {"role": "assistant", "content": "ok"},
                {"role": "user", "content": long_body(word)}] + [
            {"role": r, "content": f"{r} {i}"} for i in range(12) for r in ("assistant", "user")]
        return json.dumps({"messages": msgs})

    src = tmp_path / "data.jsonl"
    src.write_text("\n".join(episode(w) for w in ("alpha", "beta", "gamma")) + "\n", encoding="utf-8")
    ran = sanitize(str(src), "--cuts", "s.jsonl", "-o", "out.jsonl", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    entries = sidecar(tmp_path / "s.jsonl")
    assert [(e["id"], e["line"]) for e in entries] == [("c1", 1), ("c2", 2), ("c3", 3)]
    lines = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    assert [re.findall(r"· (c[0-9]+)\]…", line) for line in lines] == [["c1"], ["c2"], ["c3"]]


def test_usage_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    cases = [(["--cuts-include-secrets"], "sanitize: --cuts-include-secrets keeps credentials in the --cuts file: "
                                          "give --cuts FILE too"),
             (["--cuts", "s.jsonl", "--budget", "100"], "sanitize: --cuts records the cuts of a sanitized copy: "
                                                        "not with --check, --summary, --budget or --engine"),
             (["--cuts", str(EXAMPLE)], f"sanitize: --cuts {EXAMPLE}: refusing to overwrite the input; "
                                        "choose another file")]
    for extra, line in cases:
        ran = sanitize(str(EXAMPLE), *extra, cwd=tmp_path)
        assert ran.returncode == 2 and ran.stderr.decode().splitlines() == [line]
    assert not (tmp_path / "s.jsonl").exists()


def test_expand_errors_name_the_file_and_line(tmp_path: Path) -> None:
    assert sanitize(str(EXAMPLE), "--cuts", "s.jsonl", "--report", "none", cwd=tmp_path).returncode == 0
    n = len(sidecar(tmp_path / "s.jsonl"))
    unknown = sanitize("expand", "s.jsonl", "c999", cwd=tmp_path)
    assert unknown.returncode == 1 and unknown.stdout == b""
    assert unknown.stderr.decode().splitlines() == [f"sanitize: s.jsonl: no cut 'c999' (ids c1…c{n})"]
    lines = (tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()
    edited = json.loads(lines[1])
    edited["text"] += "!"
    for bad, what in ((lines[0] + "\n{not json\n", "s.jsonl:2: not JSON"),
                      (lines[0] + "\n" + json.dumps(edited) + "\n", "s.jsonl:2: the sha256 of cut c2 does not match"),
                      ("[1, 2]\n", "s.jsonl:1: expected a JSON object, got list")):
        (tmp_path / "s.jsonl").write_text(bad, encoding="utf-8")
        ran = sanitize("expand", "s.jsonl", "c1", cwd=tmp_path)
        assert ran.returncode == 1 and ran.stdout == b""
        [line] = ran.stderr.decode().splitlines()
        assert line.startswith(f"sanitize: {what}"), line
    missing = sanitize("expand", "nowhere.jsonl", "c1", cwd=tmp_path)
    assert missing.returncode == 1 and missing.stderr.decode() == "sanitize: nowhere.jsonl: cannot read: no such file\n"
    usage = sanitize("expand", "s.jsonl", cwd=tmp_path)
    assert usage.returncode == 2 and usage.stderr.decode().startswith("sanitize: expand: usage: sanitize expand")


def test_to_bytes_matches_the_copy_encoding() -> None:
    assert to_bytes("plain ü") == "plain ü".encode()
    assert to_bytes("a\udcffb") == b"a\xffb"  # a byte the input could not decode
    assert to_bytes("x\ud800y") == b"x\\ud800y"  # a lone surrogate escape from the JSON


# --- the report on stderr ---------------------------------------------------------------------------


def test_the_table_does_not_wrap_off_a_terminal_and_names_the_top_rules(tmp_path: Path) -> None:
    deep = tmp_path / ("a-long-folder-name-" * 8) / "session-with-a-name-long-enough-to-wrap.jsonl"
    deep.parent.mkdir(parents=True)
    deep.write_bytes(EXAMPLE.read_bytes())
    result = CliRunner().invoke(main, [str(deep), "--report", "table", "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert lines[0] == f"{deep} · claude_code · preset default"  # the title, on one line
    rows = [line for line in lines if line.startswith("│")]
    assert len({len(line) for line in rows}) == 1  # every row one line of the same width
    assert any(re.match(r"│ digest-tool-result +│ +\d+ │ +[\d,]+ │ +[\d,]+ │$", line) for line in rows)
    top = [line for line in lines if line.startswith("top rules")]
    assert len(top) == 1 and re.fullmatch(r"top rules by tokens saved: [\w-]+ [\d,]+( · [\w-]+ [\d,]+){0,2}", top[0])
    assert top[0].startswith("top rules by tokens saved: digest-tool-result ")


def test_the_top_line_names_three_rules_by_what_they_saved() -> None:
    report = Report(source="s", format="f", preset="p", tokens_before=100, tokens_after=10)
    for name, hits, chars, tokens in (("a", 1, 900, 5), ("b", 2, 10, 40), ("c", 1, 50, 20), ("d", 3, 600, 30),
                                      ("idle", 0, 0, 0), ("zero", 1, 0, 0)):
        report.rules[name] = RuleStats(hits=hits, chars_saved=chars, tokens_saved=tokens)
    assert top_rules_line(report) == "top rules by tokens saved: b 40 · d 30 · c 20"
    report.tokens_before = None
    assert top_rules_line(report) == "top rules by chars saved: a 900 · d 600 · c 50"
    assert top_rules_line(Report(source="s", format="f", preset="p")) is None


def test_top_rules_by_chars_without_token_counts(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, [str(EXAMPLE), "--report", "table", "--no-tokens",
                                       "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 0
    [top] = [line for line in result.stderr.splitlines() if line.startswith("top rules")]
    assert top.startswith("top rules by chars saved: digest-tool-result ")


def test_a_missed_budget_is_said_plainly_with_the_smallest_size(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, [str(EXAMPLE), "--report", "table", "--budget", "50",
                                       "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 0
    [line] = [x for x in result.stderr.splitlines() if x.startswith("budget not met")]
    report = json.loads(CliRunner().invoke(main, [str(EXAMPLE), "--report", "json", "--budget", "50",
                                                  "-o", str(tmp_path / "o2.jsonl")]).stderr)
    smallest = report["budget"]["tokens_after"]
    assert report["budget"]["met"] is False
    assert line == f"budget not met: the smallest copy reached is {smallest:,} tokens, over the 50-token budget"
    met = CliRunner().invoke(main, [str(EXAMPLE), "--report", "table", "--budget", "100000",
                                    "-o", str(tmp_path / "o3.jsonl")])
    assert "budget not met" not in met.stderr


def test_help_names_the_expand_verb() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0 and "sanitize expand CUTS ID" in result.output
    assert "--cuts FILE" in result.output and "--cuts-include-secrets" in result.output


def test_the_json_report_names_each_cut_id_only_when_the_run_gave_ids(tmp_path: Path) -> None:
    plain = sanitize(str(EXAMPLE), "--report", "json", "-o", "plain.jsonl", cwd=tmp_path)
    with_ids = sanitize(str(EXAMPLE), "--report", "json", "-o", "ids.jsonl", "--cuts", "cuts.jsonl", cwd=tmp_path)
    assert plain.returncode == with_ids.returncode == 0, with_ids.stderr
    assert all("cut_id" not in c for c in json.loads(plain.stderr)["cuts"])
    reported = json.loads(with_ids.stderr)["cuts"]
    entries = {e["id"]: e for e in sidecar(tmp_path / "cuts.jsonl")}
    named = {c["cut_id"] for c in reported if "cut_id" in c}
    assert named and named <= set(entries)
    for cut in (c for c in reported if "cut_id" in c):
        entry = entries[cut["cut_id"]]
        assert cut["rule"] in entry["rules"] and cut["record"] == entry["record"]
    # A cut the report holds no record of is a linked copy with a text of its own (Claude Code's
    # `toolUseResult`): the report's record is its part's, in the same record, with the next id down.
    for cut_id in set(entries) - named:
        entry = entries[cut_id]
        part = entries[f"c{int(cut_id[1:]) - 1}"]
        assert part["record"] == entry["record"] and part["id"] in named and entry["path"] != part["path"], entry
