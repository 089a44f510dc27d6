"""Start-up checks of the model servers a config names explicitly, before any episode runs.

`auto` probes a server before choosing it. An explicit backend used to be built without a look,
so a wrong URL ran the whole benchmark on failing calls (the planner's fallback plan and the
offline executor, scored under "openai:my-model") and only the end of the run said so. These
checks make an explicit backend fail at start-up as `auto` does: the first problem is one
`StartupCheckError` naming the config key at fault, the role, the server and what to do. They
send no model request (nothing is paid, nothing is loaded): a model list, a key in the
environment.
"""

from __future__ import annotations

import errno
import urllib.parse
from typing import Any

from android_world.agents.custom.celil_secrets import read_secret, redact
from android_world.agents.custom.model_clients.gemini import gemini_key
from android_world.agents.custom.model_clients.probes import probe_ollama
from android_world.agents.custom.model_clients.settings import DEFAULT_OLLAMA_HOST, RoleSettings

OPENAI_EXAMPLE_URL = "http://127.0.0.1:8000/v1"

# What to do, per kind of server problem; filled with the role, model and URL key.
_OPENAI_FIXES = {
    "start": "start it (e.g. `vllm serve {model}`) or fix {key}",
    "busy": "check that it is up and not busy, or raise models.probe_timeout_s",
    "key": "set models.{role}.api_key_env to the variable holding the server's key",
    "wait": "wait until it is ready, or fix the server",
    "model": "set models.{role}.model to one it serves",
    "url": "fix {key}: an OpenAI-compatible server answers under /v1, e.g. " + OPENAI_EXAMPLE_URL,
}
# A path the server does not have: what a wrong URL (a missing /v1, a web page, another
# service on the port) gets back, where an OpenAI-compatible server would answer.
_NO_SUCH_ENDPOINT = (404, 405, 501)


class StartupCheckError(ValueError):
    """A configured model that cannot work; `key` is the config key to fix (dotted path)."""

    def __init__(self, key: str, message: str):
        self.key = key
        self.message = redact(message)
        super().__init__(f"{key}: {self.message}")


def url_problem(url: str, scheme_optional: bool = False) -> str | None:
    """Why `url` cannot be a server's base URL (None when it can); Ollama also takes host:port."""
    text = url.strip()
    if text != url or any(c.isspace() for c in url):
        return "it contains blank space"
    if scheme_optional and "://" not in text:
        text = f"http://{text}"
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018  (raises on a port that is not a number in range)
    except ValueError as error:
        return str(error)
    if parts.scheme not in ("http", "https"):
        return "it does not start with http:// or https://"
    if not parts.hostname:
        return "it names no host"
    return None


def _url_key(settings: RoleSettings, backend: str) -> str:
    """The config key the role's URL for `backend` came from."""
    if settings.backend == backend and settings.base_url:
        return f"models.{settings.role}.base_url"
    return "models.openai_base_url" if backend == "openai" else "models.ollama_host"


def _transport_reason(error: Exception) -> str:
    cause: Any = error
    while cause is not None:
        if isinstance(cause, ConnectionRefusedError) or (
            isinstance(cause, OSError) and cause.errno == errno.ECONNREFUSED
        ):
            return "connection refused"
        cause = cause.__cause__ or cause.__context__
    text = str(error).lower()
    if "refused" in text:
        return "connection refused"
    if "name or service not known" in text or "nodename nor servname" in text:
        return "unknown host"
    return type(error).__name__


def openai_server_problem(
    base_url: str, model: str, api_key_env: str | None, timeout_s: float
) -> tuple[str, str] | None:
    """(what is wrong, which fix of `_OPENAI_FIXES`) for `model` on an OpenAI-compatible server,
    or None when nothing is.

    GET /models answers the question without a model request. A server without a model list (a
    minimal one) must at least have the chat endpoint: an empty POST to it is refused as a bad
    request by a real server, with nothing loaded or paid, while a wrong URL (a missing /v1,
    another service on the port) answers "no such path" there too. Taking every 404 as up let
    such a URL run a whole benchmark on failing calls.
    """
    import httpx

    headers = {}
    key = read_secret(api_key_env) if api_key_env else None
    if key:
        headers["Authorization"] = f"Bearer {key}"
    root = base_url.rstrip("/")
    try:
        response = httpx.get(f"{root}/models", timeout=timeout_s, headers=headers)
    except httpx.TimeoutException:
        return f"did not answer within {timeout_s:g} s", "busy"
    except httpx.HTTPError as error:
        return f"is not reachable ({_transport_reason(error)})", "start"
    status = response.status_code
    if status in (401, 403):
        return f"refused the key (HTTP {status})", "key"
    if status >= 500 and status not in _NO_SUCH_ENDPOINT:
        loading = " (still loading its model?)" if status == 503 else ""
        return f"answered HTTP {status}{loading}", "wait"
    served = _model_ids(response) if status < 400 else None
    if served is None:
        return _chat_endpoint_problem(root, headers, timeout_s, f"HTTP {status}")
    if served and model not in served:
        listed = ", ".join(served[:5]) + (", ..." if len(served) > 5 else "")
        return f"does not serve '{model}' (it serves {listed})", "model"
    return None


