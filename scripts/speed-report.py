#!/usr/bin/env python3
"""The README's speed table for this machine: each row's command run here, with the ranges.

The README quotes, per kind of CPU, what the kernels do against OpenBLAS, one epoch against
PyTorch, one thread against two, the 784-128-10 epoch against the FMA peak and INT8 against
float inference. This script runs those same commands on the machine it is run on and prints
the same Markdown table, so that every figure there can be checked on a reader's own CPU:

  matmul        `seatorch bench matmul` at 128^3-1024^3 and on the MLP's products
  vs PyTorch    `scripts/compare-pytorch.py`: 784-128-10 SGD, and the default recipe on one
                and two threads; skipped, and said so, when PyTorch is not installed
  two threads   `seatorch train` (the default 12-epoch run) on 1 and 2 threads in turns: its
                seconds of training, peak memory, whether the checkpoints are the same bytes, and
                how far apart the two CPUs were around each two-thread run (`seatorch bench cpus`)
  CPUs alone    each CPU's sparse product (`seatorch bench cpus`) before and after the report,
                alone and on every CPU at once: one vCPU of a virtual machine may run training a
                fifth slower than another, and in some minutes neither keeps its pace while the
                other runs
  epoch         `seatorch bench train --no-augmentation --epochs 3` (784-128-10, batch 64)
  default loop  `seatorch bench train --epochs 1`'s last lines: the default recipe's epoch
                (784-256-128-10, Adam, batch 128) without its augmentation
  INT8          `seatorch bench int8` on the one-thread run's model, and again with
                SEATORCH_KERNEL=avx2 where the CPU has AVX-512 (what a CPU without it runs)

One-thread rows are pinned to one CPU (--cpu, default the last one this process may use);
two-thread rows may use every CPU. Each figure is the range over --rounds runs (default 3).
Expect a few minutes: the twelve-epoch runs are most of it. Only the machine's timings go
into the table.

Usage: scripts/speed-report.py [--seatorch build/release/seatorch] [--data-dir data/mnist]
                               [--rounds 3] [--cpu N] [--no-pytorch]
"""
import argparse
import datetime
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, SCRIPTS)
import importlib  # noqa: E402

compare = importlib.import_module("compare-pytorch")


def run(command, pin=None, env=None):
    """Runs a command to completion and returns (its stdout, its peak resident set in bytes).
    `pin`: a CPU to keep it on. The peak is the kernel's account of this child alone (wait4),
    which is why this does not use subprocess.run (it reaps the child itself)."""
    preexec = (lambda: os.sched_setaffinity(0, {pin})) if pin is not None else None
    with tempfile.TemporaryFile() as err, subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, preexec_fn=preexec,
                                                           env={**os.environ, **(env or {})}) as child:
        out = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        if child.returncode != 0:
            err.seek(0)
            lines = err.read().decode(errors="replace").strip().splitlines()
            sys.exit(f"speed-report.py: `{' '.join(command)}` failed: {lines[-1] if lines else child.returncode}")
    return out.decode(), usage.ru_maxrss * 1024  # ru_maxrss is in KiB on Linux


def run_json(command, pin=None, env=None):
    return json.loads(run(command, pin, env)[0])


def span(values, fmt="{:.3f}"):
    """A range as the README writes it, "lo-hi", or one value when both ends print the same."""
    lo, hi = fmt.format(min(values)), fmt.format(max(values))
    return lo if lo == hi else f"{lo}-{hi}"


def count(n, noun):
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def mib(nbytes):
    return nbytes / (1 << 20)


def matmul_row(args):
    """Our best kernel against OpenBLAS (on the core the bench chose for it), per shape: the
    squares and the MLP's products, the bench's defaults."""
    per_shape = {}  # "MxNxK:form" -> [(x OpenBLAS, % of the FMA peak)] over the rounds
    for _ in range(args.rounds):
        report = run_json([args.seatorch, "--quiet", "bench", "matmul", "--json"], pin=args.cpu)
        if report.get("blas_unfair"):
            return ("matmul kernels vs OpenBLAS", "`seatorch bench matmul`", f"no ratio: {report['blas_unfair']}")
        best = {}
        for r in report["results"]:
            label = f"{r['m']}x{r['n']}x{r['k']}:{r['form']}"
            if r.get("ratio_to_blas") is not None and (label not in best or r["gflops"] > best[label]["gflops"]):
                best[label] = r
        for label, r in best.items():
            per_shape.setdefault(label, []).append((r["ratio_to_blas"], r["pct_peak"]))

    def figures(label):
        runs = per_shape[label]
        return f"{span([x[0] for x in runs], '{:.2f}')}x ({span([x[1] for x in runs], '{:.0f}')} %)"

    def is_square(label):
        m, n, k = label.split(":")[0].split("x")
        return m == n == k

    squares = "; ".join(f"{label.split('x')[0]}^3 {figures(label)}" for label in per_shape if is_square(label))
    mlp = "; ".join(f"{label} {figures(label)}" for label in per_shape if not is_square(label))
    core = report.get("blas_core", "")
    chosen = f", set by the bench for OpenBLAS's {report['blas_rerun_from']} choice" if report.get("blas_rerun_from") else ""
    return (f"matmul kernels vs {' '.join(report['blas'].split(' ')[:2])} (core `{core}`{chosen})",
            "`seatorch bench matmul`",
            f"x OpenBLAS (% of the FMA peak): {squares}; the MLP's products in the forms training runs them: {mlp}")


