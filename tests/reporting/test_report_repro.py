"""Issue 31 items 8-9: the report's GIF link, skipped votes, the per-tag CSV, `-h`, the profile
matrix's output path, the reproducibility facts in manifest.json and the header, and --bundle."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path
from types import SimpleNamespace

import celil_fakes as fakes
import numpy as np
import pytest
import report_synth as synth
from test_celil_agent import GOAL, make_agent

from android_world.agents.custom import celil_secrets
from android_world.agents.custom.celil_protocols import ProposedAction
from android_world.agents.custom.model_clients.call_types import CallResult, ModelRequest
from android_world.agents.custom.model_clients.client import call_infer_wrapper
from android_world.agents.custom.roles import celil_quality_control
from android_world.env import json_action
from android_world.harness import run_facts
from android_world.reporting import report, run_bundle

REPO = Path(__file__).resolve().parents[2]


def _cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "CELIL_NO_INSTALL": "1"}
        | (env or {}),
    )


# --- the GIF beside the episode page ---------------------------------------------------------


def test_episode_page_names_the_command_until_the_gif_exists_then_links_it(tmp_path):
    run = synth.make_run(tmp_path, n_episodes=3)
    report.write_report(run)
    page = (run / "episodes" / "SyntheticContacts_0" / "index.html").read_text()
    assert 'href="episode.gif"' not in page
    assert f"python -m android_world.reporting.report {run.name} --gif SyntheticContacts_0" in page
    done = _cli("-m", "android_world.reporting.report", str(run), "--gif", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page = (run / "episodes" / "SyntheticContacts_0" / "index.html").read_text()
    assert 'href="episode.gif"' in page and "--gif SyntheticContacts_0" not in page
    shared = report.export_episode(run, "SyntheticContacts_0", tmp_path / "one.html").read_text()
    assert "episode.gif" not in shared and "--gif" not in shared  # one file: no sibling GIF


# --- a skipped vote names its rule -----------------------------------------------------------


def test_a_skipped_vote_reads_as_its_rule_not_a_zero_threshold(tmp_path):
    wrapper = fakes.ScriptedWrapper(default='{"score": 1, "reasoning": "no"}')
    verifier = celil_quality_control.VerifierEnsemble(wrapper)
    executor = fakes.ScriptedExecutor([ProposedAction(json_action.JSONAction("navigate_back"))])
    agent, _ = make_agent(executor=executor, verifier=verifier)
    data = agent.step(GOAL).data
    rule = data["vote_skipped"]  # where the agent records the rule, beside threshold 0.0
    assert data["threshold"] == 0.0 and rule
    step = report.build_step({"step_number": 0, "data": data}, [], tmp_path)
    assert step["gate"]["skipped"] == rule and "vote_skipped" not in step["extra"]
    run = synth.make_run(tmp_path, n_episodes=1)
    episode = report.load_episode(run, report.result_rows(run)[0])
    episode.steps = [step]
    page = report.render_episode(report.run_header(run, {}, []), episode, None, None)
    assert f"Gate: vote skipped: {rule}" in page.replace("&#39;", "'")
    assert "threshold 0.0" not in page
    # From the gate event alone (an agent that writes no step data), the same words.
    event = {"type": "gate", "passed": True, "threshold": 0.0, "vote_skipped": rule}
    assert report.build_step({"step_number": 0}, [event], tmp_path)["gate"]["skipped"] == rule


# --- per tag and per difficulty ---------------------------------------------------------------


def test_summary_by_tag_csv_sits_beside_the_report_with_false_completions(tmp_path):
    run = synth.make_run(tmp_path, n_episodes=6)
    rows = report.read_jsonl(run / "results.jsonl")
    rows[0] |= {"claimed": "complete", "false_complete": True, "calls": 4}
    rows[2] |= {"claimed": "complete", "false_complete": False, "calls": 6}
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    report.write_report(run)
    table = list(csv.DictReader(io.StringIO((run / report.GROUPS_CSV).read_text())))
    assert list(table[0]) == list(report.GROUP_COLUMNS)
    by = {(r["by"], r["group"]): r for r in table}
    episodes = report.result_rows(run)
    metas = {r["task"]: report.task_meta(str(r["task"]), r) for r in episodes}
    for difficulty in {m["difficulty"] for m in metas.values()}:
        row = by[("difficulty", difficulty)]
        mine = [r for r in episodes if metas[r["task"]]["difficulty"] == difficulty]
        assert int(row["episodes"]) == len(mine)
        assert int(row["steps"]) == sum(int(r.get("steps") or 0) for r in mine)
        assert int(row["false_completions"]) == sum(bool(r.get("false_complete")) for r in mine)
    assert sum(int(r["episodes"]) for r in table if r["by"] == "difficulty") == len(episodes)
    assert sum(int(r["false_completions"]) for r in table if r["by"] == "difficulty") == 1
    assert any(r["by"] == "tag" for r in table)


def test_group_success_is_the_macro_mean_over_templates():
    def episode(task: str, score: float, tags: list[str]) -> report.Episode:
        return report.Episode(
            name=f"{task}_{score}",
            row={"task": task, "score": score, "steps": 2, "calls": 1},
            meta={"difficulty": "easy", "tags": tags, "budget": 10},
            end_reason="",
            end_kind="success",
            usage={},
            seconds={},
            steps=[],
            plan_history=[],
            events=0,
            answer=None,
            warnings=[],
            agent_summary={},
            exception=None,
        )

    eps = [episode("A", 1.0, ["x"]), episode("A", 1.0, ["x"]), episode("B", 0.0, ["x", "y"])]
    rows = {(r["by"], r["group"]): r for r in report.group_rows(eps)}
    assert rows[("tag", "x")]["success"] == 0.5  # (1.0 + 0.0) / 2 templates, not 2/3 episodes
    assert rows[("tag", "y")]["success"] == 0.0 and rows[("tag", "y")]["episodes"] == 1
    assert rows[("difficulty", "easy")]["calls_per_step"] == 0.5


# --- -h ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("module", ["android_world.harness.run", "android_world.reporting.report"])
def test_dash_h_prints_the_help(module, tmp_path):
    short = _cli("-m", module, "-h", cwd=tmp_path)
    long = _cli("-m", module, "--help", cwd=tmp_path)
    assert "Unknown command line flag" not in short.stderr + short.stdout
    assert short.returncode == long.returncode and short.stdout == long.stdout
    assert "--output_path" in short.stdout or "--compare" in short.stdout


# --- --sim_profile all keeps its runs under --output_path -------------------------------------


def test_profile_matrix_keeps_its_runs_under_output_path(tmp_path):
    done = subprocess.run(
        [
            "bash",
            str(REPO / "run_benchmark.sh"),
            "--sim_profile",
            "default;small",
            "--agent",
            "oracle_agent",
            "--tasks",
            "SystemWifiTurnOn",
            "--output_path",
            str(tmp_path / "kept"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "CELIL_NO_INSTALL": "1"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (matrix,) = (tmp_path / "kept").iterdir()
    assert matrix.name.startswith("run_") and f"Run directories: {matrix}" in done.stderr
    for profile in ("default", "small"):
        assert (matrix / profile / "results.jsonl").is_file()


# --- what a published number needs ------------------------------------------------------------


class RecordingWrapper:
    """An infer.py wrapper that keeps what each call sent (prompt, image sizes)."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.calls: list[tuple[str, list[tuple[int, int]]]] = []

    def predict(self, prompt: str):
        self.calls.append((prompt, []))
        return self.answer, True, None

    def predict_mm(self, prompt: str, images):
        self.calls.append((prompt, [(i.shape[1], i.shape[0]) for i in images]))
        return self.answer, True, None

    def call(self, request: ModelRequest) -> CallResult:
        """The roles' one entry point, through the adapter for plain infer wrappers."""
        return call_infer_wrapper(self, request, "test", "fake", "recording")


