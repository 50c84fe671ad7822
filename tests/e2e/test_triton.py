"""The thunderc backend under the real Triton Inference Server (docs/TRITON.md): the server binary
of the nvidia-pytriton wheel, on loopback ports, serving a model repository of two zoo models
(dynamic_mlp: batching; gpt: int64 tokens, static shapes) and one gallery model (BERT with a
dynamic batch and sequence length), each written by `thunderc --triton` and laid out by the
bundle's <name>_triton_repository target. Every response, over HTTP and gRPC, is compared with
PyTorch eager (the golden tolerance policy); 16 client threads x 200 requests with dynamic
batching all get correct answers and the server's statistics show batches of more than one
request; bad requests get Triton errors (the bundle's message where the bundle finds the
problem) and the server keeps serving; the models are unloaded and loaded 20 times."""
import copy
import shutil
import os
import sys
import threading
import time

import numpy as np
import pytest
import torch

from conftest import THUNDERC, ZOO_DIR, run
from tolerances import compare

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models"))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
import gallery  # noqa: E402
import triton_server  # noqa: E402
import zoo  # noqa: E402

GALLERY_DIR = os.environ.get("THUNDERC_GALLERY_DIR", "")
BACKENDS = os.environ.get("THUNDERC_TRITON_BACKENDS",
                          os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(THUNDERC))),
                                       "triton", "backends"))
MODELS = {"dynamic_mlp": ZOO_DIR, "gpt": ZOO_DIR, "hf_bert_dynamic": GALLERY_DIR,
          "dynamic_mlp_cuda": ZOO_DIR}
# Triton models served from another target's bundle of an exported model: the CUDA bundle,
# built against the CPU emulation of CUDA (so on CPU instances).
SOURCE = {"dynamic_mlp_cuda": "dynamic_mlp"}

http = pytest.importorskip("tritonclient.http")
grpc = pytest.importorskip("tritonclient.grpc")


def _eager_model(name):
    name = SOURCE.get(name, name)
    entry = zoo.get(name) if MODELS[name] == ZOO_DIR else gallery.get(name)
    model = entry.make_model().eval()
    return model, copy.deepcopy(model).double()


def _expected(models, name, inputs):
    model, model64 = models[name]
    with torch.no_grad():
        tensors = [torch.from_numpy(x) for x in inputs]
        out = model(*tensors)
        doubled = [t.double() if t.is_floating_point() else t for t in tensors]
        out64 = model64(*doubled)
    out = out if isinstance(out, (tuple, list)) else [out]
    out64 = out64 if isinstance(out64, (tuple, list)) else [out64]
    return [o.numpy() for o in out], [o.numpy() for o in out64]


def _compare(got, want, want64):
    return compare(torch.from_numpy(np.array(got)), torch.from_numpy(want),
                   torch.from_numpy(want64))


def _check(models, name, inputs, outputs):
    expected, expected64 = _expected(models, name, inputs)
    assert len(outputs) == len(expected)
    for got, want, want64 in zip(outputs, expected, expected64):
        ok, err, how = _compare(got, want, want64)
        assert ok, f"{name}: response differs from eager by {err:.3g} ({how})"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("triton")
    sources = {}
    for name, where in MODELS.items():
        exported = os.path.join(where, SOURCE.get(name, name), "train.pt2")
        if not where or not os.path.isfile(exported):
            pytest.fail(f"{name}: {exported} is not exported")
        sources[name] = ((exported, triton_server.CUDA_EMULATED) if name.endswith("_cuda")
                         else exported)
    repository, _ = triton_server.build_repository(THUNDERC, sources, str(root), run)
    started = triton_server.Server(repository, BACKENDS, root / "server.log", list(MODELS), http)
    yield {"http": started.http, "grpc": started.grpc, "process": started.process}
    started.stop()


@pytest.fixture(scope="module")
def models():
    return {name: _eager_model(name) for name in MODELS}


