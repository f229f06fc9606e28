/*
 * datum.c — Avro values: the arena they live in, decoding from the binary
 * encoding through a resolution plan, encoding, and JSON rendering.
 *
 * Decoding never interprets the writer's schema directly.  A resolver first
 * compiles (writer schema, reader schema) into a plan graph — which writer
 * field lands in which reader slot, which are skipped, which reader fields
 * take defaults, how each writer union branch maps into the reader — so the
 * per-record loop only follows the plan.  With no reader schema the plan is
 * the identity resolution of the writer schema against itself.
 *
 * Every read is bounds-checked; malformed bytes (bad varints, negative or
 * oversized lengths, union or enum indexes out of range, nesting or item
 * counts beyond what the bytes could hold) return FLOE_ERR_CORRUPT naming
 * the byte offset in the datum.
 */
#include "formats/avro/avro.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/memory.h"

#define MAX_DEPTH 256

static void *arena_zalloc(floe_arena *a, size_t n) {
    return floe_arena_calloc(a, 1, n ? n : 1);
}

/* ---- resolution plans --------------------------------------------------- */

typedef enum op {
    OP_NULL, OP_BOOLEAN, OP_INT, OP_LONG, OP_FLOAT, OP_DOUBLE, OP_BYTES, OP_STRING,
    OP_FIXED, OP_ENUM, OP_RECORD, OP_ARRAY, OP_MAP,
    OP_WUNION,   /* writer is a union: per-branch plans */
    OP_RUNION,   /* reader is a union, writer not: one branch */
    OP_FAIL      /* cannot resolve; an error if this data is ever met */
} op;

typedef struct plan {
    op op;
    floe_avro_type out_type;         /* the type of produced values */
    const floe_avro_schema *w, *r;
    /* record */
    size_t n_w;                      /* writer fields, in order */
    int32_t *target;                 /* reader position or -1 (skip) */
    struct plan **fplan;             /* per writer field (NULL when skipped) */
    size_t n_r;
    floe_avro_value *defaults;       /* per reader field (those not from the writer) */
    uint8_t *from_writer;            /* per reader field */
    /* array, map, reader union */
    struct plan *item;
    int32_t branch;
    /* writer union */
    size_t n_branches;
    struct plan **bplan;
    int32_t *rbranch;
    /* enum */
    int32_t *symmap;
    /* fail */
    const char *msg;
} plan;

struct floe_avro_resolver {
    floe_arena arena;  /* plans, defaults, messages */
    plan *root;
    /* record plans being built, for recursive schemas */
    plan **memo;
    size_t n_memo, cap_memo;
};

static floe_status nomem(void) {
    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory resolving Avro schemas");
}

static int is_named(const floe_avro_schema *s) {
    return s->type == FLOE_AVRO_RECORD || s->type == FLOE_AVRO_ENUM || s->type == FLOE_AVRO_FIXED;
}

static const char *short_name(const char *full) {
    const char *d = full ? strrchr(full, '.') : NULL;
    return d ? d + 1 : (full ? full : "");
}

/* How well writer type w fits reader type r: 3 same named type, 2 same
 * type, 1 promotable (or a record of another name: Iceberg writers name
 * records freely), 0 incompatible. */
static int fit(const floe_avro_schema *w, const floe_avro_schema *r) {
    floe_avro_type a = w->type, b = r->type;
    if (a == b) {
        if (!is_named(w)) return 2;
        if (strcmp(short_name(w->fullname), short_name(r->fullname)) == 0) return 3;
        for (size_t i = 0; i < r->n_aliases; i++)
            if (strcmp(short_name(r->aliases[i]), short_name(w->fullname)) == 0) return 3;
        if (a == FLOE_AVRO_FIXED) return w->fixed_size == r->fixed_size ? 1 : 0;
        return 1;
    }
    switch (a) {
    case FLOE_AVRO_INT: return b == FLOE_AVRO_LONG || b == FLOE_AVRO_FLOAT || b == FLOE_AVRO_DOUBLE;
    case FLOE_AVRO_LONG: return b == FLOE_AVRO_FLOAT || b == FLOE_AVRO_DOUBLE;
    case FLOE_AVRO_FLOAT: return b == FLOE_AVRO_DOUBLE;
    case FLOE_AVRO_STRING: return b == FLOE_AVRO_BYTES;
    case FLOE_AVRO_BYTES: return b == FLOE_AVRO_STRING;
    default: return 0;
    }
}

/* The best reader union branch for writer type w, or -1. */
static int best_branch(const floe_avro_schema *w, const floe_avro_schema *ru) {
    int best = -1, score = 0;
    for (size_t i = 0; i < ru->n_branches; i++) {
        int f = fit(w, ru->branches[i]);
        if (f > score) {
            score = f;
            best = (int)i;
        }
    }
    return best;
}

static plan *new_plan(floe_avro_resolver *rs, op o, const floe_avro_schema *w,
                      const floe_avro_schema *r) {
    plan *p = arena_zalloc(&rs->arena, sizeof *p);
    if (!p) return NULL;
    p->op = o;
    p->w = w;
    p->r = r;
    p->out_type = r->type;
    p->branch = -1;
    return p;
}

static char *arena_printf(floe_arena *a, const char *fmt, ...) FLOE_PRINTF(2, 3);
static char *arena_printf(floe_arena *a, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    size_t n = strlen(tmp) + 1;
    char *p = floe_arena_alloc(a, n);
    if (p) memcpy(p, tmp, n);
    return p;
}

static floe_status build(floe_avro_resolver *rs, const floe_avro_schema *w,
                         const floe_avro_schema *r, const char *path, plan **out);

static floe_status default_value(floe_arena *a, const floe_avro_schema *s, json_t *j,
                                 const char *path, floe_avro_value *out, int depth, int strict);

/* Where null sits in a type: its union branch, -1 for the null type
 * itself, -2 when the type cannot be null. */
static int null_branch(const floe_avro_schema *s) {
    if (s->type == FLOE_AVRO_NULL) return -1;
    if (s->type == FLOE_AVRO_UNION)
        for (size_t i = 0; i < s->n_branches; i++)
            if (s->branches[i]->type == FLOE_AVRO_NULL) return (int)i;
    return -2;
}

/* The writer field a reader field matches by name or alias, skipping
 * writer fields whose field-id differs from the reader's (those are other
 * fields that happen to share a name after a rename); -1 if none. */
static int match_by_name(const floe_avro_schema *w, const floe_avro_field *rf) {
    for (size_t pass = 0; pass < 3; pass++) {
        for (size_t k = 0; k < w->n_fields; k++) {
            const floe_avro_field *wf = &w->fields[k];
            if (wf->field_id != FLOE_AVRO_NO_ID && rf->field_id != FLOE_AVRO_NO_ID) continue;
            int hit = 0;
            if (pass == 0) hit = strcmp(wf->name, rf->name) == 0;
            for (size_t m = 0; pass == 1 && m < rf->n_aliases; m++)
                hit |= strcmp(wf->name, rf->aliases[m]) == 0;
            for (size_t m = 0; pass == 2 && m < wf->n_aliases; m++)
                hit |= strcmp(wf->aliases[m], rf->name) == 0;
            if (hit) return (int)k;
        }
    }
    return -1;
}

