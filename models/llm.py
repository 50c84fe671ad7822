"""Decoder LLMs with a static KV cache, exported the way Hugging Face's ExecuTorch recipe exports
them, and their greedy generations as the reference.

    python3 models/llm.py --out build/llm [--only llama] [--dtype bf16]

For each model (small configs from transformers, random weights, nothing downloaded) it writes
`<out>/<name>/`:
  train.pt2        the program: `TorchExportableModuleForDecoderOnlyLM(model, batch_size=1,
                   max_cache_len=L).export(input_ids=..., cache_position=...)` with the sequence
                   length dynamic (1 for a decode step, up to L for the prompt). Its cache tensors
                   are updated in place (index_copy_), which thunderc compiles as model state.
  prompt.npy       the prompt's token ids, int64 [P]
  tokens.npy       `model.generate(prompt, max_new_tokens=N, do_sample=False)`'s new tokens [N]
  logits.npy       the logits eager computed for each of those N tokens, [N, vocab] float32
  logits_fp64.npy  the same logits from the model in float64 given the same tokens (one
                   forward pass over prompt + tokens): the fp64 referee of tests/golden
  manifest.json    sizes, for the tests
"""
import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gallery import _small  # noqa: E402  (the gallery's small-config policy)

# name -> (config class, causal-LM class, config overrides)
LLMS = {
    "llama": ("LlamaConfig", "LlamaForCausalLM", {}),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM", {}),
    "mistral": ("MistralConfig", "MistralForCausalLM", {"sliding_window": None}),
    "gemma": ("GemmaConfig", "GemmaForCausalLM", {}),
    "phi3": ("Phi3Config", "Phi3ForCausalLM", {}),
    "gpt2": ("GPT2Config", "GPT2LMHeadModel", {}),
    "cohere": ("CohereConfig", "CohereForCausalLM", {}),
    "glm4": ("Glm4Config", "Glm4ForCausalLM", {}),
    # Mixture-of-Experts: transformers' default experts implementation (grouped_mm: tokens
    # sorted by expert, one grouped GEMM over the tokens each expert gets), and its batched_mm
    # alternative (each token's experts' weights gathered, then one batched GEMM).
    "mixtral": ("MixtralConfig", "MixtralForCausalLM", {"sliding_window": None}),
    "qwen2_moe": ("Qwen2MoeConfig", "Qwen2MoeForCausalLM",
                  {"num_experts": 8, "moe_intermediate_size": 64,
                   "shared_expert_intermediate_size": 128}),
    "mixtral_batched": ("MixtralConfig", "MixtralForCausalLM",
                        {"sliding_window": None, "experts": "batched_mm"}),
    # Quantized with torchao (weights int8 per row, activations float): the training IR once
    # torchao.utils.unwrap_tensor_subclass has turned the quantized weights into plain tensors.
    "llama_int8wo": ("LlamaConfig", "LlamaForCausalLM", {"quantize": "int8_weight_only"}),
}
PROMPT_LENGTH = 7
NEW_TOKENS = 32
MAX_CACHE_LENGTH = 48
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


def build(name: str, dtype: torch.dtype = torch.float32, experts: str = "",
          quantized: bool = True) -> torch.nn.Module:
    """The model in `dtype`; `experts` overrides a Mixture-of-Experts model's experts
    implementation (the fp64 referee uses "eager": torch's grouped_mm has no float64 kernel);
    `quantized=False` leaves a quantized entry's model in float."""
    import transformers

    config_class, model_class, overrides = LLMS[name]
    overrides = dict(overrides)
    experts = experts or overrides.pop("experts", "")
    quantize = overrides.pop("quantize", "")
    config = _small(getattr(transformers, config_class), **overrides)
    config.use_cache = True
    # Random weights at the default scale (0.02) make greedy decoding repeat one token with
    # near-ties between the top logits; at 0.3 the tokens vary and the top two logits of every
    # step stay apart, so that token-for-token comparisons test the whole generation.
    config.initializer_range = 0.3
    torch.manual_seed(0)
    model = getattr(transformers, model_class)(config).to(dtype).eval()
    if experts:
        model.set_experts_implementation(experts)
    if quantize and quantized:
        _quantize(model, quantize)
    model.generation_config.use_cache = True
    model.generation_config.cache_implementation = "static"
    model.generation_config.cache_config = {"batch_size": 1, "max_cache_len": MAX_CACHE_LENGTH}
    return model


