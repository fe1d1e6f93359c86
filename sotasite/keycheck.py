"""Is a secret key fit for production?

Django signs sessions, password-reset links and CSRF tokens with SECRET_KEY;
a key that can be guessed lets anyone forge them. Django's own deploy check
only warns; production here refuses to start (settings.py).
"""

import zlib

# Only for a local run: sessions signed with it are worthless elsewhere.
LOCAL_DEFAULT = "insecure-local-only-key-not-for-production-use-0123456789"

MIN_LENGTH = 50
MIN_DISTINCT = 10
# Words that mark a key someone meant to replace (compared in lower case).
PLACEHOLDERS = (
    "insecure",
    "changeme",
    "change-me",
    "change_me",
    "replaceme",
    "replace-me",
    "placeholder",
    "your-secret",
    "secret-key-here",
)
# How far the first 64 characters may compress: random keys (hex, base64,
# Django's get_random_secret_key) keep 85% or more of their size; a key
# padded with one character or built on a repeated phrase keeps under half.
MIN_COMPRESSED_SHARE = 0.5
SAMPLE = 64


def _shortest_period(text):
    """The length of the shortest piece whose repetition spells `text` (KMP's failure table)."""
    failure = [0] * len(text)
    matched = 0
    for index in range(1, len(text)):
        while matched and text[index] != text[matched]:
            matched = failure[matched - 1]
        if text[index] == text[matched]:
            matched += 1
        failure[index] = matched
    return len(text) - failure[-1]


def weakness(key):
    """Why `key` is not fit for production, or None when it is.

    The reason never quotes the key, so it can be shown and logged.
    """
    lowered = key.lower()
    if key == LOCAL_DEFAULT or lowered.startswith("django-insecure-"):
        return "it is a development key, not a secret (the local default or a django-insecure- key)"
    for word in PLACEHOLDERS:
        if word in lowered:
            return f"it contains {word!r}, the mark of a placeholder"
    if len(key) < MIN_LENGTH:
        return f"it has {len(key)} characters, fewer than {MIN_LENGTH}"
    if len(set(key)) < MIN_DISTINCT:
        return f"it uses {len(set(key))} distinct characters, fewer than {MIN_DISTINCT}"
    period = _shortest_period(key)
    if period * 3 <= len(key) * 2:
        return f"it repeats a piece of {period} characters"
    sample = key[:SAMPLE].encode()
    if len(zlib.compress(sample, 9)) < len(sample) * MIN_COMPRESSED_SHARE:
        return "it is mostly a repeated pattern"
    return None
