#!/usr/bin/env python3
"""How training cost grows: seconds per MNIST epoch and % of the FMA peak for 784-W-10 MLPs over
hidden widths and batch sizes, seatorch and PyTorch side by side in the same run.

For each width W and batch B: one epoch of 784-W-10 (Linear, ReLU, Linear), SGD with momentum
0.9, lr 0.1, one thread, on the 60,000 MNIST training images, timed without evaluation, on
both engines (seatorch: `seatorch bench train --hidden W --batch B`; PyTorch 1.13 from Debian,
the loop of scripts/compare-pytorch.py). GFLOPS counts the model's matrix-product FLOPs per
second: 6 x (784 W + 10 W) x 60,000 (forward 2, weight and input gradients 4 per multiply-add;
the first layer's input gradient is not needed, and seatorch skips it): both engines the same
work. seatorch's first layer multiplies only the images' nonzeros (kernels/sparse_matmul.hpp),
so it does fewer FLOPs than that: its % of peak is over the FLOPs it does (`bench train`'s
product_flops_per_epoch), PyTorch's over the model's. The peak is the core's FMA peak as
`seatorch bench matmul` measures it, probed before and after the sweep (the higher reading: a probe the host slows
for a moment reads low, never high). Each point is the median of --reps runs, taken in turns
(seatorch, PyTorch, seatorch, ...) so that both see the same machine load. For seatorch the
table also gives its products timed one by one as training ran them (`bench train`'s product
log): their own share of the peak, and the seconds of the epoch spent outside them.

Writes a Markdown table to stdout and, with --svg FILE, a chart: GFLOPS against width (log
scale), one line per batch and engine.

Usage: scripts/sweep.py [--seatorch build/release/seatorch] [--data-dir data/mnist]
                        [--widths 64,128,256,512,1024] [--batches 16,32,64,128,256] [--reps 3]
                        [--svg docs/autodiff/sweep.svg]
"""
import argparse
import html
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import importlib  # noqa: E402

compare = importlib.import_module("compare-pytorch")


def product_flops(width):
    # Forward 2 per multiply-add; backward: weight gradients 2 for both layers, input gradients
    # 2 for the second layer only (the first layer's would be the gradient of the pixels).
    macs = 784 * width + width * 10
    return (2 * macs + 2 * macs + 2 * width * 10) * 60000


def seatorch_seconds(binary, data_dir, width, batch):
    """The epoch's seconds, those of its products alone, and the FLOPs its products did."""
    out = subprocess.run([binary, "--quiet", "bench", "train", "--data-dir", data_dir, "--hidden", str(width),
                          "--batch", str(batch), "--scalar-samples", "1", "--no-augmentation", "--json"],
                         check=True, capture_output=True, text=True).stdout
    report = json.loads(out)
    return report["seconds_per_epoch"], report["product_seconds_per_epoch"], report["product_flops_per_epoch"]


def fma_peak(binary):
    out = subprocess.run([binary, "--quiet", "bench", "matmul", "--sizes", "64", "--reps", "1", "--json"],
                         check=True, capture_output=True, text=True).stdout
    report = json.loads(out)
    return report["peak_gflops"], report["peak_isa"]


