#!/usr/bin/env python3
"""Checks the layering of docs/DESIGN.md §1 on every project include.

Each top-level folder is one library; a `#include "folder/..."` in a source or header of
another folder is an arrow between them. The arrows allowed are ALLOWED below (the design's
picture, written once); any other one fails with the file, line and the arrow, because CMake's
target_link_libraries only checks what links, not what a header includes.

    python3 tools/check_layering.py [--root DIR]     # exit 0, or 1 listing each forbidden include
    python3 tools/check_layering.py --self-test      # a tree with a bad include must fail
"""
import argparse
import re
import sys
import tempfile
from pathlib import Path

# folder -> the folders its files may include (besides itself). Bottom first.
ALLOWED = {
    # Copied into every bundle: the runtime and the target-neutral scalar kernels
    # (runtime/kernels/) depend on nothing of the compiler.
    "runtime": set(),
    # The CPU emulation of CUDA: standalone, ships into emulated bundles.
    "cuda_emu": set(),
    "ir": {"runtime"},
    "frontend": {"ir", "runtime"},
    "optimizer": {"ir"},
    "codegen": {"ir", "optimizer", "runtime"},
    "backend_cpu": {"codegen", "ir", "runtime"},
    "backend_cuda": {"codegen", "ir", "runtime", "cuda_emu"},
    "cli": {"frontend", "optimizer", "codegen", "backend_cpu", "backend_cuda", "ir", "runtime"},
    # The Triton backend links only what a bundle ships.
    "triton_backend": {"runtime"},
}
SOURCES = (".h", ".cpp", ".cu", ".cuh", ".inc", ".def", ".in")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z_][A-Za-z0-9_]*)/')


def forbidden_includes(root: Path):
    """(file, line number, from folder, to folder) for every include ALLOWED does not list."""
    found = []
    for folder, allowed in ALLOWED.items():
        base = root / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.suffix not in SOURCES or not path.is_file():
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target = match.group(1)
                if target != folder and target in ALLOWED and target not in allowed:
                    found.append((path.relative_to(root), number, folder, target))
    return found


def check(root: Path) -> int:
    found = forbidden_includes(root)
    for path, number, folder, target in found:
        print(f"{path}:{number}: {folder}/ includes {target}/, which docs/DESIGN.md's layering "
              f"forbids ({folder}/ may include: {', '.join(sorted(ALLOWED[folder])) or 'nothing'})")
    if not found:
        print(f"layering: {len(ALLOWED)} libraries, no forbidden include")
    return 1 if found else 0


def self_test() -> int:
    """The check must catch a bad include (here ir/ including codegen/) and pass a good tree."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "ir").mkdir()
        (root / "codegen").mkdir()
        (root / "codegen" / "emit.h").write_text('#include "ir/graph.h"\n')
        (root / "ir" / "graph.h").write_text('#pragma once\n#include "runtime/kernels/x.h"\n')
        if forbidden_includes(root):
            print("self-test: a tree without a forbidden include was reported")
            return 1
        (root / "ir" / "interpreter.h").write_text('#pragma once\n#include "codegen/emit.h"\n')
        found = forbidden_includes(root)
        if found != [(Path("ir/interpreter.h"), 2, "ir", "codegen")]:
            print(f"self-test: ir/ including codegen/ was not reported as expected: {found}")
            return 1
    print("self-test: a forbidden include (ir/ -> codegen/) is reported")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    return self_test() if args.self_test else check(args.root)


if __name__ == "__main__":
    sys.exit(main())
