"""Credential redaction: every family, no false positives on prose and hashes, idempotent, JSON-safe."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from sanitizer.actions import text as text_actions
from sanitizer.actions.base import Context
from sanitizer.model import Part
from sanitizer.secret_kinds import AN, Kind, fake
from sanitizer.secrets import KINDS, REDACTED_RE, redact, redaction

# Fake credentials, built from pieces so no scanner mistakes this file for a leak.
OPENAI = "sk-" + "proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_Ab3dEf6h"
OPENAI_LEGACY = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2W3x4"
ANTHROPIC = "sk-" + "ant-api03-" + "Zy8Xw7Vu6Ts5Rq4Po3Nm2Lk1Ji0Hg9Fe8Dc7Ba6-AbCdEfGh"
GHP = "ghp" + "_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
GHS = "ghs" + "_" + "0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ"
GH_PAT = "github" + "_pat_" + "11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789aBcDeFgHiJkLmNoP"
SLACK = "xox" + "b-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
AKIA = "AKIA" + "Q3VZ7N2LXW4TBK8R"
AWS_SECRET = "q58faiGXyOy6QWfNY/" + "jUxwKPkKkowW9jsH6CED63"
GOOGLE = "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
JWT = "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
PEM = "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----"

CASES = [
    (f"export OPENAI_API_KEY={OPENAI}", "export OPENAI_API_KEY=[REDACTED:openai-key]"),
    (f"key {OPENAI_LEGACY} used", "key [REDACTED:openai-key] used"),
    (f"client = Anthropic(api_key='{ANTHROPIC}')", "client = Anthropic(api_key='[REDACTED:anthropic-key]')"),
    (f"push with {GHP}", "push with [REDACTED:github-token]"),
    (f"app token {GHS}.", "app token [REDACTED:github-token]."),
    (f"GITHUB_TOKEN={GH_PAT}", "GITHUB_TOKEN=[REDACTED:github-token]"),
    (f"slack: {SLACK}", "slack: [REDACTED:slack-token]"),
    (f"aws_access_key_id = {AKIA}", "aws_access_key_id = [REDACTED:aws-access-key-id]"),
    (f"aws_secret_access_key = {AWS_SECRET}", "aws_secret_access_key = [REDACTED:aws-secret-key]"),
    (f"maps?key={GOOGLE}", "maps?key=[REDACTED:google-api-key]"),
    (f"cookie session={JWT}; path=/", "cookie session=[REDACTED:jwt]; path=/"),
    (f"{PEM}\ndone", "[REDACTED:private-key]\ndone"),
    ("-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAA\nAAAAABAAABlwAAAAdzc2gtcn\n(output truncated)",
     "[REDACTED:private-key]\n(output truncated)"),
    ('curl -H "Authorization: Bearer abc123def456ghi789" https://api.example.com',
     'curl -H "Authorization: Bearer [REDACTED:auth-header]" https://api.example.com'),
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED:auth-header]"),
    ("git clone https://alice:s3cr3t-pw@github.com/acme/app.git",
     "git clone https://[REDACTED:url-credentials]@github.com/acme/app.git"),
    ("postgres://app:hunter2@db.internal:5432/main", "postgres://[REDACTED:url-credentials]@db.internal:5432/main"),
    ("GET /cb?state=xyz&access_token=abc.def&x=1", "GET /cb?state=xyz&access_token=[REDACTED:query-credential]&x=1"),
    ("https://s3.amazonaws.com/b/k?X-Amz-Signature=0a1b2c&X-Amz-Expires=60",
     "https://s3.amazonaws.com/b/k?X-Amz-Signature=[REDACTED:query-credential]&X-Amz-Expires=60"),
    ("DB_PASSWORD=hunter22", "DB_PASSWORD=[REDACTED:credential]"),
    ('{"password": "c0rrect-horse"}', '{"password": "[REDACTED:credential]"}'),
]


@pytest.mark.parametrize(("before", "after"), CASES, ids=[c[1].split("[REDACTED:")[1].split("]")[0] + f"-{i}"
                                                          for i, c in enumerate(CASES)])
def test_redacts_each_family(before: str, after: str) -> None:
    # `after` names each marker's kind only; the fingerprint comes from the value removed there,
    # and putting the removed values back in place of the markers gives `before` again.
    new, removed = redact(before)
    kinds = _KIND.findall(after)
    assert len(kinds) == len(removed)
    it = iter(removed)
    assert _KIND.sub(lambda m: redaction(m.group(1), next(it)), after) == new
    it = iter(removed)
    assert REDACTED_RE.sub(lambda m: next(it), new) == before
    assert redact(new) == (new, [])


_KIND = re.compile(r"\[REDACTED:([a-z0-9-]+)\]")


@pytest.mark.parametrize(
    "text",
    [
        "The token is refreshed every hour; the secret sauce is caching.",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b and sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "max_tokens=4096, temperature=0.2",
        "api_key = os.environ['API_KEY']",
        "token = get_token()",
        'curl -H "Authorization: Bearer $TOKEN" https://api.example.com',
        "scikit-learn uses sk-learn-style names like sk-learn-preprocessing-pipeline",
        "Bearer tokens are sent in the Authorization header.",
        "see https://example.com/docs?page=2&lang=en",
        "password: ******",
        "[REDACTED:openai-key]",
        "[REDACTED:openai-key:3f9a]",
        "aws_access_key_id = AKIA" + "IOSFODNN7EXAMPLE",
    ],
)
def test_leaves_prose_hashes_and_code_alone(text: str) -> None:
    assert redact(text) == (text, [])


def test_secrets_inside_json_strings_keep_the_json_valid() -> None:
    doc = {"cmd": f"curl -u x -H 'Authorization: Bearer {JWT}'", "key": PEM, "env": f"K={OPENAI}\\path"}
    raw = json.dumps(doc)
    new, removed = redact(raw)
    assert len(removed) == 3
    back = json.loads(new)
    assert back["key"] == redaction("private-key", json.dumps(PEM)[1:-1])  # as it stood in the JSON text
    assert OPENAI not in new and JWT not in new


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([OPENAI, ANTHROPIC, GHP, SLACK, AKIA, GOOGLE, JWT, PEM, " ", "\n", '"', "\\",
                                 "password=", "?token=", "Authorization: ", "https://u:p@h/", "word", "=",
                                 "[REDACTED:jwt]", "[REDACTED:jwt:0a1b]", "é", "😀"]), max_size=25).map("".join))
def test_redaction_is_idempotent_and_json_safe(text: str) -> None:
    once, _ = redact(text)
    assert redact(once) == (once, [])
    raw = json.dumps(text)
    json.loads(redact(raw)[0])
    for marker in REDACTED_RE.findall(once):
        assert '"' not in marker and "\\" not in marker


def test_redact_action_replaces_signed_thinking_whole() -> None:
    signed = Part(kind="thinking", role="assistant", message=0, record=0, path=(),
                  text=f"the key is {OPENAI}", meta={"signed": True})
    batch = text_actions.REDACT_SECRETS.run_batch
    assert batch is not None
    ch = batch([signed], text_actions.RedactSecretsOptions(), Context(view=None)).get(0)  # type: ignore[arg-type]
    assert ch is not None and ch.replace and ch.text == "the key is " + redaction("openai-key", OPENAI)


# --- the table of kinds -----------------------------------------------------------------------

KIND_IDS = [k.name for k in KINDS]


def _windows(secret: str) -> list[str]:
    """Every 12-char window of `secret`, as it stands raw, in JSON and in JSON inside JSON."""
    raw = [secret[i:i + 12] for i in range(max(1, len(secret) - 11))]
    once = [json.dumps(w)[1:-1] for w in raw]
    return raw + once + [json.dumps(w)[1:-1] for w in once]


def test_kinds_are_complete_and_named_as_markers() -> None:
    names = [k.name for k in KINDS]
    assert len(names) == len(set(names)) >= 60
    for k in KINDS:
        assert re.fullmatch(r"[a-z0-9-]+", k.name), k.name
        assert k.looks and "\n" not in k.looks and "|" not in k.looks.replace("\\|", ""), k.name
        assert k.true and k.false, k.name
        assert all(ex.secret and ex.secret in ex.text for ex in k.true), k.name


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
def test_every_true_example_is_redacted_under_its_own_kind(kind: Kind) -> None:
    for ex in kind.true:
        new, removed = redact(ex.text)
        assert f"[REDACTED:{kind.name}:" in new, (kind.name, new)
        assert not any(w in new for w in _windows(ex.secret)), (kind.name, new)
        assert redact(new) == (new, [])


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
def test_every_false_example_is_left_alone(kind: Kind) -> None:
    for text in kind.false:
        assert redact(text) == (text, []), (kind.name, text)


def test_marker_fingerprint_is_stable_and_tells_keys_apart() -> None:
    a, b = "sk-" + fake(AN, 40, 1), "sk-" + fake(AN, 40, 2)
    assert redaction("openai-key", a) == f"[REDACTED:openai-key:{hashlib.sha256(a.encode()).hexdigest()[:4]}]"
    assert redact(f"{a} {b} {a}")[0] == " ".join(redaction("openai-key", v) for v in (a, b, a))
    assert redaction("openai-key", a) != redaction("openai-key", b)
    assert REDACTED_RE.fullmatch(redaction("x-y", "\udc80 odd value"))


# Surroundings a pasted credential sits in: the example's own line, an `.env` line, a shell
# command, prose, a JSON string and a JSON string inside a JSON string (tool-call arguments).
SURROUNDINGS = (
    "{}", "APP_VALUE={}", "export APP_VALUE={}", "echo '{}' | tee out.txt", "I pasted {} by mistake, sorry.",
    "```\n{}\n```",
)


def _planted() -> list[tuple[str, str, str]]:
    out = []
    for k in KINDS:
        for ex in k.true:
            for s in SURROUNDINGS:
                text = s.replace("{}", ex.text)
                out += [(k.name, text, ex.secret), (k.name, json.dumps({"content": text}), ex.secret),
                        (k.name, json.dumps({"input": json.dumps({"command": text})}), ex.secret)]
    return out


PLANTED = _planted()


def test_recall_on_the_planted_set() -> None:
    survived = [(kind, text) for kind, text, secret in PLANTED if any(w in redact(text)[0] for w in _windows(secret))]
    assert len(PLANTED) > 1000
    assert survived == []


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([(k.name, ex) for k in KINDS for ex in k.true]),
       st.lists(st.sampled_from(["word", "the", "KEY=", "token", ":", "=", "\n", "  ", '"', "'", "{", "}", "é",
                                 "日本", "(", ")", ",", ";", "#", "--", "https://x.io/", "[REDACTED:jwt:0a1b]"]),
                max_size=8).map("".join),
       st.lists(st.sampled_from(["word", "\n", " ", '"', "'", ")", ",", ";", ".", "é", "日本", "}", "&x=1"]),
                max_size=8).map("".join),
       st.sampled_from([" ", "\n", "\t"]), st.booleans())
def test_planted_secret_never_survives_its_surroundings(picked, before: str, after: str, sep: str,
                                                        as_json: bool) -> None:
    _, ex = picked
    text = before + sep + ex.text + sep + after
    if as_json:
        text = json.dumps({"content": text}, ensure_ascii=False)
    new, _ = redact(text)
    assert not any(w in new for w in _windows(ex.secret))
    assert redact(new) == (new, [])


def test_fixture_file_has_a_true_and_a_false_case_per_kind() -> None:
    from sanitizer.testing import load_cases

    names = {c.name for c in load_cases(ROOT / "fixtures" / "redact-secrets.toml")}
    for k in KINDS:
        slug = k.name.replace("-", "_")
        assert f"kind_{slug}_redacted" in names and f"kind_{slug}_lookalike_kept" in names, k.name
