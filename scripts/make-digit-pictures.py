#!/usr/bin/env python3
"""Writes data/images/, pictures of MNIST test digits drawn the way a user's own would be:
dark ink on light paper, larger than 28 x 28, smoothed, off-center. `seatorch predict` must
give them their MNIST labels back (tests/cli/pipeline.cmake, README quick start).

Deterministic, standard library only; reads data/mnist-small and reuses the PNG writer of
tests/fuzz/make_corpus.py. The files are committed: run this again only to change them.
"""
import gzip
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "fuzz"))
from make_corpus import png  # noqa: E402

PAPER = 236  # light grey paper
INK = 28     # dark pencil


def test_digit(index):
    with gzip.open(os.path.join(ROOT, "data", "mnist-small", "t10k-images-idx3-ubyte.gz")) as f:
        data = f.read()
    return data[16 + 784 * index:16 + 784 * (index + 1)]


def upscale(pixels, scale):
    """Bilinear upscaling of a 28 x 28 digit (sample centres aligned), clamped at the edges."""
    side = 28 * scale
    out = []
    for y in range(side):
        fy = min(max((y + 0.5) / scale - 0.5, 0.0), 27.0)
        y0, ty = int(fy), fy - int(fy)
        y1 = min(y0 + 1, 27)
        for x in range(side):
            fx = min(max((x + 0.5) / scale - 0.5, 0.0), 27.0)
            x0, tx = int(fx), fx - int(fx)
            x1 = min(x0 + 1, 27)
            top = pixels[y0 * 28 + x0] * (1 - tx) + pixels[y0 * 28 + x1] * tx
            bottom = pixels[y1 * 28 + x0] * (1 - tx) + pixels[y1 * 28 + x1] * tx
            out.append(top * (1 - ty) + bottom * ty)
    return out, side


def picture(index, scale, width, height, left, top):
    ink, side = upscale(test_digit(index), scale)
    rows = []
    for y in range(height):
        row = [0]  # filter: none
        for x in range(width):
            level = 0.0
            if left <= x < left + side and top <= y < top + side:
                level = ink[(y - top) * side + (x - left)] / 255.0
            row.append(round(PAPER - (PAPER - INK) * level))
        rows.append(bytes(row))
    return png(width, height, 0, rows)


def main():
    out = os.path.join(ROOT, "data", "images")
    os.makedirs(out, exist_ok=True)
    # Test image 0 is a 7 and test image 1 a 2 (data/README.md lists the first test labels).
    for name, index, scale, size, corner in [("digit-7.png", 0, 6, (240, 200), (30, 20)),
                                             ("digit-2.png", 1, 4, (150, 170), (40, 30))]:
        with open(os.path.join(out, name), "wb") as f:
            f.write(picture(index, scale, size[0], size[1], *corner))


if __name__ == "__main__":
    main()