def _observation(width: int = 1080, height: int = 2400):
    from android_world.agents.custom.roles import celil_perception

    state = fakes.FakePhone(render=True).get_state()
    observation = celil_perception.PerceptionModule(ocr="off").process_observation(state)
    pixels = np.zeros((height, width, 3), dtype=np.uint8)
    return dataclasses.replace(observation, screenshot=pixels)


def _sent(role: str, config: dict) -> tuple[set[str], tuple[int, int] | None]:
    """What `role`, built as the factory builds it, actually sends for a 1080x2400 screen."""
    from android_world.agents.custom.roles import celil_maestro, celil_section_leader

    observation = _observation()
    pixels = config["max_image_pixels"]
    if role == "maestro":
        wrapper = RecordingWrapper('{"sub_goals": ["Open Contacts"], "rationale": "r"}')
        planner = celil_maestro.MaestroPlanner(wrapper, max_image_pixels=pixels)
        planner.generate_initial_plan(GOAL, observation, None)
    elif role == "verifiers":
        wrapper = RecordingWrapper('{"score": 9, "reasoning": "fine"}')
        verifier = celil_quality_control.VerifierEnsemble(wrapper, max_image_pixels=pixels)
        verifier.verify_action("Open Contacts", fakes.click(0), observation, "")
    elif role == "vision_fallback":
        wrapper = RecordingWrapper('{"index": 0}')
        selector = celil_maestro.VisionElementSelector(wrapper, max_image_pixels=pixels)
        selector.select_element("Open Contacts", observation)
    else:
        wrapper = RecordingWrapper("Thought: t\nAction: press_home()")
        executor = celil_section_leader.UITarsActionGenerator(
            wrapper, max_image_pixels=pixels, executor_format=config["executor_format"]
        )
        executor.generate_action("Open Contacts", observation, "")
    prompt, sizes = wrapper.calls[0]
    kinds = {run_facts.SCREENSHOT} if sizes else set()
    if "UI elements:" in prompt:  # celil_untrusted.screen_block: the element list
        kinds.add(run_facts.TREE)
    return kinds, (sizes[0] if sizes else None)


