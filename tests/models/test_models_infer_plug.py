"""infer is a contract module: importing it loads nothing of the plugin, and upstream's wrapper
names get their model client from the harness (`infer_clients.plug()`), not by importing one."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(PYTHONPATH=str(ROOT), OPENAI_API_KEY="sk-test-not-a-key")
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_infer_imports_nothing_of_the_plugin_not_even_inside_a_function():
    tree = ast.parse((ROOT / "android_world" / "agents" / "infer.py").read_text())
    imported = [
        alias.name if isinstance(node, ast.Import) else f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]
    assert imported and not [name for name in imported if "custom" in name or "celil" in name]


def test_an_unplugged_wrapper_name_says_what_to_call():
    done = _python(
        "from android_world.agents import infer\n"
        "try:\n"
        "    infer.Gpt4Wrapper('gpt-4o')\n"
        "except RuntimeError as exc:\n"
        "    print(exc)\n"
    )
    assert done.returncode == 0, done.stderr
    assert "infer_clients.plug()" in done.stdout


def test_plugged_wrapper_names_build_celil_clients():
    done = _python(
        "from android_world.agents import infer, infer_clients\n"
        "infer_clients.plug()\n"
        "wrapper = infer.Gpt4Wrapper('gpt-4o', max_retry=9)\n"
        "client = wrapper._backend\n"
        "print(type(client).__name__, client.role, client.model, client.max_retries,\n"
        "      client.max_output_tokens)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "OpenAICompatibleWrapper",
        "upstream_agent",
        "gpt-4o",
        "5",
        "1000",
    ]
