"""What a value a secret pattern matched is: a placeholder or template, a name or a version, or a generated secret.

The checks a pattern's match must pass before it counts (:func:`valid`), and the generic keyword + entropy rule
(:data:`GENERIC`): gitleaks' generic-api-key rule with detect-secrets' keyword and entropy measures."""

from __future__ import annotations

import base64
import binascii
import re
from functools import lru_cache
from typing import Any

from detect_secrets.filters import heuristic

MARK = "REDACTED"
_PLACEHOLDER = re.compile(r"(?i)^(?:your|my|example|placeholder|changeme|xxx|<|\$|\{)")

# Generic keyword + entropy detection (gitleaks' generic-api-key rule, detect-secrets' keyword and high-entropy
# plugins combined): a value assigned to a name that says it is a credential - ``export SERVICE_TOKEN=…``,
# ``api_key: …``, ``"clientSecret": "…"``, ``X-Api-Key: …`` - with no vendor prefix. The name must hold a
# keyword; the value must look generated (see ``_generic_secret``), so ordinary identifiers, versions,
# dates, URLs, hashes named "key" and placeholders stay.
_STRONG_WORD = r"token|secret|passw(?:or)?d|pwd|passphrase|credentials?|creds|pass(?![a-z])"
_WEAK_WORD = r"key|auth"  # names such as cache_key or auth_method: the value must be base62-mixed
_GENERIC_NAME = rf"[A-Za-z0-9_.-]{{0,40}}?(?:{_STRONG_WORD}|{_WEAK_WORD})[A-Za-z0-9_.-]{{0,40}}"
GENERIC = re.compile(
    rf"(?i)(?<![A-Za-z0-9_.-])(?P<name>{_GENERIC_NAME})[\"']?[ \t]*(?::=|=>|=|:)[ \t]*[\"']?"
    r"(?P<value>[A-Za-z0-9_\-./+=~!@%^*]{16,256})(?![A-Za-z0-9_\-./+=~!@%^*])"
)
_STRONG = re.compile(rf"(?i){_STRONG_WORD}")
_HEXISH = re.compile(r"(?i)^[0-9a-f-]+$")
_WORDISH = re.compile(r"[a-z]+\d+[a-z]{0,3}")  # a word with a number in it: cl100k, sha256, utf8, v2beta
GENERIC_MIN_ENTROPY = 3.5  # bits per character (gitleaks' generic-api-key threshold)
GENERIC_MIXED_MIN_ENTROPY = 3.2  # for a value of upper case, lower case and digits


@lru_cache(maxsize=1)
def _entropy() -> Any:
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

    return Base64HighEntropyString().calculate_shannon_entropy


def _identifier_like(value: str) -> bool:
    """Words, numbers and short parts joined by ``-_./`` (``release-2024-01-15``, ``user_account_id``,
    ``v1.2.3-beta``, ``cl100k_base``): a name or a version, not a generated secret."""
    parts = [p for p in re.split(r"[-_./]+", value) if p]
    return all(p.isalpha() or p.isdigit() or len(p) <= 3 or _WORDISH.fullmatch(p) for p in parts)


def _generic_secret(name: str, value: str) -> bool:
    """Whether ``value``, assigned to ``name``, is a secret: the name holds a keyword (checked by the pattern),
    the value is no placeholder, template, indirect reference, sequence, identifier or version, holds a digit
    and a letter, and its Shannon entropy is high (detect-secrets' measure). A hex or UUID value counts only
    for a strong name (token, secret, password …): a ``cache_key`` or ``idempotency_key`` holds digests."""
    if _looks_like_placeholder(value) or _identifier_like(value):
        return False
    strong = bool(_STRONG.search(name))
    if _HEXISH.match(value):
        return strong and _entropy()(value) >= 3.0
    if not strong and not _mixed(value):
        return False
    entropy = _entropy()(value)
    return entropy >= GENERIC_MIN_ENTROPY or (_mixed(value) and entropy >= GENERIC_MIXED_MIN_ENTROPY)


def is_placeholder(value: str) -> bool:
    return MARK in value or bool(_PLACEHOLDER.match(value)) or heuristic.is_templated_secret(value)


def _looks_like_placeholder(value: str) -> bool:
    """For the generic assignment pattern: also demand a digit and a letter."""
    return (
        is_placeholder(value)
        or heuristic.is_sequential_string(value)
        or not (re.search(r"\d", value) and re.search(r"[A-Za-z]", value))
    )


def _mixed(value: str) -> bool:
    """Upper case, lower case and a digit: a generated key, not a word, a hex digest or a path."""
    return bool(re.search(r"[A-Z]", value) and re.search(r"[a-z]", value) and re.search(r"\d", value))


def valid(kind: str, match: re.Match[str], value: str) -> bool:
    """Checks a pattern's match must also pass before it counts as a secret."""
    if kind == "secret-assignment":
        return not _looks_like_placeholder(value)
    if kind == "generic-secret":
        return _generic_secret(match.group("name"), value)
    if kind == "aws-secret-key":
        return _mixed(value)
    if kind == "url-credentials":
        return not is_placeholder(value)
    if kind == "authorization-header":
        if is_placeholder(value):
            return False
        if match.group(1).lower() == "basic":  # base64 of user:password
            try:
                return b":" in base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
            except (binascii.Error, ValueError):
                return False
        return not _looks_like_placeholder(value)
    return True
