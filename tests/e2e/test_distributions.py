"""The random distributions built on thunderc's uniform and normal draws (decompositions of
bernoulli, normal, multinomial, the in-place fills uniform_ / normal_ / exponential_ /
geometric_ / cauchy_ / log_normal_ / bernoulli_ of a tensor the program made, dropout, alpha
dropout and rrelu in training mode), at both IR levels, on 40,000 draws each: the interpreter's
values have the distribution's support and their mean, spread or quantiles lie within 5
standard errors of the distribution's (PyTorch's own numbers cannot be reproduced: its CPU
generator is mt19937, thunderc's Philox4x32-10). A CPU bundle draws the interpreter's numbers.
tests/ops/test_opinfo.py compares the same ops with eager's draws on OpInfo's small samples."""
import os

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import THUNDERC, build_bundle, compile_bundle, run

N = 40000
SEED = 99


class Distributions(torch.nn.Module):
    def forward(self, x):
        weights = torch.tensor([1.0, 2.0, 3.0, 4.0])
        eight = torch.arange(1.0, 9.0).expand(2000, 8)
        return (
            torch.empty(N).uniform_(2.0, 5.0),                   # 0
            torch.empty(N).normal_(1.0, 3.0),                    # 1
            torch.empty(N).exponential_(2.0),                    # 2
            torch.empty(N).geometric_(0.25),                     # 3
            torch.empty(N).cauchy_(1.0, 2.0),                    # 4
            torch.empty(N).log_normal_(0.0, 0.5),                # 5
            torch.empty(N).bernoulli_(0.3),                      # 6
            torch.bernoulli(torch.full((N,), 0.8)),              # 7
            torch.normal(x * 0 + 2.0, torch.full((N,), 0.5)),    # 8
            F.dropout(torch.ones(N), 0.25, training=True),       # 9
            torch.multinomial(weights, N, replacement=True),     # 10
            torch.multinomial(eight, 5),                         # 11
            F.rrelu(-x.abs() - 1, 0.1, 0.3, training=True),      # 12
            F.alpha_dropout(x, 0.2, training=True),              # 13
        )


NUM_OUTPUTS = 14


def _within(value, expected, standard_error, what):
    assert abs(value - expected) < 5 * standard_error, (
        f"{what}: {value:.5g}, expected {expected:.5g} +- 5 x {standard_error:.3g}")


def _moments(a, mean, sd, kurtosis, what):
    """Sample mean and standard deviation within 5 standard errors (the sd's from the
    distribution's kurtosis)."""
    a = a.astype(np.float64)
    _within(a.mean(), mean, sd / np.sqrt(a.size), what + " mean")
    _within(a.std(), sd, sd * np.sqrt((kurtosis - 1) / (4 * a.size)), what + " sd")


def _check(out, x):
    uniform, normal, exponential, geometric, cauchy, lognormal = out[:6]
    assert uniform.min() >= 2 and uniform.max() < 5
    _moments(uniform, 3.5, 3 / np.sqrt(12), 1.8, "uniform_(2, 5)")
    _moments(normal, 1.0, 3.0, 3.0, "normal_(1, 3)")
    assert exponential.min() >= 0
    _moments(exponential, 0.5, 0.5, 9.0, "exponential_(2)")
    assert geometric.min() >= 1 and np.all(geometric == np.round(geometric))
    _moments(geometric, 4.0, np.sqrt(12.0), 9.1, "geometric_(0.25)")
    # Cauchy has no moments: its quartiles are median -+ sigma.
    inside = np.mean((cauchy > -1.0) & (cauchy < 3.0))
    _within(inside, 0.5, 0.5 / np.sqrt(N), "cauchy_(1, 2) within its quartiles")
    _moments(np.log(lognormal), 0.0, 0.5, 3.0, "log of log_normal_(0, 0.5)")
    for i, p in ((6, 0.3), (7, 0.8)):
        assert set(np.unique(out[i]).tolist()) <= {0.0, 1.0}, f"output {i}"
        _within(out[i].mean(), p, np.sqrt(p * (1 - p) / N), f"bernoulli({p})")
    _moments(out[8], 2.0, 0.5, 3.0, "normal(2, 0.5)")
    dropped = out[9] == 0
    assert np.all(out[9][~dropped] == np.float32(1 / 0.75)), "dropout keeps x / (1 - p)"
    _within(dropped.mean(), 0.25, np.sqrt(0.25 * 0.75 / N), "dropout(0.25) dropped fraction")
    counts = np.bincount(out[10], minlength=4)
    assert counts.size == 4 and out[10].min() >= 0
    for k, p in enumerate((0.1, 0.2, 0.3, 0.4)):
        _within(counts[k] / N, p, np.sqrt(p * (1 - p) / N), f"multinomial category {k}")
    picks = out[11]
    assert picks.shape == (2000, 5) and picks.min() >= 0 and picks.max() < 8
    assert all(len(set(row)) == 5 for row in picks.tolist()), "without replacement"
    first = np.bincount(picks[:, 0], minlength=8) / 2000
    for k in range(8):
        p = (k + 1) / 36
        _within(first[k], p, np.sqrt(p * (1 - p) / 2000), f"first pick of category {k}")
    slopes = out[12] / (-np.abs(x) - 1)
    assert slopes.min() >= 0.1 - 1e-6 and slopes.max() <= 0.3 + 1e-6
    _moments(slopes, 0.2, 0.2 / np.sqrt(12), 1.8, "rrelu slopes U(0.1, 0.3)")
    # alpha dropout keeps a standard normal input's mean 0 and variance 1.
    _moments(out[13], 0.0, 1.0, 4.0, "alpha_dropout(x, 0.2)")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("distributions")
    x = torch.randn(N, generator=torch.Generator().manual_seed(0))
    np.save(folder / "x.npy", x.numpy())
    program = torch.export.export(Distributions(), (x,))
    torch.export.save(program, str(folder / "train.pt2"))
    torch.export.save(program.run_decompositions(), str(folder / "core.pt2"))
    return folder, x.numpy()


def _outputs(folder, stem):
    return [str(folder / f"{stem}_{i}.npy") for i in range(NUM_OUTPUTS)]


def _interpret(folder, level, stem):
    outputs = _outputs(folder, stem)
    run([THUNDERC, str(folder / f"{level}.pt2"), "--interpret", "--inputs",
         str(folder / "x.npy"), "--outputs", ",".join(outputs), "--seed", str(SEED)])
    return [np.load(p) for p in outputs]


@pytest.mark.parametrize("level", ["train", "core"])
def test_interpreter_draws_the_distributions(level, exported):
    folder, x = exported
    _check(_interpret(folder, level, f"interp_{level}"), x)


def test_cpu_bundle_draws_the_interpreters_numbers(exported):
    folder, x = exported
    bundle = folder / "bundle"
    compile_bundle(folder / "train.pt2", bundle, "dists")
    runner = os.path.join(build_bundle(bundle, []), "dists_run")
    outputs = _outputs(folder, "bundle")
    run([runner, "--inputs", str(folder / "x.npy"), "--outputs", *outputs, "--seed", str(SEED)])
    ours = [np.load(p) for p in outputs]
    reference = _interpret(folder, "train", "reference")
    for i, (a, e) in enumerate(zip(ours, reference)):
        assert a.dtype == e.dtype and a.shape == e.shape, f"output {i}"
        # The interpreter computes the transforms in double, the bundle in float.
        np.testing.assert_allclose(a, e, rtol=2e-6, atol=1e-6, err_msg=f"output {i}")
    _check(ours, x)
