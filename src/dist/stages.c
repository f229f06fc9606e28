/*
 * stages.c — splitting a physical plan into stages at its exchanges, and
 * the MpiExchangeSource leaf that stands for an exchange inside a stage.
 *
 * A stage is a subtree whose partitions can run independently: partition
 * i of every node in it reads only partition i (or a fixed mapping, as
 * Union) of its children.  The nodes that read ALL partitions of a child
 * are the cut points:
 *
 *   Repartition(child)           child becomes a stage routed HASH (or
 *                                ROUND_ROBIN) into the Repartition's
 *                                partitions; the node becomes a source;
 *   CoalescePartitions(child)    child becomes a stage GATHERed into one
 *                                partition; the node becomes a source;
 *   SortPreservingMerge(child)   child becomes a stage whose task i feeds
 *                                source partition i (IDENTITY), so the
 *                                merge still sees sorted runs;
 *   HashJoin COLLECT_LEFT,       the build (left) child becomes a stage
 *   NestedLoopJoin               GATHERed into one partition that every
 *                                probe task reads whole (a broadcast).
 *
 * A node is rebuilt over its new children through its own codec functions
 * (encode_parts, then decode_parts with the new children): the constructor
 * from parts is the one way nodes are made, so the split needs no code per
 * node type.  A node type not known to be partition-local makes the split
 * fail with FLOE_ERR_UNSUPPORTED, and the caller runs the plan locally —
 * never a silently wrong distributed plan.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist_internal.h"
#include "exec/plan_internal.h"
#include "floe/exec_ops.h"
#include "floe/memory.h"

/* ------------------------------------------------------ exchange source */

typedef struct xsrc_plan {
    floe_plan head;
    int32_t exchange;
    dist_part_data **bound; /* execution state: per partition, NULL until bound */
    dist_inbox **inbox;     /* or streamed: per partition, NULL unless bound */
    _Atomic int64_t bytes_in; /* execution state: exchange bytes its streams decoded */
} xsrc_plan;

static const floe_plan_vtable xsrc_vt;

static floe_status xsrc_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx,
                                floe_stream **out) {
    const xsrc_plan *p = (const xsrc_plan *)p_;
    *out = NULL;
    if (partition < 0 || partition >= p->head.n_partitions)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "MpiExchangeSource %d: no partition %d", p->exchange, partition);
    _Atomic int64_t *counter = (_Atomic int64_t *)&p->bytes_in;
    if (p->inbox[partition]) return dist_inbox_stream(p->inbox[partition], ctx->cancel, counter, out);
    if (!p->bound[partition])
        return floe_error(FLOE_ERR_INTERNAL,
                          "MpiExchangeSource %d: partition %d has no data bound (only the distributed runtime "
                          "runs this node)", p->exchange, partition);
    return dist_part_stream(p->bound[partition], ctx->cancel, counter, out);
}

static floe_status xsrc_encode(const floe_plan *p_, floe_buf *out) {
    const xsrc_plan *p = (const xsrc_plan *)p_;
    FLOE_TRY(floe_codec_put_i64(out, p->exchange));
    FLOE_TRY(floe_codec_put_i64(out, p->head.n_partitions));
    return floe_codec_put_type(out, p->head.schema);
}

static floe_status xsrc_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    (void)children;
    if (n_children != 0) return floe_error(FLOE_ERR_CORRUPT, "MpiExchangeSource: %d children", n_children);
    int64_t id = 0, np = 0;
    floe_type *schema = NULL;
    FLOE_TRY(floe_codec_get_i64(r, &id));
    FLOE_TRY(floe_codec_get_i64(r, &np));
    if (id < 0 || id > INT32_MAX || np < 1 || np > INT32_MAX)
        return floe_error(FLOE_ERR_CORRUPT, "MpiExchangeSource: exchange %lld with %lld partitions is impossible",
                          (long long)id, (long long)np);
    FLOE_TRY(floe_codec_get_type(r, &schema));
    floe_status st = dist_exchange_source(schema, (int32_t)id, (int32_t)np, out);
    floe_type_release(schema);
    return st;
}

static floe_status xsrc_explain(const floe_plan *p_, floe_buf *out) {
    const xsrc_plan *p = (const xsrc_plan *)p_;
    return floe_buf_printf(out, "exchange=%d", p->exchange);
}

