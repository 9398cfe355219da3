"""`python -m sanitizer`: the `sanitize` command."""

from sanitizer.cli.command import main

main()
