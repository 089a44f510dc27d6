"""Reading a verifier's vote: a 0-10 score from the shapes judges write, or why there is none.

Pure and linear: the answer is cut to `celil_json.MAX_ANSWER_CHARS`, its lines are
whitespace-collapsed before any prose pattern runs, and the JSON is read by celil_json.

What is read (table tests in tests/agent/test_answer_parsers.py and tests/agent/test_answer_shapes.py):
- the final JSON vote outside any reasoning block; two votes in one answer that disagree make it
  unreadable (a model that answers both 0 and 10 has not decided);
- a score with its scale ("8/10", "3/8", "74%", "Score (0-100): 74", "6 de 10") rescaled to 0-10;
  a bare score above 10 answers a 0-10 question on 0-100 (82 -> 8.2); above 100, or negative,
  it is no score;
- a multi-criterion vote (`{"task_completion": {"score": 8}, "tool_usage": {"score": 9}}`,
  `{"scores": {...}}`, `{"criteria": [{"score": ...}]}`) averaged, unless it gives an overall
  score, which wins;
- a labelled score in prose, also in Korean, Chinese, Japanese, Spanish, French, German,
  Portuguese and Italian ("점수는 8점입니다", "评分：8分", "puntuación: 8").
An unreadable vote is returned with `parseable=False`: the ensemble treats it as absent.
"""

from __future__ import annotations

import math
import re
from typing import Any

from android_world.agents.custom import celil_json
from android_world.agents.custom.celil_protocols import Vote

VOTE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "score": {"type": "number", "minimum": 0, "maximum": 10},
        "reasoning": {"type": "string", "maxLength": 300},
    },
    "required": ["score", "reasoning"],
}
VOTE_FORMAT = '{"score": <number 0-10>, "reasoning": "one or two sentences"}'
VOTE_EXAMPLES = celil_json.example_strings(VOTE_FORMAT)

# Below this difference two scores in one answer are the same vote written twice.
_SAME_SCORE = 0.01

# --------------------------------------------------------------------------------------------
# One score string

_NUM = r"(-?\d+(?:\.\d+)?)"
_PERCENT = re.compile(rf"^{_NUM} ?%")
# "8/10", "8 out of 10", "6 of 10", and the same in Spanish/Portuguese/Italian (de, su, di),
# French (sur) and German (von).
_OF = r"(?:/|out of\b|of\b|de\b|sur\b|von\b|su\b|di\b)"
_FRACTION = re.compile(rf"^{_NUM} ?{_OF} ?{_NUM}", re.IGNORECASE)
_BARE = re.compile(rf"^\[*\ ?{_NUM} ?\]*(?![\d./%])")
_RANGE = re.compile(rf"{_NUM} ?(?:-|\u2013|to) ?{_NUM}", re.IGNORECASE)
_OUT_OF = re.compile(rf"out of ?{_NUM}", re.IGNORECASE)
_MARKDOWN = re.compile(r"[*_`#]+")


def _finite(text: str) -> float | None:
    value = float(text)
    return value if math.isfinite(value) else None


def _rescale(value: float, low: float, high: float) -> tuple[float | None, str]:
    if high <= low:
        return None, f"score scale {low:g}-{high:g} is empty"
    if not low <= value <= high:
        return None, f"score {value:g} is outside its own scale {low:g}-{high:g}"
    return round((value - low) / (high - low) * 10.0, 3), ""


def unscaled(value: float) -> tuple[float | None, str]:
    """A score given without its scale: 0-10 as asked, or on 0-100 when above 10 (a judge
    that thinks in percent); anything else is no score (clamping 150 would make it a 10)."""
    if 0.0 <= value <= 10.0:
        return float(value), ""
    if 10.0 < value <= 100.0:
        return round(value / 10.0, 3), ""
    return None, f"score {value:g} is outside 0-10 and 0-100"


