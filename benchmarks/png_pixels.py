"""Do two runs' screenshots show the same pixels? Every step PNG of run A against run B.

Run: `python benchmarks/png_pixels.py RUN_A RUN_B` (run directories, or folders holding one
`run_*` each, as `--output_path` makes them). Since stop 39 the screenshot encoder writes other
bytes than Pillow's for the same frame (harness/png_writer.encode_png), so byte comparisons of
runs across that change say nothing; this decodes both files and compares the arrays. Prints
the count of files, how many are byte-identical and pixel-identical, and both runs' total size;
exits 1 when a file is missing on one side or any decoded frame differs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from PIL import Image


def run_dir(path: Path) -> Path:
    runs = sorted(p for p in path.iterdir() if p.is_dir() and p.name.startswith("run_"))
    return runs[0] if len(runs) == 1 else path


def decoded(path: Path) -> tuple[str, np.ndarray]:
    with Image.open(path) as image:
        return image.mode, np.asarray(image)


def compare(a: Path, b: Path) -> dict[str, object]:
    a, b = run_dir(a), run_dir(b)
    names_a = {p.relative_to(a) for p in a.rglob("*.png")}
    names_b = {p.relative_to(b) for p in b.rglob("*.png")}
    same_bytes = same_pixels = 0
    differing: list[str] = []
    for name in sorted(names_a & names_b):
        data_a, data_b = (a / name).read_bytes(), (b / name).read_bytes()
        if data_a == data_b:
            same_bytes += 1
            same_pixels += 1
            continue
        mode_a, pixels_a = decoded(a / name)
        mode_b, pixels_b = decoded(b / name)
        if mode_a == mode_b and np.array_equal(pixels_a, pixels_b):
            same_pixels += 1
        else:
            differing.append(str(name))
    return {
        "files": len(names_a | names_b),
        "only_a": sorted(map(str, names_a - names_b)),
        "only_b": sorted(map(str, names_b - names_a)),
        "same_bytes": same_bytes,
        "same_pixels": same_pixels,
        "differing": differing,
        "bytes_a": sum((a / n).stat().st_size for n in names_a),
        "bytes_b": sum((b / n).stat().st_size for n in names_b),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_a", type=Path)
    parser.add_argument("run_b", type=Path)
    args = parser.parse_args(argv)
    found = compare(args.run_a, args.run_b)
    print("| PNGs | byte-identical | pixel-identical | only in A | only in B | MiB A | MiB B |")
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {found['files']} | {found['same_bytes']} | {found['same_pixels']} "
        f"| {len(found['only_a'])} | {len(found['only_b'])} "
        f"| {found['bytes_a'] / 2**20:.1f} | {found['bytes_b'] / 2**20:.1f} |"
    )
    for name in [*found["only_a"], *found["only_b"], *found["differing"]][:10]:
        print("differs or missing:", name)
    ok = not (found["only_a"] or found["only_b"] or found["differing"])
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
