"""The GPU check's table: each zoo model's CUDA bundle against PyTorch eager on the GPU (largest
error, pass/fail by tests/golden/tolerances.py) and its latency next to eager and torch.compile,
plain and replayed as CUDA graphs (the runner's --cuda-graphs 4; a model whose runs cannot be
captured gets n/a and a note).

Pass/fail: torch.testing.assert_close at the dtype's default tolerance against eager on the GPU
(TF32 off), else the export's fp64 referee ("ok (fp64 referee)"): GEMMs and reductions may sum
in another order than cuBLAS/cuDNN and still be as accurate as the dtype allows.

scripts/gpu_check.sh exports the zoo, builds the bundles and then runs this; by hand:

  python3 benchmarks/gpu_table.py --zoo build/models --bundles build/gpu_check/bundles \\
      --models mlp,mlp_fp16 [--iters 200] [--out build/gpu_check.md] [--emulate]
  python3 benchmarks/gpu_table.py --list --models mlp,cnn --dtypes fp32,bf16   # zoo names

A bundle is <bundles>/<name>/build/<name>_run; when it is missing, <bundles>/<name>.log says why.
--emulate: the bundles were built against the CPU emulation of CUDA, so eager runs on the CPU
and torch.compile is skipped; the latency columns then time the emulation.

Exit codes: 0 every model correct; 1 a model failed (wrong numbers, no bundle, runner error);
2 setup error (no GPU without --emulate, unknown model, missing zoo export). Latency is
reported, never enforced.
"""
import argparse
import dataclasses
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "models"))
sys.path.insert(0, os.path.join(ROOT, "tests", "golden"))
import torch  # noqa: E402
import torch.export.passes  # noqa: E402  (move_to_device_pass, for the exported-program fallback)
import zoo  # noqa: E402
from tolerances import compare, load_npy  # noqa: E402

EXIT_OK, EXIT_FAILED, EXIT_SETUP = 0, 1, 2
DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
DEFAULT_MODELS = "mlp,cnn,resnet,mobilenet,transformer,gpt,dynamic_mlp,ops"
# A runner that takes longer than this is hung, not slow: the emulated zoo runs in seconds.
RUNNER_TIMEOUT_S = 300


class SetupError(Exception):
    """Something about the machine or the arguments, not about a model: exit code 2."""


@dataclasses.dataclass
class Row:
    """One model's line of the table; None means "not measured" and reads as "n/a"."""
    model: str
    dtype: str
    max_error: float | None = None
    verdict: str = "FAIL"           # "ok", "ok (fp64 referee)" or "FAIL"
    bundle_us: float | None = None
    eager_us: float | None = None
    compile_us: float | None = None
    graphs_us: float | None = None  # the bundle with --cuda-graphs (its runs replayed)
    notes: list[str] = dataclasses.field(default_factory=list)

    @property
    def passed(self):
        return self.verdict.startswith("ok")


@dataclasses.dataclass
class CompileBudget:
    """What torch.compile may still spend over all models. Compiling (Dynamo, Inductor,
    Triton, cold caches) is the check's slowest step and the whole check must stay within
    five minutes, so once the budget is spent the remaining models get n/a."""
    seconds: float
    spent: float = 0.0

    @property
    def exhausted(self):
        return self.spent >= self.seconds


# --------------------------------------------------------------------------------------------
# Selection
# --------------------------------------------------------------------------------------------


def dtype_label(dtype):
    return next(label for label, value in DTYPES.items() if value == dtype)