@pytest.mark.parametrize(
    "role,executor_format",
    [
        ("maestro", "uitars"),
        ("verifiers", "uitars"),
        ("vision_fallback", "uitars"),
        ("section_leader", "uitars"),
        ("section_leader", "json"),
    ],
)
def test_role_table_and_image_size_match_what_each_llm_role_sends(role, executor_format):
    config = {"executor_format": executor_format, "max_image_pixels": 1_003_520}
    kinds, size = _sent(role, config)
    assert set(run_facts.role_inputs(role, "openai", config)) == kinds
    facts = run_facts.image_sent({role: (run_facts.SCREENSHOT,)}, (1080, 2400), config)
    assert tuple(facts["roles"][role]) == size


def test_offline_and_modelless_runs_record_what_they_see():
    config = {"executor_format": "uitars", "verification": "on", "ocr": "auto"}
    roles = {r: {"backend": "offline"} for r in ("maestro", "section_leader", "verifiers")}
    manifest = {"agent": {"registry_name": "celil_agent"}, "agent_info": {"roles": roles}}
    manifest["agent_info"]["config"] = config
    facts = run_facts.reproducibility(manifest, {}, _sim_config())
    assert facts["observation"]["mode"] == "accessibility_tree"
    assert facts["image_sent"]["roles"] == {} and facts["image_sent"]["screen"] == [1080, 2400]
    mixed = dict(roles, section_leader={"backend": "ollama"})
    manifest["agent_info"]["roles"] = mixed
    facts = run_facts.reproducibility(manifest, {}, _sim_config())
    assert facts["observation"]["mode"] == "both"
    assert facts["image_sent"]["max"] == [672, 1484]  # smart resize under 1,003,520 px
    oracle = {"agent": {"registry_name": "oracle_agent"}}
    assert run_facts.reproducibility(oracle, {}, _sim_config())["observation"]["mode"] == "none"


def _sim_config() -> SimpleNamespace:
    """Stands in for the harness config (only what run_facts reads)."""
    sim = SimpleNamespace(profile=[], adjust_step_budget=True)
    return SimpleNamespace(env=SimpleNamespace(type="sim", sim=sim))


