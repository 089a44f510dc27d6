"""The `models:` config section: the schema lives in the plugin (`agents/custom/celil_model_config`)
so the plugin's own factory reads the same section inside upstream; the harness keeps this name."""

from android_world.agents.custom.celil_model_config import (
    DEFAULT_PRICES,
    ROLE_DEFAULTS,
    Backend,
    ModelsConfig,
    PriceConfig,
    RoleModelConfig,
)

__all__ = [
    "DEFAULT_PRICES",
    "ROLE_DEFAULTS",
    "Backend",
    "ModelsConfig",
    "PriceConfig",
    "RoleModelConfig",
]