def pytorch_row(args):
    """784-128-10 SGD on one thread, and the default recipe on one and two threads."""
    cases = (("sgd", 1, "784-128-10 SGD"), ("default", 1, "`--recipe default` (784-256-128-10, Adam)"),
             ("default", 2, "the same on two threads"))
    results = []
    for recipe, threads, title in cases:
        command = [sys.executable, os.path.join(SCRIPTS, "compare-pytorch.py"), "--seatorch", args.seatorch,
                   "--data-dir", args.data_dir, "--recipe", recipe, "--threads", str(threads),
                   "--reps", str(args.rounds), "--json"]
        r = run_json(command, pin=args.cpu if threads == 1 else None)
        ratio = "no ratio: " + r["ratio_refused"] if r["ratio"] is None else f"{r['ratio']:.2f}"
        trip = r.get("cpu_round_trip_ns")
        placed = ("" if not trip or None in trip.values()
                  else f"; the two CPUs' round trip {trip['before']:.0f}/{trip['after']:.0f} ns before/after")
        results.append(f"{title}: seatorch {span(r['seatorch_runs'])} s vs PyTorch {r['pytorch_version']} "
                       f"{span(r['pytorch_runs'])} s (ratio of the medians {ratio}{placed})")
    blas = f"; OpenBLAS core {r['blas_core']}" + (f" ({r['blas_note']})" if r["blas_note"] else "")
    return ("one training epoch vs PyTorch (wall)", "`scripts/compare-pytorch.py --recipe sgd`, `--recipe default`, and with `--threads 2`",
            "; ".join(results) + blas)


def placement(args):
    """`seatorch bench cpus` for this report's binary: the first two CPUs' round trip in ns (NaN on
    one CPU), and each CPU's sparse product in us alone and with every CPU at once, by CPU."""
    cpus = compare.bench_cpus(args.seatorch)
    ns = compare.first_round_trip(cpus)
    return float("nan") if ns is None else ns, compare.sparse_speeds(cpus), compare.sparse_speeds_at_once(cpus)


def threads_row(args, workdir):
    """The default 12-epoch run on 1 and 2 threads, in turns. Returns the row and the one-thread
    run's checkpoint (for the INT8 row)."""
    seconds = {1: [], 2: []}
    peaks = {1: [], 2: []}
    digests = set()
    placements = []  # per pair: placement() before and after its two-thread run
    for round_ in range(args.rounds):
        for threads in (1, 2):
            out = os.path.join(workdir, f"t{threads}-{round_}", "model.safetensors")
            if threads == 2:
                before = placement(args)
            text, peak = run([args.seatorch, "--quiet", "train", "--data-dir", args.data_dir, "--threads",
                              str(threads), "--out", out, "--json"], pin=args.cpu if threads == 1 else None)
            if threads == 2:
                placements.append((before, placement(args)))
            seconds[threads].append(json.loads(text)["train_seconds"])
            peaks[threads].append(mib(peak))
            with open(out, "rb") as f:
                digests.add(hashlib.sha256(f.read()).hexdigest())
    ratios = [one / two for one, two in zip(seconds[1], seconds[2])]
    same = (f"the same checkpoint from all {count(2 * args.rounds, 'run')} (SHA-256 {next(iter(digests))[:8]}...)"
            if len(digests) == 1 else f"{len(digests)} different checkpoints: the thread count changed the bits")
    placed = "; ".join(f"{r:.2f}x ({a[0]:.0f}/{b[0]:.0f} ns, sparse product alone "
                       f"{compare.speeds_before_after(a[1], b[1])}, at once {compare.speeds_before_after(a[2], b[2])})"
                       for r, (a, b) in zip(ratios, placements))
    result = (f"the 12-epoch default run {span(seconds[1], '{:.2f}')} s against {span(seconds[2], '{:.2f}')} s of "
              f"training ({span(ratios, '{:.2f}')}x, median {statistics.median(ratios):.2f}x, "
              f"{count(args.rounds, 'pair')} in turns; each pair with the two CPUs' round trip and each CPU's "
              f"sparse product alone and both at once before/after its two-thread run, `seatorch bench cpus`: "
              f"{placed}); {same}; "
              f"peak memory "
              f"{span(peaks[1], '{:.1f}')} MiB on one thread, {span(peaks[2], '{:.1f}')} MiB on two")
    return ("two threads (wall)", "`seatorch train --threads 1` against `--threads 2`", result), \
        os.path.join(workdir, "t1-0", "model.safetensors")


