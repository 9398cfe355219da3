"""`python bench/deps_roundtrip.py IN OUT`: the json load+dump of `json_roundtrip.py`, after importing
the two core dependencies the `sanitize` command cannot start without (`click` parses its
arguments, `regex` runs its rules).  No sanitizing: what the command's interpreter and
dependencies cost before it reads a byte, measured the way the whole-process target is.
"""

import sys

import click  # noqa: F401 - imported for its cost
import regex  # noqa: F401 - imported for its cost
from json_roundtrip import main

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
