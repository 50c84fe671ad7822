"""Export the thunderc model zoo (models/zoo.py) to .pt2 files, .npy test vectors and manifest.json.

Usage:
    python3 models/export_zoo.py --out build/models [--only mlp,gpt] [--no-check]
    python3 models/export_zoo.py --gallery --out build/gallery [--only hf_bert,...] [--keep-going]
    python3 models/export_zoo.py --gallery --size real --batch 8 --out build/gallery_real/batch8

For every zoo entry this writes `<out>/<name>/`:

    train.pt2                      torch.export.export(model.eval(), args, dynamic_shapes=...) (training IR)
    core.pt2                       the same program after ep.run_decompositions() (core ATen IR)
    trace.pt                       torch.jit.trace(model, args) saved by torch.jit.save (TorchScript; it
                                   keeps the example inputs' shapes); not for --size real
    script.pt                      torch.jit.script(model), where the model can be scripted
    inputs/input_<i>.npy           user inputs of the default case, in graph input order
    expected/output_<i>.npy        eager outputs of the model (at its own dtype) under torch.no_grad
    expected_fp64/output_<i>.npy   outputs of a deep copy of the model converted with .double(), run on
                                   the float inputs converted to float64 (integer/bool inputs unchanged):
                                   the "fp64 referee"
    cases/<case>/{inputs,expected,expected_fp64}/...   extra cases (dynamic models: min/mid/max batch)
    manifest.json                  see models/README.md

.npy conventions: written with numpy.save as C-contiguous arrays. bfloat16 tensors (numpy has no
bfloat16) are stored as their raw bit patterns with dtype '<u2' (uint16 little endian); the manifest
records the real dtype ("bfloat16"), so a reader must reinterpret the bits. bool is '|b1'.

Each model folder is built in a temporary sibling folder and then swapped in, so re-running the
script is idempotent and an interrupted run never leaves a half-written model folder behind.
"""

from __future__ import annotations

import argparse
import copy
import json
import operator
import os
import shutil
import sys
import time
import warnings
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.utils._pytree as pytree
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, OutputKind

sys.path.insert(0, str(Path(__file__).resolve().parent))
import zoo  # noqa: E402  (models/zoo.py, imported from this file's folder)

# --------------------------------------------------------------------------------------------
# Tensor <-> npy / manifest helpers
# --------------------------------------------------------------------------------------------


def dtype_name(dtype: torch.dtype) -> str:
    """numpy-ish dtype string: torch.float32 -> "float32", torch.bfloat16 -> "bfloat16", torch.bool -> "bool"."""
    return str(dtype).removeprefix("torch.")


def to_numpy(t: torch.Tensor) -> np.ndarray:
    """C-contiguous numpy copy of `t`; bfloat16 becomes its '<u2' bit pattern."""
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        return np.require(t.view(torch.int16).numpy().view("<u2"), requirements="C")
    return np.require(t.numpy(), requirements="C")


def tensor_crc32(t: torch.Tensor) -> int:
    """zlib.crc32 of the contiguous row-major bytes of `t` (bf16 as raw bits)."""
    raw = t.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
    return zlib.crc32(raw) & 0xFFFFFFFF