static floe_status build_record(floe_avro_resolver *rs, plan *p, const char *path) {
    const floe_avro_schema *w = p->w, *r = p->r;
    p->n_w = w->n_fields;
    p->n_r = r->n_fields;
    p->target = arena_zalloc(&rs->arena, (w->n_fields + 1) * sizeof *p->target);
    p->fplan = arena_zalloc(&rs->arena, (w->n_fields + 1) * sizeof *p->fplan);
    p->defaults = arena_zalloc(&rs->arena, (r->n_fields + 1) * sizeof *p->defaults);
    p->from_writer = arena_zalloc(&rs->arena, r->n_fields + 1);
    if (!p->target || !p->fplan || !p->defaults || !p->from_writer) return nomem();
    for (size_t i = 0; i < w->n_fields; i++) p->target[i] = -1;

    char fpath[512];
    for (size_t j = 0; j < r->n_fields; j++) {
        const floe_avro_field *rf = &r->fields[j];
        /* Iceberg: when both sides carry a field-id it is the field's
         * identity (names change under renames); a field without an id on
         * either side is matched by name, then aliases. */
        int wi = rf->field_id != FLOE_AVRO_NO_ID ? floe_avro_field_index_by_id(w, rf->field_id) : -1;
        if (wi < 0) wi = match_by_name(w, rf);
        if (wi >= 0 && p->target[wi] >= 0) wi = -1; /* already taken */
        snprintf(fpath, sizeof fpath, "%s.%s", path, rf->name);
        if (wi >= 0) {
            p->target[wi] = (int32_t)j;
            p->from_writer[j] = 1;
            FLOE_TRY(build(rs, w->fields[wi].type, rf->type, fpath, &p->fplan[wi]));
            continue;
        }
        if (rf->default_value) {
            FLOE_TRY(default_value(&rs->arena, rf->type, rf->default_value, fpath, &p->defaults[j], 0, 0));
        } else if (null_branch(rf->type) >= -1) {
            /* An optional field absent from the writer reads as null. */
            p->defaults[j] = floe_avro_null();
            p->defaults[j].branch = null_branch(rf->type);
        } else {
            return floe_error(FLOE_ERR_TYPE,
                              "reader field '%s' is not in the writer's schema and has no default",
                              fpath);
        }
    }
    return NULL;
}

static floe_status build(floe_avro_resolver *rs, const floe_avro_schema *w,
                         const floe_avro_schema *r, const char *path, plan **out) {
    plan *p;
    if (w->type == FLOE_AVRO_UNION) {
        if (!(p = new_plan(rs, OP_WUNION, w, r))) return nomem();
        p->n_branches = w->n_branches;
        p->bplan = arena_zalloc(&rs->arena, (w->n_branches + 1) * sizeof *p->bplan);
        p->rbranch = arena_zalloc(&rs->arena, (w->n_branches + 1) * sizeof *p->rbranch);
        if (!p->bplan || !p->rbranch) return nomem();
        for (size_t i = 0; i < w->n_branches; i++) {
            const floe_avro_schema *wb = w->branches[i];
            const floe_avro_schema *target = r;
            p->rbranch[i] = -1;
            if (r->type == FLOE_AVRO_UNION) {
                int j = best_branch(wb, r);
                if (j >= 0) {
                    p->rbranch[i] = j;
                    target = r->branches[j];
                } else {
                    target = NULL;
                }
            } else if (!fit(wb, r)) {
                target = NULL;
            }
            if (target) {
                floe_status st = build(rs, wb, target, path, &p->bplan[i]);
                if (!st) continue;
                /* A branch that cannot resolve only matters if it occurs. */
                plan *f = new_plan(rs, OP_FAIL, wb, r);
                if (!f) {
                    floe_status_free(st);
                    return nomem();
                }
                f->msg = arena_printf(&rs->arena, "%s", floe_status_message(st));
                floe_status_free(st);
                p->bplan[i] = f;
            } else {
                plan *f = new_plan(rs, OP_FAIL, wb, r);
                if (!f) return nomem();
                f->msg = arena_printf(&rs->arena, "%s: writer union branch %zu (%s) does not match the reader's %s",
                                      path, i, floe_avro_type_name(wb->type), floe_avro_type_name(r->type));
                p->bplan[i] = f;
            }
        }
        *out = p;
        return NULL;
    }
    if (r->type == FLOE_AVRO_UNION) {
        int j = best_branch(w, r);
        if (j < 0)
            return floe_error(FLOE_ERR_TYPE, "%s: writer type %s matches no branch of the reader's union",
                              path, floe_avro_type_name(w->type));
        if (!(p = new_plan(rs, OP_RUNION, w, r))) return nomem();
        p->branch = j;
        FLOE_TRY(build(rs, w, r->branches[j], path, &p->item));
        *out = p;
        return NULL;
    }
    if (!fit(w, r))
        return floe_error(FLOE_ERR_TYPE, "%s: writer type %s cannot be read as %s", path,
                          floe_avro_type_name(w->type), floe_avro_type_name(r->type));
    switch (w->type) {
    case FLOE_AVRO_RECORD:
        for (size_t i = 0; i < rs->n_memo; i++) {
            if (rs->memo[i]->w == w && rs->memo[i]->r == r) {
                *out = rs->memo[i];
                return NULL;
            }
        }
        if (!(p = new_plan(rs, OP_RECORD, w, r))) return nomem();
        if (rs->n_memo == rs->cap_memo) {
            size_t cap = rs->cap_memo ? rs->cap_memo * 2 : 16;
            plan **m = floe_realloc(rs->memo, cap * sizeof *m);
            if (!m) return nomem();
            rs->memo = m;
            rs->cap_memo = cap;
        }
        rs->memo[rs->n_memo++] = p;
        *out = p;
        return build_record(rs, p, path);
    case FLOE_AVRO_ENUM:
        if (!(p = new_plan(rs, OP_ENUM, w, r))) return nomem();
        p->symmap = arena_zalloc(&rs->arena, (w->n_symbols + 1) * sizeof *p->symmap);
        if (!p->symmap) return nomem();
        for (size_t i = 0; i < w->n_symbols; i++) {
            p->symmap[i] = -1;
            for (size_t k = 0; k < r->n_symbols; k++)
                if (strcmp(w->symbols[i], r->symbols[k]) == 0) p->symmap[i] = (int32_t)k;
            if (p->symmap[i] < 0 && r->enum_default)
                for (size_t k = 0; k < r->n_symbols; k++)
                    if (strcmp(r->enum_default, r->symbols[k]) == 0) p->symmap[i] = (int32_t)k;
        }
        break;
    case FLOE_AVRO_ARRAY:
        if (!(p = new_plan(rs, OP_ARRAY, w, r))) return nomem();
        FLOE_TRY(build(rs, w->items, r->items, path, &p->item));
        break;
    case FLOE_AVRO_MAP:
        if (!(p = new_plan(rs, OP_MAP, w, r))) return nomem();
        FLOE_TRY(build(rs, w->values, r->values, path, &p->item));
        break;
    case FLOE_AVRO_FIXED:
        if (w->fixed_size != r->fixed_size)
            return floe_error(FLOE_ERR_TYPE, "%s: fixed size %zu cannot be read as fixed size %zu",
                              path, w->fixed_size, r->fixed_size);
        if (!(p = new_plan(rs, OP_FIXED, w, r))) return nomem();
        break;
    default:
        if (!(p = new_plan(rs, (op)(OP_NULL + (w->type - FLOE_AVRO_NULL)), w, r))) return nomem();
        break;
    }
    *out = p;
    return NULL;
}

