/*
 * bind_grouping.c — GROUP BY GROUPING SETS / ROLLUP / CUBE / () and
 * GROUPING(...), as PostgreSQL 15 expands and evaluates them.
 *
 * The GROUP BY list becomes a list of grouping sets over the distinct key
 * expressions (a set is a bitmask of keys): each top-level item gives a
 * list of sets — an expression or (a, b) one set, ROLLUP(u1..un) the n+1
 * prefixes, CUBE(u1..un) all 2^n subsets, GROUPING SETS (...) the
 * concatenation of its items' lists, () the empty set — and the lists are
 * crossed (GROUP BY a, ROLLUP(b) = (a, b), (a)).  Duplicate sets stay
 * (each gives its own rows) unless GROUP BY DISTINCT.
 *
 * The plan computes every set in one pass over the input: an Expand
 * (exec/basic/expand.c) emits each input batch once per set, with the keys
 * not in the set NULL and the set's grouping id appended, and the
 * ordinary aggregate groups by (keys, id).  The aggregates' arguments are
 * computed below the Expand ("pass" columns), so they see the original
 * values of rolled-up keys (SELECT a, sum(a) ... ROLLUP(a): the total's
 * sum is of every a).  The id is (ordinal among equal sets) << n_keys |
 * (bitmask of rolled-up keys): GROUPING(args) is read from its low bits,
 * and the ordinal keeps duplicate sets apart.
 */
#include <string.h>

#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_expr_internal.h"
#include "sql/bind_query_internal.h"
#include "sql/pgnode.h"

enum {
    GSET_MAX_KEYS = 48,   /* distinct key expressions (id bits: keys + ordinal) */
    GSET_MAX_SETS = 4096, /* as PostgreSQL                                        */
    GSET_MAX_CUBE = 12,   /* as PostgreSQL                                        */
};

typedef struct gset_list {
    uint64_t *v; /* bit i set: key i grouped */
    int32_t n, cap;
} gset_list;

typedef struct gset_ctx {
    bind_ectx *c;
    const sel_item *items;
    int32_t n_items;
    floe_expr **groups; /* GSET_MAX_KEYS + 1 slots */
    int32_t n_groups;
} gset_ctx;

static floe_status list_add(gset_ctx *g, gset_list *l, uint64_t m, int32_t loc) {
    if (l->n >= GSET_MAX_SETS)
        return bind_error(g->c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "too many grouping sets present (maximum %d)",
                          GSET_MAX_SETS);
    if (l->n == l->cap) {
        int32_t cap = l->cap ? l->cap * 2 : 8;
        uint64_t *nv = floe_realloc(l->v, (size_t)cap * sizeof *nv);
        if (!nv) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->n++] = m;
    return NULL;
}

static bool is_implicit_row(const json_t *node) {
    json_t *r = floe_pg_as(node, "RowExpr");
    const char *f = floe_pg_get_str(r, "row_format");
    return r && f && !strcmp(f, "COERCE_IMPLICIT_CAST");
}

/* One key expression: its bit. */
static floe_status key_bit(gset_ctx *g, const json_t *node, uint64_t *bit) {
    if (g->n_groups >= GSET_MAX_KEYS) {
        /* Is it one of the keys already?  Otherwise there is no room. */
        floe_expr *spare[GSET_MAX_KEYS + 1];
        memcpy(spare, g->groups, sizeof spare);
        int32_t n = g->n_groups, idx = -1;
        FLOE_TRY(bind_group_key(g->c, node, g->items, g->n_items, spare, &n, &idx));
        if (n > g->n_groups) {
            floe_expr_release(spare[n - 1]);
            return bind_error(g->c->s, floe_pg_location(node), FLOE_ERR_UNSUPPORTED,
                              "grouping sets over more than %d distinct expressions are not supported", GSET_MAX_KEYS);
        }
        *bit = UINT64_C(1) << idx;
        return NULL;
    }
    int32_t idx = -1;
    FLOE_TRY(bind_group_key(g->c, node, g->items, g->n_items, g->groups, &g->n_groups, &idx));
    *bit = UINT64_C(1) << idx;
    return NULL;
}

