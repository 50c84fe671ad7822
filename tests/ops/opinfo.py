"""PyTorch's own OpInfo samples as exported programs: every OpInfo of
torch.testing._internal.common_methods_invocations.op_db, its first float32 samples (int64 or bool for
an op without float32 ones), each wrapped in a module whose inputs are the sample's tensors, exported at the training IR
(torch.export.export) and at core ATen (run_decompositions()).

This file is the generator; tests/ops/test_opinfo.py is the CI test over it, and

    python3 tests/ops/opinfo.py --survey --out /tmp/opinfo [--only NAME,...] [--jobs N]

exports every sample, runs `thunderc X.pt2 --emit=ir` on both levels and prints, per level, how
many programs import and which ops stop the rest (most frequent first): the live record of what
thunderc is missing, measured as a user would meet it.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import torch
import torch.utils._pytree as pytree

REPO = Path(__file__).resolve().parent.parent.parent
LEVELS = ("train", "core")
MAX_SAMPLES = 2


def _op_db():
    from torch.testing._internal.common_methods_invocations import op_db
    return op_db


def opinfo_id(opinfo) -> str:
    return opinfo.name + ("." + opinfo.variant_test_name if opinfo.variant_test_name else "")


class SampleModule(torch.nn.Module):
    """Calls `fn(*args, **kwargs)` where the sample's tensors are the module's inputs (in
    pytree order) and everything else is a constant of the program."""

    def __init__(self, fn, spec, constants):
        super().__init__()
        self.fn = fn
        self.spec = spec
        self.constants = constants  # leaf index -> non-tensor leaf

    def forward(self, *tensors):
        leaves, it = [], iter(tensors)
        for i in range(self.spec.num_leaves):
            leaves.append(self.constants[i] if i in self.constants else next(it))
        args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        out = self.fn(*args, **kwargs)
        flat = [x for x in pytree.tree_leaves(out) if isinstance(x, torch.Tensor)]
        return tuple(flat)


def samples_of(opinfo, dtype=torch.float32, limit=MAX_SAMPLES):
    """(module, input tensors) for the first `limit` samples of `opinfo` in `dtype`."""
    if dtype not in opinfo.supported_dtypes("cpu"):
        return []
    out = []
    torch.manual_seed(0)
    for sample in opinfo.sample_inputs("cpu", dtype, requires_grad=False):
        if len(out) >= limit:
            break
        call = ((sample.input, *sample.args), dict(sample.kwargs))
        leaves, spec = pytree.tree_flatten(call)
        tensors = [x for x in leaves if isinstance(x, torch.Tensor)]
        constants = {i: x for i, x in enumerate(leaves) if not isinstance(x, torch.Tensor)}
        if any(callable(c) for c in constants.values()):
            continue  # a Python function argument: not a program constant
        module = SampleModule(lambda *a, **k: opinfo.op(*a, **k), spec, constants)
        out.append((module, tuple(t.clone() for t in tensors)))
    return out


def _to_numpy(t: torch.Tensor) -> np.ndarray:
    """C-contiguous numpy copy; bfloat16 as '<u2' bits (tests/golden/tolerances.load_npy)."""
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return np.array(t.view(torch.int16).numpy(), order="C", copy=True).view("<u2")
    return np.array(t.numpy(), order="C", copy=True)


def _save(folder: Path, prefix: str, tensors) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i, t in enumerate(tensors):
        np.save(folder / f"{prefix}_{i}.npy", _to_numpy(t), allow_pickle=False)


def _fp64(t):
    return t.double() if t.is_floating_point() else t


def export_program(module, tensors, folder: Path, samples: int = 1):
    """Writes train.pt2, core.pt2, inputs/, expected/, expected_fp64/ and program.json to
    `folder` for `module` on `tensors`; returns why it is not a test (an export error,
    complex tensors, ...) or None."""
    folder.mkdir(parents=True, exist_ok=True)
    if any(t.is_complex() for t in tensors):
        return "complex input (a program input is real)"
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            expected = [o.clone() for o in module(*[t.clone() for t in tensors])]
            if not expected:
                return "no tensor output"
            if any(o.is_complex() for o in expected):
                return "complex output (a program output is real)"
            ep = torch.export.export(module, tuple(t.clone() for t in tensors))
            torch.export.save(ep, folder / "train.pt2")
            torch.export.save(ep.run_decompositions(), folder / "core.pt2")
            try:
                expected64 = [o.clone() for o in module(*[_fp64(t) for t in tensors])]
            except Exception:  # noqa: BLE001  (no fp64 kernel: compare with eager only)
                expected64 = None
    except Exception as e:  # noqa: BLE001  (a sample torch.export cannot export)
        return f"export: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
    try:
        draws = eager_draws(module, tensors)
    except Exception as e:  # noqa: BLE001
        return f"eager draws: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
    try:
        _save(folder / "inputs", "input", tensors)
        _save(folder / "expected", "output", expected)
        if draws is not None:
            _save(folder / "eager_draws", "output", draws)
        elif expected64 is not None and len(expected64) == len(expected):
            _save(folder / "expected_fp64", "output", expected64)
    except (TypeError, RuntimeError) as e:  # a dtype .npy cannot hold (uint16 bits of ...)
        return f"save: {type(e).__name__}: {e}"
    (folder / "program.json").write_text(json.dumps(
        {"inputs": len(tensors), "outputs": len(expected), "samples": samples,
         "random": draws is not None}))
    return None


# Random programs: outputs that change with the seed cannot equal eager's; thunderc's draws
# (its own generator, tests/ops/random_compare.py) are compared with many of eager's instead.
EAGER_DRAWS = 256      # eager runs per random program (fewer for big outputs)
BUNDLE_SEED = 7
THUNDERC_SEEDS = 8     # interpreter runs per level, seeds 1..8


def eager_draws(module, tensors):
    """None when the module's outputs do not depend on the seed; else, per output, a tensor
    [draws, *shape] of eager's outputs under seeds 0, 1, ..."""
    def run(seed):
        # OpInfo's random ops reseed with 42 on every call (wrapper_set_seed): keep our seed.
        torch.manual_seed(seed)
        manual_seed, torch.manual_seed = torch.manual_seed, lambda s: torch.default_generator
        try:
            with warnings.catch_warnings(), torch.no_grad():
                warnings.simplefilter("ignore")
                return [o.detach().clone() for o in module(*[t.clone() for t in tensors])]
        finally:
            torch.manual_seed = manual_seed
    first, second = run(0), run(1)
    if all(a.shape == b.shape and torch.equal(a, b) for a, b in zip(first, second)):
        return None
    numel = max(1, sum(o.numel() for o in first))
    count = max(32, min(EAGER_DRAWS, 2_000_000 // numel))
    runs = [first, second] + [run(seed) for seed in range(2, count)]
    return [torch.stack([r[i] for r in runs]) for i in range(len(first))]


def check_interpreter(thunderc: str, folder: Path, level: str):
    """Runs `thunderc LEVEL.pt2 --interpret` on the program's inputs and compares every output
    with eager (tests/golden/tolerances.py). Returns None when all match, else why not."""
    sys.path.insert(0, str(REPO / "tests" / "golden"))
    from tolerances import compare, load_npy
    meta = json.loads((folder / "program.json").read_text())
    inputs = [folder / "inputs" / f"input_{i}.npy" for i in range(meta["inputs"])]
    seeds = range(1, THUNDERC_SEEDS + 1) if meta.get("random") else [None]
    runs = []
    for seed in seeds:
        out = folder / "interpret" / level / (f"seed{seed}" if seed is not None else "")
        out.mkdir(parents=True, exist_ok=True)
        outputs = [out / f"output_{i}.npy" for i in range(meta["outputs"])]
        r = subprocess.run([thunderc, str(folder / f"{level}.pt2"), "--interpret",
                            "--inputs", ",".join(map(str, inputs)),
                            "--outputs", ",".join(map(str, outputs)),
                            *(["--seed", str(seed)] if seed is not None else [])],
                           capture_output=True, text=True)
        if r.returncode:
            return f"exit {r.returncode}: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ''}"
        runs.append(outputs)
    if meta.get("random"):
        from random_compare import compare_draws
        for i in range(meta["outputs"]):
            ours = np.stack([load_npy(run[i]) for run in runs])
            why = compare_draws(ours, load_npy(folder / "eager_draws" / f"output_{i}.npy"))
            if why:
                return f"output {i}: {why}"
        return None
    for i, path in enumerate(runs[0]):
        expected = load_npy(folder / "expected" / f"output_{i}.npy")
        ref = folder / "expected_fp64" / f"output_{i}.npy"
        ok, err, how = compare(load_npy(path), expected, load_npy(ref) if ref.exists() else None)
        if not ok:
            return f"output {i}: max |thunderc - eager| = {err:.3g} ({how})"
    return None


_ATEN_CALL_RE = re.compile(r'aten_call\(.*\{target="([^"]+)"')
_OP_RE = re.compile(r"(aten\.[A-Za-z0-9_]+\.[A-Za-z0-9_]+|[a-z_]+\.[A-Za-z0-9_]+\.[A-Za-z0-9_]+)")


def refused_ops(stderr: str) -> list[str]:
    ops = sorted(set(m.group(1) for m in _OP_RE.finditer(stderr)))
    return ops or [stderr.strip().splitlines()[0][:120] if stderr.strip() else "(no message)"]


class GroupModule(torch.nn.Module):
    """Several samples in one program: the inputs of each in turn, all their outputs."""

    def __init__(self, parts, counts):
        super().__init__()
        self.parts = torch.nn.ModuleList(parts)
        self.counts = counts

    def forward(self, *tensors):
        outs, at = [], 0
        for part, count in zip(self.parts, self.counts):
            outs += list(part(*tensors[at:at + count]))
            at += count
        return tuple(outs)


def _programs_for(ops, samples_root: Path):
    """{OpInfo id: its program module} rebuilt from op_db, with as many samples as the
    exported program has (one when torch.export refused the pair)."""
    wanted, found = set(ops), {}
    for info in _op_db():
        oid = opinfo_id(info)
        if oid in wanted:
            count = json.loads((samples_root / oid / "program.json").read_text())["samples"]
            found[oid] = opinfo_program(info, count)[0]
    return found


def check_group_bundle(thunderc, folder: Path, name: str, ids, level: str, samples_root: Path,
                       jobs: int, random: bool = False):
    """Exports the OpInfo programs `ids` (opinfo ids) as one program at `level`, compiles it into a CPU bundle,
    builds and runs it on the samples' inputs and compares every output with eager. Returns
    failure lines (empty when every output matches). `random`: the programs draw random
    numbers, so the bundle (seed BUNDLE_SEED) is compared with the reference interpreter of the
    same program and seed instead, which draws the same numbers (docs/DESIGN.md); how those
    are distributed is what check_interpreter tests."""
    sys.path.insert(0, str(REPO / "tests" / "golden"))
    from tolerances import compare, load_npy
    import build_flags
    import shutil
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    modules = _programs_for(ids, samples_root)
    parts, counts, inputs, expected = [], [], [], []
    for sid in ids:
        meta = json.loads((samples_root / sid / "program.json").read_text())
        parts.append(modules[sid])
        counts.append(meta["inputs"])
        inputs += [samples_root / sid / "inputs" / f"input_{i}.npy" for i in range(meta["inputs"])]
        expected += [(sid, i, samples_root / sid) for i in range(meta["outputs"])]
    group = GroupModule(parts, counts)
    tensors = tuple(load_npy(path) for path in inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ep = torch.export.export(group, tensors)
            if level == "core":
                ep = ep.run_decompositions()
        except Exception as e:  # noqa: BLE001
            return [f"{name}: exporting the group failed: {type(e).__name__}: {str(e)[:300]}"]
    torch.export.save(ep, folder / "model.pt2")
    bundle, build = folder / "bundle", folder / "bundle" / "build"
    steps = [[thunderc, str(folder / "model.pt2"), "-o", str(bundle), "--name", name],
             ["cmake", "-S", str(bundle), "-B", str(build), "-DTHUNDERC_BUNDLE_CPU_DISPATCH=OFF",
              *build_flags.OUTPUT_TEST_CPU],
             ["cmake", "--build", str(build), "-j", str(jobs)]]
    for step in steps:
        r = subprocess.run(step, capture_output=True, text=True)
        if r.returncode:
            return [f"{name}: {' '.join(step[:2])} ... exited {r.returncode}:\n"
                    f"{(r.stdout + r.stderr)[-3000:]}"]
    outputs = [folder / "out" / f"output_{i}.npy" for i in range(len(expected))]
    outputs[0].parent.mkdir(exist_ok=True)
    seed = ["--seed", str(BUNDLE_SEED)] if random else []
    r = subprocess.run([str(build / f"{name}_run"), "--inputs", *map(str, inputs),
                        "--outputs", *map(str, outputs), *seed], capture_output=True, text=True)
    if r.returncode:
        return [f"{name}: the runner exited {r.returncode}: {r.stderr[-2000:]}"]
    if random:
        reference = [folder / "interpret" / f"output_{i}.npy" for i in range(len(expected))]
        reference[0].parent.mkdir(exist_ok=True)
        r = subprocess.run([thunderc, str(folder / "model.pt2"), "--interpret", *seed,
                            "--inputs", ",".join(map(str, inputs)),
                            "--outputs", ",".join(map(str, reference))],
                           capture_output=True, text=True)
        if r.returncode:
            return [f"{name}: the interpreter exited {r.returncode}: {r.stderr[-2000:]}"]
    failures = []
    for at, (path, (sid, i, sample)) in enumerate(zip(outputs, expected)):
        if random:
            ok, err, how = compare(load_npy(path), load_npy(reference[at]), None)
            if not ok:
                failures.append(f"{sid} output {i} ({name}): max |bundle - interpreter| = "
                                f"{err:.3g} ({how}, seed {BUNDLE_SEED})")
            continue
        ref = sample / "expected_fp64" / f"output_{i}.npy"
        ok, err, how = compare(load_npy(path), load_npy(sample / "expected" / f"output_{i}.npy"),
                               load_npy(ref) if ref.exists() else None)
        if not ok:
            failures.append(f"{sid} output {i} ({name}): max |bundle - eager| = {err:.3g} ({how})")
    return failures


# Ops whose result is uninitialized memory: any content is right, so there is nothing to compare.
UNINITIALIZED = {"empty", "empty_like", "new_empty", "new_empty_strided", "empty_strided",
                 "empty_permuted"}


def opinfo_program(info, limit=MAX_SAMPLES):
    """(module, tensors, number of samples) of one OpInfo: its first `limit` samples that
    torch.export can export, in one program (one export per OpInfo keeps the test fast)."""
    for dtype in (torch.float32, torch.int64, torch.bool):  # integer/bool-only ops too
        samples = samples_of(info, dtype, limit=limit)
        if samples:
            break
    if not samples:
        return None
    modules = [m for m, _ in samples]
    return (GroupModule(modules, [len(t) for _, t in samples]),
            tuple(t for _, ts in samples for t in ts), len(samples))


def run_samples(out: Path, only, thunderc: str, jobs: int = 1, limit=MAX_SAMPLES):
    """Exports each OpInfo's samples as one program and checks both levels with the
    interpreter. Returns rows {"op", "samples", "export": why-not or None,
    "train"/"core": {"ok", "refused", "why"}}."""
    from concurrent.futures import ThreadPoolExecutor
    torch.set_num_threads(1)
    rows = []
    for info in _op_db():
        oid = opinfo_id(info)
        if only and oid not in only and info.name not in only:
            continue
        row = {"op": oid, "samples": 0}
        if info.name in UNINITIALIZED:
            row["export"] = "uninitialized memory: no value to compare"
            rows.append(row)
            continue
        try:
            program = opinfo_program(info, limit)
        except Exception as e:  # noqa: BLE001
            program, row["export"] = None, f"samples: {type(e).__name__}"
        if program is None:
            row.setdefault("export", "no float32, int64 or bool sample")
        else:
            module, tensors, row["samples"] = program
            row["export"] = export_program(module, tensors, out / oid, row["samples"])
            if row["export"] is not None and row["samples"] > 1:
                # One sample may be what torch.export refuses: then test the first alone.
                module, tensors, row["samples"] = opinfo_program(info, 1)
                row["export"] = export_program(module, tensors, out / oid, 1)
            if row["export"] is None:
                row["random"] = json.loads((out / oid / "program.json").read_text())["random"]
        rows.append(row)

    def check(row, level):
        folder = out / row["op"]
        r = subprocess.run([thunderc, str(folder / f"{level}.pt2"), "--emit=ir", "-O0", "-q"],
                           capture_output=True, text=True)
        refused = sorted(set(_ATEN_CALL_RE.findall(r.stdout)))
        if r.returncode:
            return {"ok": False, "refused": refused_ops(r.stderr), "why": r.stderr.strip()[-300:]}
        if refused:
            return {"ok": False, "refused": refused, "why": "not compiled: " + ", ".join(refused)}
        why = check_interpreter(thunderc, folder, level)
        return {"ok": why is None, "refused": [], "why": why}

    work = [(row, level) for row in rows if row["export"] is None for level in LEVELS]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for (row, level), result in zip(work, pool.map(lambda w: check(*w), work)):
            row[level] = result
    return rows


def summarize(rows) -> str:
    exported = [r for r in rows if r.get("export") is None]
    samples = sum(r["samples"] for r in exported)
    lines = [f"{len(rows)} OpInfos, {len(exported)} exported as programs of {samples} samples "
             f"({len(rows) - len(exported)} not testable: torch.export failed, complex I/O, no "
             "sample or uninitialized memory)"]
    for level in LEVELS:
        ok = sum(1 for r in exported if r[level]["ok"])
        ok_samples = sum(r["samples"] for r in exported if r[level]["ok"])
        counts = collections.Counter()
        wrong = []
        for r in exported:
            if r[level]["ok"]:
                continue
            if r[level]["refused"]:
                for op in r[level]["refused"]:
                    counts[op] += 1
            else:
                wrong.append(f"{r['op']}: {r[level]['why']}")
        lines.append(f"\n{level}: {ok}/{len(exported)} OpInfos pass "
                     f"({100.0 * ok / max(1, len(exported)):.1f}%; samples {ok_samples}/{samples}); "
                     f"{len(counts)} distinct refusals; {len(wrong)} run but differ or fail")
        lines += [f"  {n:4d}  {op}" for op, n in counts.most_common()]
        lines += [f"  WRONG {w}" for w in wrong]
    return "\n".join(lines)


def survey(out: Path, only, thunderc: str, jobs: int):
    rows = run_samples(out, only, thunderc, jobs)
    (out / "survey.json").write_text(json.dumps(rows, indent=1))
    print(summarize(rows))
    return rows


# Reasons for OpInfos that cannot be a test at all, by what their export says.
def _not_testable_reason(why: str) -> str:
    if why.startswith("complex"):
        return "complex " + why.split("complex ", 1)[1]
    if why.startswith("uninitialized"):
        return "its result is " + why
    if why.startswith("no float32"):
        return "no float32, int64 or bool sample on the CPU"
    return "torch.export cannot export the sample: " + why.removeprefix("export: ")


_RANDOM = ("bernoulli", "normal", "uniform", "cauchy", "exponential", "geometric", "log_normal",
           "multinomial", "rand", "randn", "randint", "dropout", "rrelu", "poisson")


def write_expected(rows, path: Path):
    """Writes tests/ops/opinfo_expected.py from survey rows (error texts without the survey
    folder's paths)."""
    not_testable, failures = {}, {}
    for r in rows:
        if r.get("export") is not None:
            not_testable[r["op"]] = _not_testable_reason(r["export"])
            continue
        whys = []
        for level in LEVELS:
            if r[level]["ok"]:
                continue
            if r[level]["refused"]:
                refused = [re.sub(r"^error: \S+\.pt2: ", "", why) for why in r[level]["refused"]]
                whys.append(f"{level}: not compiled yet: {', '.join(refused)}")
            else:
                whys.append(f"{level}: {r[level]['why']}")
        if whys:
            if any(word in r["op"] for word in _RANDOM):
                whys.insert(0, "random (thunderc draws its own numbers: no eager value to compare)")
            failures[r["op"]] = "; ".join(whys)
    lines = ['"""OpInfos of tests/ops/test_opinfo.py that are not a passing test yet, each with why.',
             "",
             "NOT_TESTABLE: no program to test (torch.export cannot export the sample, complex",
             "inputs or outputs, no float32 sample). EXPECTED_FAILURES: programs thunderc does not",
             "compile or run yet at one level or both. Both lists only shrink: an entry that passes",
             "fails the test until it is removed. Regenerate after a change with",
             "",
             "    python3 tests/ops/opinfo.py --survey --out /tmp/opinfo --write-expected",
             '"""',
             "",
             "NOT_TESTABLE = {"]
    lines += [f"    {op!r}: {why!r}," for op, why in sorted(not_testable.items())]
    lines += ["}", "", "EXPECTED_FAILURES = {"]
    lines += [f"    {op!r}: {why!r}," for op, why in sorted(failures.items())]
    lines += ["}", ""]
    path.write_text("\n".join(lines))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--survey", action="store_true")
    parser.add_argument("--only", default="")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--write-expected", action="store_true",
                        help="rewrite tests/ops/opinfo_expected.py from the survey")
    parser.add_argument("--from-json", type=Path,
                        help="with --write-expected: a survey.json instead of a new survey")
    parser.add_argument("--thunderc", default=os.environ.get("THUNDERC_BIN", str(REPO / "build/cli/thunderc")))
    opts = parser.parse_args(argv)
    opts.out.mkdir(parents=True, exist_ok=True)
    if opts.from_json:
        rows = json.loads(opts.from_json.read_text())
    elif opts.survey:
        rows = survey(opts.out, [s for s in opts.only.split(",") if s] or None, opts.thunderc,
                      opts.jobs)
    if opts.write_expected:
        write_expected(rows, REPO / "tests" / "ops" / "opinfo_expected.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
