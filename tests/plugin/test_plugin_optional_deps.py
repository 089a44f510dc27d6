"""Optional packages of the plugin (pytesseract): a missing one degrades with one warning."""

from __future__ import annotations

import builtins
import logging
import sys

import pytest

from android_world.agents.custom import celil_optional
from android_world.agents.custom.memory import celil_episodic
from android_world.agents.custom.roles import celil_perception


@pytest.fixture(autouse=True)
def fresh_warnings():
    celil_optional.forget_warnings()
    yield
    celil_optional.forget_warnings()


def _hide_module(monkeypatch, name: str) -> None:
    """Make `import name` fail as if the package were not installed."""
    real_import = builtins.__import__

    def fake_import(module, *args, **kwargs):
        if module == name or module.startswith(name + "."):
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        return real_import(module, *args, **kwargs)

    monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(builtins, "__import__", fake_import)


def _celil_warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "celil"]


# --- episodic memory needs no optional package ------------------------------------------------


def test_episodic_memory_works_without_filelock_and_warns_nothing(tmp_path, monkeypatch, caplog):
    _hide_module(monkeypatch, "filelock")
    caplog.set_level(logging.WARNING, logger="celil")
    first = celil_episodic.EpisodicMemory(tmp_path / "memory.db")
    entry = first.add_successful_plan(
        "Turn Wi-Fi on", ["Open the Settings app", "Turn on Wi-Fi"], app_names=["settings"]
    )
    second = celil_episodic.EpisodicMemory(tmp_path / "memory.db")
    found = second.find_similar_task("Turn Wi-Fi on", app_names=["settings"])
    assert found is not None and found.entry_id == entry
    assert _celil_warnings(caplog) == []


# --- OCR ---------------------------------------------------------------------------------------


def test_ocr_auto_without_pytesseract_turns_ocr_off_with_one_warning(monkeypatch, caplog):
    _hide_module(monkeypatch, "pytesseract")
    caplog.set_level(logging.WARNING, logger="celil")
    first = celil_perception.PerceptionModule(ocr="auto")
    second = celil_perception.PerceptionModule(ocr="auto")
    for module in (first, second):
        assert module.wants_ocr([]) is False
        assert "pytesseract is not installed" in module.ocr_disabled_reason
    warnings = _celil_warnings(caplog)
    assert len(warnings) == 1 and "pip install pytesseract" in warnings[0]
    assert "OCR is off" in warnings[0]


def test_ocr_auto_without_the_tesseract_binary_turns_ocr_off(monkeypatch, caplog):
    pytest.importorskip("pytesseract")
    caplog.set_level(logging.WARNING, logger="celil")
    module = celil_perception.PerceptionModule(ocr="auto", tesseract_cmd="/nonexistent/tesseract")
    assert module.wants_ocr([]) is False
    assert "apt-get install tesseract-ocr" in module.ocr_disabled_reason
    assert len(_celil_warnings(caplog)) == 1


def test_ocr_always_without_pytesseract_is_a_startup_error(monkeypatch):
    _hide_module(monkeypatch, "pytesseract")
    with pytest.raises(celil_perception.PerceptionError, match="pip install pytesseract"):
        celil_perception.PerceptionModule(ocr="always")
    assert celil_perception.PerceptionModule(ocr="off").ocr_disabled_reason is None