/* An element of ROLLUP / CUBE or a plain item: an expression or (a, b). */
static floe_status unit_of(gset_ctx *g, const json_t *node, uint64_t *m) {
    *m = 0;
    if (is_implicit_row(node)) {
        json_t *args = floe_pg_get(floe_pg_node_body(node), "args");
        for (int32_t i = 0; i < floe_pg_list_len(args); i++) {
            uint64_t b;
            FLOE_TRY(key_bit(g, floe_pg_list_at(args, i), &b));
            *m |= b;
        }
        return NULL;
    }
    if (floe_pg_as(node, "GroupingSet"))
        return bind_error(g->c->s, floe_pg_location(node), FLOE_ERR_SYNTAX,
                          "a grouping set cannot be nested here");
    return key_bit(g, node, m);
}

/* The sets one GROUP BY item (or an item of GROUPING SETS) stands for,
 * appended to *out. */
static floe_status expand_item(gset_ctx *g, const json_t *node, gset_list *out) {
    json_t *gs = floe_pg_as(node, "GroupingSet");
    int32_t loc = floe_pg_location(node);
    if (!gs) {
        uint64_t m;
        FLOE_TRY(unit_of(g, node, &m));
        return list_add(g, out, m, loc);
    }
    const char *kind = floe_pg_get_str(gs, "kind");
    json_t *content = floe_pg_get(gs, "content");
    int32_t n = floe_pg_list_len(content);
    if (!kind || !strcmp(kind, "GROUPING_SET_EMPTY")) return list_add(g, out, 0, loc);
    if (!strcmp(kind, "GROUPING_SET_SETS")) {
        for (int32_t i = 0; i < n; i++) FLOE_TRY(expand_item(g, floe_pg_list_at(content, i), out));
        return NULL;
    }
    if (!strcmp(kind, "GROUPING_SET_CUBE") && n > GSET_MAX_CUBE)
        return bind_error(g->c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "CUBE is limited to %d elements", GSET_MAX_CUBE);
    uint64_t units[GSET_MAX_SETS];
    if (n >= GSET_MAX_SETS)
        return bind_error(g->c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "too many grouping sets present (maximum %d)",
                          GSET_MAX_SETS);
    for (int32_t i = 0; i < n; i++) FLOE_TRY(unit_of(g, floe_pg_list_at(content, i), &units[i]));
    if (!strcmp(kind, "GROUPING_SET_SIMPLE")) {
        uint64_t m = 0;
        for (int32_t i = 0; i < n; i++) m |= units[i];
        return list_add(g, out, m, loc);
    }
    if (!strcmp(kind, "GROUPING_SET_ROLLUP")) {
        /* (u1..un), (u1..un-1), ..., () */
        for (int32_t k = n; k >= 0; k--) {
            uint64_t m = 0;
            for (int32_t i = 0; i < k; i++) m |= units[i];
            FLOE_TRY(list_add(g, out, m, loc));
        }
        return NULL;
    }
    if (!strcmp(kind, "GROUPING_SET_CUBE")) {
        /* Every subset, the full one first. */
        for (uint32_t s = (1u << n); s-- > 0;) {
            uint64_t m = 0;
            for (int32_t i = 0; i < n; i++)
                if (s & (1u << i)) m |= units[i];
            FLOE_TRY(list_add(g, out, m, loc));
        }
        return NULL;
    }
    return bind_error(g->c->s, loc, FLOE_ERR_UNSUPPORTED, "grouping set kind %s is not supported", kind);
}

bool bind_group_has_sets(const json_t *body) {
    if (floe_pg_get_bool(body, "groupDistinct")) return true;
    json_t *gl = floe_pg_get(body, "groupClause");
    for (int32_t i = 0; i < floe_pg_list_len(gl); i++) {
        json_t *g = floe_pg_list_at(gl, i);
        if (floe_pg_as(g, "GroupingSet") || is_implicit_row(g)) return true;
    }
    return false;
}

