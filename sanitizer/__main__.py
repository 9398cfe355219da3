"""`python -m sanitizer`: the `sanitize` program."""

from sanitizer.cli.program import run

run()