def test_offline_run_records_the_facts_and_the_header_shows_them(tmp_path):
    out = tmp_path / "runs"
    done = _cli(
        "-m",
        "android_world.harness.run",
        "--tasks",
        "SystemWifiTurnOn,ContactsAddContact",
        "--output_path",
        str(out),
        "--set",
        "env.render=false",
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (run,) = out.iterdir()
    facts = json.loads((run / "manifest.json").read_text())["reproducibility"]
    assert facts["observation"]["mode"] == "accessibility_tree"
    assert facts["step_budgets"]["tasks"] == {"ContactsAddContact": 12, "SystemWifiTurnOn": 10}
    assert set(facts["prompt_hashes"]) >= {"maestro", "section_leader", "verifiers"}
    page = (run / "report.html").read_text()
    for key in ("observation", "image sent", "step budgets", "prompt hashes"):
        assert f"<dt>{key}</dt>" in page
    assert "10-12 steps over 2 tasks" in page


def test_header_of_an_older_run_is_unchanged_and_a_bad_block_is_one_row(tmp_path):
    run = synth.make_run(tmp_path, n_episodes=2)
    manifest = json.loads((run / "manifest.json").read_text())
    assert report.run_header(run, manifest, [])["reproducibility"] == []
    manifest["reproducibility"] = {"observation": "garbage", "image_sent": 3}
    rows = report.run_header(run, manifest, [])["reproducibility"]
    assert rows == [{"key": "reproducibility", "value": "unreadable block in manifest.json"}]


# --- one shareable archive, secrets removed ---------------------------------------------------


def test_bundle_holds_config_manifest_results_and_trajectories_without_secrets(tmp_path):
    run = synth.make_run(tmp_path, n_episodes=3)
    key = "sk-" + "a1B2" * 8
    env_key = "my-gemini-key-9f8e7d"
    (run / "config.yaml").write_text(
        "models:\n  openai_base_url: http://alice:hunter2@10.0.0.5:8000/v1\n"
        f"  api_key: plainsecretvalue\n  openai_api_key_env: OPENAI_API_KEY\n  note: {key}\n"
    )
    feedback = run / "episodes" / "SyntheticContacts_0" / "feedback.jsonl"
    with feedback.open("a") as handle:
        handle.write(json.dumps({"type": "warning", "message": f"failed with key {env_key}"}))
        handle.write("\n")
    untouched = (run / "manifest.json").read_bytes()
    out = tmp_path / "share" / "run.tar.gz"
    done = _cli(
        "-m",
        "android_world.reporting.report",
        str(run),
        "--bundle",
        "--out",
        str(out),
        cwd=tmp_path,
        env={"GEMINI_API_KEY": env_key},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Bundle: {out}")
    assert [p.name for p in out.parent.iterdir()] == ["run.tar.gz"]  # no temp file left
    with tarfile.open(out) as tar:
        files = {m.name: tar.extractfile(m).read().decode() for m in tar.getmembers()}
    names = {n.split("/", 1)[1] for n in files}
    assert {"config.yaml", "manifest.json", "results.jsonl"} <= names
    assert "episodes/SyntheticContacts_0/episode.json" in names
    assert "episodes/SyntheticContacts_0/feedback.jsonl" in names
    assert not any(n.endswith((".png", ".html", ".gz", ".db")) for n in names)
    text = "\n".join(files.values())
    for secret in ("hunter2", "plainsecretvalue", key, env_key):
        assert secret not in text
    assert "OPENAI_API_KEY" in text  # names of variables are not secrets
    assert files[f"{run.name}/manifest.json"].encode() == untouched  # nothing to remove: as is


def test_bundle_cleans_text_by_kind():
    assert run_bundle.clean_text("a.json", '{"x": 1}') == '{"x": 1}'
    cleaned = json.loads(run_bundle.clean_text("a.json", '{"api_key": "zzzzzz"}'))
    assert cleaned == {"api_key": celil_secrets.REDACTED}
    lines = run_bundle.clean_text("a.jsonl", '{"a": 1}\n{"token": "qqqqqq"}\nnot json\n')
    assert lines.splitlines()[0] == '{"a": 1}' and "qqqqqq" not in lines
    assert lines.endswith("not json\n")
    assert "pw" not in run_bundle.clean_text("a.csv", "url\nhttps://u:pw@h/x\n")


def test_bundle_of_a_missing_run_is_one_line(tmp_path):
    done = _cli(
        "-m", "android_world.reporting.report", str(tmp_path / "nope"), "--bundle", cwd=tmp_path
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
