"""LLM decoding speed: prefill latency and greedy decode tokens/s of a Llama-shaped model with a
static KV cache, thunderc's bundle (examples/generate) against PyTorch eager and torch.compile
running the same exported recipe module (HF's TorchExportableModuleForDecoderOnlyLM), batch 1,
the same number of threads on every side, in one run (ratios: these machines are shared and
noisy).

The bundle also runs with thunderc --quantize-weights int8 and int4 (--quantize), and, with
--llama-cpp SOURCE (a llama.cpp source tree: its convert_hf_to_gguf.py and gguf-py; the
llama-cpp-python package runs the model), llama.cpp on the same weights in f32, Q8_0 and Q4_0
(its tokenizer replaced by placeholder tokens: the benchmark feeds token ids).

Usage: python3 benchmarks/llm_decode.py [--hidden 1024] [--layers 4] [--heads 16]
           [--kv-heads 4] [--vocab 32000] [--prompt 32] [--new-tokens 64] [--threads 2]
           [--out build/llm_bench] [--no-compile] [--quantize int8,int4]
           [--llama-cpp path/to/llama.cpp]
Needs build/cli/thunderc. Prints a Markdown table.
"""
import argparse
import os
import re
import subprocess
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THUNDERC = os.path.join(ROOT, "build", "cli", "thunderc")


def hf_model(args):
    import transformers

    config = transformers.LlamaConfig(
        hidden_size=args.hidden, intermediate_size=args.hidden * 8 // 3 // 64 * 64,
        num_hidden_layers=args.layers, num_attention_heads=args.heads,
        num_key_value_heads=args.kv_heads, vocab_size=args.vocab,
        max_position_embeddings=args.cache, use_cache=True)
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(config).eval()
    model.generation_config.use_cache = True
    model.generation_config.cache_implementation = "static"
    model.generation_config.cache_config = {"batch_size": 1, "max_cache_len": args.cache}
    return model


def build_model(args):
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    return TorchExportableModuleForDecoderOnlyLM(hf_model(args), batch_size=1,
                                                 max_cache_len=args.cache)


def llama_cpp_models(args):
    """GGUF files of the same model: f32 from llama.cpp's convert_hf_to_gguf.py, then Q8_0
    and Q4_0 by llama.cpp's own quantizer."""
    import ctypes
    import importlib

    import llama_cpp

    sys.path[:0] = [args.llama_cpp, os.path.join(args.llama_cpp, "gguf-py")]
    convert = importlib.import_module("convert_hf_to_gguf")
    folder = os.path.join(args.out, "gguf")
    hf = os.path.join(folder, "hf")
    hf_model(args).save_pretrained(hf)

    def placeholder_vocab(self):  # the random model has no tokenizer; ids are fed directly
        n = self.hparams["vocab_size"]
        self.gguf_writer.add_tokenizer_model("llama")
        self.gguf_writer.add_tokenizer_pre("default")
        self.gguf_writer.add_token_list([f"<t{i}>".encode() for i in range(n)])
        self.gguf_writer.add_token_scores([0.0] * n)
        self.gguf_writer.add_token_types([1] * n)

    importlib.import_module("conversion.llama").LlamaModel.set_vocab = placeholder_vocab
    files = {"f32": os.path.join(folder, "f32.gguf")}
    argv = sys.argv
    sys.argv = ["convert_hf_to_gguf.py", hf, "--outfile", files["f32"], "--outtype", "f32"]
    try:
        convert.main()
    finally:
        sys.argv = argv
    for name, ftype in (("Q8_0", llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0),
                        ("Q4_0", llama_cpp.LLAMA_FTYPE_MOSTLY_Q4_0)):
        params = llama_cpp.llama_model_quantize_default_params()
        params.ftype = ftype
        params.nthread = args.threads
        files[name] = os.path.join(folder, name + ".gguf")
        assert llama_cpp.llama_model_quantize(files["f32"].encode(), files[name].encode(),
                                              ctypes.byref(params)) == 0
    return files


def llama_cpp_decode(path, args, prompt):
    """(prefill ms, decode tokens/s, tokens) of greedy decoding with llama.cpp."""
    import llama_cpp
    import numpy as np

    llm = llama_cpp.Llama(model_path=path, n_ctx=args.cache + 1, n_threads=args.threads,
                          n_threads_batch=args.threads, logits_all=True, verbose=False)
    for _ in range(2):  # the first run warms llama.cpp's buffers
        llm.reset()
        start = time.perf_counter()
        llm.eval(prompt.tolist())
        token = int(np.argmax(llm.scores[llm.n_tokens - 1]))
        prefilled = time.perf_counter()
        tokens = [token]
        for _ in range(args.new_tokens - 1):
            llm.eval([token])
            token = int(np.argmax(llm.scores[llm.n_tokens - 1]))
            tokens.append(token)
        done = time.perf_counter()
    return (prefilled - start) * 1e3, (args.new_tokens - 1) / (done - prefilled), tokens