floe_status bind_grouping_sets(bind_ectx *c, const json_t *body, const sel_item *items, int32_t n_items,
                               floe_expr ***groups, int32_t *n_groups, bind_grouping *out) {
    memset(out, 0, sizeof *out);
    out->g.id_column = -1;
    *groups = NULL;
    *n_groups = 0;
    gset_ctx g = {.c = c, .items = items, .n_items = n_items};
    g.groups = floe_calloc(GSET_MAX_KEYS + 1, sizeof *g.groups);
    gset_list sets = {0}, item = {0}, next = {0};
    floe_status st = g.groups ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    json_t *gl = floe_pg_get(body, "groupClause");
    if (!st) st = list_add(&g, &sets, 0, -1);
    /* The cross product of the items' lists, in order. */
    for (int32_t i = 0; i < floe_pg_list_len(gl) && !st; i++) {
        json_t *node = floe_pg_list_at(gl, i);
        item.n = 0;
        next.n = 0;
        st = expand_item(&g, node, &item);
        for (int32_t a = 0; a < sets.n && !st; a++)
            for (int32_t b = 0; b < item.n && !st; b++) st = list_add(&g, &next, sets.v[a] | item.v[b], floe_pg_location(node));
        if (!st) {
            gset_list t = sets;
            sets = next;
            next = t;
        }
    }
    floe_free(item.v);
    floe_free(next.v);
    if (!st && floe_pg_get_bool(body, "groupDistinct")) {
        int32_t k = 0;
        for (int32_t i = 0; i < sets.n; i++) {
            bool seen = false;
            for (int32_t j = 0; j < k && !seen; j++) seen = sets.v[j] == sets.v[i];
            if (!seen) sets.v[k++] = sets.v[i];
        }
        sets.n = k;
    }
    int32_t nk = g.n_groups;
    uint64_t all = nk ? (UINT64_C(1) << nk) - 1 : 0;
    if (!st && !(sets.n == 1 && sets.v[0] == all)) {
        /* Real grouping sets (one set of every key is plain GROUP BY). */
        out->masks = floe_calloc((size_t)sets.n, sizeof *out->masks);
        out->ids = floe_calloc((size_t)sets.n, sizeof *out->ids);
        if (!out->masks || !out->ids) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0; i < sets.n && !st; i++) {
            uint64_t rolled = all & ~sets.v[i];
            int64_t ordinal = 0;
            for (int32_t j = 0; j < i; j++) ordinal += out->masks[j] == rolled;
            out->masks[i] = rolled;
            out->ids[i] = (int64_t)((uint64_t)ordinal << nk | rolled);
            if (rolled == all) out->has_empty = true;
        }
        if (!st) {
            out->n_sets = sets.n;
            out->g.sets = true;
        }
    }
    floe_free(sets.v);
    if (st) {
        for (int32_t i = 0; i < g.n_groups; i++) floe_expr_release(g.groups[i]);
        floe_free(g.groups);
        bind_grouping_clear(out);
        return st;
    }
    out->g.keys = g.groups;
    out->g.n_keys = g.n_groups;
    *groups = g.groups;
    *n_groups = g.n_groups;
    return NULL;
}

void bind_grouping_clear(bind_grouping *gr) {
    floe_free(gr->masks);
    floe_free(gr->ids);
    memset(gr, 0, sizeof *gr);
    gr->g.id_column = -1;
}

/* ------------------------------------------------------------ GROUPING() */