def select_models(models, dtypes):
    """Zoo names for `models` crossed with `dtypes`: a base name ("mlp") becomes its variant
    at each dtype the zoo has ("mlp", "mlp_fp16"); a variant name ("mlp_fp16") is taken as it
    is. A base model with no variant at any of `dtypes` is skipped with a note on stderr; an
    unknown name or dtype, or an empty selection, is a SetupError."""
    unknown = [d for d in dtypes if d not in DTYPES]
    if unknown:
        raise SetupError(f"unknown dtype {unknown[0]!r}; known: {', '.join(DTYPES)}")
    known = {entry.name for entry in zoo.ZOO}
    selected = []
    for model in models:
        if model not in known:
            raise SetupError(f"unknown zoo model {model!r}; known: {', '.join(sorted(known))}")
        if zoo.get(model).dtype != torch.float32:
            selected.append(model)
            continue
        names = [name for name in (model if d == "fp32" else f"{model}_{d}" for d in dtypes)
                 if name in known]
        if not names:
            print(f"gpu_table: note: {model} has no {','.join(dtypes)} variant in the zoo "
                  "(models/zoo.py DTYPE_VARIANTS); skipped", file=sys.stderr)
        selected += names
    if not selected:
        raise SetupError("no zoo model selected")
    return list(dict.fromkeys(selected))


# --------------------------------------------------------------------------------------------
# Eager, torch.compile and the bundle
# --------------------------------------------------------------------------------------------


def read_manifest(zoo_dir, name):
    path = os.path.join(zoo_dir, name, "manifest.json")
    if not os.path.isfile(path):
        raise SetupError(f"{path} not found: export the zoo first (models/export_zoo.py)")
    with open(path) as f:
        return json.load(f)


def tensor_crc32(tensor):
    """The export script's CRC-32: contiguous row-major bytes, on the CPU."""
    raw = tensor.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
    return zlib.crc32(raw) & 0xFFFFFFFF


def eager_module(zoo_dir, name, manifest, device):
    """The module eager runs, on `device`, and a note when it is not the zoo's own.

    The zoo's nn.Module is what a user would run, so it is preferred; it is used only when
    every parameter and buffer matches the CRC-32 the export recorded, which proves that the
    bundle and eager hold the same weights. Otherwise (the zoo changed since the export) the
    exported program itself is run, moved to the device with its constants."""
    module = zoo.get(name).make_model()
    state = dict(module.named_parameters(remove_duplicate=False))
    state.update(module.named_buffers(remove_duplicate=False))
    differing = [p["name"] for p in manifest["params"] if p["kind"] in ("parameter", "buffer")
                 and (p["name"] not in state or tensor_crc32(state[p["name"]]) != p["crc32"])]
    if not differing:
        return module.to(device), None
    program = torch.export.load(os.path.join(zoo_dir, name, "train.pt2"))
    program = torch.export.passes.move_to_device_pass(program, device)
    return program.module(), (f"eager runs the exported program: the zoo's weights differ from "
                              f"the export ({differing[0]})")


def synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def median_us(run, iters, warmup, device):
    """Median time of one synchronized call of `run` after `warmup` calls: CUDA events on a GPU,
    as the bundle's runner times it, perf_counter on the CPU. The stream is idle when `start`
    is recorded, so the events span the launches' CPU overhead too, not only the kernels."""
    for _ in range(warmup):
        run()
    synchronize(device)
    times = []
    if device.type == "cuda":
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(iters):
            start.record()
            run()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1e3)
        return statistics.median(times)
    for _ in range(iters):
        begin = time.perf_counter()
        run()
        times.append((time.perf_counter() - begin) * 1e6)
    return statistics.median(times)


def one_line(error):
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:160]


def compiled_latency(module, inputs, mode, iters, warmup, device):
    """(median µs, None) of torch.compile(module), or (None, reason) when compiling or running
    it fails: the table reports it and goes on."""
    try:
        torch._dynamo.reset()
        compiled = torch.compile(module, mode=None if mode == "default" else mode)
        with torch.no_grad():
            compiled(*inputs)  # compiles; the warm-up below then runs the compiled code
            return median_us(lambda: compiled(*inputs), iters, warmup, device), None
    except Exception as error:  # noqa: BLE001 (any failure inside Dynamo/Inductor is a table cell)
        return None, one_line(error)


