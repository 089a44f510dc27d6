"""One episode out of a run: an animated GIF of its steps and a single self-contained page."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import report_synth as synth
from PIL import Image

from android_world.reporting import episode_export, report

REPO = Path(__file__).resolve().parents[2]


def test_gif_has_one_frame_per_screenshot_with_the_action_drawn(tmp_path):
    run = synth.make_run(tmp_path, n_episodes=6)
    gif = report.write_gif(run, "SyntheticContacts_0")
    assert gif == run / "episodes" / "SyntheticContacts_0" / "episode.gif"
    with Image.open(gif) as image:
        assert image.n_frames == 5  # six steps, the last without a screenshot
        assert image.size[0] == episode_export.GIF_WIDTH
        image.seek(1)  # step 1 is the tap the gate rejected: drawn grey, not red
        frame = image.convert("RGB")
        scale = episode_export.GIF_WIDTH / 1080
        ring = (round(930 * scale), round(380 * scale))
        near = [
            frame.getpixel((ring[0] + dx, ring[1] + dy))
            for dx in range(-3, 4)
            for dy in range(-3, 4)
        ]
        assert any(abs(r - g) < 20 and abs(g - b) < 20 and 100 < r < 180 for r, g, b in near)
    assert report.write_gif(run, "SyntheticQuestion_1") is None  # raised: no screenshots


def test_export_is_one_file_with_screenshots_inlined(tmp_path):
    run = synth.make_run(tmp_path, n_episodes=3)
    out = report.export_episode(run, "SyntheticContacts_0", tmp_path / "share.html")
    page = out.read_text()
    assert page.count('src="data:image/png;base64,') == 5
    assert 'src="step_' not in page and "../../report.html" not in page
    assert "Goal of SyntheticContacts number 0" in page


def test_cli_gif_export_and_one_line_errors(tmp_path):
    run = synth.make_run(tmp_path, n_episodes=3)

    def cli(*args):
        return subprocess.run(
            [sys.executable, "-m", "android_world.reporting.report", str(run), *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        )

    made = cli("--gif")
    assert made.returncode == 0, made.stderr
    assert len(list(run.glob("episodes/*/episode.gif"))) >= 2
    exported = cli("--export", "SyntheticContacts_0")
    assert exported.returncode == 0 and (tmp_path / "SyntheticContacts_0.html").is_file()
    missing = cli("--export", "NoSuchEpisode_0")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert "no episode 'NoSuchEpisode_0'" in missing.stderr and "Traceback" not in missing.stderr
    assert report.main([str(tmp_path / "nope"), "--gif"]) == 2
