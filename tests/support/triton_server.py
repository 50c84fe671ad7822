"""Triton Inference Server for the thunderc backend's test and benchmark (docs/TRITON.md): a model
repository built from .pt2 files with `thunderc --triton` and the bundles' <name>_triton_repository
targets, and the tritonserver binary of the nvidia-pytriton wheel started on free loopback ports."""
import importlib.util
import os
import shutil
import socket
import subprocess
import time


def server_binary():
    """(tritonserver, the folder of its libraries) from the nvidia-pytriton wheel."""
    spec = importlib.util.find_spec("pytriton")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the nvidia-pytriton wheel is not installed (scripts/install_deps.sh)")
    package = spec.submodule_search_locations[0]
    return (os.path.join(package, "tritonserver", "bin", "tritonserver"),
            os.path.join(os.path.dirname(package), "nvidia_pytriton.libs"))


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


CUDA_EMULATED = (["--target", "cuda", "--cuda-emulation"], ["-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"])


def build_repository(thunderc, models, root, run):
    """models: {name: .pt2 path, or (.pt2 path, (thunderc flags, cmake flags)) such as
    CUDA_EMULATED}. Compiles each with --triton, builds its repository target and copies the
    model folders into root/repository; returns (repository, {name: bundle build})."""
    repo = os.path.join(root, "repository")
    os.makedirs(repo, exist_ok=True)
    builds = {}
    for name, source in models.items():
        pt2, (flags, cmake_flags) = source if isinstance(source, tuple) else (source, ([], []))
        bundle = os.path.join(root, f"{name}_bundle")
        run([thunderc, pt2, "-o", bundle, "--name", name, "--triton", "-q", *flags])
        build = os.path.join(bundle, "build")
        run(["cmake", "-S", bundle, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
             "-DTHUNDERC_BUNDLE_CPU_DISPATCH=OFF", "-DTHUNDERC_BUNDLE_WERROR=ON", *cmake_flags])
        run(["cmake", "--build", build])
        shutil.copytree(os.path.join(build, "triton_repository", name), os.path.join(repo, name))
        builds[name] = build
    return repo, builds


class Server:
    """tritonserver serving `repository` with the backends under `backends`, in explicit model
    control mode with every model loaded; its output goes to `log_path`."""

    def __init__(self, repository, backends, log_path, models, http_client, timeout=120):
        binary, libs = server_binary()
        self.http_port, self.grpc_port, metrics_port = free_ports(3)
        self.http = f"127.0.0.1:{self.http_port}"
        self.grpc = f"127.0.0.1:{self.grpc_port}"
        self.log = open(log_path, "w+")
        env = dict(os.environ, LD_LIBRARY_PATH=libs + ":" + os.environ.get("LD_LIBRARY_PATH", ""))
        self.process = subprocess.Popen(
            [binary, "--model-repository", str(repository), "--backend-directory", str(backends),
             "--model-control-mode", "explicit", "--load-model", "*",
             "--http-address", "127.0.0.1", "--grpc-address", "127.0.0.1",
             "--http-port", str(self.http_port), "--grpc-port", str(self.grpc_port),
             "--metrics-port", str(metrics_port), "--allow-metrics", "false"],
            stdout=self.log, stderr=subprocess.STDOUT, env=env)
        client = http_client.InferenceServerClient(self.http)
        deadline = time.monotonic() + timeout
        while True:
            try:
                if client.is_server_ready() and all(client.is_model_ready(m) for m in models):
                    return
            except Exception:  # noqa: BLE001 -- not listening yet
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"tritonserver did not become ready:\n{self.output()[-6000:]}")
            time.sleep(0.25)

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()