floe_status floe_avro_resolver_new(const floe_avro_schema *writer, const floe_avro_schema *reader,
                                   floe_avro_resolver **out) {
    *out = NULL;
    floe_avro_resolver *rs = floe_calloc(1, sizeof *rs);
    if (!rs) return nomem();
    floe_arena_init(&rs->arena, 0);
    floe_status st = build(rs, writer, reader ? reader : writer, "schema", &rs->root);
    floe_free(rs->memo);
    rs->memo = NULL;
    if (st) {
        floe_avro_resolver_free(rs);
        return floe_status_wrap(st, "resolving the writer's schema against the reader's");
    }
    *out = rs;
    return NULL;
}

void floe_avro_resolver_free(floe_avro_resolver *r) {
    if (!r) return;
    floe_arena_destroy(&r->arena);
    floe_free(r->memo);
    floe_free(r);
}

/* ---- defaults: JSON → value ----------------------------------------------- */

static floe_status bad_default(const char *path, const floe_avro_schema *s) {
    return floe_error(FLOE_ERR_TYPE, "default of field '%s' does not fit its type %s", path,
                      floe_avro_type_name(s->type));
}

/* Avro JSON encodes bytes/fixed as strings of code points 0-255. */
static floe_status json_bytes(floe_arena *a, const char *s, const char *path,
                              floe_avro_value *out) {
    size_t n = strlen(s);
    uint8_t *b = floe_arena_alloc(a, n + 1);
    if (!b) return nomem();
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        unsigned c = (unsigned char)s[i];
        if (c < 0x80) {
            b[k++] = (uint8_t)c;
            i++;
        } else if ((c & 0xE0) == 0xC0 && i + 1 < n && c <= 0xC3) {
            b[k++] = (uint8_t)(((c & 0x1F) << 6) | ((unsigned char)s[i + 1] & 0x3F));
            i += 2;
        } else {
            return floe_error(FLOE_ERR_TYPE, "default of field '%s': byte string has a character above U+00FF", path);
        }
    }
    b[k] = 0;
    out->u.p = b;
    out->len = (uint32_t)k;
    return NULL;
}

static floe_status default_value(floe_arena *a, const floe_avro_schema *s, json_t *j,
                                 const char *path, floe_avro_value *out, int depth, int strict) {
    if (depth > MAX_DEPTH) return bad_default(path, s);
    *out = floe_avro_null();
    out->type = s->type;
    switch (s->type) {
    case FLOE_AVRO_NULL:
        return json_is_null(j) ? NULL : bad_default(path, s);
    case FLOE_AVRO_BOOLEAN:
        if (!json_is_boolean(j)) return bad_default(path, s);
        out->u.l = json_is_true(j);
        return NULL;
    case FLOE_AVRO_INT:
    case FLOE_AVRO_LONG:
        if (!json_is_integer(j)) return bad_default(path, s);
        out->u.l = json_integer_value(j);
        return NULL;
    case FLOE_AVRO_FLOAT:
    case FLOE_AVRO_DOUBLE:
        if (json_is_number(j)) out->u.d = json_number_value(j);
        else if (json_is_string(j) && !strcmp(json_string_value(j), "NaN")) out->u.d = NAN;
        else if (json_is_string(j) && !strcmp(json_string_value(j), "Infinity")) out->u.d = INFINITY;
        else if (json_is_string(j) && !strcmp(json_string_value(j), "-Infinity")) out->u.d = -INFINITY;
        else return bad_default(path, s);
        return NULL;
    case FLOE_AVRO_STRING: {
        if (!json_is_string(j)) return bad_default(path, s);
        size_t n = json_string_length(j);
        char *p = floe_arena_alloc(a, n + 1);
        if (!p) return nomem();
        memcpy(p, json_string_value(j), n + 1);
        out->u.p = (const uint8_t *)p;
        out->len = (uint32_t)n;
        return NULL;
    }
    case FLOE_AVRO_BYTES:
    case FLOE_AVRO_FIXED:
        if (!json_is_string(j)) return bad_default(path, s);
        FLOE_TRY(json_bytes(a, json_string_value(j), path, out));
        if (s->type == FLOE_AVRO_FIXED && out->len != s->fixed_size) return bad_default(path, s);
        return NULL;
    case FLOE_AVRO_ENUM:
        if (!json_is_string(j)) return bad_default(path, s);
        for (size_t i = 0; i < s->n_symbols; i++) {
            if (!strcmp(s->symbols[i], json_string_value(j))) {
                out->u.l = (int64_t)i;
                return NULL;
            }
        }
        return bad_default(path, s);
    case FLOE_AVRO_ARRAY: {
        if (!json_is_array(j)) return bad_default(path, s);
        size_t n = json_array_size(j);
        floe_avro_value *items = arena_zalloc(a, (n + 1) * sizeof *items);
        if (!items) return nomem();
        for (size_t i = 0; i < n; i++)
            FLOE_TRY(default_value(a, s->items, json_array_get(j, i), path, &items[i], depth + 1, strict));
        out->u.items = items;
        out->len = (uint32_t)n;
        return NULL;
    }
    case FLOE_AVRO_MAP: {
        if (!json_is_object(j)) return bad_default(path, s);
        size_t n = json_object_size(j), i = 0;
        floe_avro_value *items = arena_zalloc(a, (2 * n + 1) * sizeof *items);
        if (!items) return nomem();
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v) {
            size_t kl = strlen(k);
            char *kp = floe_arena_alloc(a, kl + 1);
            if (!kp) return nomem();
            memcpy(kp, k, kl + 1);
            items[2 * i] = floe_avro_bytes(FLOE_AVRO_STRING, kp, kl);
            FLOE_TRY(default_value(a, s->values, v, path, &items[2 * i + 1], depth + 1, strict));
            i++;
        }
        out->u.items = items;
        out->len = (uint32_t)n;
        return NULL;
    }
    case FLOE_AVRO_RECORD: {
        if (!json_is_object(j)) return bad_default(path, s);
        floe_avro_value *items = arena_zalloc(a, (s->n_fields + 1) * sizeof *items);
        if (!items) return nomem();
        for (size_t i = 0; i < s->n_fields; i++) {
            json_t *v = json_object_get(j, s->fields[i].name);
            if (!v) v = s->fields[i].default_value;
            if (!v) return bad_default(path, s);
            FLOE_TRY(default_value(a, s->fields[i].type, v, path, &items[i], depth + 1, strict));
        }
        out->u.items = items;
        out->len = (uint32_t)s->n_fields;
        return NULL;
    }
    case FLOE_AVRO_UNION:
        /* The spec says the first branch; when reading, accept any that
         * fits (first wins); when checking a schema to write, be strict. */
        for (size_t i = 0; i < (strict ? 1 : s->n_branches); i++) {
            floe_status st = default_value(a, s->branches[i], j, path, out, depth + 1, strict);
            if (!st) {
                out->branch = (int32_t)i;
                return NULL;
            }
            if (floe_status_code(st) == FLOE_ERR_OUT_OF_MEMORY) return st;
            floe_status_free(st);
        }
        return bad_default(path, s);
    }
    return bad_default(path, s);
}

