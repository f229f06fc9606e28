/*
 * dist.h — floe's distributed runtime on MPI (docs/ARCHITECTURE.md, dist).
 *
 * `mpirun -np N floe -c "..."` runs the same program on N ranks.  Rank 0
 * is the coordinator: it runs the CLI as usual (reads -c / -f / stdin),
 * resolves the catalog and plans each statement exactly as the local
 * runtime does.  Its session then runs each query plan through the
 * executor this layer installs (floe_session_set_default_executor): the
 * plan is split into stages at its exchanges, each stage's partitions
 * become tasks encoded with the plan codec, and the tasks are handed out
 * to every rank dynamically — rank 0 runs tasks on its own threads too —
 * (a rank gets as many tasks at once as it has threads, the least busy
 * rank first).  Ranks decode and run tasks.  A hash (or round-robin)
 * repartition between stages streams: its producer and consumer stages
 * run at the same time, and each producer sends a consumer partition at
 * most a window of blobs it has not yet decoded (credits), so a rank holds
 * a bounded amount of exchange data however much moves
 * (FLOE_DIST_EXCHANGE_BUFFER_BYTES, default 256 MiB per rank; EXPLAIN
 * ANALYZE reports each rank's peak).  Other exchanges (a gather, the build
 * side broadcast to every probe task) stay on the ranks that produced them
 * until the next stage's tasks fetch them, rank to rank; only what the
 * last stage reads is gathered to the coordinator, which runs that stage
 * (one partition: the merge, the final limit, the commit of a write)
 * itself, streaming to the client.  With one rank nothing is distributed.
 * A process not started by mpirun never initialises MPI.
 *
 * Threading: MPI is initialised with MPI_THREAD_FUNNELED.  Only the thread
 * that called floe_dist_init (the process's main thread) ever calls MPI:
 * on rank 0 that is the session thread (statements run on it, and it
 * polls for messages while a query's stages run), on a worker it is the
 * message loop; tasks run on other threads and hand their messages to the
 * loop through a bounded queue (back-pressure: a task blocks on a
 * condition variable while its rank has too many bytes not yet sent, or
 * while a consumer has given it no credit).
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

/* Threads of the whole run (every rank's pool size, rank 0's included);
 * 0 when not distributed. */
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
