"""Media files as the apps on a phone store them: MP3 songs, M4A recordings, MP4 videos with text.

The simulated phone plays no sound and decodes no pictures, so each file carries, in its real
container, what an app shows and a task reads:

* MP3 (songs): an ID3v2 tag (title, artist, TLEN = length in ms, written with mutagen) and one
  MPEG-1 Layer III "Info" frame that declares the frame count, from which players compute the
  length. No audio frames follow it.
* M4A (recordings): an ISO base media file (`ftyp`, `moov` with an AAC track description whose
  movie and media headers hold the duration, `mdat`). The AAC samples are zero-filled
  placeholders of the right count, not decodable sound.
* MP4 (videos): an ISO base media file whose one track is 3GPP timed text (`tx3g`): a sample per
  message, lasting as long as the message shows. Upstream's videos draw each message on their
  frames; the sim's player draws the sample that is showing as the frame, so the text is what a
  viewer (or OCR) reads.

The readers take untrusted bytes: they run in linear time and raise `MediaError` for anything
that is not such a file.
"""

from __future__ import annotations

import dataclasses
import io
import struct
from collections.abc import Iterator

from mutagen import MutagenError
from mutagen.id3 import ID3, TIT2, TLEN, TPE1
from mutagen.mp3 import MP3

MP3_SAMPLE_RATE = 44100
_MP3_SAMPLES_PER_FRAME = 1152
# MPEG-1 Layer III, no CRC, 128 kbit/s, 44.1 kHz, no padding, mono, original: 417-byte frames.
_MP3_HEADER = b"\xff\xfb\x90\xc4"
_MP3_FRAME_BYTES = 417
_MP3_SIDE_INFO_MONO = 17
_INFO_FRAMES_FLAG = 1

AAC_SAMPLE_RATE = 44100
_AAC_FRAME_SAMPLES = 1024
_AAC_PLACEHOLDER_BYTES = 6
_MOVIE_TIMESCALE = 1000  # movie header in milliseconds
_TEXT_TIMESCALE = 1000
_MAX_SAMPLES = 5_000_000  # a reader's bound on tables from an untrusted file
VIDEO_SIZE = (320, 240)  # upstream's frames


class MediaError(ValueError):
    """Bytes that are not a media file of the expected kind (or are damaged)."""


# ---- MP3 -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SongTags:
    """What a media scanner reads from a song file."""

    title: str
    artist: str
    duration_ms: int


def mp3_bytes(title: str, artist: str, duration_ms: int) -> bytes:
    """An MP3 file of `duration_ms` (see the module docstring) tagged with title and artist."""
    frames = round(max(0, duration_ms) * MP3_SAMPLE_RATE / 1000 / _MP3_SAMPLES_PER_FRAME)
    frame = bytearray(_MP3_FRAME_BYTES)
    frame[:4] = _MP3_HEADER
    tag_at = 4 + _MP3_SIDE_INFO_MONO
    frame[tag_at : tag_at + 12] = b"Info" + struct.pack(">II", _INFO_FRAMES_FLAG, frames)
    tags = ID3()
    tags.add(TIT2(encoding=3, text=[title]))
    tags.add(TPE1(encoding=3, text=[artist]))
    tags.add(TLEN(encoding=3, text=[str(max(0, duration_ms))]))
    buffer = io.BytesIO(bytes(frame))
    tags.save(buffer, v1=0, padding=lambda _info: 0)
    return buffer.getvalue()


def read_song_tags(data: bytes, fallback_title: str = "") -> SongTags:
    """Title, artist and length of an MP3 file (TLEN if tagged, else the frames' length)."""
    try:
        song = MP3(io.BytesIO(data))
    except (MutagenError, struct.error, ValueError) as exc:
        raise MediaError(f"not an MP3 file: {exc}") from exc
    tags = song.tags or {}

    def text(frame_id: str) -> str:
        frame = tags.get(frame_id)
        return str(frame.text[0]) if frame is not None and frame.text else ""

    length = text("TLEN")
    duration_ms = int(length) if length.isdigit() else round(song.info.length * 1000)
    return SongTags(text("TIT2") or fallback_title, text("TPE1"), duration_ms)


# ---- ISO base media files (M4A, MP4) -------------------------------------------------------


def _box(kind: str, *parts: bytes) -> bytes:
    payload = b"".join(parts)
    return struct.pack(">I4s", 8 + len(payload), kind.encode("ascii")) + payload


