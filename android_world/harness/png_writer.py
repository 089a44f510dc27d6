"""Step screenshots written off the step path (issue 30: PNG encoding was 64% of an offline run).

A step hands its frame to `PngWriter.submit` and goes on; one background thread encodes and
writes the files in submission order. Why it is safe and the files are the same:

- Same bytes: every file is encoded by `encode_png`, which `save_png` uses too, and the encoder
  is deterministic; a frame already encoded (the same pixels, found by their digest) is not
  encoded again, its bytes are reused. The simulated phone revisits screens: about half the
  frames of the offline suite repeat one seen a few steps earlier.
- Cheap to encode: Pillow chooses a PNG filter per row by trying all five (for an RGB frame
  that, not zlib, was 25 of its 34 ms a 1080x2400 frame, and Pillow has no setting for it), so
  `encode_png` filters every row with "Up" in one numpy subtraction and deflates with zlib:
  ~14 ms a frame, files ~3% larger. The decoded pixels are the frame's exactly (PNG is
  lossless; tests decode every kind of frame with Pillow and compare); the bytes differ from
  Pillow's since stop 39.
- Hashed once: the sim's renderer hands back the very same read-only array for a screen it
  shows again, so a frame object seen before is known by its identity (a weak reference, so a
  recycled id is never mistaken for it) and its pixels are not hashed again: SHA-1 of a
  1080x2400 frame is ~4 ms, a third of the offline suite's frames skip it.
- Bounded: at most `max_pending` frames wait (`submit` blocks beyond that), so a slow disk slows
  the run instead of filling memory.
- Atomic: a file appears under its name only complete (temp file + os.replace); a process killed
  mid-write leaves at most a hidden `.step_NNN.png.tmp`, which the episode's rerun removes with
  its folder.
- Flushed: `flush()` waits for every frame submitted so far and returns the ones that failed;
  `take_pending()` hands the futures over instead, so the serial run writes an episode's
  episode.json once its frames are written, without waiting (harness/episode_landing.py). concurrent.futures finishes queued work at interpreter exit, so an interrupted run
  still writes the frames of the steps it took.
- Frames are not copied when the array is read-only (the sim's frames are); a writable array is
  copied at submit, so a caller that later reuses its buffer cannot change a queued frame.
"""

from __future__ import annotations

import collections
import concurrent.futures
import hashlib
import io
import os
import struct
import threading
import zlib
from pathlib import Path

import numpy as np
from PIL import Image

from android_world.agents.custom.celil_frame_memo import ByFrameObject
from android_world.harness.episode_landing import frame_failures

PNG_COMPRESS_LEVEL = 3  # zlib 3: as fast as 1 on screen frames, smaller; 6 is twice as slow
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOUR_TYPES = {1: 0, 3: 2, 4: 6}  # channels -> PNG colour type: grey, RGB, RGBA
_FILTER_UP = 2
_CHUNK_LIMIT = 2**30


def encode_png(pixels: np.ndarray) -> bytes:
    """The PNG bytes of an (H, W), (H, W, 3) or (H, W, 4) uint8 frame, as every step screenshot
    is encoded: 8 bits a sample, every row filtered "Up" (its difference from the row above,
    modulo 256; the first row's "above" is zeros, per the PNG spec), deflated at
    PNG_COMPRESS_LEVEL. Other shapes go to Pillow, as before."""
    frame = np.asarray(pixels, dtype=np.uint8)
    channels = 1 if frame.ndim == 2 else (frame.shape[2] if frame.ndim == 3 else 0)
    colour_type = _COLOUR_TYPES.get(channels)
    height, width = frame.shape[:2] if frame.ndim >= 2 else (0, 0)
    if colour_type is None or not height or not width:
        buffer = io.BytesIO()
        Image.fromarray(frame).save(buffer, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
        return buffer.getvalue()
    rows = np.ascontiguousarray(frame).reshape(height, width * channels)
    filtered = np.empty((height, width * channels + 1), dtype=np.uint8)
    filtered[:, 0] = _FILTER_UP
    filtered[0, 1:] = rows[0]
    np.subtract(rows[1:], rows[:-1], out=filtered[1:, 1:])  # uint8: wraps modulo 256
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return b"".join(
        (
            _PNG_SIGNATURE,
            _chunk(b"IHDR", header),
            *_idat_chunks(zlib.compress(memoryview(filtered).cast("B"), PNG_COMPRESS_LEVEL)),
            _chunk(b"IEND", b""),
        )
    )


def _idat_chunks(deflated: bytes) -> list[bytes]:
    """A chunk holds < 2**31 bytes; a decoder joins consecutive IDAT chunks."""
    step = _CHUNK_LIMIT
    return [_chunk(b"IDAT", deflated[i : i + step]) for i in range(0, len(deflated), step)]


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data))
        + kind
        + data
        + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))
    )


