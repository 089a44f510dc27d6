"""Install the Celil plugin into an upstream AndroidWorld checkout (or take it out again).

    python -m android_world.agents.custom.install /path/to/android_world            # install
    python -m android_world.agents.custom.install /path/to/android_world --uninstall

Runs from this harness or from the copied folder (`python android_world/agents/custom/install.py
.` inside upstream), and needs nothing but the standard library, so it works before any package
is installed. It
1. copies this folder to `<upstream>/android_world/agents/custom/`;
2. adds `celil_agent` to upstream's run.py: a `--celil_config` flag (default $CELIL_CONFIG) and a
   branch of `_get_agent`'s if/elif chain that builds the agent with `factory.create_agent_or_exit`;
3. writes `<upstream>/requirements-celil.txt`: the packages the plugin needs beyond upstream's,
   leaving out what upstream pins (its pins win) after checking each pin fits the plugin.

Installing twice gives the same files; `--uninstall` restores run.py byte for byte and removes the
folder and the requirements file. The run.py edits are found with `ast`, so a run.py whose agent
selection does not have upstream's shape is left untouched with a one-line error (exit 2).
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

PLUGIN_DIR = Path(__file__).resolve().parent
TARGET_PARTS = ("android_world", "agents", "custom")
REQUIREMENTS_NAME = "requirements-celil.txt"

BEGIN = "# celil-plugin: begin"
END = "# celil-plugin: end"
# A custom/ folder holding one of these is the plugin's (this layout or the flat one before it),
# safe to replace.
MARKER_FILES = ("loop/celil_agent.py", "celil_agent.py")
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")


def _is_plugin(folder: Path) -> bool:
    return any((folder / marker).is_file() for marker in MARKER_FILES)


FLAG_BLOCK = f"""{BEGIN} (python -m android_world.agents.custom.install; --uninstall removes it)
_CELIL_CONFIG = flags.DEFINE_string(
    'celil_config',
    os.environ.get('CELIL_CONFIG', ''),
    'Celil YAML (models: and celil_agent: sections) for --agent_name=celil_agent.',
)
{END}
"""


def branch_block(indent: str = "  ", body: str = "    ") -> str:
    """The `celil_agent` branch, indented like run.py's own chain (`indent`: the `elif` line's,
    `body`: its statements')."""
    return (
        f"{indent}{BEGIN}\n"
        f"{indent}elif _AGENT_NAME.value == 'celil_agent':\n"
        f"{body}from android_world.agents.custom import factory as celil_factory"
        "  # pylint: disable=g-import-not-at-top\n\n"
        f"{body}agent = celil_factory.create_agent_or_exit(env, _CELIL_CONFIG.value or None)\n"
        f"{indent}{END}\n"
    )


@dataclass(frozen=True)
class Requirement:
    """One package the plugin needs: `low <= version < high` (high None: no upper bound)."""

    name: str
    low: str
    high: str | None = None
    why: str = ""
    optional: bool = False

    def line(self) -> str:
        spec = f"{self.name}>={self.low}" + (f",<{self.high}" if self.high else "")
        text = f"{spec:<28} # {self.why}" if self.why else spec
        return f"# {text}" if self.optional else text

    def allows(self, version: str) -> bool:
        return _version(version) >= _version(self.low) and (
            self.high is None or _version(version) < _version(self.high)
        )


# What the plugin imports beyond the standard library, with the versions it works with.
REQUIREMENTS = (
    Requirement("numpy", "1.23", None, "screenshots"),
    Requirement("pillow", "9.0", None, "PNG encoding of screenshots"),
    Requirement("absl-py", "1.0", None, "upstream's own"),
    Requirement("pydantic", "2.7", "3", "config and memory schemas"),
    Requirement("PyYAML", "6.0", "7", "the Celil YAML"),
    Requirement("httpx", "0.27", "1", "server probes"),
    Requirement("google-genai", "1.0", None, "backend: gemini"),
    Requirement("ollama", "0.4", None, "backend: ollama"),
    Requirement("openai", "1.40", None, "backend: openai (OpenAI-compatible servers)"),
    Requirement("pytesseract", "0.3.10", None, "optional: OCR, else OCR off", optional=True),
)