def percent_of_peak(gflop, seconds, peaks):
    """GFLOP done in `seconds`, per run, as a % of that run's FMA peak (GFLOPS)."""
    return [100 * g / s / peak for g, s, peak in zip(gflop, seconds, peaks)]


def products_at_peak(done, dense, seconds, peaks):
    """The products' rate over an epoch of `seconds`: counted dense (the model's products in full,
    what the FMA units would do without the sparse first layer; the issue's yardstick) and, where the
    sparse first layer skips some, by the FLOPs they do."""
    at_dense = f"the model's {dense[0]:.1f} GFLOP of products counted dense, " \
               f"{span(percent_of_peak(dense, seconds, peaks), '{:.0f}')} % of the peak"
    if max(done) >= min(dense):
        return at_dense
    return (f"{at_dense}; the {span(done, '{:.1f}')} GFLOP they do, at "
            f"{span(percent_of_peak(done, seconds, peaks), '{:.0f}')} %")


def epoch_row(args):
    runs = [run_json([args.seatorch, "--quiet", "bench", "train", "--data-dir", args.data_dir, "--no-augmentation",
                      "--epochs", "3", "--json"], pin=args.cpu) for _ in range(args.rounds)]
    seconds = [r["seconds_per_epoch"] for r in runs]
    peaks = [r["peak_gflops"] for r in runs]
    done = [r["product_flops_per_epoch"] / 1e9 for r in runs]
    dense = [r["dense_product_flops_per_epoch"] / 1e9 for r in runs]
    # The products timed one by one as training ran them: their time, and their own rate.
    product_seconds = [r["product_seconds_per_epoch"] for r in runs]
    alone = percent_of_peak(done, product_seconds, peaks)
    memory = [mib(r["peak_rss_bytes"]) for r in runs]
    return ("the 784-128-10 epoch", "`seatorch bench train --no-augmentation --epochs 3`",
            f"{span(seconds)} s: {products_at_peak(done, dense, seconds, peaks)} over the epoch (timed one by one, "
            f"{span(product_seconds)} s at {span(alone, '{:.0f}')} %); {span(memory, '{:.1f}')} MiB peak memory"), \
        runs[0]


def default_loop_row(args):
    """The default recipe's training loop: the epoch that `bench train` times without its
    augmentation (784-256-128-10, Adam, batch 128). Runs of their own, not epoch_row's: that
    larger model would raise the 784-128-10 row's peak memory."""
    runs = [run_json([args.seatorch, "--quiet", "bench", "train", "--data-dir", args.data_dir, "--epochs", "1",
                      "--scalar-samples", "1", "--json"], pin=args.cpu) for _ in range(args.rounds)]
    loop = runs[0]["augmentation"]
    seconds = [r["augmentation"]["rest_seconds"] for r in runs]
    peaks = [r["peak_gflops"] for r in runs]
    done = [r["augmentation"]["product_flops"] / 1e9 for r in runs]
    dense = [r["augmentation"]["dense_product_flops"] / 1e9 for r in runs]
    products = [r["augmentation"]["product_seconds"] for r in runs]
    # The kind that takes the most time in the first run, and its time in every run.
    largest = loop["products"][0]
    largest_seconds = [next(p["seconds_per_epoch"] for p in r["augmentation"]["products"]
                            if p["shape"] == largest["shape"] and p["sparse"] == largest["sparse"]) for r in runs]
    return ("the default recipe's training loop", "`seatorch bench train --epochs 1` (its last lines)",
            f"{span(seconds)} s an epoch without augmentation ({loop['architecture']}, {loop['optimizer']}, "
            f"batch {loop['batch']}): {products_at_peak(done, dense, seconds, peaks)} over the epoch; the products "
            f"{span(products)} s, the largest {largest['shape']}{' (sparse)' if largest['sparse'] else ''} "
            f"{span(largest_seconds)} s")