def run_bundle(runner, input_paths, output_paths=None, iters=0, warmup=0, graphs=False):
    """Runs the bundle's runner; returns its stdout. Raises RuntimeError with its stderr."""
    command = [runner, "--inputs", *input_paths] + (["--cuda-graphs", "4"] if graphs else [])
    if output_paths:
        command += ["--outputs", *output_paths]
    if iters:
        command += ["--warmup", str(warmup), "--iters", str(iters)]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=RUNNER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{os.path.basename(runner)} ran past {RUNNER_TIMEOUT_S} s") from None
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise RuntimeError(f"{os.path.basename(runner)} exited {result.returncode}: {last}")
    return result.stdout


def flat_outputs(result):
    """The output tensors in the order the exporter saved them (pytree leaves)."""
    return list(torch.utils._pytree.tree_flatten(result)[0])


def why_not_built(bundles_dir, name):
    """The first error line of the bundle's compile/build log (written by gpu_check.sh)."""
    log = os.path.join(bundles_dir, f"{name}.log")
    if not os.path.isfile(log):
        return "no bundle and no build log"
    with open(log, errors="replace") as f:
        lines = [line.strip() for line in f if line.strip()]
    errors = [line for line in lines if re.search(r"\berror\b", line, re.IGNORECASE)]
    return "not built: " + ((errors or lines or ["empty log"])[0])[:200]


# --------------------------------------------------------------------------------------------
# One model
# --------------------------------------------------------------------------------------------


def load_cases(model_dir, manifest, device):
    """[(case, input paths, input tensors on `device`)] for every case of the export."""
    cases = []
    for case in manifest["cases"]:
        paths = [os.path.join(model_dir, path) for path in case["inputs"]]
        cases.append((case, paths, [load_npy(path).to(device) for path in paths]))
    return cases


def check_outputs(row, runner, module, model_dir, cases):
    """Runs every case through eager and the bundle and fills the row's error and verdict;
    False when the runner failed (the row then says why)."""
    verdicts = []
    with tempfile.TemporaryDirectory() as tmp:
        for case, paths, inputs in cases:
            eager = [out.cpu() for out in flat_outputs(module(*inputs))]
            outputs = [os.path.join(tmp, f"{case['name']}_{i}.npy") for i in range(len(eager))]
            try:
                run_bundle(runner, paths, outputs)
            except RuntimeError as error:
                row.notes.append(str(error))
                return False
            for i, (path, expected) in enumerate(zip(outputs, eager)):
                referee = load_npy(os.path.join(model_dir, case["expected_fp64"][i]))
                ok, error, how = compare(load_npy(path), expected, referee)
                verdicts.append((ok, how))
                row.max_error = max(row.max_error or 0.0, error)
                if not ok:
                    row.notes.append(f"case {case['name']} output {i}: max error {error:.3g}, {how}")
    if not all(ok for ok, _ in verdicts):
        row.verdict = "FAIL"
    elif any(how.startswith("fp64 referee") for _, how in verdicts):
        row.verdict = "ok (fp64 referee)"
    else:
        row.verdict = "ok"
    return True


def smallest_case(cases):
    """The case latency is measured on: the one with the fewest input elements, so batch 1
    for a dynamic model; a static model has only its exported shape."""
    return min(cases, key=lambda c: sum(tensor.numel() for tensor in c[2]))