class InstallError(Exception):
    """The checkout cannot take the plugin as it is; nothing was changed."""


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split("."):
        digits = re.match(r"\d+", piece)
        if not digits:
            break
        parts.append(int(digits.group()))
    return tuple(parts)


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def upstream_pins(requirements_text: str) -> dict[str, str]:
    """`name==version` lines of upstream's requirements.txt, by normalised name."""
    pins = {}
    for raw in requirements_text.splitlines():
        line = raw.split("#", 1)[0].strip()
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*(?:\[[^\]]*\])?\s*==\s*([\w.]+)$", line)
        if match:
            pins[_normal(match.group(1))] = match.group(2)
    return pins


def requirements_text(pins: dict[str, str]) -> str:
    """The extra requirements, leaving each package upstream pins to upstream's pin.

    Raises InstallError when a pin is outside what the plugin works with.
    """
    lines = [
        "# Packages the Celil plugin (android_world/agents/custom) needs beyond upstream's.",
        "# Written by python -m android_world.agents.custom.install; install both files together:",
        "#   pip install -r requirements.txt -r requirements-celil.txt",
    ]
    kept = []
    for requirement in REQUIREMENTS:
        pinned = pins.get(_normal(requirement.name))
        if pinned is None:
            lines.append(requirement.line())
            continue
        if not requirement.allows(pinned):
            raise InstallError(
                f"upstream pins {requirement.name}=={pinned} but the plugin needs "
                f"{requirement.line().lstrip('# ').split()[0]}"
            )
        kept.append(f"{requirement.name}=={pinned}")
    if kept:
        lines.append("# Upstream's pins, which the plugin works with: " + ", ".join(kept))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------------
# run.py
# --------------------------------------------------------------------------------------------------


def remove_blocks(text: str) -> str:
    """run.py without the installer's blocks (each from its BEGIN line through its END line)."""
    out: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        if line.strip().startswith(BEGIN):
            inside = True
            continue
        if inside:
            if line.strip().startswith(END):
                inside = False
            continue
        out.append(line)
    if inside:
        raise InstallError(f"run.py has '{BEGIN}' without '{END}'; fix it by hand")
    return "".join(out)


def _insertion_lines(tree: ast.Module) -> tuple[int, int, str]:
    """(line after `_AGENT_NAME = flags.DEFINE_string(...)`, line of `if not agent:` in
    `_get_agent`), both 0-based, where the flag and the branch go, and the branch's text."""
    flag_end = None
    branch_at = None
    block = ""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "_AGENT_NAME" for t in node.targets
        ):
            flag_end = node.end_lineno
        if isinstance(node, ast.FunctionDef) and node.name == "_get_agent":
            for index, statement in enumerate(node.body):
                test = getattr(statement, "test", None)
                if (
                    isinstance(statement, ast.If)
                    and isinstance(test, ast.UnaryOp)
                    and isinstance(test.op, ast.Not)
                    and isinstance(test.operand, ast.Name)
                    and test.operand.id == "agent"
                    and index > 0
                    and isinstance(node.body[index - 1], ast.If)
                ):
                    branch_at = statement.lineno - 1
                    chain = node.body[index - 1]
                    block = branch_block(" " * statement.col_offset, " " * chain.body[0].col_offset)
    if flag_end is None:
        raise InstallError("run.py defines no _AGENT_NAME flag; is this upstream AndroidWorld?")
    if branch_at is None:
        raise InstallError(
            "run.py's _get_agent has no if/elif agent chain followed by `if not agent:`; "
            "add celil_agent by hand (see docs/UPSTREAM.md in Celil)"
        )
    return flag_end, branch_at, block


def patch_run_py(text: str) -> str:
    """run.py with the flag and the `celil_agent` branch (replacing any earlier install's)."""
    clean = _unpatch(text)
    try:
        tree = ast.parse(clean)
    except SyntaxError as error:
        raise InstallError(f"run.py does not parse (line {error.lineno}): {error.msg}") from None
    flag_end, branch_at, block = _insertion_lines(tree)
    lines = clean.splitlines(keepends=True)
    patched = [*lines[:flag_end], "\n", FLAG_BLOCK]
    patched += [*lines[flag_end:branch_at], block, *lines[branch_at:]]
    result = "".join(patched)
    if "import os\n" not in clean:
        raise InstallError("run.py does not `import os`, which the --celil_config default needs")
    try:
        ast.parse(result)
    except SyntaxError as error:
        raise InstallError(
            f"adding celil_agent would break run.py (line {error.lineno}: {error.msg}); "
            "add it by hand (see docs/UPSTREAM.md in Celil)"
        ) from None
    return result