def scaled_score(text: str, scale: tuple[float, float] | None = None) -> tuple[float | None, str]:
    """A 0-10 score from a score string ("8/10", "74%", "8", "8점"), or None and why.

    `scale` is a range the surrounding label named ("Score (0-100): 74"); a fraction or
    percentage in the value itself wins over it.
    """
    value = " ".join(_MARKDOWN.sub("", (text or "")[:200]).split()).strip("\"' ")
    if match := _PERCENT.match(value):
        number = _finite(match.group(1))
        return (None, "score is not a number") if number is None else _rescale(number, 0, 100)
    if match := _FRACTION.match(value):
        number, high = _finite(match.group(1)), _finite(match.group(2))
        if number is None or high is None:
            return None, "score is not a number"
        return _rescale(number, 0.0, high)
    if match := _BARE.match(value):
        number = _finite(match.group(1))
        if number is None:
            return None, "score is not a number"
        if scale is not None:
            return _rescale(number, *scale)
        return unscaled(number)
    return None, f"no score in {value[:40]!r}"


def score_value(value: Any) -> tuple[float | None, str]:
    """A JSON score field as a 0-10 score. NaN or infinity is no score (never a perfect 10)."""
    if isinstance(value, bool) or value is None:
        return None, "no score in the answer"
    if isinstance(value, int | float):
        if not math.isfinite(value):
            return None, "score is not a finite number"
        return unscaled(float(value))
    if isinstance(value, str):
        return scaled_score(value)
    if isinstance(value, dict):
        return json_score(value)[:2]
    return None, f"score is a {type(value).__name__}, not a number"


# --------------------------------------------------------------------------------------------
# A JSON vote

_SCORE_KEYS = (
    *("overall_score", "overall", "final_score", "total_score", "overall_rating"),
    *("score", "rating", "grade", "value"),
)
_WRAPPER_KEYS = ("evaluation", "vote", "result", "verdict", "assessment", "judgement", "judgment")
_CRITERIA_KEYS = ("scores", "criterion_scores", "criteria_scores", "criteria", "ratings")
# Numbers beside a vote that are not a criterion's score.
_NOT_CRITERIA = frozenset(
    {"confidence", "index", "id", "weight", "weights", "step", "version", "max", "min", "scale"}
)
_REASON_KEYS = ("reasoning", "reason", "explanation", "rationale", "justification", "comment")


def _average(parts: list[tuple[float | None, str]]) -> tuple[float | None, str]:
    scores = [score for score, _ in parts if score is not None]
    if not scores:
        return None, next((problem for _, problem in parts if problem), "no score in the answer")
    if len(scores) < len(parts):
        bad = next(problem for score, problem in parts if score is None)
        return None, f"a criterion's score cannot be read ({bad})"
    return round(sum(scores) / len(scores), 3), ""


def _criteria(value: Any) -> list[tuple[float | None, str]]:
    """The scores of a criteria map or list: `{"a": 8, "b": {"score": 9}}`, `[{"score": 6}]`."""
    if isinstance(value, dict):
        items = [v for k, v in value.items() if str(k).lower() not in _NOT_CRITERIA]
    elif isinstance(value, list):
        items = list(value)
    else:
        return []
    parts = []
    for item in items:
        if isinstance(item, dict):
            score, problem, found = json_score(item)
            if found:
                parts.append((score, problem))
        elif isinstance(item, int | float) and not isinstance(item, bool):
            parts.append(score_value(item))
    return parts


def json_score(data: dict[str, Any]) -> tuple[float | None, str, bool]:
    """(score, problem, found) of one JSON vote; `found` says whether it holds a score at all.

    An overall score wins; else a `score`/`rating` field; else the vote nested under a wrapper
    key (`{"evaluation": {...}}`); else the mean of its criteria.
    """
    lowered = {str(key).lower(): key for key in data}
    for key in _SCORE_KEYS:
        if key in lowered and data[lowered[key]] is not None:
            value = data[lowered[key]]
            if isinstance(value, dict) and not json_score(value)[2]:
                continue
            return (*score_value(value), True)
    for key in _WRAPPER_KEYS:
        if key in lowered and isinstance(data[lowered[key]], dict):
            score, problem, found = json_score(data[lowered[key]])
            if found:
                return score, problem, True
    for key in _CRITERIA_KEYS:
        if key in lowered:
            parts = _criteria(data[lowered[key]])
            if parts:
                return (*_average(parts), True)
    parts = _criteria({k: v for k, v in data.items() if str(k).lower() not in _REASON_KEYS})
    if parts:
        return (*_average(parts), True)
    return None, "no score in the answer", False


