"""CPU latency of compiled bundles vs PyTorch eager, measured in the same run (ratios, not
absolute times: machines are shared and noisy). Both sides use one thread.

Usage: python3 benchmarks/cpu_latency.py [--models mlp,cnn] [--level train|core] [--iters 50]
Needs build/cli/thunderc and the exported zoo in build/models (scripts/setup.sh makes both).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "models"))
import zoo  # noqa: E402


def bundle_latency(model, level, iters, out_root):
    model_dir = os.path.join(ROOT, "build", "models", model)
    manifest = json.load(open(os.path.join(model_dir, "manifest.json")))
    out = os.path.join(out_root, f"{model}_{level}")
    thunderc = os.path.join(ROOT, "build", "cli", "thunderc")
    start = time.monotonic()
    subprocess.run([thunderc, os.path.join(model_dir, f"{level}.pt2"), "-o", out, "--name", model],
                   check=True)
    subprocess.run(["cmake", "-S", out, "-B", f"{out}/build", "-G", "Ninja",
                    "-DCMAKE_BUILD_TYPE=Release"], check=True, capture_output=True)
    subprocess.run(["cmake", "--build", f"{out}/build"], check=True, capture_output=True)
    build_seconds = time.monotonic() - start
    inputs = [os.path.join(model_dir, p) for p in manifest["cases"][0]["inputs"]]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    result = subprocess.run([f"{out}/build/{model}_run", "--inputs", *inputs, "--warmup", "5",
                             "--iters", str(iters)], check=True, capture_output=True, text=True,
                            env=env)
    median = float(result.stdout.strip().split("median_us=")[1])
    return median, build_seconds


def eager_median_us(entry, iters, warmup=5):
    """Median eager latency (us) of a zoo or gallery entry on its default inputs."""
    module = entry.make_model()
    args = entry.make_inputs()
    times = []
    with torch.no_grad():
        for _ in range(warmup):
            module(*args)
        for _ in range(iters):
            start = time.perf_counter()
            module(*args)
            times.append((time.perf_counter() - start) * 1e6)
    return statistics.median(times)


def eager_latency(model, iters):
    return eager_median_us(zoo.get(model), iters)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", default="mlp,cnn,resnet,mobilenet,transformer,gpt,dynamic_mlp,ops")
    parser.add_argument("--level", default="train", choices=["train", "core"])
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"{'model':12s} {'bundle_us':>10s} {'eager_us':>10s} {'bundle/eager':>12s} {'build_s':>8s}")
    for model in args.models.split(","):
        bundle, build = bundle_latency(model, args.level, args.iters, args.out)
        eager = eager_latency(model, args.iters)
        print(f"{model:12s} {bundle:10.1f} {eager:10.1f} {bundle / eager:12.2f} {build:8.1f}")


if __name__ == "__main__":
    main()
