"""Generated probes for `bench/fidelity.py`: small conversations that each hide facts a summary needs.

Every probe is OpenAI-chat messages (no exit status anywhere, as a chat tool message has none), made
up here, deterministic.
"""

from __future__ import annotations

import json
from typing import Any


def _call(i: int, name: str, args: dict) -> dict[str, Any]:
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": f"call_{i:03d}", "type": "function",
                            "function": {"name": name, "arguments": json.dumps(args)}}]}


def _result(i: int, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": f"call_{i:03d}", "content": text}


def pytest_output(run: int, lines: int = 70) -> str:
    """About 6 KB of passing pytest lines with one AssertionError in the middle, no exit status."""
    half = lines // 2
    body = [f"tests/test_module_{run:02d}.py::test_case_{k:03d}[param-{k * 7 % 13}] PASSED"
            f"{' ' * 20}[{(k * 100) // lines:3d}%]" for k in range(half)]
    body += [f"E       AssertionError: run {run}: checksum mismatch for chunk {run * 3} (expected 0x{run:04x})"]
    body += [f"tests/test_module_{run:02d}.py::test_case_{k:03d}[param-{k * 7 % 13}] PASSED"
             f"{' ' * 20}[{(k * 100) // lines:3d}%]" for k in range(half, lines)]
    return "\n".join(body)


def pytest_probe(runs: int = 15) -> list[dict[str, Any]]:
    """The issue's probe: `runs` pytest runs whose ~6 KB output hides one AssertionError."""
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."},
                                  {"role": "user", "content": "Find out why the checksum tests fail."}]
    for i in range(runs):
        msgs.append(_call(i, "bash", {"command": f"pytest -v tests/test_module_{i:02d}.py"}))
        msgs.append(_result(i, pytest_output(i)))
    msgs.append({"role": "assistant", "content": "Each module fails one checksum case."})
    msgs.append({"role": "user", "content": "Summarize which chunks fail."})
    return msgs


def _filler(n: int, word: str) -> str:
    return "\n".join(f"{word} line {k}: " + "lorem ipsum dolor sit amet " * 3 for k in range(n))


def mixed_errors_probe() -> list[dict[str, Any]]:
    """Errors a status never reports: PowerShell records, a missing module in a log tail, a KeyError,
    a compiler diagnostic, a `fatal:` from git, each in an output long enough to be digested."""
    outputs = [
        ("powershell", {"command": "Get-Item C:\\missing\\file.txt"},
         _filler(12, "info") + "\nGet-Item : Cannot find path 'C:\\missing\\file.txt' because it does not exist.\n"
         "    + CategoryInfo          : ObjectNotFound: (C:\\missing\\file.txt:String) [Get-Item], ItemNotFoundException\n"
         "    + FullyQualifiedErrorId : PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand"),
        ("bash", {"command": "python -m app.worker"},
         _filler(15, "log") + "\nModuleNotFoundError: No module named 'redis_queue'"),
        ("bash", {"command": "tail -n 40 logs/server.log"},
         _filler(14, "request") + "\n2026-01-03 10:00:01 worker crashed: KeyError: 'tenant_id'\n" + _filler(3, "shutdown")),
        ("bash", {"command": "gcc -Wall -c src/parse.c"},
         _filler(10, "note") + "\nsrc/parse.c:41:17: error: 'len' undeclared (first use in this function)\n"
         + _filler(4, "cc1")),
        ("bash", {"command": "git push origin main"},
         _filler(8, "remote") + "\nfatal: unable to access 'https://git.example.com/repo.git/': Could not resolve host\n"),
        ("bash", {"command": "make build"},
         _filler(12, "step") + "\nmake: *** [Makefile:12: build] Error 2\nThe command exited with status 2."),
    ]
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "Get the service running again."}]
    for i, (tool, args, out) in enumerate(outputs):
        msgs.append(_call(i, tool, args))
        msgs.append(_result(i, out))
    for k in range(12):  # enough later turns that every output above is outside the protected tail
        msgs.append({"role": "assistant", "content": f"Checked step {k}."})
        msgs.append({"role": "user", "content": f"Continue with step {k + 1}."})
    msgs.append({"role": "user", "content": "What is still broken?"})
    return msgs


def long_text_probe() -> list[dict[str, Any]]:
    """A long user brief with a constraint sentence deep inside, a long assistant report with URLs in
    its middle, then enough turns that both are old."""
    brief = (_filler(60, "context") + "\nMake sure gitleaks is set to max strict before any commit.\n"
             + _filler(60, "background") + "\nNever push directly to the main branch.\n"
             + "<key_info>The release branch is release/2.4; the CI account is ci-bot.</key_info>\n"
             + _filler(10, "notes"))
    urls = [f"https://docs.example.org/guide/section-{k}.html" for k in range(12)]
    report = (_filler(60, "finding") + "\n" + "\n".join(f"- source {k}: {u}" for k, u in enumerate(urls))
              + "\n" + _filler(60, "analysis"))
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "Set up the repository checks."},
                                  {"role": "assistant", "content": "Ready."},
                                  {"role": "user", "content": brief},
                                  {"role": "assistant", "content": report}]
    for k in range(12):
        msgs.append({"role": "user", "content": f"Next item {k}."})
        msgs.append({"role": "assistant", "content": f"Done with item {k}."})
    msgs.append({"role": "user", "content": "Now write the final checklist."})
    return msgs


PROBES = {
    "probe/pytest-15-runs": pytest_probe,
    "probe/errors-without-status": mixed_errors_probe,
    "probe/long-texts": long_text_probe,
}
