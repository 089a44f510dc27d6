"""What the run command prints: its console lines (redacted like every file), the
one-line usage errors, and the third-party logs it quiets."""

from __future__ import annotations

import logging
import os
import sys

from android_world.agents.custom.celil_secrets import redact


class UsageError(Exception):
    """Bad input: printed as one line, exit code 2."""


def first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def agent_line(config_name: str, registry_name: str) -> str:
    """The console names the agent that runs: a config that silently ran another agent cost users
    whole runs."""
    if config_name == registry_name:
        return f"Agent: {config_name}"
    return f"Agent: {config_name} (registry name {registry_name})"


def log(message: str) -> None:
    """Console lines of the run (the banner names model servers): redacted like every file."""
    print(redact(message), file=sys.stderr)


class _RedactingFilter(logging.Filter):
    """Log records pass the same redaction (`--verbosity=1` logs every request's URL)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def redact_logs() -> None:
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, _RedactingFilter) for f in handler.filters):
            handler.addFilter(_RedactingFilter())


# Model SDKs log every request at INFO ("HTTP Request: POST ...", "AFC is enabled ..."): most of
# a run's console otherwise. Their warnings and errors still show.
_CHATTY_LOGGERS = (
    "httpx",
    "httpx2",  # what the openai SDK (3.x) sends its requests with
    "httpcore",
    "httpcore2",
    "google_genai",
    "google.genai",
    "openai",
    "ollama",
    "urllib3",
)


def quiet_third_party_logs() -> None:
    """Off with `--verbosity=1` (absl's flag), which shows every request for debugging."""
    from absl import logging as absl_logging

    if absl_logging.get_verbosity() >= 1:
        return
    for name in _CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)


def print_listing(text: str) -> None:
    """A listing piped into `head` or `grep -m1` ends quietly when the reader stops reading."""
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