def _model_ids(response: Any) -> list[str] | None:
    """The ids of an OpenAI model list, or None when the body is not one (an HTML page)."""
    try:
        data = response.json().get("data")
    except (ValueError, AttributeError):
        return None
    if not isinstance(data, list):
        return None
    return [str(m.get("id", "")) for m in data if isinstance(m, dict)]


def _chat_endpoint_problem(
    root: str, headers: dict[str, str], timeout_s: float, models_answer: str
) -> tuple[str, str] | None:
    """Whether a server with no usable model list has a chat endpoint (see the caller)."""
    import httpx

    try:
        response = httpx.post(
            f"{root}/chat/completions", json={}, timeout=timeout_s, headers=headers
        )
    except httpx.HTTPError:
        # It answered GET a moment ago; a hand-written server may drop an empty request
        # rather than refuse it. Only a plain "no such path" proves the URL wrong.
        return None
    if response.status_code in (401, 403):
        return f"refused the key (HTTP {response.status_code})", "key"
    if response.status_code in _NO_SUCH_ENDPOINT:
        return (
            f"has no OpenAI-compatible API there (GET /models: {models_answer}, "
            f"POST /chat/completions: HTTP {response.status_code})",
            "url",
        )
    return None


def _check_openai(settings: RoleSettings, probed: dict[tuple, Any]) -> None:
    role = settings.role
    url = settings.url_for("openai")
    if not url:
        raise StartupCheckError(
            f"models.{role}.backend",
            f"{role} uses backend openai, which needs its server's URL: set "
            f"models.openai_base_url (or models.{role}.base_url), e.g. {OPENAI_EXAMPLE_URL}",
        )
    key = _url_key(settings, "openai")
    problem = url_problem(url)
    if problem:
        raise StartupCheckError(
            key, f"{url!r} is not a server URL ({problem}); write it like {OPENAI_EXAMPLE_URL}"
        )
    model = settings.model_for("openai")
    if not model:
        raise StartupCheckError(
            f"models.{role}.model",
            f"{role} uses backend openai, which needs the name of the model the server serves "
            "(what `vllm serve` was given, llama-server's --alias)",
        )
    cache_key = ("openai", url, model, settings.api_key_env)
    if cache_key not in probed:
        probed[cache_key] = openai_server_problem(
            url, model, settings.api_key_env, settings.probe_timeout_s
        )
    found = probed[cache_key]
    if found is not None:
        what, fix = found
        todo = _OPENAI_FIXES[fix].format(role=role, model=model, key=key)
        raise StartupCheckError(
            key, f"{role} (backend openai, model {model}): the server at {url} {what}; {todo}"
        )


def _check_ollama(settings: RoleSettings, probed: dict[tuple, Any]) -> None:
    role = settings.role
    host = settings.url_for("ollama") or DEFAULT_OLLAMA_HOST
    key = _url_key(settings, "ollama")
    problem = url_problem(host, scheme_optional=True)
    if problem:
        raise StartupCheckError(
            key, f"{host!r} is not a server URL ({problem}); write it like http://127.0.0.1:11434"
        )
    model = settings.model_for("ollama")
    cache_key = ("ollama", host, model)
    if cache_key not in probed:
        probed[cache_key] = probe_ollama(host, model, settings.probe_timeout_s)
    ok, why = probed[cache_key]
    if not ok:
        raise StartupCheckError(key, f"{role} (backend ollama, model {model}): {why}")


def _check_gemini(settings: RoleSettings) -> None:
    _, key_env = gemini_key(settings.api_key_env)
    if key_env:
        return
    role = settings.role
    if settings.api_key_env:
        raise StartupCheckError(
            f"models.{role}.api_key_env",
            f"{role} uses backend gemini and its key variable {settings.api_key_env} is not set; "
            f"export {settings.api_key_env}=<your key>",
        )
    raise StartupCheckError(
        f"models.{role}.backend",
        f"{role} uses backend gemini, which needs a key: export GOOGLE_API_KEY (or "
        f"GEMINI_API_KEY), or name your variable in models.{role}.api_key_env",
    )


def check_role(settings: RoleSettings, probed: dict[tuple, Any]) -> None:
    """Raise StartupCheckError when the role's explicit backend cannot work; `probed` caches
    probes across roles (three roles on one server cost one request). `auto`, `replay` and
    `offline` have nothing to check here (`resolve_role` probes `auto` itself)."""
    if settings.backend == "openai":
        _check_openai(settings, probed)
    elif settings.backend == "ollama":
        _check_ollama(settings, probed)
    elif settings.backend == "gemini":
        _check_gemini(settings)