floe_status bind_grouping_func(bind_ectx *c, const json_t *body, floe_expr **out) {
    *out = NULL;
    int32_t loc = (int32_t)floe_pg_get_int(body, "location", -1);
    const char *clause = c->clause ? c->clause : "this clause";
    if (!c->gsets) {
        if (!strcmp(clause, "WHERE") || !strcmp(clause, "GROUP BY") || !strcmp(clause, "JOIN/ON"))
            return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "grouping operations are not allowed in %s",
                              clause);
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT,
                          "arguments to GROUPING must be grouping expressions of the associated query level");
    }
    if (c->in_agg_arg)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "aggregate function calls cannot be nested");
    json_t *args = floe_pg_get(body, "args");
    int32_t m = floe_pg_list_len(args);
    if (m < 1 || m > 31)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "GROUPING must have fewer than 32 arguments");
    int32_t key[32];
    for (int32_t j = 0; j < m; j++) {
        json_t *a = floe_pg_list_at(args, j);
        floe_expr *e = NULL;
        FLOE_TRY(bind_expr(c, a, &e));
        key[j] = -1;
        for (int32_t k = 0; k < c->gsets->n_keys && key[j] < 0; k++)
            if (bind_expr_equal(c->gsets->keys[k], e)) key[j] = k;
        floe_expr_release(e);
        if (key[j] < 0)
            return bind_error(c->s, floe_pg_location(a) >= 0 ? floe_pg_location(a) : loc, FLOE_ERR_INVALID_ARGUMENT,
                              "arguments to GROUPING must be grouping expressions of the associated query level");
    }
    if (!c->gsets->sets) return floe_expr_lit_int32(0, out);
    if (c->gsets->id_column < 0) {
        bind_extra x;
        memset(&x, 0, sizeof x);
        x.is_grouping_id = true;
        x.type = floe_type_retain(floe_type_primitive(FLOE_TYPE_INT64));
        int32_t idx = -1;
        floe_status st = bind_add_extra(c, &x, &idx);
        if (st) {
            floe_type_release(x.type);
            return st;
        }
        c->gsets->id_column = idx;
    }
    /* sum over j of ((id / 2^key[j]) % 2) * 2^(m-1-j), as INTEGER */
    floe_expr *id = NULL, *acc = NULL;
    floe_status st = floe_expr_column(c->gsets->id_column, &id);
    for (int32_t j = 0; j < m && !st; j++) {
        floe_expr *t = floe_expr_retain(id), *lit = NULL, *r = NULL;
        if (key[j] > 0) {
            st = floe_expr_lit_int64(INT64_C(1) << key[j], &lit);
            if (!st) st = floe_expr_arith(FLOE_ARITH_DIV, t, lit, &r);
            floe_expr_release(lit);
            floe_expr_release(t);
            t = r;
            r = NULL;
            lit = NULL;
        }
        if (!st) st = floe_expr_lit_int64(2, &lit);
        if (!st) st = floe_expr_arith(FLOE_ARITH_MOD, t, lit, &r);
        floe_expr_release(lit);
        floe_expr_release(t);
        t = r;
        r = NULL;
        lit = NULL;
        if (!st && m - 1 - j > 0) {
            st = floe_expr_lit_int64(INT64_C(1) << (m - 1 - j), &lit);
            if (!st) st = floe_expr_arith(FLOE_ARITH_MUL, t, lit, &r);
            floe_expr_release(lit);
            floe_expr_release(t);
            t = r;
        }
        if (!st && acc) {
            floe_expr *sum = NULL;
            st = floe_expr_arith(FLOE_ARITH_ADD, acc, t, &sum);
            floe_expr_release(acc);
            floe_expr_release(t);
            acc = sum;
        } else if (!st) {
            acc = t;
        } else {
            floe_expr_release(t);
        }
    }
    floe_expr_release(id);
    if (!st) st = floe_expr_cast(acc, floe_type_primitive(FLOE_TYPE_INT32), out);
    floe_expr_release(acc);
    if (!st && (st = bind_check(c, *out, loc))) {
        floe_expr_release(*out);
        *out = NULL;
    }
    return st;
}

/* ---------------------------------------------- Expand under the aggregate */

/* Add `e` to the Expand's pass columns ex[0..*n) unless an equal one is
 * there (names agg_arg_<k>). */
static floe_status pass_add(floe_expr **ex, char **en, int32_t *n, floe_expr *e) {
    if (!e) return NULL;
    for (int32_t k = 0; k < *n; k++)
        if (bind_expr_equal(ex[k], e)) return NULL;
    char nm[32];
    snprintf(nm, sizeof nm, "agg_arg_%d", (int)*n);
    ex[*n] = floe_expr_retain(e);
    en[*n] = floe_strdup(nm);
    if (!en[(*n)++]) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    return NULL;
}

/* Replace *e (an expression over the Expand's input) by a reference to its
 * pass column among pass[0..n). */
static floe_status pass_ref(floe_expr *const *pass, int32_t n, floe_expr **e) {
    if (!*e) return NULL;
    for (int32_t k = 0; k < n; k++) {
        if (!bind_expr_equal(pass[k], *e)) continue;
        floe_expr *col = NULL;
        FLOE_TRY(floe_expr_column(k, &col));
        floe_expr_release(*e);
        *e = col;
        return NULL;
    }
    return floe_error(FLOE_ERR_INTERNAL, "binding GROUPING SETS: an aggregate's expression is not passed through");
}

