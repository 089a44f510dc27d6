"""Test support shared by the tests: doubles and helpers that are not product code.

`fake_adb` is a fake `adb` executable over a simulated phone (the adb backend's tests run against
it). Tests import this package as `support` (tests/ is on pytest's `pythonpath`).
"""
