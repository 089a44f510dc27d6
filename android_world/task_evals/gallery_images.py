"""The pictures upstream's gallery tasks put on the phone: receipts, and text set as a picture.

A receipt is drawn from upstream's pools with upstream's sequence of calls on the module-level
`random` (seller, slogan, then per line: item, price, day), so a seed gives upstream's receipt.
Params keep it as data (`Receipt`: seller, slogan, lines), which stays JSON-friendly; the picture
is drawn at set-up: black text on white at upstream's sizes and places (500 px wide, the seller
at y=100, lines from y=170 every 30 px, the footer 40 px above the bottom). A text picture (the
expenses or recipes a task shows as `expenses.jpg`) is the text in 24-px type, 10 px margins.
Pillow's bundled font draws both, the same pixels on every machine.
"""

from __future__ import annotations

import datetime
import random
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from android_world.env import device
from android_world.task_evals import upstream_pools

RECEIPT_HEADER = "Date, Item, Amount"
RECEIPT_WIDTH = 500
_FIRST_DAY = datetime.date(2023, 1, 1)

Receipt = dict[str, Any]  # {"company": str, "slogan": str, "transactions": [[day, item, price]]}


def _font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


def _random_day() -> datetime.date:
    """A day of 2023 before the device's date (upstream: `randrange` over the days between)."""
    days = (device.FROZEN_DEVICE_TIME.date() - _FIRST_DAY).days
    return _FIRST_DAY + datetime.timedelta(days=random.randrange(days))


def _random_line() -> list[str]:
    item, (low, high) = random.choice(upstream_pools.RECEIPT_ITEMS)
    price = random.uniform(low, high)
    return [_random_day().isoformat(), item, f"${price:.2f}"]


def random_receipt(num_transactions: int = 1) -> Receipt:
    company = random.choice(upstream_pools.RECEIPT_COMPANIES)
    slogan = random.choice(upstream_pools.RECEIPT_SLOGANS)
    lines = [_random_line() for _ in range(num_transactions)]
    return {"company": company, "slogan": slogan, "transactions": lines}


def receipt_lines(receipt: Receipt) -> list[str]:
    """The transactions as the receipt prints them: "2023-05-14, Webcam, $42.17"."""
    return [", ".join(line) for line in receipt["transactions"]]


def receipt_text(receipt: Receipt) -> str:
    """Everything the receipt says above its footer (upstream's `create_receipt` text)."""
    head = [receipt["company"], receipt["slogan"], RECEIPT_HEADER]
    return "\n".join(head + receipt_lines(receipt)).strip()


def receipt_image(receipt: Receipt) -> Image.Image:
    lines = receipt_lines(receipt)
    height = max(250, 50 * (len(lines) + 4)) * 2
    image = Image.new("RGB", (RECEIPT_WIDTH, height), (255, 255, 255))
    pen = ImageDraw.Draw(image)
    black = (0, 0, 0)
    pen.text((10, 100), f"{receipt['company']}\n{receipt['slogan']}", fill=black, font=_font(20))
    for i, line in enumerate(lines):
        pen.text((10, 170 + 30 * i), line, fill=black, font=_font(16))
    pen.text((10, height - 40), upstream_pools.RECEIPT_FOOTER, fill=black, font=_font(12))
    return image


def text_image(text: str, font_size: int = 24) -> Image.Image:
    """`text` set on a white picture just big enough for it; a blank line is half a line."""
    font = _font(font_size)
    rows = text.split("\n")
    heights = [font.getbbox(row)[3] if row.strip() else font_size // 2 for row in rows]
    width = max((font.getbbox(row)[2] for row in rows if row.strip()), default=0)
    image = Image.new("RGB", (width + 20, sum(heights) + 20), (255, 255, 255))
    pen = ImageDraw.Draw(image)
    y = 10
    for row, height in zip(rows, heights, strict=True):
        if row.strip():
            pen.text((10, y), row, fill=(0, 0, 0), font=font)
        y += height
    return image