/* Check every field default of a schema the way strict readers (Java's
 * parser) do before writing it into a file others will read. */
static floe_status check_defaults(const floe_avro_schema *s, floe_arena *a,
                                  const floe_avro_schema ***seen, size_t *n_seen, int depth) {
    if (depth > MAX_DEPTH) return NULL;
    switch (s->type) {
    case FLOE_AVRO_RECORD: {
        for (size_t i = 0; i < *n_seen; i++)
            if ((*seen)[i] == s) return NULL;
        const floe_avro_schema **ns = floe_realloc(*seen, (*n_seen + 1) * sizeof *ns);
        if (!ns) return nomem();
        *seen = ns;
        ns[(*n_seen)++] = s;
        for (size_t i = 0; i < s->n_fields; i++) {
            const floe_avro_field *f = &s->fields[i];
            if (f->default_value) {
                floe_avro_value v;
                floe_status st = default_value(a, f->type, f->default_value, f->name, &v, 0, 1);
                if (st) {
                    floe_status_free(st);
                    return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                                      "schema field '%s.%s': default does not fit its type %s "
                                      "(a union's default must fit its first branch)",
                                      s->fullname, f->name, floe_avro_type_name(f->type->type));
                }
            }
            FLOE_TRY(check_defaults(f->type, a, seen, n_seen, depth + 1));
        }
        return NULL;
    }
    case FLOE_AVRO_ARRAY: return check_defaults(s->items, a, seen, n_seen, depth + 1);
    case FLOE_AVRO_MAP: return check_defaults(s->values, a, seen, n_seen, depth + 1);
    case FLOE_AVRO_UNION:
        for (size_t i = 0; i < s->n_branches; i++)
            FLOE_TRY(check_defaults(s->branches[i], a, seen, n_seen, depth + 1));
        return NULL;
    default: return NULL;
    }
}

floe_status floe_avro_schema_check_defaults(const floe_avro_schema *s) {
    floe_arena a;
    floe_arena_init(&a, 0);
    const floe_avro_schema **seen = NULL;
    size_t n = 0;
    floe_status st = check_defaults(s, &a, &seen, &n, 0);
    floe_free(seen);
    floe_arena_destroy(&a);
    return st;
}

/* ---- decoding ------------------------------------------------------------- */

typedef struct cursor {
    const uint8_t *start, *p, *end;
    floe_arena *arena;
    uint64_t budget; /* items left before the input is deemed hostile */
} cursor;

static floe_status corrupt_at(const cursor *c, const char *fmt, ...) FLOE_PRINTF(2, 3);
static floe_status corrupt_at(const cursor *c, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return floe_error(FLOE_ERR_CORRUPT, "datum byte %zu: %s", (size_t)(c->p - c->start), msg);
}

static inline floe_status read_long(cursor *c, int64_t *out) {
    uint64_t v = 0;
    int shift = 0;
    const uint8_t *p = c->p;
    for (;;) {
        if (p >= c->end) return corrupt_at(c, "truncated varint");
        uint8_t b = *p++;
        /* Bits past the 64th of a 10th byte are dropped, as Java does: real
         * files (e.g. DuckDB's snapshot ids above INT64_MAX) depend on it. */
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
        shift += 7;
        if (shift > 63) return corrupt_at(c, "varint longer than 10 bytes");
    }
    c->p = p;
    *out = (int64_t)((v >> 1) ^ (~(v & 1) + 1));
    return NULL;
}

static inline floe_status read_int(cursor *c, int64_t *out) {
    FLOE_TRY(read_long(c, out));
    if (*out < INT32_MIN || *out > INT32_MAX) return corrupt_at(c, "int %" PRId64 " out of range", *out);
    return NULL;
}

static floe_status read_len(cursor *c, size_t *n, const char *what) {
    int64_t l = 0;
    FLOE_TRY(read_long(c, &l));
    if (l < 0) return corrupt_at(c, "negative %s length %" PRId64, what, l);
    if ((uint64_t)l > (uint64_t)(c->end - c->p))
        return corrupt_at(c, "%s length %" PRId64 " runs past the end (%zu bytes left)", what, l,
                          (size_t)(c->end - c->p));
    *n = (size_t)l;
    return NULL;
}

static floe_status read_bytes_copy(cursor *c, size_t n, floe_avro_value *out) {
    uint8_t *b = floe_arena_alloc(c->arena, n + 1);
    if (!b) return nomem();
    if (n) memcpy(b, c->p, n);
    b[n] = 0;
    c->p += n;
    out->u.p = b;
    out->len = (uint32_t)n;
    return NULL;
}

static floe_status spend(cursor *c, uint64_t n) {
    if (n > c->budget) return corrupt_at(c, "item counts exceed what the data could hold");
    c->budget -= n;
    return NULL;
}

/* Skip a value of writer schema s. */
static floe_status skip(const floe_avro_schema *s, cursor *c, int depth) {
    if (depth > MAX_DEPTH) return corrupt_at(c, "nesting deeper than %d", MAX_DEPTH);
    int64_t l = 0;
    size_t n;
    switch (s->type) {
    case FLOE_AVRO_NULL: return NULL;
    case FLOE_AVRO_BOOLEAN:
        if (c->p >= c->end) return corrupt_at(c, "truncated boolean");
        c->p++;
        return NULL;
    case FLOE_AVRO_INT:
    case FLOE_AVRO_LONG:
    case FLOE_AVRO_ENUM: return read_long(c, &l);
    case FLOE_AVRO_FLOAT:
    case FLOE_AVRO_DOUBLE:
    case FLOE_AVRO_FIXED: {
        size_t k = s->type == FLOE_AVRO_FLOAT ? 4 : s->type == FLOE_AVRO_DOUBLE ? 8 : s->fixed_size;
        if ((size_t)(c->end - c->p) < k) return corrupt_at(c, "truncated %s", floe_avro_type_name(s->type));
        c->p += k;
        return NULL;
    }
    case FLOE_AVRO_BYTES:
    case FLOE_AVRO_STRING:
        FLOE_TRY(read_len(c, &n, floe_avro_type_name(s->type)));
        c->p += n;
        return NULL;
    case FLOE_AVRO_RECORD:
        for (size_t i = 0; i < s->n_fields; i++) FLOE_TRY(skip(s->fields[i].type, c, depth + 1));
        return NULL;
    case FLOE_AVRO_UNION:
        FLOE_TRY(read_long(c, &l));
        if (l < 0 || (uint64_t)l >= s->n_branches)
            return corrupt_at(c, "union branch %" PRId64 " out of range (%zu branches)", l, s->n_branches);
        return skip(s->branches[l], c, depth + 1);
    case FLOE_AVRO_ARRAY:
    case FLOE_AVRO_MAP:
        for (;;) {
            FLOE_TRY(read_long(c, &l));
            if (l == 0) return NULL;
            if (l < 0) {
                if (l == INT64_MIN) return corrupt_at(c, "bad block count");
                l = -l;
                FLOE_TRY(read_len(c, &n, "block"));
                FLOE_TRY(spend(c, 1));
                c->p += n; /* the writer told us the block's size */
                continue;
            }
            FLOE_TRY(spend(c, (uint64_t)l));
            for (int64_t i = 0; i < l; i++) {
                if (s->type == FLOE_AVRO_MAP) {
                    FLOE_TRY(read_len(c, &n, "map key"));
                    c->p += n;
                    FLOE_TRY(skip(s->values, c, depth + 1));
                } else {
                    FLOE_TRY(skip(s->items, c, depth + 1));
                }
            }
        }
    }
    return corrupt_at(c, "bad schema type");
}