static void xsrc_free(floe_plan *p_) {
    xsrc_plan *p = (xsrc_plan *)p_;
    for (int32_t i = 0; p->bound && i < p->head.n_partitions; i++) dist_part_data_release(p->bound[i]);
    for (int32_t i = 0; p->inbox && i < p->head.n_partitions; i++) dist_inbox_release(p->inbox[i]);
    floe_free(p->bound);
    floe_free(p->inbox);
}

static const floe_plan_vtable xsrc_vt = {"MpiExchangeSource", xsrc_execute, xsrc_encode, xsrc_decode,
                                         xsrc_explain, NULL, xsrc_free, NULL};

floe_status floe_dist_register_nodes(void) {
    return floe_plan_register(&xsrc_vt);
}

floe_status dist_exchange_source(floe_schema *schema, int32_t exchange, int32_t n_partitions, floe_plan **out) {
    *out = NULL;
    FLOE_TRY(floe_dist_register_nodes());
    if (!schema || schema->id != FLOE_TYPE_STRUCT || n_partitions < 1 || exchange < 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "MpiExchangeSource: bad parts");
    xsrc_plan *p = floe_calloc(1, sizeof *p);
    if (p) p->bound = floe_calloc((size_t)n_partitions, sizeof *p->bound);
    if (p) p->inbox = floe_calloc((size_t)n_partitions, sizeof *p->inbox);
    if (!p || !p->bound || !p->inbox) {
        if (p) floe_free(p->bound);
        floe_free(p);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "MpiExchangeSource: out of memory");
    }
    p->exchange = exchange;
    floe_status st = floe_exec_plan_init(&p->head, &xsrc_vt, schema, n_partitions, NULL, 0);
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}

int64_t dist_exchange_source_bytes_in(const floe_plan *p) {
    return atomic_load(&((xsrc_plan *)p)->bytes_in);
}

bool dist_is_exchange_source(const floe_plan *p) {
    return p && p->vt == &xsrc_vt;
}

int32_t dist_exchange_source_id(const floe_plan *p) {
    return ((const xsrc_plan *)p)->exchange;
}

void dist_exchange_source_bind(floe_plan *p_, int32_t partition, dist_part_data *d) {
    xsrc_plan *p = (xsrc_plan *)p_;
    if (partition < 0 || partition >= p->head.n_partitions) return;
    dist_part_data_release(p->bound[partition]);
    p->bound[partition] = dist_part_data_retain(d);
}

void dist_exchange_source_bind_inbox(floe_plan *p_, int32_t partition, dist_inbox *in) {
    xsrc_plan *p = (xsrc_plan *)p_;
    if (partition < 0 || partition >= p->head.n_partitions) return;
    dist_inbox_release(p->inbox[partition]);
    p->inbox[partition] = dist_inbox_retain(in);
}

/* ------------------------------------------------------------- reads */

static bool is(const floe_plan *p, const char *name) {
    return strcmp(floe_plan_type_name(p), name) == 0;
}

static floe_status reads_all(const floe_plan *child, dist_read_visit visit, void *arg);

floe_status dist_plan_reads(const floe_plan *p, int32_t partition, dist_read_visit visit, void *arg) {
    if (dist_is_exchange_source(p)) return visit(arg, (floe_plan *)p, partition);
    if ((is(p, "HashJoin") && floe_hash_join_mode(p) == FLOE_JOIN_COLLECT_LEFT) || is(p, "NestedLoopJoin")) {
        FLOE_TRY(reads_all(p->children[0], visit, arg));
        return dist_plan_reads(p->children[1], partition, visit, arg);
    }
    if (is(p, "Union")) {
        int32_t c = 0, part = partition;
        while (c < p->n_children && part >= p->children[c]->n_partitions) part -= p->children[c++]->n_partitions;
        return c < p->n_children ? dist_plan_reads(p->children[c], part, visit, arg) : NULL;
    }
    if (is(p, "SortPreservingMerge") || is(p, "CoalescePartitions") || is(p, "Repartition"))
        return reads_all(p->children[0], visit, arg);
    for (int32_t c = 0; c < p->n_children; c++) FLOE_TRY(dist_plan_reads(p->children[c], partition, visit, arg));
    return NULL;
}

