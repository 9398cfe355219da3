"""The command line: click options, exit codes, progress and the stderr report; nothing else."""

from sanitizer.cli.command import main

__all__ = ["main"]