static floe_status decode(const plan *p, cursor *c, floe_avro_value *out, int depth);

/* A default value copied into the caller's arena, so decoded values never
 * point into the resolver (scalars, the common case, copy nothing). */
static floe_status copy_value(floe_arena *a, const floe_avro_value *src, floe_avro_value *dst,
                              int depth) {
    *dst = *src;
    switch (src->type) {
    case FLOE_AVRO_BYTES:
    case FLOE_AVRO_STRING:
    case FLOE_AVRO_FIXED: {
        uint8_t *p = floe_arena_alloc(a, (size_t)src->len + 1);
        if (!p) return nomem();
        if (src->len) memcpy(p, src->u.p, src->len);
        p[src->len] = 0;
        dst->u.p = p;
        return NULL;
    }
    case FLOE_AVRO_RECORD:
    case FLOE_AVRO_ARRAY:
    case FLOE_AVRO_MAP: {
        size_t n = (size_t)src->len * (src->type == FLOE_AVRO_MAP ? 2 : 1);
        if (depth > MAX_DEPTH) return floe_error(FLOE_ERR_INTERNAL, "default nested too deeply");
        floe_avro_value *items = floe_arena_alloc(a, (n ? n : 1) * sizeof *items);
        if (!items) return nomem();
        for (size_t i = 0; i < n; i++) FLOE_TRY(copy_value(a, &src->u.items[i], &items[i], depth + 1));
        dst->u.items = items;
        return NULL;
    }
    default: return NULL;
    }
}

/* Arrays and maps: blocks of items until a zero count. */
static floe_status decode_blocks(const plan *p, cursor *c, floe_avro_value *out, int depth) {
    int is_map = p->op == OP_MAP;
    size_t per = is_map ? 2 : 1;
    floe_avro_value *items = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        int64_t l = 0;
        FLOE_TRY(read_long(c, &l));
        if (l == 0) break;
        if (l < 0) {
            if (l == INT64_MIN) return corrupt_at(c, "bad block count");
            l = -l;
            size_t bytes;
            FLOE_TRY(read_len(c, &bytes, "block"));
        }
        FLOE_TRY(spend(c, (uint64_t)l));
        if ((uint64_t)l > UINT32_MAX - n) return corrupt_at(c, "too many items");
        if (n + (size_t)l > cap) {
            size_t ncap = cap ? cap * 2 : 4;
            while (ncap < n + (size_t)l) ncap *= 2;
            floe_avro_value *ni = floe_arena_alloc(c->arena, ncap * per * sizeof *ni);
            if (!ni) return nomem();
            if (n) memcpy(ni, items, n * per * sizeof *ni);
            items = ni;
            cap = ncap;
        }
        for (int64_t i = 0; i < l; i++, n++) {
            if (is_map) {
                size_t kl;
                FLOE_TRY(read_len(c, &kl, "map key"));
                floe_avro_value *k = &items[2 * n];
                *k = floe_avro_null();
                k->type = FLOE_AVRO_STRING;
                FLOE_TRY(read_bytes_copy(c, kl, k));
                FLOE_TRY(decode(p->item, c, &items[2 * n + 1], depth + 1));
            } else {
                FLOE_TRY(decode(p->item, c, &items[n], depth + 1));
            }
        }
    }
    out->u.items = items;
    out->len = (uint32_t)n;
    return NULL;
}

static floe_status decode(const plan *p, cursor *c, floe_avro_value *out, int depth) {
    if (depth > MAX_DEPTH) return corrupt_at(c, "nesting deeper than %d", MAX_DEPTH);
    out->type = p->out_type;
    out->branch = -1;
    out->len = 0;
    out->u.l = 0;
    int64_t l = 0;
    size_t n;
    switch (p->op) {
    case OP_NULL: return NULL;
    case OP_BOOLEAN:
        if (c->p >= c->end) return corrupt_at(c, "truncated boolean");
        if (*c->p > 1) return corrupt_at(c, "boolean byte %u is not 0 or 1", *c->p);
        out->u.l = *c->p++;
        return NULL;
    case OP_INT:
        FLOE_TRY(read_int(c, &l));
        if (out->type == FLOE_AVRO_FLOAT || out->type == FLOE_AVRO_DOUBLE) out->u.d = (double)l;
        else out->u.l = l;
        return NULL;
    case OP_LONG:
        FLOE_TRY(read_long(c, &l));
        if (out->type == FLOE_AVRO_FLOAT || out->type == FLOE_AVRO_DOUBLE) out->u.d = (double)l;
        else out->u.l = l;
        return NULL;
    case OP_FLOAT: {
        if (c->end - c->p < 4) return corrupt_at(c, "truncated float");
        uint32_t u = (uint32_t)c->p[0] | (uint32_t)c->p[1] << 8 | (uint32_t)c->p[2] << 16 |
                     (uint32_t)c->p[3] << 24;
        float f;
        memcpy(&f, &u, 4);
        out->u.d = f;
        c->p += 4;
        return NULL;
    }
    case OP_DOUBLE: {
        if (c->end - c->p < 8) return corrupt_at(c, "truncated double");
        uint64_t u = 0;
        for (int i = 7; i >= 0; i--) u = u << 8 | c->p[i];
        memcpy(&out->u.d, &u, 8);
        c->p += 8;
        return NULL;
    }
    case OP_BYTES:
    case OP_STRING:
        FLOE_TRY(read_len(c, &n, p->op == OP_BYTES ? "bytes" : "string"));
        return read_bytes_copy(c, n, out);
    case OP_FIXED:
        if ((size_t)(c->end - c->p) < p->w->fixed_size)
            return corrupt_at(c, "truncated fixed(%zu)", p->w->fixed_size);
        return read_bytes_copy(c, p->w->fixed_size, out);
    case OP_ENUM:
        FLOE_TRY(read_int(c, &l));
        if (l < 0 || (uint64_t)l >= p->w->n_symbols)
            return corrupt_at(c, "enum index %" PRId64 " out of range (%zu symbols)", l, p->w->n_symbols);
        if (p->symmap[l] < 0)
            return corrupt_at(c, "enum symbol '%s' is unknown to the reader", p->w->symbols[l]);
        out->u.l = p->symmap[l];
        return NULL;
    case OP_RECORD: {
        floe_avro_value *items = floe_arena_alloc(c->arena, (p->n_r ? p->n_r : 1) * sizeof *items);
        if (!items) return nomem();
        for (size_t j = 0; j < p->n_r; j++)
            if (!p->from_writer[j]) FLOE_TRY(copy_value(c->arena, &p->defaults[j], &items[j], 0));
        for (size_t i = 0; i < p->n_w; i++) {
            if (p->target[i] < 0) FLOE_TRY(skip(p->w->fields[i].type, c, depth + 1));
            else FLOE_TRY(decode(p->fplan[i], c, &items[p->target[i]], depth + 1));
        }
        out->u.items = items;
        out->len = (uint32_t)p->n_r;
        return NULL;
    }
    case OP_ARRAY:
    case OP_MAP: return decode_blocks(p, c, out, depth);
    case OP_WUNION: {
        FLOE_TRY(read_long(c, &l));
        if (l < 0 || (uint64_t)l >= p->n_branches)
            return corrupt_at(c, "union branch %" PRId64 " out of range (%zu branches)", l, p->n_branches);
        FLOE_TRY(decode(p->bplan[l], c, out, depth + 1));
        if (p->rbranch[l] >= 0) out->branch = p->rbranch[l];
        return NULL;
    }
    case OP_RUNION:
        FLOE_TRY(decode(p->item, c, out, depth + 1));
        out->branch = p->branch;
        return NULL;
    case OP_FAIL: return floe_error(FLOE_ERR_TYPE, "%s", p->msg ? p->msg : "unresolvable union branch");
    }
    return corrupt_at(c, "bad plan");
}