def measure(options, name, device, compile_budget):
    """The row of zoo model `name`: correctness of every case, then latency."""
    manifest = read_manifest(options.zoo, name)
    dtype = dtype_label(zoo.get(name).dtype)
    row = Row(name.removesuffix(f"_{dtype}"), dtype)
    model_dir = os.path.join(options.zoo, name)
    runner = os.path.join(options.bundles, name, "build", f"{name}_run")
    if not os.path.isfile(runner):
        row.notes.append(why_not_built(options.bundles, name))
        return row
    module, note = eager_module(options.zoo, name, manifest, device)
    row.notes += [note] if note else []

    warmup = min(20, max(1, options.iters // 10))
    with torch.no_grad():
        cases = load_cases(model_dir, manifest, device)
        if not check_outputs(row, runner, module, model_dir, cases):
            return row
        _, paths, inputs = smallest_case(cases)
        try:
            stdout = run_bundle(runner, paths, iters=options.iters, warmup=warmup)
            row.bundle_us = float(stdout.split("median_us=")[1].split()[0])
        except (RuntimeError, IndexError, ValueError) as error:
            row.notes.append(f"bundle timing: {error}")
        try:
            stdout = run_bundle(runner, paths, iters=options.iters, warmup=warmup, graphs=True)
            row.graphs_us = float(stdout.split("median_us=")[1].split()[0])
        except (RuntimeError, IndexError, ValueError) as error:
            row.notes.append(f"CUDA graphs: {error}")
        row.eager_us = median_us(lambda: module(*inputs), options.iters, warmup, device)

    if options.emulate:
        return row
    if compile_budget.exhausted:
        row.notes.append(f"torch.compile: n/a (its {compile_budget.seconds:.0f} s budget over "
                         "all models is spent; --compile-budget-s)")
        return row
    began = time.monotonic()
    row.compile_us, reason = compiled_latency(module, inputs, options.compile_mode,
                                              options.iters, warmup, device)
    compile_budget.spent += time.monotonic() - began
    if reason:
        row.notes.append(f"torch.compile: n/a ({reason})")
    return row


# --------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------


def geomean(values):
    values = [v for v in values if v is not None and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def ratio(numerator, denominator):
    return numerator / denominator if numerator and denominator else None


def cell(value, spec):
    return "n/a" if value is None else format(value, spec)


def format_table(rows, emulate, header_lines):
    """The Markdown report: header lines, the table with a geomean row, then the notes."""
    where = "CPU" if emulate else "GPU"
    bundle = "bundle µs (emulated CUDA)" if emulate else "bundle µs"
    eager = "eager µs (CPU)" if emulate else "eager µs"
    lines = list(header_lines) + [
        "",
        f"| model | dtype | max err vs eager ({where}) | ok | {bundle} | {eager} | compile µs "
        "| bundle/eager | bundle/compile | graphs µs | graphs/eager |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    compile_cell = (lambda r: "skipped (--emulate)") if emulate else (
        lambda r: cell(r.compile_us, ".1f"))
    for r in rows:
        lines.append(f"| {r.model} | {r.dtype} | {cell(r.max_error, '.3g')} | {r.verdict} "
                     f"| {cell(r.bundle_us, '.1f')} | {cell(r.eager_us, '.1f')} | {compile_cell(r)} "
                     f"| {cell(ratio(r.bundle_us, r.eager_us), '.2f')} "
                     f"| {cell(ratio(r.bundle_us, r.compile_us), '.2f')} "
                     f"| {cell(r.graphs_us, '.1f')} | {cell(ratio(r.graphs_us, r.eager_us), '.2f')} |")
    passed = sum(r.passed for r in rows)
    lines.append(f"| geomean | | | {passed}/{len(rows)} ok | | | "
                 f"| {cell(geomean([ratio(r.bundle_us, r.eager_us) for r in rows]), '.2f')} "
                 f"| {cell(geomean([ratio(r.bundle_us, r.compile_us) for r in rows]), '.2f')} | "
                 f"| {cell(geomean([ratio(r.graphs_us, r.eager_us) for r in rows]), '.2f')} |")
    notes = [f"- {r.model} {r.dtype}: {note}" for r in rows for note in r.notes]
    if notes:
        lines += ["", "Notes:", *notes]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------------


def parse_arguments(argv):
    summary, _, details = __doc__.partition("\n\n")
    parser = argparse.ArgumentParser(description=summary, epilog=details,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=DEFAULT_MODELS,
                        help="base names crossed with --dtypes, or variant names (mlp_fp16)")
    parser.add_argument("--dtypes", default="fp32,fp16,bf16", help="default: %(default)s")
    parser.add_argument("--list", action="store_true",
                        help="print the selected zoo names, one a line, and exit")
    parser.add_argument("--zoo", default=os.path.join(ROOT, "build", "models"))
    parser.add_argument("--bundles", default=os.path.join(ROOT, "build", "gpu_check", "bundles"))
    parser.add_argument("--iters", type=int, default=200,
                        help="timed runs per measurement (default: %(default)s)")
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "gpu_check.md"))
    parser.add_argument("--emulate", action="store_true")
    parser.add_argument("--compile-mode", default="default",
                        help='torch.compile mode: "default", "max-autotune-no-cudagraphs", ...')
    parser.add_argument("--compile-budget-s", type=float, default=120.0,
                        help="seconds torch.compile may take over all models; later ones get "
                        "n/a (default: %(default)s)")
    options = parser.parse_args(argv)
    if options.iters < 1:
        parser.error("--iters must be positive")
    return options


def split_list(text):
    return [item.strip() for item in text.split(",") if item.strip()]


def setup_device(emulate):
    if emulate:
        # One thread: eager then computes exactly as the export did, and times comparably
        # with the single-threaded emulation.
        torch.set_num_threads(1)
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise SetupError(f"no CUDA device visible to torch {torch.__version__} "
                         "(use --emulate on a machine without a GPU)")
    # fp32 must be fp32: TF32 GEMMs and convolutions would be the reference's rounding.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return torch.device("cuda")


def measure_all(options, names, device, compile_budget):
    """Every model's row. A model that raises (eager on the GPU, a corrupt export) becomes a
    failed row with the error, so one model cannot take the others' results with it."""
    rows = []
    for name in names:
        try:
            row = measure(options, name, device, compile_budget)
        except Exception as error:  # noqa: BLE001 (reported in the row, and it fails the check)
            dtype = dtype_label(zoo.get(name).dtype)
            row = Row(name.removesuffix(f"_{dtype}"), dtype, notes=[f"error: {one_line(error)}"])
        rows.append(row)
        print(f"gpu_table: {name}: {row.verdict}; µs: bundle {cell(row.bundle_us, '.1f')}, "
              f"eager {cell(row.eager_us, '.1f')}, compile {cell(row.compile_us, '.1f')}",
              file=sys.stderr, flush=True)
    return rows


def main(argv=None):
    options = parse_arguments(argv)
    try:
        names = select_models(split_list(options.models), split_list(options.dtypes))
        if options.list:
            print("\n".join(names))
            return EXIT_OK
        device = setup_device(options.emulate)
        for name in names:
            read_manifest(options.zoo, name)
    except SetupError as error:
        print(f"gpu_table: error: {error}", file=sys.stderr)
        return EXIT_SETUP

    started = time.monotonic()
    compile_budget = CompileBudget(options.compile_budget_s)
    # torch.compile pays its full cost on every run: Inductor and Triton get a fresh cache
    # folder, set before torch._inductor first reads the variables.
    with tempfile.TemporaryDirectory(prefix="gpu_table_inductor_",
                                     ignore_cleanup_errors=True) as cache:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
        os.environ["TRITON_CACHE_DIR"] = os.path.join(cache, "triton")
        rows = measure_all(options, names, device, compile_budget)

    device_name = ("CPU (emulated CUDA)" if options.emulate
                   else torch.cuda.get_device_name(device))
    header = [
        "# thunderc GPU check",
        "",
        f"{device_name}, torch {torch.__version__}, {len(rows)} model(s), --iters {options.iters}"
        + ("" if options.emulate else f", torch.compile mode {options.compile_mode} "
           f"({compile_budget.spent:.0f} s compiling)")
        + f"; measured in {time.monotonic() - started:.0f} s.",
        "Latency: one synchronized inference at the exported shape (batch 2-4; dynamic models "
        "at their smallest case, batch 1), median over the timed runs.",
    ]
    table = format_table(rows, options.emulate, header)
    os.makedirs(os.path.dirname(os.path.abspath(options.out)), exist_ok=True)
    with open(options.out, "w") as f:
        f.write(table)
    print(table, end="")
    return EXIT_OK if all(r.passed for r in rows) else EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
