"""Rule packs and user configuration: TOML data in, validated `Config` out.

`resolve` turns the tables into rules (`load`); `files` reads the TOML files they come from (the
shipped packs, kept parsed in the cache folder, and the user's own file).
"""

from sanitizer.config.files import _packs, check_preset, find_user_config, pack_names, read_user_config
from sanitizer.config.resolve import SCOPES, Config, Rule, load
from sanitizer.errors import ConfigError

__all__ = ["SCOPES", "Config", "ConfigError", "Rule", "_packs", "check_preset", "find_user_config", "load",
           "pack_names", "read_user_config"]