def _reasoning(data: dict[str, Any]) -> str:
    """The vote's reason, or its criteria's reasons joined ("tool_usage: right control")."""
    for key in _REASON_KEYS:
        value = data.get(key)
        if value and isinstance(value, str):
            return value
    parts = []
    for key, value in data.items():
        if isinstance(value, dict) and (reason := _reasoning(value)):
            parts.append(f"{key}: {reason}")
    return "; ".join(parts)


# --------------------------------------------------------------------------------------------
# Scores in prose

# Words that label a score, in the languages judges answer in. `note`/`nota` are also ordinary
# words, so after them only a bare score (with its scale) counts.
_LABEL_WORDS = (
    r"score|rating|grade|puntuaci[o\u00f3]n|calificaci[o\u00f3]n|bewertung|punktzahl|punkte"
    r"|pontua[c\u00e7][a\u00e3]o|punteggio|voto|\u043e\u0446\u0435\u043d\u043a\u0430"
    r"|\uc810\uc218|\ud3c9\uc810|\u8bc4\u5206|\u5f97\u5206|\u5206\u6570|\u6253\u5206"
    r"|\u30b9\u30b3\u30a2|\u8a55\u4fa1|\u70b9\u6570"
)
_AMBIGUOUS_LABELS = r"note|nota"
# After the label: a colon or equals sign, or a topic particle ("점수는 8점", "スコアは7").
_SEPARATOR = r"(?:[:=]|\ ?(?:\ub294|\uc740|\u306f|\u4e3a|\u70ba|\u662f)\ ?)"
_LABELLED = re.compile(
    rf"(?<!\w)(?:{_LABEL_WORDS})([^\n:=]{{0,40}}?)[\"'* ]{{0,6}}{_SEPARATOR}[ *\"']{{0,6}}"
    r"([^\n]{0,60})",
    re.IGNORECASE,
)
_NOTE_LABELLED = re.compile(
    rf"(?<!\w)(?:{_AMBIGUOUS_LABELS}) ?[:=] ?{_NUM} ?(?:{_OF} ?{_NUM})? ?\.?$",
    re.IGNORECASE | re.MULTILINE,
)
# Scores in running prose, for chat models that ignore the reply format: "a score of 8",
# "I would rate this 8/10", "Score - 7". Only read when no labelled score was found.
_PROSE_SCORE = re.compile(
    r"\b(?:score|rating|rate|grade)(?: (?:it|this|the|action|step|of|a|an|as|at|is|would|be))*"
    rf" ?[-\u2013]? ?(\[*{_NUM}\]*(?: ?(?:/|out of) ?\d+(?:\.\d+)?| ?%)?)",
    re.IGNORECASE,
)


def _label_scale(label: str) -> tuple[float, float] | None:
    """The scale a label names: "(0-10)", "(1 to 5)", "(out of 100)"."""
    if match := _RANGE.search(label):
        low, high = float(match.group(1)), float(match.group(2))
        return (low, high) if high > low else None
    if match := _OUT_OF.search(label):
        return 0.0, float(match.group(1))
    return None


def _prose(text: str) -> str:
    """The answer without reasoning blocks, each line's blank space collapsed (so no pattern
    has a run of blanks to backtrack over) and full-width colons made plain."""
    answer = celil_json.strip_think(text).replace("\uff1a", ":")
    return "\n".join(" ".join(line.split()) for line in answer.splitlines())