def svg_chart(points, widths, batches, path, machine=""):
    """GFLOPS against width (log x), one polyline per (engine, batch); `machine` (the CPU and
    its peak) goes under the title, so that the picture says what it was measured on."""
    w, h, left, right, top, bottom = 760, 460, 70, 190, 52, 50
    gmax = max(p["gflops"] for p in points) * 1.1
    import math
    xs = [math.log2(x) for x in widths]

    def px(width):
        if xs[-1] == xs[0]:  # one width: its points in the middle
            return (left + w - right) / 2
        return left + (math.log2(width) - xs[0]) / (xs[-1] - xs[0]) * (w - left - right)

    def py(g):
        return h - bottom - g / gmax * (h - top - bottom)

    colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">'
           'One MNIST epoch of 784-W-10, SGD, 1 thread: the model\'s product GFLOPS</text>',
           f'<text x="{w / 2}" y="{top - 12}" text-anchor="middle" font-size="11">{html.escape(machine)}</text>']
    step = 10 ** math.floor(math.log10(gmax / 5))
    tick = 0.0
    while tick <= gmax:
        out.append(f'<line x1="{left}" y1="{py(tick):.1f}" x2="{w - right}" y2="{py(tick):.1f}" stroke="#e0e0e0"/>')
        out.append(f'<text x="{left - 6}" y="{py(tick) + 4:.1f}" text-anchor="end">{tick:g}</text>')
        tick += step * (2 if gmax / step > 10 else 1)
    for width in widths:
        out.append(f'<text x="{px(width):.1f}" y="{h - bottom + 18}" text-anchor="middle">{width}</text>')
    out.append(f'<text x="{(left + w - right) / 2}" y="{h - 12}" text-anchor="middle">hidden width W</text>')
    out.append(f'<text x="16" y="{(top + h - bottom) / 2}" transform="rotate(-90 16 {(top + h - bottom) / 2})" '
               'text-anchor="middle">GFLOPS (the model\'s matrix products per second)</text>')
    legend_y = top + 10
    for engine, dash in (("seatorch", ""), ("PyTorch", ' stroke-dasharray="6 4"')):
        for i, batch in enumerate(batches):
            series = sorted((p for p in points if p["engine"] == engine and p["batch"] == batch),
                            key=lambda p: p["width"])
            coords = " ".join(f"{px(p['width']):.1f},{py(p['gflops']):.1f}" for p in series)
            colour = colours[i % len(colours)]
            out.append(f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
            out.append(f'<line x1="{w - right + 12}" y1="{legend_y}" x2="{w - right + 40}" y2="{legend_y}" '
                       f'stroke="{colour}" stroke-width="2"{dash}/>')
            out.append(f'<text x="{w - right + 46}" y="{legend_y + 4}">{engine}, batch {batch}</text>')
            legend_y += 18
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seatorch", default="build/release/seatorch")
    p.add_argument("--data-dir", default="data/mnist")
    p.add_argument("--widths", default="64,128,256,512,1024")
    p.add_argument("--batches", default="16,32,64,128,256")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--svg", help="also write the chart here")
    args = p.parse_args()
    widths = [int(x) for x in args.widths.split(",")]
    batches = [int(x) for x in args.batches.split(",")]

    compare.use_system_python()
    compare.set_blas_threads(1)
    blas_note, blas_refusal, cpu = compare.machine_and_blas(args.seatorch)
    compare.import_torch()
    probe_before = fma_peak(args.seatorch)  # (GFLOPS, ISA)
    points = []
    for width in widths:
        for batch in batches:
            times = {"seatorch": [], "PyTorch": []}
            product_times = []  # seatorch's products alone
            done_flops = []  # by seatorch's products
            for _ in range(args.reps):
                epoch, products, flops = seatorch_seconds(args.seatorch, args.data_dir, width, batch)
                times["seatorch"].append(epoch)
                product_times.append(products)
                done_flops.append(flops)
                recipe = dict(compare.RECIPES["sgd"], hidden=[width], batch=batch)
                times["PyTorch"].append(compare.pytorch_epoch_seconds(args.data_dir, 0, recipe, 1)[0])
            for engine, samples in times.items():
                seconds = statistics.median(samples)
                gflops = product_flops(width) / seconds / 1e9
                point = {"engine": engine, "width": width, "batch": batch, "seconds": seconds, "gflops": gflops,
                         "done_gflops": gflops}
                if engine == "seatorch":
                    flops = statistics.median(done_flops)
                    point["done_gflops"] = flops / seconds / 1e9
                    point["products_gflops"] = flops / statistics.median(product_times) / 1e9
                    point["outside_products"] = statistics.median(e - q for e, q in zip(samples, product_times))
                points.append(point)
            print(f"  W {width} batch {batch}: seatorch {statistics.median(times['seatorch']):.3f} s, "
                  f"PyTorch {statistics.median(times['PyTorch']):.3f} s", file=sys.stderr, flush=True)

    peak, isa = max(probe_before, fma_peak(args.seatorch))  # the higher reading, with its ISA
    for point in points:
        point["pct_peak"] = 100 * point["done_gflops"] / peak
        if "products_gflops" in point:
            point["products_pct_peak"] = 100 * point["products_gflops"] / peak
    machine = (f"{cpu}; " if cpu else "") + f"FMA peak {peak:.1f} GFLOPS ({isa})"
    print(f"784-W-10, SGD momentum 0.9, 1 thread, one MNIST epoch; medians of {args.reps}; on {machine}"
          f"; BLAS for PyTorch: {os.environ.get('OPENBLAS_CORETYPE', 'as OpenBLAS chose it')}"
          + (f" ({blas_note})" if blas_note else "") + (f"; {blas_refusal}" if blas_refusal else ""))
    print()
    print("| W | batch | seatorch s | seatorch GFLOPS | % peak of the FLOPs done | its products alone | outside them "
          "| PyTorch s | PyTorch GFLOPS | % peak | seatorch / PyTorch |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for width in widths:
        for batch in batches:
            s, t = (next(q for q in points if q["engine"] == e and q["width"] == width and q["batch"] == batch)
                    for e in ("seatorch", "PyTorch"))
            ratio = "-" if blas_refusal else f"{s['seconds'] / t['seconds']:.2f}"
            print(f"| {width} | {batch} | {s['seconds']:.3f} | {s['gflops']:.1f} | {s['pct_peak']:.0f} % | "
                  f"{s['products_pct_peak']:.0f} % | {s['outside_products']:.3f} s | "
                  f"{t['seconds']:.3f} | {t['gflops']:.1f} | {t['pct_peak']:.0f} % | {ratio} |")
    if args.svg:
        svg_chart(points, widths, batches, args.svg, machine)


if __name__ == "__main__":
    main()
