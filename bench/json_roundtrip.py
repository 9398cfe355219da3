"""The whole-process reference: `python bench/json_roundtrip.py IN OUT`, a stdlib json load+dump.

A JSON file is loaded and dumped whole; anything else (JSONL) line by line, a line that is not
JSON copied as it is (as `sanitize` does).  Interpreter start-up is part of what it costs.
"""

import json
import sys


def main(src: str, out: str) -> None:
    with open(src, "rb") as fh:
        text = fh.read().decode("utf-8", errors="surrogateescape")
    body = None
    if not src.endswith(".jsonl"):
        try:
            body = json.dumps(json.loads(text), ensure_ascii=False)
        except json.JSONDecodeError:
            body = None
    if body is None:
        lines = []
        for line in text.split("\n"):
            try:
                lines.append(json.dumps(json.loads(line), ensure_ascii=False, separators=(",", ":")))
            except json.JSONDecodeError:
                lines.append(line)
        body = "\n".join(lines)
    with open(out, "wb") as fh:
        fh.write(body.encode("utf-8", errors="surrogateescape"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
