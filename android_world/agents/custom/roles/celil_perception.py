"""Perception: turn an env `State` into the `Observation` every Celil role reads.

The accessibility tree is the primary source (exact text, indices the env can act on); tesseract
OCR fills the gap on screens whose tree carries little text (web views, canvases, games). OCR is
the single most expensive thing Celil does locally, so results are cached per frame and, in
`auto` mode, skipped whenever the tree already describes the screen.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import os
import shutil
import threading
import time
import zlib
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np

from android_world.agents.custom import celil_geometry, celil_optional, celil_untrusted
from android_world.agents.custom.celil_frame_memo import ByFrameObject
from android_world.agents.custom.celil_protocols import Observation, OcrLine, Perceiver
from android_world.env import interface, representation_utils

OcrMode = Literal["auto", "always", "off"]
OCR_MODES: tuple[str, ...] = ("auto", "always", "off")
# Measured with tesseract 5.3 and one OpenMP thread on the 2-core machine, on the sim's frames
# (every app's first screen, its dialogs, filled forms; words of the visible element texts).
# Word recall (mean over frames) / CPU seconds per frame (median):
#   22 frames:  psm 3 RGB 0.953 / 0.57   psm 3 gray 0.923 / 0.41   psm 6 RGB 0.935 / 0.49
#               psm 6 gray 0.934 / 0.35  psm 11 RGB 0.934 / 0.46   psm 11 gray 0.931 / 0.32
#   54 frames:  psm 3 RGB 0.969 / 0.47 (worst frame 0.75, max 0.98 s)
#               psm 3 gray 0.961 / 0.34 (worst frame 0.50)
# psm 3 on the RGB frame reads the most and stays inside the 1.2 s/frame budget.
DEFAULT_OCR_CONFIG = "--psm 3"
DEFAULT_OCR_GRAYSCALE = False
INSTALL_HINT = "apt-get install tesseract-ocr"


class PerceptionError(RuntimeError):
    """Perception cannot work as configured (e.g. OCR requested but tesseract is missing)."""


@dataclasses.dataclass
class OcrWord:
    text: str
    left: int
    top: int
    width: int
    height: int
    confidence: float
    line_key: tuple[int, int, int]


def group_words_into_lines(words: Sequence[OcrWord]) -> list[OcrLine]:
    """Tesseract reports words with (block, paragraph, line) numbers; a line is one such key.

    Lines come back in reading order (top, then left) so summaries read like the screen.
    """
    grouped: dict[tuple[int, int, int], list[OcrWord]] = collections.defaultdict(list)
    for word in words:
        grouped[word.line_key].append(word)
    lines: list[OcrLine] = []
    for members in grouped.values():
        members.sort(key=lambda w: w.left)
        box = representation_utils.BoundingBox(
            min(w.left for w in members),
            max(w.left + w.width for w in members),
            min(w.top for w in members),
            max(w.top + w.height for w in members),
        )
        text = " ".join(w.text for w in members)
        confidence = sum(w.confidence for w in members) / len(members)
        lines.append(OcrLine(text=text, box=box, confidence=round(confidence, 1)))
    lines.sort(key=lambda line: (line.box.y_min, line.box.x_min))
    return lines


def parse_tesseract_data(data: dict[str, list[Any]], min_confidence: float) -> list[OcrLine]:
    """Lines from pytesseract's `image_to_data(..., output_type=DICT)` columns."""
    words: list[OcrWord] = []
    for i, raw_text in enumerate(data.get("text", [])):
        text = str(raw_text).strip()
        if not text:
            continue
        try:
            confidence = float(data["conf"][i])
        except (KeyError, ValueError, TypeError):
            continue
        if confidence < min_confidence:
            continue
        words.append(
            OcrWord(
                text=text,
                left=int(data["left"][i]),
                top=int(data["top"][i]),
                width=int(data["width"][i]),
                height=int(data["height"][i]),
                confidence=confidence,
                line_key=(
                    int(data["block_num"][i]),
                    int(data["par_num"][i]),
                    int(data["line_num"][i]),
                ),
            )
        )
    return group_words_into_lines(words)


