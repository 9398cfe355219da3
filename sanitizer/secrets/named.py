"""Credentials recognised by what surrounds them: key blocks, names, flags, URLs and file syntax.

`KEY_BLOCKS` run first (a key block holds base64 that other patterns could take for tokens);
`NAMED` run after the provider patterns, so a provider token behind a name keeps its own kind.
"""

from __future__ import annotations

from sanitizer.secrets.kinds import (
    AN,
    B32,
    B64,
    HEX,
    NOT_REDACTED,
    SECRET_NAME_IS,
    URLSAFE,
    VALUE,
    VALUE_ENDS,
    Example,
    Kind,
    fake,
    named,
)
from sanitizer.secrets.passwords import PASSWORDS

_WS = r"(?:\s|\\++[nrt])"  # a line break may be a real one or a `\n` escape inside a JSON string
_PEM_HEAD = r"-----BEGIN (?:[A-Z0-9]{1,12} ){0,4}PRIVATE KEY(?: BLOCK)?-----"
_PEM_END = r"-----END (?:[A-Z0-9]{1,12} ){0,4}PRIVATE KEY(?: BLOCK)?-----"
# base64 of "-----BEGIN " and of what follows it in the private key headers (PKCS#8, RSA, EC, DSA,
# OpenSSH, encrypted PKCS#8, PGP), cut where the encoding stops depending on later bytes
_B64_HEADS = ("BQUklWQVRFIEtF", "BSU0EgUFJJVkFURSBL", "BFQyBQUklWQVRFIEtF", "BEU0EgUFJJVkFURSBL",
              "BPUEVOU1NIIFBSSVZBVEUgS0VZ", "BFTkNSWVBURUQgUFJJVkFURSBL", "BQR1AgUFJJVkFURSBL")


def _pem(kind: str, sep: str = "\n") -> str:
    lines = [fake(B64, 64, 90 + i) for i in range(3)]
    return f"-----BEGIN {kind}PRIVATE KEY-----" + sep + sep.join(lines) + sep + f"-----END {kind}PRIVATE KEY-----"


_RSA, _OPENSSH = _pem("RSA "), _pem("OPENSSH ")
_PKCS8_JSON = _pem("", "\\n")
_OPENSSH_BODY = ("b3BlbnNzaC1r" + "ZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW" + "\n"
                 + fake(B64, 70, 387) + "\n-----END OPENSSH PRIVATE KEY-----")
_B64_KEY = "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo" + fake(B64, 80, 95)
_NL = r"(?:\r?+\n|(?:\\++r)?+\\++n)"  # a line break, real or escaped (once or more, JSON in JSON)
_PPK = "Private-Lines: 1\n" + "AAAAI" + fake(B64, 43, 125) + "\nPrivate-MAC: " + fake(HEX, 64, 126)

