"""Re-export of the model clients (model_clients/) for the modules that still import this name."""

from android_world.agents.custom.celil_secrets import read_secret as read_secret
from android_world.agents.custom.celil_secrets import redact as redact
from android_world.agents.custom.model_clients.call_types import ModelRequest as ModelRequest
from android_world.agents.custom.model_clients.client import CelilModel as CelilModel
from android_world.agents.custom.model_clients.errors import ModelSetupError as ModelSetupError
from android_world.agents.custom.model_clients.gemini import gemini_key as gemini_key
from android_world.agents.custom.model_clients.ledger import UsageLedger as UsageLedger
from android_world.agents.custom.model_clients.probes import probe_ollama as probe_ollama
from android_world.agents.custom.model_clients.resolution import Resolution as Resolution
from android_world.agents.custom.model_clients.resolution import resolve_role as resolve_role
from android_world.agents.custom.model_clients.settings import (
    DEFAULT_OLLAMA_HOST as DEFAULT_OLLAMA_HOST,
)
from android_world.agents.custom.model_clients.settings import RoleSettings as RoleSettings
