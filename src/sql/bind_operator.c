/*
 * bind_operator.c — binding operator expressions: comparisons and
 * arithmetic with PostgreSQL's implicit conversions, date arithmetic and
 * constant INTERVALs, LIKE / ILIKE, IN lists, IS [NOT] DISTINCT FROM,
 * NULLIF, BETWEEN [SYMMETRIC]; CASE (branch values unified to one type)
 * and CAST.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_expr_internal.h"
#include "sql/pg_catalog_tables.h"
#include "sql/pgnode.h"

/* ------------------------------------------------------- operators */

floe_status bind_two(bind_ectx *c, const json_t *a, const json_t *b, floe_expr **ea, floe_expr **eb) {
    *ea = *eb = NULL;
    FLOE_TRY(bind_expr(c, a, ea));
    floe_status st = bind_expr(c, b, eb);
    if (st) {
        floe_expr_release(*ea);
        *ea = NULL;
    }
    return st;
}

floe_status bind_make_cmp(bind_ectx *c, floe_cmp_op op, floe_expr *l, floe_expr *r, int32_t loc, floe_expr **out) {
    floe_expr *L = floe_expr_retain(l), *R = floe_expr_retain(r);
    floe_status st = bind_unify_pair(c, &L, &R, loc);
    floe_type *lt = NULL;
    if (!st) st = bind_type_of(c, L, &lt);
    floe_type *rt = NULL;
    if (!st && lt->id == FLOE_TYPE_LIST) st = bind_type_of(c, R, &rt);
    if (!st && rt && !floe_type_compatible(lt, rt)) {
        floe_buf a = FLOE_BUF_INIT, b = FLOE_BUF_INIT;
        static const char *const ops[] = {"=", "<>", "<", "<=", ">", ">="};
        st = floe_type_to_string(lt, &a);
        if (!st) st = floe_type_to_string(rt, &b);
        if (!st)
            st = bind_error(c->s, loc, FLOE_ERR_TYPE, "operator does not exist: %s %s %s (cast one side)",
                            floe_buf_cstr(&a), ops[op], floe_buf_cstr(&b));
        floe_buf_free(&a);
        floe_buf_free(&b);
    }
    floe_type_release(rt);
    if (!st && lt->id == FLOE_TYPE_LIST) {
        /* list op list: PostgreSQL's array order (func_array_ops.c) */
        floe_expr *k = NULL;
        st = floe_expr_lit_int32((int32_t)op, &k);
        floe_expr *args[3] = {L, R, k};
        if (!st) st = floe_expr_call("__list_cmp", args, 3, out);
        floe_expr_release(k);
    } else if (!st) {
        st = floe_expr_cmp(op, L, R, out);
    }
    floe_type_release(lt);
    floe_expr_release(L);
    floe_expr_release(R);
    if (!st && (st = bind_check(c, *out, loc))) {
        floe_expr_release(*out);
        *out = NULL;
    }
    return st;
}

floe_status bind_make_call(bind_ectx *c, const char *name, floe_expr *const *args, int32_t n, int32_t loc,
                             floe_expr **out) {
    FLOE_TRY(bind_at(c->s, loc, floe_expr_call(name, args, n, out)));
    floe_status st = bind_check(c, *out, loc);
    if (st) {
        floe_expr_release(*out);
        *out = NULL;
    }
    return st;
}

static int cmp_op_of(const char *op) {
    if (!strcmp(op, "=")) return FLOE_CMP_EQ;
    if (!strcmp(op, "<>") || !strcmp(op, "!=")) return FLOE_CMP_NE;
    if (!strcmp(op, "<")) return FLOE_CMP_LT;
    if (!strcmp(op, "<=")) return FLOE_CMP_LE;
    if (!strcmp(op, ">")) return FLOE_CMP_GT;
    if (!strcmp(op, ">=")) return FLOE_CMP_GE;
    return -1;
}

static int arith_op_of(const char *op) {
    if (!strcmp(op, "+")) return FLOE_ARITH_ADD;
    if (!strcmp(op, "-")) return FLOE_ARITH_SUB;
    if (!strcmp(op, "*")) return FLOE_ARITH_MUL;
    if (!strcmp(op, "/")) return FLOE_ARITH_DIV;
    if (!strcmp(op, "%")) return FLOE_ARITH_MOD;
    return -1;
}

/* LIKE / ILIKE, with an optional ESCAPE (rexpr = like_escape(p, e)). */
static floe_status bind_like(bind_ectx *c, const json_t *body, bool ilike, bool negate, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(body, "location", -1);
    json_t *rexpr = floe_pg_get(body, "rexpr");
    json_t *fc = floe_pg_as(rexpr, "FuncCall");
    floe_expr *args[3] = {NULL, NULL, NULL};
    int32_t n = 2;
    floe_status st = bind_expr(c, floe_pg_get(body, "lexpr"), &args[0]);
    if (!st && fc) {
        floe_buf fn = FLOE_BUF_INIT;
        st = floe_pg_name_list(floe_pg_get(fc, "funcname"), &fn);
        bool esc = !st && strstr(floe_buf_cstr(&fn), "like_escape") != NULL;
        floe_buf_free(&fn);
        if (esc) {
            json_t *fa = floe_pg_get(fc, "args");
            st = bind_two(c, floe_pg_list_at(fa, 0), floe_pg_list_at(fa, 1), &args[1], &args[2]);
            n = 3;
        } else if (!st) {
            st = bind_expr(c, rexpr, &args[1]);
        }
    } else if (!st) {
        st = bind_expr(c, rexpr, &args[1]);
    }
    floe_expr *call = NULL;
    if (!st) st = bind_make_call(c, ilike ? "ilike" : "like", args, n, loc, &call);
    if (!st && negate) {
        st = floe_expr_not(call, out);
        floe_expr_release(call);
    } else if (!st) {
        *out = call;
    }
    for (int i = 0; i < 3; i++) floe_expr_release(args[i]);
    return st;
}

