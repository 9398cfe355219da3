"""Adapters that plug the sanitizer into agent frameworks (each an optional extra)."""
