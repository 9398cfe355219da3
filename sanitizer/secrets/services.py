"""More credentials recognised by their own shape: payments and shipping, code quality and
deployment services, regional clouds and smaller SaaS APIs, a provider prefix and a body; and the
keys a tool prints or writes with its own label (Vault's unseal keys, an OpenVPN static key).

Kept apart from `providers` only for size; `PROVIDERS` takes these in place, in this order.
Shapes follow the providers' documented formats and the public scanners' rules (gitleaks).
"""

from __future__ import annotations

from sanitizer.secrets.kinds import (
    AN,
    B64,
    HEX,
    UPPER,
    URLSAFE,
    UUID,
    B,
    E,
    Kind,
    bare,
    fake,
    fake_uuid,
    named,
)

_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"


SERVICES: tuple[Kind, ...] = (
    Kind("sonarqube-token", "a SonarQube token: `squ_` (user), `sqp_` (project), `sqa_` (global) then 40 hex digits",
         B + r"sq[upa]_[a-f0-9]{40}" + E, (bare("sq" + "u_" + fake(HEX, 40, 440)),), ("squ_<your token>",)),
    Kind("plaid-token", "a Plaid access token: `access-production-`/`-development-`/`-sandbox-` then a UUID",
         tuple(B + "access-" + env + "-" + UUID + E
               for env in ("production", "development", "sandbox")),
         (bare("access-" + "production-" + fake_uuid(441)),), ("access-production-token-rotation",)),
    Kind("clojars-token", "`CLOJARS_` then 60 letters and digits", B + r"CLOJARS_[a-z0-9]{60}" + E,
         (bare("CLOJ" + "ARS_" + fake(_LOWER, 60, 446)),), ("CLOJARS_USERNAME",)),
    Kind("octopus-key", "an Octopus Deploy API key: `API-` then 26 upper-case letters and digits",
         B + r"API-(?=[A-Z]{0,25}+[0-9])[A-Z0-9]{26}" + E, (bare("AP" + "I-" + fake(UPPER, 26, 447)),),
         ("API-GATEWAY-DEPLOYMENT-ROLE-X",)),
    Kind("yandex-key", "Yandex Cloud: an `AQVN…` API key or a `t1.…` IAM token",
         (B + r"AQVN[A-Za-z0-9_-]{35,38}" + E, B + r"t1\.[A-Z0-9a-z_-]++={0,2}+\.[A-Z0-9a-z_-]{86}={0,2}+"),
         (bare("AQ" + "VN" + fake(URLSAFE, 36, 448)), bare("t1" + "." + fake(URLSAFE, 40, 449) + "." + fake(URLSAFE, 86, 450))),
         ("AQVN", "t1.small instances")),
    Kind("scalingo-token", "`tk-us-` then 48 chars", B + r"tk-us-[A-Za-z0-9_-]{48}" + E,
         (bare("tk" + "-us-" + fake(URLSAFE, 48, 452)),), ("tk-us-<your token>",)),
    Kind("gocardless-token", "a GoCardless access token: `live_` then 40 chars", B + r"live_(?=[A-Za-z_-]{0,39}+[0-9])[A-Za-z0-9_-]{40}" + E,
         (bare("li" + "ve_" + fake(URLSAFE, 40, 453)),), ("live_reload_on_save_enabled",)),
    Kind("lob-key", "a Lob live API key: `live_` then 35 hex digits", B + r"live_[a-f0-9]{35}" + E,
         (bare("li" + "ve_" + fake(HEX, 35, 454)),), ("live_abc",)),
    Kind("flutterwave-key", "a Flutterwave secret key `FLWSECK-`/`FLWSECK_TEST-` 32 chars `-X`, or its 12-char "
                            "encryption key",
         (B + r"FLWSECK(?:_TEST)?+-[a-h0-9]{32}-X" + E, B + r"FLWSECK(?:_TEST)?+-?+[a-h0-9]{12}(?![A-Za-z0-9_-])"),
         (bare("FLW" + "SECK_TEST-" + fake("abcdefgh0123456789", 32, 456) + "-X"),
          named('"enckey": "{}"', "FLW" + "SECK_TEST" + fake("abcdefgh0123456789", 12, 457))),
         ("FLWSECK_TEST-xxxx", "FLWPUBK_TEST-public")),
    Kind("duffel-token", "`duffel_live_`/`duffel_test_` then 43 chars", B + r"duffel_(?:live|test)_[A-Za-z0-9_=-]{43}" + E,
         (bare("duf" + "fel_live_" + fake(URLSAFE, 43, 458)),), ("duffel_test_<token>",)),
    Kind("shippo-token", "`shippo_live_`/`shippo_test_` then 40 hex digits", B + r"shippo_(?:live|test)_[a-f0-9]{40}" + E,
         (bare("ship" + "po_live_" + fake(HEX, 40, 459)),), ("shippo_test_mode",)),
    Kind("easypost-key", "`EZAK` (production) / `EZTK` (test) then 54 letters and digits",
         B + r"EZ[AT]K[A-Za-z0-9]{54}" + E, (bare("EZ" + "AK" + fake(AN, 54, 460)),), ("EZAK",)),
    Kind("twitter-token", "an X (Twitter) app bearer token: 20+ `A`s then 80+ chars",
         # not inside a base64 run (a blob of zero bytes starts with `A`s)
         r"(?:(?<![A-Za-z0-9_+/\]-])|(?<=\\[nrt]))" + "A" * 20 + r"[A-Za-z0-9%]{80,110}+(?![A-Za-z0-9_+/=\[-])", (bare("A" * 21 + "MLh" + fake(AN, 90, 461)),), ("A" * 24,)),
    Kind("clickhouse-key", "a ClickHouse Cloud key secret: `4b1d` then 38 letters and digits",
         B + r"4b1d[A-Za-z0-9]{38}" + E, (bare("4b" + "1d" + fake(AN, 38, 462)),), ("4b1d-not-a-key",)),
    Kind("typeform-token", "`tfp_` then 59 chars", B + r"tfp_[A-Za-z0-9_.=-]{59}" + E,
         (bare("tf" + "p_" + fake(URLSAFE, 59, 463)),), ("tfp_<token>",)),
    Kind("readme-token", "`rdme_` then 70 lower-case letters and digits", B + r"rdme_[a-z0-9]{70}" + E,
         (bare("rd" + "me_" + fake(_LOWER, 70, 464)),), ("rdme_openapi_upload",)),
    Kind("frameio-token", "`fio-u-` then 64 chars", B + r"fio-u-[A-Za-z0-9_=-]{64}" + E,
         (bare("fi" + "o-u-" + fake(URLSAFE, 64, 465)),), ("fio-u-<token>",)),
    Kind("adobe-secret", "an Adobe client secret: `p8e-` then 32 letters and digits", B + r"p8e-[A-Za-z0-9]{32}" + E,
         (bare("p8" + "e-" + fake(AN, 32, 466)),), ("p8e-short",)),
    Kind("maxmind-key", "a MaxMind license key: 6 chars `_` 29 chars `_mmk`", B + r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk" + E,
         (named("LicenseKey {}", fake(AN, 6, 467) + "_" + fake(AN, 29, 468) + "_m" + "mk"),), ("GeoIP_mmk",)),
    Kind("settlemint-token", "`sm_pat_`/`sm_aat_`/`sm_sat_` then 16 letters and digits",
         tuple(B + "sm_" + kind + r"_[A-Za-z0-9]{16}" + E for kind in ("pat", "aat", "sat")), (bare("sm" + "_pat_" + fake(AN, 16, 469)),), ("sm_pat_x",)),
    Kind("intra42-secret", "a 42 intra client secret: `s-s4t2ud-`/`s-s4t2af-` then 64 hex digits",
         B + r"s-s4t2(?:ud|af)-[a-f0-9]{64}" + E, (bare("s-" + "s4t2ud-" + fake(HEX, 64, 470)),), ("s-s4t2ud-",)),
    Kind("definednet-token", "a Defined Networking API token: `dnkey-` 26 chars `-` 52 chars",
         B + r"dnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}" + E,
         (bare("dn" + "key-" + fake(AN, 26, 471) + "-" + fake(AN, 52, 472)),), ("dnkey-<token>",)),
    Kind("authress-key", "an Authress service client key: `sc_…`/`ext_…` `.` 4-6 chars `.acc_…` `.` 30+ chars",
         # one spec per head: a spec that starts with one literal is found at `str.find` speed
         tuple(B + head + r"_[a-z0-9]{5,30}+\.[a-z0-9]{4,6}+\.acc[_-][a-z0-9-]{10,32}+\.[A-Za-z0-9+/_=-]{30,120}+"
               for head in ("sc", "ext", "scauth", "authress")),
         (bare("sc" + "_" + fake(_LOWER, 20, 473) + "." + fake(_LOWER, 5, 474) + ".acc_" + fake(_LOWER, 24, 475) + "."
               + fake(URLSAFE, 60, 476)),), ("sc_config.main.acc_x",)),
    Kind("vault-unseal-key", "a Vault unseal or recovery key as `vault operator init` prints it: `Unseal Key 1: …`",
         r"(?:Unseal|Recovery) Key [0-9]{1,2}+:[ \t]++(?<value>[A-Za-z0-9+/]{40,}+={0,2}+|[a-f0-9]{64,}+)" + E,
         (named("Unseal Key 1: {}", fake(B64, 44, 495)), named("Recovery Key 3: {}", fake(B64, 44, 496))),
         ("Unseal Key 1: <redacted>", "Unseal Progress 1/3")),
    Kind("openvpn-static-key", "an OpenVPN static key block (`ta.key`, `<tls-auth>`): its 16 lines of hex",
         # (its lines go even where its END line was cut off)
         r"-----BEGIN OpenVPN Static key V1-----(?<value>(?:(?:\s|\\++[nrt])++[0-9a-f]{32}(?![0-9a-f])){1,16}+)",
         (named("-----BEGIN OpenVPN Static key V1-----{}\n-----END OpenVPN Static key V1-----",
                "".join("\n" + fake(HEX, 32, 497 + i) for i in range(16))),),
         ("-----BEGIN OpenVPN Static key V1-----\n<paste ta.key here>\n-----END OpenVPN Static key V1-----",)),
)