static floe_status reads_all(const floe_plan *child, dist_read_visit visit, void *arg) {
    for (int32_t k = 0; k < child->n_partitions; k++) FLOE_TRY(dist_plan_reads(child, k, visit, arg));
    return NULL;
}

/* ------------------------------------------------------------- split */

typedef struct splitter {
    dist_stages *s;
} splitter;

static void stage_clear(dist_stage *st) {
    floe_plan_release(st->plan);
    dist_route_clear(&st->route);
    floe_free(st->deps);
}

void dist_stages_free(dist_stages *s) {
    if (!s) return;
    for (int32_t i = 0; i < s->n; i++) stage_clear(&s->stages[i]);
    floe_free(s->stages);
    floe_free(s);
}

static floe_status collect_deps(void *arg, floe_plan *source, int32_t part) {
    (void)part;
    dist_stage *st = arg;
    int32_t id = dist_exchange_source_id(source);
    for (int32_t i = 0; i < st->n_deps; i++)
        if (st->deps[i] == id) return NULL;
    int32_t *nd = floe_realloc(st->deps, (size_t)(st->n_deps + 1) * sizeof *nd);
    if (!nd) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "splitting stages");
    st->deps = nd;
    st->deps[st->n_deps++] = id;
    return NULL;
}

/* Add a stage over `plan` (reference taken over) fed to its consumers by
 * `route` (moved). */
static floe_status add_stage(splitter *sp, floe_plan *plan, dist_route *route, bool broadcast, int32_t *id) {
    dist_stages *s = sp->s;
    dist_stage *ns = floe_realloc(s->stages, (size_t)(s->n + 1) * sizeof *ns);
    if (!ns) {
        floe_plan_release(plan);
        dist_route_clear(route);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "splitting stages");
    }
    s->stages = ns;
    dist_stage *st = &s->stages[s->n];
    memset(st, 0, sizeof *st);
    st->id = s->n++;
    st->plan = plan;
    st->route = *route;
    memset(route, 0, sizeof *route);
    st->broadcast = broadcast;
    *id = st->id;
    for (int32_t k = 0; k < plan->n_partitions; k++) FLOE_TRY(dist_plan_reads(plan, k, collect_deps, st));
    return NULL;
}

/* `p` rebuilt over `children` (borrowed) through its codec functions. */
static floe_status rebuild(const floe_plan *p, floe_plan *const *children, floe_plan **out) {
    *out = NULL;
    floe_buf parts = FLOE_BUF_INIT;
    floe_status st = p->vt->encode_parts ? p->vt->encode_parts(p, &parts)
                                         : floe_error(FLOE_ERR_UNSUPPORTED, "%s has no codec", p->vt->name);
    if (!st) {
        floe_reader r = {parts.data, parts.len, 0};
        st = p->vt->decode_parts(&r, children, p->n_children, out);
    }
    floe_buf_free(&parts);
    return st ? floe_status_wrap(st, "rebuilding %s for a stage", p->vt->name) : NULL;
}

static floe_status cut(splitter *sp, const floe_plan *p, floe_plan **out);

/* Child `c` becomes a stage routed by `route`; *out = a source over it. */
static floe_status cut_to_stage(splitter *sp, const floe_plan *child, dist_route *route, bool broadcast,
                                int32_t n_out, floe_plan **out) {
    floe_plan *sub = NULL;
    floe_status st = cut(sp, child, &sub);
    if (st) {
        dist_route_clear(route);
        return st;
    }
    int32_t id;
    FLOE_TRY(add_stage(sp, sub, route, broadcast, &id));
    return dist_exchange_source(child->schema, id, n_out, out);
}

static bool partition_local(const floe_plan *p) {
    static const char *const names[] = {"Values", "Filter", "Projection", "Limit", "Sort", "HashAggregate",
                                        "Union", "GenerateSeries", "ParquetScan", "IcebergScan", "HashJoin",
                                        "TpchGen", "MpiExchangeSource", "IcebergWrite", "IcebergCommit", NULL};
    for (int32_t i = 0; names[i]; i++)
        if (is(p, names[i])) return true;
    return false;
}

