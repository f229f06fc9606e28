/*
 * progress.c — the progress counter the scans of a running plan add their
 * finished work to (floe_exec_ctx.progress), and the plan-time total of
 * that work.  A statement's front end (the SQL session) polls the counter
 * from another thread to draw a progress bar; the scans only ever add.
 */
#include <stdatomic.h>

#include "floe/exec.h"

struct floe_progress {
    _Atomic int64_t done;
};

floe_status floe_progress_new(floe_progress **out) {
    *out = floe_calloc(1, sizeof **out);
    if (!*out) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "progress counter");
    atomic_init(&(*out)->done, 0);
    return NULL;
}

void floe_progress_free(floe_progress *p) { floe_free(p); }

void floe_progress_add(floe_progress *p, int64_t n) {
    if (p && n > 0) atomic_fetch_add_explicit(&p->done, n, memory_order_relaxed);
}

int64_t floe_progress_done(const floe_progress *p) {
    return p ? atomic_load_explicit(&((floe_progress *)p)->done, memory_order_relaxed) : 0;
}

int64_t floe_plan_progress_total(const floe_plan *p) {
    if (!p) return 0;
    if (p->vt->progress_total) return p->vt->progress_total(p);
    int64_t total = 0;
    for (int32_t i = 0; i < floe_plan_num_children(p); i++) total += floe_plan_progress_total(floe_plan_child(p, i));
    return total;
}
