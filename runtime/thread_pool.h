// A small fork-join thread pool for the CPU bundles' kernels (docs/DESIGN.md, "Threads").
//
// A context owns one pool of num_threads - 1 workers; the thread that calls <name>_run is the
// last participant. tc_pool_run hands out `tasks` task indices to the participants and
// returns when every task has run. A pool of one thread has no workers and runs every task on
// the caller: num_threads = 1 is exactly single-threaded. Pools are not re-entrant: a task must
// not call tc_pool_run on the pool that runs it (kernels run serially inside a task).
#pragma once

#include <stdint.h>

#include "thunderc_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tc_pool tc_pool;

/** The number of CPUs this process may run on (its affinity mask; at least 1). */
int tc_available_cpus(void);

/** A pool running tasks on `num_threads` threads in all (1 <= num_threads <= 1024). */
tc_status tc_pool_create(int num_threads, tc_pool **out, tc_error *err);

/** Stops and joins the workers; null is a no-op. */
void tc_pool_destroy(tc_pool *pool);

/** The pool's thread count (the caller included); 1 for a null pool. */
int tc_pool_num_threads(const tc_pool *pool);

/** Runs fn(arg, t) for t in [0, tasks), spread over the pool's threads; returns when all ran.
 * A null pool runs them in order on the caller. */
void tc_pool_run(tc_pool *pool, int64_t tasks, void (*fn)(void *arg, int64_t task), void *arg);

#ifdef __cplusplus
} /* extern "C" */
#endif
