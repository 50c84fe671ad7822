"""Control flow that the ops suites (tests/ops/suites.py: control_flow, autocast) cannot show with
their fixed inputs: one compiled bundle whose torch.cond predicate differs between two runs (both
branches taken, on both targets, and in the reference interpreter), a predicate over a symbolic
size, the generated code running only the taken branch, and while_loop's refusal."""
import os
import subprocess

import numpy as np
import pytest
import torch

from conftest import THUNDERC, build_bundle, compile_bundle
from tolerances import load_npy


class CondOnData(torch.nn.Module):
    """The predicate is a bool tensor computed by the graph."""

    def forward(self, x, w):
        return torch.cond(x.sum() > 0, lambda a, b: (a.sin() @ b).relu() + 1,
                          lambda a, b: a.cos().sum(1, keepdim=True) * b.sum(0), (x, w))


class CondOnSize(torch.nn.Module):
    """The predicate compares a symbolic size with a constant."""

    def forward(self, x):
        return torch.cond(x.shape[0] > 4, lambda a: a.sin() * 2, lambda a: a.cos() - 1, (x,))


class WhileLoop(torch.nn.Module):
    def forward(self, i, x):
        from torch._higher_order_ops.while_loop import while_loop
        return while_loop(lambda j, y: j < 5, lambda j, y: (j + 1, y * 2), (i, x))


def _save_inputs(tmp_path, tag, tensors):
    files = []
    for i, tensor in enumerate(tensors):
        files.append(str(tmp_path / f"{tag}_in{i}.npy"))
        np.save(files[-1], tensor.numpy())
    return files


def _run_bundle(build, name, files, output):
    result = subprocess.run([os.path.join(build, f"{name}_run"), "--inputs", *files,
                             "--outputs", str(output)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return load_npy(str(output))


def _interpret(pt2, files, output):
    result = subprocess.run([THUNDERC, str(pt2), "--interpret", "--inputs", ",".join(files),
                             "--outputs", str(output)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return load_npy(str(output))


def _check_both_ways(tmp_path, module, pt2, name, target, runs):
    """Compiles `pt2` once for `target` and runs the bundle (and the interpreter) on each input
    tuple of `runs`, comparing with eager."""
    out = tmp_path / f"bundle_{target}"
    compile_bundle(pt2, out, name,
                   extra=["--target", target, *(["--cuda-emulation"] * (target == "cuda"))])
    source = (out / f"{name}.{'cu' if target == 'cuda' else 'cpp'}").read_text()
    # Each branch's code sits behind the host predicate: only the taken one runs.
    assert "if (predicate0)" in source and "if (!predicate0)" in source
    build = build_bundle(out, ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"] if target == "cuda" else [])
    for tag, inputs in runs.items():
        files = _save_inputs(tmp_path, tag, inputs)
        expected = module(*inputs)
        actual = _run_bundle(build, name, files, tmp_path / f"{tag}_{target}.npy")
        torch.testing.assert_close(actual, expected, msg=lambda m: f"{tag} ({target}): {m}")
        interpreted = _interpret(pt2, files, tmp_path / f"{tag}_interpreted.npy")
        torch.testing.assert_close(interpreted, expected, msg=lambda m: f"{tag} (interpreter): {m}")


@pytest.mark.parametrize("level", ["train", "core"])
@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_cond_predicate_changes_between_runs(tmp_path, level, target):
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(4, 8, generator=generator)
    w = torch.randn(8, 3, generator=generator)
    program = torch.export.export(CondOnData(), (x, w))
    if level == "core":
        program = program.run_decompositions()
    torch.export.save(program, tmp_path / "m.pt2")
    positive, negative = x.abs() + 0.1, -x.abs() - 0.1
    _check_both_ways(tmp_path, CondOnData(), tmp_path / "m.pt2", "cond_data", target,
                     {"true": (positive, w), "false": (negative, w)})


@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_cond_on_a_symbolic_size(tmp_path, target):
    x = torch.randn(6, 3, generator=torch.Generator().manual_seed(1))
    program = torch.export.export(CondOnSize(), (x,),
                                  dynamic_shapes={"x": {0: torch.export.Dim("n", min=2, max=64)}})
    torch.export.save(program, tmp_path / "m.pt2")
    _check_both_ways(tmp_path, CondOnSize(), tmp_path / "m.pt2", "cond_size", target,
                     {"true": (x,), "false": (x[:3].clone(),)})


def test_while_loop_is_refused_naming_the_node(tmp_path):
    program = torch.export.export(WhileLoop(), (torch.tensor(0), torch.randn(4)))
    torch.export.save(program, tmp_path / "m.pt2")
    result = subprocess.run([THUNDERC, str(tmp_path / "m.pt2"), "-o", str(tmp_path / "out")],
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert "higher_order.while_loop (node 'while_loop'" in result.stderr, result.stderr
    assert "no loop construct" in result.stderr, result.stderr  # why, on the one line
