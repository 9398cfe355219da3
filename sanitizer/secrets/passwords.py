"""Passwords given as arguments: command-line flags (`--password x`, `mysql -pX`, `curl -u user:x`…)
and the password argument of code calls (`auth=('user', 'x')`, `.login('user', 'x')`); and passwords
stored as crypt hashes (`/etc/shadow`, `.htpasswd`, a users table), which a dictionary reverses.

Kept apart from `named` only for size; `NAMED` takes these in place, in this order.
"""

from __future__ import annotations

from sanitizer.secrets.kinds import (
    AN,
    MARKER,
    NAME_IS,
    NOT_REDACTED,
    SECRET_NAME,
    URLSAFE,
    VALUE,
    VALUE_ENDS,
    Kind,
    bare,
    fake,
    fake_uuid,
    named,
)

_CRYPT = "./" + AN  # the crypt(3) base64 alphabet
_B64 = AN + "+/"
_L = r"(?:(?<![\w$./])|(?<=\\[nrt]))"  # a hash's left boundary (a `\n` escape counts as a line break)
_PGFIELD = r"[^:\s\\\"'`,{}\[\]]++"  # a `.pgpass` database or user name
_FLAGS = r"(?:[ \t]++-[A-Za-z]++(?:[ \t]++[0-9]++)?+)"  # htpasswd's flags
# the user of `user:password` after a flag, or a marker where the user was a token (`curl -u ghp_…:x`)
_USER = r"(?:" + MARKER + r"|[^\s:\"'\\]++)"
# A value after a secret's name that `credential` leaves (it holds no digit), unquoted after Go's
# `:=` or PHP's `=>` only where quoted (that is code), ending where a value does (not before a `(`,
# `[`, `.` or `/`: a call, a name going on, or the first part of a longer value).
_NO_DIGIT_AFTER = r"(?<!(?::=|=>)\s{0,16})(?:\\*+[\"'])?+(?<value>" + VALUE + r"(?-i:"
_NO_DIGIT_END = r")(?=[\s\"'\\,;&<>)}\]]|\Z))"
_SYMBOLS = "!#$%?@^~"  # a password's symbols (not `.` `/` `+` `=` `-`: paths, code, base64; nor `*`: bold, masks)