def _inputs(name):
    folder = os.path.join(MODELS[name], SOURCE.get(name, name), "inputs")
    return [np.load(os.path.join(folder, f)) for f in sorted(os.listdir(folder))]


def _config(server, name):
    return http.InferenceServerClient(server["http"]).get_model_config(name)


def _infer(module, url, name, inputs, config):
    client = module.InferenceServerClient(url)
    request = []
    for spec, value in zip(config["input"], inputs):
        item = module.InferInput(spec["name"], list(value.shape),
                                 spec["data_type"].replace("TYPE_", ""))
        item.set_data_from_numpy(value)
        request.append(item)
    result = client.infer(name, request)
    return [result.as_numpy(spec["name"]) for spec in config["output"]]


@pytest.mark.parametrize("protocol", ["http", "grpc"])
@pytest.mark.parametrize("name", list(MODELS))
def test_responses_match_eager(server, models, name, protocol):
    config = _config(server, name)
    module = http if protocol == "http" else grpc
    outputs = _infer(module, server[protocol], name, _inputs(name), config)
    _check(models, name, _inputs(name), outputs)


def test_config_says_which_models_batch(server):
    assert _config(server, "dynamic_mlp")["max_batch_size"] == 64
    assert _config(server, "dynamic_mlp_cuda")["max_batch_size"] == 64
    assert _config(server, "hf_bert_dynamic")["max_batch_size"] > 1
    assert _config(server, "gpt").get("max_batch_size", 0) == 0


