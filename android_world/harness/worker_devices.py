"""Each worker's own device in a parallel run: its config (phone, emulator ports, AVD instance),
the checks before any worker starts, and the emulator a killed worker leaves behind."""

from __future__ import annotations

import os
from typing import Any

from android_world.harness import config as config_lib
from android_world.harness.parallel_jobs import (
    ParallelError,
)


def worker_config(cfg: config_lib.CelilConfig, slot: int) -> config_lib.CelilConfig:
    """Worker `slot`'s config: its own phone (`env.adb.serials[slot]`) or emulator (console port
    +2·slot, gRPC port +slot, its own AVD instance); the sim needs nothing per worker."""
    if cfg.env.type != "adb":
        return cfg
    adb = cfg.env.adb
    update: dict[str, Any] = {}
    if adb.serials:
        serial = adb.serials[slot]
        update["serial"] = serial
        port = serial.removeprefix("emulator-")
        if port.isdigit():
            update["console_port"] = int(port)
    else:
        update["console_port"] = adb.console_port + 2 * slot
        update["serial"] = "" if not adb.serial else adb.serial
        if adb.serial and slot:
            raise ParallelError(
                "--workers with env.adb.serial: list one device per worker in env.adb.serials"
            )
    if adb.emulator.avd:
        emu = adb.emulator
        extra = list(emu.extra_args)
        avd = emu.avd
        if emu.instances == "read_only" and "-read-only" not in extra:
            extra.append("-read-only")
        elif emu.instances == "clone":
            avd = clone_name(emu.avd, slot)
        update["emulator"] = emu.model_copy(
            update={"grpc_port": emu.grpc_port + slot, "extra_args": extra, "avd": avd}
        )
    env = cfg.env.model_copy(update={"adb": adb.model_copy(update=update)})
    return cfg.model_copy(update={"env": env})


def adb_server_port(cfg: config_lib.CelilConfig, slot: int) -> int | None:
    """Worker `slot`'s own adb server port, when `env.adb.adb_server_port` asks for them."""
    if cfg.env.type != "adb" or not cfg.env.adb.adb_server_port:
        return None
    return cfg.env.adb.adb_server_port + slot


def clone_name(avd: str, slot: int) -> str:
    return f"{avd}_w{slot}"


def check_devices(cfg: config_lib.CelilConfig, workers: int) -> None:
    """Bad device settings for N workers, caught before any worker starts."""
    if cfg.env.type != "adb":
        return
    adb = cfg.env.adb
    if adb.serials and len(adb.serials) < workers:
        raise ParallelError(
            f"--workers {workers} needs {workers} devices but env.adb.serials lists "
            f"{len(adb.serials)}: add serials or lower --workers"
        )
    if adb.serials and len(set(adb.serials)) != len(adb.serials):
        raise ParallelError("env.adb.serials lists a device twice: each worker needs its own")
    if adb.serial and not adb.serials and workers > 1:
        raise ParallelError(
            "--workers with env.adb.serial: list one device per worker in env.adb.serials"
        )
    ports = [adb.console_port + 2 * i for i in range(workers)]
    if not adb.serials and ports[-1] > 5682:
        raise ParallelError(
            f"--workers {workers}: emulator console ports {ports[0]}..{ports[-1]} pass 5682, "
            "the last port adb scans; lower --workers or env.adb.console_port"
        )


def prepare_devices(cfg: config_lib.CelilConfig, workers: int) -> None:
    """Check the device settings and make the per-worker AVD copies `instances: clone` needs."""
    check_devices(cfg, workers)
    emu = cfg.env.adb.emulator
    if cfg.env.type != "adb" or not emu.avd or emu.instances != "clone" or cfg.env.adb.serials:
        return
    from android_world.env.adb import emulator_pool

    try:
        emulator_pool.prepare_clones(emu.avd, workers, clone_name)
    except (emulator_pool.AvdCloneError, OSError) as exc:
        raise ParallelError(f"env.adb.emulator.instances: clone: {exc}") from None


def reap_local_emulator(info: dict[str, Any]) -> None:
    """Stop the emulator a killed worker had started on this host (it cannot stop it itself)."""
    if info.get("emulator_pid") and info.get("host") == os.uname().nodename:
        from android_world.env.adb import emulator_pool

        emulator_pool.reap(int(info["emulator_pid"]))
