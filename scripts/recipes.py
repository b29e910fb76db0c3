#!/usr/bin/env python3
"""Trains each `seatorch train --recipe` on each data set with several seeds, and reports float,
INT8 and Mini NPU accuracy per run and per recipe (mean and spread), as docs/ACCURACY.md shows.

Every run trains on the whole training set (no validation split: the recipes were chosen on
one, see docs/ACCURACY.md) and reports the test set once. Per run: the float test accuracy, the
training time, the post-training INT8 accuracy and its delta; for the first seed of each recipe
also the image exported for the recipe's NPU target (best: default, ice40: icebreaker) and all
test images through the Verilated Mini NPU, with its agreement with the C++ integer model.

Runs go in --out (default seatorch-out/recipes/<data set>-<recipe>-seed<N>/); `--jobs 2` runs two
at a time (the training times are then of a shared machine: say so when you quote them).

Usage: scripts/recipes.py [--seatorch build/release/seatorch] [--datasets mnist,fashion-mnist]
                          [--recipes best,ice40] [--seeds 0,1,2] [--jobs 1] [--out DIR] [--no-npu]
"""
import argparse
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys

NPU_TARGET = {"best": "default", "ice40": "icebreaker"}


def run_json(cmd):
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"recipes.py: {' '.join(cmd)} failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout)


def one_run(args, dataset, recipe, seed, npu):
    d = os.path.join(args.out, f"{dataset}-{recipe}-seed{seed}")
    model = os.path.join(d, "model.safetensors")
    int8 = os.path.join(d, "model.int8.safetensors")
    data = ["--dataset", dataset] + (["--data-dir", args.data_dir] if args.data_dir and dataset == "mnist" else [])
    t = run_json([args.seatorch, "--quiet", "train", "--recipe", recipe, "--seed", str(seed), "--out", model, "--json"]
                 + data)
    q = run_json([args.seatorch, "--quiet", "quantize", "--int8", "--model", model, "--out", int8, "--json"] + data)
    row = {"dataset": dataset, "recipe": recipe, "seed": seed, "architecture": t["architecture"],
           "float": t["test_accuracy"], "int8": q["int8_accuracy"], "delta_pp": q["delta_pp"],
           "train_seconds": t["train_seconds"], "npu_agreement": None, "npu_images": None}
    if npu:
        hexfile = os.path.join(d, "model.hex")
        target = NPU_TARGET[recipe]
        subprocess.run([args.seatorch, "--quiet", "export", "--hex", "--model", int8, "--out", hexfile, "--target",
                        target], check=True, stdout=subprocess.DEVNULL)
        s = run_json([args.seatorch, "--quiet", "sim", "--npu", "--hex", hexfile, "--target", target, "--json"] + data)
        row["npu_agreement"] = s["agreement"]
        row["npu_images"] = s["images"]
        row["npu_accuracy"] = s["accuracy"]
    print(f"  {dataset} {recipe} seed {seed}: float {row['float']:.4f}, int8 {row['int8']:.4f}, "
          f"{row['train_seconds']:.0f} s", file=sys.stderr, flush=True)
    return row


def spread(values):
    mean = statistics.mean(values)
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{100 * mean:.2f} ± {100 * std:.2f} ({100 * min(values):.2f}–{100 * max(values):.2f})"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seatorch", default="build/release/seatorch")
    p.add_argument("--data-dir", default="", help="MNIST's directory (default: the usual search)")
    p.add_argument("--datasets", default="mnist,fashion-mnist")
    p.add_argument("--recipes", default="best,ice40")
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--out", default="seatorch-out/recipes")
    p.add_argument("--no-npu", action="store_true", help="skip the NPU simulation of each recipe's first seed")
    p.add_argument("--json", help="also write the rows as JSON to this file")
    args = p.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    work = [(d, r, s, not args.no_npu and s == seeds[0])
            for d in args.datasets.split(",") for r in args.recipes.split(",") for s in seeds]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        rows = list(pool.map(lambda w: one_run(args, *w), work))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)

    print("| data set | recipe | model | seed | float | INT8 | delta (pp) | NPU agreement | training |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        npu = "-" if r["npu_agreement"] is None else f"{r['npu_agreement'] * r['npu_images']:.0f}/{r['npu_images']}"
        print(f"| {r['dataset']} | {r['recipe']} | {r['architecture']} | {r['seed']} | {100 * r['float']:.2f} % | "
              f"{100 * r['int8']:.2f} % | {r['delta_pp']:+.2f} | {npu} | {r['train_seconds']:.0f} s |")
    print()
    print("| data set | recipe | float, mean ± std (min–max) | INT8, mean ± std (min–max) | training, mean |")
    print("|---|---|---|---|---|")
    for d in args.datasets.split(","):
        for rec in args.recipes.split(","):
            group = [r for r in rows if r["dataset"] == d and r["recipe"] == rec]
            print(f"| {d} | {rec} | {spread([r['float'] for r in group])} % | {spread([r['int8'] for r in group])} % | "
                  f"{statistics.mean(r['train_seconds'] for r in group):.0f} s |")


if __name__ == "__main__":
    main()
