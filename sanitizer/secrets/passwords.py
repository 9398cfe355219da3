"""Passwords given as arguments: command-line flags (`--password x`, `mysql -pX`, `curl -u user:x`…)
and the password argument of code calls (`auth=('user', 'x')`, `.login('user', 'x')`).

Kept apart from `named` only for size; `NAMED` takes these in place, in this order.
"""

from __future__ import annotations

from sanitizer.secrets.kinds import AN, URLSAFE, VALUE, Kind, fake, named

PASSWORDS: tuple[Kind, ...] = (
    Kind("cli-password", "`--password x`, `--token=x`, `--api-key x`, `mysql -pXXXX`, `sshpass -p x`, "
                         "`curl -u user:pass`",
         (r"(?:(?<![\w-])|(?<=\\[nrt]))--(?:password|passwd|pass|token|api-key|apikey|secret|client-secret|auth-token|access-token)"
         r"(?:=|[ \t]++)[\"']?+(?<value>" + VALUE + r"(?!-)(?=[a-z]{0,200}+[^a-z\s\"'\\])[^\s\"'\\]{4,}+)",
         r"(?:(?<![\w-])|(?<=\\[nrt]))sshpass[ \t]++-p[ \t]*+[\"']?+(?<value>" + VALUE + r"[^\s\"'\\]{3,}+)",
         r"(?:(?<![\w-])|(?<=\\[nrt]))curl(?:[ \t]++[^\s]++){0,12}?[ \t]++(?:-u|--user)[ \t]*+[\"']?+[^\s:\"'\\]++:"
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
         r"pass:(?<=-pass(?:in|out)?+[ \t]{1,8}+[\"']?+pass:)(?<value>" + VALUE + r"[^\s\"'\\]{3,}+)"),
         (named("psql-migrate --password {} --host db", fake(AN, 14, 108)),
          named("mysql -u root -p{} app", fake(AN, 12, 109)),
          named("docker login -u ci -p {} registry.example.net", fake(AN, 20, 127)),
          named("redis-cli -h cache -a {} ping", fake(AN, 24, 128)),
          named("curl -u admin:{} https://ci.example.net", fake(AN, 16, 110)),
          named("ldapsearch -x -D cn=admin,dc=example,dc=net -w {} -b dc=example,dc=net", fake(AN, 14, 372)),
          named("openssl pkcs12 -in cert.p12 -passin pass:{} -nodes", fake(AN, 14, 373))),
         ("docker login --password-stdin", "docker login -u ci -p \"$REGISTRY_PASSWORD\" ghcr.io",
          "docker run -p 8080:80 nginx", "mysql -u root -p app", "use --password to pass it", "mysql -pXXXX",
          "ldapsearch -x -W -b dc=example,dc=net", "openssl rsa -passin env:KEY_PASS"),
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
)
