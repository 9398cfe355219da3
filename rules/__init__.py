"""Rule packs (TOML data), installed as `sanitizer.packs`; no code lives here."""
