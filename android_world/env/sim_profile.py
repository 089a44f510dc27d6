"""Phone-like variation for the simulated phone: screen sizes and densities, first-launch
dialogs, vendor wording and animation latency, chosen by `env.sim.profile` / `--sim_profile`.

A profile is a comma-separated (or YAML list) composition of parts, e.g. `small,dialogs,vendor,
slow`: at most one screen part plus any of the behaviour parts. `default` alone is today's
Pixel 6 (1080x2400 at 420 dpi, no dialogs, stock wording, screens that settle at once).

Layouts are authored in "design pixels": pixels of the 420-dpi default screen (2.625 px per
dp). A screen of another density lays out on a design canvas of its size in dp times 2.625 and
is scaled by dpi/420 on the way out, as Android scales dp, so widgets keep their physical size
and a screen taller in dp shows more rows. Device facts (settings, databases, files) never
depend on the profile: tasks check the same things under every profile.
"""

from __future__ import annotations

import dataclasses
import math
import textwrap
from collections.abc import Iterable, Sequence

DESIGN_DPI = 420


@dataclasses.dataclass(frozen=True)
class ScreenSpec:
    """A physical screen: pixels, density, and the keyboard height it gets (design pixels)."""

    width: int
    height: int
    dpi: int
    ime_h: int = 800  # Gboard in portrait; landscape keyboards are shorter
    status_h: int = 110  # 42 dp beside the Pixel 6's camera cut-out; 24 dp when it is on the side

    @property
    def scale(self) -> float:
        """Physical pixels per design pixel (1.0 on the default screen, exactly)."""
        return self.dpi / DESIGN_DPI

    @property
    def design_size(self) -> tuple[int, int]:
        """The canvas layouts are computed on (the screen in dp, times 2.625)."""
        if self.dpi == DESIGN_DPI:
            return (self.width, self.height)
        return (round(self.width / self.scale), round(self.height / self.scale))

    @property
    def landscape(self) -> bool:
        return self.width > self.height

    @property
    def height_dp(self) -> float:
        return self.height * 160 / self.dpi


SCREENS: dict[str, ScreenSpec] = {
    "default": ScreenSpec(1080, 2400, 420),
    "small": ScreenSpec(720, 1520, 320),
    "large": ScreenSpec(1440, 3120, 560),
    # Landscape as a Pixel 6 turned: the cut-out moves to the side (a 24-dp status bar) and the
    # three-button navigation bar to the right edge.
    "landscape": ScreenSpec(2400, 1080, 420, ime_h=500, status_h=63),
}

BEHAVIOURS = {
    "dialogs": "a first-launch pop-up (notification permission, What's new, Rate this app) "
    "on each app's first start in a task",
    "vendor": "vendor wording: Settings names and common buttons (Wi-Fi -> WLAN, Save -> Done, "
    "Delete -> Remove, OK -> Confirm, ...)",
    "slow": "screens settle late: after an action the next observations are transitional "
    "frames until the screen is waited for (or 0.5 s pass)",
}

DESCRIPTIONS = {
    "default": "1080x2400 at 420 dpi (Pixel 6), portrait; today's sim exactly",
    "small": "720x1520 at 320 dpi: fewer rows, the keyboard covers more",
    "large": "1440x3120 at 560 dpi: same layout in dp, sharper pixels",
    "landscape": "2400x1080 at 420 dpi: wide and short; navigation bar on the right, a "
    "shorter status bar and keyboard",
    **BEHAVIOURS,
}

# The profiles `--sim_profile all` measures: each part alone, then everything at once.
MATRIX = (
    "default",
    "small",
    "large",
    "landscape",
    "dialogs",
    "vendor",
    "slow",
    "small,dialogs,vendor,slow",
)


