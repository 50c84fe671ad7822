"""LLM decoding end to end: each decoder LLM exported with a static KV cache (models/llm.py) is
compiled, linked into the C++ generation example (examples/generate), and must generate the same
tokens as transformers' greedy `generate`, with every step's logits within the golden tolerance
policy (fp64 referee: the same tokens through the model in float64), on the CPU and under the
CUDA emulation; the models exported in bfloat16 too (CI: Llama and GPT-2) generate transformers'
bf16 tokens with logits within the bf16 tolerance. The example also checks that `<name>_context_reset` restarts the generation and
that two contexts decoding different prompts step by step do not interfere."""
import json
import os

import numpy as np
import pytest
import torch

from conftest import THUNDERC, run
from tolerances import compare, load_npy

LLM_DIR = os.environ.get("THUNDERC_LLM_DIR", "build/llm")
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def llm_models():
    if not os.path.isdir(LLM_DIR):
        return []
    return sorted(m for m in os.listdir(LLM_DIR)
                  if os.path.isfile(os.path.join(LLM_DIR, m, "manifest.json")))


def generate(model, tmp_path, target):
    folder = os.path.join(LLM_DIR, model)
    bundle = tmp_path / "llm"
    extra = ["--target", "cuda", "--cuda-emulation"] if target == "cuda" else []
    run([THUNDERC, os.path.join(folder, "train.pt2"), "-o", str(bundle), "--name", "llm", *extra])
    build = tmp_path / "build"
    flags = ["-DTHUNDERC_BUNDLE=" + str(bundle), "-DTHUNDERC_BUNDLE_WERROR=ON"]
    if target == "cuda":
        flags += ["-DTHUNDERC_MODEL_CUDA=ON", "-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON"]
    run(["cmake", "-S", os.path.join(REPO, "examples", "generate"), "-B", str(build), "-G",
         "Ninja", "-DCMAKE_BUILD_TYPE=Release", *flags])
    run(["cmake", "--build", str(build), "-j", str(os.cpu_count() or 2)])
    prompt = np.load(os.path.join(folder, "prompt.npy"))
    expected = np.load(os.path.join(folder, "tokens.npy"))
    with open(os.path.join(folder, "manifest.json")) as f:
        bf16 = json.load(f).get("dtype") == "bf16"
    logits = tmp_path / "logits.npy"
    # bf16: near-ties between the top logits at bf16's 8-bit precision let any two correct
    # implementations take different greedy paths (eager rounds every op to bf16, fused kernels
    # keep float inside), so the bundle is fed transformers' tokens (teacher forcing) and its
    # logits are held to the bf16 tolerance; the fp32 models must generate the same tokens.
    force = ["--force", ",".join(str(t) for t in expected)] if bf16 else []
    result = run([str(build / "generate"), str(bundle / "weights.bin"),
                  "--prompt", ",".join(str(t) for t in prompt),
                  "--new-tokens", str(len(expected)), "--logits", str(logits),
                  *force, "--check-reset", "--interleave"])
    print(result.stdout)
    tokens = [int(t) for t in result.stdout.split("tokens:")[1].splitlines()[0].split()]
    if bf16:
        agree = sum(int(a == b) for a, b in zip(tokens, expected.tolist()))
        print(f"{model} ({target}): {agree}/{len(expected)} argmax tokens equal transformers'")
    else:
        assert tokens == expected.tolist(), \
            f"{model} ({target}): tokens {tokens} != {expected.tolist()}"
    actual = load_npy(str(logits))
    reference = load_npy(os.path.join(folder, "logits.npy"))
    if bf16:
        # bf16 logits are bf16 values (widened to float32 in both files): compared as bf16, so
        # that the bf16 tolerance applies.
        actual, reference = actual.to(torch.bfloat16), reference.to(torch.bfloat16)
    ok, err, how = compare(actual, reference, load_npy(os.path.join(folder, "logits_fp64.npy")))
    print(f"{model} ({target}) logits: max error {err:.3g} ({how})")
    assert ok, f"{model} ({target}) logits: max error {err:.3g} ({how})"


@pytest.mark.parametrize("model", llm_models())
def test_generate_cpu(model, tmp_path):
    generate(model, tmp_path, "cpu")


@pytest.mark.parametrize("model", llm_models())
def test_generate_cuda_emulated(model, tmp_path):
    generate(model, tmp_path, "cuda")


def test_models_exported():
    assert llm_models(), f"no exported LLMs in {LLM_DIR} (python3 models/llm.py --out {LLM_DIR})"
