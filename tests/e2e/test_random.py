"""Random numbers (rand, randn, randint, randperm and their _like forms): one model exported at
both IR levels (training IR and run_decompositions()) is interpreted and compiled. Eager
PyTorch cannot be the reference for the draws (its CPU generator is mt19937, thunderc's is
Philox4x32-10), so this checks instead:
  - every output's shape and dtype equal eager's;
  - the interpreter, the CPU bundle and the CUDA bundle (run through the CPU emulation of CUDA)
    give the same bits for the same seed and run, and both IR levels give the same draws;
  - the same seed replays the same numbers, the next run of a context (--warmup 1) and another
    seed give different ones;
  - statistics: rand/randn mean and standard deviation within 5 sigma over 10^5 samples, every
    value of a randint range hit and none outside it, randperm a permutation, half/bfloat16
    draws in [0, 1);
  - the deterministic part of a model that mixes random and plain work matches eager.
The per-op suites (tests/ops, shape suite) exercise the same imports with results that do not
depend on the draws."""
import os

import numpy as np
import pytest
import torch

from conftest import THUNDERC, build_bundle, compile_bundle, run

ROWS = 25000  # rand(ROWS, 4) and randn_like(x[ROWS, 4]) draw 10^5 samples each
SEED = 1234


class Random(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0]
        noise = torch.randn_like(x)
        return (
            torch.rand(n, 4),                                  # 0 f32 uniform, symbolic size
            noise,                                             # 1 f32 normal
            x + 0.1 * noise,                                   # 2 mixed
            x.sin() * 2,                                       # 3 deterministic
            torch.randn(3, 5, dtype=torch.float64),            # 4 f64 normal
            torch.rand(4, 5, dtype=torch.float64),             # 5 f64 uniform
            torch.rand(7, 3, dtype=torch.float16),             # 6 f16 uniform
            torch.randn(6, dtype=torch.bfloat16),              # 7 bf16 normal
            torch.rand(3, 7, dtype=torch.bfloat16),            # 8 bf16 uniform
            torch.randint(-3, 7, (n, 5)),                      # 9 i64 in [-3, 7)
            torch.randint(10, (6,), dtype=torch.int32),        # 10 i32 in [0, 10)
            torch.randint_like(x, 2, 9),                       # 11 f32 integers in [2, 9)
            torch.randperm(n),                                 # 12 i64 permutation
            torch.randperm(9, dtype=torch.int16),              # 13
            torch.randperm(1),                                 # 14
            torch.randperm(0),                                 # 15
            torch.rand(0, 3),                                  # 16 empty
        )


def _inputs(rows):
    return (torch.randn(rows, 4, generator=torch.Generator().manual_seed(0)),)


def _export(level, path):
    rows = torch.export.Dim("rows", min=2)
    program = torch.export.export(Random(), _inputs(8), dynamic_shapes=({0: rows},))
    if level == "core":
        program = program.run_decompositions()
    torch.export.save(program, str(path))


NUM_OUTPUTS = 17


def _outputs(folder, stem):
    return [str(folder / f"{stem}_{i}.npy") for i in range(NUM_OUTPUTS)]


def _load(paths):
    return [np.load(p) for p in paths]


def _interpret(pt2, x_npy, folder, stem, seed=SEED, run_index=0):
    outputs = _outputs(folder, stem)
    run([THUNDERC, str(pt2), "--interpret", "--inputs", str(x_npy), "--outputs", ",".join(outputs),
         "--seed", str(seed), "--run-index", str(run_index)])
    return _load(outputs)


def _run_bundle(runner, x_npy, folder, stem, seed=SEED, warmup=0):
    outputs = _outputs(folder, stem)
    run([runner, "--inputs", str(x_npy), "--outputs", *outputs, "--seed", str(seed),
         "--warmup", str(warmup)])
    return _load(outputs)


DETERMINISTIC = (2, 3)  # float arithmetic on the draws or the input: within tolerance


def _assert_bitwise_equal(actual, expected, label):
    """The draws bit for bit; the float arithmetic of the deterministic outputs within the fp32
    tolerance (the interpreter computes in double, bundles in float)."""
    for i, (a, e) in enumerate(zip(actual, expected)):
        assert a.dtype == e.dtype and a.shape == e.shape, f"{label}: output {i}"
        if i in DETERMINISTIC:
            np.testing.assert_allclose(a, e, rtol=1.3e-6, atol=1e-5, err_msg=f"{label}: {i}")
            continue
        assert a.tobytes() == e.tobytes(), f"{label}: output {i} differs"


def _draws_differ(a, b):
    """The random outputs (all but the deterministic 3 and the empty or one-element ones)."""
    return all(a[i].tobytes() != b[i].tobytes() for i in (0, 1, 4, 5, 6, 7, 8, 9, 10, 11, 12))