/* s ~ p, s ~* p, s !~ p, s !~* p and s [NOT] SIMILAR TO p (whose pattern
 * arrives as similar_to_escape(p [, e]), a registry function): regexp_like. */
static floe_status bind_regex_op(bind_ectx *c, const json_t *body, bool icase, bool negate, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(body, "location", -1);
    floe_expr *args[3] = {NULL, NULL, NULL}, *call = NULL;
    floe_status st = bind_two(c, floe_pg_get(body, "lexpr"), floe_pg_get(body, "rexpr"), &args[0], &args[1]);
    if (!st && icase) st = floe_expr_lit_string("i", &args[2]);
    if (!st) st = bind_make_call(c, "regexp_like", args, icase ? 3 : 2, loc, &call);
    if (!st && negate) {
        st = floe_expr_not(call, out);
        floe_expr_release(call);
    } else if (!st) {
        *out = call;
    }
    for (int i = 0; i < 3; i++) floe_expr_release(args[i]);
    return st;
}

/* The json operators.  Over text (json / jsonb values are strings holding
 * JSON text): -> ->> #> #>> ? ?| ?& @> <@ as func_json.c's functions; over
 * a variant, -> and ->> are func_variant.c's variant_extract(_text). */
static floe_status bind_json_op(bind_ectx *c, const json_t *body, const char *op, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(body, "location", -1);
    floe_expr *args[2] = {NULL, NULL};
    floe_type *lt = NULL;
    FLOE_TRY(bind_two(c, floe_pg_get(body, "lexpr"), floe_pg_get(body, "rexpr"), &args[0], &args[1]));
    floe_status st = bind_type_of(c, args[0], &lt);
    static const struct {
        const char *op, *fn, *variant_fn;
    } ops[] = {{"->", "__json_get", "variant_extract"},
               {"->>", "__json_get_text", "variant_extract_text"},
               {"#>", "__json_path", NULL},
               {"#>>", "__json_path_text", NULL},
               {"?", "__jsonb_exists", NULL},
               {"?|", "__jsonb_exists_any", NULL},
               {"?&", "__jsonb_exists_all", NULL},
               {"@>", "__jsonb_contains", NULL},
               {"<@", "__jsonb_contained", NULL},
               {"#-", "__jsonb_delete_path", NULL}};
    /* The JSON operators read json / jsonb text or a variant: on any other
     * type name the operator and the type, not the internal function. */
    if (!st && lt->id != FLOE_TYPE_STRING && lt->id != FLOE_TYPE_VARIANT && lt->id != FLOE_TYPE_NULL) {
        floe_buf b;
        floe_buf_init(&b);
        st = floe_type_to_string(lt, &b);
        if (!st)
            st = bind_error(c->s, loc, FLOE_ERR_TYPE, "operator does not exist: %s %s (it takes json, jsonb or variant)",
                            floe_buf_cstr(&b), op);
        floe_buf_free(&b);
    }
    for (size_t i = 0; !st && i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(op, ops[i].op)) continue;
        const char *fn = lt->id == FLOE_TYPE_VARIANT ? ops[i].variant_fn : ops[i].fn;
        if (!fn) st = bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "operator %s is not supported for variant", op);
        else st = bind_make_call(c, fn, args, 2, loc, out);
        break;
    }
    floe_type_release(lt);
    floe_expr_release(args[0]);
    floe_expr_release(args[1]);
    return st;
}

/* IS [NOT] DISTINCT FROM as CASE over the NULL cases. */
static floe_status make_distinct(bind_ectx *c, floe_expr *a, floe_expr *b, bool not_distinct, int32_t loc,
                                 floe_expr **out) {
    floe_expr *an = NULL, *bn = NULL, *bnn = NULL, *eq = NULL, *res = NULL, *lit = NULL;
    floe_status st = floe_expr_is_null(a, false, &an);
    if (!st) st = floe_expr_is_null(b, false, &bn);
    if (!st) st = floe_expr_is_null(b, !not_distinct ? true : false, &bnn);
    if (!st) st = bind_make_cmp(c, not_distinct ? FLOE_CMP_EQ : FLOE_CMP_NE, a, b, loc, &eq);
    if (!st) st = floe_expr_lit_bool(!not_distinct, &lit);
    if (!st) {
        /* CASE WHEN a IS NULL THEN (b IS [NOT] NULL) WHEN b IS NULL THEN lit ELSE a op b END */
        floe_expr *whens[2] = {an, bn}, *thens[2] = {bnn, lit};
        st = floe_expr_case(whens, thens, 2, eq, &res);
    }
    floe_expr_release(an);
    floe_expr_release(bn);
    floe_expr_release(bnn);
    floe_expr_release(eq);
    floe_expr_release(lit);
    if (!st) *out = res;
    return st;
}

static floe_status bind_in_list(bind_ectx *c, const json_t *body, bool negate, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(body, "location", -1);
    json_t *items = floe_pg_get(body, "rexpr");
    if (floe_pg_as(items, "List")) items = floe_pg_get(floe_pg_as(items, "List"), "items");
    int32_t n = floe_pg_list_len(items);
    json_t *row = floe_pg_as(floe_pg_get(body, "lexpr"), "RowExpr");
    if (row) return bind_row_in_list(c, row, items, negate, loc, out);
    floe_expr *value = NULL, *res = NULL;
    floe_expr **ev = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
    if (!ev) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    floe_status st = bind_expr(c, floe_pg_get(body, "lexpr"), &value);
    floe_type *vt = NULL;
    if (!st) st = bind_type_of(c, value, &vt);
    for (int32_t i = 0; i < n && !st; i++) {
        floe_expr *e = NULL;
        st = bind_expr(c, floe_pg_list_at(items, i), &e);
        if (!st) {
            if (bind_is_string_literal(e) && vt->id != FLOE_TYPE_STRING)
                st = bind_coerce(c, e, vt, floe_pg_location(floe_pg_list_at(items, i)), &ev[i]);
            else
                ev[i] = floe_expr_retain(e);
        }
        floe_expr_release(e);
    }
    if (!st) st = floe_expr_in(value, ev, n, &res);
    if (!st) st = bind_check(c, res, loc);
    if (!st && negate) {
        floe_expr *nres = NULL;
        st = floe_expr_not(res, &nres);
        floe_expr_release(res);
        res = nres;
    }
    if (!st) *out = res;
    else floe_expr_release(res);
    floe_type_release(vt);
    floe_expr_release(value);
    for (int32_t i = 0; i < n; i++) floe_expr_release(ev[i]);
    floe_free(ev);
    return st;
}