floe_status floe_avro_decode_resolved(const floe_avro_resolver *r, const uint8_t *data, size_t len,
                                      floe_arena *arena, floe_avro_value *out,
                                      size_t *consumed) {
    static const uint8_t empty[1] = {0};
    cursor c = {data ? data : empty, data ? data : empty, (data ? data : empty) + len, arena,
                (uint64_t)len * 8 + (1u << 20)};
    FLOE_TRY(decode(r->root, &c, out, 0));
    if (consumed) *consumed = (size_t)(c.p - c.start);
    return NULL;
}

floe_status floe_avro_decode_datum(const floe_avro_schema *writer, const floe_avro_schema *reader,
                                   const uint8_t *data, size_t len, floe_arena *arena,
                                   floe_avro_value *out, size_t *consumed) {
    floe_avro_resolver *r;
    FLOE_TRY(floe_avro_resolver_new(writer, reader, &r));
    floe_status st = floe_avro_decode_resolved(r, data, len, arena, out, consumed);
    floe_avro_resolver_free(r);
    return st;
}

/* ---- encoding ------------------------------------------------------------- */

/* Zigzag varint straight into the buffer (the encoder's hottest path). */
static inline floe_status put_long(floe_buf *b, int64_t x) {
    if (!b->data || b->cap < b->len + 11) FLOE_TRY(floe_buf_reserve(b, 10));
    uint8_t *p = b->data + b->len, *start = p;
    uint64_t v = ((uint64_t)x << 1) ^ (uint64_t)(x >> 63);
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    b->len += (size_t)(p - start);
    b->data[b->len] = 0;
    return NULL;
}

static int family(floe_avro_type t) {
    switch (t) {
    case FLOE_AVRO_INT:
    case FLOE_AVRO_LONG: return 1;
    case FLOE_AVRO_FLOAT:
    case FLOE_AVRO_DOUBLE: return 2;
    case FLOE_AVRO_STRING:
    case FLOE_AVRO_BYTES: return 3;
    default: return 10 + (int)t;
    }
}

static floe_status type_err(const floe_avro_schema *s, const floe_avro_value *v) {
    return floe_error(FLOE_ERR_TYPE, "encoding: expected %s, got a %s value",
                      floe_avro_type_name(s->type), floe_avro_type_name(v->type));
}

static floe_status encode(const floe_avro_schema *s, const floe_avro_value *v, floe_buf *b, int depth) {
    if (depth > MAX_DEPTH) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "encoding: nesting too deep");
    if (s->type == FLOE_AVRO_UNION) {
        int k = v->branch;
        if (k >= 0 && (size_t)k >= s->n_branches)
            return floe_error(FLOE_ERR_TYPE, "encoding: union branch %d out of range", k);
        if (k < 0) {
            for (size_t i = 0; i < s->n_branches && k < 0; i++)
                if (s->branches[i]->type == v->type) k = (int)i;
            for (size_t i = 0; i < s->n_branches && k < 0; i++)
                if (family(s->branches[i]->type) == family(v->type)) k = (int)i;
            if (k < 0)
                return floe_error(FLOE_ERR_TYPE, "encoding: a %s value fits no branch of the union",
                                  floe_avro_type_name(v->type));
        }
        FLOE_TRY(put_long(b, k));
        return encode(s->branches[k], v, b, depth + 1);
    }
    if (family(s->type) != family(v->type)) return type_err(s, v);
    switch (s->type) {
    case FLOE_AVRO_NULL: return NULL;
    case FLOE_AVRO_BOOLEAN: return floe_buf_append_byte(b, v->u.l ? 1 : 0);
    case FLOE_AVRO_INT:
        if (v->u.l < INT32_MIN || v->u.l > INT32_MAX)
            return floe_error(FLOE_ERR_TYPE, "encoding: %" PRId64 " does not fit an int", v->u.l);
        return put_long(b, v->u.l);
    case FLOE_AVRO_LONG: return put_long(b, v->u.l);
    case FLOE_AVRO_FLOAT: {
        float f = (float)v->u.d;
        uint32_t u;
        memcpy(&u, &f, 4);
        uint8_t t[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
        return floe_buf_append(b, t, 4);
    }
    case FLOE_AVRO_DOUBLE: {
        uint64_t u;
        memcpy(&u, &v->u.d, 8);
        uint8_t t[8];
        for (int i = 0; i < 8; i++) t[i] = (uint8_t)(u >> (8 * i));
        return floe_buf_append(b, t, 8);
    }
    case FLOE_AVRO_BYTES:
    case FLOE_AVRO_STRING:
        FLOE_TRY(put_long(b, v->len));
        return floe_buf_append(b, v->u.p, v->len);
    case FLOE_AVRO_FIXED:
        if (v->len != s->fixed_size)
            return floe_error(FLOE_ERR_TYPE, "encoding: fixed '%s' needs %zu bytes, got %u",
                              s->fullname, s->fixed_size, v->len);
        return floe_buf_append(b, v->u.p, v->len);
    case FLOE_AVRO_ENUM:
        if (v->u.l < 0 || (uint64_t)v->u.l >= s->n_symbols)
            return floe_error(FLOE_ERR_TYPE, "encoding: enum '%s' has no symbol %" PRId64,
                              s->fullname, v->u.l);
        return put_long(b, v->u.l);
    case FLOE_AVRO_RECORD:
        if (v->len != s->n_fields)
            return floe_error(FLOE_ERR_TYPE, "encoding: record '%s' has %zu fields, value has %u",
                              s->fullname, s->n_fields, v->len);
        for (size_t i = 0; i < s->n_fields; i++) {
            floe_status st = encode(s->fields[i].type, &v->u.items[i], b, depth + 1);
            if (st) return floe_status_wrap(st, "field '%s'", s->fields[i].name);
        }
        return NULL;
    case FLOE_AVRO_ARRAY:
    case FLOE_AVRO_MAP:
        if (v->len) {
            FLOE_TRY(put_long(b, v->len));
            for (uint32_t i = 0; i < v->len; i++) {
                if (s->type == FLOE_AVRO_MAP) {
                    const floe_avro_value *k = &v->u.items[2 * i];
                    if (family(k->type) != family(FLOE_AVRO_STRING))
                        return floe_error(FLOE_ERR_TYPE, "encoding: map key %u is not a string", i);
                    FLOE_TRY(put_long(b, k->len));
                    FLOE_TRY(floe_buf_append(b, k->u.p, k->len));
                    FLOE_TRY(encode(s->values, &v->u.items[2 * i + 1], b, depth + 1));
                } else {
                    FLOE_TRY(encode(s->items, &v->u.items[i], b, depth + 1));
                }
            }
        }
        return put_long(b, 0);
    case FLOE_AVRO_UNION: break;
    }
    return floe_error(FLOE_ERR_INTERNAL, "encoding: bad schema type");
}

