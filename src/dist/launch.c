/*
 * launch.c — the entry points of dist.h: is this process one of an MPI
 * launch, floe_dist_init (MPI_Init_thread, each rank's threads and host
 * gathered on rank 0, rank 0's executor installed), the worker loop's
 * entry and floe_dist_finalize (STOP to every worker, each BYE awaited,
 * MPI_Finalize).  It makes the runtime object (runtime_internal.h) and
 * frees it.  A process not started by mpirun never initialises MPI; a
 * floe built without MPI refuses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/threadpool.h"
#include "dist/runtime_internal.h"
#include "floe/dist.h"
#include "floe/memory.h"

bool floe_dist_launched(void) {
    const char *force = getenv("FLOE_MPI");
    if (force && *force) return strcmp(force, "0") != 0;
#ifdef FLOE_HAVE_MPI
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS", NULL};
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 1) return true;
    }
#endif
    return false;
}

#ifndef FLOE_HAVE_MPI

floe_status floe_dist_init(int *argc, char ***argv, int *rank) {
    (void)argc;
    (void)argv;
    *rank = 0;
    return floe_error(FLOE_ERR_UNSUPPORTED, "this floe was built without MPI");
}
int floe_dist_worker_main(void) { return 1; }
void floe_dist_finalize(void) {}
int32_t floe_dist_total_threads(void) { return 0; }

#else

/* The runtime of this process.  MPI makes it one per process
 * (MPI_Init_thread and MPI_Finalize may each be called once, and rank,
 * size and MPI_COMM_WORLD belong to the process), which is why the entry
 * points of dist.h take no handle: they alone find the object here.
 * Everything below them is passed it — the executor's arg, each task,
 * each inbox's credit callback. */
static dist_rt *g_rt;

static void rt_free(dist_rt *rt) {
    if (!rt) return;
    pthread_mutex_destroy(&rt->net.mu);
    pthread_cond_destroy(&rt->net.cv);
    pthread_mutex_destroy(&rt->store.mu);
    floe_free(rt->threads);
    floe_free(rt->free_slots);
    floe_free(rt->hosts);
    floe_free(rt->heard_us);
    floe_free(rt->said_bye);
    floe_free(rt->gone);
    floe_free(rt->net.in.buf);
    floe_free(rt);
}

static dist_rt *rt_new(void) {
    dist_rt *rt = floe_calloc(1, sizeof *rt);
    if (!rt) return NULL;
    pthread_mutex_init(&rt->net.mu, NULL);
    pthread_cond_init(&rt->net.cv, NULL);
    pthread_mutex_init(&rt->store.mu, NULL);
    atomic_init(&rt->net.bytes, 0);
    rt->lost = -1;
    return rt;
}

/* Ranks, sizes, threads and hosts of the run, gathered on rank 0, and
 * rank 0's executor. */
static floe_status rt_start(dist_rt *rt, int provided, int *rank) {
    if (provided < MPI_THREAD_FUNNELED)
        return floe_error(FLOE_ERR_UNSUPPORTED, "this MPI library does not provide MPI_THREAD_FUNNELED");
    MPI_Comm_rank(MPI_COMM_WORLD, &rt->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &rt->size);
    *rank = rt->rank;
    /* A launcher of another MPI library (mpiexec.mpich starting an Open MPI
     * build, or the reverse) starts N processes that each see a world of
     * one: every one would run the whole statement — an INSERT would commit
     * N times.  The launcher's own size variables tell. */
    static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", NULL};
    for (int i = 0; size_vars[i]; i++) {
        const char *v = getenv(size_vars[i]);
        int declared = v ? atoi(v) : 0;
        if (declared > 1 && declared != rt->size) {
            char lib[MPI_MAX_LIBRARY_VERSION_STRING];
            int ll = 0;
            if (MPI_Get_library_version(lib, &ll) != MPI_SUCCESS) strcpy(lib, "unknown");
            char *nl = strchr(lib, '\n');
            if (nl) *nl = '\0';
            return floe_error(FLOE_ERR_UNSUPPORTED,
                              "the launcher started %d processes (%s=%d) but MPI sees %d: floe was built with "
                              "'%s'; start it with that library's mpirun/mpiexec",
                              declared, size_vars[i], declared, rt->size, lib);
        }
    }
    FLOE_TRY(floe_dist_register_nodes());
    /* rank 0's rank timeout holds on every rank (workers judge each other
     * by it too: worker.c) */
    int64_t timeout = dist_rank_timeout_us();
    int rc = MPI_Bcast(&timeout, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) return dist_mpi_error(rc, "Bcast");
    rt->timeout_us = timeout;
    rt->gone = floe_calloc((size_t)rt->size, sizeof *rt->gone);
    if (!rt->gone) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "starting MPI");
    int mine = (int)floe_threadpool_default_threads();
    if (mine < 1) mine = 1;
    int *all = rt->rank == 0 ? floe_calloc((size_t)rt->size, sizeof *all) : NULL;
    if (rt->rank == 0 && !all) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "starting MPI");
    rc = MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        floe_free(all);
        return dist_mpi_error(rc, "Gather");
    }
    /* each rank's host, to recognise node-local paths in errors */
    char host[MPI_MAX_PROCESSOR_NAME];
    memset(host, 0, sizeof host);
    int hl = 0;
    MPI_Get_processor_name(host, &hl);
    if (rt->rank == 0) rt->hosts = floe_calloc((size_t)rt->size, sizeof *rt->hosts);
    if (rt->rank == 0 && !rt->hosts) MPI_Abort(MPI_COMM_WORLD, 1); /* the others wait in the Gather */
    rc = MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, rt->hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
                    MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        floe_free(all);
        return dist_mpi_error(rc, "Gather");
    }
    if (rt->rank == 0) {
        rt->threads = floe_calloc((size_t)rt->size, sizeof *rt->threads);
        rt->free_slots = floe_calloc((size_t)rt->size, sizeof *rt->free_slots);
        rt->heard_us = floe_calloc((size_t)rt->size, sizeof *rt->heard_us);
        rt->said_bye = floe_calloc((size_t)rt->size, sizeof *rt->said_bye);
        if (!rt->threads || !rt->free_slots || !rt->heard_us || !rt->said_bye) {
            floe_free(all);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "starting MPI");
        }
        /* rank 0 runs tasks too, beside coordinating (its main thread
         * coordinates; the tasks run on threads of their own) */
        for (int r = 0; r < rt->size; r++) {
            rt->threads[r] = rt->free_slots[r] = all[r];
            rt->total += all[r];
        }
        if (rt->size > 1) {
            rt->executor.arg = rt;
            rt->executor.open = dist_coord_open;
            rt->executor.explain = dist_coord_explain;
            rt->executor.analyze = dist_coord_analyze;
            rt->executor.target_partitions = rt->total;
            floe_session_set_default_executor(&rt->executor);
        }
    }
    floe_free(all);
    FLOE_LOG_DEBUG("dist", "rank %d of %d, %d threads", rt->rank, rt->size, mine);
    return NULL;
}