/* date ± integer (days) and date - date (days), as PostgreSQL. */
static floe_status date_arith(bind_ectx *c, int aop, floe_expr *l, floe_expr *r, int32_t loc, floe_expr **out,
                              bool *done) {
    *done = false;
    if (aop != FLOE_ARITH_ADD && aop != FLOE_ARITH_SUB) return NULL;
    floe_type *tl = NULL, *tr = NULL;
    floe_status st = bind_type_of(c, l, &tl);
    if (!st) st = bind_type_of(c, r, &tr);
    bool li = tl && (tl->id == FLOE_TYPE_INT32 || tl->id == FLOE_TYPE_INT64);
    bool ri = tr && (tr->id == FLOE_TYPE_INT32 || tr->id == FLOE_TYPE_INT64);
    bool ld = tl && tl->id == FLOE_TYPE_DATE32, rd = tr && tr->id == FLOE_TYPE_DATE32;
    if (!st && ((ld && ri) || (li && rd && aop == FLOE_ARITH_ADD))) {
        floe_expr *d = ld ? l : r, *n = ld ? r : l, *days = NULL, *zero = NULL, *zl = NULL, *zm = NULL, *ts = NULL;
        if (aop == FLOE_ARITH_SUB) {
            st = floe_expr_lit_int32(0, &zero);
            if (!st) st = floe_expr_arith(FLOE_ARITH_SUB, zero, n, &days);
        } else {
            days = floe_expr_retain(n);
        }
        if (!st) st = floe_expr_lit_int32(0, &zl);
        if (!st) st = floe_expr_lit_int64(0, &zm);
        floe_expr *args[4] = {d, zl, days, zm};
        if (!st) st = bind_make_call(c, "add_interval", args, 4, loc, &ts);
        if (!st) st = floe_expr_cast(ts, floe_type_primitive(FLOE_TYPE_DATE32), out);
        floe_expr_release(days);
        floe_expr_release(zero);
        floe_expr_release(zl);
        floe_expr_release(zm);
        floe_expr_release(ts);
        if (!st) *done = true;
    } else if (!st && ((ld && tr && tr->id == FLOE_TYPE_TIME64_US) ||
                       (rd && tl && tl->id == FLOE_TYPE_TIME64_US && aop == FLOE_ARITH_ADD))) {
        /* date + time, time + date, date - time: a timestamp */
        floe_expr *args[2] = {ld ? l : r, ld ? r : l};
        st = bind_make_call(c, aop == FLOE_ARITH_ADD ? "date_add_time" : "date_sub_time", args, 2, loc, out);
        if (!st) *done = true;
    } else if (!st && tl && tr && tl->id == FLOE_TYPE_TIME64_US && tr->id == FLOE_TYPE_TIME64_US &&
               aop == FLOE_ARITH_SUB) {
        /* time - time: an interval */
        floe_expr *args[2] = {l, r};
        st = bind_make_call(c, "time_diff", args, 2, loc, out);
        if (!st) *done = true;
    } else if (!st && ld && rd && aop == FLOE_ARITH_SUB) {
        floe_expr *unit = NULL, *diff = NULL;
        st = floe_expr_lit_string("day", &unit);
        floe_expr *args[3] = {unit, r, l};
        if (!st) st = bind_make_call(c, "date_diff", args, 3, loc, &diff);
        if (!st) st = floe_expr_cast(diff, floe_type_primitive(FLOE_TYPE_INT32), out);
        floe_expr_release(unit);
        floe_expr_release(diff);
        if (!st) *done = true;
    }
    floe_type_release(tl);
    floe_type_release(tr);
    return st;
}

/* date/timestamp ± interval: add_interval(x, months, days, micros) with
 * the parts read from the interval (a constant's right away). */
static floe_status datetime_add(bind_ectx *c, floe_expr *x, floe_expr *iv, bool negate, int32_t loc,
                                floe_expr **out) {
    floe_expr *args[4] = {x, NULL, NULL, NULL}, *niv = NULL;
    floe_status st = NULL;
    if (iv->kind == FLOE_EXPR_LITERAL && iv->literal->type->id == FLOE_TYPE_INTERVAL &&
        !floe_array_is_null(iv->literal, 0)) {
        floe_interval v;
        memcpy(&v, floe_array_get_fixed(iv->literal, 0), sizeof v);
        st = floe_expr_lit_int64(negate ? -(int64_t)v.months : v.months, &args[1]);
        if (!st) st = floe_expr_lit_int64(negate ? -(int64_t)v.days : v.days, &args[2]);
        if (!st) st = floe_expr_lit_int64(negate ? -(int64_t)v.micros : v.micros, &args[3]);
    } else {
        if (negate) st = bind_make_call(c, "interval_neg", &iv, 1, loc, &niv);
        else niv = floe_expr_retain(iv);
        static const char *const parts[3] = {"interval_months", "interval_days", "interval_micros"};
        for (int k = 0; k < 3 && !st; k++) st = bind_make_call(c, parts[k], &niv, 1, loc, &args[k + 1]);
    }
    if (!st) st = bind_make_call(c, "add_interval", args, 4, loc, out);
    for (int k = 1; k < 4; k++) floe_expr_release(args[k]);
    floe_expr_release(niv);
    return st;
}

