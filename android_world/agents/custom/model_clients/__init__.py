"""Model clients for Celil's roles, behind AndroidWorld's `infer.py` contract, one module per concern.

Every role talks to a model through a client whose one entry point is `call(ModelRequest) ->
CallResult` (client.py); the same client is an `infer.LlmWrapper` and `infer.MultimodalLlmWrapper`,
whatever serves it, so upstream's agents can use it too. Rules that hold everywhere:

- A model call never raises to its caller: a failure comes back as a `CallResult` whose text is
  `infer.ERROR_CALLING_LLM` and whose record's `error` says what went wrong and how to fix it
  (errors.py, faults.py). A replay miss may raise `ReplayMissError` in strict mode, on request.
- Every call goes through a `UsageLedger` (ledger.py: tokens, latency, retries, error, cost).
- Secrets come from environment variables only, and every text that leaves a client passes
  through `celil_secrets.redact()` first.
- A request has a total deadline (`deadline_s`) beside the read timeout (retries.py).

The modules: call_types (request and answer types), settings (a role's settings), ledger
(ledger, token estimate, prices), errors and faults (what failed), negotiation (what a server
accepts), payload (shared request pieces), retries (the send loop), gemini, ollama and
openai_compatible (one per backend), replay (record and replay), probes and resolution (which
model a role gets). Each SDK is loaded lazily, so the plugin runs in an upstream AndroidWorld
checkout with only the SDKs it uses.
"""