PASSWORDS: tuple[Kind, ...] = (
    Kind("cli-password", "`--password x`, `--token=x`, `--api-key x`, `--token-secret x`, `mysql -pXXXX`, "
                         "`sshpass -p x`, `curl -u user:pass`, `htpasswd -b`, `vault login x`, `snyk auth x`, "
                         "`-Dsonar.token=x`, `::add-mask::x`",
         (r"(?:(?<![\w-])|(?<=\\[nrt]))--(?:password|passwd|pass|token|api-key|apikey|secret|client-secret|auth-token|access-token"
         r"|token-secret|secret-key|api-secret|app-secret)"
         r"(?:=|[ \t]++)[\"']?+(?<value>" + VALUE + r"(?!-)(?=[a-z]{0,200}+[^a-z\s\"'\\])[^\s\"'\\]{4,}+)",
         r"(?:(?<![\w-])|(?<=\\[nrt]))sshpass[ \t]++-p[ \t]*+[\"']?+(?<value>" + VALUE + r"[^\s\"'\\]{3,}+)",
         r"(?:(?<![\w-])|(?<=\\[nrt]))curl(?:[ \t]++[^\s]++){0,12}?[ \t]++(?:-u|--user)[ \t]*+[\"']?+" + _USER + r":"
         r"(?<value>" + VALUE + r"[^\s\"'\\@]{3,}+)",
         r"(?:(?<![\w-])|(?<=\\[nrt]))mysql(?:dump|admin|sh)?+(?:[ \t]++[^\s]++){0,12}?[ \t]++-p[\"']?+"
         r"(?<value>" + VALUE + r"[^\s\"'\\]{3,}+)",
         # the short password flags of `docker login` (and its kin), `redis-cli -a`, `sqlcmd -P`, `mongosh -p`
         # (no group around the command, which holds no `|`: its words are then the pattern's `leads`)
         *(r"(?:(?<![\w-])|(?<=\\[nrt]))" + command + r"(?:[ \t]++[^\s]++){0,12}?[ \t]++" + flag
           + r"(?:[ \t]++|=)[\"']?+(?<value>" + VALUE + r"(?!-)[^\s\"'\\]{3,}+)"
           # one spec per command: a spec that starts with one literal is found at `str.find` speed
           for command, flag in (*((tool + r"[ \t]++login", "-p") for tool in ("docker", "podman", "nerdctl", "buildah",
                                                                               "skopeo", "oras")),
                                 ("redis-cli", "-a"), ("sqlcmd", "-P"), ("mongo(?:sh|dump|restore|import|export)?+", "-p"),
                                 ("ldap(?:search|add|modify|delete|passwd|whoami|compare|modrdn)", "-w"))),
         # openssl's `-passin pass:…` / `-passout pass:…` (led by its literal, the flag looked back)
         r"pass:(?<=-pass(?:in|out)?+[ \t]{1,8}+[\"']?+pass:)(?<value>" + VALUE + r"[^\s\"'\\]{3,}+)",
         # `jenkins-cli -auth user:…` (not `-auth @file`)
         r"(?:(?<![\w-])|(?<=\\[nrt]))jenkins-cli(?:\.jar)?+(?:[ \t]++[^\s]++){0,12}?[ \t]++-auth[ \t]++[\"']?+"
         r"(?!@)" + _USER + r":(?<value>" + VALUE + r"[^\s\"'\\]{3,}+)",
         # `htpasswd -b[c] FILE USER …` and `htpasswd -nb USER …`: the password is the last word
         # (a flag may take a number: `-C 10`, `-r 5000`)
         *(r"(?:(?<![\w-])|(?<=\\[nrt]))htpasswd(?=" + _FLAGS + r"*?[ \t]++-[A-Za-z]*b)" + n + _FLAGS
           + r"++" + r"[ \t]++[^\s-][^\s]*+" * words + r"[ \t]++[\"']?+(?<value>" + VALUE + r"[^\s\"'\\]{3,}+)"
           for n, words in ((r"(?=" + _FLAGS + r"*?[ \t]++-[A-Za-z]*n)", 1),
                            (r"(?!" + _FLAGS + r"*?[ \t]++-[A-Za-z]*n)", 2))),
         # GitHub Actions' `::add-mask::…`: what follows is a secret by definition
         r"::add-mask::(?<value>" + VALUE + r"[^\s\"'\\]{4,}+)",
         # `vault login [token=]…` (not `-method=userpass username=…`), `snyk auth …`, `snyk config set api=…`
         # (written with one space, so the whole command is the pattern's lead, not a common word)
         r"(?:(?<![\w-])|(?<=\\[nrt]))vault login(?:[ \t]++-[\w-]++(?:=[^\s]*+)?+)*?[ \t]++(?:token=)?+[\"']?+"
         r"(?<value>" + VALUE + r"(?!-)[^\s\"'\\=]{8,}+)(?![^\s\"'\\])",
         r"(?:(?<![\w-])|(?<=\\[nrt]))snyk auth[ \t]++[\"']?+(?<value>" + VALUE + r"(?!-)[^\s\"'\\]{8,}+)",
         r"(?:(?<![\w-])|(?<=\\[nrt]))snyk config set api=[\"']?+(?<value>" + VALUE + r"[^\s\"'\\]{8,}+)",
         # SonarScanner's `-Dsonar.token=…` (`-Dsonar.login=…` before 10.0, `-Dsonar.password=…`)
         r"-Dsonar\.(?:token|login|password)=[\"']?+(?<value>" + VALUE + r"[^\s\"'\\]{4,}+)"),
         (named("psql-migrate --password {} --host db", fake(AN, 14, 108)),
          named("mysql -u root -p{} app", fake(AN, 12, 109)),
          named("mc alias set minio http://127.0.0.1:9000 admin --secret-key {}", fake(AN, 22, 515)),
          named("docker login -u ci -p {} registry.example.net", fake(AN, 20, 127)),
          named("redis-cli -h cache -a {} ping", fake(AN, 24, 128)),
          named("curl -u admin:{} https://ci.example.net", fake(AN, 16, 110)),
          named("ldapsearch -x -D cn=admin,dc=example,dc=net -w {} -b dc=example,dc=net", fake(AN, 14, 372)),
          named("openssl pkcs12 -in cert.p12 -passin pass:{} -nodes", fake(AN, 14, 373)),
          named("java -jar jenkins-cli.jar -s https://ci.example.net -auth admin:{} build deploy", fake(AN, 16, 382)),
          named("htpasswd -cb /etc/nginx/.htpasswd admin {}", fake(AN, 14, 383)),
          named("htpasswd -nbB -C 12 ops {} >> .htpasswd", fake(AN, 14, 384)),
          named('echo "::add-mask::{}"', fake(URLSAFE, 24, 385)),
          named("vault login {}", "s." + fake(AN, 24, 482)),
          named("snyk config set api={}", fake_uuid(483)),
          named("mvn sonar:sonar -Dsonar.host.url=https://sonar.example.net -Dsonar.login={}", fake("0123456789abcdef", 40, 488))),
         ("docker login --password-stdin", "docker login -u ci -p \"$REGISTRY_PASSWORD\" ghcr.io",
          "docker run -p 8080:80 nginx", "mysql -u root -p app", "use --password to pass it", "mysql -pXXXX",
          "ldapsearch -x -W -b dc=example,dc=net", "openssl rsa -passin env:KEY_PASS",
          "java -jar jenkins-cli.jar -auth @/run/secrets/jenkins build deploy", "htpasswd -c .htpasswd admin",
          "htpasswd -B -c /etc/nginx/.htpasswd admin", 'echo "::add-mask::$TOKEN"',
          "vault login -method=userpass username=ops", "vault login -method=oidc", "snyk auth --help",
          "-Dsonar.login=$SONAR_TOKEN"),
         generic=True),
    Kind("code-password", "the password argument of `auth=('user', '…')`, `HTTPBasicAuth('user', '…')` and "
                          "`.login('user', '…')` (requests, httpx, aiohttp, smtplib, ftplib, imaplib)",
         # one spec per head: a spec that starts with one literal is found at `str.find` speed (`auth=(`
         # unspaced, as keyword arguments are written: a common word alone would run it over most texts)
         tuple(head + r"[ \t]*+\\*+['\"][^'\"\\\r\n]{1,200}+\\*+['\"][ \t]*+,[ \t]*+\\*+['\"]"
               r"(?<value>" + VALUE + r"[^\s'\"\\]{4,}+)\\*+['\"][ \t]*+\)"
               for head in (r"auth=\(", r"(?:HTTPBasic|HTTPDigest|Basic)Auth\(", r"\.login\(")),
         (named("requests.get(url, auth=('admin', '{}'))", fake(AN, 16, 374)),
          named("server.login('ops@example.net', '{}')", fake(URLSAFE, 16, 375)),
          named("client = httpx.Client(auth=httpx.BasicAuth('ci', '{}'))", fake(AN, 20, 376))),
         ("requests.get(url, auth=('admin', password))", "server.login(user, os.environ['SMTP_PASSWORD'])",
          "auth=('admin', '{password}')"), generic=True),
    Kind("registry-credential", "a package registry's credential in its tool's config: NuGet's `ClearTextPassword`, "
                                "Bundler's `BUNDLE_<HOST>=user:pass` and `bundle config <host> user:pass`",
         (r"ClearTextPassword\\*+[\"'][ \t]++value=\\*+[\"'](?<value>" + VALUE + r"[^\"'\\]{3,}+)(?=\\*+[\"'])",
          r"(?:(?<![\w-])|(?<=\\[nrt]))BUNDLE_[A-Z0-9_]*?__[A-Z0-9_]++[ \t]*+[=:][ \t]*+[\"']?+(?<value>" + VALUE
          + r"[^\s\"'\\:]++:" + NOT_REDACTED + r"[^\s\"'\\]{3,}+)",
          r"(?:(?<![\w-])|(?<=\\[nrt]))bundle config(?:[ \t]++set)?+(?:[ \t]++--(?:global|local))?+[ \t]++"
          r"[A-Za-z0-9-]++(?:\.[A-Za-z0-9-]++)++[ \t]++[\"']?+(?<value>" + VALUE + r"[^\s\"'\\:]++:" + NOT_REDACTED + r"[^\s\"'\\]{3,}+)"),
         (named('<add key="ClearTextPassword" value="{}" />', fake(AN, 18, 489)),
          named("BUNDLE_GEMS__CONTRIBSYS__COM={}", fake("0123456789abcdef", 8, 490) + ":" + fake("0123456789abcdef", 8, 491)),
          named("bundle config set --global rubygems.pkg.github.com {}", "ci:" + fake(AN, 20, 492))),
         ('<add key="ClearTextPassword" value="%NUGET_PASSWORD%" />', "BUNDLE_GEMFILE=Gemfile.ci",
          "bundle config set --local path vendor/bundle"), generic=True),
    Kind("letter-credential", "a value with no digit after a name ending in a secret word (as `credential`): 12+ "
                              "letters whose case changes as a random string's does (`KxskJecaDWFfVTvV`, not "
                              "`hashedPasswordFromDb`), or 8+ chars with a letter and a symbol `!#$%?@^~` after a "
                              "password's or secret's name (`P@ssword!`)",
         # 3+ lower-to-upper changes, two capitals side by side, no run of 6 small letters: 54% of
         # random 12-letter strings, 86% of 20-letter ones, one camelCase name of 2,877 in the corpus.
         # Quoted, after `=`, or ending its line: not a type (`public_key: SSHCertPublicKeyTypes | None`).
         # No `:` or `*` before the name: an ARN's `:secret:` is followed by the secret's name.
         (r"(?i)(?<![:*])" + SECRET_NAME + _NO_DIGIT_AFTER + r"(?=(?:[A-Z]*+[a-z]++[A-Z]){3})"
          r"(?=[A-Za-z]{0,200}?[A-Z]{2})(?![A-Za-z]{0,200}?[a-z]{6})[A-Za-z]{12,}+"
          r"(?:(?<=[\"'=][ \t]{0,16}[A-Za-z]{12,300})|(?=[ \t]*+(?:[\r\n]|\\++[nr]|\Z)))" + _NO_DIGIT_END,
          r"(?i)(?<![:*])(?:password|passwd|pwd|passphrase|[_-]pass|secret)" + NAME_IS + _NO_DIGIT_AFTER
          + r"(?![~/.])(?=[^0-9" + VALUE_ENDS + r"]{0,200}+(?![0-9]))(?=[^A-Za-z" + VALUE_ENDS + r"]{0,200}+[A-Za-z])"
          r"(?=[^" + _SYMBOLS + VALUE_ENDS + r"]{0,200}+[" + _SYMBOLS + r"])[^" + VALUE_ENDS + r"]{8,}+" + _NO_DIGIT_END),
         (named("DB_PASSWORD={}", "Kxsk" + "JecaDWFfVTvV"), named('{"client_secret": "{}"}', "mZpQwErTYuXkLbNv"),
          named("password: {}", "P@ss" + "word!"), named("export ADMIN_PASSWORD='{}'", "Kxsk!Jeca#DWF")),
         ("password: hashedPasswordFromDb", "api_key: PydanticSecretStr", "PRIMARY_KEY=userIdAndTenantId",
          "token: AuthorizationHeaderValue", "pwd: ~/projects/app", "password: **required**", "password: !vault |",
          '"secret": "!!!!!!!!", "name": "x"', "SECRET=KxskJecaDWFfVTvV.decode", "password = getPasswordFromVault(name)",
          "def load(public_key: SSHCertPublicKeyTypes | None = None):",
          '"Resource": "arn:aws:secretsmanager:*:*:secret:events!connection/*"'),
         generic=True, anchors=(("passw", 0), ("pwd", 0), ("secret", 7), ("token", 0), ("key", 8), ("pass", 1),
                                ("credential", 0))),
    Kind("pgpass-password", "the password of a `.pgpass` line: `host:port:database:user:password`",
         # found from its port between colons, a usual one or `*` (the pattern's leads); `.pgpass`
         # escapes a `:` in a field, so none runs across one; the host is looked back at from the
         # port, which is far cheaper than trying every word as a host
         r":(?:5432|6432|5433|\*):(?<=(?:^|[\s\"'`=]|\\[nrt])(?:[A-Za-z0-9_.-]{1,253}|\*|\[[0-9A-Fa-f:]{2,39}\])"
         r":(?:5432|6432|5433|\*):)"
         + _PGFIELD + ":" + _PGFIELD + r":(?<value>" + VALUE + r"[^\s:\\\"'`]{3,}+)(?![^\s\\\"'`])",
         (named("$ cat ~/.pgpass\ndb.example.net:5432:app:app_user:{}\n", fake(AN, 18, 493)),
          named("*:*:*:replicator:{}", fake(URLSAFE, 20, 494))),
         ("db.example.net:5432:app:app_user:${PGPASSWORD}", "listen on 0.0.0.0:5432 with user app",
          "2026-01-17T04:34:16.694Z :5432: fd01:8004:cd0e:1:8706:46b7:bc4b:567d/64"), generic=True),
    Kind("password-hash", "a crypt(3) password hash: bcrypt `$2b$12$…`, `$6$`/`$5$` SHA-crypt, `$1$`/`$apr1$` "
                          "MD5-crypt, `$y$` yescrypt, `$argon2id$…`, Django's `pbkdf2_sha256$…`",
         (_L + r"\$2[abxy]\$[0-9]{2}\$[./A-Za-z0-9]{53}(?![\w./])",
          _L + r"\$6\$(?:rounds=[0-9]{1,9}+\$)?+[./A-Za-z0-9]{1,16}+\$[./A-Za-z0-9]{86}(?![\w./])",
          _L + r"\$5\$(?:rounds=[0-9]{1,9}+\$)?+[./A-Za-z0-9]{1,16}+\$[./A-Za-z0-9]{43}(?![\w./])",
          _L + r"\$1\$[./A-Za-z0-9]{1,8}+\$[./A-Za-z0-9]{22}(?![\w./])",
          _L + r"\$apr1\$[./A-Za-z0-9]{1,8}+\$[./A-Za-z0-9]{22}(?![\w./])",
          _L + r"\$y\$[./A-Za-z0-9]{1,32}+\$[./A-Za-z0-9]{1,86}+\$[./A-Za-z0-9]{43}(?![\w./])",
          _L + r"\$argon2(?:id|i|d)\$v=[0-9]{1,3}+\$m=[0-9]{1,10}+,t=[0-9]{1,10}+,p=[0-9]{1,3}+\$[A-Za-z0-9+/]{8,}+"
          r"\$[A-Za-z0-9+/]{16,}+",
          _L + r"pbkdf2_sha(?:256|1)\$[0-9]{3,7}+\$[A-Za-z0-9]{4,64}+\$[A-Za-z0-9+/]{27,43}=(?![\w./])"),
         (named("root:{}:19700:0:99999:7:::", "$6$" + fake(_CRYPT, 16, 386) + "$" + fake(_CRYPT, 86, 387)),
          named("admin:{}", "$apr1$" + fake(_CRYPT, 8, 388) + "$" + fake(_CRYPT, 22, 389)),
          named('{"password": "{}"}', "$2b$12$" + fake(_CRYPT, 53, 390)),
          bare("$argon2id$v=19$m=65536,t=3,p=4$" + fake(_B64, 22, 391) + "$" + fake(_B64, 43, 392)),
          bare("pbkdf2_sha256$600000$" + fake(AN, 22, 393) + "$" + fake(_B64, 43, 394) + "="),
          bare("$y$j9T$" + fake(_CRYPT, 22, 395) + "$" + fake(_CRYPT, 43, 396))),
         ("echo $2 $6 $1", "printf '$6$%s$%s' \"$salt\" \"$hash\"", "$2b$12$ (bcrypt's prefix)",
          "pbkdf2_sha256$600000$ (Django's prefix)", "$argon2id$v=19$m=65536,t=3,p=4")),
)