static bool is_timestamp_id(floe_type_id t) {
    return t == FLOE_TYPE_TIMESTAMP_US || t == FLOE_TYPE_TIMESTAMP_US_TZ || t == FLOE_TYPE_TIMESTAMP_NS ||
           t == FLOE_TYPE_TIMESTAMP_NS_TZ;
}
static bool is_number_id(floe_type_id t) {
    return t == FLOE_TYPE_INT32 || t == FLOE_TYPE_INT64 || t == FLOE_TYPE_FLOAT32 || t == FLOE_TYPE_FLOAT64 ||
           t == FLOE_TYPE_DECIMAL128;
}

/* Arithmetic with an interval, and timestamp - timestamp, as PostgreSQL:
 * interval ± interval, interval * / number, number * interval,
 * date/timestamp ± interval, interval + date/timestamp, time ± interval,
 * timestamp - timestamp (an interval of days and time).  *done = false
 * when no interval or timestamp pair is involved. */
static floe_status interval_arith(bind_ectx *c, int aop, floe_expr *l, floe_expr *r, int32_t loc, floe_expr **out,
                                  bool *done) {
    *done = false;
    floe_type *tl = NULL, *tr = NULL;
    floe_status st = bind_type_of(c, l, &tl);
    if (!st) st = bind_type_of(c, r, &tr);
    if (st) goto end;
    floe_type_id a = tl->id, b = tr->id;
    bool li = a == FLOE_TYPE_INTERVAL, ri = b == FLOE_TYPE_INTERVAL;
    bool add = aop == FLOE_ARITH_ADD, sub = aop == FLOE_ARITH_SUB;
    if (!li && !ri) {
        /* timestamp - timestamp (a date beside a timestamp is one too) */
        bool lt = is_timestamp_id(a) || (a == FLOE_TYPE_DATE32 && is_timestamp_id(b));
        bool rt = is_timestamp_id(b) || (b == FLOE_TYPE_DATE32 && is_timestamp_id(a));
        if (sub && lt && rt) {
            floe_expr *L = floe_expr_retain(l), *R = floe_expr_retain(r);
            st = bind_unify_pair(c, &L, &R, loc);
            floe_expr *args[2] = {L, R};
            if (!st) st = bind_make_call(c, "timestamp_diff", args, 2, loc, out);
            floe_expr_release(L);
            floe_expr_release(R);
            *done = !st;
        }
        goto end;
    }
    *done = true;
    if (li && ri && (add || sub)) {
        floe_expr *args[2] = {l, r};
        st = bind_make_call(c, add ? "interval_add" : "interval_sub", args, 2, loc, out);
    } else if (li && is_number_id(b) && (aop == FLOE_ARITH_MUL || aop == FLOE_ARITH_DIV)) {
        floe_expr *args[2] = {l, r};
        st = bind_make_call(c, aop == FLOE_ARITH_MUL ? "interval_mul" : "interval_div", args, 2, loc, out);
    } else if (ri && is_number_id(a) && aop == FLOE_ARITH_MUL) {
        floe_expr *args[2] = {r, l};
        st = bind_make_call(c, "interval_mul", args, 2, loc, out);
    } else if (ri && (add || sub) && bind_is_string_literal(l)) {
        /* '2024-01-31' + INTERVAL '1 month': the text is a timestamp */
        floe_expr *t = NULL;
        st = bind_coerce(c, l, floe_type_primitive(FLOE_TYPE_TIMESTAMP_US), loc, &t);
        if (!st) st = datetime_add(c, t, r, sub, loc, out);
        floe_expr_release(t);
    } else if (ri && (add || sub) && (a == FLOE_TYPE_DATE32 || is_timestamp_id(a))) {
        st = datetime_add(c, l, r, sub, loc, out);
    } else if (li && add && (b == FLOE_TYPE_DATE32 || is_timestamp_id(b))) {
        st = datetime_add(c, r, l, false, loc, out);
    } else if (ri && (add || sub) && a == FLOE_TYPE_TIME64_US) {
        floe_expr *args[2] = {l, r};
        st = bind_make_call(c, add ? "time_add_interval" : "time_sub_interval", args, 2, loc, out);
    } else if (li && add && b == FLOE_TYPE_TIME64_US) {
        floe_expr *args[2] = {r, l};
        st = bind_make_call(c, "time_add_interval", args, 2, loc, out);
    } else if ((li && bind_is_string_literal(r)) || (ri && bind_is_string_literal(l))) {
        /* interval ± 'text': the text is an interval */
        floe_expr *L = floe_expr_retain(l), *R = floe_expr_retain(r);
        st = bind_unify_pair(c, &L, &R, loc);
        *done = false;
        if (!st && !bind_is_string_literal(L) && !bind_is_string_literal(R))
            st = interval_arith(c, aop, L, R, loc, out, done);
        floe_expr_release(L);
        floe_expr_release(R);
        if (!st && !*done)
            st = bind_error(c->s, loc, FLOE_ERR_TYPE, "operator does not exist: interval %s interval",
                            aop == FLOE_ARITH_MUL ? "*" : aop == FLOE_ARITH_DIV ? "/" : "%");
        *done = true;
    } else {
        static const char *const ops[] = {"+", "-", "*", "/", "%"};
        const char *on = aop >= 0 && aop < 5 ? ops[aop] : "?";
        st = bind_error(c->s, loc, FLOE_ERR_TYPE, "operator does not exist: %s %s %s",
                        floe_type_id_name(a), on, floe_type_id_name(b));
    }
end:
    floe_type_release(tl);
    floe_type_release(tr);
    return st;
}

/* Whether e is known to be jsonb: a ::jsonb cast or a function or
 * operator giving jsonb (floe keeps json text in strings, so a jsonb
 * column's values are only text). */
