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
from sanitizer.secrets.kinds import AN, B64, HEX, URLSAFE, Kind, fake
from sanitizer.secrets.scan import KINDS, REDACTED_RE, redact, redaction

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


# --- recall on an independent planted set -----------------------------------------------------
# Written apart from the table's examples: credentials as people paste them (`.env` lines, JSON
# configs, shell commands, connection strings, config files, code, prose).  Each plant's secret
# material is the `_fk` bodies it is built from; a plant is caught when no 12-char window of any of
# them survives.  The misses are listed: free-form values with no name and no shape cannot be told
# from other words.

_BODIES: list[str] = []
D = "0123456789"


def _fk(alphabet: str, n: int, seed: int) -> str:
    body = fake(alphabet, n, seed)
    _BODIES.append(body)
    return body


PLANTS = [
    lambda: "OPENAI_API_KEY=sk-" + "svcacct-" + _fk(URLSAFE, 60, 201),
    lambda: '{"anthropic_api_key": "sk-' + 'ant-admin01-' + _fk(URLSAFE, 80, 202) + '"}',
    lambda: "git push https://x-access-token:gh" + "s_" + _fk(AN, 36, 203) + "@github.com/o/r.git",
    lambda: "GITLAB_TOKEN: gl" + "pat-" + _fk(URLSAFE, 20, 204),
    lambda: "curl -X POST -H 'Content-type: application/json' https://hooks.slack.com/services/T" + _fk("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 8, 205) + "/B" + _fk("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 10, 206) + "/" + _fk(AN, 24, 207),
    lambda: "export DIGITALOCEAN_TOKEN=do" + "o_v1_" + _fk(HEX, 64, 208),
    lambda: "from huggingface_hub import login; login('h" + "f_" + _fk(AN, 34, 209) + "')",
    lambda: "SENDGRID_API_KEY='SG" + "." + _fk(URLSAFE, 22, 210) + "." + _fk(URLSAFE, 43, 211) + "'",
    lambda: "bot = telebot.TeleBot('5" + _fk(D, 9, 212) + ":AA" + _fk(URLSAFE, 33, 213) + "')",
    lambda: "client.run('MT" + _fk(AN, 22, 214) + "." + _fk(URLSAFE, 6, 215) + "." + _fk(URLSAFE, 27, 216) + "')",
    lambda: "MAILGUN_API_KEY=ke" + "y-" + _fk(HEX, 32, 217),
    lambda: "TWILIO_AUTH_TOKEN=" + _fk(HEX, 32, 218),
    lambda: "twilio api:core:keys:create -> sid S" + "K" + _fk(HEX, 32, 219),
    lambda: "GRAFANA_SA_TOKEN=gl" + "sa_" + _fk(AN, 32, 220) + "_" + _fk(HEX, 8, 221),
    lambda: '{"auths": {"https://index.docker.io/v1/": {"auth": "' + _fk(B64, 40, 222) + '="}}}',
    lambda: "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=" + _fk(B64, 86, 223) + "==;EndpointSuffix=core.windows.net",
    lambda: '{"Credentials": {"AccessKeyId": "AS' + 'IA' + _fk("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, 224) + '", "SecretAccessKey": "' + _fk(B64, 40, 225) + '", "SessionToken": "' + _fk(B64, 200, 226) + '"}}',
    lambda: "stripe.api_key = 'r" + "k_live_" + _fk(AN, 99, 227) + "'",
    lambda: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  username: YWRtaW4=\n  password: " + _fk(B64, 16, 228) + "==\n",
    lambda: "POSTMAN_API_KEY=PM" + "AK-" + _fk(HEX, 24, 229) + "-" + _fk(HEX, 34, 230),
    lambda: "SHOPIFY_ACCESS_TOKEN=shp" + "ca_" + _fk(HEX, 32, 231),
    lambda: "//registry.npmjs.org/:_authToken=np" + "m_" + _fk(AN, 36, 232),
    lambda: "[pypi]\n  username = __token__\n  password = py" + "pi-AgEIcHlwaS5vcmc" + _fk(URLSAFE, 120, 233),
    lambda: '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n' + "\\n".join(_fk(B64, 64, 234 + i) for i in range(4)) + '\\n-----END PRIVATE KEY-----\\n"}',
    lambda: "LINEAR_API_KEY=lin" + "_api_" + _fk(AN, 40, 240),
    lambda: "NOTION_TOKEN=nt" + "n_" + _fk(D, 11, 241) + _fk(AN, 35, 242),
    lambda: "DATABRICKS_TOKEN=da" + "pi" + _fk(HEX, 32, 243),
    lambda: "DOPPLER_TOKEN=dp" + ".st." + _fk(AN, 43, 244),
    lambda: "VAULT_TOKEN=hv" + "s." + _fk(URLSAFE, 95, 245),
    lambda: "credentials \"app.terraform.io\" { token = \"" + _fk(AN, 14, 246) + ".atlas" + "v1." + _fk(URLSAFE, 67, 247) + "\" }",
    lambda: "NEW_RELIC_API_KEY=NR" + "AK-" + _fk("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 27, 248),
    lambda: "SUPABASE_ACCESS_TOKEN=sb" + "p_" + _fk(HEX, 40, 249),
    lambda: "REPLICATE_API_TOKEN=r" + "8_" + _fk(AN, 37, 250),
    lambda: "GROQ_API_KEY=gs" + "k_" + _fk(AN, 52, 251),
    lambda: "XAI_API_KEY=xa" + "i-" + _fk(AN, 80, 252),
    lambda: "PERPLEXITY_API_KEY=pp" + "lx-" + _fk(AN, 48, 253),
    lambda: "MISTRAL_API_KEY=" + _fk(AN, 32, 254),
    lambda: "CO_API_KEY=" + _fk(AN, 40, 255),
    lambda: "# created: 2024\n# public key: age1" + fake("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58, 256) + "\nAGE-" + "SECRET-KEY-1" + _fk("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58, 257),
    lambda: "Authorization: Bearer eyJ" + "hbGciOiJSUzI1NiJ9.eyJ" + _fk(URLSAFE, 60, 258) + "." + _fk(URLSAFE, 86, 259),
    lambda: "psql postgresql://app:" + _fk(AN, 20, 260) + "@db:5432/app",
    lambda: "MONGO_URL=mongodb+srv://root:" + _fk(AN, 16, 261) + "@cluster0.ab1cd.mongodb.net/?retryWrites=true",
    lambda: "REDIS_URL=rediss://default:" + _fk(AN, 32, 262) + "@redis-123.cloud:6380",
    lambda: "amqp://guest:" + _fk(AN, 12, 263) + "@rabbit:5672/",
    lambda: "Server=tcp:db.database.windows.net,1433;Initial Catalog=app;User ID=sa;Password=" + _fk(AN, 14, 264) + ";Encrypt=True",
    lambda: "jdbc:mysql://db:3306/app?user=root&password=" + _fk(AN, 14, 265),
    lambda: "machine github.com login octocat password " + _fk(AN, 20, 266),
    lambda: "mysql -h db -u root -p" + _fk(AN, 12, 267) + " app < dump.sql",
    lambda: "docker login -u me --password " + _fk(AN, 18, 268) + " ghcr.io",
    lambda: "users:\n- name: admin\n  user:\n    token: " + _fk(AN, 8, 269) + "." + _fk(AN, 16, 270),
    lambda: "[default]\naws_access_key_id = AK" + "IA" + _fk("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, 271) + "\naws_secret_access_key = " + _fk(B64, 40, 272),
    lambda: "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(_fk(B64, 70, 273 + i) for i in range(3)) + "\n-----END OPENSSH PRIVATE KEY-----",
    lambda: "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + "\n".join(_fk(B64, 64, 280 + i) for i in range(3)) + "\n-----END PGP PRIVATE KEY BLOCK-----",
    lambda: "FLY_API_TOKEN=fo" + "1_" + _fk(URLSAFE, 43, 285),
    lambda: "HEROKU_API_KEY=HR" + "KU-AA" + _fk(URLSAFE, 58, 286),
    lambda: "SENTRY_AUTH_TOKEN=sntr" + "yu_" + _fk(HEX, 64, 287),
    lambda: "SQUARE_ACCESS_TOKEN=EA" + "AA" + _fk(URLSAFE, 60, 288),
    lambda: "CLOUDFLARE_API_TOKEN=" + _fk(URLSAFE, 40, 289),
    lambda: "NETLIFY_AUTH_TOKEN=nf" + "p_" + _fk(AN, 36, 290),
    lambda: "VERCEL_TOKEN=" + _fk(AN, 24, 291),
    lambda: "ATLASSIAN_API_TOKEN=ATA" + "TT3" + _fk(URLSAFE, 180, 292),
    lambda: "ASANA_PAT=2/" + _fk(D, 16, 293) + "/" + _fk(D, 16, 294) + ":" + _fk(HEX, 32, 295),
    lambda: "doppler run --token dp" + ".st.prd." + _fk(AN, 44, 400) + " -- ./start.sh",
    lambda: "hubspot private app (eu): pat" + "-eu1-" + "-".join(_fk(HEX, n, 401 + i) for i, n in enumerate((8, 4, 4, 4, 12))),
    lambda: "okta header for the sync job is SS" + "WS 00" + _fk(URLSAFE, 40, 406) + " (rotate monthly)",
    lambda: "browserbase: bb" + "_live_" + _fk(URLSAFE, 27, 407),
    lambda: "git remote set-url origin https://" + _fk(HEX, 40, 408) + "@github.com/acme/app.git",
    lambda: 'apiKey := "' + _fk(AN, 32, 409) + '"',
    lambda: "<settings><servers><server><id>repo</id><apiToken>" + _fk(AN, 16, 410) + "</apiToken></server></servers></settings>",
    lambda: "AZURE_DEVOPS_EXT_PAT=" + _fk("abcdefghijklmnopqrstuvwxyz234567", 52, 411),
    lambda: "$db = ['host' => 'localhost', 'password' => '" + _fk(AN, 14, 418) + "'];",
    lambda: "define('DB_PASSWORD', '" + _fk(AN, 18, 413) + "');",
    lambda: "containers:\n- env:\n  - name: STRIPE_SECRET\n    value: \"" + _fk(AN, 24, 414) + "\"",
    lambda: "ldapwhoami -x -D uid=me,ou=people,dc=example,dc=org -w " + _fk(AN, 14, 415),
    lambda: "openssl enc -aes-256-cbc -in a -out b -pass pass:" + _fk(AN, 16, 416),
    lambda: "r = httpx.get(u, auth=('svc', '" + _fk(URLSAFE, 18, 417) + "'))",
    lambda: "$ tail -n 3 ~/.ssh/id_ed25519\nb3BlbnNzaC1r" + "ZXktdjE" + _fk(B64, 50, 419) + "\n" + _fk(B64, 70, 420) + "\n-----END OPENSSH PRIVATE KEY-----",
    lambda: "java -jar jenkins-cli.jar -s http://jenkins:8080/ -auth ci:" + _fk(AN, 16, 421) + " safe-restart",
    lambda: "htpasswd -bc /srv/registry/auth/htpasswd registry " + _fk(AN, 14, 422),
    lambda: "run: echo \"::add-mask::" + _fk(URLSAFE, 30, 423) + "\"",
    lambda: "deploy:$6$rounds=656000$" + _fk("./" + AN, 16, 424) + "$" + _fk("./" + AN, 86, 425) + ":19800:0:99999:7:::",
    lambda: "UPDATE users SET password = '$2b$12$" + _fk("./" + AN, 53, 426) + "' WHERE id = 1;",
    lambda: "flag service: sd" + "k-" + "-".join(_fk(HEX, n, 427 + i) for i, n in enumerate((8, 4, 4, 4, 12))),
    lambda: "mg key " + _fk(HEX, 32, 432) + "-" + _fk(HEX, 8, 433) + "-" + _fk(HEX, 8, 434) + " (sending domain)",
    lambda: "quality gate token: sq" + "a_" + _fk(HEX, 40, 435),
    lambda: "plaid item: access" + "-development-" + "-".join(_fk(HEX, n, 436 + i) for i, n in enumerate((8, 4, 4, 4, 12))),
    lambda: "<add key=\"ClearTextPassword\" value=\"" + _fk(AN, 20, 441) + "\" />",
    lambda: "shipping label via shi" + "ppo_test_" + _fk(HEX, 40, 442),
    lambda: "ez = EasyPost('EZ" + "AK" + _fk(AN, 54, 443) + "')",
    lambda: "Api-Key AQ" + "VN" + _fk(URLSAFE, 38, 444),
    lambda: "vault login " + "s." + _fk(AN, 24, 445),
    lambda: "bundle config gems.contribsys.com " + _fk(HEX, 8, 446) + ":" + _fk(HEX, 8, 447),
    lambda: "$ cat ~/.pgpass\npg-primary.internal:5432:orders:svc_orders:" + _fk(AN, 20, 448) + "\n",
    lambda: "I set my password to " + _fk(AN, 12, 296) + " yesterday",
    lambda: "the db password is hunter2",
]
KNOWN_MISSES = {
    "a kubeconfig token with no digit": "token: " + fake(AN, 8, 269),
    "a password in prose": "I set my password to",
    "a dictionary-word password in prose": "the db password is hunter2",
}


def _plant(make) -> tuple[str, list[str]]:  # noqa: ANN001 - a zero-argument builder
    _BODIES.clear()
    text = make()
    return text, [b for b in _BODIES if len(b) >= 12]


def test_recall_on_the_independent_planted_set() -> None:
    caught, missed = 0, []
    for make in PLANTS:
        text, bodies = _plant(make)
        for surrounding in (text, json.dumps({"content": text})):
            new, _ = redact(surrounding)
            if any(w in new for b in bodies for w in _windows(b)) or not REDACTED_RE.search(new):
                missed.append(text)
            else:
                caught += 1
    missed_texts = sorted(set(missed))
    assert len(PLANTS) >= 60
    assert all(any(k in m for k in KNOWN_MISSES.values()) for m in missed_texts), missed_texts
    assert caught >= 2 * len(PLANTS) - 2 * len(KNOWN_MISSES)