/* Build-side rows whose output depends on every probe partition (LEFT,
 * FULL, semi and anti on the build side) cannot be split across ranks. */
static bool build_side_needs_all_probes(floe_join_type t) {
    return t == FLOE_JOIN_LEFT || t == FLOE_JOIN_FULL || t == FLOE_JOIN_LEFT_SEMI || t == FLOE_JOIN_LEFT_ANTI;
}

static floe_status cut(splitter *sp, const floe_plan *p, floe_plan **out) {
    *out = NULL;
    dist_route route;
    memset(&route, 0, sizeof route);
    if (is(p, "Repartition")) {
        bool hash = floe_repartition_kind_of(p) == FLOE_REPARTITION_HASH;
        route.kind = hash ? DIST_ROUTE_HASH : DIST_ROUTE_ROUND_ROBIN;
        route.n_out = p->n_partitions;
        int32_t nk = hash ? floe_repartition_num_keys(p) : 0;
        if (nk > 0) {
            route.keys = floe_calloc((size_t)nk, sizeof *route.keys);
            if (!route.keys) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "splitting stages");
            for (int32_t k = 0; k < nk; k++) route.keys[k] = floe_expr_retain((floe_expr *)floe_repartition_key(p, k));
            route.n_keys = nk;
        }
        return cut_to_stage(sp, p->children[0], &route, false, p->n_partitions, out);
    }
    if (is(p, "CoalescePartitions")) {
        route.kind = DIST_ROUTE_GATHER;
        route.n_out = 1;
        return cut_to_stage(sp, p->children[0], &route, false, 1, out);
    }
    floe_plan *kids[2] = {NULL, NULL};
    floe_status st = NULL;
    if (is(p, "SortPreservingMerge")) {
        route.kind = DIST_ROUTE_IDENTITY;
        route.n_out = p->children[0]->n_partitions;
        st = cut_to_stage(sp, p->children[0], &route, false, route.n_out, &kids[0]);
    } else if ((is(p, "HashJoin") && floe_hash_join_mode(p) == FLOE_JOIN_COLLECT_LEFT) || is(p, "NestedLoopJoin")) {
        floe_join_type t = is(p, "HashJoin") ? floe_hash_join_type(p) : floe_nested_loop_join_type(p);
        if (build_side_needs_all_probes(t) && p->children[1]->n_partitions > 1)
            return floe_error(FLOE_ERR_UNSUPPORTED, "%s %s with a collected build side is not distributed yet",
                              p->vt->name, floe_join_type_name(t));
        route.kind = DIST_ROUTE_GATHER;
        route.n_out = 1;
        st = cut_to_stage(sp, p->children[0], &route, true, 1, &kids[0]);
        if (!st) st = cut(sp, p->children[1], &kids[1]);
    } else if (partition_local(p)) {
        if (p->n_children > 2) {
            /* Union of many: cut each child into a temporary array. */
            floe_plan **many = floe_calloc((size_t)p->n_children, sizeof *many);
            if (!many) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "splitting stages");
            for (int32_t c = 0; c < p->n_children && !st; c++) st = cut(sp, p->children[c], &many[c]);
            if (!st) st = rebuild(p, many, out);
            for (int32_t c = 0; c < p->n_children; c++) floe_plan_release(many[c]);
            floe_free(many);
            return st;
        }
        for (int32_t c = 0; c < p->n_children && !st; c++) st = cut(sp, p->children[c], &kids[c]);
    } else {
        return floe_error(FLOE_ERR_UNSUPPORTED, "node %s is not distributed yet", p->vt->name);
    }
    if (!st) st = p->n_children == 0 ? (*out = floe_plan_retain((floe_plan *)p), NULL) : rebuild(p, kids, out);
    floe_plan_release(kids[0]);
    floe_plan_release(kids[1]);
    return st;
}

bool dist_plan_contains(const floe_plan *p, const char *name) {
    if (is(p, name)) return true;
    for (int32_t c = 0; c < p->n_children; c++)
        if (dist_plan_contains(p->children[c], name)) return true;
    return false;
}