static bool is_jsonb_expr(const floe_expr *e) {
    static const char *const fns[] = {"__jsonb_in", "__jsonb_delete", "__jsonb_delete_path", "__jsonb_concat",
                                      "to_jsonb", "jsonb_build_object", "jsonb_build_array", "jsonb_extract_path"};
    if (!e || e->kind != FLOE_EXPR_CALL || !e->func) return false;
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (!strcmp(e->func, fns[i])) return true;
    /* -> and #> of a jsonb value are jsonb */
    return (!strcmp(e->func, "__json_get") || !strcmp(e->func, "__json_path")) && e->n_args > 0 &&
           is_jsonb_expr(e->args[0]);
}

/* jsonb - key / keys / index and jsonb || jsonb (func_jsonb_ops.c): `-` on
 * text that is not an untyped literal (text has no `-` in PostgreSQL; '5'
 * - 1 stays arithmetic), `||` where a side is known jsonb. */
static floe_status jsonb_arith(bind_ectx *c, const char *op, floe_expr *l, floe_expr *r, int32_t loc, floe_expr **out,
                               bool *done) {
    *done = false;
    bool minus = !strcmp(op, "-"), cat = !strcmp(op, "||");
    if (!minus && !cat) return NULL;
    floe_type *lt = NULL, *rt = NULL;
    floe_status st = bind_type_of(c, l, &lt);
    if (!st) st = bind_type_of(c, r, &rt);
    const char *fn = NULL;
    if (!st && minus && lt->id == FLOE_TYPE_STRING && !bind_is_string_literal(l) &&
        (rt->id == FLOE_TYPE_STRING || rt->id == FLOE_TYPE_INT32 || rt->id == FLOE_TYPE_INT64 ||
         (rt->id == FLOE_TYPE_LIST && rt->children[0].type->id == FLOE_TYPE_STRING)))
        fn = "__jsonb_delete";
    if (!st && cat && (is_jsonb_expr(l) || is_jsonb_expr(r)) && lt->id == FLOE_TYPE_STRING &&
        rt->id == FLOE_TYPE_STRING)
        fn = "__jsonb_concat";
    floe_type_release(lt);
    floe_type_release(rt);
    if (st || !fn) return st;
    floe_expr *args[2] = {l, r};
    st = bind_make_call(c, fn, args, 2, loc, out);
    if (!st) *done = true;
    return st;
}

static floe_status bind_arith(bind_ectx *c, const json_t *body, const char *op, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(body, "location", -1);
    json_t *lx = floe_pg_get(body, "lexpr"), *rx = floe_pg_get(body, "rexpr");
    int aop = arith_op_of(op);
    if (!lx) {
        /* Unary minus / plus. */
        floe_expr *x = NULL;
        FLOE_TRY(bind_expr(c, rx, &x));
        if (aop == FLOE_ARITH_ADD) {
            *out = x;
            return NULL;
        }
        floe_expr *zero = NULL;
        floe_type *t = NULL;
        floe_status st = bind_type_of(c, x, &t);
        if (!st && t->id == FLOE_TYPE_INTERVAL) {
            st = bind_make_call(c, "interval_neg", &x, 1, loc, out);
            floe_type_release(t);
            floe_expr_release(x);
            return st;
        }
        if (!st) {
            if (t->id == FLOE_TYPE_INT64) st = floe_expr_lit_int64(0, &zero);
            else if (t->id == FLOE_TYPE_FLOAT32 || t->id == FLOE_TYPE_FLOAT64) st = floe_expr_lit_double(0, &zero);
            else st = floe_expr_lit_int32(0, &zero);
        }
        if (!st) st = floe_expr_arith(FLOE_ARITH_SUB, zero, x, out);
        if (!st && (st = bind_check(c, *out, loc))) {
            floe_expr_release(*out);
            *out = NULL;
        }
        /* Fold a negated constant right away. */
        if (!st && !bind_expr_has_columns(*out)) {
            floe_array *v = NULL;
            floe_status es = bind_eval_const(*out, &v);
            if (!es) {
                floe_expr *lit = NULL;
                if (!floe_expr_literal(v, &lit)) {
                    floe_expr_release(*out);
                    *out = lit;
                }
            }
            floe_status_free(es);
            floe_array_release(v);
        }
        floe_type_release(t);
        floe_expr_release(zero);
        floe_expr_release(x);
        return st;
    }
    floe_expr *l = NULL, *r = NULL;
    FLOE_TRY(bind_two(c, lx, rx, &l, &r));
    bool done = false;
    floe_status jst = jsonb_arith(c, op, l, r, loc, out, &done);
    if (jst || done) {
        floe_expr_release(l);
        floe_expr_release(r);
        return jst;
    }
    floe_status st = strcmp(op, "||") ? interval_arith(c, aop, l, r, loc, out, &done) : NULL;
    if (!st && !done) st = date_arith(c, aop, l, r, loc, out, &done);
    if (!st && done) {
        floe_expr_release(l);
        floe_expr_release(r);
        return NULL;
    }
    /* 'abc' || 1 is text: a quoted literal beside || stays text (it
     * does not take the other side's type as in a comparison). */
    if (!st && strcmp(op, "||")) st = bind_unify_pair(c, &l, &r, loc);
    if (!st) {
        floe_type *lt = NULL, *rt = NULL;
        bool ll = false, rl = false;
        if (!strcmp(op, "||") && !bind_type_of(c, l, &lt) && !bind_type_of(c, r, &rt)) {
            ll = lt->id == FLOE_TYPE_LIST;
            rl = rt->id == FLOE_TYPE_LIST;
        }
        floe_type_release(lt);
        floe_type_release(rt);
        if (!strcmp(op, "||") && (ll || rl)) {
            /* list || list, list || x, x || list: PostgreSQL's array operators */
            floe_expr *args[2] = {l, r};
            st = bind_array_call(c, ll && rl ? "array_cat" : ll ? "array_append" : "array_prepend", args, 2, loc, out);
            l = args[0];
            r = args[1];
        } else if (!strcmp(op, "||")) {
            floe_expr *args[2] = {l, r};
            st = bind_make_call(c, "textcat", args, 2, loc, out);
        } else {
            st = floe_expr_arith((floe_arith_op)aop, l, r, out);
            if (!st && (st = bind_check(c, *out, loc))) {
                floe_expr_release(*out);
                *out = NULL;
            }
        }
    }
    floe_expr_release(l);
    floe_expr_release(r);
    return st;
}

