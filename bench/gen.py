"""Deterministic generated inputs for the benchmark and the fast-path tests.

Every generator writes one file line by line (memory stays small even for the 500 MB dataset) and
returns its path.  The same seed and size always give the same bytes.

- `claude_session`: a Claude Code session JSONL with a realistic mix (user prompts, signed
  thinking, text, tool calls, tool results of varied sizes with their `toolUseResult` copies, a few
  base64 screenshots, pass-through records).
- `unclosed_tags`: one old assistant message holding N unclosed `<thinking>` tags.
- `big_tool_result`: one old Bash result of N MB (a single very long line).
- `short_messages`: N short user/assistant messages.
- `cjk_run`: one old message holding an N MB CJK run with no spaces.
- `dataset`: OpenAI-chat dataset JSONL, one conversation per line.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

MB = 1024 * 1024
WORDS = ("the", "a", "of", "to", "and", "in", "is", "for", "that", "with", "on", "this", "file", "test", "error",
         "function", "return", "value", "config", "module", "import", "class", "def", "self", "None", "True",
         "user", "invoice", "total", "rounding", "Decimal", "customer", "request", "response", "handler", "cache",
         "timeout", "retry", "parse", "token", "session", "build", "deploy", "check", "fixed", "passed", "failed",
         "warning", "line", "column", "path", "src", "tests", "lib", "utils", "main", "index", "data", "json")
CODE = ("def {w}_{n}(self, {w2}):", "    return self.{w}[{n}]", "    if {w} is None:", "        raise ValueError('{w} {w2}')",
        "import {w}", "from {w}.{w2} import {W}", "class {W}{n}({W2}):", "    {w} = {w2}({n})", "# {w} {w2} {w} {n}",
        "    for {w} in {w2}:", "        {w}.append({w2}[{n}])", "")
LOG = ("tests/test_{w}.py::test_{w2}_{n} PASSED [{p:3d}%]", "tests/test_{w}.py::test_{w2}_{n} FAILED [{p:3d}%]",
       "INFO {w}.{w2}: processed {n} items in {p} ms", "WARNING {w}: {w2} is deprecated, use {w}_{n}",
       "src/{w}/{w2}.py:{n}:{p}: E501 line too long", "  File \"/home/dev/{w}/{w2}.py\", line {n}, in {w2}")
TOOLS = ("Bash", "Read", "Edit", "Grep", "Glob", "Write", "WebFetch", "TodoWrite")
SESSION = "7d1c0b3a-5e2f-4a61-8c9d-2b4e6f8a0c1e"
CWD = "/home/dev/projects/invoice-service"


class Words:
    """Cheap pseudo-text: prose, code and log lines, unique by construction (counters inside)."""

    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd
        self.n = 0

    def _fill(self, pattern: str) -> str:
        r, self.n = self.rnd, self.n + 1
        w, w2 = r.choice(WORDS), r.choice(WORDS)
        return pattern.format(w=w, w2=w2, W=w.capitalize(), W2=w2.capitalize(), n=self.n, p=r.randrange(100))

    def prose(self, chars: int) -> str:
        out, size = [], 0
        r = self.rnd
        while size < chars:
            k = r.randrange(6, 18)
            sentence = " ".join(r.choices(WORDS, k=k)).capitalize() + f" ({self.n})." + (" " if r.random() < 0.8 else "\n\n")
            self.n += 1
            out.append(sentence)
            size += len(sentence)
        return "".join(out)[:chars]

    def lines(self, chars: int, kinds: tuple[str, ...]) -> str:
        out, size = [], 0
        while size < chars:
            line = self._fill(self.rnd.choice(kinds))
            out.append(line)
            size += len(line) + 1
        return "\n".join(out)[:chars]


def _sizes(rnd: random.Random, median: int, cap: int) -> int:
    """A log-normal size: most results are small, a few are large."""
    return max(20, min(cap, int(rnd.lognormvariate(0, 1.3) * median)))


def _write(path: Path, records: Iterator[Any], target: int | None = None) -> Path:
    size = 0
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        for rec in records:
            line = json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n"
            fh.write(line)
            size += len(line.encode("utf-8")) if not line.isascii() else len(line)
            if target is not None and size >= target:
                break
    return path


class _Session:
    """Builds Claude Code records with parent links, timestamps and split assistant messages."""

    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)
        self.words = Words(self.rnd)
        self.parent: str | None = None
        self.n = 0
        self.msg = 0
        self.call = 0

    def _base(self, typ: str) -> dict[str, Any]:
        self.n += 1
        uid = f"{self.n:08x}-0000-4000-8000-{self.rnd.getrandbits(48):012x}"
        rec = {"parentUuid": self.parent, "isSidechain": False, "userType": "external", "cwd": CWD,
               "sessionId": SESSION, "version": "2.1.9", "gitBranch": "main", "type": typ}
        self.parent = uid
        rec["uuid"] = uid
        rec["timestamp"] = f"2026-11-28T{10 + self.n // 3600 % 10:02d}:{self.n // 60 % 60:02d}:{self.n % 60:02d}.000Z"
        return rec

    def user(self, content: Any, **extra: Any) -> dict[str, Any]:
        rec = self._base("user")
        rec["message"] = {"role": "user", "content": content}
        rec.update(extra)
        return rec

    def assistant(self, block: dict[str, Any], new_message: bool = True) -> dict[str, Any]:
        if new_message:
            self.msg += 1
        rec = self._base("assistant")
        rec["message"] = {"model": "claude-sonnet-4-5-20250929", "id": f"msg_01Gen{self.msg:08d}", "type": "message",
                          "role": "assistant", "content": [block], "stop_reason": None, "stop_sequence": None,
                          "usage": {"input_tokens": 1200 + self.n, "output_tokens": 180}}
        rec["requestId"] = f"req_011Gen{self.msg:08d}"
        return rec

    def tool_use(self, name: str, inp: dict[str, Any]) -> dict[str, Any]:
        self.call += 1
        return {"type": "tool_use", "id": f"toolu_01Gen{self.call:08d}", "name": name, "input": inp}

    def thinking(self, text: str) -> dict[str, Any]:
        sig = base64.b64encode(self.rnd.randbytes(240)).decode()
        return {"type": "thinking", "thinking": text, "signature": sig}

    def tool_turn(self) -> Iterator[dict[str, Any]]:
        r, w = self.rnd, self.words
        name = r.choice(TOOLS)
        size = _sizes(r, 1500, 120_000)
        if name == "Bash":
            cmd = f"cd {CWD} && pytest -q tests/test_{r.choice(WORDS)}.py"
            out = w.lines(size, LOG) + f"\n{r.randrange(200)} passed, {r.randrange(3)} failed in 3.{r.randrange(99)}s"
            call = self.tool_use(name, {"command": cmd, "description": "Run the tests"})
            tur: Any = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}
            content: Any = ("Exit code 1\n" + out) if r.random() < 0.2 else out
        elif name in ("Read", "Write"):
            path = f"{CWD}/src/{r.choice(WORDS)}/{r.choice(WORDS)}_{self.call}.py"
            src = w.lines(size, CODE)
            numbered = "".join(f"{i:6d}\u2192{line}\n" for i, line in enumerate(src.split("\n"), 1))
            inp = {"file_path": path} if name == "Read" else {"file_path": path, "content": src}
            call = self.tool_use(name, inp)
            tur = {"type": "text", "file": {"filePath": path, "content": src, "numLines": src.count("\n") + 1}}
            content = numbered if name == "Read" else f"File created successfully at: {path}"
        elif name == "Edit":
            path = f"{CWD}/src/{r.choice(WORDS)}.py"
            old, new = w.lines(min(size, 3000), CODE), w.lines(min(size, 3000), CODE)
            call = self.tool_use(name, {"file_path": path, "old_string": old, "new_string": new})
            tur = {"filePath": path, "oldString": old, "newString": new, "originalFile": w.lines(size, CODE),
                   "structuredPatch": [], "userModified": False, "replaceAll": False}
            content = f"The file {path} has been updated. Here's the result of running `cat -n` on a snippet:\n{new}"
        elif name == "TodoWrite":
            todos = [{"content": w.prose(60), "status": r.choice(("pending", "in_progress", "completed")),
                      "activeForm": w.prose(20)} for _ in range(r.randrange(2, 7))]
            call = self.tool_use(name, {"todos": todos})
            tur = {"oldTodos": [], "newTodos": todos}
            content = "Todos have been modified successfully."
        else:
            call = self.tool_use(name, {"pattern": f"{r.choice(WORDS)}\\(", "path": "src/"})
            out = w.lines(size, LOG[-2:])
            tur = {"mode": "content", "numFiles": r.randrange(1, 30), "content": out}
            content = out
        yield self.assistant(call, new_message=r.random() < 0.5)
        block = {"tool_use_id": call["id"], "type": "tool_result", "content": content}
        if r.random() < 0.05:
            block["is_error"] = True
        yield self.user([block], toolUseResult=tur)

    def turn(self) -> Iterator[dict[str, Any]]:
        r, w = self.rnd, self.words
        text = w.prose(_sizes(r, 300, 6000))
        if r.random() < 0.1:
            text = f"<system-reminder>{w.prose(400)}</system-reminder>\n{text}"
        if r.random() < 0.02:
            png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + r.randbytes(_sizes(r, 30_000, 200_000))).decode()
            yield self.user([{"type": "text", "text": text},
                             {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}])
        else:
            yield self.user(text)
        for _ in range(r.randrange(1, 8)):
            if r.random() < 0.5:
                think = w.prose(_sizes(r, 1200, 20_000))
                if r.random() < 0.05:
                    think += "\n<thinking>" + w.prose(3000) + "</thinking>"
                yield self.assistant(self.thinking(think))
            if r.random() < 0.6:
                body = w.prose(_sizes(r, 400, 8000))
                if r.random() < 0.2:
                    body += "\n```python\n" + w.lines(_sizes(r, 600, 6000), CODE) + "\n```\n"
                yield self.assistant({"type": "text", "text": body}, new_message=False)
            yield from self.tool_turn()
        if r.random() < 0.1:
            yield {"type": "system", "subtype": "turn_duration", "durationMs": r.randrange(100_000),
                   "timestamp": "2026-11-28T10:00:00.000Z", "uuid": f"sys-{self.n}", "isMeta": False}
        if r.random() < 0.1:
            yield {"type": "file-history-snapshot", "messageId": f"snap-{self.n}",
                   "snapshot": {"trackedFileBackups": {}, "timestamp": "2026-11-28T10:00:00.000Z"}}

    def tail(self, n: int = 12) -> Iterator[dict[str, Any]]:
        """Short closing turns so the interesting records fall outside the protected tail."""
        for i in range(n):
            yield self.user(f"Thanks, next step {i}.")
            yield self.assistant({"type": "text", "text": f"Done with step {i}."})


def claude_session(path: Path, target_bytes: int, seed: int = 1) -> Path:
    s = _Session(seed)

    def records() -> Iterator[dict[str, Any]]:
        yield {"type": "summary", "summary": "Generated benchmark session", "leafUuid": "00000000-0000-4000-8000-0"}
        while True:
            yield from s.turn()

    return _write(path, records(), target_bytes)


def _around(s: _Session, middle: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    yield s.user("Please look into this.")
    yield from middle
    yield from s.tail()


def unclosed_tags(path: Path, n: int, seed: int = 2) -> Path:
    s = _Session(seed)
    w = s.words
    text = "".join(f"<thinking>{w.prose(40)} " for _ in range(n))
    return _write(path, _around(s, iter([s.assistant({"type": "text", "text": text})])))


def big_tool_result(path: Path, mb: float, seed: int = 3) -> Path:
    s = _Session(seed)
    call = s.tool_use("Bash", {"command": "cat build.log", "description": "Show the build log"})
    out = s.words.lines(int(mb * MB), LOG)
    return _write(path, _around(s, iter([s.assistant(call), s.user(
        [{"tool_use_id": call["id"], "type": "tool_result", "content": out}])])))


def short_messages(path: Path, n: int, seed: int = 4) -> Path:
    s = _Session(seed)

    def middle() -> Iterator[dict[str, Any]]:
        for i in range(n // 2):
            yield s.user(f"ok {i}")
            yield s.assistant({"type": "text", "text": f"Sure, step {i}."})

    return _write(path, _around(s, middle()))


def cjk_run(path: Path, mb: float, seed: int = 5) -> Path:
    rnd = random.Random(seed)
    chars = "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长"
    n = int(mb * MB) // 3  # 3 UTF-8 bytes per char
    run = "".join(rnd.choices(chars, k=n))
    s = _Session(seed)
    return _write(path, _around(s, iter([s.assistant({"type": "text", "text": run})])))


def dataset(path: Path, target_bytes: int, seed: int = 6) -> Path:
    """OpenAI-chat dataset JSONL: `{"id", "messages": [...]}` per line, 20–300 KB per conversation."""
    rnd = random.Random(seed)
    w = Words(rnd)

    def records() -> Iterator[dict[str, Any]]:
        k = 0
        while True:
            k += 1
            msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are a helpful coding agent. " + w.prose(300)},
                                          {"role": "user", "content": w.prose(_sizes(rnd, 400, 4000))}]
            for t in range(rnd.randrange(4, 40)):
                cid = f"call_{k}_{t}"
                args = json.dumps({"command": f"pytest -q tests/test_{rnd.choice(WORDS)}.py"})
                msgs.append({"role": "assistant", "content": w.prose(_sizes(rnd, 200, 3000)),
                             "reasoning_content": w.prose(_sizes(rnd, 600, 8000)),
                             "tool_calls": [{"id": cid, "type": "function",
                                             "function": {"name": "bash", "arguments": args}}]})
                msgs.append({"role": "tool", "tool_call_id": cid, "name": "bash",
                             "content": w.lines(_sizes(rnd, 1500, 60_000), LOG + CODE)})
            msgs.append({"role": "assistant", "content": "All tests pass now."})
            yield {"id": f"episode-{k}", "messages": msgs}

    return _write(path, records(), target_bytes)


GENERATORS: dict[str, Callable[..., Path]] = {
    "claude_session": claude_session, "unclosed_tags": unclosed_tags, "big_tool_result": big_tool_result,
    "short_messages": short_messages, "cjk_run": cjk_run, "dataset": dataset,
}
