"""Runs a zoo model through `thunderc --interpret` (or a compiled bundle's runner) and compares
with PyTorch eager.

Usage:
  python3 tests/golden/compare.py --thunderc build/cli/thunderc --model-dir build/models/mlp
  python3 tests/golden/compare.py --runner out/build/mlp_run --model-dir build/models/mlp
Prints the max error per level, case and output; exits non-zero on a mismatch.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tolerances import compare, load_npy  # noqa: E402


def run_case(thunderc, model_dir, level_file, case, runner=None):
    """Runs one case through the interpreter (or `runner`, a bundle's <name>_run); returns a
    list of (ok, max_error, how) per output."""
    with tempfile.TemporaryDirectory() as tmp:
        outputs = [os.path.join(tmp, f"out_{i}.npy") for i in range(len(case["expected"]))]
        inputs = [os.path.join(model_dir, path) for path in case["inputs"]]
        command = [thunderc, os.path.join(model_dir, level_file), "--interpret",
                   "--inputs", ",".join(inputs), "--outputs", ",".join(outputs)]
        if runner:
            command = [runner, "--inputs", *inputs, "--outputs", *outputs]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} exited {result.returncode}:\n{result.stderr}")
        rows = []
        for i, out in enumerate(outputs):
            actual = load_npy(out)
            expected = load_npy(os.path.join(model_dir, case["expected"][i]))
            reference = load_npy(os.path.join(model_dir, case["expected_fp64"][i]))
            rows.append(compare(actual, expected, reference))
        return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--thunderc", help="thunderc binary: run the reference interpreter")
    parser.add_argument("--runner", help="a bundle's <name>_run: run the compiled model")
    parser.add_argument("--level", choices=["train", "core"], help="only this IR level")
    parser.add_argument("--model-dir", required=True)
    args = parser.parse_args()
    if not args.thunderc and not args.runner:
        parser.error("give --thunderc or --runner")
    manifest = json.load(open(os.path.join(args.model_dir, "manifest.json")))
    failed = False
    what = "bundle" if args.runner else "interpreter"
    for level, info in manifest["levels"].items():
        if args.runner and not args.level:
            args.level = level  # a bundle was compiled from one level
        if args.level and level != args.level:
            continue
        for case in manifest["cases"]:
            for i, (ok, err, how) in enumerate(run_case(args.thunderc, args.model_dir,
                                                        info["file"], case, args.runner)):
                failed |= not ok
                print(f"{manifest['name']} ({level} IR, {what}) case {case['name']} output {i}: "
                      f"max |thunderc - eager| = {err:.3g}  {'OK' if ok else 'MISMATCH'} ({how})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