def pixels_digest(pixels: np.ndarray) -> str:
    """A content key of the frame for the OCR cache, in well under a millisecond.

    Hashing all 7.7 MB of a 1080x2400 frame costs 3-6 ms, which would eat the whole cache-hit
    budget, so the frame is first folded into per-row and per-column sums of 64-bit words
    (wrapping), then those 3,000 numbers are CRC'd. Any realistic UI change (a glyph, a moved
    row, a scrolled list) changes a row sum and a column sum; rows whose bytes do not split
    into words fall back to a CRC of the whole frame.
    """
    array = np.ascontiguousarray(pixels)
    shape = "x".join(map(str, array.shape))
    if array.size == 0:
        return f"{shape}-empty"
    rows = array.reshape(array.shape[0], -1) if array.ndim >= 2 else array.reshape(1, -1)
    if rows.dtype == np.uint8 and rows.shape[1] % 8 == 0:
        words = rows.view(np.uint64)
        row_sums = words.sum(axis=1, dtype=np.uint64)
        column_sums = words.sum(axis=0, dtype=np.uint64)
        checksum = zlib.crc32(column_sums.tobytes(), zlib.crc32(row_sums.tobytes()))
        return f"{shape}-s{checksum:08x}"
    return f"{shape}-c{zlib.crc32(memoryview(array).cast('B')):08x}"


class FrameDigests:
    """`pixels_digest` of the last few frames, kept by the frame object: an env that hands out
    one frame object again (the sim's renderer serves an unchanged or repeated screen from its
    cache) costs no second digest. Only a frame that owns its pixels and is read-only is kept:
    its owner has frozen it (the renderer does, and its own cache relies on it); a writable
    frame (a device's screenshot) or a view is digested every time."""

    def __init__(self, size: int = 8):
        self.hits = 0
        self._by_frame: ByFrameObject[str] = ByFrameObject(size)

    def digest(self, pixels: np.ndarray) -> str:
        frozen = (
            isinstance(pixels, np.ndarray) and pixels.base is None and not pixels.flags.writeable
        )
        if not frozen:
            return pixels_digest(pixels)
        digest, kept = self._by_frame.get(pixels, pixels_digest)
        self.hits += kept
        return digest


def element_signature(element: representation_utils.UIElement) -> str:
    """What makes an element look different to a user: text, state flags and position."""
    box = element.bbox_pixels or element.bbox
    box_text = (
        f"{round(box.x_min)},{round(box.y_min)},{round(box.x_max)},{round(box.y_max)}"
        if box is not None
        else ""
    )
    # One f-string: each field as str() gives it (its str, None, a bool), joined by "|".
    return (
        f"{element.class_name}|{element.text}|{element.content_description}|"
        f"{element.hint_text}|{element.is_checked}|{element.is_focused}|"
        f"{element.is_selected}|{element.is_enabled}|{box_text}"
    )


def ui_digest(elements: Sequence[representation_utils.UIElement]) -> str:
    """Each element's signature and a NUL, hashed (in one update: the same bytes)."""
    text = "".join([f"{element_signature(element)}\x00" for element in elements])
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=12).hexdigest()


def element_flags(element: representation_utils.UIElement) -> list[str]:
    flags: list[str] = []
    if element.is_editable:
        flags.append("editable")
    elif element.is_clickable:
        flags.append("clickable")
    if element.is_long_clickable:
        flags.append("long-clickable")
    if element.is_checkable:
        flags.append("checked" if element.is_checked else "unchecked")
    if element.is_scrollable:
        flags.append("scrollable")
    if element.is_focused:
        flags.append("focused")
    if element.is_selected:
        flags.append("selected")
    if element.is_enabled is False:
        flags.append("disabled")
    return flags


def describe_element(index: int, element: representation_utils.UIElement) -> str:
    """One prompt line: `[3] Button "Save" (clickable)`; hints are shown as hints, not text.

    Every string the app supplies is a quoted JSON string (celil_untrusted.quote): a label can
    neither break the line nor pass for the prompt's own words.
    """
    quote = celil_untrusted.quote
    class_name = "_".join(celil_geometry.short_class_name(element).split())
    parts = [f"[{index}]", celil_untrusted.neutralise(class_name)]
    text = element.text or element.content_description
    if text and text.strip():
        parts.append(quote(text, 80))
    elif element.hint_text:
        parts.append(f"hint {quote(element.hint_text, 80)}")
    elif element.resource_name:
        parts.append(f"id {quote(element.resource_name.rsplit('/', 1)[-1], 80)}")
    flags = element_flags(element)
    if flags:
        parts.append(f"({', '.join(flags)})")
    return " ".join(parts)


