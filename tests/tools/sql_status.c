/*
 * sql_status.c — test tool: run SQL statements as `floe -c` does, locally
 * or under mpirun (rank 0 runs them through the distributed executor, the
 * other ranks run the worker loop), and on failure print the error's
 * floe_code beside its message, which the floe CLI does not show — so a
 * script can check that an error keeps its code across ranks.
 *
 * usage: sql_status WAREHOUSE SQL...
 *   Runs each SQL argument in order on a session over WAREHOUSE, results
 *   dropped.  Exits 0 when all succeed; else prints
 *   "error [<floe_code_name>]: <message>" on stderr and exits 1.
 * Not installed; built for the script tests only.
 */
#include <stdio.h>

#include "floe/dist.h"
#include "floe/memory.h"
#include "floe/session.h"

static int run(const char *warehouse, char **sql, int n) {
    floe_session *s = NULL;
    floe_status st = floe_session_open(warehouse, &s);
    floe_result_sink sink = {NULL, NULL, NULL, NULL, NULL};
    for (int i = 0; !st && i < n; i++) st = floe_session_execute(s, sql[i], &sink);
    floe_session_close(s);
    if (!st) return 0;
    fprintf(stderr, "error [%s]: %s\n", floe_code_name(floe_status_code(st)), floe_status_message(st));
    floe_status_free(st);
    return 1;
}

int main(int argc, char **argv) {
    floe_memory_tune_process();
    bool dist = floe_dist_launched();
    int rank = 0;
    if (dist) {
        floe_status st = floe_dist_init(&argc, &argv, &rank);
        if (st) {
            fprintf(stderr, "sql_status: rank %d: %s\n", rank, floe_status_message(st));
            floe_status_free(st);
            floe_dist_finalize();
            return 1;
        }
    }
    int rc;
    if (rank != 0) {
        rc = floe_dist_worker_main();
    } else if (argc < 3) {
        fprintf(stderr, "usage: sql_status WAREHOUSE SQL...\n");
        rc = 2;
    } else {
        rc = run(argv[1], argv + 2, argc - 2);
    }
    if (dist) floe_dist_finalize();
    return rc;
}