def _full_box(kind: str, flags: int, *parts: bytes) -> bytes:
    return _box(kind, struct.pack(">I", flags), *parts)  # version 0


_MATRIX = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)


def _mvhd(duration_ms: int) -> bytes:
    return _full_box(
        "mvhd",
        0,
        struct.pack(">IIII", 0, 0, _MOVIE_TIMESCALE, duration_ms),
        struct.pack(">IH", 0x10000, 0x100),
        bytes(10),
        _MATRIX,
        bytes(24),
        struct.pack(">I", 2),
    )


def _tkhd(duration_ms: int, size: tuple[int, int], volume: int) -> bytes:
    return _full_box(
        "tkhd",
        3,  # enabled, in movie
        struct.pack(">IIIII", 0, 0, 1, 0, duration_ms),
        bytes(8),
        struct.pack(">hhHH", 0, 0, volume, 0),
        _MATRIX,
        struct.pack(">II", size[0] << 16, size[1] << 16),
    )


def _stbl(entry: bytes, deltas: list[int], sizes: list[int], offset: int) -> bytes:
    runs: list[list[int]] = []
    for delta in deltas:
        if runs and runs[-1][1] == delta:
            runs[-1][0] += 1
        else:
            runs.append([1, delta])
    uniform = len(set(sizes)) == 1
    stsz_table = b"" if uniform else b"".join(struct.pack(">I", s) for s in sizes)
    chunks = [(1, len(sizes), 1)] if sizes else []  # every sample in one chunk
    return _box(
        "stbl",
        _full_box("stsd", 0, struct.pack(">I", 1), entry),
        _full_box("stts", 0, struct.pack(">I", len(runs)), *(struct.pack(">II", *r) for r in runs)),
        _full_box(
            "stsc", 0, struct.pack(">I", len(chunks)), *(struct.pack(">III", *c) for c in chunks)
        ),
        _full_box(
            "stsz", 0, struct.pack(">II", sizes[0] if uniform else 0, len(sizes)), stsz_table
        ),
        _full_box(
            "stco", 0, struct.pack(">I", len(chunks)), struct.pack(">I", offset) * len(chunks)
        ),
    )


@dataclasses.dataclass(frozen=True)
class _Track:
    handler: str  # "soun", "text"
    name: str
    media_header: bytes
    entry: bytes  # the sample description
    timescale: int
    deltas: list[int]  # each sample's duration in `timescale` units
    samples: list[bytes]
    size: tuple[int, int] = (0, 0)
    volume: int = 0


def _iso_file(brand: str, compatible: tuple[str, ...], track: _Track) -> bytes:
    duration_ms = sum(track.deltas) * _MOVIE_TIMESCALE // track.timescale
    ftyp = _box("ftyp", brand.encode(), struct.pack(">I", 0), *(c.encode() for c in compatible))
    dinf = _box("dinf", _full_box("dref", 0, struct.pack(">I", 1), _full_box("url ", 1)))
    mdhd = _full_box(
        "mdhd", 0, struct.pack(">IIIIHH", 0, 0, track.timescale, sum(track.deltas), 0x55C4, 0)
    )
    hdlr = _full_box(
        "hdlr",
        0,
        struct.pack(">I4s", 0, track.handler.encode()),
        bytes(12),
        track.name.encode() + b"\0",
    )
    sizes = [len(s) for s in track.samples]

    def moov(offset: int) -> bytes:
        minf = _box(
            "minf", track.media_header, dinf, _stbl(track.entry, track.deltas, sizes, offset)
        )
        trak = _box(
            "trak", _tkhd(duration_ms, track.size, track.volume), _box("mdia", mdhd, hdlr, minf)
        )
        return _box("moov", _mvhd(duration_ms), trak)

    offset = len(ftyp) + len(moov(0)) + 8
    return ftyp + moov(offset) + _box("mdat", *track.samples)


def _descriptor(tag: int, *parts: bytes) -> bytes:
    payload = b"".join(parts)
    return bytes([tag, len(payload)]) + payload


def _mp4a_entry() -> bytes:
    # AAC-LC, 44.1 kHz, mono: AudioSpecificConfig 0x1208.
    decoder_config = _descriptor(
        4,
        bytes([0x40, 0x15]),
        bytes(3),
        struct.pack(">II", 64000, 64000),
        _descriptor(5, b"\x12\x08"),
    )
    es = _descriptor(3, struct.pack(">HB", 1, 0), decoder_config, _descriptor(6, b"\x02"))
    return _box(
        "mp4a",
        bytes(6),
        struct.pack(">H", 1),
        bytes(8),
        struct.pack(">HHHH", 1, 16, 0, 0),
        struct.pack(">I", AAC_SAMPLE_RATE << 16),
        _full_box("esds", 0, es),
    )


