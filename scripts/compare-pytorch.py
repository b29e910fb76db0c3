#!/usr/bin/env python3
"""Trains the same MLP with PyTorch and with seatorch, and prints seconds per epoch side by side.

The model and recipe are identical on both sides. By default (--recipe sgd) it is 784-128-10
(Linear, ReLU, Linear), batch 64, SGD with momentum 0.9, learning rate 0.1; --recipe default is
the MNIST default's model and optimizer, 784-256-128-10 with Adam at 2e-3, batch 128 (without
its augmentation, which PyTorch has no counterpart for, and at a constant rate: a schedule
costs nothing per step). One epoch over the 60,000 MNIST training images (pixels scaled to
[0, 1]) on --threads threads (default 1), the two engines taking turns --reps times (default
3); the medians are printed. Only the training loop is timed on either side (data already in
memory, evaluation excluded). Optional: needs Debian's python3-torch and python3-numpy;
seatorch itself never imports PyTorch. Debian's PyTorch does its products in the system
OpenBLAS: when OpenBLAS would run kernels below this CPU's ISA, both sides run with
OPENBLAS_CORETYPE set to the fitting core (what `seatorch bench matmul` chooses), and when the
user forced such a core, no ratio is printed.

Usage: scripts/compare-pytorch.py [--data-dir data/mnist] [--seatorch build/release/seatorch]
                                  [--recipe sgd|default] [--threads N] [--reps N] [--profile] [--json]
"""
import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time

# The two recipes: hidden widths, batch, and the optimizer on each side.
RECIPES = {
    "sgd": {"hidden": [128], "batch": 64, "optimizer": "sgd", "title": "784-128-10, batch 64, SGD momentum 0.9, lr 0.1",
            "seatorch": ["--opt", "sgd", "--lr", "0.1", "--momentum", "0.9"]},
    "default": {"hidden": [256, 128], "batch": 128, "optimizer": "adam", "title": "784-256-128-10, batch 128, Adam lr 2e-3",
                "seatorch": ["--opt", "adam", "--lr", "2e-3"]},
}


