"""The gallery table: for each gallery model (models/gallery.py), the exported nodes, what the
compiled bundle runs (fused kernels, library calls), the largest difference from PyTorch eager
over every case, and bundle vs eager latency at the default case (batch 1), measured in the
same run with one thread on both sides (ratios: these machines are shared and noisy).

Usage: python3 benchmarks/gallery_table.py [--models hf_bert,hf_llama] [--level train|core]
                                           [--iters 20] [--out build/gallery_bench]
Needs build/cli/thunderc and the exported gallery in build/gallery
(`python3 models/export_zoo.py --gallery --out build/gallery`). Prints a Markdown table; a
model thunderc refuses gets a row that lists the refused ops.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "models"))
import gallery  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_latency import eager_median_us  # noqa: E402

GALLERY_DIR = os.path.join(ROOT, "build", "gallery")
THUNDERC = os.path.join(ROOT, "build", "cli", "thunderc")
SINGLE_THREAD = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")


def report(pt2):
    result = subprocess.run([THUNDERC, pt2, "--emit=report-json"], capture_output=True, text=True)
    return json.loads(result.stdout) if result.returncode == 0 else None


def bundle_row(model, level, iters, out_root):
    folder = os.path.join(GALLERY_DIR, model)
    if not os.path.isfile(os.path.join(folder, "manifest.json")):
        return {"missing": f"not exported to {folder} (python3 models/export_zoo.py --gallery "
                           f"--out {GALLERY_DIR} --only {model})"}
    manifest = json.load(open(os.path.join(folder, "manifest.json")))
    pt2 = os.path.join(folder, manifest["levels"][level]["file"])
    info = report(pt2)
    if info is None or info["counts"]["unsupported"]:
        refused = sorted({n["target"] for n in (info or {}).get("nodes", [])
                          if n.get("status") == "unsupported"})
        return {"refused": refused or ["(report failed)"]}
    out = os.path.join(out_root, f"{model}_{level}")
    name = model
    subprocess.run([THUNDERC, pt2, "-o", out, "--name", name, "-q"], check=True)
    subprocess.run(["cmake", "-S", out, "-B", f"{out}/build", "-G", "Ninja",
                    "-DCMAKE_BUILD_TYPE=Release"], check=True, capture_output=True)
    subprocess.run(["cmake", "--build", f"{out}/build"], check=True, capture_output=True)
    runner = os.path.join(out, "build", f"{name}_run")
    max_error = 0.0
    for case in manifest["cases"]:
        inputs = [os.path.join(folder, p) for p in case["inputs"]]
        outputs = [os.path.join(out, f"out_{case['name']}_{i}.npy")
                   for i in range(len(case["expected"]))]
        subprocess.run([runner, "--inputs", *inputs, "--outputs", *outputs], check=True,
                       capture_output=True, env=SINGLE_THREAD)
        for got, want in zip(outputs, case["expected"]):
            a = np.load(got).astype(np.float64)
            b = np.load(os.path.join(folder, want)).astype(np.float64)
            if a.size:
                max_error = max(max_error, float(np.max(np.abs(a - b))))
    default = manifest["cases"][0]
    inputs = [os.path.join(folder, p) for p in default["inputs"]]
    timed = subprocess.run([runner, "--inputs", *inputs, "--warmup", "3", "--iters", str(iters)],
                           check=True, capture_output=True, text=True, env=SINGLE_THREAD)
    totals = info["compiled"]["totals"]
    return {"nodes": info["counts"]["exported_nodes"], "kernels": totals["kernels"],
            "library": totals["library"], "cases": len(manifest["cases"]),
            "max_error": max_error,
            "bundle_us": float(timed.stdout.strip().split("median_us=")[1])}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(e.name for e in gallery.GALLERY))
    parser.add_argument("--level", default="train", choices=["train", "core"])
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "gallery_bench"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"IR level: {args.level}; one thread; latency = median of {args.iters} runs of the "
          "first case\n")
    print("| model | nodes | kernels | library calls | cases | max abs err vs eager | "
          "bundle us | eager us | bundle/eager |")
    print("|---|---|---|---|---|---|---|---|---|")
    for model in args.models.split(","):
        row = bundle_row(model, args.level, args.iters, args.out)
        if "missing" in row:
            print(f"| {model} | {row['missing']} | | | | | | | |", flush=True)
            continue
        if "refused" in row:
            print(f"| {model} | refused: {', '.join(row['refused'])} | | | | | | | |")
            continue
        eager = eager_median_us(gallery.get(model), args.iters, warmup=3)
        print(f"| {model} | {row['nodes']} | {row['kernels']} | {row['library']} | "
              f"{row['cases']} | {row['max_error']:.1e} | {row['bundle_us']:.0f} | {eager:.0f} | "
              f"{row['bundle_us'] / eager:.3g} |", flush=True)


if __name__ == "__main__":
    main()
