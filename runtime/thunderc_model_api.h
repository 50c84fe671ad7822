/* A bundle's entry points behind one name-independent table, for programs that load compiled
 * models at run time (dlopen) without knowing their names: the Triton Inference Server backend
 * (triton_backend/, docs/TRITON.md). A bundle written with `thunderc --triton` builds a shared library
 * exporting thunderc_model_api_v1(); everything else about the model is in <name>.h. */
#ifndef THUNDERC_MODEL_API_H
#define THUNDERC_MODEL_API_H

#include "thunderc_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define THUNDERC_MODEL_API_VERSION 1
#define THUNDERC_MODEL_API_SYMBOL "thunderc_model_api_v1"

/** The model and context handles are the bundle's <name>_model / <name>_context. */
typedef struct thunderc_model_api {
  int version;      /**< THUNDERC_MODEL_API_VERSION */
  const char *name; /**< the bundle's name (--name) */
  int num_inputs;
  int num_outputs;
  const char *const *input_names; /**< num_inputs names, graph order */
  tc_status (*load)(const char *weights_path, void **model, tc_error *err);
  void (*free)(void *model);
  tc_status (*context_create)(const void *model, void **context, tc_error *err);
  void (*context_destroy)(void *context);
  tc_status (*context_set_num_threads)(void *context, int num_threads, tc_error *err);
  tc_status (*output_shapes)(const tc_tensor *inputs, int num_inputs, tc_tensor *outputs,
                             int num_outputs, tc_error *err);
  /** Runs on HOST tensors (a CUDA bundle's <name>_run_host: upload, run, download, wait). */
  tc_status (*run)(void *context, const tc_tensor *inputs, int num_inputs, tc_tensor *outputs,
                   int num_outputs, tc_error *err);
  /** CUDA bundles: makes `device` current for the calling thread (before creating a context
   * and before each run); NULL for CPU bundles. */
  tc_status (*select_device)(int device, tc_error *err);
} thunderc_model_api;

typedef const thunderc_model_api *(*thunderc_model_api_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* THUNDERC_MODEL_API_H */