def m4a_bytes(duration_ms: int) -> bytes:
    """An AAC-in-MP4 recording of `duration_ms` (placeholder samples, real headers)."""
    total = round(max(0, duration_ms) * AAC_SAMPLE_RATE / 1000)
    full, rest = divmod(total, _AAC_FRAME_SAMPLES)
    deltas = [_AAC_FRAME_SAMPLES] * full + ([rest] if rest else [])
    return _iso_file(
        "M4A ",
        ("M4A ", "mp42", "isom"),
        _Track(
            "soun",
            "SoundHandler",
            _full_box("smhd", 0, struct.pack(">hH", 0, 0)),
            _mp4a_entry(),
            AAC_SAMPLE_RATE,
            deltas,
            [bytes(_AAC_PLACEHOLDER_BYTES)] * len(deltas),
            volume=0x100,
        ),
    )


def _tx3g_entry(size: tuple[int, int]) -> bytes:
    font = b"Sans-serif"
    yellow = bytes([255, 255, 0, 255])
    return _box(
        "tx3g",
        bytes(6),
        struct.pack(">H", 1),
        struct.pack(">Ibb", 0, 1, -1),  # display flags; centred, at the bottom
        bytes(4),  # transparent background
        struct.pack(">hhhh", 0, 0, size[1], size[0]),
        struct.pack(">HHHBB", 0, 0, 1, 0, 18) + yellow,
        _box("ftab", struct.pack(">HHB", 1, 1, len(font)), font),
    )


def video_bytes(messages: list[tuple[str, int]], size: tuple[int, int] = VIDEO_SIZE) -> bytes:
    """An MP4 video showing each (text, milliseconds) message in turn (see the module doc)."""
    samples = []
    for text, _ in messages:
        encoded = text.encode("utf-8")
        samples.append(struct.pack(">H", len(encoded)) + encoded)
    return _iso_file(
        "mp42",
        ("mp42", "isom", "3gp6"),
        _Track(
            "text",
            "TextHandler",
            _full_box("nmhd", 0),
            _tx3g_entry(size),
            _TEXT_TIMESCALE,
            [max(0, ms) for _, ms in messages],
            samples,
            size=size,
        ),
    )


# ---- reading ISO base media files ----------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Sample:
    start_ms: int
    duration_ms: int
    data: bytes


@dataclasses.dataclass(frozen=True)
class MediaInfo:
    """What a player reads from an ISO base media file's first track."""

    brand: str
    duration_ms: int
    handler: str  # "soun" (audio), "text" (timed text), "vide", ...
    samples: tuple[Sample, ...]

    def text_at(self, position_ms: int) -> str:
        """The timed-text sample showing at `position_ms` ("" for none or another track kind)."""
        if self.handler != "text":
            return ""
        for sample in self.samples:
            if sample.start_ms <= position_ms < sample.start_ms + sample.duration_ms:
                return _tx3g_text(sample.data)
        return ""

    def texts(self) -> list[str]:
        return [_tx3g_text(s.data) for s in self.samples] if self.handler == "text" else []


def _tx3g_text(data: bytes) -> str:
    if len(data) < 2:
        return ""
    (length,) = struct.unpack_from(">H", data)
    return data[2 : 2 + length].decode("utf-8", errors="replace")


def _boxes(data: bytes, start: int, end: int) -> Iterator[tuple[str, int, int]]:
    """(kind, payload start, box end) of the boxes laid end to end in data[start:end]."""
    pos = start
    while pos + 8 <= end:
        size, kind = struct.unpack_from(">I4s", data, pos)
        header = 8
        if size == 1:
            if pos + 16 > end:
                raise MediaError("truncated box header")
            (size,) = struct.unpack_from(">Q", data, pos + 8)
            header = 16
        elif size == 0:
            size = end - pos
        if size < header or pos + size > end:
            raise MediaError(f"box {kind!r} overruns its parent")
        yield kind.decode("latin-1"), pos + header, pos + size
        pos += size


