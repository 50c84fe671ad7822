"""The distribution comparison of random OpInfo outputs (random_compare.py) accepts draws of
eager's distribution and rejects the mistakes a random op's lowering can make, at the sizes of
the OpInfo programs (a few dozen elements, 8 seeds against eager's 256)."""
import numpy as np
import pytest
from random_compare import compare_draws

SHAPE = (5, 5)
OURS, EAGER = 8, 256


def draws(sample, count, seed):
    rng = np.random.default_rng(seed)
    return np.stack([sample(rng) for _ in range(count)])


def check(ours, eager):
    return compare_draws(draws(ours, OURS, 1), draws(eager, EAGER, 2))


X = np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32)


def uniform(rng):
    return rng.random(SHAPE, dtype=np.float32)


def normal(rng):
    return rng.standard_normal(SHAPE).astype(np.float32)


def dropout(scale, p=0.5):
    return lambda rng: (X * (rng.random(SHAPE) >= p) * np.float32(scale)).astype(np.float32)


def bernoulli(p):
    return lambda rng: (rng.random(SHAPE) < p).astype(np.float32)


def cauchy(rng):
    return np.tan(np.pi * (rng.random(SHAPE) - 0.5)).astype(np.float32)


@pytest.mark.parametrize("sample", [uniform, normal, dropout(2.0), bernoulli(0.3), cauchy,
                                    lambda rng: rng.integers(0, 10, SHAPE)],
                         ids=["uniform", "normal", "dropout", "bernoulli", "cauchy", "randint"])
def test_same_distribution_passes(sample):
    assert check(sample, sample) is None


@pytest.mark.parametrize("ours, eager, why", [
    (lambda rng: uniform(rng) * 1.25, uniform, "not distributed like"),     # wrong scale
    (lambda rng: normal(rng) + 0.5, normal, "mean rank"),                   # shifted
    (lambda rng: normal(rng) * 2.0, normal, "Kolmogorov-Smirnov"),          # wrong spread
    (lambda rng: uniform(rng) * 5 - 2.5, normal, "Kolmogorov-Smirnov"),     # wrong family
    (dropout(1.0), dropout(2.0), "none of eager's values"),                 # unscaled keep
    (bernoulli(0.7), bernoulli(0.3), "mean rank"),                          # 1 - p
    (lambda rng: rng.integers(1, 11, SHAPE), lambda rng: rng.integers(0, 10, SHAPE),
     "none of eager's values"),                                             # off by one
    (lambda rng: np.full(SHAPE, 0.5, np.float32), uniform, "Kolmogorov-Smirnov"),  # no draw
    (lambda rng: X + 1e-3, lambda rng: X, "eager always gives"),           # a constant
])
def test_wrong_distribution_fails(ours, eager, why):
    verdict = check(ours, eager)
    assert verdict is not None and why in verdict, verdict


def test_shape_and_dtype_must_match():
    assert "shape" in compare_draws(np.zeros((8, 3), np.float32), np.zeros((256, 4), np.float32))
    assert "dtype" in compare_draws(np.zeros((8, 3), np.float64), np.zeros((256, 3), np.float32))