def score_from_text(text: str) -> tuple[float | None, str]:
    """The last labelled score in prose ("Rating: 8/10", "Score (0-10): 8", "评分：8分"), a
    score in running prose, or a bare answer ("8")."""
    answer = _prose(text)
    problem = "no score in the answer"
    for match in reversed(list(_LABELLED.finditer(answer))):
        score, problem = scaled_score(match.group(2), _label_scale(match.group(1)))
        if score is not None:
            return score, ""
        if "outside" in problem:  # a real score that cannot be used: do not look further back
            return None, problem
    for match in reversed(list(_NOTE_LABELLED.finditer(answer))):
        high = match.group(2)
        number = float(match.group(1))
        return _rescale(number, 0.0, float(high)) if high else unscaled(number)
    if problem == "no score in the answer" or problem.startswith("no score in "):
        for match in reversed(list(_PROSE_SCORE.finditer(_MARKDOWN.sub("", answer)))):
            score, problem = scaled_score(match.group(1))
            if score is not None or "outside" in problem:
                return score, problem
    whole = _MARKDOWN.sub("", answer).strip()
    if whole and len(whole) <= 20:
        score, whole_problem = scaled_score(whole)
        return (score, "") if score is not None else (None, whole_problem)
    return None, problem


# --------------------------------------------------------------------------------------------
# The vote


def _echoed_example(text: str, examples: frozenset[str]) -> str | None:
    """An example of three words or more found in a reply with no JSON: the reply shape copied
    back with its `<number 0-10>` slot unfilled is not a vote with a missing score."""
    answer = celil_json.normalise(celil_json.strip_think(text))
    return next((e for e in sorted(examples) if len(e.split()) >= 3 and e in answer), None)


def _json_vote(text: str) -> tuple[float | None, str, str, bool]:
    """(score, problem, reasoning, found) from the JSON votes in an answer.

    Every JSON object outside a reasoning block that holds a score is a vote; when two of them
    disagree the answer is unreadable, when they agree it is that vote.
    """
    votes = []
    for value in celil_json.json_values(text):
        if isinstance(value, dict):
            score, problem, found = json_score(value)
            if found:
                votes.append((score, problem, _reasoning(value)))
    if not votes:
        return None, "no score in the answer", "", False
    read = [score for score, _, _ in votes if score is not None]
    if read and max(read) - min(read) > _SAME_SCORE:
        shown = ", ".join(f"{s:g}" for s in read)
        return None, f"the answer holds conflicting votes ({shown})", "", True
    score, problem, reasoning = votes[-1]
    return score, problem, reasoning, True


def parse_vote(
    persona: str,
    text: str,
    unparseable_score: float = 0.0,
    examples: frozenset[str] = VOTE_EXAMPLES,
) -> Vote:
    """A Vote from a verifier's answer; an unreadable one has `parseable=False` and `error`.

    `unparseable_score` is only what an unreadable vote displays: the ensemble leaves such a
    vote out of every score (an answer it cannot read is not a judgement against the action).
    """
    answer, cut = celil_json.bounded(text)
    notes = (cut,) if cut else ()
    score, problem, reasoning, found = _json_vote(answer)
    if score is None and not found:
        score, problem = score_from_text(answer)
        if score is not None:
            reasoning = celil_json.strip_think(answer).strip()[:300]
    if score is not None and celil_json.is_placeholder(reasoning, examples):
        # The prompt's example copied back: the number beside it was never a judgement.
        score, problem = None, f"the vote repeats the prompt's example reasoning ({reasoning!r})"
    elif score is None and not found and (echo := _echoed_example(answer, examples)):
        problem = f"the vote repeats the prompt's example ({echo!r})"
    if score is None:
        return Vote(
            persona,
            unparseable_score,
            answer.strip()[:200],
            parseable=False,
            error=problem,
            notes=notes,
        )
    return Vote(persona, score, reasoning.strip()[:500], notes=notes)


__all__ = [
    "VOTE_EXAMPLES",
    "VOTE_FORMAT",
    "VOTE_SCHEMA",
    "json_score",
    "parse_vote",
    "scaled_score",
    "score_from_text",
    "score_value",
    "unscaled",
]