KEY_BLOCKS: tuple[Kind, ...] = (
    Kind("private-key", "a PEM, OpenSSH or PGP `-----BEGIN … PRIVATE KEY-----` block with its base64 body "
                        "(also with `\\n` escapes in JSON, or cut before its END line), an OpenSSH key's body "
                        "without its BEGIN line (`b3BlbnNzaC1rZXktdjE…`), a PuTTY `.ppk` key's private lines",
         (_PEM_HEAD + r"(?=(?:" + _WS + r"++[A-Za-z][A-Za-z-]*+:[^\n\\]*+)*+" + _WS + r"++[A-Za-z0-9+/=]{32})"
         r"(?:(?:[A-Za-z0-9+/=\s:,.]|\\++[nrt]|-(?!----))*+" + _PEM_END
         + r"|(?:" + _WS + r"++[A-Za-z0-9+/=]{16,}+)*+)",
          # an OpenSSH key's body whose BEGIN line was cut off: base64 of `openssh-key-v1\0`, which
          # only private keys start with (public keys are `AAAA…`), its next lines and END line
          r"(?:(?<![A-Za-z0-9+/])|(?<=\\[nrt]))b3BlbnNzaC1rZXktdjE[A-Za-z0-9+/=]{20,}+"
          r"(?:" + _WS + r"++[A-Za-z0-9+/=]{16,}+)*+(?:" + _WS + r"++" + _PEM_END + r")?+",
          # the public lines of a `.ppk` stay; its private lines and their MAC go
          r"(?:(?<![\w-])|(?<=\\[nrt]))Private-Lines:[ \t]*+[0-9]++(?:" + _NL + r"[A-Za-z0-9+/=]{4,}+(?=[\r\n\\]|$))++"
          r"(?:" + _NL + r"Private-(?:MAC|Hash):[ \t]*+[0-9a-fA-F]++)?+"),
         (Example(_RSA, _RSA), Example(_OPENSSH, _OPENSSH), named('{"private_key": "{}\\n"}', _PKCS8_JSON),
          named("[… 3 lines cut …]\n{}\n", _OPENSSH_BODY),
          named("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5\n"
                "AAAAIB" + fake(B64, 40, 124) + "\n{}\n", _PPK)),
         ("pattern = re.compile(r'(-----BEGIN RSA PRIVATE KEY-----)')",
          'if line == "-----BEGIN OPENSSH PRIVATE KEY-----":', "b3BlbnNzaC1rZXktdjE (the prefix alone)")),
    Kind("private-key-base64", "a base64-encoded PEM private key (`LS0tLS1CRUdJTi…`, as in kubeconfig "
                               "`client-key-data`)",
         r"(?:(?<![A-Za-z0-9+/])|(?<=\\[nrt]))LS0tLS1CRUdJTi(?:" + "|".join(_B64_HEADS) + r")[A-Za-z0-9+/]{40,}+={0,2}",
         (Example(_B64_KEY, _B64_KEY),), ("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t (a certificate)",)),
)

_SECRET40 = fake(B64, 40, 96)
# between an access key id and its secret: separators of a CSV, a table or a JSON string
_AWS_SEP = r"(?:[ \t,;:|=]|\\++[tn]|\\*+[\"']){1,12}+"
# The value of a first `name=value` pair: 8+ chars, with a digit (not found past a `[`: a later marker) or 20+.
_COOKIE_VALUE = r"(?<value>" + VALUE + r"(?=[^;\s\"'\\\[0-9]{0,200}+[0-9]|[^;\s\"'\\]{20})[^;\s\"'\\]{8,}+)"
# `name=value` pairs split by `;`, 12+ chars in all, with a digit among them (session ids, not `theme=dark`).
# The digit is looked for only over the pairs (no space but after a `;`, no `[`), so a later cut's
# marker or another kind's redaction never supplies it on a second run.
_COOKIE_PAIRS = (r"(?=(?:[^\s\"'\\\[0-9]|;[ \t]++){0,400}+[0-9])(?=[^\r\n\"'\\]{12})"
                 r"[^=;\s\"'\\]{1,200}+=[^;\s\"'\\]*+(?:;[ \t]*+[^=;\s\"'\\]{1,200}+=[^;\s\"'\\]*+)*+")
_TAB = r"(?:\t|\\++t)"  # a tab, real or escaped
# A Netscape `cookies.txt` line (curl, wget, yt-dlp): domain, subdomains flag, path, secure flag,
# expiry, name and value, split by tabs; one spec per first flag, so each starts with a literal.
_COOKIE_JAR_LINE = tuple(r"(?<=\t|\\t)" + flag + _TAB + r"/[^\s\\]{0,200}+" + _TAB + r"(?:TRUE|FALSE)" + _TAB
                         + r"[0-9]{1,12}+" + _TAB + r"[^\s\\]{1,200}+" + _TAB + _COOKIE_VALUE
                         for flag in ("TRUE", "FALSE"))