floe_status floe_avro_encode_datum(const floe_avro_schema *schema, const floe_avro_value *v,
                                   floe_buf *out) {
    size_t base = out->len;
    floe_status st = encode(schema, v, out, 0);
    if (st) {
        out->len = base;
        if (out->data) out->data[base] = 0;
    }
    return st;
}

/* ---- JSON rendering --------------------------------------------------------
 *
 * Conventions (for people reading `floe avro cat` output):
 *  - a union value is written bare (no {"type": value} wrapper);
 *  - strings are JSON strings; bytes and fixed are JSON strings whose
 *    characters are the byte values U+0000..U+00FF (Avro's JSON encoding),
 *    so printable ASCII stays readable and other bytes appear as \u00XX;
 *  - enums are their symbol; maps are objects; records are objects in
 *    field order;
 *  - logical types are rendered as text when that is unambiguous:
 *    date "2024-01-31", time "12:34:56.789", timestamps
 *    "2024-01-31T12:34:56.789Z" (local-timestamp without the Z), uuid in
 *    8-4-4-4-12 form, duration {"months":..,"days":..,"millis":..};
 *    decimals as an exact decimal number literal (e.g. 12.50);
 *  - NaN and infinities, which JSON lacks, are the strings "NaN",
 *    "Infinity" and "-Infinity".
 */

static floe_status json_str(floe_buf *b, const uint8_t *p, size_t n, int as_bytes) {
    FLOE_TRY(floe_buf_append_byte(b, '"'));
    for (size_t i = 0; i < n; i++) {
        unsigned c = p[i];
        if (c == '"' || c == '\\') {
            FLOE_TRY(floe_buf_append_byte(b, '\\'));
            FLOE_TRY(floe_buf_append_byte(b, (uint8_t)c));
        } else if (c == '\n') {
            FLOE_TRY(floe_buf_append(b, "\\n", 2));
        } else if (c == '\t') {
            FLOE_TRY(floe_buf_append(b, "\\t", 2));
        } else if (c == '\r') {
            FLOE_TRY(floe_buf_append(b, "\\r", 2));
        } else if (c < 0x20 || c == 0x7f || (as_bytes && c >= 0x80)) {
            FLOE_TRY(floe_buf_printf(b, "\\u%04x", c));
        } else {
            FLOE_TRY(floe_buf_append_byte(b, (uint8_t)c));
        }
    }
    return floe_buf_append_byte(b, '"');
}

static floe_status json_double(floe_buf *b, double d, int is_float) {
    if (isnan(d)) return floe_buf_append_str(b, "\"NaN\"");
    if (isinf(d)) return floe_buf_append_str(b, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    char tmp[64];
    /* Shortest text that reads back to the same value. */
    for (int prec = is_float ? 6 : 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, d);
        if (is_float ? (float)strtod(tmp, NULL) == (float)d : strtod(tmp, NULL) == d) break;
    }
    if (!strpbrk(tmp, ".eEn")) strcat(tmp, ".0");
    return floe_buf_append_str(b, tmp);
}

