#!/usr/bin/env python3
"""The include graph points only down the pipeline.

Each folder of src/ and include/seatorch/ is a layer; LAYERS below lists them bottom to top.
A file in src/<folder>/ or include/seatorch/<folder>/ (nested folders such as src/kernels/x86
count as their top folder, kernels) may include a header of the same folder or of a strictly
lower layer, never a higher one. Both kinds of include are checked:
  #include "seatorch/<folder2>/..."   the public headers, include/seatorch/<folder2>/
  #include "x.hpp", "../y.hpp"        private headers, resolved from the including file's
                                      folder (then from src/), so src/<folder2>/...
src/main.cpp is in the top layer (cli). Headers directly in include/seatorch/ (no folder,
e.g. seatorch/error.hpp) count as the top layer too: including one from any lower layer is a
violation, so move them into a layer folder (include/seatorch/core/).
A folder in the tree that LAYERS does not name is an error: add it to the layer table.
tests/ is not checked: a test may include any layer.

Usage: scripts/check-includes.py [--self-test] [ROOT]    (ROOT: the repository, default ..)
Prints one line per violation, `file:line: <folder> includes <folder2> (a higher layer): "<header>"`,
and exits 1 when there is any.
"""
import os
import re
import sys
import tempfile

# ---- the layer table: bottom to top. A line with several names makes them peers (same rank),
# but a folder may still include only its own folder or a strictly lower rank. -----------------
LAYERS = [
    ["core"],
    ["io"],
    ["report"],
    ["kernels"],
    ["data"],
    ["image"],
    ["augment"],
    ["scalar"],
    ["tensor"],
    ["nn"],
    ["model"],
    ["train"],
    ["quant"],
    ["npu"],
    ["predict"],
    ["eval"],
    ["bench"],
    ["cli"],
]
TOP = "cli"  # src/main.cpp and the headers directly in include/seatorch/
TOP_LEVEL = "top-level"  # how a header directly in include/seatorch/ is named in messages
# Headers generated into the build tree (build/generated/seatorch/...), and their layer.
GENERATED = {"seatorch/version.hpp": "core"}
# ------------------------------------------------------------------------------------------------

SOURCE_EXTENSIONS = (".cpp", ".hpp", ".h", ".cc", ".hh", ".ipp", ".inl")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def rank_table():
    ranks = {}
    for rank, peers in enumerate(LAYERS):
        for name in peers:
            ranks[name] = rank
    ranks[TOP_LEVEL] = ranks[TOP]
    return ranks


def layer_of_path(rel):
    """The layer of a repository-relative path under src/ or include/seatorch/, or None."""
    parts = rel.split("/")
    if parts[0] == "src":
        return parts[1] if len(parts) > 2 else TOP  # src/main.cpp: the top layer
    if parts[:2] == ["include", "seatorch"]:
        return parts[2] if len(parts) > 3 else TOP_LEVEL
    return None


def layer_of_include(root, including_rel, target):
    """The layer of the header `target` included by the file `including_rel`; None: outside."""
    if target.startswith("seatorch/"):
        if target in GENERATED:
            return GENERATED[target]
        parts = target.split("/")
        return parts[1] if len(parts) > 2 else TOP_LEVEL
    for base in (os.path.dirname(including_rel), "src"):
        rel = os.path.normpath(os.path.join(base, target)).replace(os.sep, "/")
        if os.path.isfile(os.path.join(root, rel)):
            return layer_of_path(rel)
    return None  # not in the tree (a system or generated header): not a layer


def source_files(root):
    for top in ("src", os.path.join("include", "seatorch")):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(SOURCE_EXTENSIONS):
                    yield os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")


def check(root, out=sys.stdout):
    """Prints the problems under `root`; returns their count."""
    ranks = rank_table()
    problems = 0

    folders = set()
    for top in ("src", os.path.join("include", "seatorch")):
        path = os.path.join(root, top)
        if os.path.isdir(path):
            for name in sorted(os.listdir(path)):
                if os.path.isdir(os.path.join(path, name)):
                    folders.add((top.replace(os.sep, "/"), name))
    for top, name in sorted(folders):
        if name not in ranks:
            print(f"{top}/{name}/: folder {name} is not in the layer table; "
                  f"add it to LAYERS in scripts/check-includes.py", file=out)
            problems += 1

    for rel in source_files(root):
        layer = layer_of_path(rel)
        if layer not in ranks:
            continue  # reported above
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                target = m.group(1)
                other = layer_of_include(root, rel, target)
                if other is None or other == layer:
                    continue
                if other not in ranks:
                    print(f"{rel}:{lineno}: {layer} includes {other}, which is not in the layer table: "
                          f"\"{target}\"; add it to LAYERS in scripts/check-includes.py", file=out)
                    problems += 1
                elif ranks[other] >= ranks[layer]:
                    why = "a higher layer" if ranks[other] > ranks[layer] else "the same rank, not a lower layer"
                    hint = "; move the header into a layer folder (include/seatorch/core/)" if other == TOP_LEVEL else ""
                    print(f"{rel}:{lineno}: {layer} includes {other} ({why}): \"{target}\"{hint}", file=out)
                    problems += 1
    return problems