/* Does the subtree have a leaf other than an exchange source? */
static bool reads_storage(const floe_plan *p) {
    if (p->n_children == 0) return !dist_is_exchange_source(p);
    for (int32_t c = 0; c < p->n_children; c++)
        if (reads_storage(p->children[c])) return true;
    return false;
}

floe_status dist_split_stages(const floe_plan *plan, dist_stages **out) {
    *out = NULL;
    if (floe_plan_partitions(plan) != 1)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a distributed plan must have one output partition, not %d",
                          floe_plan_partitions(plan));
    splitter sp = {floe_calloc(1, sizeof(dist_stages))};
    if (!sp.s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "splitting stages");
    floe_plan *root = NULL;
    floe_status st = cut(&sp, plan, &root);
    if (!st && reads_storage(root)) {
        /* Rank 0 coordinates: a last stage that would scan runs on a
         * worker instead, gathered to rank 0. */
        dist_route gather;
        memset(&gather, 0, sizeof gather);
        gather.kind = DIST_ROUTE_GATHER;
        gather.n_out = 1;
        int32_t id;
        floe_schema *schema = floe_type_retain(root->schema);
        st = add_stage(&sp, root, &gather, false, &id);
        root = NULL;
        if (!st) st = dist_exchange_source(schema, id, 1, &root);
        floe_type_release(schema);
    }
    if (!st) {
        dist_route none;
        memset(&none, 0, sizeof none);
        none.kind = DIST_ROUTE_GATHER;
        none.n_out = 1;
        int32_t id;
        st = add_stage(&sp, root, &none, false, &id);
    }
    /* The commit of a write runs once, on rank 0: it must be in the last
     * stage (IcebergWrite tasks run anywhere, IcebergCommit reads them all). */
    for (int32_t i = 0; !st && i + 1 < sp.s->n; i++)
        if (dist_plan_contains(sp.s->stages[i].plan, "IcebergCommit"))
            st = floe_error(FLOE_ERR_UNSUPPORTED, "an IcebergCommit below an exchange is not distributed");
    if (st) {
        dist_stages_free(sp.s);
        return st;
    }
    *out = sp.s;
    return NULL;
}

void dist_route_clear(dist_route *r) {
    for (int32_t k = 0; k < r->n_keys; k++) floe_expr_release(r->keys[k]);
    floe_free(r->keys);
    memset(r, 0, sizeof *r);
}

const char *dist_route_name(dist_route_kind k) {
    switch (k) {
    case DIST_ROUTE_GATHER: return "gather";
    case DIST_ROUTE_HASH: return "hash";
    case DIST_ROUTE_ROUND_ROBIN: return "round-robin";
    default: return "identity";
    }
}

floe_status floe_dist_explain_stages(const floe_plan *plan, floe_buf *out) {
    dist_stages *s = NULL;
    FLOE_TRY(dist_split_stages(plan, &s));
    floe_status st = NULL;
    for (int32_t i = 0; i < s->n && !st; i++) {
        const dist_stage *g = &s->stages[i];
        bool root = i == s->n - 1;
        st = floe_buf_printf(out, "Stage %d: %d task%s", g->id, g->plan->n_partitions,
                             g->plan->n_partitions == 1 ? "" : "s");
        if (!st && root) st = floe_buf_append_str(out, " on rank 0 (result)\n");
        if (!st && !root)
            st = floe_buf_printf(out, " on workers, %s%s into %d partition%s of exchange %d\n",
                                 g->broadcast ? "broadcast " : "", dist_route_name(g->route.kind), g->route.n_out,
                                 g->route.n_out == 1 ? "" : "s", g->id);
        floe_buf sub = FLOE_BUF_INIT;
        if (!st) st = floe_plan_explain(g->plan, &sub);
        /* indent the stage's plan by two spaces */
        for (const char *l = floe_buf_cstr(&sub); !st && l && *l;) {
            const char *nl = strchr(l, '\n');
            size_t n = nl ? (size_t)(nl - l) : strlen(l);
            st = floe_buf_append_str(out, "  ");
            if (!st) st = floe_buf_append(out, l, n);
            if (!st) st = floe_buf_append_byte(out, '\n');
            l = nl ? nl + 1 : NULL;
        }
        floe_buf_free(&sub);
    }
    dist_stages_free(s);
    return st;
}