/* days since the epoch → civil date (proleptic Gregorian). */
static void civil(int64_t days, int64_t *y, unsigned *m, unsigned *d) {
    days += 719468;
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    unsigned doe = (unsigned)(days - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yy + (*m <= 2);
}

static floe_status json_timestamp(floe_buf *b, int64_t v, int64_t per_sec, int digits, int zulu) {
    int64_t secs = v / per_sec, frac = v % per_sec;
    if (frac < 0) {
        frac += per_sec;
        secs -= 1;
    }
    int64_t days = secs / 86400, sod = secs % 86400;
    if (sod < 0) {
        sod += 86400;
        days -= 1;
    }
    int64_t y;
    unsigned m, d;
    civil(days, &y, &m, &d);
    return floe_buf_printf(b, "\"%04" PRId64 "-%02u-%02uT%02d:%02d:%02d.%0*" PRId64 "%s\"", y, m, d,
                           (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60), digits, frac,
                           zulu ? "Z" : "");
}

/* Two's-complement big-endian bytes → decimal text with `scale` digits. */
static floe_status json_decimal(floe_buf *b, const uint8_t *p, size_t n, int scale) {
    if (n == 0) return floe_buf_append_str(b, "0");
    int neg = p[0] & 0x80;
    /* magnitude as base-1e9 limbs, by repeated multiply-add */
    uint32_t limbs[128];
    size_t nl = 0;
    if (n > 64) return json_str(b, p, n, 1);
    for (size_t i = 0; i < n; i++) {
        uint32_t byte = neg ? (uint8_t)~p[i] : p[i];
        uint64_t carry = byte;
        for (size_t k = 0; k < nl; k++) {
            uint64_t x = (uint64_t)limbs[k] * 256 + carry;
            limbs[k] = (uint32_t)(x % 1000000000u);
            carry = x / 1000000000u;
        }
        while (carry) {
            limbs[nl++] = (uint32_t)(carry % 1000000000u);
            carry /= 1000000000u;
        }
    }
    if (neg) { /* magnitude = ~x + 1 */
        uint64_t carry = 1;
        for (size_t k = 0; k < nl && carry; k++) {
            uint64_t x = (uint64_t)limbs[k] + carry;
            limbs[k] = (uint32_t)(x % 1000000000u);
            carry = x / 1000000000u;
        }
        if (carry) limbs[nl++] = (uint32_t)carry;
    }
    char digits[1300];
    size_t nd = 0;
    if (nl == 0) digits[nd++] = '0';
    else {
        nd += (size_t)snprintf(digits, sizeof digits, "%u", limbs[nl - 1]);
        for (size_t k = nl - 1; k-- > 0;) nd += (size_t)snprintf(digits + nd, sizeof digits - nd, "%09u", limbs[k]);
    }
    floe_buf tmp = FLOE_BUF_INIT;
    floe_status st = NULL;
    if (neg) st = floe_buf_append_byte(&tmp, '-');
    size_t sc = (size_t)scale;
    if (!st && nd <= sc) {
        st = floe_buf_append_str(&tmp, "0.");
        for (size_t i = nd; !st && i < sc; i++) st = floe_buf_append_byte(&tmp, '0');
        if (!st) st = floe_buf_append(&tmp, digits, nd);
    } else if (!st) {
        st = floe_buf_append(&tmp, digits, nd - sc);
        if (!st && sc) st = floe_buf_append_byte(&tmp, '.');
        if (!st && sc) st = floe_buf_append(&tmp, digits + nd - sc, sc);
    }
    if (!st) st = floe_buf_append(b, tmp.data, tmp.len);
    floe_buf_free(&tmp);
    return st;
}

static floe_status to_json(const floe_avro_schema *s, const floe_avro_value *v, floe_buf *b, int depth) {
    if (depth > MAX_DEPTH) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "value nested too deeply");
    if (s->type == FLOE_AVRO_UNION) {
        int k = v->branch;
        if (k < 0 || (size_t)k >= s->n_branches) {
            for (size_t i = 0; i < s->n_branches && k < 0; i++)
                if (s->branches[i]->type == v->type) k = (int)i;
            if (k < 0) return floe_error(FLOE_ERR_TYPE, "value fits no union branch");
        }
        return to_json(s->branches[k], v, b, depth + 1);
    }
    switch (s->type) {
    case FLOE_AVRO_NULL: return floe_buf_append_str(b, "null");
    case FLOE_AVRO_BOOLEAN: return floe_buf_append_str(b, v->u.l ? "true" : "false");
    case FLOE_AVRO_INT:
        if (s->logical == FLOE_AVRO_LT_DATE) {
            int64_t y;
            unsigned m, d;
            civil(v->u.l, &y, &m, &d);
            return floe_buf_printf(b, "\"%04" PRId64 "-%02u-%02u\"", y, m, d);
        }
        if (s->logical == FLOE_AVRO_LT_TIME_MILLIS && v->u.l >= 0 && v->u.l < 86400000) {
            int64_t x = v->u.l;
            return floe_buf_printf(b, "\"%02d:%02d:%02d.%03d\"", (int)(x / 3600000), (int)(x / 60000 % 60),
                                   (int)(x / 1000 % 60), (int)(x % 1000));
        }
        return floe_buf_printf(b, "%" PRId64, v->u.l);
    case FLOE_AVRO_LONG:
        switch (s->logical) {
        case FLOE_AVRO_LT_TIME_MICROS:
            if (v->u.l >= 0 && v->u.l < 86400000000LL) {
                int64_t x = v->u.l;
                return floe_buf_printf(b, "\"%02d:%02d:%02d.%06d\"", (int)(x / 3600000000LL),
                                       (int)(x / 60000000 % 60), (int)(x / 1000000 % 60), (int)(x % 1000000));
            }
            break;
        case FLOE_AVRO_LT_TIMESTAMP_MILLIS: return json_timestamp(b, v->u.l, 1000, 3, 1);
        case FLOE_AVRO_LT_TIMESTAMP_MICROS: return json_timestamp(b, v->u.l, 1000000, 6, 1);
        case FLOE_AVRO_LT_TIMESTAMP_NANOS: return json_timestamp(b, v->u.l, 1000000000, 9, 1);
        case FLOE_AVRO_LT_LOCAL_TIMESTAMP_MILLIS: return json_timestamp(b, v->u.l, 1000, 3, 0);
        case FLOE_AVRO_LT_LOCAL_TIMESTAMP_MICROS: return json_timestamp(b, v->u.l, 1000000, 6, 0);
        case FLOE_AVRO_LT_LOCAL_TIMESTAMP_NANOS: return json_timestamp(b, v->u.l, 1000000000, 9, 0);
        default: break;
        }
        return floe_buf_printf(b, "%" PRId64, v->u.l);
    case FLOE_AVRO_FLOAT:
    case FLOE_AVRO_DOUBLE: return json_double(b, v->u.d, s->type == FLOE_AVRO_FLOAT);
    case FLOE_AVRO_STRING: return json_str(b, v->u.p, v->len, 0);
    case FLOE_AVRO_BYTES:
    case FLOE_AVRO_FIXED:
        if (s->logical == FLOE_AVRO_LT_DECIMAL) return json_decimal(b, v->u.p, v->len, s->scale);
        if (s->logical == FLOE_AVRO_LT_UUID && v->len == 16) {
            const uint8_t *u = v->u.p;
            return floe_buf_printf(b, "\"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\"",
                                   u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
                                   u[11], u[12], u[13], u[14], u[15]);
        }
        if (s->logical == FLOE_AVRO_LT_DURATION && v->len == 12) {
            const uint8_t *u = v->u.p;
            uint32_t x[3];
            for (int i = 0; i < 3; i++)
                x[i] = (uint32_t)u[4 * i] | (uint32_t)u[4 * i + 1] << 8 | (uint32_t)u[4 * i + 2] << 16 |
                       (uint32_t)u[4 * i + 3] << 24;
            return floe_buf_printf(b, "{\"months\":%u,\"days\":%u,\"millis\":%u}", x[0], x[1], x[2]);
        }
        return json_str(b, v->u.p, v->len, 1);
    case FLOE_AVRO_ENUM:
        if (v->u.l < 0 || (uint64_t)v->u.l >= s->n_symbols) return floe_error(FLOE_ERR_TYPE, "bad enum value");
        return json_str(b, (const uint8_t *)s->symbols[v->u.l], strlen(s->symbols[v->u.l]), 0);
    case FLOE_AVRO_RECORD:
        if (v->len != s->n_fields) return floe_error(FLOE_ERR_TYPE, "record value does not fit its schema");
        FLOE_TRY(floe_buf_append_byte(b, '{'));
        for (size_t i = 0; i < s->n_fields; i++) {
            if (i) FLOE_TRY(floe_buf_append_byte(b, ','));
            FLOE_TRY(json_str(b, (const uint8_t *)s->fields[i].name, strlen(s->fields[i].name), 0));
            FLOE_TRY(floe_buf_append_byte(b, ':'));
            FLOE_TRY(to_json(s->fields[i].type, &v->u.items[i], b, depth + 1));
        }
        return floe_buf_append_byte(b, '}');
    case FLOE_AVRO_ARRAY:
        FLOE_TRY(floe_buf_append_byte(b, '['));
        for (uint32_t i = 0; i < v->len; i++) {
            if (i) FLOE_TRY(floe_buf_append_byte(b, ','));
            FLOE_TRY(to_json(s->items, &v->u.items[i], b, depth + 1));
        }
        return floe_buf_append_byte(b, ']');
    case FLOE_AVRO_MAP:
        FLOE_TRY(floe_buf_append_byte(b, '{'));
        for (uint32_t i = 0; i < v->len; i++) {
            if (i) FLOE_TRY(floe_buf_append_byte(b, ','));
            FLOE_TRY(json_str(b, v->u.items[2 * i].u.p, v->u.items[2 * i].len, 0));
            FLOE_TRY(floe_buf_append_byte(b, ':'));
            FLOE_TRY(to_json(s->values, &v->u.items[2 * i + 1], b, depth + 1));
        }
        return floe_buf_append_byte(b, '}');
    case FLOE_AVRO_UNION: break;
    }
    return floe_error(FLOE_ERR_INTERNAL, "bad schema type");
}

floe_status floe_avro_value_to_json(const floe_avro_schema *schema, const floe_avro_value *v,
                                    floe_buf *out) {
    return to_json(schema, v, out, 0);
}
