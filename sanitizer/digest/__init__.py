"""One-line descriptions of tool calls and their outputs, shared by a rule and the summary.

`calls` says what a call did, `outputs` how it went, `line` composes the two into the digest line.
"""

from sanitizer.digest.calls import VERBS, CallInfo, describe_call, parse_args, shell_text
from sanitizer.digest.line import digest_line, is_digest, outcome
from sanitizer.digest.outputs import Decoded, Outcome, decode_output

__all__ = ["VERBS", "CallInfo", "Decoded", "Outcome", "decode_output", "describe_call", "digest_line",
           "is_digest", "outcome", "parse_args", "shell_text"]
