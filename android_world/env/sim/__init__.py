"""The simulated phone: `SimEnv` (an `AsyncEnv`), its device facts, apps, widgets and renderer."""

from android_world.env.sim.sim_env import SimEnv

__all__ = ["SimEnv"]
