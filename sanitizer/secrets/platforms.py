"""More credentials recognised by their own shape: developer platforms, AI services and cloud
session tokens, a provider prefix (or structure) and a body.

Kept apart from `providers` only for size; `PROVIDERS` takes these in place, in this order.
Shapes follow the providers' documented formats and the public scanners' rules.
"""

from __future__ import annotations

from sanitizer.secrets.kinds import AN, B32, B64, HEX, UPPER, URLSAFE, B, E, Kind, bare, fake, named

_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

PLATFORMS: tuple[Kind, ...] = (
    Kind("aws-session-token", "an STS session token: `IQoJb3JpZ2luX2Vj…` (or the older `FwoGZXIvYXdz…`) then 100+ "
                              "base64 chars (URL-encoded or not)",
         tuple(r"(?:(?<![A-Za-z0-9+/])|(?<=\\[nrt]))" + p + r"(?:[A-Za-z0-9+/]|%2[BFbf]){100,}+(?:=|%3[Dd]){0,2}+"
               for p in ("IQoJb3JpZ2luX2Vj", r"F[wQ]oGZXIvYXdz")),
         (bare("IQoJ" + "b3JpZ2luX2VjE" + fake(B64, 300, 309) + "=="),
          named("X-Amz-Security-Token={}&X-Amz-Signature=", "Fwo" + "GZXIvYXdzE" + fake(B64, 200, 310) + "%2F"
                + fake(B64, 40, 311) + "%3D")),
         ("IQoJb3JpZ2luX2Vj (a prefix alone)",)),
    Kind("bedrock-key", "an Amazon Bedrock API key: `ABSK` then 109+ base64 chars",
         B + r"ABSK[A-Za-z0-9+/]{109,}+={0,2}+",
         (bare("AB" + "SKQmVkcm9ja0FQSUtleS" + fake(B64, 120, 312) + "="),), ("ABSK<your key>",)),
    Kind("gemini-key", "a Google `AQ.Ab8RN6…` API key (44 chars after the prefix)",
         B + r"AQ\.Ab8RN6[A-Za-z0-9_-]{44}" + E, (bare("AQ." + "Ab8RN6" + fake(URLSAFE, 44, 313)),), ("AQ.Ab8RN6XXXXXXXX",)),
    Kind("resend-key", "`re_` 8 base58 chars `_` 24 base58 chars",
         B + r"re_[1-9A-HJ-NP-Za-km-z]{8}_[1-9A-HJ-NP-Za-km-z]{24}" + E,
         (bare("re" + "_" + fake(_B58, 8, 314) + "_" + fake(_B58, 24, 315)),), ("re_compile_all_patterns_in_module",)),
    Kind("pinecone-key", "`pcsk_` 4-6 chars `_` 40+ chars",
         B + r"pcsk_[A-Za-z0-9]{4,6}_[A-Za-z0-9]{40,}+" + E,
         (bare("pc" + "sk_" + fake(AN, 6, 316) + "_" + fake(AN, 63, 317)),), ("pcsk_<your key>",)),
    Kind("together-key", "`tgp_v1_` then 43 chars", B + r"tgp_v1_[A-Za-z0-9_-]{43}" + E,
         (bare("tgp" + "_v1_" + fake(URLSAFE, 43, 318)),), ("tgp_v1_XXXXXXXX",)),
    Kind("elevenlabs-key", "`sk_` then 48 hex digits", B + r"sk_[a-f0-9]{48}" + E,
         (bare("sk" + "_" + fake(HEX, 48, 319)),), ("sk_learn_model_v2",)),
    Kind("jina-key", "`jina_` then 60 letters and digits", B + r"jina_[A-Za-z0-9]{60}" + E,
         (bare("ji" + "na_" + fake(AN, 60, 320)),), ("jina_embeddings_v3",)),
    Kind("firecrawl-key", "`fc-` then 32 hex digits", B + r"fc-[a-f0-9]{32}" + E,
         (bare("fc" + "-" + fake(HEX, 32, 321)),), ("fc-layer-1",)),
    Kind("e2b-key", "`e2b_` then 40 hex digits", B + r"e2b_[a-f0-9]{40}" + E,
         (bare("e2" + "b_" + fake(HEX, 40, 322)),), ("e2b_sandbox",)),
    Kind("neon-key", "`napi_` then 64 letters and digits", B + r"napi_[A-Za-z0-9]{64}" + E,
         (bare("na" + "pi_" + fake(AN, 64, 323)),), ("napi_create_function",)),
    Kind("render-key", "`rnd_` then 28 letters and digits (with a digit)",
         B + r"rnd_(?=[A-Za-z]{0,27}+[0-9])[A-Za-z0-9]{28}" + E, (bare("rn" + "d_" + fake(AN, 28, 324)),),
         ("rnd_generatorForTheSimulation",)),
    Kind("sourcegraph-token", "`sgp_` (then 16 hex or `local`, `_`) then 40 hex digits",
         B + r"sgp_(?:[a-fA-F0-9]{16}_|local_)?+[a-fA-F0-9]{40}" + E,
         (bare("sg" + "p_" + fake(HEX, 16, 325) + "_" + fake(HEX, 40, 326)),), ("sgp_local_<token>",)),
    Kind("buildkite-token", "`bkua_` then 40 (or 53) lower-case letters and digits",
         B + r"bkua_(?:[a-z0-9]{53}|[a-z0-9]{40})" + E, (bare("bk" + "ua_" + fake("abcdefghijklmnopqrstuvwxyz0123456789", 40, 327)),),
         ("bkua_REPLACE_ME",)),
    Kind("circleci-token", "`CCIPAT_` 22 chars `_` 40 hex digits", B + r"CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}" + E,
         (bare("CCI" + "PAT_" + fake(AN, 22, 328) + "_" + fake(HEX, 40, 329)),), ("CCIPAT_<your token>",)),
    Kind("deno-token", "`ddp_` / `ddw_` then 36 letters and digits", B + r"dd[pw]_[A-Za-z0-9]{36}" + E,
         (bare("dd" + "p_" + fake(AN, 36, 330)),), ("ddp_your_token_here",)),
    Kind("posthog-key", "`phx_` personal API keys: 47 chars (not the public `phc_` project keys)",
         B + r"phx_[A-Za-z0-9_-]{47}" + E, (bare("ph" + "x_" + fake(URLSAFE, 47, 331)),), ("phc_" + fake(AN, 43, 332),)),
    Kind("wandb-key", "`wandb_v1_` then 77 chars", B + r"wandb_v1_[A-Za-z0-9_]{77}" + E,
         (bare("wandb" + "_v1_" + fake(AN, 77, 333)),), ("wandb_v1_<your key>",)),
    Kind("rubygems-key", "`rubygems_` then 48 hex digits", B + r"rubygems_[a-f0-9]{48}" + E,
         (bare("ruby" + "gems_" + fake(HEX, 48, 334)),), ("rubygems_mirror",)),
    Kind("apify-token", "`apify_api_` then 34-38 letters and digits", B + r"apify_api_[A-Za-z0-9]{34,38}" + E,
         (bare("apify" + "_api_" + fake(AN, 36, 335)),), ("apify_api_client",)),
    Kind("nuget-key", "`oy2` then 43 base32 chars", B + r"oy2[a-p][a-z2-7]{15}[aq][a-z2-7]{25}[aeimquy4]" + E,
         (bare("oy2" + "o" + fake(B32.lower(), 15, 336) + "a"
               + fake(B32.lower(), 25, 337) + "q"),), ("oy2aaaaaaaaaaaaaaaa",)),
    Kind("alibaba-key-id", "`LTAI` then 17-21 letters and digits (an AccessKey id)",
         B + r"LTAI(?=[A-Za-z]{0,20}+[0-9])[A-Za-z0-9]{17,21}" + E, (bare("LT" + "AI" + fake(AN, 20, 338)),),
         ("LTAIxxxxxxxxxxxxxxxxxxxx",)),
    Kind("dynatrace-token", "`dt0c01.` 24 chars `.` 64 chars", B + r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}" + E,
         (bare("dt0" + "c01." + fake(UPPER, 24, 344) + "." + fake(UPPER, 64, 345)),), ("dt0c01.XXXXXXXX",)),
    Kind("harness-token", "`pat.` / `sat.` then three dot-separated parts (22, 24 and 20 chars)",
         tuple(B + p + r"\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}" + E for p in ("pat", "sat")),
         (bare("pa" + "t." + fake(URLSAFE, 22, 346) + "." + fake(HEX, 24, 347) + "." + fake(AN, 20, 348)),),
         ("pat.name.first.last",)),
    Kind("openshift-token", "`sha256~` then 43 chars (an OAuth access token: `oc whoami -t`)",
         B + r"sha256~[A-Za-z0-9_-]{43}" + E, (bare("sha" + "256~" + fake(URLSAFE, 43, 349)),),
         ("sha256~<token>",)),
    Kind("mongodb-atlas-key", "`mdb_sa_sk_` (service account secret) then 40 chars",
         B + r"mdb_sa_sk_[A-Za-z0-9_-]{40}" + E, (bare("mdb" + "_sa_sk_" + fake(URLSAFE, 40, 350)),), ("mdb_sa_sk_<secret>",)),
    Kind("infracost-key", "`ico-` then 32 letters and digits (with a digit: not an icon's class name)",
         B + r"ico-(?=[A-Za-z]{0,31}+[0-9])[A-Za-z0-9]{32}" + E,
         (bare("ic" + "o-" + fake(AN, 32, 351)),), ("ico-moon-font-awesome", "ico-arrowleftcircleoutlinedsmallxyzw")),
    Kind("hubspot-token", "a HubSpot private app token: `pat-` and a region (`na1`, `eu1`…) then a UUID",
         B + r"pat-(?:na|eu|ap)[0-9]{1,2}+-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}" + E,
         (bare("pat" + "-na1-" + "-".join(fake(HEX, n, 361 + i) for i, n in enumerate((8, 4, 4, 4, 12)))),),
         ("pat-na1-<your token>", "pat-na1-migration-script")),
    Kind("okta-token", "an Okta API token after its `SSWS` scheme: `00` then 40 chars",
         B + r"SSWS[ \t]++(?<value>00[A-Za-z0-9_-]{40})" + E,
         (named('OKTA_AUTH="SSWS {}"', "00" + fake(URLSAFE, 40, 366)),), ("SSWS ${OKTA_API_TOKEN}",)),
    Kind("browserbase-key", "`bb_live_` then 20+ chars", B + r"bb_live_[A-Za-z0-9_-]{20,}+",
         (bare("bb" + "_live_" + fake(URLSAFE, 27, 367)),), ("bb_live_<your key>",)),
    Kind("cockroach-key", "`CCDB1_` 22 chars `_` 40 chars", B + r"CCDB1_[A-Za-z0-9]{22}_[A-Za-z0-9]{40}" + E,
         (bare("CCDB" + "1_" + fake(AN, 22, 352) + "_" + fake(AN, 40, 353)),), ("CCDB1_<your key>",)),
)
