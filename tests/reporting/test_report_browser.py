"""The report in a real browser: headless Chromium renders the summary and an episode page with
no script errors, and a step's screenshot and votes are visible. Screenshots go to test-output/.

Chromium is driven directly (no Playwright): --dump-dom after the page's scripts ran shows the
marker the report's own script writes (`#report-status`, with the errors it caught), and
--screenshot saves what a user would see. Skipped when no chromium binary is installed.
"""

from __future__ import annotations

import html.parser
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import report_synth as synth

from android_world.reporting import report

OUTPUT = Path(__file__).resolve().parents[2] / "test-output"


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


CHROMIUM = _chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium not installed (apt-get install -y chromium)"
)


def _run_chromium(url: str, profile: Path, *extra: str) -> subprocess.CompletedProcess:
    args = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
        "--virtual-time-budget=2000", "--window-size=1280,2000", *extra, url,
    ]  # fmt: skip
    return subprocess.run(args, capture_output=True, text=True, timeout=90)


class _Status(html.parser.HTMLParser):
    """Finds #report-status and the visible images/votes in the DOM Chromium dumped."""

    def __init__(self) -> None:
        super().__init__()
        self.status: dict[str, str | None] | None = None
        self.status_text = ""
        self._in_status = False
        self.images: list[dict[str, str | None]] = []
        self.vote_rows = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id") == "report-status":
            self.status, self._in_status = a, True
        if tag == "img":
            self.images.append(a)
        if tag == "tr" and a.get("class") == "vote":
            self.vote_rows += 1

    def handle_endtag(self, tag):
        if tag == "div":
            self._in_status = False

    def handle_data(self, data):
        if self._in_status:
            self.status_text += data


def _check_page(page: Path, profile: Path, shot: Path) -> _Status:
    dom = _run_chromium(page.as_uri(), profile, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    status = _Status()
    status.feed(dom.stdout)
    assert status.status is not None, "the report's script did not run"
    assert status.status.get("data-js-ok") == "1"
    assert status.status.get("data-errors") == "0", status.status_text
    result = _run_chromium(page.as_uri(), profile, f"--screenshot={shot}")
    assert result.returncode == 0 and shot.exists() and shot.stat().st_size > 10_000
    return status


def _image_loaded(page: Path, profile: Path, selector: str) -> bool:
    """Asks the page itself whether the image decoded (naturalWidth > 0), via a copy with a probe."""
    probe = page.with_name("probe.html")
    script = (
        "<script>window.addEventListener('load',function(){var i=document.querySelector("
        f"'{selector}');document.body.setAttribute('data-img',i&&i.complete&&i.naturalWidth>0?"
        "'loaded':'missing');});</script>"
    )
    probe.write_text(page.read_text().replace("</body>", script + "</body>"))
    dom = _run_chromium(probe.as_uri(), profile, "--dump-dom")
    probe.unlink()
    return 'data-img="loaded"' in dom.stdout


@pytest.mark.slow
def test_summary_and_episode_pages_render_in_chromium(tmp_path):
    run = synth.make_run(tmp_path, n_episodes=9)
    report.write_report(run)
    OUTPUT.mkdir(exist_ok=True)
    profile = tmp_path / "profile"

    summary = _check_page(run / "report.html", profile, OUTPUT / "report_summary.png")
    assert summary.vote_rows == 0

    episode_page = run / "episodes" / "SyntheticContacts_0" / "index.html"
    episode = _check_page(episode_page, profile, OUTPUT / "report_episode.png")
    assert episode.vote_rows >= 3  # the first step's three personas at least
    assert episode.images and episode.images[0].get("src") == "step_000.png"
    assert _image_loaded(episode_page, profile, "#step-0 img")