@dataclasses.dataclass(frozen=True)
class SimProfile:
    """What one run's simulated phone looks and behaves like."""

    screen_name: str = "default"
    dialogs: bool = False
    vendor: bool = False
    latency_frames: int = 0  # transitional observations after an action that changed the screen
    latency_seconds: float = 0.0  # ... or until this much wall time has passed

    @property
    def screen(self) -> ScreenSpec:
        return SCREENS[self.screen_name]

    @property
    def name(self) -> str:
        parts = [] if self.screen_name == "default" else [self.screen_name]
        parts += [p for p, on in (("dialogs", self.dialogs), ("vendor", self.vendor)) if on]
        parts += ["slow"] if self.latency_frames else []
        return ",".join(parts) or "default"

    @property
    def is_default(self) -> bool:
        return self == SimProfile()

    @property
    def step_budget_scale(self) -> float:
        """How much more than upstream's step budget this screen needs: the default screen's
        height over this one's, to one decimal, never below 1 (small 1.2, landscape 2.2).

        Upstream's budgets (10 x complexity) were set on a portrait Pixel 6. A shorter screen
        shows fewer list rows, so finding a row takes more scrolls: in landscape (3 Markor rows
        on screen) no path through the app's UI fits some draws into upstream's budget, and a
        score there would measure the screen, not the agent. `env.sim.adjust_step_budget:
        false` keeps upstream's budget under every profile."""
        return max(1.0, round(SCREENS["default"].height_dp / self.screen.height_dp, 1))

    def step_budget(self, upstream_budget: int, app_packages: Iterable[str] = ()) -> int:
        """Upstream's budget on this phone: scaled up on a shorter screen, plus one step per
        app of the task under `dialogs` (closing its first-launch pop-up is an action the task
        never needed on upstream's set-up phones). See docs/SIM_PROFILES.md."""
        budget = upstream_budget
        if self.step_budget_scale > 1:
            budget = math.ceil(round(budget * self.step_budget_scale, 6))
        return budget + (len(set(app_packages)) if self.dialogs else 0)

    def step_budget_note(self) -> str:
        """How `step_budget` changes upstream's, in words ("" when it does not)."""
        parts = [f"x{self.step_budget_scale:g}"] if self.step_budget_scale > 1 else []
        parts += ["+1 per app for its pop-up"] if self.dialogs else []
        return ", ".join(parts)


class ProfileError(ValueError):
    """An unknown or contradictory profile part; the message is one line for the user."""


def split_parts(spec: str | Iterable[str] | None) -> list[str]:
    """`"small, dialogs"` or `["small", "dialogs"]` -> `["small", "dialogs"]` (lower case)."""
    if spec is None:
        return []
    items = spec.split(",") if isinstance(spec, str) else [str(s) for s in spec]
    parts: list[str] = []
    for item in items:
        parts += [p.strip().lower() for p in item.split(",") if p.strip()]
    return parts


def parse(spec: str | Sequence[str] | None) -> SimProfile:
    """A profile from its parts; unknown parts and two screen sizes are errors."""
    parts = split_parts(spec)
    known = [*SCREENS, *BEHAVIOURS]
    unknown = [p for p in parts if p not in known]
    if unknown:
        raise ProfileError(
            f"unknown sim profile part {unknown[0]!r}; known: {', '.join(known)} "
            "(`all` is the profile matrix: ./run_benchmark.sh --sim_profile all)"
        )
    screens = sorted({p for p in parts if p in SCREENS and p != "default"})
    if len(screens) > 1:
        raise ProfileError(f"sim profile names two screens ({' and '.join(screens)}); pick one")
    slow = "slow" in parts
    return SimProfile(
        screen_name=screens[0] if screens else "default",
        dialogs="dialogs" in parts,
        vendor="vendor" in parts,
        latency_frames=3 if slow else 0,
        latency_seconds=0.5 if slow else 0.0,
    )


def expand(spec: str | Sequence[str] | None) -> list[SimProfile]:
    """The profiles a matrix run measures: `all` is `MATRIX`; otherwise `;`-separated profiles
    (e.g. `small;small,dialogs`), each composed of comma-separated parts."""
    if isinstance(spec, str) and spec.strip().lower() == "all":
        return [parse(p) for p in MATRIX]
    if isinstance(spec, str):
        return [parse(p) for p in spec.split(";") if p.strip()] or [SimProfile()]
    return [parse(spec)]


def list_text(line_width: int = 80) -> str:
    """`--list profiles`: every part, what it changes, and how to compose them."""
    width = max(len(name) for name in DESCRIPTIONS)
    rows = [*DESCRIPTIONS.items(), ("all", f"the profile matrix: {'; '.join(MATRIX)}")]
    lines = ["Sim profile parts; compose with commas: --sim_profile small,dialogs,vendor,slow"]
    for name, text in rows:
        lines += textwrap.wrap(
            text,
            line_width,
            initial_indent=f"  {name.ljust(width)}  ",
            subsequent_indent=" " * (width + 4),
        )
    return "\n".join(lines)
