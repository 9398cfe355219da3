"""Labels for images: `[image: image/png, 143 KB, sha256:1a2b3c4d]`, never their data.

Shared by the `image-placeholder` action and the transcript, so an image reads the same (and
counts the same tokens) before and after it is replaced.
"""

from __future__ import annotations

import binascii
import hashlib
from typing import Any
from urllib.parse import urlsplit

import regex


def human_size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{round(n / 1024)} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def describe_base64(data: str) -> tuple[int, str]:
    """(decoded byte size, first 8 hex chars of the sha256 of the decoded bytes).

    Missing padding is tolerated; data that does not decode at all is hashed as a string and its
    size estimated from its length.
    """
    try:
        raw = binascii.a2b_base64(data + "==")  # extra padding is ignored when not needed
    except (binascii.Error, ValueError):
        size = len(data.rstrip("=")) * 3 // 4
        return size, hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return len(raw), hashlib.sha256(raw).hexdigest()[:8]


def image_placeholder_text(media_type: str | None, data: str | None = None, url: str | None = None) -> str:
    label = "image" if not media_type or media_type.startswith("image/") else "file"
    fields = [media_type or "unknown type"]
    if data is not None:
        size, digest = describe_base64(data)
        fields += [human_size(size), f"sha256:{digest}"]
    elif url:
        fields.append(_short_url(url))
    return f"[{label}: {', '.join(fields)}]"


def _short_url(url: str) -> str:
    """The URL without credentials, query or fragment (signed URLs carry tokens there)."""
    try:
        u = urlsplit(url)
        host = u.hostname or ""
        port = f":{u.port}" if u.port else ""
    except ValueError:
        return "url"
    out = f"{u.scheme}://{host}{port}{u.path}" if u.scheme else u.path
    out = regex.sub(r"[\"\\\]\s]", "", out)
    return out if len(out) <= 200 else out[:200] + "…"


def label_of(meta: dict[str, Any]) -> str:
    """The placeholder of an image part from its metadata (media type, base64 data or URL).

    Remembered in `meta["label"]`: the report, the rule and the transcript all ask for it, and a
    label costs a base64 decode and a sha256 of the image.
    """
    label = meta.get("label")
    if isinstance(label, str):
        return label
    data = meta.get("data") if isinstance(meta.get("data"), str) else None
    url = meta.get("url") if isinstance(meta.get("url"), str) else None
    meta["label"] = label = image_placeholder_text(meta.get("media_type"), data, url)
    return label