floe_status bind_a_expr(bind_ectx *c, const json_t *body, floe_expr **out) {
    const char *kind = floe_pg_get_str(body, "kind");
    json_t *names = floe_pg_get(body, "name");
    const char *op = floe_pg_string(floe_pg_list_at(names, floe_pg_list_len(names) - 1));
    int32_t loc = (int32_t)floe_pg_get_int(body, "location", -1);
    if (!kind || !op) return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "unsupported operator expression");
    if (!strcmp(kind, "AEXPR_OP")) {
        int cop = cmp_op_of(op);
        if (cop >= 0) {
            floe_expr *l = NULL, *r = NULL;
            FLOE_TRY(bind_two(c, floe_pg_get(body, "lexpr"), floe_pg_get(body, "rexpr"), &l, &r));
            floe_status st = bind_make_cmp(c, (floe_cmp_op)cop, l, r, loc, out);
            floe_expr_release(l);
            floe_expr_release(r);
            return st;
        }
        if (arith_op_of(op) >= 0 || !strcmp(op, "||")) return bind_arith(c, body, op, out);
        if (!strcmp(op, "~~") || !strcmp(op, "!~~")) return bind_like(c, body, false, op[0] == '!', out);
        if (!strcmp(op, "~~*") || !strcmp(op, "!~~*")) return bind_like(c, body, true, op[0] == '!', out);
        /* POSIX regular expressions: regexp_like (func_regexp.c). */
        if (!strcmp(op, "~") || !strcmp(op, "~*") || !strcmp(op, "!~") || !strcmp(op, "!~*"))
            return bind_regex_op(c, body, strchr(op, '*') != NULL, op[0] == '!', out);
        /* json / jsonb text (func_json.c) and variants (func_variant.c). */
        if (!strcmp(op, "->") || !strcmp(op, "->>") || !strcmp(op, "#>") || !strcmp(op, "#>>") ||
            !strcmp(op, "?") || !strcmp(op, "@>") || !strcmp(op, "<@") || !strcmp(op, "?|") || !strcmp(op, "?&") ||
            !strcmp(op, "#-"))
            return bind_json_op(c, body, op, out);
        static const struct {
            const char *op, *fn;
        } fn_ops[] = {{"^", "power"}};
        for (size_t i = 0; i < sizeof fn_ops / sizeof fn_ops[0]; i++) {
            if (strcmp(op, fn_ops[i].op)) continue;
            floe_expr *args[2] = {NULL, NULL};
            FLOE_TRY(bind_two(c, floe_pg_get(body, "lexpr"), floe_pg_get(body, "rexpr"), &args[0], &args[1]));
            floe_status st = bind_make_call(c, fn_ops[i].fn, args, 2, loc, out);
            floe_expr_release(args[0]);
            floe_expr_release(args[1]);
            return st;
        }
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "operator %s is not supported", op);
    }
    if (!strcmp(kind, "AEXPR_SIMILAR")) return bind_regex_op(c, body, false, op[0] == '!', out);
    if (!strcmp(kind, "AEXPR_LIKE")) return bind_like(c, body, false, op[0] == '!', out);
    if (!strcmp(kind, "AEXPR_ILIKE")) return bind_like(c, body, true, op[0] == '!', out);
    if (!strcmp(kind, "AEXPR_IN")) return bind_in_list(c, body, strcmp(op, "<>") == 0, out);
    if (!strcmp(kind, "AEXPR_DISTINCT") || !strcmp(kind, "AEXPR_NOT_DISTINCT")) {
        floe_expr *l = NULL, *r = NULL;
        FLOE_TRY(bind_two(c, floe_pg_get(body, "lexpr"), floe_pg_get(body, "rexpr"), &l, &r));
        floe_status st = bind_unify_pair(c, &l, &r, loc);
        if (!st) st = make_distinct(c, l, r, kind[6] == 'N', loc, out);
        floe_expr_release(l);
        floe_expr_release(r);
        return st;
    }
    if (!strcmp(kind, "AEXPR_NULLIF")) {
        floe_expr *l = NULL, *r = NULL, *eq = NULL, *nul = NULL;
        FLOE_TRY(bind_two(c, floe_pg_get(body, "lexpr"), floe_pg_get(body, "rexpr"), &l, &r));
        floe_type *lt = NULL;
        floe_status st = bind_make_cmp(c, FLOE_CMP_EQ, l, r, loc, &eq);
        if (!st) st = bind_type_of(c, l, &lt);
        if (!st) st = floe_expr_lit_null(lt, &nul);
        if (!st) st = floe_expr_case(&eq, &nul, 1, l, out);
        floe_type_release(lt);
        floe_expr_release(l);
        floe_expr_release(r);
        floe_expr_release(eq);
        floe_expr_release(nul);
        return st;
    }
    if (!strncmp(kind, "AEXPR_BETWEEN", 13) || !strncmp(kind, "AEXPR_NOT_BETWEEN", 17)) {
        bool negate = strstr(kind, "NOT") != NULL, sym = strstr(kind, "SYM") != NULL;
        json_t *items = floe_pg_get(body, "rexpr");
        if (floe_pg_as(items, "List")) items = floe_pg_get(floe_pg_as(items, "List"), "items");
        floe_expr *x = NULL, *lo = NULL, *hi = NULL, *ge = NULL, *le = NULL, *res = NULL;
        floe_status st = bind_expr(c, floe_pg_get(body, "lexpr"), &x);
        if (!st) st = bind_two(c, floe_pg_list_at(items, 0), floe_pg_list_at(items, 1), &lo, &hi);
        if (!st) st = bind_make_cmp(c, FLOE_CMP_GE, x, lo, loc, &ge);
        if (!st) st = bind_make_cmp(c, FLOE_CMP_LE, x, hi, loc, &le);
        if (!st) st = floe_expr_and(ge, le, &res);
        if (!st && sym) {
            /* BETWEEN SYMMETRIC: either order of the bounds. */
            floe_expr *ge2 = NULL, *le2 = NULL, *r2 = NULL, *both = NULL;
            st = bind_make_cmp(c, FLOE_CMP_GE, x, hi, loc, &ge2);
            if (!st) st = bind_make_cmp(c, FLOE_CMP_LE, x, lo, loc, &le2);
            if (!st) st = floe_expr_and(ge2, le2, &r2);
            if (!st) st = floe_expr_or(res, r2, &both);
            if (!st) {
                floe_expr_release(res);
                res = both;
            }
            floe_expr_release(ge2);
            floe_expr_release(le2);
            floe_expr_release(r2);
        }
        if (!st && negate) {
            floe_expr *n = NULL;
            st = floe_expr_not(res, &n);
            floe_expr_release(res);
            res = n;
        }
        if (!st) *out = res;
        else floe_expr_release(res);
        floe_expr_release(x);
        floe_expr_release(lo);
        floe_expr_release(hi);
        floe_expr_release(ge);
        floe_expr_release(le);
        return st;
    }
    if (!strcmp(kind, "AEXPR_OP_ANY") || !strcmp(kind, "AEXPR_OP_ALL")) {
        /* x op ANY / ALL (list): func_array_ops.c */
        int cop = cmp_op_of(op);
        if (cop < 0)
            return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "%s %s (array) is not supported (comparisons are)", op,
                              !strcmp(kind, "AEXPR_OP_ALL") ? "ALL" : "ANY");
        floe_expr *l = NULL, *r = NULL;
        FLOE_TRY(bind_two(c, floe_pg_get(body, "lexpr"), floe_pg_get(body, "rexpr"), &l, &r));
        floe_status st = bind_array_compare(c, (floe_cmp_op)cop, !strcmp(kind, "AEXPR_OP_ALL"), l, r, loc, out);
        floe_expr_release(l);
        floe_expr_release(r);
        return st;
    }
    return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "expression kind %s is not supported", kind);
}

