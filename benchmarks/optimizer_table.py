"""What the optimizer buys on each zoo model, -O0 against -O2, measured in the same run:
top-level kernels + library calls (from --emit=report-json), the -O2 memory plan (arena bytes
against the sum of intermediates and the max-live lower bound), and the CPU latency of both
bundles (single-threaded, rounds interleaved so both see the same machine; ratios matter, not
absolute times). A model whose bundle does not compile or build at some level gets the first
line of the error in its row instead of a time.

Usage: python3 benchmarks/optimizer_table.py [--models mlp,cnn] [--level train|core]
           [--iters 50] [--rounds 3] [--thunderc build/cli/thunderc] [--table FILE]
Needs thunderc and the exported zoo in build/models (scripts/setup.sh makes both). Prints the
Markdown table and writes it to --table (default build/bench/optimizer_table.md).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = "mlp,cnn,resnet,mobilenet,transformer,gpt,dynamic_mlp,ops"
LEVELS = (0, 2)


class StepFailed(Exception):
    """A command of the benchmark failed; the message is short enough for a table cell."""


def run(cmd, **kwargs):
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    except OSError as error:  # a missing or unreadable binary
        raise StepFailed(f"{os.path.basename(cmd[0])}: {error.strerror}") from error
    if result.returncode != 0:
        lines = [line for line in (result.stderr or result.stdout).splitlines() if line.strip()]
        status = (f"crashed (signal {-result.returncode})" if result.returncode < 0
                  else f"exit code {result.returncode}")
        message = next((line for line in lines if "error" in line.lower()),
                       lines[0] if lines else status)
        raise StepFailed(f"{os.path.basename(cmd[0])}: {message.strip()[:160]}")
    return result.stdout


def compiled_report(thunderc, pt2, level):
    """The report-json "compiled" object after -O<level>."""
    return json.loads(run([thunderc, pt2, f"-O{level}", "--emit=report-json"]))["compiled"]


def build_bundle(thunderc, pt2, model, level, out_root):
    """thunderc -O<level> -o DIR, then a Release CMake build; returns the runner's path."""
    out = os.path.join(out_root, f"{model}_O{level}")
    run([thunderc, pt2, f"-O{level}", "-o", out, "--name", model])
    run(["cmake", "-S", out, "-B", f"{out}/build", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"])
    run(["cmake", "--build", f"{out}/build"])
    return f"{out}/build/{model}_run"


def median_us(runner, inputs, iters):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    stdout = run([runner, "--inputs", *inputs, "--warmup", "5", "--iters", str(iters)], env=env)
    return float(stdout.strip().split("median_us=")[1].split()[0])


def kib(value):
    return f"{value / 1024:.1f}"


def measure(model, args):
    """One table row's numbers for `model`; failures become notes, never exceptions."""
    model_dir = os.path.join(ROOT, "build", "models", model)
    manifest = json.load(open(os.path.join(model_dir, "manifest.json")))
    pt2 = os.path.join(model_dir, manifest["levels"][args.level]["file"])
    inputs = [os.path.join(model_dir, p) for p in manifest["cases"][0]["inputs"]]
    row = {"model": model, "notes": []}
    for level in LEVELS:
        try:
            compiled = compiled_report(args.thunderc, pt2, level)
        except StepFailed as failure:
            row["notes"].append(f"-O{level} report: {failure}")
            continue
        totals = compiled["totals"]
        row[f"calls{level}"] = f"{totals['kernels'] + totals['library']} (+{totals['views']} views)"
        if level == 2:
            row["memory"] = compiled["memory"]
    runners = {}
    for level in LEVELS:
        try:
            runners[level] = build_bundle(args.thunderc, pt2, model, level, args.out)
        except StepFailed as failure:
            row["notes"].append(f"-O{level} bundle: {failure}")
    # Interleaved rounds: a burst of load on the shared machine hits both levels alike.
    times = {level: [] for level in runners}
    for _ in range(args.rounds):
        for level in list(runners):
            try:
                times[level].append(median_us(runners[level], inputs, args.iters))
            except StepFailed as failure:
                row["notes"].append(f"-O{level} run: {failure}")
                del runners[level]
    for level, samples in times.items():
        if samples:
            row[f"us{level}"] = statistics.median(samples)
    return row


def table(rows, level_name):
    header = ["model", "kernels+library -O0", "kernels+library -O2", "arena KiB -O2",
              "sum KiB", "lower bound KiB", "arena/sum", "arena/lower bound", "-O0 us",
              "-O2 us", "-O0/-O2", "notes"]
    lines = [f"CPU, {level_name} IR, single-threaded; latency is the median of the runner's "
             "median_us over interleaved rounds. Views cost nothing once the layout pass "
             "(-O1 and up) made them strides; at -O0 the bundle copies them.", "",
             "| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in rows:
        memory = row.get("memory") or {}
        planned = memory.get("planned")

        def ratio(key):
            value = memory.get(key)
            return f"{value:.2f}" if planned and value is not None else "-"

        us0, us2 = row.get("us0"), row.get("us2")
        cells = [row["model"], str(row.get("calls0", "-")), str(row.get("calls2", "-")),
                 kib(memory["arena_bytes"]) if planned else "-",
                 kib(memory["sum_bytes"]) if planned else "-",
                 kib(memory["lower_bound_bytes"]) if planned else "-",
                 ratio("arena_over_sum"), ratio("arena_over_lower_bound"),
                 f"{us0:.1f}" if us0 else "-", f"{us2:.1f}" if us2 else "-",
                 f"{us0 / us2:.2f}" if us0 and us2 else "-",
                 "; ".join(row["notes"]).replace("|", "/") or ""]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=MODELS)
    parser.add_argument("--level", default="train", choices=["train", "core"])
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--thunderc", default=os.path.join(ROOT, "build", "cli", "thunderc"))
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    parser.add_argument("--table", default=None, help="where to write the Markdown table")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for model in args.models.split(","):
        print(f"measuring {model} ...", file=sys.stderr, flush=True)
        rows.append(measure(model, args))
    text = table(rows, args.level)
    path = args.table or os.path.join(args.out, "optimizer_table.md")
    with open(path, "w") as f:
        f.write(text)
    print(text, end="")
    print(f"(written to {path})", file=sys.stderr)


if __name__ == "__main__":
    main()