def write_bytes_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def frame_key(pixels: np.ndarray) -> tuple[tuple[int, ...], str, bytes]:
    """Shape, dtype and a digest of the pixels: equal keys mean equal frames (SHA-1 collisions
    do not happen by accident; nothing here is adversarial)."""
    data = np.ascontiguousarray(pixels)
    digest = hashlib.sha1(memoryview(data).cast("B"), usedforsecurity=False).digest()
    return tuple(data.shape), str(data.dtype), digest


class EncodedCache:
    """The PNG bytes of the last `size` distinct frames, least recently used dropped first.

    Read-only frames are also remembered by identity (the last `size` of them): such a frame is
    never written to (PngWriter's contract, and the sim's renderer makes its frames read-only),
    so the same object has the same pixels and its digest need not be computed again."""

    def __init__(self, size: int = 32):
        self.size = size
        self.hits = 0
        self.misses = 0
        self.keys_reused = 0  # frames known by identity, not hashed
        self._items: collections.OrderedDict[tuple, bytes] = collections.OrderedDict()
        self._seen: ByFrameObject[tuple] = ByFrameObject(size)

    def _key(self, pixels: np.ndarray) -> tuple:
        if pixels.flags.writeable:
            return frame_key(pixels)
        key, kept = self._seen.get(pixels, frame_key)
        self.keys_reused += kept
        return key

    def encoded(self, pixels: np.ndarray) -> bytes:
        if self.size <= 0:
            self.misses += 1
            return encode_png(pixels)
        key = self._key(pixels)
        data = self._items.get(key)
        if data is not None:
            self._items.move_to_end(key)
            self.hits += 1
            return data
        self.misses += 1
        data = encode_png(pixels)
        self._items[key] = data
        while len(self._items) > self.size:
            self._items.popitem(last=False)
        return data


class PngWriter:
    """One background thread writing frames to PNG files, in order, at most `max_pending` queued."""

    def __init__(self, max_pending: int = 8, cache_size: int = 32):
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="png-writer")
        self._slots = threading.BoundedSemaphore(max_pending)
        self._cache = EncodedCache(cache_size)  # used by the writer thread only
        self._pending: list[tuple[Path, concurrent.futures.Future[None]]] = []
        self._closed = False

    @property
    def cache(self) -> EncodedCache:
        return self._cache

    def submit(self, pixels: np.ndarray, path: Path) -> None:
        """Queue `pixels` for `path`; blocks while `max_pending` frames are waiting."""
        if self._closed:
            raise RuntimeError("PngWriter is closed")
        frame = np.asarray(pixels)
        if frame.flags.writeable:
            frame = frame.copy()
        self._slots.acquire()
        try:
            future = self._pool.submit(self._write, frame, Path(path))
        except BaseException:
            self._slots.release()
            raise
        future.add_done_callback(lambda _f: self._slots.release())
        self._pending.append((Path(path), future))

    def _write(self, frame: np.ndarray, path: Path) -> None:
        write_bytes_atomic(path, self._cache.encoded(frame))

    def take_pending(self) -> list[tuple[Path, concurrent.futures.Future[None]]]:
        """The frames submitted since the last flush or take, each with its future; the caller
        waits for them (`episode_landing.frame_failures`) when it needs them on disk."""
        pending, self._pending = self._pending, []
        return pending

    def flush(self) -> dict[Path, str]:
        """Wait for every frame submitted so far; the files that could not be written, with why."""
        return frame_failures(self.take_pending())

    def close(self) -> dict[Path, str]:
        """Flush, then stop the thread; safe to call twice."""
        failed = self.flush()
        if not self._closed:
            self._closed = True
            self._pool.shutdown(wait=True)
        return failed
