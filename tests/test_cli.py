"""The `sanitize` command: data on stdout, diagnostics on stderr, exit codes 0/1/2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import EXAMPLE, check_chat_messages, corpus_params

from sanitizer import __version__
from sanitizer.cli.command import main


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0
    assert __version__ in result.stdout


def test_identity_copy_goes_to_stdout_and_report_to_stderr() -> None:
    result = run(str(EXAMPLE), "--preset", "none")
    assert result.exit_code == 0
    assert result.stdout == EXAMPLE.read_text(encoding="utf-8")
    assert "tokens" in result.stderr and "messages" in result.stderr


def test_stdin_dash_reads_standard_input() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    result = run("-", "--preset", "none", "--quiet", input=text)
    assert result.exit_code == 0
    assert result.stdout == text
    assert result.stderr == ""


def test_output_file_is_written_and_input_is_never_overwritten(tmp_path: Path) -> None:
    src = tmp_path / "session.jsonl"
    src.write_bytes(EXAMPLE.read_bytes())
    out = tmp_path / "out.jsonl"
    assert run(str(src), "--preset", "none", "-o", str(out), "--quiet").exit_code == 0
    assert out.read_bytes() == src.read_bytes()
    refused = CliRunner().invoke(main, [str(src), "-o", str(src)])
    assert refused.exit_code == 2
    assert "refusing to overwrite the input" in refused.stderr
    assert src.read_bytes() == EXAMPLE.read_bytes()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "no temporary file left behind"


def test_to_text_is_a_readable_transcript() -> None:
    result = run(str(EXAMPLE), "--preset", "none", "--to", "text", "--quiet")
    assert result.exit_code == 0
    text = result.stdout
    assert text.startswith("[USER]: The invoice totals are off by a cent")
    assert "[ASSISTANT]: " in text
    assert "[Tool calls: Bash(" in text
    assert "[TOOL RESULT Bash]: Exit code 1" in text  # one call per message: no id needed
    assert "iVBORw0KGgo" not in text  # images are labels, never their data


def test_to_messages_is_valid_chat_with_every_pair_kept() -> None:
    result = run(str(EXAMPLE), "--preset", "none", "--to", "messages", "--quiet")
    assert result.exit_code == 0
    messages = json.loads(result.stdout)
    calls, answered = check_chat_messages(messages)
    assert len(calls) == 7 and calls == answered


@pytest.mark.parametrize("path", corpus_params("claude_code_jsonl"))
def test_to_messages_on_real_sessions_keeps_pairs(path: Path) -> None:
    result = run(str(path), "--preset", "none", "--to", "messages", "--quiet")
    assert result.exit_code == 0
    calls, answered = check_chat_messages(json.loads(result.stdout))
    assert answered <= calls


@pytest.mark.parametrize("path", corpus_params("claude_code_jsonl"))
def test_check_lists_real_unanswered_calls_and_exits_zero(path: Path) -> None:
    result = run("--check", str(path))
    assert result.exit_code == 0
    assert result.stdout == ""
    lines = [line for line in result.stderr.splitlines() if "unanswered-call" in line]
    raw = path.read_bytes().decode("utf-8")
    uses = raw.count('"type":"tool_use"')
    results = raw.count('"type":"tool_result"')
    if uses > results:
        assert lines, "more tool_use than tool_result: the unanswered calls must be listed"
    for line in lines:
        where, _, rest = line.partition(": unanswered-call: ")
        file, _, number = where.rpartition(":")
        assert file == str(path) and number.isdigit()
        call_id = rest.split()[2]
        assert call_id.startswith("toolu_") and call_id in raw.split("\n")[int(number) - 1]
    strict = run("--check", "--strict", str(path))
    assert strict.exit_code == (1 if lines or "not valid JSON" in result.stderr else 0)


def test_damaged_line_is_reported_copied_and_fails_only_under_strict(tmp_path: Path) -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").split("\n")
    lines.insert(3, '{"type":"user","message":{"role":"user","content":"To: [REDACTED')
    src = tmp_path / "damaged.jsonl"
    src.write_text("\n".join(lines), encoding="utf-8")
    result = run(str(src), "--preset", "none")
    assert result.exit_code == 0
    assert f"{src}:4: not valid JSON" in result.stderr
    assert result.stdout.split("\n")[3] == lines[3]
    strict = run(str(src), "--preset", "none", "--strict")
    assert strict.exit_code == 1
    assert strict.stdout == ""


@pytest.mark.parametrize(("args", "message"), [
    (["--preset", "defualt"], "did you mean 'default'"),
    (["--format", "nope"], "Invalid value for '--format'"),
    (["--disable", "trim-txt"], "did you mean 'trim-text'"),
])
def test_usage_and_config_errors_exit_2(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, [str(EXAMPLE), *args])
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == ""


def test_bad_config_file_names_file_rule_and_key(tmp_path: Path) -> None:
    cfg = tmp_path / "sanitizer.toml"
    cfg.write_text('extends = "default"\n[[rule]]\nuse = "trim-text"\nmax_charz = 10\n', encoding="utf-8")
    result = CliRunner().invoke(main, [str(EXAMPLE), "--config", str(cfg)])
    assert result.exit_code == 2
    assert str(cfg) in result.stderr and "'trim-text'" in result.stderr and "'max_charz'" in result.stderr
    assert "did you mean" in result.stderr


def test_unreadable_input_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    result = CliRunner().invoke(main, [str(bad)])
    assert result.exit_code == 1
    assert f"{bad}:1: not valid JSON" in result.stderr


def test_list_rules_shows_the_order_rules_run_in() -> None:
    result = run("--list-rules")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("preset default (keep_recent=10)")
    names = [line.split()[2] for line in lines[1:]]
    assert names[0] == "keep-tag" and names.index("redact-secrets") < names.index("trim-text")


def test_explain_says_what_why_and_what_it_loses() -> None:
    result = run("--explain", "digest-tool-result")
    assert result.exit_code == 0
    for heading in ("What it does:", "Why:", "What it can lose:", "In preset default:"):
        assert heading in result.stdout
    unknown = CliRunner().invoke(main, ["--explain", "digest-tool-results"])
    assert unknown.exit_code == 2 and "did you mean" in unknown.stderr


def test_show_config_round_trips_as_a_user_config(tmp_path: Path) -> None:
    shown = run("--show-config", "--preset", "hermes", "--disable", "trim-text")
    assert shown.exit_code == 0
    cfg = tmp_path / "sanitizer.toml"
    cfg.write_text(shown.stdout.replace('name = "hermes"', 'name = "mine"\nextends = "none"'), encoding="utf-8")
    again = run("--show-config", "--config", str(cfg))
    assert again.exit_code == 0
    assert again.stdout.split("\n", 2)[2] == shown.stdout.replace('name = "hermes"', 'name = "mine"').split("\n", 2)[2]


def test_summary_mode_prints_the_fallback_summary_and_json_sections() -> None:
    result = run(str(EXAMPLE), "--summary", "--report", "json")
    assert result.exit_code == 0
    assert result.stdout.startswith("## Active Task\nGreat. Now fix the credit notes too and run the tests again.")
    report = json.loads(result.stderr)
    assert report["summary"]["sections"]["Active Task"] == ["Great. Now fix the credit notes too and run the tests again."]


def test_default_pack_report_json_has_rules_and_provenance() -> None:
    result = run(str(EXAMPLE), "--report", "json")
    assert result.exit_code == 0
    report = json.loads(result.stderr)
    assert report["version"] == 1
    assert report["totals"]["tokens_after"] < report["totals"]["tokens_before"]
    rules = {r["rule"]: r for r in report["rules"]}
    assert rules["digest-tool-result"]["hits"] >= 1 and rules["digest-tool-result"]["tokens_saved"] > 0
    cut = report["cuts"][0]
    assert set(cut) == {"rule", "record", "line", "path", "original_chars", "new_chars", "removed_chars", "sha256"}
    assert len(cut["sha256"]) == 64


def test_dataset_jsonl_streams_to_the_same_bytes_as_the_whole_file_path(tmp_path: Path) -> None:
    from sanitizer import Sanitizer

    episode = json.loads(json.dumps([json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()]))
    chat = Sanitizer("none", count_tokens=False).sanitize(episode).conversations()[0]
    src = tmp_path / "dataset.jsonl"
    src.write_text("".join(json.dumps({"id": i, "messages": chat}) + "\n" for i in range(3)), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(main, [str(src), "-o", str(out), "--report", "json"])
    assert result.exit_code == 0, result.stderr
    whole = Sanitizer("default").sanitize_file(src)
    assert out.read_text(encoding="utf-8") == whole.dumps()
    assert json.loads(result.stderr)["totals"]["tokens_after"] == whole.report.tokens_after
