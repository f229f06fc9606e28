/*
 * dist.h — floe's distributed runtime on MPI (DESIGN.md §3).
 *
 * `mpirun -np N floe -c "..."` runs the same program on N ranks.  Rank 0
 * is the coordinator: it runs the CLI as usual (reads -c / -f / stdin),
 * resolves the catalog and plans each statement exactly as the local
 * runtime does.  Its session then runs each query plan through the
 * executor this layer installs (floe_session_set_default_executor): the
 * plan is split into stages at its exchanges, each stage's partitions
 * become tasks encoded with the plan codec, and the tasks are handed out
 * to ranks 1..N-1 dynamically (a rank gets as many tasks at once as it
 * has threads, the least busy rank first).  Workers decode and run tasks;
 * a stage's output stays on the workers that produced it until the next
 * stage's tasks fetch it, worker to worker; only what the last stage reads
 * is gathered to the coordinator, which runs that stage (one partition:
 * the merge, the final limit, the commit of a write) itself, streaming to
 * the client.  A process not started by mpirun never initialises MPI.
 *
 * Threading: MPI is initialised with MPI_THREAD_FUNNELED.  Only the thread
 * that called floe_dist_init (the process's main thread) ever calls MPI:
 * on rank 0 that is the session thread (statements run on it), on a worker
 * it is the message loop; tasks run on other threads and hand their
 * messages to the loop through a bounded queue (back-pressure: a task
 * blocks while its rank has too many bytes not yet sent).
 */
#ifndef FLOE_DIST_H
#define FLOE_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/exec.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True when the environment says this process was started by an MPI
 * launcher with more than one rank (Open MPI's OMPI_COMM_WORLD_SIZE,
 * MPICH/hydra's PMI_SIZE, PMIX_SIZE ...).  FLOE_MPI=1 forces MPI on,
 * FLOE_MPI=0 off. */
bool floe_dist_launched(void);

/* Initialise MPI (from the main thread, before any other thread exists
 * that might call MPI) and exchange each rank's thread count.  *rank gets
 * this process's rank.  Installs the distributed executor as the sessions'
 * default on rank 0. */
floe_status floe_dist_init(int *argc, char ***argv, int *rank) FLOE_WARN_UNUSED;

/* The worker loop of ranks > 0: runs tasks until rank 0 says stop.
 * Returns the process exit code. */
int floe_dist_worker_main(void);

/* On rank 0: tell every worker to stop, wait for them, finalise MPI.  On
 * workers (after floe_dist_worker_main): finalise MPI.  No-op when MPI was
 * not initialised. */
void floe_dist_finalize(void);

/* Worker threads of the whole run (every worker rank's pool size); 0 when
 * not distributed. */
int32_t floe_dist_total_threads(void);

/* ---- stages (usable without MPI: tests and EXPLAIN) -------------------- */

/* The node type that stands for an exchange's input in a stage:
 * "MpiExchangeSource", parts = exchange id (the producing stage), output
 * partition count and schema.  Registered with the plan codec by
 * floe_dist_register_nodes(). */
floe_status floe_dist_register_nodes(void) FLOE_WARN_UNUSED;

/* Run `plan` (one output partition) the distributed way but inside this
 * process: split into stages, every task run here in stage order with its
 * output encoded into the exchange store, then the last stage streamed.
 * Proves the stage split and the exchange wire format without MPI. */
floe_status floe_dist_open_inprocess(const floe_plan *plan, const floe_exec_ctx *ctx,
                                     floe_stream **out) FLOE_WARN_UNUSED;

/* EXPLAIN text of the stages `plan` splits into. */
floe_status floe_dist_explain_stages(const floe_plan *plan, struct floe_buf *out) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