def _unpatch(text: str) -> str:
    """Remove the blocks and the blank line the flag block added after _AGENT_NAME."""
    return remove_blocks(text.replace(f"\n\n{BEGIN} (python", f"\n{BEGIN} (python", 1))


# --------------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------------


def _write_atomic(path: Path, text: str) -> None:
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp", newline=""
    ) as handle:
        handle.write(text)
    Path(handle.name).replace(path)


def _check_checkout(root: Path) -> Path:
    run_py = root / "run.py"
    agents = root.joinpath(*TARGET_PARTS[:-1])
    if not run_py.is_file() or not (agents / "base_agent.py").is_file():
        raise InstallError(
            f"{root} is not an AndroidWorld checkout (expected run.py and "
            "android_world/agents/base_agent.py)"
        )
    return run_py


def _copy_plugin(target: Path) -> None:
    if target.resolve() == PLUGIN_DIR:
        return  # running from the installed copy: it is already in place
    if target.exists() and not _is_plugin(target):
        raise InstallError(f"{target} exists and is not the Celil plugin; move it away first")
    staging = target.with_name(target.name + ".celil-new")
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(PLUGIN_DIR, staging, ignore=SKIP)
    shutil.rmtree(target, ignore_errors=True)
    staging.replace(target)


def _pins_of(root: Path) -> dict[str, str]:
    requirements = root / "requirements.txt"
    if not requirements.is_file():
        return {}
    return upstream_pins(requirements.read_text(encoding="utf-8"))


def install(root: Path) -> list[str]:
    """Install into the checkout at `root`; returns what was done, one line each."""
    run_py = _check_checkout(root)
    original = run_py.read_text(encoding="utf-8")
    patched = patch_run_py(original)
    extra = requirements_text(_pins_of(root))
    target = root.joinpath(*TARGET_PARTS)
    _copy_plugin(target)
    if patched != original:
        _write_atomic(run_py, patched)
    _write_atomic(root / REQUIREMENTS_NAME, extra)
    return [
        f"plugin: {target}",
        f"run.py: --agent_name=celil_agent, --celil_config (default $CELIL_CONFIG) in {run_py}",
        f"requirements: {root / REQUIREMENTS_NAME} "
        f"(pip install -r requirements.txt -r {REQUIREMENTS_NAME})",
    ]


def uninstall(root: Path) -> list[str]:
    run_py = _check_checkout(root)
    done = []
    text = run_py.read_text(encoding="utf-8")
    if BEGIN in text:
        _write_atomic(run_py, _unpatch(text))
        done.append(f"run.py: celil_agent removed from {run_py}")
    target = root.joinpath(*TARGET_PARTS)
    if _is_plugin(target):
        shutil.rmtree(target)
        done.append(f"plugin: removed {target}")
    extra = root / REQUIREMENTS_NAME
    if extra.is_file():
        extra.unlink()
        done.append(f"requirements: removed {extra}")
    return done or ["nothing to remove: the plugin is not installed there"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m android_world.agents.custom.install",
        description="Install the Celil plugin into an upstream AndroidWorld checkout.",
    )
    parser.add_argument("checkout", type=Path, help="the upstream checkout (holds run.py)")
    parser.add_argument("--uninstall", action="store_true", help="take the plugin out again")
    parser.add_argument(
        "--requirements",
        action="store_true",
        help="only print the extra requirements for this checkout (changes nothing)",
    )
    args = parser.parse_args(argv)
    root = args.checkout.expanduser().resolve()
    try:
        if args.requirements:
            print(requirements_text(_pins_of(root)), end="")
            return 0
        lines = uninstall(root) if args.uninstall else install(root)
    except (InstallError, OSError) as error:
        print(f"celil install: {error}", file=sys.stderr)
        return 2
    for line in lines:
        print(line)
    if not args.uninstall:
        print("then: CELIL_CONFIG=celil.yaml python run.py --agent_name=celil_agent ...")
    return 0


if __name__ == "__main__":
    sys.exit(main())
