"""Real emulator or phone over adb: `AdbEnv` and its `AdbDeviceController`.

The readiness check is `android_world.env.adb.check_device.check_device` (not re-exported here, so
`python -m android_world.env.adb.check_device` runs cleanly).
"""

from android_world.env.adb.adb_controller import AdbDeviceController
from android_world.env.adb.adb_env import AdbEnv
from android_world.env.adb.adb_runner import AdbConfig, AdbError, AdbRunner, EmulatorConfig

__all__ = [
    "AdbConfig",
    "AdbDeviceController",
    "AdbEnv",
    "AdbError",
    "AdbRunner",
    "EmulatorConfig",
]
