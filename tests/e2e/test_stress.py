"""The runtime under load and faults (tests/stress/stress.cpp), on zoo models compiled with
--name model: many threads with a context each, bit-identical to single-threaded answers;
threads loading, creating, running and destroying models and contexts; every allocation of
load, context creation and the first runs failed in turn (out-of-memory status, no leak, a
correct retry), a warm run allocating nothing; every entry point misused (null pointers, wrong
counts, dtypes, ranks and shapes) returning its documented status; and the concurrency modes
again under ThreadSanitizer."""
import os
import shutil

import numpy as np
import pytest
import torch

from conftest import THUNDERC, ZOO_DIR, run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STRESS_SOURCE = os.path.join(ROOT, "tests", "stress")
# cnn: convolutions, pooling and GEMMs split over the context's threads; gpt: attention,
# layer norms and an embedding (its int64 inputs make every request the same).
MODELS = ["cnn", "gpt"]


def _inputs(model):
    folder = os.path.join(ZOO_DIR, model, "inputs")
    return [os.path.join(folder, name) for name in sorted(os.listdir(folder))]


def _build(model, tmp_root, sanitize=None, pt2=None, cuda=False):
    bundle = tmp_root / f"{model}_bundle{'_cuda' if cuda else ''}"
    if not bundle.exists():
        target = ["--target", "cuda", "--cuda-emulation"] if cuda else []
        run([THUNDERC, pt2 or os.path.join(ZOO_DIR, model, "train.pt2"), "-o", str(bundle),
             "--name", "model", "-q", *target])
    build = tmp_root / f"{model}_stress_{sanitize or 'plain'}{'_cuda' if cuda else ''}"
    extra = [f"-DSTRESS_SANITIZE={sanitize}"] if sanitize else []
    run(["cmake", "-S", STRESS_SOURCE, "-B", str(build), "-G", "Ninja",
         f"-DMODEL_DIR={bundle}", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
         "-DTHUNDERC_BUNDLE_CPU_DISPATCH=OFF", *extra])
    run(["cmake", "--build", str(build), "-j", str(os.cpu_count() or 2)])
    return os.path.join(str(build), "stress"), os.path.join(str(bundle), "weights.bin")


@pytest.fixture(scope="module")
def stress_root(tmp_path_factory):
    if not os.path.isdir(ZOO_DIR):
        pytest.fail(f"no zoo at {ZOO_DIR}: run models/export_zoo.py first")
    return tmp_path_factory.mktemp("stress")


def _env():
    # OpenBLAS's own threads are off, as in every bundle run; the contexts' pools are tested.
    return dict(os.environ, OPENBLAS_NUM_THREADS="1")


@pytest.mark.parametrize("model", MODELS)
def test_concurrent_lifecycle_and_faults(model, stress_root):
    stress, weights = _build(model, stress_root)
    inputs = _inputs(model)
    out = run([stress, "concurrent", weights, "8", "500", *inputs], env=_env()).stdout
    assert "8 threads x 500 runs, every output bit-identical" in out
    out = run([stress, "lifecycle", weights, "4", "200", *inputs], env=_env()).stdout
    assert "4 threads x 200" in out
    out = run([stress, "api", weights, *inputs], env=_env()).stdout
    assert "each with its documented status" in out
    out = run([stress, "faults", weights, *inputs], env=_env()).stdout
    assert "a warm run allocates nothing" in out
    count = int(out.split("each of ")[1].split()[0])
    assert count > 5, out  # load, context and runs allocate: the loop really injected faults


@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")
def test_thread_sanitizer(stress_root):
    stress, weights = _build("cnn", stress_root, sanitize="thread")
    inputs = _inputs("cnn")
    env = dict(_env(), TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1")
    out = run([stress, "concurrent", weights, "8", "40", *inputs], env=env).stdout
    assert "every output bit-identical" in out
    out = run([stress, "lifecycle", weights, "4", "25", *inputs], env=env).stdout
    assert "load/create/run/destroy cycles" in out


class SortAndBag(torch.nn.Module):
    """sort, topk and embedding_bag: kernels that need scratch memory per row or bag."""

    def __init__(self):
        super().__init__()
        self.bag = torch.nn.EmbeddingBag(40, 8, mode="mean")

    def forward(self, x, ids, offsets):
        values, order = torch.sort(x, dim=-1, stable=True)
        top = torch.topk(x, 3, dim=-1).values
        return values, order, top, self.bag(ids, offsets)


def test_scratch_kernels_allocate_nothing_when_warm(stress_root):
    """The sort and embedding_bag kernels take their scratch from the context's arena: a warm
    run allocates nothing, and every allocation fault before it is handled."""
    g = torch.Generator().manual_seed(0)
    inputs = (torch.randn(6, 300, generator=g), torch.randint(0, 40, (12,), generator=g),
              torch.tensor([0, 3, 3, 7]))
    folder = stress_root / "sort_bag_inputs"
    folder.mkdir()
    pt2 = stress_root / "sort_bag.pt2"
    torch.export.save(torch.export.export(SortAndBag().eval(), inputs), str(pt2))
    files = []
    for i, tensor in enumerate(inputs):
        files.append(str(folder / f"input_{i}.npy"))
        np.save(files[-1], tensor.numpy())
    stress, weights = _build("sort_bag", stress_root, pt2=str(pt2))
    out = run([stress, "faults", weights, *files], env=_env()).stdout
    assert "a warm run allocates nothing" in out
    out = run([stress, "concurrent", weights, "4", "50", *files], env=_env()).stdout
    assert "every output bit-identical" in out


@pytest.mark.parametrize("model", MODELS)
def test_cuda_abi_misuse_and_concurrency(model, stress_root):
    """The CUDA bundle's entry points (model_run, run_host, set_stream, synchronize, time_runs)
    misused return their documented statuses, contexts on threads agree bit for bit, and CUDA
    graphs replay runs bit for bit within their capacity, under the CPU emulation of CUDA."""
    stress, weights = _build(model, stress_root, cuda=True)
    inputs = _inputs(model)
    out = run([stress, "api", weights, *inputs], env=_env()).stdout
    assert "each with its documented status" in out
    out = run([stress, "concurrent", weights, "4", "20", *inputs], env=_env()).stdout
    assert "4 threads x 20 runs, every output bit-identical" in out
    out = run([stress, "graphs", weights, *inputs], env=_env()).stdout
    assert "graphs: captured once per key, replayed bit-identically, at most 2 kept" in out
