"""Throughput and latency through Triton Inference Server (docs/TRITON.md): one model served by the
thunderc backend, at 1, 4 and 16 concurrent gRPC clients, against the same bundle called
directly (its runner, one context, the same request): the cost of the server. The wheel's server
has no ONNX Runtime or PyTorch backend to compare with.

    python3 benchmarks/triton_bench.py [--model hf_bert_dynamic] [--root build/gallery]
        [--clients 1,4,16] [--requests 300] [--instances 1]

Prints a Markdown table: requests/s, p50 and p99 latency (ms) per client count, and the
direct call's median. Run it on a quiet machine; ratios matter more than absolute numbers."""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
import triton_server  # noqa: E402


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {result.returncode}:\n{result.stderr}")
    return result


def measure(grpc, url, name, inputs, clients, requests):
    latencies = [[] for _ in range(clients)]

    def client_thread(index):
        client = grpc.InferenceServerClient(url)
        request = []
        for spec_name, datatype, value in inputs:
            item = grpc.InferInput(spec_name, list(value.shape), datatype)
            item.set_data_from_numpy(value)
            request.append(item)
        for _ in range(requests):
            start = time.perf_counter()
            client.infer(name, request)
            latencies[index].append(time.perf_counter() - start)

    threads = [threading.Thread(target=client_thread, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    every = np.array([x for per in latencies for x in per]) * 1000.0
    return clients * requests / elapsed, np.percentile(every, 50), np.percentile(every, 99)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="hf_bert_dynamic")
    parser.add_argument("--root", default=os.path.join(ROOT, "build", "gallery"),
                        help="the exported models (models/export_zoo.py --out)")
    parser.add_argument("--thunderc", default=os.path.join(ROOT, "build", "cli", "thunderc"))
    parser.add_argument("--backends", default=os.path.join(ROOT, "build", "triton", "backends"))
    parser.add_argument("--clients", default="1,4,16")
    parser.add_argument("--requests", type=int, default=300, help="per client")
    parser.add_argument("--instances", type=int, default=1,
                        help="model instances (instance_group count)")
    opts = parser.parse_args()
    import tritonclient.grpc as grpc
    import tritonclient.http as http

    work = tempfile.mkdtemp(prefix="triton_bench_")
    pt2 = os.path.join(opts.root, opts.model, "train.pt2")
    repository, builds = triton_server.build_repository(opts.thunderc, {opts.model: pt2}, work,
                                                        run)
    config = os.path.join(repository, opts.model, "config.pbtxt")
    with open(config) as f:
        text = f.read()
    with open(config, "w") as f:
        f.write(re.sub(r"count: \d+", f"count: {opts.instances}", text))
    folder = os.path.join(opts.root, opts.model, "inputs")
    files = [os.path.join(folder, f) for f in sorted(os.listdir(folder))]
    server = triton_server.Server(repository, opts.backends, os.path.join(work, "server.log"),
                                  [opts.model], http)
    try:
        described = http.InferenceServerClient(server.http).get_model_config(opts.model)
        inputs = [(spec["name"], spec["data_type"].replace("TYPE_", ""), np.load(path))
                  for spec, path in zip(described["input"], files)]
        measure(grpc, server.grpc, opts.model, inputs, 1, 20)  # warm-up
        rows = []
        for clients in [int(c) for c in opts.clients.split(",")]:
            rows.append((clients, *measure(grpc, server.grpc, opts.model, inputs, clients,
                                           opts.requests)))
    finally:
        server.stop()
    runner = os.path.join(builds[opts.model], f"{opts.model}_run")
    timed = run([runner, "--inputs", ",".join(files), "--warmup", "20",
                 "--iters", str(opts.requests)]).stdout
    direct_us = float(re.search(r"median_us=([0-9.eE+-]+)", timed).group(1))
    shape = " ".join(f"{n}{list(v.shape)}" for n, _, v in inputs)
    print(f"\n{opts.model} ({shape}), {opts.instances} instance(s), {opts.requests} requests "
          f"per client, gRPC, {os.cpu_count()} cores\n")
    print("| path | clients | requests/s | p50 ms | p99 ms |")
    print("|---|---|---|---|---|")
    for clients, throughput, p50, p99 in rows:
        print(f"| Triton + thunderc backend | {clients} | {throughput:.0f} | {p50:.3f} | {p99:.3f} |")
    print(f"| bundle called directly (runner, 1 context) | 1 | {1e6 / direct_us:.0f} | "
          f"{direct_us / 1000:.3f} | - |")


if __name__ == "__main__":
    main()