def _find(data: bytes, start: int, end: int, path: str) -> tuple[int, int]:
    for part in path.split("/"):
        for kind, child_start, child_end in _boxes(data, start, end):
            if kind == part:
                start, end = child_start, child_end
                break
        else:
            raise MediaError(f"no {part!r} box")
    return start, end


def _table(data: bytes, start: int, end: int, skip: int, fmt: str) -> list[tuple[int, ...]]:
    """A full box's counted table of `fmt` records, after `skip` bytes of fields."""
    if start + 8 + skip > end:
        raise MediaError("truncated table")
    (count,) = struct.unpack_from(">I", data, start + 4 + skip)
    width = struct.calcsize(fmt)
    first = start + 8 + skip
    if count > _MAX_SAMPLES or first + count * width > end:
        raise MediaError("table larger than its box")
    return [struct.unpack_from(fmt, data, first + i * width) for i in range(count)]


def _header_times(data: bytes, start: int, end: int) -> tuple[int, int]:
    """(timescale, duration) of an mvhd or mdhd box of either version."""
    if start + 4 > end:
        raise MediaError("truncated header")
    if data[start] == 1:
        if start + 32 > end:
            raise MediaError("truncated header")
        timescale, duration = struct.unpack_from(">IQ", data, start + 20)
    else:
        if start + 20 > end:
            raise MediaError("truncated header")
        timescale, duration = struct.unpack_from(">II", data, start + 12)
    if not timescale:
        raise MediaError("zero timescale")
    return timescale, duration


def read_media(data: bytes) -> MediaInfo:
    """Duration, first track kind and its samples (timed against the media's clock)."""
    try:
        return _read_media(data)
    except struct.error as exc:
        raise MediaError(f"damaged media file: {exc}") from exc


def _read_media(data: bytes) -> MediaInfo:
    if len(data) < 8 or data[4:8] != b"ftyp":
        raise MediaError("not an ISO base media file (no ftyp box)")
    brand = data[8:12].decode("latin-1")
    movie_scale, movie_duration = _header_times(data, *_find(data, 0, len(data), "moov/mvhd"))
    mdia = _find(data, 0, len(data), "moov/trak/mdia")
    hdlr_start, hdlr_end = _find(data, *mdia, "hdlr")
    if hdlr_start + 12 > hdlr_end:
        raise MediaError("truncated hdlr box")
    handler = data[hdlr_start + 8 : hdlr_start + 12].decode("latin-1")
    scale, _ = _header_times(data, *_find(data, *mdia, "mdhd"))
    stbl = _find(data, *mdia, "minf/stbl")
    deltas: list[int] = []
    for count, delta in _table(data, *_find(data, *stbl, "stts"), 0, ">II"):
        if len(deltas) + count > _MAX_SAMPLES:
            raise MediaError("too many samples")
        deltas += [delta] * count
    stsz_start, stsz_end = _find(data, *stbl, "stsz")
    if stsz_start + 12 > stsz_end:
        raise MediaError("truncated stsz box")
    uniform, count = struct.unpack_from(">II", data, stsz_start + 4)
    if count > _MAX_SAMPLES:
        raise MediaError("too many samples")
    sizes = (
        [uniform] * count
        if uniform
        else [s for (s,) in _table(data, stsz_start, stsz_end, 4, ">I")]
    )
    chunk_runs = _table(data, *_find(data, *stbl, "stsc"), 0, ">III")
    offsets = [o for (o,) in _table(data, *_find(data, *stbl, "stco"), 0, ">I")]
    samples: list[Sample] = []
    clock = index = run = 0
    for chunk, offset in enumerate(offsets, start=1):
        while run + 1 < len(chunk_runs) and chunk_runs[run + 1][0] <= chunk:
            run += 1
        per_chunk = chunk_runs[run][1] if chunk_runs and chunk_runs[run][0] <= chunk else 0
        for _ in range(per_chunk):
            if index >= len(sizes) or index >= len(deltas):
                raise MediaError("sample tables disagree")
            size = sizes[index]
            if offset + size > len(data):
                raise MediaError("sample past the end of the file")
            samples.append(
                Sample(
                    clock * 1000 // scale,
                    deltas[index] * 1000 // scale,
                    data[offset : offset + size],
                )
            )
            clock += deltas[index]
            offset += size
            index += 1
    return MediaInfo(brand, movie_duration * 1000 // movie_scale, handler, tuple(samples))


def format_duration(ms: int) -> str:
    """`m:ss` (or `h:mm:ss`) as media apps show lengths."""
    seconds = max(0, ms) // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
