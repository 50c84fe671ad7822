"""Weights past 2 GiB: a model whose one weight is 2.25 GiB (an embedding table) is exported,
compiled (weights.bin with 64-bit offsets), built and run with the right answers; and two
processes load the same weights.bin at once, each mapping it (its resident weights are
file-backed pages shared through the page cache, not private copies)."""
import ctypes
import multiprocessing
import os
import shutil

import numpy as np
import pytest
import torch

from conftest import THUNDERC, run

ROWS = 9 * (1 << 26)  # float32 [ROWS, 1]: 2.25 GiB
IDS = [0, 1, 2, ROWS - 1, ROWS - 5]


class BigTable(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.nn.Parameter(torch.zeros(ROWS, 1), requires_grad=False)
        with torch.no_grad():
            self.table[-5:, 0] = torch.arange(1, 6, dtype=torch.float32)
            self.table[:3, 0] = torch.tensor([7.0, 8.0, 9.0])

    def forward(self, ids):
        return torch.nn.functional.embedding(ids, self.table) * 2


class TcError(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("message", ctypes.c_char * 512)]


LOAD = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                        ctypes.POINTER(TcError))


class ModelApi(ctypes.Structure):  # runtime/thunderc_model_api.h, the fields used here
    _fields_ = [("version", ctypes.c_int), ("name", ctypes.c_char_p),
                ("num_inputs", ctypes.c_int), ("num_outputs", ctypes.c_int),
                ("input_names", ctypes.c_void_p), ("load", LOAD)]


def _status_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


def _load_and_report(library, weights, barrier, results, index):
    api_fn = ctypes.CDLL(library).thunderc_model_api_v1
    api_fn.restype = ctypes.POINTER(ModelApi)
    api = api_fn().contents
    model = ctypes.c_void_p()
    error = TcError()
    status = api.load(weights.encode(), ctypes.byref(model), ctypes.byref(error))
    results[index] = (status, error.message.decode(), _status_kib("RssAnon"),
                      _status_kib("RssFile"))
    barrier.wait(timeout=120)  # both processes hold the mapping at the same time


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    root = tmp_path_factory.mktemp("large")
    pt2 = root / "big.pt2"
    model = BigTable().eval()
    torch.export.save(torch.export.export(model, (torch.tensor(IDS),)), str(pt2))
    expected = model(torch.tensor(IDS)).numpy()
    del model
    out = root / "out"
    run([THUNDERC, str(pt2), "-o", str(out), "--name", "big", "--triton", "-q"])
    pt2.unlink()
    build = out / "build"
    run(["cmake", "-S", str(out), "-B", str(build), "-G", "Ninja",
         "-DTHUNDERC_BUNDLE_CPU_DISPATCH=OFF", "-DTHUNDERC_BUNDLE_WERROR=ON"])
    run(["cmake", "--build", str(build), "--target", "big_run", "big_triton"])
    yield out, build, expected
    shutil.rmtree(root, ignore_errors=True)


def test_weights_past_2_gib_compile_and_run(bundle, tmp_path):
    out, build, expected = bundle
    assert os.path.getsize(out / "weights.bin") > (1 << 31)
    np.save(tmp_path / "ids.npy", np.array(IDS, dtype=np.int64))
    run([str(build / "big_run"), "--inputs", str(tmp_path / "ids.npy"),
         "--outputs", str(tmp_path / "y.npy")])
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), expected)


def test_two_processes_map_the_same_weights(bundle):
    out, build, _ = bundle
    library = str(build / "triton_library" / "model.so")
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    results = context.Manager().dict()
    processes = [context.Process(target=_load_and_report,
                                 args=(library, str(out / "weights.bin"), barrier, results, i))
                 for i in range(2)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=180)
        assert process.exitcode == 0
    size_kib = os.path.getsize(out / "weights.bin") // 1024
    for status, message, anon_kib, file_kib in results.values():
        assert status == 0, message
        print(f"resident: {anon_kib} KiB private, {file_kib} KiB file-backed "
              f"(weights.bin: {size_kib} KiB)")
        # Loading checks every CRC, so all of weights.bin is resident, as mapped file pages.
        assert file_kib > size_kib * 0.9 and anon_kib < 512 * 1024, (anon_kib, file_kib)
