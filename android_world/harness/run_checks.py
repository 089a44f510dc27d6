"""`--check_device` / `--check_models`: check instead of running a benchmark."""

from __future__ import annotations

from absl import flags

from android_world.harness import config as config_lib
from android_world.harness.run_console import UsageError, first_line

FLAGS = flags.FLAGS


def run_checks(cfg: config_lib.CelilConfig) -> int:
    """`--check_device` / `--check_models`: print their tables; a failed check (1) wins over
    "no model to check" (check_models.EXIT_NO_MODEL), which wins over 0."""
    codes = [0]
    if FLAGS.check_device:
        from android_world.env.adb.adb_runner import AdbError
        from android_world.env.adb.check_device import check_device

        try:
            codes.append(check_device(cfg.env.adb.to_mapping(), log=print))
        except (AdbError, ValueError) as exc:
            raise UsageError(f"--check_device: {first_line(exc)}") from None
    if FLAGS.check_models:
        from android_world.harness.check_models import check_models

        conf = cfg.agent.configurations.get(cfg.agent.active_agent)
        executor_format = str((conf.kwargs() if conf else {}).get("executor_format", "uitars"))
        codes.append(
            check_models(cfg.models, log=print, wide=FLAGS.wide, executor_format=executor_format)
        )
    return 1 if 1 in codes else max(codes)