/* ----------------------------------------------------------- CASE */

/* Convert a list of branch values to one type (string literals and NULLs
 * take the others' type, mixed numbers widen). */
floe_status bind_unify_list(bind_ectx *c, floe_expr **v, int32_t n, int32_t loc) {
    floe_type *target = NULL;
    floe_status st = NULL;
    /* Pick the target: first non-literal-string, non-null type, widened. */
    for (int32_t i = 0; i < n && !st; i++) {
        if (!v[i]) continue;
        floe_type *t = NULL;
        st = bind_type_of(c, v[i], &t);
        if (st) break;
        if (t->id == FLOE_TYPE_NULL || (bind_is_string_literal(v[i]))) {
            floe_type_release(t);
            continue;
        }
        if (!target) {
            target = t;
            continue;
        }
        if (!floe_type_equals(target, t) && bind_is_num(target->id) && bind_is_num(t->id)) {
            floe_type_id a = target->id, b = t->id;
            floe_type *w = NULL;
            if (a == FLOE_TYPE_FLOAT64 || b == FLOE_TYPE_FLOAT64 || a == FLOE_TYPE_FLOAT32 || b == FLOE_TYPE_FLOAT32)
                w = floe_type_primitive(FLOE_TYPE_FLOAT64);
            else if (a == FLOE_TYPE_DECIMAL128 || b == FLOE_TYPE_DECIMAL128) {
                /* decimal wins: widen scale and integer digits */
                int32_t s1 = a == FLOE_TYPE_DECIMAL128 ? target->scale : 0, s2 = b == FLOE_TYPE_DECIMAL128 ? t->scale : 0;
                int32_t i1 = a == FLOE_TYPE_DECIMAL128 ? target->precision - s1 : (a == FLOE_TYPE_INT32 ? 10 : 19);
                int32_t i2 = b == FLOE_TYPE_DECIMAL128 ? t->precision - s2 : (b == FLOE_TYPE_INT32 ? 10 : 19);
                int32_t sc = s1 > s2 ? s1 : s2, ip = i1 > i2 ? i1 : i2;
                if (ip + sc > 38) ip = 38 - sc;
                st = floe_type_decimal(ip + sc, sc, &w);
            } else
                w = floe_type_primitive(FLOE_TYPE_INT64);
            floe_type_release(target);
            target = w;
        }
        floe_type_release(t);
    }
    if (!st && !target) {
        /* only string literals / NULLs */
        floe_type_release(target);
        return NULL;
    }
    for (int32_t i = 0; i < n && !st; i++) {
        if (!v[i]) continue;
        floe_expr *nv = NULL;
        st = bind_coerce(c, v[i], target, loc, &nv);
        if (!st) {
            floe_expr_release(v[i]);
            v[i] = nv;
        }
    }
    floe_type_release(target);
    return st;
}

static floe_status bind_case_parts(bind_ectx *c, const json_t *body, floe_expr **out);

/* PostgreSQL runs no set-returning function inside CASE (only some rows
 * would expand): unnest() there is its error. */
floe_status bind_case(bind_ectx *c, const json_t *body, floe_expr **out) {
    const char *srf_was = c->no_srf_in;
    c->no_srf_in = "CASE";
    floe_status st = bind_case_parts(c, body, out);
    c->no_srf_in = srf_was;
    return st;
}