def summarize_ui_elements(
    elements: Sequence[representation_utils.UIElement], max_chars: int = 3000
) -> str:
    """Numbered element list for prompts, keeping each element's env index.

    Elements with neither a label nor an action are dropped (they only cost tokens); the list is
    cut at `max_chars` with a note saying how many were left out, so prompts stay bounded.
    """
    lines: list[str] = []
    used = 0
    shown = 0
    candidates = [
        (i, e)
        for i, e in enumerate(elements)
        if celil_geometry.element_label(e) or element_flags(e) or e.is_clickable
    ]
    for index, element in candidates:
        line = describe_element(index, element)
        if used + len(line) + 1 > max_chars:
            break
        lines.append(line)
        used += len(line) + 1
        shown += 1
    if shown < len(candidates):
        lines.append(f"... ({len(candidates) - shown} more elements not shown)")
    return "\n".join(lines) if lines else "(no UI elements)"


def summarize_ocr_lines(lines: Sequence[OcrLine], max_chars: int = 1500) -> str:
    """OCR lines for prompts, one quoted JSON string per line, cut at `max_chars`."""
    out: list[str] = []
    used = 0
    for line in lines:
        if not line.text.strip():
            continue
        quoted = celil_untrusted.quote(line.text)
        if used + len(quoted) + 1 > max_chars:
            out.append("...")
            break
        out.append(quoted)
        used += len(quoted) + 1
    return "\n".join(out)


def tree_text_chars(elements: Sequence[representation_utils.UIElement]) -> int:
    return sum(
        len((e.text or "").strip()) + len((e.content_description or "").strip()) for e in elements
    )


OcrFunction = Callable[[np.ndarray], list[OcrLine]]


class TesseractOcr:
    """pytesseract `image_to_data`, with tesseract limited to one OpenMP thread.

    Tesseract's OpenMP oversubscribes small machines badly (about 4.6 s vs 1 s per 1080x2400 frame
    on 2 cores), and pytesseract passes our environment to the subprocess, so the limit is set
    in `os.environ` unless the user already chose one.
    """

    def __init__(
        self,
        tesseract_cmd: str | None = None,
        lang: str = "eng",
        min_confidence: float = 30.0,
        config: str = DEFAULT_OCR_CONFIG,
        timeout_s: float = 20.0,
        grayscale: bool = DEFAULT_OCR_GRAYSCALE,
    ):
        try:
            import pytesseract  # optional; imported here so OCR-off runs do not need it
        except ImportError:
            raise PerceptionError(
                "OCR is on but the Python package pytesseract is not installed; install it with "
                "`pip install pytesseract` (and the binary: `" + INSTALL_HINT + "`) or set ocr: off"
            ) from None

        self._pytesseract = pytesseract
        command = tesseract_cmd or pytesseract.pytesseract.tesseract_cmd
        if shutil.which(command) is None:
            raise PerceptionError(
                f"OCR is on but the tesseract binary {command!r} was not found; install it with "
                f"`{INSTALL_HINT}` or set ocr: off"
            )
        if tesseract_cmd:  # pytesseract only takes the binary as a module global
            pytesseract.pytesseract.tesseract_cmd = tesseract_cmd
        os.environ.setdefault("OMP_THREAD_LIMIT", "1")
        self._lang = lang
        self._min_confidence = min_confidence
        self._config = config
        self._timeout_s = timeout_s
        self._grayscale = grayscale

    def __call__(self, pixels: np.ndarray) -> list[OcrLine]:
        from PIL import Image

        image = Image.fromarray(np.ascontiguousarray(pixels))
        if self._grayscale:
            image = image.convert("L")
        data = self._pytesseract.image_to_data(
            image,
            lang=self._lang,
            config=self._config,
            output_type=self._pytesseract.Output.DICT,
            timeout=self._timeout_s,
        )
        return parse_tesseract_data(data, self._min_confidence)