def torch_decode(module, prompt, new_tokens):
    """(prefill ms, decode tokens/s, tokens) of greedy decoding with `module` (the recipe's
    inner static-cache module, which takes cache_position)."""
    with torch.no_grad():
        start = time.perf_counter()
        logits = module(input_ids=prompt[None], cache_position=torch.arange(prompt.numel()))
        token = int(logits[0, -1].argmax())
        prefilled = time.perf_counter()
        tokens = [token]
        for i in range(new_tokens - 1):
            position = torch.tensor([prompt.numel() + i])
            logits = module(input_ids=torch.tensor([[token]]), cache_position=position)
            token = int(logits[0, -1].argmax())
            tokens.append(token)
        done = time.perf_counter()
    return (prefilled - start) * 1e3, (new_tokens - 1) / (done - prefilled), tokens


def bundle_decode(args, wrapper, prompt, quantize=None):
    """(prefill ms, decode tokens/s, tokens) of the bundle; `quantize` ("int8", "int4") adds
    thunderc --quantize-weights."""
    os.makedirs(args.out, exist_ok=True)
    pt2 = os.path.join(args.out, "llama.pt2")
    seq = torch.export.Dim("seq", min=1, max=args.cache - 1)
    program = wrapper.export(input_ids=torch.zeros(1, 3, dtype=torch.long),
                             cache_position=torch.arange(3),
                             dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}},
                             strict=False)
    torch.export.save(program, pt2)
    suffix = "_" + quantize if quantize else ""
    bundle = os.path.join(args.out, "bundle" + suffix)
    build = os.path.join(args.out, "build" + suffix)
    flags = ["--quantize-weights", quantize] if quantize else []
    subprocess.run([THUNDERC, pt2, "-o", bundle, "--name", "llm"] + flags, check=True)
    subprocess.run(["cmake", "-S", os.path.join(ROOT, "examples", "generate"), "-B", build,
                    "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", "-DTHUNDERC_BUNDLE=" + bundle],
                   check=True, capture_output=True)
    subprocess.run(["cmake", "--build", build], check=True, capture_output=True)
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads),
               OPENBLAS_NUM_THREADS=str(args.threads))
    out = subprocess.run([os.path.join(build, "generate"), os.path.join(bundle, "weights.bin"),
                          "--prompt", ",".join(map(str, prompt.tolist())),
                          "--new-tokens", str(args.new_tokens)],
                         check=True, capture_output=True, text=True, env=env).stdout
    tokens = [int(t) for t in out.split("tokens:")[1].splitlines()[0].split()]
    prefill = float(re.search(r"prefill: ([\d.]+) ms", out).group(1))
    speed = float(re.search(r"decode: ([\d.]+) tokens/s", out).group(1))
    return prefill, speed, tokens


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hidden", type=int, default=1024)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--heads", type=int, default=16)
    parser.add_argument("--kv-heads", type=int, default=4)
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--prompt", type=int, default=32)
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "llm_bench"))
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    parser.add_argument("--quantize", default="int8,int4,int4-act8",
                        help="also run bundles with these --quantize-weights widths "
                             "(comma-separated; empty for none)")
    parser.add_argument("--llama-cpp", metavar="SOURCE",
                        help="a llama.cpp source tree: also run llama.cpp f32, Q8_0 and Q4_0")
    args = parser.parse_args()
    args.cache = args.prompt + args.new_tokens + 1
    torch.set_num_threads(args.threads)
    g = torch.Generator().manual_seed(0)
    prompt = torch.randint(1, args.vocab, (args.prompt,), generator=g)
    rows = []
    wrapper = build_model(args)
    rows.append(("thunderc bundle", *bundle_decode(args, build_model(args), prompt)))
    for width in filter(None, args.quantize.split(",")):
        rows.append((f"thunderc bundle, {width} weights",
                     *bundle_decode(args, build_model(args), prompt, width)))
    if args.llama_cpp:
        for name, path in llama_cpp_models(args).items():
            rows.append((f"llama.cpp {name}", *llama_cpp_decode(path, args, prompt)))
    torch_decode(build_model(args).model, prompt, 4)  # warm-up of eager's kernels
    rows.append(("PyTorch eager", *torch_decode(wrapper.model, prompt, args.new_tokens)))
    if not args.no_compile:
        compiled = torch.compile(build_model(args).model)
        torch_decode(compiled, prompt, 4)  # compiles prefill and decode shapes
        rows.append(("torch.compile", *torch_decode(compiled, prompt, args.new_tokens)))
    eager = next(row for row in rows if row[0] == "PyTorch eager")
    fp32_bundle = rows[0]
    print(f"Llama-shaped: hidden {args.hidden}, {args.layers} layers, {args.heads} heads "
          f"({args.kv_heads} KV), vocab {args.vocab}, prompt {args.prompt}, "
          f"{args.new_tokens} new tokens, {args.threads} threads, fp32\n")
    print("| runtime | prefill (ms) | decode (tokens/s) | vs eager | vs fp32 bundle | "
          "same tokens as eager |")
    print("|---|---|---|---|---|---|")
    for name, prefill, speed, tokens in rows:
        # Quantized weights change the logits, so their tokens may part from eager's.
        same = sum(a == b for a, b in zip(tokens, eager[3]))
        print(f"| {name} | {prefill:.1f} | {speed:.1f} | {speed / eager[2]:.2f}x | "
              f"{speed / fp32_bundle[2]:.2f}x | "
              f"{'yes' if tokens == eager[3] else f'{same}/{len(tokens)}'} |")


if __name__ == "__main__":
    main()