static floe_status bind_case_parts(bind_ectx *c, const json_t *body, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(body, "location", -1);
    json_t *args = floe_pg_get(body, "args");
    int32_t n = floe_pg_list_len(args);
    floe_expr **whens = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
    floe_expr **vals = floe_calloc((size_t)n + 2, sizeof(floe_expr *)); /* thens ++ else */
    floe_expr *subject = NULL;
    floe_status st = (!whens || !vals) ? floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory") : NULL;
    if (!st && floe_pg_get(body, "arg")) st = bind_expr(c, floe_pg_get(body, "arg"), &subject);
    for (int32_t i = 0; i < n && !st; i++) {
        json_t *w = floe_pg_as(floe_pg_list_at(args, i), "CaseWhen");
        if (subject) {
            floe_expr *v = NULL;
            st = bind_expr(c, floe_pg_get(w, "expr"), &v);
            if (!st) st = bind_make_cmp(c, FLOE_CMP_EQ, subject, v, loc, &whens[i]);
            floe_expr_release(v);
        } else {
            st = bind_predicate(c, floe_pg_get(w, "expr"), &whens[i]);
        }
        if (!st) st = bind_expr(c, floe_pg_get(w, "result"), &vals[i]);
    }
    json_t *def = floe_pg_get(body, "defresult");
    if (!st && def) st = bind_expr(c, def, &vals[n]);
    if (!st) st = bind_unify_list(c, vals, n + 1, loc);
    if (!st) st = floe_expr_case(whens, vals, n, vals[n], out);
    if (!st && (st = bind_check(c, *out, loc))) {
        floe_expr_release(*out);
        *out = NULL;
    }
    for (int32_t i = 0; i <= n; i++) {
        if (whens && i < n) floe_expr_release(whens[i]);
        if (vals) floe_expr_release(vals[i]);
    }
    floe_free(whens);
    floe_free(vals);
    floe_expr_release(subject);
    return st;
}

/* ------------------------------------------------------------- casts */

floe_status bind_type_cast(bind_ectx *c, const json_t *body, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(body, "location", -1);
    floe_pg_type_name tn;
    FLOE_TRY(bind_at(c->s, loc, floe_pg_type_name_of(floe_pg_get(body, "typeName"), &tn)));
    if (tn.location >= 0) loc = tn.location;
    json_t *arg = floe_pg_get(body, "arg");
    if (!strcmp(tn.name, "interval")) {
        /* INTERVAL '90' DAY: the qualifier names a bare number's unit. */
        floe_pg_const k = floe_pg_const_of(arg);
        if (k.kind == FLOE_PG_CONST_STRING) {
            floe_interval v;
            FLOE_TRY(bind_at(c->s, loc, floe_interval_parse(k.text, (int64_t)strlen(k.text),
                                                             tn.n_mods > 0 ? tn.mods[0] : 0, &v)));
            return bind_interval_literal(v, out);
        }
    }
    if ((!strcmp(tn.name, "regclass") || !strcmp(tn.name, "regnamespace")) && !tn.is_array) {
        /* 'sales.orders'::regclass: the OID pg_catalog gives it (psql, ORMs) */
        floe_pg_const k = floe_pg_const_of(arg);
        if (k.kind == FLOE_PG_CONST_STRING) {
            int64_t oid = 0;
            FLOE_TRY(bind_at(c->s, loc, floe_sql_pg_reg_oid(c->s, tn.name, k.text, &oid)));
            return floe_expr_lit_int64(oid, out);
        }
    }
    floe_type *t = NULL;
    FLOE_TRY(bind_at(c->s, loc, floe_pg_type_to_floe(&tn, c->sql, &t)));
    floe_expr *x = NULL;
    floe_status st = NULL;
    const json_t *ae = floe_pg_as(arg, "A_ArrayExpr");
    if (ae && floe_pg_list_len(floe_pg_get(ae, "elements")) == 0 && t->id == FLOE_TYPE_LIST)
        st = bind_make_call(c, "list_value", NULL, 0, loc, &x); /* ARRAY[]::int[]: typed by the cast */
    else
        st = bind_expr(c, arg, &x);
    if (!st) {
        if (bind_is_string_literal(x)) {
            floe_buf tx = FLOE_BUF_INIT;
            st = bind_literal_text(x, &tx);
            if (!st) st = bind_at(c->s, loc, bind_literal_from_text(floe_buf_cstr(&tx), t, out));
            floe_buf_free(&tx);
        } else {
            floe_type *xt = NULL;
            st = bind_type_of(c, x, &xt);
            if (!st && floe_type_equals(xt, t)) {
                *out = floe_expr_retain(x);
            } else if (!st && xt->id == FLOE_TYPE_NULL) {
                st = floe_expr_lit_null(t, out);
            } else if (!st && xt->id == FLOE_TYPE_VARIANT && t->id != FLOE_TYPE_STRING) {
                /* CAST(variant AS type) is variant_get(v, '$', 'type'), as
                 * in Spark; CAST(variant AS text) is its JSON text. */
                floe_buf tname = FLOE_BUF_INIT;
                floe_expr *args[3] = {x, NULL, NULL};
                st = floe_type_to_string(t, &tname);
                if (!st) st = floe_expr_lit_string("$", &args[1]);
                if (!st) st = floe_expr_lit_string(floe_buf_cstr(&tname), &args[2]);
                if (!st) st = bind_make_call(c, "variant_get", args, 3, loc, out);
                floe_expr_release(args[1]);
                floe_expr_release(args[2]);
                floe_buf_free(&tname);
            } else if (!st) {
                st = floe_expr_cast(x, t, out);
                if (!st && (st = bind_check(c, *out, loc))) {
                    floe_expr_release(*out);
                    *out = NULL;
                }
            }
            floe_type_release(xt);
        }
    }
    floe_expr_release(x);
    floe_type_release(t);
    /* ::json validates the text, ::jsonb also normalizes it (func_json.c). */
    if (!st && (!strcmp(tn.name, "json") || !strcmp(tn.name, "jsonb"))) {
        floe_expr *v = *out;
        *out = NULL;
        st = bind_make_call(c, tn.name[4] ? "__jsonb_in" : "__json_in", &v, 1, loc, out);
        floe_expr_release(v);
    }
    return st;
}