floe_status bind_grouping_aggregate(bind_ectx *c, floe_lplan **plan, floe_expr *const *groups, int32_t n_groups,
                                    const bind_grouping *gr, int32_t **extra_col) {
    int32_t n_aggs = 0, n_agg_exprs = 0;
    for (int32_t i = 0; i < c->n_extras; i++) {
        if (!c->extras[i].is_agg) continue;
        n_aggs++;
        n_agg_exprs += 3 + c->extras[i].agg.n_order; /* arg, arg2, filter, ORDER BY */
    }
    /* The empty sets' extra rows (NULL in every column but the id) must
     * count for no aggregate: every call gets FILTER (WHERE agg_rows), a
     * pass column that is true in real rows and NULL in those — so count(*)
     * of an empty set over no rows is 0 and any aggregate sees only real
     * rows, whatever it does with NULLs. */
    bool marker = gr->has_empty && n_aggs > 0;
    int32_t cap = n_agg_exprs + 1 + n_groups;
    floe_expr **ex = floe_calloc((size_t)cap + 1, sizeof *ex);
    char **en = floe_calloc((size_t)cap + 2, sizeof *en);
    floe_field *f = floe_calloc((size_t)cap + 2, sizeof *f);
    *extra_col = floe_calloc((size_t)c->n_extras + 1, sizeof **extra_col);
    floe_status st = ex && en && f && *extra_col ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    int32_t n_pass = 0, n_f = 0;
    /* Pass columns: every distinct expression an aggregate reads (its
     * arguments, FILTER, ORDER BY keys), evaluated once below the Expand so
     * it sees the original values of rolled-up keys; then the marker. */
    for (int32_t i = 0; i < c->n_extras && !st; i++) {
        if (!c->extras[i].is_agg) continue;
        const floe_agg_call *a = &c->extras[i].agg;
        st = pass_add(ex, en, &n_pass, a->arg);
        if (!st) st = pass_add(ex, en, &n_pass, a->arg2);
        if (!st) st = pass_add(ex, en, &n_pass, a->filter);
        for (int32_t k = 0; k < a->n_order && !st; k++) st = pass_add(ex, en, &n_pass, a->order[k].expr);
    }
    int32_t marker_col = -1;
    if (!st && marker) {
        marker_col = n_pass;
        st = floe_expr_lit_bool(true, &ex[n_pass]);
        en[n_pass] = floe_strdup("agg_rows");
        if (!st && !en[n_pass]) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        n_pass++;
    }
    /* The keys. */
    for (int32_t i = 0; i < n_groups && !st; i++) {
        char nm[32];
        const char *name = nm;
        if (groups[i]->kind == FLOE_EXPR_COLUMN && groups[i]->column < c->sc->n) name = c->sc->cols[groups[i]->column].name;
        else snprintf(nm, sizeof nm, "group_%d", (int)i);
        ex[n_pass + i] = floe_expr_retain(groups[i]);
        en[n_pass + i] = floe_strdup(name);
        if (!en[n_pass + i]) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    int32_t n_ex = n_pass + n_groups;
    for (int32_t i = 0; i < n_ex && !st; i++) {
        floe_type *t = NULL;
        st = floe_expr_type(ex[i], (*plan)->schema, &t);
        if (!st) st = floe_field_init(&f[i], en[i], t, true, -1);
        floe_type_release(t);
        n_f = i + 1;
    }
    if (!st) {
        st = floe_field_init(&f[n_ex], "grouping_id", floe_type_primitive(FLOE_TYPE_INT64), false, -1);
        n_f = n_ex + 1;
    }
    floe_schema *es = NULL;
    floe_lplan *xp = NULL;
    if (!st) st = floe_type_struct(f, n_ex + 1, &es);
    for (int32_t i = 0; i < n_f; i++) floe_field_clear(&f[i]);
    if (!st) {
        floe_lplan *in[1] = {*plan};
        st = floe_lplan_new(FLOE_L_EXPAND, es, in, 1, &xp);
        *plan = xp;
    }
    floe_type_release(es);
    if (!st) {
        xp->exprs = ex;
        xp->names = en;
        xp->n_exprs = n_ex;
        ex = NULL;
        en = NULL;
        xp->n_gset_keys = n_groups;
        xp->n_gsets = gr->n_sets;
        xp->gset_masks = floe_calloc((size_t)gr->n_sets, sizeof *xp->gset_masks);
        xp->gset_ids = floe_calloc((size_t)gr->n_sets, sizeof *xp->gset_ids);
        if (!xp->gset_masks || !xp->gset_ids) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        else {
            memcpy(xp->gset_masks, gr->masks, (size_t)gr->n_sets * sizeof *xp->gset_masks);
            memcpy(xp->gset_ids, gr->ids, (size_t)gr->n_sets * sizeof *xp->gset_ids);
            xp->gset_empty_rows = gr->has_empty;
        }
    }
    if (ex) bind_expr_list_free(ex, n_ex);
    for (int32_t i = 0; en && i < n_ex; i++) floe_free(en[i]);
    floe_free(en);

    /* The aggregate over the Expand: keys, id, then the calls. */
    int32_t ng = n_groups + 1;
    floe_field *af = floe_calloc((size_t)(ng + n_aggs) + 1, sizeof *af);
    if (!st && !af) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    int32_t n_af = 0;
    for (int32_t i = 0; i < ng && !st; i++) {
        const floe_field *src = floe_schema_field(xp->schema, n_pass + i);
        st = floe_field_init(&af[i], src->name, src->type, src->nullable, -1);
        n_af = i + 1;
    }
    for (int32_t i = 0, a = 0; i < c->n_extras && !st; i++) {
        if (!c->extras[i].is_agg) continue;
        bool nullable = c->extras[i].agg.fn != FLOE_AGG_COUNT && c->extras[i].agg.fn != FLOE_AGG_COUNT_STAR;
        st = floe_field_init(&af[ng + a], c->extras[i].agg.name, c->extras[i].type, nullable, -1);
        n_af = ng + ++a;
    }
    floe_schema *as = NULL;
    floe_lplan *ap = NULL;
    if (!st) st = floe_type_struct(af, ng + n_aggs, &as);
    for (int32_t i = 0; i < n_af; i++) floe_field_clear(&af[i]);
    floe_free(af);
    if (!st) {
        floe_lplan *in[1] = {*plan};
        st = floe_lplan_new(FLOE_L_AGGREGATE, as, in, 1, &ap);
        *plan = ap;
    }
    floe_type_release(as);
    if (!st) {
        ap->exprs = floe_calloc((size_t)ng, sizeof *ap->exprs);
        ap->names = floe_calloc((size_t)ng, sizeof *ap->names);
        ap->aggs = floe_calloc((size_t)n_aggs + 1, sizeof *ap->aggs);
        if (!ap->exprs || !ap->names || !ap->aggs) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    for (int32_t i = 0; i < ng && !st; i++) {
        st = floe_expr_column(n_pass + i, &ap->exprs[i]);
        if (!st) {
            ap->n_exprs = i + 1;
            ap->names[i] = floe_strdup(floe_schema_field(ap->schema, i)->name);
            if (!ap->names[i]) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        }
    }
    for (int32_t i = 0; i < c->n_extras && !st; i++) {
        if (!c->extras[i].is_agg) continue;
        floe_agg_call *call = &ap->aggs[ap->n_aggs];
        *call = c->extras[i].agg; /* takes the extra's expressions and names */
        memset(&c->extras[i].agg, 0, sizeof c->extras[i].agg);
        ap->n_aggs++;
        st = pass_ref(xp->exprs, n_pass, &call->arg);
        if (!st) st = pass_ref(xp->exprs, n_pass, &call->arg2);
        if (!st) st = pass_ref(xp->exprs, n_pass, &call->filter);
        for (int32_t k = 0; k < call->n_order && !st; k++) st = pass_ref(xp->exprs, n_pass, &call->order[k].expr);
        if (!st && marker_col >= 0) {
            floe_expr *m = NULL, *both = NULL;
            st = floe_expr_column(marker_col, &m);
            if (!st && call->filter) st = floe_expr_and(m, call->filter, &both);
            if (!st) {
                floe_expr_release(call->filter);
                call->filter = both ? both : floe_expr_retain(m);
            }
            floe_expr_release(m);
        }
    }
    /* Where each extra is above: the id after the keys, aggregates after
     * it, subqueries (joined by the caller) last. */
    for (int32_t i = 0, a = 0, q = 0; i < c->n_extras && !st; i++) {
        if (c->extras[i].is_agg) (*extra_col)[i] = ng + a++;
        else if (c->extras[i].is_grouping_id) (*extra_col)[i] = n_groups;
        else if (c->extras[i].is_srf) (*extra_col)[i] = -1; /* bind_srf_apply */
        else (*extra_col)[i] = ng + n_aggs + q++;
    }
    floe_free(f);
    return st;
}