def save_tensors(folder: Path, prefix: str, tensors: list[torch.Tensor], rel_to: Path) -> list[str]:
    """Save tensors as <folder>/<prefix>_<i>.npy; return the paths relative to `rel_to`."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, t in enumerate(tensors):
        p = folder / f"{prefix}_{i}.npy"
        np.save(p, to_numpy(t), allow_pickle=False)
        paths.append(p.relative_to(rel_to).as_posix())
    return paths


def sym_shape(val: Any) -> list[Any]:
    """Shape of a FakeTensor from node.meta['val']: ints for static dims, the symbol name (e.g. "s77") otherwise."""
    return [str(d) if isinstance(d, torch.SymInt) else int(d) for d in val.shape]


# --------------------------------------------------------------------------------------------
# Running the model
# --------------------------------------------------------------------------------------------


def flat_outputs(out: Any) -> list[torch.Tensor]:
    leaves, _ = pytree.tree_flatten(out)
    return leaves


def run_eager(model: torch.nn.Module, args: tuple) -> list[torch.Tensor]:
    with torch.no_grad():
        return [o.detach().clone() for o in flat_outputs(model(*args))]


def to_fp64(args: tuple) -> tuple:
    """Float tensors -> float64; integer / bool tensors unchanged."""
    return tuple(a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args)


def max_abs_diff(a: list[torch.Tensor], b: list[torch.Tensor]) -> float:
    """Largest |a-b| over all floating-point outputs (integer outputs must match exactly, else inf)."""
    worst = 0.0
    for x, y in zip(a, b):
        if x.is_floating_point():
            worst = max(worst, (x.double() - y.double()).abs().max().item() if x.numel() else 0.0)
        elif not torch.equal(x, y.to(x.dtype)):
            worst = float("inf")
    return worst


# --------------------------------------------------------------------------------------------
# Describing an ExportedProgram
# --------------------------------------------------------------------------------------------


def target_name(target: Any) -> str:
    """Stable name of a call_function target: "aten.add.Tensor", "_operator.mul", "torch.sym_max", ..."""
    if isinstance(target, torch._ops.OpOverload):
        return str(target)  # e.g. aten.linear.default
    module = getattr(target, "__module__", None) or type(target).__module__
    name = getattr(target, "__qualname__", None) or getattr(target, "__name__", None) or repr(target)
    return f"{module}.{name}"


def describe_level(ep: ExportedProgram, file_name: str) -> dict[str, Any]:
    """Manifest entry for one IR level: verifier dialect, node counts, op histogram, mutations."""
    counts: dict[str, int] = {}
    num_getitem = 0
    for node in ep.graph.nodes:
        if node.op != "call_function":
            continue
        if node.target is operator.getitem:
            num_getitem += 1
            continue
        name = target_name(node.target)
        counts[name] = counts.get(name, 0) + 1
    sig = ep.graph_signature
    return {
        "file": file_name,
        "verifier": ep.verifiers[0].dialect,
        "num_nodes": sum(counts.values()),
        "num_getitem": num_getitem,
        "op_counts": dict(sorted(counts.items())),
        "buffer_mutations": sorted(s.target for s in sig.output_specs if s.kind == OutputKind.BUFFER_MUTATION),
        "user_input_mutations": sorted(
            s.target for s in sig.output_specs if s.kind == OutputKind.USER_INPUT_MUTATION
        ),
    }


_KIND_NAMES = {
    InputKind.PARAMETER: "parameter",
    InputKind.BUFFER: "buffer",
    InputKind.CONSTANT_TENSOR: "constant",
}


def describe_params(ep: ExportedProgram) -> list[dict[str, Any]]:
    """Parameters, buffers and lifted tensor constants, in graph input order, keyed by their pt2 FQN."""
    params = []
    for spec in ep.graph_signature.input_specs:
        if spec.kind not in _KIND_NAMES:
            continue
        fqn = spec.target
        # persistent buffers and parameters live in state_dict (weights config);
        # non-persistent buffers and lifted constants in ep.constants (constants config).
        t = ep.state_dict[fqn] if fqn in ep.state_dict else ep.constants[fqn]
        entry = {
            "name": fqn,
            "kind": _KIND_NAMES[spec.kind],
            "dtype": dtype_name(t.dtype),
            "shape": list(t.shape),
            "crc32": tensor_crc32(t),
        }
        if spec.kind == InputKind.BUFFER and spec.persistent is False:
            entry["persistent"] = False
        params.append(entry)
    return params


def placeholder_vals(ep: ExportedProgram) -> dict[str, Any]:
    return {n.name: n.meta.get("val") for n in ep.graph.nodes if n.op == "placeholder"}


def describe_dynamic_dims(entry: zoo.ZooEntry, ep: ExportedProgram, input_names: list[str]) -> dict[str, Any]:
    """{dim_name: {"min", "max", "symbol", "range", "uses": [{"input", "dim"}]}} for each torch.export.Dim."""
    if entry.dynamic_shapes is None:
        return {}
    spec = entry.dynamic_shapes()
    vals = placeholder_vals(ep)
    dims: dict[str, Any] = {}
    for input_name, arg_spec in zip(input_names, spec):
        if not arg_spec:
            continue
        items = arg_spec.items() if isinstance(arg_spec, dict) else enumerate(arg_spec)
        for axis, dim in items:
            if dim is None:
                continue
            info = dims.get(dim.__name__)
            if info is None:
                # min/max as declared by the Dim; symbol/range as torch.export recorded them
                # (the symbol name, e.g. "s77", is what appears in sym_shape).
                info = dims[dim.__name__] = {"min": dim.min, "max": dim.max, "symbol": None, "range": None, "uses": []}
                size = vals[input_name].shape[axis]
                if isinstance(size, torch.SymInt):
                    info["symbol"] = str(size)
                    vr = ep.range_constraints.get(size.node.expr)
                    if vr is not None:
                        info["range"] = [int(vr.lower), int(vr.upper)]
            info["uses"].append({"input": input_name, "dim": axis})
    return dims


# --------------------------------------------------------------------------------------------
# One model
# --------------------------------------------------------------------------------------------


def check_program(ep: ExportedProgram, args: tuple, expected: list[torch.Tensor], what: str) -> None:
    """Run the exported program and compare with eager (guards against silently wrong exports)."""
    with torch.no_grad():
        got = flat_outputs(ep.module()(*args))
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        if g.shape != e.shape or g.dtype != e.dtype:
            raise RuntimeError(f"{what}: output {i} of the exported program has the wrong shape/dtype")
        if e.is_floating_point():
            # decomposed programs (core) may round differently than fused eager kernels: allow a few ulps
            tol = 1e-5 if e.dtype in (torch.float32, torch.float64) else 8 * torch.finfo(e.dtype).eps
            scale = max(1.0, e.abs().max().item()) if e.numel() else 1.0
            ok = torch.allclose(g, e, rtol=tol, atol=tol * scale)
        else:
            ok = torch.equal(g, e)
        if not ok:
            raise RuntimeError(f"{what}: output {i} of the exported program differs from eager")


def save_torchscript(model: torch.nn.Module, args: tuple, folder: Path) -> dict[str, str]:
    """trace.pt and, where torch.jit.script accepts the model, script.pt (docs/TORCHSCRIPT.md);
    the manifest's "torchscript" entry: the files written and why one could not be."""
    info: dict[str, str] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            # Traced with autograd on, like most deployed TorchScript: under no_grad,
            # nn.TransformerEncoderLayer records its fused inference kernel instead of its ops.
            torch.jit.trace(model, args, strict=False, check_trace=False).save(str(folder / "trace.pt"))
            info["trace"] = "trace.pt"
        except Exception as error:  # noqa: BLE001 -- recorded: not every model traces
            info["trace_error"] = f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
        try:
            torch.jit.script(model).save(str(folder / "script.pt"))
            info["script"] = "script.pt"
        except Exception as error:  # noqa: BLE001 -- recorded: most models do not script
            info["script_error"] = f"{type(error).__name__}: {(str(error).splitlines() or [''])[0][:200]}"
    return info