def _check_statistics(out):
    uniform, normal = out[0].astype(np.float64), out[1].astype(np.float64)
    count = uniform.size
    assert count == 4 * ROWS
    assert uniform.min() >= 0 and uniform.max() < 1
    assert abs(uniform.mean() - 0.5) < 5 * np.sqrt(1 / 12) / np.sqrt(count)
    assert abs(uniform.std() - np.sqrt(1 / 12)) < 5 * 0.0745 / np.sqrt(count)  # sd of the sd
    assert abs(normal.mean()) < 5 / np.sqrt(count)
    assert abs(normal.std() - 1) < 5 / np.sqrt(2 * count)
    for i in (5, 6):
        assert out[i].min() >= 0 and out[i].max() < 1, f"output {i}"
    bf16 = (out[8].astype(np.uint32) << 16).view(np.float32)  # bf16 as '<u2' bit patterns
    assert bf16.min() >= 0 and bf16.max() < 1
    assert sorted(set(out[9].ravel().tolist())) == list(range(-3, 7))
    assert set(out[10].ravel().tolist()) <= set(range(10))
    assert sorted(set(out[11].ravel().tolist())) == list(range(2, 9))
    assert sorted(out[12].tolist()) == list(range(ROWS))
    assert sorted(out[13].tolist()) == list(range(9))
    assert out[14].tolist() == [0] and out[15].size == 0 and out[16].shape == (0, 3)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("random")
    x = _inputs(ROWS)[0]
    np.save(folder / "x.npy", x.numpy())
    for level in ("train", "core"):
        _export(level, folder / f"{level}.pt2")
    with torch.no_grad():
        eager = Random()(x)
    return folder, x, eager


@pytest.mark.parametrize("level", ["train", "core"])
def test_interpreter_matches_eager_types_and_statistics(level, exported):
    folder, x, eager = exported
    out = _interpret(folder / f"{level}.pt2", folder / "x.npy", folder, f"interp_{level}")
    for i, (actual, expected) in enumerate(zip(out, eager)):
        assert list(actual.shape) == list(expected.shape), f"output {i}"
        if expected.dtype == torch.bfloat16:
            assert actual.dtype == np.uint16, f"output {i}"
        else:
            assert actual.dtype == expected.numpy().dtype, f"output {i}"
    _check_statistics(out)
    # The deterministic part equals eager; the mixed one is x plus a tenth of the noise.
    torch.testing.assert_close(torch.from_numpy(out[3]), eager[3], rtol=1.3e-6, atol=1e-5)
    torch.testing.assert_close(torch.from_numpy(out[2]), x + 0.1 * torch.from_numpy(out[1]),
                               rtol=1.3e-6, atol=1e-5)
    # Same seed and run: the same bits; another run or another seed: other numbers.
    again = _interpret(folder / f"{level}.pt2", folder / "x.npy", folder, f"again_{level}")
    _assert_bitwise_equal(again, out, "same seed")
    second = _interpret(folder / f"{level}.pt2", folder / "x.npy", folder, f"run1_{level}",
                        run_index=1)
    assert _draws_differ(second, out)
    other = _interpret(folder / f"{level}.pt2", folder / "x.npy", folder, f"seed_{level}",
                       seed=2**64 - 1)
    assert _draws_differ(other, out)
    _check_statistics(other)


def test_both_levels_draw_the_same(exported):
    folder, _, _ = exported
    train = _interpret(folder / "train.pt2", folder / "x.npy", folder, "levels_train")
    core = _interpret(folder / "core.pt2", folder / "x.npy", folder, "levels_core")
    _assert_bitwise_equal(core, train, "core vs train")


# One bundle per target: both levels import to the same random ops (checked above), and two
# more builds would double this test's time on a two-core machine.
@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_bundles_match_interpreter_bit_for_bit(target, exported):
    folder, _, _ = exported
    level = "train" if target == "cpu" else "core"
    pt2 = folder / f"{level}.pt2"
    bundle = folder / f"bundle_{target}"
    extra = ["--target", "cuda", "--cuda-emulation"] if target == "cuda" else []
    compile_bundle(pt2, bundle, "noise", extra=extra)
    build = build_bundle(bundle, ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"] if target == "cuda" else [])
    runner = os.path.join(build, "noise_run")
    x_npy = folder / "x.npy"
    first = _run_bundle(runner, x_npy, folder, f"{target}_run0")
    _assert_bitwise_equal(first, _interpret(pt2, x_npy, folder, f"{target}_i0"), "run 0")
    # --warmup 1: the context's second run draws like the interpreter's run 1.
    second = _run_bundle(runner, x_npy, folder, f"{target}_run1", warmup=1)
    _assert_bitwise_equal(second, _interpret(pt2, x_npy, folder, f"{target}_i1", run_index=1),
                          "run 1")
    assert _draws_differ(second, first)
    big = _run_bundle(runner, x_npy, folder, f"{target}_big", seed=2**64 - 1)
    _assert_bitwise_equal(big, _interpret(pt2, x_npy, folder, f"{target}_ibig", seed=2**64 - 1),
                          "seed 2^64 - 1")
