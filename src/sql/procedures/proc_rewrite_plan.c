/*
 * proc_rewrite_plan.c — which data files rewrite_data_files rewrites, and
 * in which groups: Iceberg Java's bin-pack planner rules
 * (SizeBasedFileRewritePlanner + BinPackRewriteFilePlanner), see
 * proc_rewrite.h.  Each group becomes one output partition of the rewrite
 * plan (one writer), so the groups run on every thread and rank.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "base/hashmap.h"
#include "floe/iceberg_value.h"
#include "floe/memory.h"
#include "sql/procedures/proc_rewrite.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "rewrite_data_files: out of memory"); }

int64_t rw_write_max_file_size(const rw_options *o) {
    return o->target + (int64_t)((double)(o->max_size - o->target) * 0.5);
}

/* ---- per file ------------------------------------------------------------ */

static bool too_many_deletes(const rw_options *o, const floe_ice_scan_task *t) {
    return t->n_deletes > 0 && t->n_deletes >= o->delete_file_threshold;
}

/* Java's tooHighDeleteRatio: the rows of deletes scoped to this one file
 * (deletion vectors, position deletes naming it) over its rows. */
static bool too_high_delete_ratio(const rw_options *o, const floe_ice_scan_task *t) {
    if (t->n_deletes == 0 || t->record_count <= 0) return false;
    int64_t known = 0;
    for (int32_t i = 0; i < t->n_deletes; i++) {
        const floe_ice_scan_delete *d = t->deletes[i];
        if (d->content == FLOE_ICE_CONTENT_POSITION_DELETES && (d->is_dv || d->referenced_data_file))
            known += d->record_count;
    }
    if (known > t->record_count) known = t->record_count;
    return (double)known / (double)t->record_count >= o->delete_ratio;
}

static bool has_delete_trouble(const rw_options *o, const floe_ice_scan_task *t) {
    return too_many_deletes(o, t) || too_high_delete_ratio(o, t);
}

static bool file_is_candidate(const rw_options *o, const floe_ice_scan_task *t) {
    if (o->rewrite_all) return true;
    int64_t len = t->file_size_in_bytes;
    return len < o->min_size || len > o->max_size || has_delete_trouble(o, t);
}

/* ---- per group ----------------------------------------------------------- */

static bool group_is_rewritten(const rw_options *o, const rw_plan *p, const rw_group *g) {
    if (o->rewrite_all) return true;
    if (g->n > 1 && g->n >= o->min_input_files) return true; /* enough input files */
    if (g->n > 1 && g->bytes > o->target) return true;       /* enough content */
    if (g->bytes > o->max_size) return true;                 /* too much content */
    for (int32_t i = 0; i < g->n; i++)
        if (has_delete_trouble(o, p->tasks[g->first + i])) return true;
    return false;
}

/* ---- partitions ---------------------------------------------------------- */

/* A partition's key: the spec id and each value's JSON form. */
static floe_status partition_key(const floe_ice_scan_task *t, floe_buf *b) {
    floe_buf_clear(b);
    FLOE_TRY(floe_buf_printf(b, "%d", (int)t->spec_id));
    for (int32_t i = 0; i < t->n_partition; i++) {
        if (t->partition[i].is_null) {
            FLOE_TRY(floe_buf_printf(b, "\x1fN"));
            continue;
        }
        char *text = NULL;
        FLOE_TRY(floe_ice_value_to_json_text(&t->partition[i], &text));
        floe_status st = floe_buf_printf(b, "\x1fV%s", text);
        floe_free(text);
        FLOE_TRY(st);
    }
    return NULL;
}

typedef struct cand {
    const floe_ice_scan_task *task;
    int64_t partition; /* ordinal of first appearance */
    int64_t order;     /* file order */
} cand;