@pytest.mark.parametrize("name", ["dynamic_mlp", "dynamic_mlp_cuda"])
def test_concurrent_clients_with_dynamic_batching(server, models, name):
    """16 threads x 200 requests of 1 to 4 rows each: every response equals eager on its own
    rows, and the server formed batches of several requests (for the CUDA bundle too, under the
    emulation)."""
    pool = np.random.default_rng(0).standard_normal((64, 4, 16)).astype(np.float32)
    expected, expected64 = _expected(models, name, [pool])
    failures = []

    def client_thread(seed):
        rng = np.random.default_rng(seed)
        client = http.InferenceServerClient(server["http"])
        for _ in range(200):
            rows = int(rng.integers(1, 5))
            start = int(rng.integers(0, 64 - rows))
            item = http.InferInput("x", [rows, 4, 16], "FP32")
            item.set_data_from_numpy(pool[start:start + rows])
            got = client.infer(name, [item]).as_numpy("output_0")
            ok, err, how = _compare(got, expected[0][start:start + rows],
                                    expected64[0][start:start + rows])
            if not ok:
                failures.append(f"rows {start}..{start + rows}: {err:.3g} ({how})")

    threads = [threading.Thread(target=client_thread, args=(seed,)) for seed in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures[:5]
    stats = http.InferenceServerClient(server["http"]).get_inference_statistics(name)
    batches = stats["model_stats"][0]["batch_stats"]
    sizes = {int(b["batch_size"]) for b in batches}
    print(f"{name}: batch sizes the server ran: {sorted(sizes)}")
    assert any(size > 4 for size in sizes), sizes  # one request has at most 4 rows


def test_bad_requests_get_errors_and_the_server_keeps_serving(server, models):
    client = http.InferenceServerClient(server["http"])
    tokens = _inputs("gpt")[0]
    # An out-of-range token passes Triton's checks; the bundle's message comes back.
    bad = tokens.copy()
    bad.flat[0] = 100000
    item = http.InferInput("idx", list(bad.shape), "INT64")
    item.set_data_from_numpy(bad)
    with pytest.raises(Exception) as error:
        client.infer("gpt", [item])
    assert "out of range" in str(error.value) and "100000" in str(error.value), error.value
    # The wrong dtype, a missing input, a sequence past BERT's exported range.
    item = http.InferInput("idx", list(tokens.shape), "INT32")
    item.set_data_from_numpy(tokens.astype(np.int32))
    with pytest.raises(Exception, match="(?i)data.?type|INT32"):
        client.infer("gpt", [item])
    with pytest.raises(Exception, match="(?i)expected 1 inputs|input"):
        client.infer("gpt", [])
    long = np.zeros((1, 4096), np.int64)
    item = http.InferInput("x", list(long.shape), "INT64")
    item.set_data_from_numpy(long)
    with pytest.raises(Exception) as error:
        client.infer("hf_bert_dynamic", [item])
    assert "hf_bert_dynamic" in str(error.value) and "range" in str(error.value), error.value
    # Still serving, and correctly.
    outputs = _infer(http, server["http"], "gpt", [tokens], _config(server, "gpt"))
    _check(models, "gpt", [tokens], outputs)


def _rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_load_and_unload_twenty_times(server, models):
    client = http.InferenceServerClient(server["http"])
    name = "dynamic_mlp"
    before = None
    for cycle in range(20):
        client.unload_model(name)
        deadline = time.monotonic() + 30
        while client.is_model_ready(name) and time.monotonic() < deadline:
            time.sleep(0.05)
        client.load_model(name)
        assert client.is_model_ready(name)
        outputs = _infer(http, server["http"], name, _inputs(name), _config(server, name))
        _check(models, name, _inputs(name), outputs)
        if cycle == 4:
            before = _rss_kib(server["process"].pid)
    after = _rss_kib(server["process"].pid)
    print(f"server RSS after 5 cycles {before} KiB, after 20 {after} KiB")
    assert after - before < 32 * 1024, (before, after)  # 15 more cycles: no growth per cycle
    assert server["process"].poll() is None


@pytest.mark.parametrize("flags,message", [
    ([], "--triton needs -o"),
    (["-o", "{out}", "--triton-max-batch", "0"], "--triton-max-batch takes 1 to 1048576"),
])
def test_triton_flag_errors(tmp_path, flags, message):
    import subprocess
    pt2 = os.path.join(ZOO_DIR, "mlp", "train.pt2")
    command = [THUNDERC, pt2, "--triton", *[f.format(out=tmp_path / "out") for f in flags]]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()


def test_static_model_config(tmp_path):
    """A model without a symbolic batch dim does not batch; its dims are its full shape."""
    run([THUNDERC, os.path.join(ZOO_DIR, "mlp", "train.pt2"), "-o", str(tmp_path / "out"),
         "--name", "mlp", "--triton", "-q"])
    config = (tmp_path / "out" / "triton" / "config.pbtxt").read_text()
    assert "max_batch_size: 0" in config and "dynamic_batching" not in config
    assert 'name: "x"' in config and "dims: [ 4, 64 ]" in config and "TYPE_FP32" in config


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
def test_cuda_model_library_builds_with_nvcc(tmp_path):
    """The deployable CUDA model library (no emulation): nvcc, cudart, one exported symbol."""
    out = tmp_path / "out"
    run([THUNDERC, os.path.join(ZOO_DIR, "dynamic_mlp", "train.pt2"), "-o", str(out),
         "--name", "mlp_gpu", "--target", "cuda", "--triton", "-q"])
    build = out / "build"
    run(["cmake", "-S", str(out), "-B", str(build), "-G", "Ninja",
         "-DCMAKE_CUDA_ARCHITECTURES=80-real", "-DTHUNDERC_BUNDLE_WERROR=ON"])
    run(["cmake", "--build", str(build), "--target", "mlp_gpu_triton_repository"])
    library = build / "triton_repository" / "mlp_gpu" / "1" / "model.so"
    exported = run(["nm", "-D", "--defined-only", str(library)]).stdout
    assert [line.split()[-1] for line in exported.splitlines() if " T " in line] == [
        "thunderc_model_api_v1"]
    assert "libcudart" in run(["ldd", str(library)]).stdout
    config = (build / "triton_repository" / "mlp_gpu" / "config.pbtxt").read_text()
    assert "KIND_GPU" in config
