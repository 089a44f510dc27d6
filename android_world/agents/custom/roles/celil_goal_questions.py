"""How a goal is asked: courtesy words, questions and conditions.

The model roles (is this goal a question, to be answered?) and the offline roles (is this a
polite order or a question?) read a goal's wording alike, so the rules live here, in neither.
"""

from __future__ import annotations

import re

# --------------------------------------------------------------------------------------------
# Courtesy words and conditions

_POLITE_LEAD = re.compile(
    r"^\s*(?:(?:please|kindly|hey|hi|ok(?:ay)?|so|now)\b[,!]?\s*"
    r"|(?:could|can|would|will)\s+you\s+(?:please\s+|kindly\s+|just\s+)?"
    r"|(?:would|do)\s+you\s+mind\s+"
    r"|i(?:'d| would)\s+like\s+(?:you\s+)?to\s+|i\s+(?:want|need)\s+you\s+to\s+"
    r"|go\s+ahead\s+and\s+|help\s+me\s+(?:to\s+)?|let'?s\s+)+",
    re.I,
)
_POLITE_TAIL = re.compile(
    r"(?:[,\s]+(?:please|for me|thanks|thank you|thx|if you can|if possible)\b)+\s*([.?!]*)\s*$",
    re.I,
)
# A question that asks for information rather than for an action.
WH_START = re.compile(
    r"^\s*(?:what(?:'s|s)?|how many|how much|how long|which|who|when|where|is there|are there|"
    r"do i|does|did i|have i|list|tell me|give me|show me|find out|look (?:up|in)|"
    # "Name the recipes that ..." asks; "Name it x.png" is an instruction.
    r"name(?!\s+(?:it|this|that|them|the\s+(?:file|new|note|drawing|recording|playlist|folder))\b))\b",
    re.I,
)


# "When prompted, open it with Chrome": a sentence opening with "when" and no verb of being or
# doing after it is a condition on a request, not a question ("When is my next meeting?").
_CONDITION = re.compile(
    r"^\s*when\s+(?!(?:is|are|was|were|will|would|do|does|did|can|could|should|shall|am|"
    r"has|have|had)\b)",
    re.I,
)


def is_condition(sentence: str) -> bool:
    return bool(_CONDITION.match(sentence))


def opens_question(sentence: str) -> bool:
    """The sentence opens with a question word or an ask, and not with a condition."""
    return bool(WH_START.match(sentence)) and not is_condition(sentence)


def strip_politeness(goal: str) -> tuple[str, bool]:
    """The goal without courtesy words, and whether it was put as a polite request ("Could you
    pause the stopwatch?" is an order, not a question about the stopwatch)."""
    text = goal.strip()
    lead = _POLITE_LEAD.match(text)
    polite = bool(lead and lead.group(0).strip())
    if lead:
        text = text[lead.end() :]
    tail = _POLITE_TAIL.search(text)
    if tail:
        text = text[: tail.start()] + (tail.group(1) or "")
    text = text.strip()
    if text and text[0].islower():
        text = text[0].upper() + text[1:]
    if polite and not WH_START.match(text):
        # "Could you ... ?": the question mark belongs to the courtesy, not to the request.
        text = re.sub(r"\?(\s*)$", r".\1", text)
        text = re.sub(r"\?(\s+)(?=[A-Z])", r".\1", text, count=1)
    return text, polite


# --------------------------------------------------------------------------------------------
# Questions asking for information

_QUESTION_START = re.compile(
    r"^\s*(what|how many|how much|how long|how often|which|who|whom|whose|when|where|"
    r"is there|are there|do i|does|did i|have i)\b",
    re.IGNORECASE,
)


def is_question(goal: str) -> bool:
    """Information-retrieval goals: a sentence opens with a question word or an ask ("tell
    me", "list"), or ends with `?` without being a polite request ("Could you pause it?")."""
    text, _ = strip_politeness(goal or "")
    if not text:
        return False
    sentences = [s.strip() for s in re.split(r"(?<=[?.!;])\s+", text) if s.strip()]
    for sentence in sentences:
        bare = re.sub(r"^(?:in|on|using|with)\s+[^,]{1,40},\s*", "", sentence, flags=re.I)
        opens = _QUESTION_START.match(bare) or WH_START.match(bare)
        if opens and not is_condition(bare):
            return True
    if re.search(r"\b(?:tell|give|show)\s+me\s+(?:the|what|which|how|my)\b", text, re.I):
        return True
    return any(s.endswith("?") for s in sentences)
