"""The run report: structure of report.html and the episode pages, speed, compare mode and the CLI."""

from __future__ import annotations

import html.parser
import json
import subprocess
import sys
from pathlib import Path

import pytest
import report_synth as synth

from android_world.reporting import report

REPO = Path(__file__).resolve().parents[2]


class _Collector(html.parser.HTMLParser):
    """Tags with their attributes, and the page's text (enough to check structure)."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def parse(path: Path) -> _Collector:
    collector = _Collector()
    collector.feed(path.read_text(encoding="utf-8"))
    return collector


def attrs(page: _Collector, tag: str, key: str) -> list[str]:
    return [a[key] or "" for t, a in page.tags if t == tag and key in a]


def assert_self_contained(page: _Collector, base: Path) -> None:
    """No network: no remote src/href, no external stylesheet or script; local links exist."""
    for tag, a in page.tags:
        for key in ("src", "href"):
            value = a.get(key) or ""
            assert not value.startswith(("http:", "https:", "//")), (tag, value)
            if value and not value.startswith(("#", "data:")):
                assert (base / value.split("#")[0]).exists(), f"broken link {value} from {base}"
        assert not (tag == "link" and a.get("rel") == "stylesheet")
        assert not (tag == "script" and a.get("src"))


def test_synthetic_run_summary_page(tmp_path):
    run = synth.make_run(tmp_path, n_episodes=9)
    out = report.write_report(run)
    assert out == run / "report.html"
    page = parse(out)
    text = " ".join(page.text)
    assert_self_contained(page, run)
    # Header: agent, models per role, env, seeds, commit, duration.
    for needle in (
        "celil_agent",
        "gemini:gemini-2.5-flash",
        "ollama:ui-tars-1.5-7b",
        "type=sim",
        "task params 30",
        "0123456789ab",
        "20 min 30 s",
        "NOT AndroidWorld scores",
    ):
        assert needle in text, needle
    # Per task rows, the macro average, tags/difficulty, chart and time breakdown.
    task_rows = [
        a["id"] for t, a in page.tags if t == "tr" and (a.get("id") or "").startswith("task-")
    ]
    assert task_rows == [f"task-{t}" for t in sorted(synth.TASKS)]
    assert "macro average" in text and "information_retrieval" in text and "hard" in text
    assert sum(1 for t, a in page.tags if t == "svg" and "chart" in (a.get("class") or "")) == 1
    for label in (
        "planner (maestro)",
        "executor (section leader)",
        "verifiers",
        "device (execute)",
    ):
        assert label in text, label
    # One row per episode with a link to its page and why it ended.
    links = attrs(page, "a", "href")
    for i in range(9):
        task = list(synth.TASKS)[i % 3]
        assert f"episodes/{task}_{i // 3}/index.html" in links
    assert "error: RuntimeError: the device went away" in text
    assert (
        "agent gave up: status infeasible" in text
        and "agent signalled done: status complete" in text
    )


def test_a_long_agent_config_is_folded_not_cut(tmp_path):
    run = synth.make_run(tmp_path, n_episodes=3)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["agent"] = {"registry_name": "celil_agent", "kwargs": {"persona": "x" * 900 + "END"}}
    (run / "manifest.json").write_text(json.dumps(manifest))
    page = report.write_report(run).read_text()
    assert "END" in page and "show all" in page and '<details class="config-card">' in page


def test_macro_average_is_over_task_templates(tmp_path):
    run = synth.make_run(tmp_path, n_episodes=6)
    episodes = [report.load_episode(run, row) for row in report.result_rows(run)]
    rows, average = report.task_rows(episodes)
    by_task = {r["task"]: r for r in rows}
    # Episode 5 (SyntheticQuestion_1) raised: a failed trial, left out of the means.
    assert (
        by_task["SyntheticQuestion"]["failed"] == 1
        and by_task["SyntheticQuestion"]["complete"] == 1
    )
    expected = sum(r["success"] for r in rows) / len(rows)
    assert average["success"] == pytest.approx(expected)
    assert by_task["SyntheticContacts"]["calls_per_step"] is not None


def test_celil_episode_page(tmp_path):
    run = synth.make_run(tmp_path, n_episodes=3)
    report.write_report(run)
    path = run / "episodes" / "SyntheticContacts_0" / "index.html"
    page = parse(path)
    text = " ".join(page.text)
    assert_self_contained(page, path.parent)
    assert (
        "Goal of SyntheticContacts number 0" in text
        and "agent signalled done: status complete" in text
    )
    steps = [a for t, a in page.tags if t == "section" and "step" in (a.get("class") or "").split()]
    assert [s["id"] for s in steps] == [f"step-{i}" for i in range(6)]
    # Screenshot with the action drawn in its pixel space; the last step has none.
    assert attrs(page, "img", "src") == [f"step_{i:03d}.png" for i in range(5)]
    assert '<svg class="overlay" viewBox="0 0 1080 2400"' in path.read_text()
    circles = [a for t, a in page.tags if t == "circle" and a.get("class") == "act-pt"]
    assert {"cx": "930.0", "cy": "380.0"}.items() <= circles[0].items()  # the rejected tap
    groups = [a.get("class") for t, a in page.tags if t == "g"]
    assert "act not-run" in groups and "act" in groups  # the rejected tap is drawn apart
    assert "not run: click" in text
    html_text = path.read_text()
    assert "on_or_off = <code>on</code>" in html_text and "seed = " not in html_text
    assert "contact = <code>{&#34;name&#34;: &#34;Ada&#34;}</code>" in html_text
    assert any(t == "line" and a.get("class") == "act-arrow" for t, a in page.tags)  # the scroll
    assert "input_text #2 'hello world'" in text
    # Votes, gate, rehearsal, plan revision, post-check, model usage, keyboard help.
    assert "Skeptic thinks step 1 is wrong" in text and "gate reject" in text
    assert "Rehearsal 1/6" in text and "try the Wi-Fi row instead" in text
    assert "Post-check: ok — the screen changed" in text
    assert "verifiers ×3" in text and "Thought for step 0" in text
    assert any(t == "li" and "current" in (a.get("class") or "") for t, a in page.tags)
    assert "no screenshot saved for this step" in text
    # Events are 1-based (Celil) and land on the runner's 0-based steps.
    step1 = path.read_text().split('id="step-1"')[1].split('id="step-2"')[0]
    assert "Rehearsal 1/6" in step1


def test_plain_and_failed_episode_pages(tmp_path):
    run = synth.make_run(tmp_path, n_episodes=6)
    report.write_report(run)
    plain = parse(run / "episodes" / "SyntheticQuestion_0" / "index.html")
    text = " ".join(plain.text)
    assert "click #7" in text and "swipe left" in text and "none reported" in text
    assert "expected answer" in text and "(no answer given)" in text
    failed = (run / "episodes" / "SyntheticQuestion_1" / "index.html").read_text()
    assert "error: RuntimeError: the device went away" in failed and "exception" in failed
    assert "No steps were recorded" in failed


def test_action_overlay_geometry():
    size = (1080, 2400)
    tap = report.action_overlay(
        {"action_type": "click", "index": 3}, {"target_box": [100, 200, 300, 400]}, size
    )
    assert tap["box"] == [100, 200, 300, 400] and tap["point"] == [200, 300]
    box = report.action_overlay(
        {
            "action_type": "long_press",
            "x": 5,
            "y": 6,
            "bbox_pixels": {"x_min": 0, "x_max": 10, "y_min": 0, "y_max": 12},
        },
        {},
        size,
    )
    assert box["box"] == [0, 0, 10, 12] and box["point"] == [5, 6]
    # Scroll is content direction: "down" moves the finger up; swipe is finger direction.
    scroll = report.action_overlay({"action_type": "scroll", "direction": "down"}, {}, size)
    assert scroll["arrow"][3] < scroll["arrow"][1]
    swipe = report.action_overlay({"action_type": "swipe", "direction": "down"}, {}, size)
    assert swipe["arrow"][3] > swipe["arrow"][1]
    snapped = report.action_overlay(
        {"action_type": "click", "index": 2}, {"snapped": {"x": 7, "y": 8, "index": 2}}, size
    )
    assert snapped["point"] == [7, 8]
    assert report.action_overlay(None, {}, size) is None
    assert (
        "Contacts"
        in report.action_overlay({"action_type": "open_app", "app_name": "Contacts"}, {}, size)[
            "label"
        ]
    )


def test_ocr_boxes_when_steps_carry_them(tmp_path):
    step = report.build_step(
        {
            "step_number": 0,
            "screenshot": None,
            "data": {"ocr_lines": [{"text": "Wi-Fi", "box": [10, 20, 110, 60]}]},
        },
        [],
        tmp_path,
    )
    assert step["ocr"] == [{"text": "Wi-Fi", "box": [10.0, 20.0, 110.0, 60.0]}]


def test_events_group_by_the_runner_step_not_the_agent_step():
    events = [
        {"type": "plan_created", "step": 0, "agent_step": 1},
        {"type": "vote", "step": 2, "agent_step": 3},
        {"type": "memory_stored", "step": None},
    ]
    grouped = report.events_by_step(events)
    assert [e["type"] for e in grouped[0]] == ["plan_created"]
    assert [e["type"] for e in grouped[2]] == ["vote"]
    assert [e["type"] for e in grouped[None]] == ["memory_stored"]
    assert 1 not in grouped and 3 not in grouped


def test_time_by_role_counts_ocr_once_and_uses_timed_device_seconds():
    events = [
        {"type": "gate", "ts": 10.0, "step": 0},
        {"type": "executed", "ts": 10.9, "step": 0, "duration_s": 0.25},
        {"type": "post_check", "ts": 12.0, "step": 0},
        {"type": "timing", "role": "ocr", "duration_s": 0.7, "step": 0},
        {"type": "model_call", "role": "section_leader", "latency_s": 2.0, "step": 0},
        {"type": "gate", "ts": 20.0, "step": 1},
        {"type": "executed", "ts": 20.5, "step": 1},
    ]
    seconds = report.role_seconds(events)
    assert seconds["device"] == pytest.approx(0.25 + 0.5)
    assert seconds["ocr"] == pytest.approx(0.7)
    assert seconds["post_check"] == pytest.approx(1.1 - 0.7)
    assert seconds["section_leader"] == pytest.approx(2.0)


def test_tolerates_missing_and_broken_files(tmp_path):
    run = tmp_path / "run_x"
    (run / "episodes" / "T_0").mkdir(parents=True)
    (run / "results.jsonl").write_text('{"name": "T_0", "task": "T", "score": null}\n{"cut by a ki')
    (run / "episodes" / "T_0" / "feedback.jsonl").write_text(
        '{"type": "vote", "step": 1}\nnot json\n'
    )
    out = report.write_report(run)
    assert "T_0" in out.read_text() and "not finished" in out.read_text()
    assert (run / "episodes" / "T_0" / "index.html").exists()
    # An empty run (the report is written before the first episode finishes).
    empty = tmp_path / "run_empty"
    empty.mkdir()
    (empty / "manifest.json").write_text("{}")
    assert "No episodes yet" in report.write_report(empty).read_text()


def test_hundred_episodes_each_get_a_page(tmp_path):
    # How long this takes is measured by benchmarks/report_speed.py, not asserted here.
    run = synth.make_run(tmp_path, n_episodes=100)
    report.write_report(run)
    assert len(list(run.glob("episodes/*/index.html"))) == 100


def test_compare_two_runs(tmp_path, capsys):
    a = synth.make_run(tmp_path / "a", n_episodes=6, success_every=3)
    b = synth.make_run(tmp_path / "b", n_episodes=6, success_every=1, cost_scale=2.0, name="run_b")
    report.write_report(a)
    rows = report.compare_rows(a, b)
    by_task = {r["task"]: r for r in rows}
    assert by_task["SyntheticWifi"]["d_success"] == pytest.approx(1.0)
    assert by_task["SyntheticWifi"]["change"] == "better"
    assert by_task["SyntheticContacts"]["d_cost"] > 0
    out = tmp_path / "cmp" / "compare.html"
    assert report.main(["--compare", str(a), str(b), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "macro average" in printed and "SyntheticWifi" in printed and "+100%" in printed
    page = parse(out)
    assert_self_contained(page, out.parent)
    hrefs = attrs(page, "a", "href")
    assert "../a/run_20250101T000000000000/episodes/SyntheticWifi_0/index.html" in hrefs
    assert "../b/run_b/episodes/SyntheticWifi_0/episode.json" in hrefs  # B has no pages yet


def test_compare_headline_averages_only_tasks_in_both_runs():
    def side(success):
        return {"success": success, "steps": 3.0, "cost": None, "episodes": []}

    rows = [
        {"task": "Common", "a": side(1.0), "b": side(0.0), "d_success": -1.0, "d_steps": 0.0},
        {"task": "OnlyB", "a": None, "b": side(1.0), "d_success": None, "d_steps": None},
    ]
    for row in rows:
        row["change"] = "worse" if row["a"] else "only in B"
    assert [r["task"] for r in report.common_rows(rows)] == ["Common"]
    text = report.format_compare(rows, "A", "B")
    average = next(line for line in text.splitlines() if line.startswith("macro average"))
    assert "100%" in average and "0%" in average and "-100%" in average
    assert "over the 1 tasks in both runs" in average and "50%" not in average
    assert "1 task(s) not in both runs are left out of the average" in text


@pytest.mark.parametrize("make", ["missing", "file", "plain_dir"])
def test_cli_errors_are_one_line_exit_2(tmp_path, make):
    target = tmp_path / "x"
    if make == "file":
        target.write_text("hi")
    elif make == "plain_dir":
        target.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "android_world.reporting.report", str(target)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(target) in lines[0]
    assert report.main(["--compare", str(target), str(tmp_path)]) == 2


def test_real_oracle_run(tmp_path):
    """A real tiny run through the harness: the runner writes the report itself."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "android_world.harness.run",
            "--agent",
            "oracle_agent",
            "--tasks",
            "SystemWifiTurnOn",
            "--output_path",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    (run,) = list(tmp_path.glob("run_*"))
    summary = parse(run / "report.html")
    assert_self_contained(summary, run)
    text = " ".join(summary.text)
    assert "oracle_agent" in text and "SystemWifiTurnOn_0" in text and "100%" in text
    assert "screen_reading" in text  # tags from the task registry
    episode_page = run / "episodes" / "SystemWifiTurnOn_0" / "index.html"
    page = parse(episode_page)
    assert_self_contained(page, episode_page.parent)
    assert attrs(page, "img", "src")[0] == "step_000.png"
    assert "Turn wifi on." in " ".join(page.text)
    # Regenerating from the CLI gives the same pages.
    proc = subprocess.run(
        [sys.executable, "-m", "android_world.reporting.report", str(run)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert proc.returncode == 0 and "report.html" in proc.stdout
    json.loads((run / "manifest.json").read_text())


def test_rewrites_only_changed_episode_pages(tmp_path):
    """The runner rewrites the report after each episode; unchanged pages are left alone."""
    run = synth.make_run(tmp_path, n_episodes=6)
    report.write_report(run)
    pages = sorted(run.glob("episodes/*/index.html"))
    before = {p: p.stat().st_mtime_ns for p in pages}
    changed = run / "episodes" / "SyntheticWifi_0"
    with open(changed / "feedback.jsonl", "a") as f:
        f.write(json.dumps({"type": "warning", "step": 1, "message": "late warning"}) + "\n")
    report.write_report(run)
    rewritten = {p.parent.name for p in pages if p.stat().st_mtime_ns != before[p]}
    assert rewritten == {"SyntheticWifi_0"}
    assert "late warning" in (changed / "index.html").read_text()


def test_concurrent_writers_do_not_share_a_temp_file(tmp_path):
    """`python -m android_world.reporting.report` may run while the runner rewrites the same report."""
    run = synth.make_run(tmp_path, n_episodes=2)
    (run / ".report.html.tmp").mkdir()  # another writer's temp file, in the old fixed-name scheme
    out = report.write_report(run)
    assert out.read_text().startswith("<!") and not list(run.glob(".report.html.*.tmp"))


def test_unwritable_output_is_one_line_exit_2(tmp_path, capsys):
    a = synth.make_run(tmp_path / "a", n_episodes=2)
    (tmp_path / "blocker").write_text("a file, not a directory")
    out = tmp_path / "blocker" / "compare.html"
    assert report.main(["--compare", str(a), str(a), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: cannot write the report:")


def test_the_step_budget_is_the_runs_own_when_a_profile_scaled_it():
    # MarkorChangeNoteContent: complexity 1.2, so upstream's budget is 12; landscape made it 27.
    assert report.task_meta("MarkorChangeNoteContent")["budget"] == 12
    assert report.task_meta("MarkorChangeNoteContent", {"step_budget": 27})["budget"] == 27
    reason, _ = report.end_reason({"done": False}, [{}] * 27, {}, [], 27)
    assert reason == "step budget reached (27/27 steps), not done"
