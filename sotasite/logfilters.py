"""Keep secrets out of the logs, whatever a log call or a traceback carries."""

import logging

from django.conf import settings

REDACTED = "[redacted]"


def secrets():
    """The secret key and every database password this process knows."""
    found = {settings.SECRET_KEY}
    for config in settings.DATABASES.values():
        found.add(config.get("PASSWORD") or "")
    return sorted((s for s in found if len(s) >= 4), key=len, reverse=True)


class RedactSecrets(logging.Filter):
    """Replace secrets in a record's message and traceback before any handler writes it."""

    def filter(self, record):
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        for secret in secrets():
            message = message.replace(secret, REDACTED)
            if record.exc_text:
                record.exc_text = record.exc_text.replace(secret, REDACTED)
        record.msg, record.args = message, None
        return True
