"""Comparing random outputs with eager's by distribution.

thunderc draws its own random numbers (Philox4x32-10, docs/DESIGN.md "Random numbers"), so a
random op's output cannot equal eager's. Instead, for every output element, thunderc's values
over several seeds must look like draws from the distribution of eager's values over many
seeds (eager_draws: [K, *shape]; ours: [R, *shape]):

- an element eager always gives the same value (dropout of a zero, rrelu of a positive, a
  probability of 0 or 1) must be that value (the golden tolerance of the dtype);
- an element eager gives few distinct values (at most 16: bernoulli, dropout's {0, x / (1 - p)},
  randint, multinomial's categories) must be one of them;
- every other element is placed among eager's draws of it (its mid-rank, the probability
  integral transform: uniform on [0, 1] when the distributions agree, with mean 1/2 even for
  discrete ones). Pooled over elements and seeds, the mean must be within 4.5 standard errors
  of 1/2 and, over the continuous elements, the Kolmogorov-Smirnov distance to the uniform
  within its 0.1 % critical value (1.95 / sqrt(n)), each plus the resolution 1/K of K draws.

The seeds are fixed on both sides, so the verdict is deterministic; a thunderc whose transform
is wrong (scale, shift, support, a missing draw) fails it at the sample sizes of the OpInfo
programs, which tests/ops/test_random_compare.py checks.
"""
import numpy as np

DISCRETE_VALUES = 16


def _close(a, b, dtype):
    if np.issubdtype(dtype, np.integer) or dtype == np.bool_:
        return a == b
    tol = 1e-5 if dtype == np.float32 else (1e-12 if dtype == np.float64 else 1e-2)
    return np.isclose(a, b, rtol=tol, atol=tol) | (np.isnan(a) & np.isnan(b))


def _numpy(x):
    if isinstance(x, np.ndarray):
        return x
    if x.dtype.is_floating_point and x.element_size() < 4:  # f16 / bf16: compared in f32
        x = x.float()
    return x.numpy()


def compare_draws(ours: np.ndarray, eager: np.ndarray):
    """None when `ours` ([R, *shape]) is distributed like `eager` ([K, *shape]), numpy arrays
    or torch tensors; else why not."""
    ours, eager = _numpy(ours), _numpy(eager)
    if ours.shape[1:] != eager.shape[1:]:
        return f"shape {list(ours.shape[1:])} vs eager's {list(eager.shape[1:])}"
    if ours.dtype != eager.dtype:
        return f"dtype {ours.dtype} vs eager's {eager.dtype}"
    if ours[0].size == 0:
        return None
    dtype = eager.dtype
    if dtype == np.bool_:
        ours, eager = ours.astype(np.int8), eager.astype(np.int8)
    ours = ours.reshape(ours.shape[0], -1).astype(np.float64)
    eager = eager.reshape(eager.shape[0], -1).astype(np.float64)
    k = eager.shape[0]
    pit, continuous = [], []
    for j in range(eager.shape[1]):
        e, t = np.sort(eager[:, j]), ours[:, j]
        values = np.unique(e)
        if len(values) == 1:
            bad = ~_close(t, values[0], dtype)
            if bad.any():
                return (f"element {j}: {t[bad][0]:.6g} where eager always gives {values[0]:.6g}")
            continue
        if len(values) <= DISCRETE_VALUES:
            inside = np.zeros(t.shape, dtype=bool)
            for v in values:
                inside |= _close(t, v, dtype)
            if not inside.all():
                return (f"element {j}: {t[~inside][0]:.6g} is none of eager's values "
                        f"{[float(f'{v:.6g}') for v in values]}")
        below = np.searchsorted(e, t, side="left")
        upto = np.searchsorted(e, t, side="right")
        u = (below + upto) / (2.0 * k)
        pit.append(u)
        continuous.append(np.full(u.shape, len(values) > DISCRETE_VALUES))
    if not pit:
        return None
    u, cont = np.concatenate(pit), np.concatenate(continuous)
    n = u.size
    mean_bound = 4.5 * np.sqrt(1.0 / (12.0 * n)) + 1.0 / k
    if abs(u.mean() - 0.5) > mean_bound:
        return (f"not distributed like eager: the mean rank of {n} values among eager's {k} "
                f"draws is {u.mean():.3f} (allowed 0.5 +- {mean_bound:.3f})")
    if cont.any():
        c = np.sort(u[cont])
        m = c.size
        grid = np.arange(1, m + 1) / m
        distance = max(np.max(grid - c), np.max(c - (grid - 1.0 / m)))
        bound = 1.95 / np.sqrt(m) + 1.0 / k
        if distance > bound:
            return (f"not distributed like eager: Kolmogorov-Smirnov distance {distance:.3f} of "
                    f"{m} ranks among eager's {k} draws (allowed {bound:.3f})")
    return None
