/*
 * paths.c — node-local paths, found before any task runs.
 *
 * The local files a plan reads (an Iceberg scan's metadata file, a
 * Parquet scan's files; at most MAX_PROBES): every rank on another host
 * than rank 0 must see each of them with the same size and modification
 * time before any task runs (CHECK → CHECKED), or the statement fails
 * naming the rank, its host and the path.  FLOE_DIST_CHECK_PATHS=1 checks
 * every rank (also on rank 0's host), =0 none.  A worker's error that
 * still says a file is missing gets a hint naming both hosts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/threadpool.h"
#include "dist/runtime_internal.h"
#include "floe/exec_scan.h"
#include "floe/memory.h"

#ifdef FLOE_HAVE_MPI

/* Files checked per statement, at most. */
#define MAX_PROBES 32

static const char *local_fs_path(const char *p) {
    if (!p || !*p) return NULL;
    if (strncmp(p, "file://", 7) == 0) return p + 7;
    return strstr(p, "://") ? NULL : p;
}

typedef struct probes {
    int32_t n;
    dist_msg_check_file files[MAX_PROBES]; /* paths borrowed from the plan */
} probes;

static floe_status add_probe(probes *pr, const char *path) {
    const char *fs = local_fs_path(path);
    if (!fs || pr->n >= MAX_PROBES) return NULL;
    for (int32_t i = 0; i < pr->n; i++)
        if (strcmp(pr->files[i].path, fs) == 0) return NULL;
    struct stat sb;
    if (stat(fs, &sb) != 0) return NULL; /* rank 0 cannot see it either: the query fails as it would locally */
    pr->files[pr->n++] = (dist_msg_check_file){(int64_t)sb.st_size, (int64_t)sb.st_mtime, (char *)fs};
    return NULL;
}

static floe_status probe_visit(void *arg, const char *path) { return add_probe(arg, path); }

/* The files the plan's nodes read themselves (their local_paths slot). */
static floe_status collect_probes(const floe_plan *p, probes *pr) {
    return floe_plan_local_paths(p, probe_visit, pr);
}

floe_status dist_paths_check(coord *c, const floe_plan *plan) {
    dist_rt *rt = c->rt;
    const char *env = getenv("FLOE_DIST_CHECK_PATHS");
    bool all = env && strcmp(env, "1") == 0;
    if (env && strcmp(env, "0") == 0) return NULL;
    bool any = false;
    for (int r = 1; r < rt->size && !any; r++) any = all || strcmp(rt->hosts[r], rt->hosts[0]) != 0;
    if (!any) return NULL;
    probes pr;
    memset(&pr, 0, sizeof pr);
    floe_status st = collect_probes(plan, &pr);
    uint8_t *msg = NULL;
    size_t len = 0;
    dist_msg_check m = {c->query, pr.n, pr.files};
    if (!st && pr.n > 0) st = dist_msg_check_encode(&m, &msg, &len);
    for (int r = 1; r < rt->size && !st && pr.n > 0; r++) {
        if (!all && strcmp(rt->hosts[r], rt->hosts[0]) == 0) continue;
        uint8_t *copy = floe_malloc(len);
        if (!copy) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "checking paths");
            break;
        }
        memcpy(copy, msg, len);
        st = dist_net_send(rt, r, DIST_MSG_CHECK, copy, len);
        if (!st) {
            c->checks_pending++;
            dist_coord_owe(c, r, 1);
        }
    }
    floe_free(msg);
    int idle = 0;
    while (!st && c->checks_pending > 0) {
        st = floe_cancel_check(c->ctx->cancel, "distributed query");
        bool busy = false;
        if (!st) st = dist_coord_poll(rt, c, &busy, NULL, false);
        if (!busy) dist_nap(&idle);
    }
    if (!st && c->check_err) {
        st = c->check_err;
        c->check_err = NULL;
    }
    return st;
}

/* CHECK: compare the local files rank 0 planned from with what this rank
 * sees; answer CHECKED. */
void dist_paths_answer(dist_rt *rt, const uint8_t *buf, size_t len) {
    dist_msg_check m;
    floe_status st = dist_msg_check_decode(buf, len, &m);
    int64_t q = m.query;
    floe_buf why = FLOE_BUF_INIT;
    for (int32_t i = 0; !st && i < m.n && why.len == 0; i++) {
        const dist_msg_check_file *f = &m.files[i];
        struct stat sb;
        if (stat(f->path, &sb) != 0)
            st = floe_buf_printf(&why, "'%s' cannot be opened here (%s)", f->path, strerror(errno));
        else if ((int64_t)sb.st_size != f->size || (int64_t)sb.st_mtime != f->mtime)
            st = floe_buf_printf(&why,
                                 "'%s' is another file here (%lld bytes, modified at %lld; rank 0 sees %lld bytes, "
                                 "modified at %lld)",
                                 f->path, (long long)sb.st_size, (long long)sb.st_mtime, (long long)f->size,
                                 (long long)f->mtime);
    }
    dist_msg_check_clear(&m);
    if (q < 0) {
        /* not even a query id: nothing to answer */
        floe_status_free(st);
        floe_buf_free(&why);
        return;
    }
    if (st) {
        /* a message rank 0 made cannot be read: say so rather than pass */
        why.len = 0;
        floe_status s2 = floe_buf_printf(&why, "the path check failed: %s", floe_status_message(st));
        floe_status_free(s2);
        floe_status_free(st);
    }
    dist_msg_checked a = {q, why.len == 0, (const char *)why.data, why.len};
    uint8_t *out = NULL;
    size_t n = 0;
    st = dist_msg_checked_encode(&a, &out, &n);
    if (!st) st = dist_net_enqueue(rt, 0, DIST_MSG_CHECKED, out, n, NULL, false, 0);
    floe_status_free(st);
    floe_buf_free(&why);
}

/* A file rank 0 planned from but another host cannot see is most likely
 * a node-local path: say so. */
const char *dist_paths_hint(dist_rt *rt, int src, const char *text, size_t n, char *buf, size_t cap) {
    buf[0] = 0;
    if (!rt->hosts || src <= 0 || src >= rt->size || strcmp(rt->hosts[src], rt->hosts[0]) == 0) return buf;
    if (!memmem(text, n, "No such file", 12) && !memmem(text, n, "not found", 9)) return buf;
    snprintf(buf, cap,
             " (rank %d runs on host '%s', rank 0 on '%s': under mpirun every rank must see the same files — "
             "use shared storage or S3, not a node-local path)",
             src, rt->hosts[src], rt->hosts[0]);
    return buf;
}

#endif
