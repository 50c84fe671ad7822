"""Model state: a module whose buffers are updated in place (a counter and a cache written with
index_copy_) compiles at both IR levels -- training IR (in-place ops on buffers) and core ATen
(buffer_mutation outputs) -- into a bundle that keeps the buffers in its context between runs.
The runner's --warmup 2 --iters 1 runs the model three times in one context, so its outputs must
equal eager's third call. Programs that write into a user input or a parameter are refused with
the documented exit code and a message naming the node."""
import os
import re
import subprocess

import numpy as np
import pytest
import torch

from conftest import THUNDERC, build_bundle, compile_bundle, run

EXIT_UNSUPPORTED = 5


class Counter(torch.nn.Module):
    """y = cache.sum(1) + count, where each call adds one to count and writes x into the cache
    at position pos."""

    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(4))
        self.register_buffer("cache", torch.zeros(2, 8, 4), persistent=False)

    def forward(self, x, pos):
        self.count.add_(1.0)
        self.cache.index_copy_(1, pos, x)
        return self.cache.sum(1) * 2.0 + self.count


def inputs(call):
    g = torch.Generator().manual_seed(call)
    return torch.randn(2, 1, 4, generator=g), torch.tensor([call % 8])


def export(level, path):
    program = torch.export.export(Counter(), inputs(0))
    if level == "core":
        program = program.run_decompositions()
    torch.export.save(program, str(path))


@pytest.mark.parametrize("target", ["cpu", "cuda"])
@pytest.mark.parametrize("level", ["train", "core"])
def test_state_kept_between_runs(level, target, tmp_path):
    if target == "cuda" and level == "core":
        pytest.skip("one CUDA emulation build covers the CUDA state code (slow on two cores)")
    export(level, tmp_path / "counter.pt2")
    bundle = tmp_path / "bundle"
    extra = ["--target", "cuda", "--cuda-emulation"] if target == "cuda" else []
    compile_bundle(tmp_path / "counter.pt2", bundle, "counter", extra=extra)
    build = build_bundle(bundle, ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"] if target == "cuda" else [])
    x, pos = inputs(0)
    np.save(tmp_path / "x.npy", x.numpy())
    np.save(tmp_path / "pos.npy", pos.numpy())
    run([os.path.join(build, "counter_run"), "--inputs", str(tmp_path / "x.npy"),
         str(tmp_path / "pos.npy"), "--outputs", str(tmp_path / "y.npy"), "--warmup", "2",
         "--iters", "1"])
    eager = Counter()
    with torch.no_grad():
        for _ in range(3):
            expected = eager(x, pos)
    actual = torch.from_numpy(np.load(tmp_path / "y.npy"))
    torch.testing.assert_close(actual, expected, rtol=1.3e-6, atol=1e-5)
    report = run([THUNDERC, str(tmp_path / "counter.pt2"), "--emit", "report"]).stdout
    assert "state:  count: f32[4] (kept between runs)" in report
    assert "state:  cache: f32[2,8,4] (kept between runs)" in report


class WritesInput(torch.nn.Module):
    def forward(self, x):
        x.add_(1.0)
        return x * 2.0


class WritesParameter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(4), requires_grad=False)

    def forward(self, x):
        self.weight.mul_(2.0)
        return x * self.weight


@pytest.mark.parametrize("module,pattern", [
    (WritesInput, r"in-place update of the user input 'x'|writes into its user input"),
    (WritesParameter, r"in-place update of the parameter 'weight'|updates a parameter in place"),
])
@pytest.mark.parametrize("level", ["train", "core"])
def test_refused_mutations(module, pattern, level, tmp_path):
    program = torch.export.export(module(), (torch.randn(4),))
    if level == "core":
        program = program.run_decompositions()
    path = tmp_path / "m.pt2"
    torch.export.save(program, str(path))
    result = subprocess.run([THUNDERC, str(path), "-o", str(tmp_path / "out")],
                            capture_output=True, text=True)
    assert result.returncode == EXIT_UNSUPPORTED, result.stderr
    assert not (tmp_path / "out").exists()
    # The refusal names the node (training IR) or the output spec (core ATen); the report
    # says why.
    report = subprocess.run([THUNDERC, str(path), "--emit", "report"], capture_output=True,
                            text=True)
    assert re.search(pattern, result.stderr + report.stdout + report.stderr), \
        result.stderr + report.stdout + report.stderr


def test_cache_position_past_the_cache(tmp_path):
    """A position past the cache (pos 9 of an 8-slot cache) fails the run with the run-time
    exit code and a message naming the update, and writes nothing out of bounds."""
    export("train", tmp_path / "counter.pt2")
    bundle = tmp_path / "bundle"
    compile_bundle(tmp_path / "counter.pt2", bundle, "counter")
    build = build_bundle(bundle, [])
    x, _ = inputs(0)
    np.save(tmp_path / "x.npy", x.numpy())
    np.save(tmp_path / "pos.npy", np.array([9], dtype=np.int64))
    result = subprocess.run([os.path.join(build, "counter_run"), "--inputs",
                             str(tmp_path / "x.npy"), str(tmp_path / "pos.npy"), "--outputs",
                             str(tmp_path / "y.npy")], capture_output=True, text=True)
    assert result.returncode == 3, (result.returncode, result.stderr)
    assert re.search(r"index 9 .*(out of range|outside)|out of range.*9", result.stderr), \
        result.stderr
    assert not (tmp_path / "y.npy").exists()
