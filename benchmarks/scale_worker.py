"""What each scale-out benchmark worker runs: a simulated phone that takes `device_delay` seconds
per action, and the real Celil agent talking to a scripted model over HTTP.

The scripted model (scripted_model.py) must see its worker's own phone, so every worker serves
one on an ephemeral 127.0.0.1 port; the agent's OpenAI backend reaches it through the
benchmark's front server, which sleeps like a real model (`model_delay` per call) and forwards
the call to the URL the worker put in its API key variable. The agent therefore runs its real
code path (prompts, HTTP client, parsers, gate, ledger) and only the model's answers and its
latency are scripted.

Imported by worker processes and Ray actors by name, so it lives in its own module.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import scripted_model as sm

from android_world.agents import registry
from android_world.env.sim.sim_env import SimEnv

BACKEND_ENV = "CELIL_SCALE_BACKEND"  # the key the agent sends: this worker's scripted model URL
DEVICE_DELAY_ENV = "CELIL_SCALE_DEVICE_DELAY"
AGENT = "scale_celil"


class DelayedSimEnv(SimEnv):
    """The sim, as slow as a device: `delay` seconds per action (an emulator's ~0.5-1 s)."""

    def __init__(self, delay: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.delay = delay
        self.world: sm.ScriptedWorld | None = None
        self.server: sm.ScriptedServer | None = None

    def execute_action(self, action: Any) -> None:
        time.sleep(self.delay)
        if self.world is None:
            super().execute_action(action)
        else:
            self.world.run_action(super().execute_action, action)

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
        super().close()


def _agent(env: Any, context: Any = None, **kwargs: Any) -> Any:
    """The real CelilAgent; the scripted world learns each episode's task from it."""
    agent = registry.get_agent("celil_agent", env, context=context, **kwargs)
    agent.set_task = env.world.set_task  # the runner's hook (Celil itself has none)
    return agent


def make_env(cfg: Any) -> DelayedSimEnv:
    """One worker's phone and scripted model (the env factory given to the workers)."""
    env = DelayedSimEnv(
        float(os.environ.get(DEVICE_DELAY_ENV, "0")), seed=cfg.env.seed, render=cfg.env.render
    )
    env.world = sm.ScriptedWorld(env, sm.Rates(p=0.0, q=1.0))
    env.server = sm.ScriptedServer(env.world)
    os.environ[BACKEND_ENV] = env.server.url
    registry.register(AGENT, _agent)
    return env