def self_test():
    import io

    def write(root, rel, text):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    failures = []

    def expect(name, files, want):
        with tempfile.TemporaryDirectory() as root:
            for rel, text in files.items():
                write(root, rel, text)
            buf = io.StringIO()
            check(root, buf)
            got = buf.getvalue().splitlines()
            ok = len(got) == len(want) and all(w in g for w, g in zip(want, got))
            if not ok:
                failures.append(f"{name}: expected {want}, got {got}")

    base = {
        "include/seatorch/core/error.hpp": "#pragma once\n",
        "include/seatorch/tensor/tensor.hpp": '#pragma once\n#include "seatorch/core/error.hpp"\n',
        "src/tensor/tensor.cpp": '#include "seatorch/tensor/tensor.hpp"\n#include "private.hpp"\n',
        "src/tensor/private.hpp": "#pragma once\n",
        "src/kernels/x86/avx2.cpp": '#include "../isa.hpp"\n#include "seatorch/core/error.hpp"\n',
        "src/kernels/isa.hpp": "#pragma once\n",
        "src/main.cpp": '#include "cli/command.hpp"\n#include "seatorch/tensor/tensor.hpp"\n',
        "src/cli/command.hpp": "#pragma once\n",
    }
    expect("clean tree", base, [])
    expect("upward public include", dict(base, **{
        "src/kernels/x86/avx2.cpp": '#include "../isa.hpp"\n#include "seatorch/tensor/tensor.hpp"\n'}),
        ['src/kernels/x86/avx2.cpp:2: kernels includes tensor (a higher layer)'])
    expect("upward private include", dict(base, **{
        "src/core/rng.cpp": '#include "../tensor/private.hpp"\n'}),
        ['src/core/rng.cpp:1: core includes tensor (a higher layer)'])
    expect("top-level header", dict(base, **{
        "include/seatorch/rng.hpp": "#pragma once\n",
        "src/tensor/tensor.cpp": '#include "seatorch/rng.hpp"\n'}),
        ['src/tensor/tensor.cpp:1: tensor includes top-level (a higher layer)'])
    expect("top-level header from the top layer", dict(base, **{
        "include/seatorch/rng.hpp": "#pragma once\n",
        "src/cli/command.hpp": '#include "seatorch/rng.hpp"\n'}),
        ['src/cli/command.hpp:1: cli includes top-level (the same rank, not a lower layer)'])
    expect("tests may include anything", dict(base, **{
        "tests/core/t.cpp": '#include "seatorch/tensor/tensor.hpp"\n'}), [])
    expect("unknown folder", dict(base, **{"src/widgets/w.cpp": "\n"}),
           ["src/widgets/: folder widgets is not in the layer table"])
    # The real thing: the script's exit status on an upward include.
    with tempfile.TemporaryDirectory() as root:
        for rel, text in base.items():
            write(root, rel, text)
        write(root, "src/core/up.cpp", '#include "seatorch/tensor/tensor.hpp"\n')
        import subprocess
        r = subprocess.run([sys.executable, os.path.abspath(__file__), root],
                           capture_output=True, text=True)
        if r.returncode != 1 or "core includes tensor (a higher layer)" not in r.stdout:
            failures.append(f"exit status: expected 1 and the violation, got {r.returncode}: {r.stdout!r}")

    for f in failures:
        print(f"check-includes self-test FAILED: {f}", file=sys.stderr)
    if not failures:
        print("check-includes self-test: ok", file=sys.stderr)
    return 1 if failures else 0


def main(argv):
    args = argv[1:]
    if args and args[0] == "--self-test":
        return self_test()
    if args and args[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    problems = check(root)
    if problems:
        print(f"check-includes: {problems} problem(s); a layer may include only its own folder or a lower "
              f"layer (the table at the top of scripts/check-includes.py)", file=sys.stderr)
        return 1
    print("check-includes: the include graph points down the pipeline", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
