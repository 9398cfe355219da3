"""Remake the README's screenshot of the HTML report on the bundled example session.

    python scripts/html_screenshot.py                     # docs/report.png
    python scripts/html_screenshot.py --html report.html  # also keep the page

Needs Debian's `chromium` at /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from sanitizer import Sanitizer
from sanitizer.html import render_html
from sanitizer.html.browser import available, screenshot

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = Path("examples") / "claude_code_session.jsonl"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--png", type=Path, default=ROOT / "docs" / "report.png")
    ap.add_argument("--html", type=Path, default=None, help="also write the page here")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=900)
    args = ap.parse_args(argv)
    png, keep = args.png.resolve(), args.html.resolve() if args.html else None
    if not available():
        print("chromium not found at /usr/bin/chromium (apt-get install chromium)", file=sys.stderr)
        return 1
    os.chdir(ROOT)  # the page names the example by its path in the repository, not on this machine
    result = Sanitizer().sanitize_file(EXAMPLE)
    # The screenshot shows one cut opened, as a reader sees it after a click.
    text = render_html(result).replace('<details class="cut"', '<details open class="cut"', 1)
    with tempfile.TemporaryDirectory(prefix="sanitizer-report-") as tmp:
        page = keep or Path(tmp) / "report.html"
        page.write_text(text, encoding="utf-8")
        png.parent.mkdir(parents=True, exist_ok=True)
        screenshot(page, png, args.width, args.height)
    print(f"wrote {png} ({png.stat().st_size:,} bytes)" + (f" and {keep}" if keep else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