static int cmp_cand(const void *a_, const void *b_) {
    const cand *a = a_, *b = b_;
    if (a->partition != b->partition) return a->partition < b->partition ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

void rw_plan_free(rw_plan *p) {
    floe_free(p->tasks);
    floe_free(p->groups);
    memset(p, 0, sizeof *p);
}

floe_status rw_plan_groups(const floe_ice_scan_plan *sp, const rw_options *o, rw_plan *out) {
    memset(out, 0, sizeof *out);
    int64_t n_all = 0;
    for (int32_t g = 0; g < sp->n_groups; g++) n_all += sp->groups[g] ? sp->groups[g]->n_tasks : 0;
    cand *c = floe_calloc((size_t)n_all + 1, sizeof *c);
    floe_strmap parts;
    floe_strmap_init(&parts);
    floe_buf key;
    floe_buf_init(&key);
    floe_status st = c ? NULL : oom();
    int64_t n = 0, n_parts = 0;
    for (int32_t g = 0; !st && g < sp->n_groups; g++) {
        const floe_ice_scan_group *grp = sp->groups[g];
        for (int32_t i = 0; !st && grp && i < grp->n_tasks; i++) {
            const floe_ice_scan_task *t = &grp->tasks[i];
            if (t->split_index != 0 || !file_is_candidate(o, t)) continue;
            st = partition_key(t, &key);
            if (st) break;
            void *v = floe_strmap_get(&parts, (floe_str){(const char *)key.data, key.len});
            if (!v) {
                v = (void *)(uintptr_t)(++n_parts);
                st = floe_strmap_put(&parts, (floe_str){(const char *)key.data, key.len}, v, NULL);
            }
            c[n].task = t;
            c[n].partition = (int64_t)(uintptr_t)v;
            c[n].order = n;
            n++;
        }
    }
    floe_buf_free(&key);
    floe_strmap_free(&parts);
    if (!st && n > 1) qsort(c, (size_t)n, sizeof *c, cmp_cand);
    /* Bin-pack each partition's files in order: one open group (Java's
     * ListPacker with lookback 1); a file that does not fit starts the
     * next.  Then keep the groups worth rewriting, compacting the task
     * list as we go. */
    if (!st && (!(out->tasks = floe_calloc((size_t)n + 1, sizeof *out->tasks)) ||
                !(out->groups = floe_calloc((size_t)n + 1, sizeof *out->groups))))
        st = oom();
    for (int64_t i = 0; !st && i < n;) {
        int64_t j = i;
        while (j < n && c[j].partition == c[i].partition) j++;
        for (int64_t k = i; k < j;) {
            rw_group g = {out->n_tasks, 0, 0};
            while (k < j) {
                int64_t len = c[k].task->file_size_in_bytes;
                if (g.n > 0 && g.bytes + len > o->max_group) break;
                out->tasks[out->n_tasks++] = c[k].task;
                g.n++;
                g.bytes += len;
                k++;
            }
            if (group_is_rewritten(o, out, &g)) out->groups[out->n_groups++] = g;
            else out->n_tasks = g.first; /* dropped */
        }
        i = j;
    }
    floe_free(c);
    if (st) rw_plan_free(out);
    return st;
}

/* ---- a group as a scan task group ---------------------------------------- */

floe_status rw_group_serialize(const rw_plan *p, int32_t gi, int32_t index, uint8_t **out, size_t *out_len) {
    const rw_group *g = &p->groups[gi];
    int64_t n_refs = 0;
    for (int32_t i = 0; i < g->n; i++) n_refs += p->tasks[g->first + i]->n_deletes;
    floe_ice_scan_task *tasks = floe_calloc((size_t)g->n + 1, sizeof *tasks);
    floe_ice_scan_delete *dels = floe_calloc((size_t)n_refs + 1, sizeof *dels);
    const floe_ice_scan_delete **refs = floe_calloc((size_t)n_refs + 1, sizeof *refs);
    floe_u64map seen;
    floe_u64map_init(&seen);
    floe_status st = tasks && dels && refs ? NULL : oom();
    int32_t n_dels = 0;
    int64_t r = 0, rows = 0;
    for (int32_t i = 0; !st && i < g->n; i++) {
        const floe_ice_scan_task *t = p->tasks[g->first + i];
        tasks[i] = *t;
        tasks[i].deletes = refs + r;
        rows += t->record_count;
        for (int32_t k = 0; !st && k < t->n_deletes; k++) {
            const floe_ice_scan_delete *d = t->deletes[k];
            uint64_t at = 0;
            if (!floe_u64map_get(&seen, (uint64_t)(uintptr_t)d, &at)) {
                at = (uint64_t)n_dels;
                dels[n_dels++] = *d;
                st = floe_u64map_put(&seen, (uint64_t)(uintptr_t)d, at, NULL, NULL);
            }
            refs[r++] = &dels[at];
        }
    }
    floe_u64map_free(&seen);
    if (!st) {
        floe_ice_scan_group grp;
        memset(&grp, 0, sizeof grp);
        grp.index = index;
        grp.n_tasks = g->n;
        grp.tasks = tasks;
        grp.n_deletes = n_dels;
        grp.deletes = dels;
        grp.weight = g->bytes;
        grp.bytes = g->bytes;
        grp.rows = rows;
        grp.n_files = g->n;
        st = floe_ice_scan_group_serialize(&grp, out, out_len);
    }
    floe_free(tasks);
    floe_free(dels);
    floe_free(refs);
    return st;
}
