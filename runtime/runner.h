/* The command-line runner behind every bundle's <name>_run executable: the generated
 * <name>_run.cpp fills a tc_model_api with the model's entry points and calls tc_runner_main,
 * so the command line (relied on by benchmarks and users' scripts) lives in one place. */
#ifndef THUNDERC_RUNTIME_RUNNER_H
#define THUNDERC_RUNTIME_RUNNER_H

#include <stdio.h>

#include "thunderc_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A model's entry points as the runner sees them. Every function pointer is required. */
typedef struct tc_model_api {
  const char *name; /**< model name, for messages and --help; NULL reads as "model" */
  int num_inputs;
  int num_outputs;
  /** The graph input's name for --help and messages; may return NULL. */
  const char *(*input_name)(int index);
  tc_status (*load)(const char *weights_path, void **model, tc_error *err);
  void (*free_model)(void *model);
  tc_status (*context_create)(const void *model, void **context, tc_error *err);
  void (*context_destroy)(void *context);
  /** Fills outputs[i].dtype/rank/shape (not data) for these inputs. */
  tc_status (*output_shapes)(const tc_tensor *inputs, int num_inputs, tc_tensor *outputs,
                             int num_outputs, tc_error *err);
  tc_status (*run)(void *context, const tc_tensor *inputs, int num_inputs, tc_tensor *outputs,
                   int num_outputs, tc_error *err);
  /** Optional (NULL: the runner times `run` with a host clock). Runs `warmup` untimed and
   * `iters` timed runs its own way and stores their median in microseconds; outputs hold the
   * last run's results. CUDA bundles time device-resident runs with CUDA events here. */
  /** Optional (NULL: --seed is ignored): seeds the context's random numbers and restarts its
   * run count (<name>_context_set_seed). */
  tc_status (*set_seed)(void *context, uint64_t seed, tc_error *err);
  tc_status (*time_runs)(void *context, const tc_tensor *inputs, int num_inputs,
                         tc_tensor *outputs, int num_outputs, int warmup, int iters,
                         double *median_us, tc_error *err);
  /** Optional (NULL: --threads is refused): sets the context's thread count. */
  tc_status (*set_num_threads)(void *context, int num_threads, tc_error *err);
  /** Optional (NULL: --bisect is refused): <name>_context_set_observer. */
  tc_status (*set_observer)(void *context, tc_observer observer, void *user, tc_error *err);
  /** Optional (NULL: --cuda-graphs is refused): <name>_context_set_cuda_graphs. */
  tc_status (*set_cuda_graphs)(void *context, int max_graphs, tc_error *err);
  /** Optional: <name>_context_cuda_graph_stats, printed after a run with --cuda-graphs. */
  tc_status (*cuda_graph_stats)(void *context, tc_cuda_graph_stats *stats, tc_error *err);
} tc_model_api;

/** Runs the command line and returns the process exit code; `default_weights_path` is used
 * when --weights is absent. The command line, with the exit codes, is printed by --help:
 *
 *   <name>_run --inputs A.npy [B.npy ...] --outputs X.npy [Y.npy ...] [--weights PATH]
 *              [--warmup W] [--iters N] [--threads T] [--seed S] [--cuda-graphs G]
 *   <name>_run --golden DIR [--weights PATH] [--threads T] [--seed S]
 *   <name>_run --bisect DIR [--weights PATH] [--threads T] [--seed S]
 *
 * Files are in graph input/output order and may also be given comma-separated. --iters N
 * (N >= 1) runs W times untimed (default 1), times N runs and prints `median_us=<value>` as the
 * only line on stdout; --outputs is then optional and receives the last run's results.
 * --threads T sets the context's thread count (<name>_context_set_num_threads).
 * --cuda-graphs G (CUDA bundles) captures the runs into CUDA graphs, at most G of them
 * (<name>_context_set_cuda_graphs), and prints `cuda_graphs: captures=C replays=R` on stderr.
 * --seed S seeds the model's random numbers before the first run (every run, warmup and timed
 * ones included, advances the context's run count).
 * --golden compares against DIR/expected/output_<i>.npy by the policy of
 * tests/golden/tolerances.py (with DIR/expected_fp64 as the fp64 referee when present).
 * --bisect runs DIR/inputs/input_<i>.npy once, compares every value the run writes with
 * DIR/values/<value name>.npy (written by tools/dump_intermediates.py; DIR/values_fp64 is the
 * fp64 referee) by the golden policy, and names the first value that differs, with its node,
 * op and Python source line; it exits 1 when one does.
 * Exit codes: 0 success, 1 golden or bisect mismatch, 2 usage error, 3 runtime or model error (stderr
 * reads `error: <tc_status_name>: <message>`). Never throws, aborts or exits; every allocation
 * is freed on every path. */
int tc_runner_main(int argc, char **argv, const tc_model_api *api,
                   const char *default_weights_path);

/** As tc_runner_main, with results (--help, median_us, golden report) written to `out` and
 * errors to `err` instead of stdout and stderr; for tests and for hosts that embed the runner.
 * Both streams are flushed before returning. */
int tc_runner_main_streams(int argc, char **argv, const tc_model_api *api,
                           const char *default_weights_path, FILE *out, FILE *err);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* THUNDERC_RUNTIME_RUNNER_H */