def _quantize(model: torch.nn.Module, how: str) -> None:
    """torchao's quantize_ on every Linear, then the weights as plain tensors for export."""
    from torchao.quantization import Int8WeightOnlyConfig, quantize_
    from torchao.utils import unwrap_tensor_subclass

    configs = {"int8_weight_only": Int8WeightOnlyConfig}
    quantize_(model, configs[how]())
    unwrap_tensor_subclass(model)


def _dequantized_fp64(name: str) -> torch.nn.Module:
    """The fp64 referee of a quantized model: the float model whose Linear weights are the
    quantized model's dequantized ones (int8 * scale), in float64 -- the same function."""
    quantized = build(name)
    model = build(name, quantized=False)
    linears = dict(quantized.named_modules())
    with torch.no_grad():
        for module_name, module in model.named_modules():
            if isinstance(module, torch.nn.Linear):
                weight = linears[module_name].weight  # the parametrized (dequantizing) weight
                module.weight.copy_(weight.dequantize() if hasattr(weight, "dequantize")
                                    else weight)
    return model.to(torch.float64)


def export(model: torch.nn.Module) -> torch.export.ExportedProgram:
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    wrapper = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1,
                                                    max_cache_len=MAX_CACHE_LENGTH)
    ids = torch.zeros(1, 3, dtype=torch.long)
    positions = torch.arange(3)
    seq = torch.export.Dim("seq", min=1, max=MAX_CACHE_LENGTH - 1)
    return wrapper.export(input_ids=ids, cache_position=positions,
                          dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}},
                          strict=False)


def reference(model: torch.nn.Module, prompt: torch.Tensor) -> tuple:
    """Greedy generation by transformers itself: the new tokens and each step's logits."""
    with torch.no_grad():
        out = model.generate(prompt[None], max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS,
                             do_sample=False, return_dict_in_generate=True, output_logits=True,
                             pad_token_id=0, eos_token_id=None)
    tokens = out.sequences[0, prompt.numel():]
    logits = torch.stack([step[0] for step in out.logits]).float()
    return tokens, logits


def referee(name: str, prompt: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    """The logits of each new token computed in float64 from the same token sequence."""
    if "quantize" in LLMS[name][2]:
        model = _dequantized_fp64(name)
    else:
        moe = any(hasattr(module, "num_experts") for module in build(name).modules())
        model = build(name, torch.float64, "eager" if moe else "")
    sequence = torch.cat([prompt, tokens[:-1]])[None]
    with torch.no_grad():
        logits = model(input_ids=sequence, use_cache=False).logits[0]
    return logits[prompt.numel() - 1:]


def write(name: str, out_dir: Path, dtype_name: str) -> None:
    model = build(name, DTYPES[dtype_name])
    vocab = model.config.vocab_size
    g = torch.Generator().manual_seed(1234)
    prompt = torch.randint(1, vocab, (PROMPT_LENGTH,), generator=g)
    tokens, logits = reference(model, prompt)
    program = export(build(name, DTYPES[dtype_name]))
    folder = out_dir / (name if dtype_name == "fp32" else f"{name}_{dtype_name}")
    folder.mkdir(parents=True, exist_ok=True)
    torch.export.save(program, str(folder / "train.pt2"))
    np.save(folder / "prompt.npy", prompt.numpy().astype(np.int64))
    np.save(folder / "tokens.npy", tokens.numpy().astype(np.int64))
    np.save(folder / "logits.npy", logits.numpy().astype(np.float32))
    np.save(folder / "logits_fp64.npy", referee(name, prompt, tokens).numpy())
    (folder / "manifest.json").write_text(json.dumps({
        "name": name, "dtype": dtype_name, "vocab": vocab, "prompt_length": PROMPT_LENGTH,
        "new_tokens": NEW_TOKENS, "max_cache_length": MAX_CACHE_LENGTH}, indent=2) + "\n")
    print(f"{folder}: prompt {prompt.tolist()} -> {tokens.tolist()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="build/llm", type=Path)
    parser.add_argument("--only", action="append", choices=sorted(LLMS), help="repeatable")
    parser.add_argument("--dtype", default="fp32", choices=sorted(DTYPES))
    args = parser.parse_args()
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    for name in args.only or LLMS:
        write(name, args.out, args.dtype)
    return 0


if __name__ == "__main__":
    sys.exit(main())
