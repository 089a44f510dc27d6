"""Facts about apps' on-device data that both the simulated apps and the task code need.

Paths, file formats and page contents live here once, so a task that writes a file and the sim
app that shows it agree by construction. These modules import only `android_world.env.device`
and third-party packages: task code reads them without importing the simulated phone, and the
same facts hold on a real device over adb.
"""