# The `value` of a cookie object (Playwright's storage state, the DevTools protocol, Puppeteer,
# Selenium's `get_cookies()`, browser extensions' exports): an object is a cookie's when it also
# holds `httpOnly` (all of them write it), before or after the value (no brace between).
_KEY_END = r"(?:\\*+[\"'])?+[ \t]*+:[ \t]*+"
_COOKIE_OBJECT = (
    r"(?<=[\"'{,\s])value" + _KEY_END + r"\\*+[\"']" + _COOKIE_VALUE + r"\\*+[\"'](?=[^{}]{0,400}?httpOnly" + _KEY_END + ")",
    # led by its literal (found at `str.find` speed; a spec led by a look back is not)
    r"httpOnly" + _KEY_END + r"[^{}]{0,400}?[\"'{,\s]value" + _KEY_END + r"\\*+[\"']" + _COOKIE_VALUE + r"\\*+[\"']",
)


NAMED: tuple[Kind, ...] = (
    Kind("aws-secret-key", "40 base64 chars after `aws_secret_access_key` / `SecretAccessKey` (any case, "
                           "`=` or `:`, quoted or not), or next to its access key id (the console's CSV, "
                           "`aws sts … --output text`)",
         (r"(?i)(?:(?<![a-z0-9\]])|(?<=\\[nrt]))(?:aws_?)?secret_?access_?key(?:\\*+[\"'])?+\s*+[=:]\s*+(?:\\*+[\"'])?+"
          r"(?<value>" + NOT_REDACTED + r"[A-Za-z0-9/+=]{40}+)(?![A-Za-z0-9/+=\[])",
          # the id was redacted first (a provider kind); the secret follows it, maybe after an expiry time
          r"\[REDACTED:aws-access-key-id:[0-9a-f]{4}\]" + _AWS_SEP + r"(?:[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{8,15}+"
          r"(?:Z|[+-][0-9:]{4,5}+)?+" + _AWS_SEP + r")?+(?<value>(?=[A-Z0-9/+]{0,39}+[a-z])"
          r"(?=[a-z0-9/+]{0,39}+[A-Z])(?=[A-Za-z]{0,39}+[0-9/+])[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=\[])"),
         (named("aws_secret_access_key = {}", _SECRET40), named('{"SecretAccessKey": "{}"}', fake(B64, 40, 97)),
          named("Access key ID,Secret access key\nAK" + "IA" + fake(B32, 16, 339) + ",{}\n", fake(B64, 40, 340)),
          named("CREDENTIALS\tAS" + "IA" + fake(B32, 16, 341) + "\t2026-12-05T13:04:11+00:00\t{}\tIQoJb3JpZ2luX2Vj",
                fake(B64, 40, 342))),
         ("aws_secret_access_key = os.environ['AWS_SECRET']",
          "AKIAIOSFODNN7EXAMPLE,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY (the documented pair)",
          "[REDACTED:aws-access-key-id:89ee],src/components/navigation/HeaderMenuBar.tsx"),
         anchors=(("access", len("aws_secret_")),)),
    Kind("azure-storage-key", "the value of `AccountKey=` / `SharedAccessKey=` in a connection string",
         r"(?<![A-Za-z])(?:AccountKey|SharedAccessKey)=(?<value>" + VALUE + r"[A-Za-z0-9+/%]{20,}+={0,2})",
         (named("DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={};EndpointSuffix=core.windows.net",
                fake(B64, 86, 98) + "=="),), ("AccountKey=<your key>",), generic=True),
    Kind("docker-auth", "`\"auth\"` / `\"identitytoken\"` values in a Docker `config.json` `auths` entry",
         tuple(r"(?<=\")" + name + r"\\*+\"\s*+:\s*+\\*+\"(?<value>" + VALUE
               + r"(?=[a-z_.-]{0,200}+[A-Z0-9+/=])[A-Za-z0-9+/=_.-]{8,}+)" for name in ("auth", "identitytoken", "registrytoken")),
         (named('{"auths": {"ghcr.io": {"auth": "{}"}}}', fake(B64, 36, 99) + "=="),),
         ('{"auth": "required"}',), generic=True),
    Kind("kubernetes-secret", "base64 values of `data:` entries in a text holding `kind: Secret`",
         # (led by the `:`, the line start and the name looked back at: `regex` finds a `:` fast, where
         # a line start is tried at every char, 12 times slower over a 1 MB batch holding `kind: Secret`)
         r"(?m):(?<=(?:^|\\n)[ \t]+[A-Za-z0-9_.-]+:)[ \t]++(?<value>" + NOT_REDACTED
         + r"(?=[A-Za-z]{0,200}+[0-9+/=])[A-Za-z0-9+/]{8,}+={0,2})[ \t]*+(?:$|(?=\\[nr\"]))",
         (named("apiVersion: v1\nkind: Secret\ndata:\n  password: {}\n", fake(B64, 20, 100) + "=="),),
         ("kind: Deployment\nspec:\n  replicas: 3\n  image: nginx125",), needs=("kind: Secret",)),
    Kind("kubeconfig-key", "the base64 after `client-key-data:` in a kubeconfig",
         r"(?:(?<![\w-])|(?<=\\[nrt]))client-key-data:[ \t]*+(?<value>" + NOT_REDACTED + r"[A-Za-z0-9+/]{16,}+={0,2})",
         (named("    client-key-data: {}", fake(B64, 120, 101)),), ("client-key-data: null",)),
    Kind("url-credentials", "the `user:password` of `scheme://user:password@host` (postgres, mysql, mongodb+srv, "
                            "redis, amqp, https, SQLAlchemy's `postgresql+psycopg2`…), or a token alone before "
                            "the `@` (`https://TOKEN@github.com`: 20+ chars with a digit)",
         r"(?:(?<![A-Za-z0-9+._\]-])|(?<=\\[nrt]))[A-Za-z][A-Za-z0-9+._-]{1,31}+://"
         r"(?<value>" + NOT_REDACTED + r"(?:[^\s/@:\"'\\<>\[\]]*+:[^\s/@\"'\\<>]++"
         r"|(?=[A-Za-z_-]{0,200}+[0-9])[A-Za-z0-9_-]{20,}+))@",
         (named("postgres://{}@db.internal:5432/main", "app:" + fake(AN, 16, 102)),
          named("mongodb+srv://{}@cluster0.mongodb.net/", "admin:" + fake(AN, 20, 103)),
          named("create_engine('oracle+cx_oracle://{}@db:1521/ORCL')", "scott:" + fake(AN, 16, 513)),
          named("redis://{}@cache:6379/0", ":" + fake(AN, 24, 104)),
          named("git clone https://{}@github.com/acme/app.git", fake(HEX, 40, 368))),
         ("postgres://user:${DB_PASSWORD}@localhost/db", "postgres://user:password@localhost/db",
          "git clone ssh://git@github.com/acme/app.git", "https://deploy-bot-account@example.net/")),
    Kind("query-credential", "the value of `token=`, `api_key=`, `password=`, `sig=`… after `?`, `&` or `;` "
                             "(URLs, JDBC and ADO.NET connection strings)",
         r"(?i)[?&;](?:access_token|refresh_token|id_token|auth_token|token|api_key|apikey"
         r"|api-key|key|secret|client_secret|password|passwd|pwd|sig|signature"
         r"|x-amz-signature|x-amz-credential|x-amz-security-token)="
         r"(?<value>" + NOT_REDACTED + r"[^&#\s\"'\\<>]++)",
         (named("jdbc:sqlserver://db:1433;databaseName=app;user=sa;password={}", fake(AN, 14, 105)),
          named("https://api.example.net/v1/items?api_key={}&page=2", fake(HEX, 32, 106))),
         ("https://example.net/docs?page=2&lang=en",),
         anchors=(("token", 16), ("key", 5), ("secret", 8), ("passw", 1), ("pwd", 1), ("sig", 7),
                  ("credential", 7))),
    Kind("netrc-password", "the `password` of a `.netrc` `machine … login … password …` entry",
         # one spec per entry head: a spec that starts with an alternation is tried at every position
         # (about 15 ns a char), one that starts with a literal is found at `str.find` speed
         tuple(r"(?:(?<![\w-])|(?<=\\[nrt]))" + head + r"(?:" + _WS + r"++(?:login|account)[ \t]++[^\s\\]++)*+" + _WS
               + r"++password[ \t]++(?<value>" + VALUE + r"[^\s\"'\\]++)"
               for head in (r"machine[ \t]++[^\s\\]++", "default")),
         (named("machine api.heroku.com\n  login me@example.net\n  password {}", fake(AN, 18, 107)),
          named("default login anonymous password {}", fake(AN, 16, 172))),
         ("machine learning models need a password manager",), generic=True),
    *PASSWORDS,
    Kind("npmrc-auth", "`_auth=`, `_authToken=`, `_password=` lines of an `.npmrc`",
         tuple(r"(?:(?<![\w-])|(?<=\\[nrt]))" + name + r"[ \t]*+=[ \t]*+[\"']?+(?<value>" + VALUE + r"[^\s\"'\\]{6,}+)"
               for name in ("_auth(?:Token)?+", "_password")),
         (named("//registry.npmjs.org/:_authToken={}", fake(HEX, 8, 111) + "-" + fake(HEX, 4, 112) + "-4"
                + fake(HEX, 3, 113) + "-a" + fake(HEX, 3, 114) + "-" + fake(HEX, 12, 115)),
          named("//npm.example.net/:_password={}", fake(B64, 24, 173))),
         ("//registry.npmjs.org/:_authToken=${NPM_TOKEN}",), generic=True),
    Kind("cookie", "a `Cookie:` header's pairs, the first pair of a `Set-Cookie:`, of `document.cookie = \"…\"` "
                   "and of `cookies={\"…\": \"…\"}`, `curl -b` / `--cookie` pairs, the value of a `cookies.txt` "
                   "line or of a cookie object (`\"value\"` beside `httpOnly`: Playwright, Selenium, "
                   "DevTools), when they hold a digit (a session id; `theme=dark` "
                   "stays, and so do the headers' names)",
         (r"(?i)(?:(?<![a-z0-9_-])|(?<=\\[nrt]))set-cookie(?:\\*+[\"'])?+\s*+:\s*+(?:\\*+[\"'])?+[^=;\s\"'\\]{1,200}+="
          + _COOKIE_VALUE,
          # a script's `document.cookie = "sid=…; path=/"` and a client's `cookies={"sid": "…"}` (requests,
          # httpx, a JS object): the first pair, as in `Set-Cookie:` (what follows are attributes or more pairs)
          r"(?:(?<![\w$-])|(?<=\\[nrt]))document\.cookie[ \t]*+=[ \t]*+\\*+[\"'`][^=;\s\"'\\]{1,200}+=" + _COOKIE_VALUE,
          r"(?:(?<![\w-])|(?<=\\[nrt]))cookies[ \t]*+[=:][ \t]*+\{[ \t]*+\\*+[\"'][^=;\s\"'\\]{1,200}+\\*+[\"'][ \t]*+:"
          r"[ \t]*+\\*+[\"']" + _COOKIE_VALUE,
          r"(?i)(?:(?<![a-z0-9_-])|(?<=\\[nrt]))(?<!set-)cookie(?:\\*+[\"'])?+\s*+:\s*+(?:\\*+[\"'])?+"
          r"(?<value>" + VALUE + _COOKIE_PAIRS + r")",
          # one spec per flag: a spec that starts with one literal is found at `str.find` speed
          *(r"(?:(?<![\w-])|(?<=\\[nrt]))" + flag + r"(?:[ \t]++|=)[\"']?+(?<value>" + VALUE + _COOKIE_PAIRS + r")"
            for flag in ("-b", "--cookie")),
          *_COOKIE_JAR_LINE, *_COOKIE_OBJECT),
         (named("Cookie: _session_id={}; theme=dark", fake(AN, 40, 162)),
          named('document.cookie = "sessionid={}; path=/";', fake(AN, 32, 174)),
          named("requests.get(url, cookies={'sessionid': '{}'})", fake(AN, 32, 175)),
          named("Set-Cookie: sessionid={}; Path=/; HttpOnly", fake(AN, 32, 163)),
          named("curl 'https://app.example.net/api' -b 'session={}'", fake(URLSAFE, 48, 164)),
          named('{"headers": {"cookie": "sid={}"}}', fake(AN, 24, 165)),
          named("# Netscape HTTP Cookie File\n.example.net\tTRUE\t/\tTRUE\t1767225600\tsessionid\t{}\n",
                fake(AN, 32, 176)),
          named('{"cookies": [{"name": "sid", "value": "{}", "domain": ".example.net", "httpOnly": true}]}',
                fake(AN, 32, 177)),
          named("[{'domain': 'example.net', 'httpOnly': True, 'name': 'sessionid', 'value': '{}'}]",
                fake(URLSAFE, 40, 178))),
         ("a cookie: small, sweet and baked", "Set-Cookie: theme=dark; Path=/", "Cookie: ${SESSION_COOKIE}",
          "git checkout -b cookie-banner", "curl -b cookies.txt https://example.net",
          "Cookie: theme=darkmode…[trimmed 1,234 chars]… tail", 'document.cookie = "theme=dark; path=/"',
          "cookies={'theme': 'dark'}", "requests.get(url, cookies=jar)",
          ".example.net\tTRUE\t/\tFALSE\t0\ttheme\tdark", '{"name": "theme", "value": "dark", "httpOnly": false}',
          '{"env": [{"name": "DB_HOST", "value": "db-01.internal.example.net"}]}'),
         generic=True, anchors=(("cookie", len("set-")),)),
    Kind("auth-header", "the value of an `Authorization:` / `Proxy-Authorization:` header (after its scheme)",
         r"(?i)(?:(?<![a-z0-9_\]-])|(?<=\\[nrt]))(?:proxy-)?authorization(?:\\*+[\"'])?+\s*+[:=]\s*+(?:\\*+[\"'])?+"
         r"(?:(?:bearer|basic|token|digest|negotiate|apikey|sso-key|ssws)\s++(?<value>" + VALUE
         + r"[^\s\"'\\,;]{8,}+)|(?<value>" + VALUE + r"(?!(?:bearer|basic|token|digest|negotiate)\b)"
         r"(?=[^\s\"'\\,;0-9]{0,200}+[0-9])[^\s\"'\\,;]{12,}+))",
         (named("Authorization: Basic {}", fake(B64, 28, 116) + "=="),
          named('curl -H "Authorization: Bearer {}" https://api.example.net', fake(AN, 32, 117))),
         ("# authorization: auth account", 'curl -H "Authorization: Bearer $API_TOKEN"'),
         generic=True, anchors=(("authorization", len("proxy-")),)),
    Kind("bearer-token", "a 20+ char token after `Bearer` (with a digit)",
         r"(?:(?<![A-Za-z0-9_\]-])|(?<=\\[nrt]))Bearer\s++(?<value>" + NOT_REDACTED
         + r"(?=[A-Za-z._~+/-]{0,200}+[0-9])[A-Za-z0-9._~+/-]{20,}+=*+)",
         (named("token_type Bearer {}", fake(AN, 40, 118)),), ("Bearer tokens are sent in a header.",), generic=True),
    Kind("credential", "a value with a letter and a digit after a name ending in a secret word: `*_KEY=`, "
                       "`*_TOKEN:`, `*_SECRET`, `*_PASS`, `password`, `apiKey`, `credentials` (`.env`, "
                       "JSON, YAML, `.pypirc`, Go's `:=`, an XML `<password>` element, a token under `*_PAT=`, "
                       "PHP's `=>` and `define()`, a `name`/`value` pair; covers keys with no prefix such as Mistral "
                       "or Cohere); an unquoted `.env` value runs to the end of its line",
         # (after Go's `:=` or PHP's `=>` only a quoted value: unquoted, that is code, `token => token1.id`)
         # A quoted value runs to its closing quote or a space, `&`, `;` and brackets included (a password
         # `"Tr0ub4dor&3"` would otherwise keep its `&3`); an unquoted one stops at code and at a query's next
         # `&name=` or a shell's `&&`, but holds an `&` that starts neither
         (SECRET_NAME_IS + r"(?<!(?::=|=>)\s{0,16})(?<q>\\*+[\"'])?+"
          r"(?<value>" + VALUE + r"(?(q)(?=[^\s\"'\\0-9]{0,200}+[0-9])(?=[^\s\"'\\a-z]{0,200}+[a-z])[^\s\"'\\]{6,}+"
          r"|(?=[^" + VALUE_ENDS + r"0-9]{0,200}+[0-9])(?=[^" + VALUE_ENDS + r"a-z]{0,200}+[a-z])"
          r"(?:[^" + VALUE_ENDS + r"]|&(?=[^\s&])(?![\w.%\[\]-]*+=)){6,}+))(?!\()",
          # a quoted value may hold any char but a quote (a Django `SECRET_KEY = '…(…'`): the closing quote
          # tells it from code
          SECRET_NAME_IS + r"\\*+[\"']"
          r"(?<value>" + VALUE + r"(?=[^\s\"'\\0-9]{0,200}+[0-9])(?=[^\s\"'\\a-z]{0,200}+[a-z])[^\s\"'\\]{8,}+)"
          r"(?=\\*+[\"'])",
          # an unquoted `.env` / `export` line (`SECRET_KEY=9G*r…+(94…`) runs to the end of its line, `(` and
          # all: a whole upper-case name, `=` with no space, nothing after it on the line but a comment,
          # and no closing `)`, `]` or `;` (that is code: `KEY=f(x1)`)
          r"(?i)(?<=(?:^|[\s\"'=]|\\[nrt])(?-i:[A-Z0-9_]){0,60})"
          r"(?-i:SECRET|TOKEN|KEY|PASSWORD|PASSWD|PASS|PWD)="
          r"(?<value>" + VALUE + r"(?=[^\s\"'\\0-9]{0,200}+[0-9])(?=[^\s\"'\\a-z]{0,200}+[a-z])[^\s\"'\\]{8,}+)"
          r"(?<![)\];])(?=[ \t]*+(?:#[^\r\n]*+)?(?:[\r\n]|\\++[nrt]|\\*+[\"']|$))",
          # an XML element of a config file (Maven `settings.xml`, .NET, Jenkins): `<password>…</password>`
          # (not `<token>` nor `<secret>`: placeholders in prose, which would run it over most texts)
          r"<(?:password|Password|passwd|clientSecret|client_secret|apiKey|api_key|apiToken|api_token"
          r"|accessToken|access_token)>(?<value>" + VALUE
          + r"(?=[^<\s0-9]{0,200}+[0-9])(?=[^<\sa-z]{0,200}+[a-z])[^<>\s]{6,}+)</",
          # a personal access token under an upper-case name ending in `_PAT` (`AZURE_DEVOPS_EXT_PAT`,
          # `GITLAB_PAT`): token-shaped only, so `FILE_PAT=*.py` stays (led by its literal, the name looked back)
          r"_PAT(?<=(?:^|[\s\"'{,]|\\[nrt])[A-Z][A-Z0-9_]{0,60}_PAT)(?:\\*+[\"'])?+[ \t]*+[=:][ \t]*+(?:\\*+[\"'])?+"
          r"(?<value>" + VALUE + r"(?=[A-Za-z_-]{0,200}+[0-9])(?=[A-Z0-9_-]{0,200}+[a-z])[A-Za-z0-9_-]{20,}+)"
          r"(?![A-Za-z0-9_-])",
          # PHP's `define('DB_PASSWORD', '…')` (WordPress' `wp-config.php`: its salts too)
          r"define\([ \t]*+\\*+['\"][A-Z0-9_]{1,60}+(?<=PASSWORD|PASSWD|SECRET|TOKEN|KEY|SALT|PASS)\\*+['\"][ \t]*+,[ \t]*+"
          r"\\*+['\"](?<value>" + VALUE + r"(?=[^'\"\\0-9]{0,200}+[0-9])(?=[^'\"\\a-z]{0,200}+[a-z])[^'\"\\]{8,}+)\\*+['\"]",
          # a `name` / `value` pair whose name is a secret's (Kubernetes and ECS `env`, CI variables as JSON or YAML)
          # (the name is read whole, then its end looked back at: no retry at each of its chars)
          r"name(?:\\*+[\"'])?+[ \t]*+:[ \t]*+(?:\\*+[\"'])?+[A-Za-z0-9_.-]{1,60}+"
          r"(?<=PASSWORD|PASSWD|SECRET|TOKEN|API_KEY|APIKEY|PRIVATE_KEY|ACCESS_KEY|password|passwd|secret|token|apiKey)"
          r"(?:\\*+[\"'])?+[ \t]*+(?:,|\r?\n|\\++n)[ \t-]*+(?:\\*+[\"'])?+value(?:\\*+[\"'])?+[ \t]*+:[ \t]*+"
          r"(?:\\*+[\"'])?+(?<value>" + VALUE + r"(?=[^\s\"'\\,}0-9]{0,200}+[0-9])(?=[^\s\"'\\,}a-z]{0,200}+[a-z])"
          r"[^\s\"'\\,}]{6,}+)"),
         (named("MISTRAL_API_KEY={}", fake(AN, 32, 119)), named('{"password": "{}"}', fake(URLSAFE, 14, 120)),
          named("TWILIO_AUTH_TOKEN: {}", fake(HEX, 32, 121)), named("[pypi]\npassword = {}", fake(AN, 20, 122)),
          named("SECRET_KEY = 'django-insecure-{}'", "k3(x!" + fake(AN, 20, 166) + "@b)a^" + fake(HEX, 10, 167)),
          named("export APP_SECRET_KEY={}\n", fake(AN, 9, 168) + "+(" + fake(AN, 14, 169) + "%!"),
          named("cat .env\\nDJANGO_SECRET_KEY={}\\nDEBUG=1", "9G*r" + fake(AN, 10, 170) + "^(" + fake(AN, 12, 171)),
          named('token := "{}"', fake(AN, 40, 369)),
          named("<server>\n  <id>nexus</id>\n  <password>{}</password>\n</server>", fake(AN, 18, 370)),
          named("export AZURE_DEVOPS_EXT_PAT={}", fake("abcdefghijklmnopqrstuvwxyz234567", 52, 371)),
          named("'password' => '{}',", fake(AN, 16, 382)),
          named("define( 'DB_PASSWORD', '{}' );", fake(AN, 16, 378)),
          named("env:\n- name: DB_PASSWORD\n  value: {}\n", fake(AN, 16, 379)),
          named('[{"name": "API_SECRET", "value": "{}"}]', fake(AN, 24, 380))),
         ("api_key = os.environ['API_KEY']", "OPENAI_API_KEY=your_api_key_here", "max_tokens=4096",
          "src/x.py:12: twilio-api-key: config/v2/twilio.yaml", "DB_PASSWORD=changeme1", "token: ****1234",
          "token = Base.url_encode64(raw)", "SECRET_KEY=hashlib.sha256(seed2).hexdigest()",
          "API_KEY=os.environ.get(\"API_KEY\", \"dev1\")", "SORT_KEY=key_fn(row1);\n", "CACHE_KEY=items[k1]\n",
          "token := os.Getenv(\"API_TOKEN\")", "<password>${env.NEXUS_PASSWORD}</password>", "FILE_PAT=*.py",
          "GLOB_PAT: 'src/**/*.ts'", "tokens.map(token => token1.id)", "token := cfg.Token1x", "define('AUTH_KEY', 'put your unique phrase here');",
          "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: db, key: password}",
          '{"name": "DB_HOST", "value": "db-01.internal.example.net"}'),
         generic=True,
         anchors=(("passw", 0), ("pwd", 0), ("secret", 7), ("token", 0), ("key", 8), ("pass", 1),
                  ("credential", 0))),
)
