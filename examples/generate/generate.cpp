// Greedy text generation with a decoder LLM compiled by thunderc: no Python, no libtorch.
//
//   generate <weights.bin> --prompt 47,56,63 [--new-tokens 32] [--logits steps.npy]
//            [--check-reset] [--interleave]
//
// The bundle holds the model's KV cache as context state (thunderc compiles the cache's
// in-place updates into the context), so generating is: one run over the prompt (prefill,
// cache positions 0..P-1), then one run per new token (decode, sequence length 1), each time
// taking the argmax of the last position's logits. The model's inputs are the exported
// `input_ids` [1, seq] and `cache_position` [seq] (int64); its output the logits
// [1, seq, vocab] (float32, or bfloat16 for a model exported in bf16, widened to float32).
//
// Prints the new token ids, the prefill latency and the decode speed. --logits writes the
// logits of each new token ([N, vocab] float32), --check-reset generates twice (resetting the
// context in between) and --interleave decodes the prompt and its reverse in two contexts step
// by step; both fail (exit 1) unless each generation equals the first. --force 4,5,6 feeds the
// given tokens at the decode steps instead of the model's own (teacher forcing), so that the
// logits of a model whose greedy path may leave the reference's (bf16) can still be compared.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "npy.h"
#include TC_MODEL_HEADER

#define TC_CAT2(a, b) a##b
#define TC_CAT(a, b) TC_CAT2(a, b)
#define TC_FN(suffix) TC_CAT(TC_MODEL, suffix)

namespace {

using Clock = std::chrono::steady_clock;

int fail(const char *what, const tc_error &err) {
  std::fprintf(stderr, "generate: %s: %s\n", what, err.message);
  return 1;
}

bool parseIds(const char *text, std::vector<int64_t> &ids) {
  std::string item;
  for (const char *p = text;; ++p) {
    if (*p == ',' || *p == '\0') {
      if (item.empty())
        return false;
      char *end = nullptr;
      long long value = std::strtoll(item.c_str(), &end, 10);
      if (*end != '\0' || value < 0)
        return false;
      ids.push_back(value);
      item.clear();
      if (*p == '\0')
        return !ids.empty();
    } else {
      item += *p;
    }
  }
}

/// One context's generation: the tokens so far and the position of the next one.
struct Generation {
  TC_CAT(TC_MODEL, _context) *context = nullptr;
  std::vector<int64_t> tokens;  ///< the new tokens
  std::vector<float> logits;    ///< [tokens, vocab]
  int64_t position = 0;
};

/// Runs the model on `ids` at cache positions position.. and appends the argmax of the last
/// position's logits.
tc_status step(Generation &gen, const std::vector<int64_t> &ids, int64_t vocab, tc_error *err) {
  auto seq = static_cast<int64_t>(ids.size());
  std::vector<int64_t> positions(ids.size());
  for (int64_t i = 0; i < seq; ++i)
    positions[static_cast<size_t>(i)] = gen.position + i;
  tc_tensor inputs[2] = {};
  inputs[0].data = const_cast<int64_t *>(ids.data());
  inputs[0].dtype = TC_DTYPE_I64;
  inputs[0].rank = 2;
  inputs[0].shape[0] = 1;
  inputs[0].shape[1] = seq;
  inputs[1].data = positions.data();
  inputs[1].dtype = TC_DTYPE_I64;
  inputs[1].rank = 1;
  inputs[1].shape[0] = seq;
  tc_tensor output = {};
  tc_status status = TC_FN(_output_shapes)(inputs, 2, &output, 1, err);
  if (status != TC_OK)
    return status;
  if ((output.dtype != TC_DTYPE_F32 && output.dtype != TC_DTYPE_BF16) || output.rank != 3 ||
      output.shape[2] != vocab)
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                         "expected f32 or bf16 logits [1, seq, %lld]",
                         static_cast<long long>(vocab));
  std::vector<float> logits(static_cast<size_t>(seq * vocab));
  // bf16 logits (a model exported in bfloat16) are the upper halves of floats: written into
  // the first half of the buffer, then widened in place from the end.
  output.data = logits.data();
#ifdef TC_MODEL_CUDA
  status = TC_FN(_run_host)(gen.context, inputs, 2, &output, 1, err);
#else
  status = TC_FN(_run)(gen.context, inputs, 2, &output, 1, err);
#endif
  if (status != TC_OK)
    return status;
  if (output.dtype == TC_DTYPE_BF16) {
    const auto *halves = reinterpret_cast<const uint16_t *>(logits.data());
    for (size_t i = logits.size(); i-- > 0;) {
      uint32_t bits = static_cast<uint32_t>(halves[i]) << 16;
      std::memcpy(&logits[i], &bits, sizeof bits);
    }
  }
  const float *last = logits.data() + (seq - 1) * vocab;
  gen.tokens.push_back(std::max_element(last, last + vocab) - last);
  gen.logits.insert(gen.logits.end(), last, last + vocab);
  gen.position += seq;
  return TC_OK;
}

