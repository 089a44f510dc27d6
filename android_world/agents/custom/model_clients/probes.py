"""Is a local model server up, and does it serve the model? (`backend: auto` asks before it picks
one.) Short timeouts; the answer is a human reason that names the fix."""

from __future__ import annotations

from android_world.agents.custom.celil_secrets import read_secret


def _normalise_tag(name: str) -> str:
    return name if ":" in name.split("/")[-1] else f"{name}:latest"


def probe_ollama(host: str, model: str, timeout_s: float = 2.0) -> tuple[bool, str]:
    """Is the Ollama server up and is `model` pulled? (ok, human reason naming the fix)."""
    import httpx

    url = host.rstrip("/")
    if "://" not in url:
        url = f"http://{url}"
    try:
        response = httpx.get(f"{url}/api/tags", timeout=timeout_s)
        response.raise_for_status()
        names = {
            _normalise_tag(m.get("name") or m.get("model") or "")
            for m in response.json().get("models", [])
        }
    except (httpx.HTTPError, ValueError) as exc:
        return (
            False,
            f"Ollama at {host} not reachable ({type(exc).__name__}); start it with `ollama serve`",
        )
    if not model:
        return False, f"Ollama at {host} is up but no ollama_model is configured"
    if _normalise_tag(model) not in names:
        return (
            False,
            f"Ollama at {host} is up but '{model}' is not pulled; run `ollama pull {model}`",
        )
    return True, f"Ollama at {host} is up and '{model}' is pulled"


def probe_openai(
    base_url: str, model: str, api_key_env: str | None, timeout_s: float = 2.0
) -> tuple[bool, str, str]:
    """Is the OpenAI-compatible server up (GET /models)? (ok, reason, model to use).

    With no model configured we take the first one the server lists, which is what a single-model
    local server (LM Studio, llama.cpp, vLLM) expects.
    """
    import httpx

    headers = {}
    key = read_secret(api_key_env) if api_key_env else None
    if key:
        headers["Authorization"] = f"Bearer {key}"
    try:
        response = httpx.get(f"{base_url.rstrip('/')}/models", timeout=timeout_s, headers=headers)
        response.raise_for_status()
        served = [m.get("id", "") for m in response.json().get("data", [])]
    except httpx.HTTPStatusError as exc:
        status = exc.response.status_code
        hint = " (still loading its model? wait and try again)" if status == 503 else ""
        return False, f"OpenAI-compatible server at {base_url} answered HTTP {status}{hint}", model
    except httpx.TimeoutException:
        return (
            False,
            f"OpenAI-compatible server at {base_url} did not answer within {timeout_s:g}s "
            "(busy? raise models.probe_timeout_s)",
            model,
        )
    except (httpx.HTTPError, ValueError) as exc:
        return (
            False,
            f"OpenAI-compatible server at {base_url} not reachable ({type(exc).__name__})",
            model,
        )
    if not model:
        if not served:
            return False, f"OpenAI-compatible server at {base_url} serves no models", model
        return (
            True,
            f"OpenAI-compatible server at {base_url} is up; using its first model",
            served[0],
        )
    if served and model not in served:
        return (
            False,
            f"OpenAI-compatible server at {base_url} does not serve '{model}' (serves {', '.join(served[:3])})",
            model,
        )
    return True, f"OpenAI-compatible server at {base_url} is up and serves '{model}'", model