floe_status floe_dist_init(int *argc, char ***argv, int *rank) {
    *rank = 0;
    if (g_rt) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_dist_init: MPI is initialised already");
    dist_rt *rt = rt_new();
    if (!rt) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "starting MPI");
    int provided = 0;
    int rc = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS) {
        rt_free(rt);
        return dist_mpi_error(rc, "Init_thread");
    }
    g_rt = rt; /* from here on floe_dist_finalize finalises MPI */
    return rt_start(rt, provided, rank);
}

int floe_dist_worker_main(void) {
    return g_rt ? dist_worker_main(g_rt) : 1;
}

int32_t floe_dist_total_threads(void) {
    return g_rt ? g_rt->total : 0;
}

/* The job cannot end normally (a rank was lost, or does not answer
 * STOP): MPI_Finalize would wait for it forever, so end every rank with
 * MPI_Abort — the launcher kills them all and exits non-zero.  What rank
 * 0 printed is flushed first. */
static void abort_job(void) {
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* A rank that has not said BYE and has been silent for the rank timeout
 * since STOP (-1: none). */
static int silent_rank(dist_rt *rt, int64_t stop_us) {
    int64_t now = dist_now_us();
    for (int r = 1; r < rt->size; r++) {
        if (rt->said_bye[r]) continue;
        int64_t heard = rt->heard_us[r] > stop_us ? rt->heard_us[r] : stop_us;
        if (now - heard > rt->timeout_us) return r;
    }
    return -1;
}

void floe_dist_finalize(void) {
    dist_rt *rt = g_rt;
    if (!rt) return;
    if (rt->rank == 0 && rt->size > 1) {
        floe_session_set_default_executor(NULL);
        if (rt->lost >= 0) {
            FLOE_LOG_ERROR("dist", "rank %d (host '%s') was lost: ending the MPI job", rt->lost, rt->hosts[rt->lost]);
            abort_job();
        }
        for (int r = 1; r < rt->size; r++) {
            floe_status st = dist_net_send_empty(rt, r, DIST_MSG_STOP);
            floe_status_free(st);
        }
        dist_worker_end_query(rt, INT64_MAX);
        /* wait for every BYE and for rank 0's own tasks, dropping late
         * messages of failed queries; a rank silent for the rank timeout
         * (stopped while idle) ends the job */
        int byes = 0, idle = 0;
        int64_t stop_us = dist_now_us();
        while (byes < rt->size - 1 || rt->net.sends || !dist_worker_idle(rt)) {
            bool busy = false;
            floe_status st = dist_coord_poll(rt, NULL, &busy, &byes, true);
            if (st) {
                floe_status_free(st);
                break;
            }
            int r = silent_rank(rt, stop_us);
            if (r > 0) {
                fprintf(stderr, "floe: rank %d (host '%s') did not answer STOP within %.0f s: ending the MPI job\n", r,
                        rt->hosts[r], rt->timeout_us / 1e6);
                abort_job();
            }
            if (!busy) dist_nap(&idle);
        }
    }
    MPI_Finalize();
    g_rt = NULL;
    /* after an MPI failure a task thread may still hold the object: the
     * process is ending, leave it to the process then */
    if (!rt->worker.tasks) rt_free(rt);
}

#endif
