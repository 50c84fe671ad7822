"""Reference intermediates of an exported program, for a bundle runner's --bisect.

Usage:
    python3 tools/dump_intermediates.py MODEL.pt2 --out DIR --inputs A.npy [B.npy ...]
    python3 tools/dump_intermediates.py MODEL.pt2 --out DIR --golden GOLDEN_DIR
    <name>_run --bisect DIR

Runs the program's graph (torch.export.load(MODEL).graph_module, the graph thunderc compiled)
node by node with torch.fx.Interpreter under torch.no_grad, and writes:

    DIR/inputs/input_<i>.npy        the user inputs, in graph input order (as for --golden)
    DIR/expected/output_<i>.npy     the program's user outputs (so DIR also serves --golden)
    DIR/values/<node>.npy           every tensor an FX node of the graph produced, under the
                                    node's name: the name thunderc gives the value it computes
                                    for that node (multi-output nodes: their getitem nodes)
    DIR/values_fp64/<node>.npy      the same from a float64 run (floating parameters, buffers
                                    and inputs converted to float64): the fp64 referee of the
                                    golden policy; absent when the graph does not run in float64
                                    (a node that fixes its dtype and meets a float64 operand)
    DIR/values.txt                  one line per value: name, op, dtype, shape, source line

The runner compares each value its run writes to memory with DIR/values/<name>.npy by the
golden policy (tests/golden/tolerances.py) and names the first that differs, with the node's op
and Python source line. Values thunderc keeps inside a fused kernel, or computes as a view of
another value, are not written and so not compared; values thunderc introduces itself have no
reference. .npy conventions are models/export_zoo.py's: bfloat16 as '<u2' bit patterns.

Only a .pt2 archive: a TorchScript input's graph is not an FX graph.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

import numpy as np
import torch
import torch.fx
from torch.export.graph_signature import InputKind


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    tensor = tensor.detach().cpu().contiguous()
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view("<u2")
    if tensor.is_complex() or tensor.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        raise TypeError(f"dtype {tensor.dtype}")
    return tensor.numpy()


def from_numpy(array: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
    if dtype == torch.bfloat16:
        return torch.from_numpy(np.ascontiguousarray(array).view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(array)).to(dtype)


def source_line(node: torch.fx.Node) -> str:
    """The innermost frame of the node's stack trace outside torch itself (the model's own
    line), as "file:line: code": the frame thunderc's importer reports for the node."""
    lines = (node.meta.get("stack_trace") or "").splitlines()
    best = ""
    for i, line in enumerate(lines):
        line = line.strip()
        if not line.startswith('File "'):
            continue
        file = line[len('File "'):line.index('"', len('File "'))]
        if "/torch/" in file or file.startswith("torch/"):
            continue
        number = line.split(", line ")[1].split(",")[0] if ", line " in line else "?"
        code = lines[i + 1].strip() if i + 1 < len(lines) else ""
        best = f"{file}:{number}: {code}"
    return best


class Recorder(torch.fx.Interpreter):
    """Runs the graph and keeps every node's tensor result."""

    def __init__(self, module: torch.fx.GraphModule):
        super().__init__(module)
        self.values: dict[str, torch.Tensor] = {}
        self.nodes: dict[str, torch.fx.Node] = {}

    def run_node(self, node: torch.fx.Node):
        result = super().run_node(node)
        if node.op == "call_function" and isinstance(result, torch.Tensor):
            self.values[node.name] = result.detach().clone()
            self.nodes[node.name] = node
        return result


def graph_arguments(ep, user_inputs: list, fp64: bool) -> list:
    """The graph module's placeholders in order: parameters, buffers, constants and inputs."""
    state = ep.state_dict
    args = []
    users = iter(user_inputs)
    for spec in ep.graph_signature.input_specs:
        if spec.kind == InputKind.USER_INPUT:
            value = next(users) if isinstance(spec.arg, torch.export.graph_signature.TensorArgument) \
                else getattr(spec.arg, "value", None)
        elif spec.kind == InputKind.PARAMETER:
            value = state[spec.target]
        elif spec.kind == InputKind.BUFFER:
            value = state[spec.target] if spec.target in state else ep.constants[spec.target]
        elif spec.kind in (InputKind.CONSTANT_TENSOR, InputKind.CUSTOM_OBJ):
            value = ep.constants[spec.target]
        else:
            raise SystemExit(f"dump_intermediates: input {spec.arg.name}: kind {spec.kind} is "
                             "not supported")
        if isinstance(value, torch.Tensor):
            value = value.detach().clone()  # mutated buffers must not change the program
            if fp64 and value.is_floating_point():
                value = value.double()
        args.append(value)
    return args