class PerceptionModule(Perceiver):
    """`process_observation(state) -> Observation`, with an LRU OCR cache keyed by frame hash.

    `ocr_fn` replaces tesseract (tests, other OCR engines). OCR is optional: with `ocr: auto` a
    missing pytesseract or tesseract binary turns OCR off with one warning (the accessibility tree
    is the primary source); with `ocr: always` it raises `PerceptionError` here, at construction,
    so a run that asked for OCR fails before its first episode.
    """

    def __init__(
        self,
        ocr: OcrMode = "auto",
        *,
        ocr_fn: OcrFunction | None = None,
        tesseract_cmd: str | None = None,
        ocr_lang: str = "eng",
        ocr_min_confidence: float = 30.0,
        ocr_config: str = DEFAULT_OCR_CONFIG,
        ocr_grayscale: bool = DEFAULT_OCR_GRAYSCALE,
        ocr_cache_size: int = 64,
        auto_min_tree_chars: int = 40,
        max_ocr_summary_chars: int = 1500,
        max_ui_summary_chars: int = 3000,
    ):
        if ocr not in OCR_MODES:
            raise PerceptionError(f"ocr must be one of {OCR_MODES}, got {ocr!r}")
        self.ocr_mode = ocr
        self._ocr_fn: OcrFunction | None = None
        # Why OCR is off although the config asked for `auto` (None when it is not).
        self.ocr_disabled_reason: str | None = None
        if ocr != "off":
            try:
                self._ocr_fn = ocr_fn or TesseractOcr(
                    tesseract_cmd=tesseract_cmd,
                    lang=ocr_lang,
                    min_confidence=ocr_min_confidence,
                    config=ocr_config,
                    grayscale=ocr_grayscale,
                )
            except PerceptionError as error:
                if ocr == "always":
                    raise
                self.ocr_disabled_reason = f"{error}; OCR is off for this run (ocr: auto)"
                celil_optional.warn_once("ocr", f"Celil: {self.ocr_disabled_reason}")
        self._cache: collections.OrderedDict[str, list[OcrLine]] = collections.OrderedDict()
        self._cache_size = max(1, ocr_cache_size)
        self._lock = threading.Lock()
        self._digests = FrameDigests()
        self._auto_min_tree_chars = auto_min_tree_chars
        self._max_ocr_chars = max_ocr_summary_chars
        self._max_ui_chars = max_ui_summary_chars
        self.ocr_calls = 0
        self.cache_hits = 0
        self.warnings: list[str] = []
        # Seconds tesseract ran for the last observation (0 when skipped or cached): the agent
        # reports it as the step's OCR time.
        self.last_ocr_seconds = 0.0

    def wants_ocr(self, elements: Sequence[representation_utils.UIElement]) -> bool:
        if self._ocr_fn is None:
            return False
        if self.ocr_mode == "always":
            return True
        return tree_text_chars(elements) < self._auto_min_tree_chars

    def ocr_lines(self, pixels: np.ndarray, key: str | None = None) -> list[OcrLine]:
        """OCR one frame, served from the cache when the same pixels were seen before.

        An OCR failure at run time degrades to no lines plus a warning: one bad frame must not
        end an episode, unlike a missing binary, which is caught at construction. A failure is
        not cached: "no text" would stick to the frame, and a stuck agent sees the same frame
        again, so a transient tesseract timeout would leave it blind on that screen for good.
        """
        if self._ocr_fn is None:
            return []
        key = key or pixels_digest(pixels)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                self.cache_hits += 1
                return self._cache[key]
        started = time.perf_counter()
        failed = False
        try:
            lines = self._ocr_fn(pixels)
        except Exception as error:
            self.warnings.append(f"OCR failed: {type(error).__name__}: {error}")
            lines, failed = [], True
        self.last_ocr_seconds += time.perf_counter() - started
        with self._lock:
            self.ocr_calls += 1
            if failed:
                return lines
            self._cache[key] = lines
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return lines

    def process_observation(
        self, state: interface.State, foreground_activity: str | None = None
    ) -> Observation:
        self.last_ocr_seconds = 0.0
        pixels = np.asarray(state.pixels)
        elements = list(state.ui_elements or [])
        pixel_key = self._digests.digest(pixels)
        lines = self.ocr_lines(pixels, pixel_key) if self.wants_ocr(elements) else []
        height, width = (pixels.shape[0], pixels.shape[1]) if pixels.ndim >= 2 else (0, 0)
        frame_hash = hashlib.blake2b(
            f"{pixel_key}:{ui_digest(elements)}".encode(), digest_size=12
        ).hexdigest()
        return Observation(
            screenshot=pixels,
            ui_elements=elements,
            ocr_lines=lines,
            ocr_summary=summarize_ocr_lines(lines, self._max_ocr_chars),
            ui_tree_summary=summarize_ui_elements(elements, self._max_ui_chars),
            screen_size=(int(width), int(height)),
            frame_hash=frame_hash,
            foreground_activity=foreground_activity,
        )

    def ocr_seconds(self) -> float:
        return self.last_ocr_seconds

    def take_warnings(self) -> list[str]:
        warnings, self.warnings = self.warnings, []
        return warnings
