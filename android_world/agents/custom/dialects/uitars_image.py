"""UI-TARS image sizing: the Qwen2.5-VL processor's smart resize, done on our side.

Sending the image at exactly the size the server would produce keeps coordinate mapping exact.
"""

from __future__ import annotations

import math

import numpy as np
from PIL import Image

IMAGE_FACTOR = 28
MIN_PIXELS = 100 * 28 * 28
MAX_PIXELS = 16384 * 28 * 28
DEFAULT_CLIENT_MAX_PIXELS = 28 * 28 * 1280  # 1,003,520: under every server's own limit


def smart_resize(
    height: int,
    width: int,
    factor: int = IMAGE_FACTOR,
    min_pixels: int = MIN_PIXELS,
    max_pixels: int = MAX_PIXELS,
) -> tuple[int, int]:
    """(height, width) the Qwen2.5-VL processor turns an image into: multiples of `factor`.

    Same arithmetic as the model's own processor so that a pre-resized image passes through the
    server unchanged. Unlike the reference it never raises on extreme aspect ratios.
    """
    height = max(1, int(height))
    width = max(1, int(width))
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def resize_for_model(
    image: np.ndarray,
    max_pixels: int = DEFAULT_CLIENT_MAX_PIXELS,
    factor: int = IMAGE_FACTOR,
    min_pixels: int = MIN_PIXELS,
) -> tuple[np.ndarray, tuple[int, int]]:
    """The screenshot resized to its smart-resized size, and that size as (width, height).

    Sending an image whose sides are multiples of 28 and whose area is under every server cap
    means the model sees exactly this image, so coordinates map back with exactly these numbers.
    """
    array = np.asarray(image)
    if array.ndim == 2:
        array = np.stack([array] * 3, axis=-1)
    if array.ndim == 3 and array.shape[2] == 4:
        array = array[:, :, :3]
    if array.dtype != np.uint8:
        array = np.clip(array, 0, 255).astype(np.uint8)
    height, width = array.shape[:2]
    new_height, new_width = smart_resize(
        height, width, factor=factor, min_pixels=min_pixels, max_pixels=max_pixels
    )
    if (new_height, new_width) != (height, width):
        resized = Image.fromarray(array).resize((new_width, new_height), Image.Resampling.BICUBIC)
        array = np.asarray(resized)
    return array, (new_width, new_height)