def user_input_dtypes(ep) -> list[torch.dtype]:
    placeholders = {node.name: node for node in ep.graph.nodes if node.op == "placeholder"}
    dtypes = []
    for spec in ep.graph_signature.input_specs:
        if spec.kind == InputKind.USER_INPUT and isinstance(
                spec.arg, torch.export.graph_signature.TensorArgument):
            dtypes.append(placeholders[spec.arg.name].meta["val"].dtype)
    return dtypes


def run(ep, inputs: list, fp64: bool) -> tuple[Recorder, list]:
    recorder = Recorder(ep.graph_module)
    with torch.no_grad():
        outputs = recorder.run(*graph_arguments(ep, inputs, fp64))
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    # The graph returns the mutated buffers first, then the user outputs.
    specs = ep.graph_signature.output_specs
    user = [out for out, spec in zip(outputs, specs)
            if spec.kind == torch.export.graph_signature.OutputKind.USER_OUTPUT]
    return recorder, user


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="a .pt2 archive written by torch.export.save")
    parser.add_argument("--out", required=True, help="the folder to write (replaced)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--inputs", nargs="+", help="one .npy per user input, in graph order")
    source.add_argument("--golden", help="a folder with inputs/input_<i>.npy")
    args = parser.parse_args(argv)

    ep = torch.export.load(args.model)
    dtypes = user_input_dtypes(ep)
    paths = args.inputs or [os.path.join(args.golden, "inputs", f"input_{i}.npy")
                            for i in range(len(dtypes))]
    if len(paths) != len(dtypes):
        print(f"dump_intermediates: the program has {len(dtypes)} tensor input(s), got "
              f"{len(paths)} file(s)", file=sys.stderr)
        return 2
    inputs = [from_numpy(np.load(path), dtype) for path, dtype in zip(paths, dtypes)]

    recorder, outputs = run(ep, inputs, fp64=False)
    try:
        recorder64, _ = run(ep, inputs, fp64=True)
    except Exception as error:  # a graph that fixes dtypes: no referee
        print(f"dump_intermediates: no fp64 referee ({type(error).__name__}: "
              f"{str(error).splitlines()[0] if str(error) else ''})", file=sys.stderr)
        recorder64 = None

    out = os.path.abspath(args.out)
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".dump_intermediates.", dir=parent)
    try:
        for sub in ("inputs", "expected", "values", "values_fp64"):
            os.makedirs(os.path.join(staging, sub))
        for i, tensor in enumerate(inputs):
            np.save(os.path.join(staging, "inputs", f"input_{i}.npy"), to_numpy(tensor))
        for i, tensor in enumerate(outputs):
            if isinstance(tensor, torch.Tensor):
                np.save(os.path.join(staging, "expected", f"output_{i}.npy"), to_numpy(tensor))
        lines = []
        for name, tensor in recorder.values.items():
            try:
                np.save(os.path.join(staging, "values", f"{name}.npy"), to_numpy(tensor))
            except TypeError:
                continue  # complex or fp8 values: the runner's .npy reader has no such dtype
            node = recorder.nodes[name]
            reference = recorder64.values.get(name) if recorder64 else None
            if reference is not None and reference.shape == tensor.shape:
                np.save(os.path.join(staging, "values_fp64", f"{name}.npy"), to_numpy(reference))
            lines.append(f"{name}\t{node.target}\t{str(tensor.dtype).removeprefix('torch.')}\t"
                         f"{list(tensor.shape)}\t{source_line(node)}")
        with open(os.path.join(staging, "values.txt"), "w") as index:
            index.write("# name\top\tdtype\tshape\tsource\n" + "\n".join(lines) + "\n")
        if os.path.isdir(out):
            shutil.rmtree(out)
        os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    print(f"dump_intermediates: {len(lines)} values of {args.model} in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