def set_blas_threads(threads):
    """Debian's PyTorch does its matrix products in the system BLAS (OpenBLAS here), whose own
    thread pool torch.set_num_threads() does not limit: give it the same count, before it loads,
    so that both sides really run on the same cores."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(threads))


def machine_and_blas(binary):
    """Asks `seatorch bench matmul` which CPU this is and which OpenBLAS core it gets. When
    OpenBLAS would run kernels below the CPU's ISA, seatorch re-runs itself with
    OPENBLAS_CORETYPE set to the fitting core; PyTorch, linked to the same OpenBLAS, gets the
    same variable here, before it is imported (OpenBLAS reads it when it loads). Returns
    (note, refusal, cpu): what was changed, why no ratio can be printed (the user forced a core
    below the CPU's ISA), and the CPU as seatorch describes it."""
    if not os.path.exists(binary):
        return "", "", ""
    out = subprocess.run([binary, "--quiet", "bench", "matmul", "--sizes", "16", "--reps", "1", "--json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return "", "", ""
    report = json.loads(out.stdout)
    cpu = report.get("cpu", "")
    if report.get("blas_unfair"):
        return "", report["blas_unfair"], cpu
    if report.get("blas_rerun_from") and "OPENBLAS_CORETYPE" not in os.environ:
        os.environ["OPENBLAS_CORETYPE"] = report["blas_core"]
        return (f"OpenBLAS chose its {report['blas_rerun_from']} kernels for this CPU; both sides run with "
                f"OPENBLAS_CORETYPE={report['blas_core']}"), "", cpu
    return "", "", cpu


def python_with_pytorch():
    """The interpreter that can import PyTorch and NumPy: this one, else Debian's /usr/bin/python3
    (python3-torch lives in the system interpreter, and a pyenv or venv python3 may lack it);
    None when neither can."""
    import importlib.util
    if all(importlib.util.find_spec(name) is not None for name in ("numpy", "torch")):
        return sys.executable
    system = "/usr/bin/python3"
    probe = "import importlib.util as u; raise SystemExit(0 if u.find_spec('torch') and u.find_spec('numpy') else 1)"
    if sys.executable != system and os.path.exists(system) and subprocess.run([system, "-c", probe]).returncode == 0:
        return system
    return None


def use_system_python():
    """Runs the script again under the interpreter that has PyTorch when this one has not.
    Called first, before machine_and_blas() sets any variable, so that the second run starts
    from the user's environment and says why it changed the BLAS core (re-run later, it
    inherited the variable and read it as the user's choice)."""
    python = python_with_pytorch()
    if python is not None and python != sys.executable:
        os.execv(python, [python, *sys.argv])


np = None
torch = None


def import_torch():
    """Imports PyTorch and NumPy (after machine_and_blas(): OpenBLAS reads its variables on load)."""
    global np, torch
    try:
        import numpy
        import torch as pytorch
    except ImportError:
        sys.exit("compare-pytorch.py: needs PyTorch and NumPy: sudo apt-get install python3-torch python3-numpy")
    np, torch = numpy, pytorch


def read_idx(path):
    """Reads an IDX file (raw or .gz) into a NumPy array."""
    for candidate in (path, path + ".gz"):
        if os.path.exists(candidate):
            opener = gzip.open if candidate.endswith(".gz") else open
            with opener(candidate, "rb") as f:
                data = f.read()
            break
    else:
        sys.exit(f"compare-pytorch.py: {path} not found; run scripts/fetch-data.sh mnist")
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def pytorch_epoch_seconds(data_dir, seed, recipe, threads, profile=False):
    # The threads go to OpenBLAS (set_blas_threads), which does PyTorch's products; PyTorch's own
    # pool stays at one: with both at 2 they oversubscribe two cores (3.9 s per epoch of the
    # default recipe, against 0.93 s with OpenBLAS alone on 2 and 1.13 s on one thread).
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    x = torch.from_numpy(read_idx(os.path.join(data_dir, "train-images-idx3-ubyte")).reshape(-1, 784).astype(np.float32) / 255.0)
    y = torch.from_numpy(read_idx(os.path.join(data_dir, "train-labels-idx1-ubyte")).astype(np.int64))
    sizes = [784] + recipe["hidden"] + [10]
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i + 2 < len(sizes):
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    if recipe["optimizer"] == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    batch = recipe["batch"]
    loss_fn = torch.nn.CrossEntropyLoss()
    order = torch.randperm(x.shape[0])
    profiler = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) if profile else None
    if profiler:
        profiler.__enter__()
    start = time.perf_counter()
    for begin in range(0, x.shape[0], batch):
        idx = order[begin:begin + batch]
        opt.zero_grad()
        loss = loss_fn(model(x[idx]), y[idx])
        loss.backward()
        opt.step()
    seconds = time.perf_counter() - start
    if profiler:
        profiler.__exit__(None, None, None)
        # Where PyTorch's epoch goes, by operator (the profiler itself slows the epoch down).
        print(profiler.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))
    tx = torch.from_numpy(read_idx(os.path.join(data_dir, "t10k-images-idx3-ubyte")).reshape(-1, 784).astype(np.float32) / 255.0)
    ty = torch.from_numpy(read_idx(os.path.join(data_dir, "t10k-labels-idx1-ubyte")).astype(np.int64))
    with torch.no_grad():
        accuracy = (model(tx).argmax(1) == ty).float().mean().item()
    return seconds, accuracy


def seatorch_epoch_seconds(binary, data_dir, seed, recipe, threads):
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [binary, "--quiet", "train", "--dataset", "mnist", "--data-dir", data_dir,
             "--hidden", ",".join(str(h) for h in recipe["hidden"]), "--batch", str(recipe["batch"])]
            + recipe["seatorch"]
            + ["--schedule", "constant", "--augment", "none", "--epochs", "1", "--seed", str(seed),
               "--threads", str(threads), "--out", os.path.join(tmp, "model.safetensors"), "--json"],
            check=True, capture_output=True, text=True).stdout
    result = json.loads(out)
    return result["train_seconds"], result["test_accuracy"]