def int8_row(args, checkpoint, flags):
    model = os.path.join(os.path.dirname(checkpoint), "model.int8.safetensors")
    run([args.seatorch, "--quiet", "quantize", "--int8", "--data-dir", args.data_dir, "--model", checkpoint,
         "--out", model], pin=args.cpu)
    command = [args.seatorch, "--quiet", "bench", "int8", "--data-dir", args.data_dir, "--float-model", checkpoint,
               "--model", model, "--json"]

    def measure(env=None):
        paths = {}
        for _ in range(args.rounds):
            for r in run_json(command, pin=args.cpu, env=env)["results"]:
                paths.setdefault(r["path"], []).append(r)
        return paths

    def speedups(results, floats):  # each run's images/s over the float path's in the same run
        return [r["images_per_second"] / f["images_per_second"] for r, f in zip(results, floats)]

    paths = measure()
    parts = []
    for name, results in paths.items():
        if not name.startswith("int8") or name == "int8 ref":
            continue
        ratios = speedups(results, paths["float"])
        parts.append(f"{name.split(' ')[1]} {span([r['images_per_second'] / 1e3 for r in results], '{:.0f}')}k "
                     f"images/s, {span(ratios, '{:.2f}')}x float, at {span([r['pct_of_ceiling'] for r in results], '{:.0f}')} "
                     f"% of its ceiling")
    float_ips = span([f["images_per_second"] / 1e3 for f in paths["float"]], "{:.0f}")
    result = f"float {float_ips}k images/s; " + "; ".join(parts)
    if "avx512f" in flags:
        # What a CPU without AVX-512 runs: float on AVX2, int8 on AVX2 or, where it has it, AVX-VNNI.
        avx2 = measure({"SEATORCH_KERNEL": "avx2"})
        for kernel, label in (("avx2", "AVX2"), ("avxvnni", "AVX-VNNI")):
            if f"int8 {kernel}" in avx2:
                ratios = speedups(avx2[f"int8 {kernel}"], avx2["float"])
                result += f"; {label} int8 {span(ratios, '{:.2f}')}x the AVX2 float path"
        result += " (`SEATORCH_KERNEL=avx2`)"
    return ("INT8 vs float inference", "`seatorch bench int8`", result)


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            return next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return []


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit code 1, as seatorch's own flags (argparse's is 2)
        sys.exit(f"speed-report.py: {message}")


def main():
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--seatorch", default="build/release/seatorch")
    parser.add_argument("--data-dir", default="data/mnist")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each command (each figure is their range)")
    parser.add_argument("--cpu", type=int, default=max(os.sched_getaffinity(0)), help="CPU for the one-thread rows")
    parser.add_argument("--no-pytorch", action="store_true", help="leave out the PyTorch row")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.cpu not in os.sched_getaffinity(0):
        parser.error(f"--cpu {args.cpu} is not one this process may run on ({sorted(os.sched_getaffinity(0))})")
    if not os.access(args.seatorch, os.X_OK):
        sys.exit(f"speed-report.py: no seatorch binary at {args.seatorch}; build it (cmake --preset release && "
                 f"cmake --build --preset release) or pass --seatorch")

    _, speeds_before, at_once_before = placement(args)
    # The epoch's row first, though printed fourth: seconds long, and it needs the data, so a
    # missing data set is said (by seatorch) before anything longer runs.
    epoch, bench = epoch_row(args)
    rows = [matmul_row(args)]
    if args.no_pytorch:
        skipped = "left out (--no-pytorch)"
    elif compare.python_with_pytorch() is None:
        skipped = "PyTorch is not installed: sudo apt-get install python3-torch python3-numpy"
    else:
        skipped = ""
        rows.append(pytorch_row(args))
    with tempfile.TemporaryDirectory() as workdir:
        row, checkpoint = threads_row(args, workdir)
        rows.append(row)
        rows.append(epoch)
        rows.append(default_loop_row(args))
        rows.append(int8_row(args, checkpoint, cpu_flags()))

    _, speeds_after, at_once_after = placement(args)
    alone = compare.speeds_before_after(speeds_before, speeds_after)
    together = compare.speeds_before_after(at_once_before, at_once_after)
    print(f"`{bench['cpu']}`, FMA peak {bench['peak_gflops']:.1f} GFLOPS per core ({bench['kernel']}), "
          f"{datetime.date.today().isoformat()}, one-thread rows pinned to CPU {args.cpu}, {count(args.rounds, 'run')} of each; "
          f"each CPU's sparse product alone before/after the report (`seatorch bench cpus`; a vCPU slower than "
          f"another slows every row run on it): {alone}; on every CPU at once: {together or 'one CPU'}:")
    print()
    print("| what | command | result |")
    print("|---|---|---|")
    for what, command, result in rows:
        print(f"| {what} | {command} | {result} |")
    if skipped:
        print(f"\nThe PyTorch row: {skipped}.")


if __name__ == "__main__":
    main()