/// Prefill with the prompt, then decode until `count` new tokens. With `forced` (teacher
/// forcing) step i feeds forced[i - 1] instead of the model's own previous token; gen.tokens
/// still holds the model's argmaxes.
tc_status generate(Generation &gen, const std::vector<int64_t> &prompt, int count, int64_t vocab,
                   tc_error *err, double *prefillMs = nullptr, double *decodeS = nullptr,
                   const std::vector<int64_t> *forced = nullptr) {
  gen.tokens.clear();
  gen.logits.clear();
  gen.position = 0;
  auto start = Clock::now();
  tc_status status = step(gen, prompt, vocab, err);
  auto prefilled = Clock::now();
  while (status == TC_OK && static_cast<int>(gen.tokens.size()) < count)
    status = step(gen, {forced ? (*forced)[gen.tokens.size() - 1] : gen.tokens.back()}, vocab,
                  err);
  auto done = Clock::now();
  if (prefillMs)
    *prefillMs = std::chrono::duration<double, std::milli>(prefilled - start).count();
  if (decodeS)
    *decodeS = std::chrono::duration<double>(done - prefilled).count();
  return status;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <weights.bin> --prompt 1,2,3 [--new-tokens N] "
                         "[--logits out.npy] [--force 4,5,6] [--check-reset] [--interleave]\n",
                 argv[0]);
    return 2;
  }
  const char *weights = argv[1];
  std::vector<int64_t> prompt, forced;
  int count = 32;
  const char *logitsPath = nullptr;
  bool checkReset = false;
  bool interleave = false;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--prompt" && i + 1 < argc) {
      if (!parseIds(argv[++i], prompt)) {
        std::fprintf(stderr, "generate: --prompt takes token ids: 1,2,3\n");
        return 2;
      }
    } else if (arg == "--force" && i + 1 < argc) {
      if (!parseIds(argv[++i], forced)) {
        std::fprintf(stderr, "generate: --force takes token ids: 1,2,3\n");
        return 2;
      }
    } else if (arg == "--new-tokens" && i + 1 < argc) {
      count = std::atoi(argv[++i]);
    } else if (arg == "--logits" && i + 1 < argc) {
      logitsPath = argv[++i];
    } else if (arg == "--check-reset") {
      checkReset = true;
    } else if (arg == "--interleave") {
      interleave = true;
    } else {
      std::fprintf(stderr, "generate: unknown argument '%s'\n", arg.c_str());
      return 2;
    }
  }
  if (prompt.empty() || count < 1) {
    std::fprintf(stderr, "generate: give a --prompt and --new-tokens >= 1\n");
    return 2;
  }
  if (!forced.empty() && static_cast<int>(forced.size()) < count - 1) {
    std::fprintf(stderr, "generate: --force needs at least --new-tokens - 1 = %d ids\n",
                 count - 1);
    return 2;
  }
  const std::vector<int64_t> *force = forced.empty() ? nullptr : &forced;

  tc_error err = {};
  TC_CAT(TC_MODEL, _model) *model = nullptr;
  if (TC_FN(_load)(weights, &model, &err) != TC_OK)
    return fail("load", err);
  // The vocabulary: the logits' last dim for a one-token input.
  int64_t vocab = 0;
  {
    int64_t one = 0;
    tc_tensor inputs[2] = {};
    inputs[0] = {&one, TC_DTYPE_I64, 2, {1, 1}};
    inputs[1] = {&one, TC_DTYPE_I64, 1, {1}};
    tc_tensor output = {};
    if (TC_FN(_output_shapes)(inputs, 2, &output, 1, &err) != TC_OK)
      return fail("output_shapes", err);
    vocab = output.shape[output.rank - 1];
  }
  Generation gen;
  if (TC_FN(_context_create)(model, &gen.context, &err) != TC_OK)
    return fail("context_create", err);
  double prefillMs = 0, decodeS = 0;
  if (generate(gen, prompt, count, vocab, &err, &prefillMs, &decodeS, force) != TC_OK)
    return fail("run", err);
  std::printf("tokens:");
  for (int64_t token : gen.tokens)
    std::printf(" %lld", static_cast<long long>(token));
  std::printf("\nprefill: %.3f ms for %zu tokens\n", prefillMs, prompt.size());
  std::printf("decode: %.1f tokens/s (%d tokens)\n", (count - 1) / std::max(decodeS, 1e-9),
              count - 1);
  int status = 0;
  if (logitsPath) {
    tc_tensor logits = {gen.logits.data(), TC_DTYPE_F32, 2,
                        {static_cast<int64_t>(gen.tokens.size()), vocab}};
    if (tc_npy_write(logitsPath, &logits, &err) != TC_OK)
      return fail("--logits", err);
  }
  if (checkReset) {
    Generation again;
    again.context = gen.context;
    if (TC_FN(_context_reset)(gen.context, &err) != TC_OK ||
        generate(again, prompt, count, vocab, &err, nullptr, nullptr, force) != TC_OK)
      return fail("reset", err);
    bool same = again.tokens == gen.tokens;
    std::printf("reset: %s\n", same ? "same tokens" : "DIFFERENT tokens");
    status |= same ? 0 : 1;
  }
  if (interleave) {
    // Two contexts, two prompts, one step each in turn: neither may see the other's cache.
    std::vector<int64_t> reversed(prompt.rbegin(), prompt.rend());
    Generation a, b, alone;
    if (TC_FN(_context_create)(model, &a.context, &err) != TC_OK ||
        TC_FN(_context_create)(model, &b.context, &err) != TC_OK ||
        TC_FN(_context_create)(model, &alone.context, &err) != TC_OK)
      return fail("context_create", err);
    if (generate(alone, reversed, count, vocab, &err) != TC_OK)
      return fail("run", err);
    tc_status s = step(a, prompt, vocab, &err);
    if (s == TC_OK)
      s = step(b, reversed, vocab, &err);
    while (s == TC_OK && static_cast<int>(a.tokens.size()) < count) {
      s = step(a, {force ? (*force)[a.tokens.size() - 1] : a.tokens.back()}, vocab, &err);
      if (s == TC_OK)
        s = step(b, {b.tokens.back()}, vocab, &err);
    }
    if (s != TC_OK)
      return fail("run", err);
    bool same = a.tokens == gen.tokens && b.tokens == alone.tokens;
    std::printf("interleave: %s\n", same ? "same tokens" : "DIFFERENT tokens");
    status |= same ? 0 : 1;
    TC_FN(_context_destroy)(a.context);
    TC_FN(_context_destroy)(b.context);
    TC_FN(_context_destroy)(alone.context);
  }
  TC_FN(_context_destroy)(gen.context);
  TC_FN(_free)(model);
  return status;
}