def fp64_referee_model(model: torch.nn.Module) -> torch.nn.Module:
    """A float64 copy of the model. Mixture-of-Experts layers of transformers switch to their
    "eager" experts (a loop over experts): torch's grouped_mm, their default, has no float64
    kernel; both compute the same function."""
    model_fp64 = copy.deepcopy(model).double()
    if any(hasattr(module, "num_experts") for module in model_fp64.modules()):
        for module in model_fp64.modules():
            if hasattr(module, "set_experts_implementation"):
                module.set_experts_implementation("eager")
    return model_fp64


def export_one(entry: zoo.ZooEntry, out_root: Path, check: bool, torchscript: bool = True) -> str:
    t0 = time.time()
    model = entry.make_model()
    model_fp64 = fp64_referee_model(model)
    args = entry.make_inputs()
    dynamic_shapes = entry.dynamic_shapes() if entry.dynamic_shapes else None

    ep_train = torch.export.export(model, args, dynamic_shapes=dynamic_shapes)
    ep_core = ep_train.run_decompositions()

    tmp = out_root / f".{entry.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    torch.export.save(ep_train, tmp / "train.pt2")
    torch.export.save(ep_core, tmp / "core.pt2")
    scripted = save_torchscript(model, args, tmp) if torchscript else {}

    user_inputs = [s.arg.name for s in ep_train.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    if len(user_inputs) != len(args):
        raise RuntimeError(f"{entry.name}: {len(user_inputs)} graph user inputs but {len(args)} args")

    # Cases: "default" (the export example) + the entry's extra cases (e.g. dynamic batch sizes).
    case_args = [("default", args)] + [(name, entry.make_inputs(**kw)) for name, kw in entry.cases.items()]
    cases = []
    worst_fp64 = 0.0
    default_outputs: list[torch.Tensor] = []
    for case_name, cargs in case_args:
        base = tmp if case_name == "default" else tmp / "cases" / case_name
        outs = run_eager(model, cargs)
        outs64 = run_eager(model_fp64, to_fp64(cargs))
        worst_fp64 = max(worst_fp64, max_abs_diff(outs, outs64))
        if check:
            check_program(ep_train, cargs, outs, f"{entry.name}/{case_name}/train")
            check_program(ep_core, cargs, outs, f"{entry.name}/{case_name}/core")
        cases.append(
            {
                "name": case_name,
                "inputs": save_tensors(base / "inputs", "input", list(cargs), tmp),
                "expected": save_tensors(base / "expected", "output", outs, tmp),
                "expected_fp64": save_tensors(base / "expected_fp64", "output", outs64, tmp),
            }
        )
        if case_name == "default":
            default_outputs = outs

    vals = placeholder_vals(ep_train)
    out_node = next(n for n in ep_train.graph.nodes if n.op == "output")
    user_out_nodes = [
        a for a, s in zip(out_node.args[0], ep_train.graph_signature.output_specs) if s.kind == OutputKind.USER_OUTPUT
    ]
    manifest = {
        "name": entry.name,
        "dtype": dtype_name(entry.dtype),
        "torch_version": torch.__version__,
        "inputs": [
            {"name": n, "dtype": dtype_name(a.dtype), "shape": list(a.shape), "sym_shape": sym_shape(vals[n])}
            for n, a in zip(user_inputs, args)
        ],
        "outputs": [
            {"dtype": dtype_name(o.dtype), "shape": list(o.shape), "sym_shape": sym_shape(n.meta["val"])}
            for o, n in zip(default_outputs, user_out_nodes, strict=True)
        ],
        "params": describe_params(ep_train),
        "levels": {
            "train": describe_level(ep_train, "train.pt2"),
            "core": describe_level(ep_core, "core.pt2"),
        },
        "cases": cases,
        "torchscript": scripted,
        "dynamic_dims": describe_dynamic_dims(entry, ep_train, user_inputs),
    }
    core_params = describe_params(ep_core)
    if core_params != manifest["params"]:  # not expected for the current zoo; record it if it happens
        manifest["levels"]["core"]["params"] = core_params
    (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")

    # Swap the finished folder in.
    final = out_root / entry.name
    old = out_root / f".{entry.name}.old-{os.getpid()}"
    if final.exists():
        final.rename(old)
    tmp.rename(final)
    shutil.rmtree(old, ignore_errors=True)

    lv = manifest["levels"]
    return (
        f"{entry.name:16s} train {lv['train']['num_nodes']:3d} nodes, core {lv['core']['num_nodes']:3d} nodes, "
        f"{len(manifest['params']):2d} params, {len(cases)} case(s), "
        f"max|out-out_fp64| {worst_fp64:.2e}, {time.time() - t0:.1f}s"
    )


# --------------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="output root, e.g. build/models")
    parser.add_argument("--only", default="", help="comma-separated zoo names (default: all)")
    parser.add_argument(
        "--no-check", dest="check", action="store_false", help="skip re-running the exported programs against eager"
    )
    parser.add_argument("--gallery", action="store_true",
                        help="export the gallery of real architectures (models/gallery.py) instead of the zoo")
    parser.add_argument("--size", choices=["small", "real"], default="small",
                        help="with --gallery: the CI sizes, or the models of gallery.REAL at their "
                             "real sizes (BERT-base, GPT-2 small, ...)")
    parser.add_argument("--batch", type=int, default=1,
                        help="with --size real: the batch size of the (static) inputs")
    parser.add_argument("--keep-going", action="store_true",
                        help="report a model that torch.export cannot export and go on with the others")
    opts = parser.parse_args(argv)

    # torch.export / pytree emit FutureWarnings and UserWarnings that are noise here.
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    torch.set_num_threads(1)  # bit-reproducible expected outputs regardless of the machine's core count

    if opts.size == "real" and not opts.gallery:
        parser.error("--size real needs --gallery")
    if opts.batch < 1:
        parser.error(f"--batch must be at least 1, got {opts.batch}")
    if opts.gallery and opts.size == "real":
        import gallery  # models/gallery.py; needs transformers

        registry = [gallery.real(name, opts.batch) for name in gallery.REAL]
        get = lambda name: gallery.real(name, opts.batch)  # noqa: E731
    elif opts.gallery:
        import gallery  # models/gallery.py; needs transformers

        registry, get = gallery.GALLERY, gallery.get
    else:
        registry, get = zoo.ZOO, zoo.get
    entries = [get(n.strip()) for n in opts.only.split(",") if n.strip()] if opts.only else list(registry)
    opts.out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    failed = []
    for entry in entries:
        try:
            print(export_one(entry, opts.out, opts.check, torchscript=opts.size != "real"), flush=True)
        except Exception as error:  # noqa: BLE001 -- reported, and fatal unless --keep-going
            if not opts.keep_going:
                raise
            failed.append(entry.name)
            print(f"{entry.name}: NOT EXPORTED: {type(error).__name__}: {str(error).splitlines()[0][:200]}",
                  flush=True)
    print(f"exported {len(entries) - len(failed)} model(s) to {opts.out} in {time.time() - t0:.1f}s"
          + (f"; not exported: {', '.join(failed)}" if failed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