def bench_cpus(binary):
    """`seatorch bench cpus --json`: the CPUs' round trips ("pairs") and each one's speed alone
    ("speeds")."""
    out = subprocess.run([binary, "--quiet", "bench", "cpus", "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def first_round_trip(cpus):
    """From bench_cpus(): a cache line's round trip in ns between the first two CPUs, or None on
    one CPU: on a virtual machine the host may move the two between dies, and then two threads
    exchange everything several times slower (DECISIONS 64)."""
    return cpus["pairs"][0]["round_trip_ns"] if cpus["pairs"] else None


def sparse_speeds(cpus):
    """From bench_cpus(): each CPU's sparse product alone in us, by CPU: on a virtual machine one
    vCPU may run it, and the epoch, a fifth slower than the other while both reach the same FMA
    peak (DECISIONS 74)."""
    return {s["cpu"]: s["sparse_product_us"] for s in cpus["speeds"]}


def sparse_speeds_at_once(cpus):
    """From bench_cpus(): each CPU's sparse product in us while every CPU runs it at once, by
    CPU (empty on one CPU): in some minutes a virtual machine's vCPUs cannot both keep their
    pace, with nothing shared (DECISIONS 82)."""
    return {s["cpu"]: s["sparse_product_at_once_us"] for s in cpus["speeds"]
            if s.get("sparse_product_at_once_us") is not None}


def speeds_before_after(before, after):
    """Two sparse_speeds(), taken before and after a run, as "CPU 0 50.1/51.0 us, CPU 1 ..."."""
    return ", ".join(f"CPU {cpu} {before[cpu]:.1f}/{after.get(cpu, float('nan')):.1f} us" for cpu in sorted(before))


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="data/mnist")
    parser.add_argument("--seatorch", default="build/release/seatorch")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--recipe", choices=sorted(RECIPES), default="sgd")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--reps", type=int, default=3, help="epochs per engine, taking turns (the median is printed)")
    parser.add_argument("--profile", action="store_true",
                        help="also run PyTorch's epoch under torch.profiler and print its top operators")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object instead")
    args = parser.parse_args()
    if args.threads < 1 or args.reps < 1:
        parser.error("--threads and --reps must be at least 1")
    if args.profile and args.json:
        parser.error("--profile prints a table, --json one object: give one of them")
    recipe = RECIPES[args.recipe]
    use_system_python()
    set_blas_threads(args.threads)
    blas_note, blas_refusal, cpu = machine_and_blas(args.seatorch)
    import_torch()

    if args.profile:
        pytorch_epoch_seconds(args.data_dir, args.seed, recipe, args.threads, profile=True)
    torch_runs, st_runs = [], []
    placement = [bench_cpus(args.seatorch)] if args.threads > 1 else None
    for _ in range(args.reps):
        torch_runs.append(pytorch_epoch_seconds(args.data_dir, args.seed, recipe, args.threads))
        # OpenBLAS's idle threads in this process poll for a while after PyTorch's epoch: let
        # them go to sleep before seatorch's epoch needs the cores.
        time.sleep(1.0)
        st_runs.append(seatorch_epoch_seconds(args.seatorch, args.data_dir, args.seed, recipe, args.threads))
    if placement is not None:
        placement.append(bench_cpus(args.seatorch))
    torch_s, st_s = median([r[0] for r in torch_runs]), median([r[0] for r in st_runs])
    torch_version = torch.__version__.split("+")[0]
    blas_core = os.environ.get("OPENBLAS_CORETYPE", "as OpenBLAS chose it")
    if args.json:
        print(json.dumps({"recipe": args.recipe, "title": recipe["title"], "threads": args.threads, "reps": args.reps,
                          "cpu": cpu, "pytorch_version": torch_version, "blas_core": blas_core, "blas_note": blas_note,
                          "pytorch_seconds": torch_s, "seatorch_seconds": st_s,
                          "pytorch_runs": [r[0] for r in torch_runs], "seatorch_runs": [r[0] for r in st_runs],
                          "ratio": None if blas_refusal else st_s / torch_s, "ratio_refused": blas_refusal or None,
                          "cpu_round_trip_ns": None if placement is None else {
                              "before": first_round_trip(placement[0]), "after": first_round_trip(placement[1])},
                          "cpu_sparse_product_us": None if placement is None else {
                              "before": sparse_speeds(placement[0]), "after": sparse_speeds(placement[1]),
                              "at_once_before": sparse_speeds_at_once(placement[0]),
                              "at_once_after": sparse_speeds_at_once(placement[1])}}))
        return
    print(f"{recipe['title']}, {args.threads} thread{'s' if args.threads > 1 else ''}, 1 epoch of MNIST, "
          f"median of {args.reps}" + (f", on {cpu}" if cpu else ""))
    print(f"{'':10} {'s/epoch':>8} {'runs':>24} {'test acc':>9}")
    for name, s, runs in ((f"PyTorch {torch_version}", torch_s, torch_runs), ("seatorch", st_s, st_runs)):
        print(f"{name:10} {s:8.3f} {' '.join(f'{r[0]:.3f}' for r in runs):>24} {runs[0][1]:9.4f}")
    print(f"BLAS: OpenBLAS core {blas_core}" + (f" ({blas_note})" if blas_note else ""))
    if placement is not None and placement[0]["pairs"]:
        alone = speeds_before_after(sparse_speeds(placement[0]), sparse_speeds(placement[1]))
        together = speeds_before_after(sparse_speeds_at_once(placement[0]), sparse_speeds_at_once(placement[1]))
        print(f"CPUs: a cache line's round trip {first_round_trip(placement[0]):.0f} ns before, "
              f"{first_round_trip(placement[1]):.0f} ns after; each one's sparse product before/after, alone: {alone}; "
              f"all at once: {together} (`seatorch bench cpus`)")
    if blas_refusal:
        print(f"seatorch / PyTorch time ratio: not shown: {blas_refusal}")
    else:
        print(f"seatorch / PyTorch time ratio: {st_s / torch_s:.2f}")


if __name__ == "__main__":
    main()
