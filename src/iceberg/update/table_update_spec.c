/*
 * table_update_spec.c — partition spec evolution and sort order
 * replacement (iceberg_table_update.h: floe_ice_tm_update_spec,
 * floe_ice_tm_set_sort_order).
 *
 * A spec update works like Iceberg Java's BaseUpdatePartitionSpec: the
 * changes are recorded against the current default spec (which fields go,
 * which are renamed, which are added), then one new spec is built from
 * them.  Recording first and building once is what makes "drop a field and
 * add the same term back" restore the old field instead of minting a new
 * id, and what lets a v1 table keep its dropped fields in place as void
 * transforms.  The new spec is then installed through the JSON round trip
 * of table_update_internal.h, reusing an equivalent spec's id when the
 * table already has one.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "base/buffer.h"
#include "base/str.h"
#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"
#include "iceberg/update/table_update_internal.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory updating a partition spec"); }

/* ---- the pending update ------------------------------------------------------ */

typedef struct added_field {
    int32_t source_id;
    int32_t field_id;
    char *name;                 /* owned */
    floe_ice_transform transform;
} added_field;

typedef struct spec_update {
    const floe_ice_table_metadata *md;
    const floe_ice_schema *schema;     /* current */
    const floe_ice_partition_spec *cur; /* default spec */
    bool *deleted;                      /* per field of cur */
    char **renamed;                     /* per field of cur: new name (owned) or NULL */
    added_field *adds;
    int32_t n_adds, cap_adds;
    int32_t last_id;                    /* highest partition field id ever assigned */
} spec_update;

static void update_free(spec_update *u) {
    for (int32_t i = 0; u->cur && u->renamed && i < u->cur->n_fields; i++) floe_free(u->renamed[i]);
    floe_free(u->renamed);
    floe_free(u->deleted);
    for (int32_t i = 0; i < u->n_adds; i++) floe_free(u->adds[i].name);
    floe_free(u->adds);
}

static const char *tname(const floe_ice_transform *t, char *buf, size_t cap) {
    return floe_ice_transform_format(t, buf, cap);
}

static bool is_time(const floe_ice_transform *t) {
    return t->kind == FLOE_ICE_TRANSFORM_YEAR || t->kind == FLOE_ICE_TRANSFORM_MONTH ||
           t->kind == FLOE_ICE_TRANSFORM_DAY || t->kind == FLOE_ICE_TRANSFORM_HOUR;
}

/* The current name a field of cur will have (its rename, else its name). */
static const char *cur_name(const spec_update *u, int32_t i) {
    return u->renamed[i] ? u->renamed[i] : u->cur->fields[i].name;
}

static int32_t cur_by_name(const spec_update *u, const char *name) {
    for (int32_t i = 0; i < u->cur->n_fields; i++)
        if (strcmp(u->cur->fields[i].name, name) == 0) return i;
    return -1;
}

static int32_t cur_by_term(const spec_update *u, int32_t source_id, const floe_ice_transform *t) {
    for (int32_t i = 0; i < u->cur->n_fields; i++) {
        const floe_ice_partition_field *f = &u->cur->fields[i];
        if (f->n_source_ids == 1 && f->source_id == source_id && floe_ice_transform_equals(&f->transform, t)) return i;
    }
    return -1;
}

static int32_t added_by_name(const spec_update *u, const char *name) {
    for (int32_t i = 0; i < u->n_adds; i++)
        if (strcmp(u->adds[i].name, name) == 0) return i;
    return -1;
}

static int32_t added_by_term(const spec_update *u, int32_t source_id, const floe_ice_transform *t) {
    for (int32_t i = 0; i < u->n_adds; i++)
        if (u->adds[i].source_id == source_id && floe_ice_transform_equals(&u->adds[i].transform, t)) return i;
    return -1;
}

static floe_status set_rename(spec_update *u, int32_t i, const char *name) {
    char *s = floe_strdup(name);
    if (!s) return oom();
    floe_free(u->renamed[i]);
    u->renamed[i] = s;
    return NULL;
}

/* "name_<field id>": where a v1 void field goes when its name is taken. */
static floe_status rename_aside(spec_update *u, int32_t i) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s_%d", u->cur->fields[i].name, (int)u->cur->fields[i].field_id);
    return set_rename(u, i, buf);
}

/* FLOE_ERR_NOT_FOUND for a partition field name, suggesting the spec's. */
static floe_status unknown_field(const spec_update *u, const char *name) {
    int32_t n = u->cur->n_fields;
    if (n == 0)
        return floe_error(FLOE_ERR_NOT_FOUND, "partition field '%s' does not exist: the table is not partitioned",
                          name);
    const char **names = floe_malloc_array((size_t)n, sizeof *names);
    if (!names) return oom();
    for (int32_t i = 0; i < n; i++) names[i] = u->cur->fields[i].name;
    floe_status st = floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "partition field", floe_str_c(name),
                                             (const char *const *)names, (size_t)n);
    floe_free(names);
    return st;
}

/* Column path -> id, FLOE_ERR_NOT_FOUND with a "did you mean" otherwise. */
static floe_status resolve_column(const floe_ice_schema *s, const char *path, const floe_ice_field **out) {
    *out = path ? floe_ice_schema_find_by_name(s, path, true) : NULL;
    if (*out) return NULL;
    int32_t hi = floe_ice_schema_highest_field_id(s);
    const char **names = floe_malloc_array(hi > 0 ? (size_t)hi : 1, sizeof *names);
    if (!names) return oom();
    size_t n = 0;
    for (int32_t id = 1; id <= hi; id++) {
        const char *nm = floe_ice_schema_field_name(s, id);
        if (nm) names[n++] = nm;
    }
    floe_status st = floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "column", floe_str_c(path ? path : ""),
                                             (const char *const *)names, n);
    floe_free(names);
    return st;
}

/* A term's source id and a check that the transform applies to it. */
static floe_status resolve_term(const spec_update *u, const char *column, const floe_ice_transform *t,
                                int32_t *source_id) {
    const floe_ice_field *f = NULL;
    FLOE_TRY(resolve_column(u->schema, column, &f));
    char tb[80];
    if (t->kind == FLOE_ICE_TRANSFORM_UNKNOWN)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "unknown partition transform '%s'", t->name);
    if (!floe_ice_type_is_primitive(f->type))
        return floe_error(FLOE_ERR_TYPE, "cannot partition by column '%s': it is a %s, not a primitive type",
                          column, floe_ice_type_id_name(f->type->id));
    if (floe_ice_schema_in_list_or_map(u->schema, f->id))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot partition by column '%s': it is inside a list or map",
                          column);
    if (!floe_ice_transform_can_apply(t, f->type))
        return floe_error(FLOE_ERR_TYPE, "transform %s cannot apply to column '%s' of type %s", tname(t, tb, sizeof tb),
                          column, floe_ice_type_id_name(f->type->id));
    *source_id = f->id;
    return NULL;
}

/* UpdatePartitionSpec's default name for a new field. */
static floe_status default_name(const floe_ice_transform *t, const char *column, char **out) {
    char buf[600];
    switch (t->kind) {
    case FLOE_ICE_TRANSFORM_BUCKET: snprintf(buf, sizeof buf, "%s_bucket_%d", column, (int)t->param); break;
    case FLOE_ICE_TRANSFORM_TRUNCATE: snprintf(buf, sizeof buf, "%s_trunc_%d", column, (int)t->param); break;
    default: return floe_ice_partition_default_name(t, column, out);
    }
    *out = floe_strdup(buf);
    return *out ? NULL : oom();
}

/* v2+: a field of any spec with this source and transform (and name, when
 * one is given) — its id is recycled. */
static const floe_ice_partition_field *historical(const spec_update *u, int32_t source_id, const floe_ice_transform *t,
                                                  const char *name) {
    if (u->md->format_version < 2) return NULL;
    for (int32_t s = 0; s < u->md->n_specs; s++)
        for (int32_t i = 0; i < u->md->specs[s]->n_fields; i++) {
            const floe_ice_partition_field *f = &u->md->specs[s]->fields[i];
            if (f->n_source_ids == 1 && f->source_id == source_id && floe_ice_transform_equals(&f->transform, t) &&
                (!name || strcmp(f->name, name) == 0))
                return f;
        }
    return NULL;
}

static floe_status do_rename(spec_update *u, const char *name, const char *new_name);

static floe_status do_add(spec_update *u, const char *column, const floe_ice_transform *t, const char *name) {
    char tb[80];
    if (name && !*name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a partition field name cannot be empty");
    if (name && added_by_name(u, name) >= 0)
        return floe_error(FLOE_ERR_ALREADY_EXISTS, "partition field '%s' is added twice", name);
    int32_t src = 0;
    FLOE_TRY(resolve_term(u, column, t, &src));
    int32_t ex = cur_by_term(u, src, t);
    if (ex >= 0 && u->deleted[ex]) {
        /* Dropped and added back by the same update: the field stays. */
        u->deleted[ex] = false;
        if (!name || strcmp(name, u->cur->fields[ex].name) == 0) return NULL;
        return do_rename(u, u->cur->fields[ex].name, name);
    }
    if (ex >= 0)
        return floe_error(FLOE_ERR_ALREADY_EXISTS, "the table is already partitioned by %s(%s) (partition field '%s')",
                          tname(t, tb, sizeof tb), column, cur_name(u, ex));
    if (added_by_term(u, src, t) >= 0)
        return floe_error(FLOE_ERR_ALREADY_EXISTS, "partition field %s(%s) is added twice", tname(t, tb, sizeof tb),
                          column);
    added_field a = {src, 0, NULL, *t};
    const floe_ice_partition_field *old = historical(u, src, t, name);
    if (old) {
        a.field_id = old->field_id;
        a.name = floe_strdup(name ? name : old->name);
        if (!a.name) return oom();
    } else {
        if (u->last_id == INT32_MAX) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "the table has run out of partition field ids");
        a.field_id = u->last_id + 1;
        if (name) {
            a.name = floe_strdup(name);
            if (!a.name) return oom();
        } else {
            FLOE_TRY(default_name(t, column, &a.name));
        }
    }
    floe_status st = NULL;
    /* Two time transforms of one column would say the same thing twice. */
    for (int32_t i = 0; !st && is_time(t) && i < u->n_adds; i++)
        if (u->adds[i].source_id == src && is_time(&u->adds[i].transform))
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot add partition field '%s': it is redundant with '%s', "
                            "which partitions the same column by time", a.name, u->adds[i].name);
    /* The name: a live field of the spec keeps it unless it is a v1 void
     * left over from an earlier drop, which steps aside. */
    int32_t same = st ? -1 : cur_by_name(u, a.name);
    if (same >= 0 && !u->deleted[same]) {
        if (u->cur->fields[same].transform.kind == FLOE_ICE_TRANSFORM_VOID) st = rename_aside(u, same);
        else st = floe_error(FLOE_ERR_ALREADY_EXISTS, "partition field '%s' already exists", a.name);
    } else if (same >= 0) {
        st = rename_aside(u, same);
    }
    if (!st && u->n_adds == u->cap_adds) {
        int32_t cap = u->cap_adds ? u->cap_adds * 2 : 4;
        added_field *na = floe_realloc(u->adds, (size_t)cap * sizeof *na);
        if (!na) st = oom();
        else {
            u->adds = na;
            u->cap_adds = cap;
        }
    }
    if (st) {
        floe_free(a.name);
        return st;
    }
    if (a.field_id > u->last_id) u->last_id = a.field_id;
    u->adds[u->n_adds++] = a;
    return NULL;
}

static floe_status remove_at(spec_update *u, int32_t i) {
    if (u->renamed[i] && u->cur->fields[i].transform.kind != FLOE_ICE_TRANSFORM_VOID)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot rename and drop partition field '%s' in one change",
                          u->cur->fields[i].name);
    u->deleted[i] = true;
    return NULL;
}

static floe_status do_remove_name(spec_update *u, const char *name) {
    if (added_by_name(u, name) >= 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot drop partition field '%s': it is added by the same change",
                          name);
    int32_t i = cur_by_name(u, name);
    if (i < 0) return unknown_field(u, name);
    return remove_at(u, i);
}

static floe_status do_remove_term(spec_update *u, const char *column, const floe_ice_transform *t) {
    char tb[80];
    int32_t src = 0;
    FLOE_TRY(resolve_term(u, column, t, &src));
    if (added_by_term(u, src, t) >= 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot drop partition field %s(%s): it is added by the same change",
                          tname(t, tb, sizeof tb), column);
    int32_t i = cur_by_term(u, src, t);
    if (i < 0) {
        if (u->cur->n_fields == 0)
            return floe_error(FLOE_ERR_NOT_FOUND, "cannot drop partition field %s(%s): the table is not partitioned",
                              tname(t, tb, sizeof tb), column);
        floe_buf b;
        floe_buf_init(&b);
        for (int32_t k = 0; k < u->cur->n_fields; k++) {
            const floe_ice_partition_field *f = &u->cur->fields[k];
            char fb[80];
            const char *src_name = floe_ice_schema_field_name(u->schema, f->source_id);
            floe_status bs = floe_buf_printf(&b, "%s%s %s(%s)", k ? ", " : "", f->name,
                                             tname(&f->transform, fb, sizeof fb), src_name ? src_name : "?");
            if (bs) {
                floe_buf_free(&b);
                return bs;
            }
        }
        floe_status st = floe_error(FLOE_ERR_NOT_FOUND,
                                    "cannot drop partition field %s(%s): the partition spec has no such field "
                                    "(its fields: %s)", tname(t, tb, sizeof tb), column, floe_buf_cstr(&b));
        floe_buf_free(&b);
        return st;
    }
    return remove_at(u, i);
}

static floe_status do_rename(spec_update *u, const char *name, const char *new_name) {
    if (!new_name || !*new_name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a partition field name cannot be empty");
    int32_t taken = cur_by_name(u, new_name);
    if (taken >= 0 && u->cur->fields[taken].transform.kind == FLOE_ICE_TRANSFORM_VOID && strcmp(name, new_name) != 0)
        FLOE_TRY(rename_aside(u, taken));
    if (added_by_name(u, name) >= 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot rename partition field '%s': it is added by the same change",
                          name);
    int32_t i = cur_by_name(u, name);
    if (i < 0) return unknown_field(u, name);
    if (u->deleted[i])
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot drop and rename partition field '%s' in one change", name);
    return set_rename(u, i, new_name);
}

/* ---- building the new spec ---------------------------------------------------- */

static floe_status build(const spec_update *u, floe_ice_partition_spec **out) {
    floe_ice_partition_spec *s = NULL;
    FLOE_TRY(floe_ice_partition_spec_new(0, &s));
    floe_status st = NULL;
    for (int32_t i = 0; !st && i < u->cur->n_fields; i++) {
        const floe_ice_partition_field *f = &u->cur->fields[i];
        if (!u->deleted[i]) {
            st = floe_ice_partition_spec_add(s, f->source_id, f->field_id, cur_name(u, i), f->transform);
        } else if (u->md->format_version < 2) {
            /* v1 numbers partition fields by position: the field stays,
             * always null from now on. */
            st = floe_ice_partition_spec_add(s, f->source_id, f->field_id, cur_name(u, i),
                                             floe_ice_transform_make(FLOE_ICE_TRANSFORM_VOID, 0));
        }
    }
    for (int32_t i = 0; !st && i < u->n_adds; i++)
        st = floe_ice_partition_spec_add(s, u->adds[i].source_id, u->adds[i].field_id, u->adds[i].name,
                                         u->adds[i].transform);
    /* Redundant partitions in the result (Java's builder rule): two time
     * transforms of one column, or the same transform twice. */
    for (int32_t i = 0; !st && i < s->n_fields; i++)
        for (int32_t k = 0; !st && k < i; k++) {
            const floe_ice_partition_field *a = &s->fields[k], *b = &s->fields[i];
            if (a->transform.kind == FLOE_ICE_TRANSFORM_VOID || b->transform.kind == FLOE_ICE_TRANSFORM_VOID) continue;
            if (a->n_source_ids != 1 || b->n_source_ids != 1 || a->source_id != b->source_id) continue;
            if ((is_time(&a->transform) && is_time(&b->transform)) || floe_ice_transform_equals(&a->transform, &b->transform))
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT,
                                "partition field '%s' is redundant with partition field '%s' (both partition column "
                                "'%s'%s); drop '%s' first or replace it",
                                b->name, a->name,
                                floe_ice_schema_field_name(u->schema, a->source_id)
                                    ? floe_ice_schema_field_name(u->schema, a->source_id) : "?",
                                is_time(&a->transform) ? " by time" : "", a->name);
        }
    if (!st) st = floe_ice_partition_spec_validate(s, u->schema);
    if (st) {
        floe_ice_partition_spec_free(s);
        return st;
    }
    *out = s;
    return NULL;
}

/* Install `spec` as the default spec of new metadata: an equivalent
 * existing spec gives its id, else the spec is added with the next id. */
static floe_status install_spec(const floe_ice_table_metadata *md, floe_ice_partition_spec *spec, int32_t last_id,
                                floe_ice_table_metadata **out) {
    int32_t id = -1, highest = -1;
    for (int32_t i = 0; i < md->n_specs; i++) {
        if (md->specs[i]->spec_id > highest) highest = md->specs[i]->spec_id;
        if (id < 0 && floe_ice_partition_spec_equivalent(md->specs[i], spec)) id = md->specs[i]->spec_id;
    }
    json_t *tree = NULL;
    FLOE_TRY(floe_ice_tm_edit_begin(md, &tree));
    floe_status st = NULL;
    if (id < 0) {
        id = highest + 1;
        spec->spec_id = id;
        json_t *js = NULL, *arr = json_object_get(tree, "partition-specs");
        st = json_is_array(arr) ? floe_ice_partition_spec_to_json(spec, &js)
                                : floe_error(FLOE_ERR_INTERNAL, "metadata JSON has no 'partition-specs' array");
        if (!st && json_array_append_new(arr, js)) st = oom();
    }
    int32_t last = md->last_partition_id;
    if (last_id > last) last = last_id;
    int32_t spec_last = floe_ice_partition_spec_last_field_id(spec);
    if (spec_last > last) last = spec_last;
    /* v1 also carries the default spec as "partition-spec"; the writer
     * derives it from default-spec-id, so the stale copy goes. */
    json_object_del(tree, "partition-spec");
    if (!st && (json_object_set_new(tree, "default-spec-id", json_integer(id)) ||
                json_object_set_new(tree, "last-partition-id", json_integer(last))))
        st = oom();
    if (st) {
        json_decref(tree);
        return st;
    }
    return floe_ice_tm_edit_finish(md, tree, out);
}

floe_status floe_ice_tm_update_spec(const floe_ice_table_metadata *md, const floe_ice_spec_change *changes, int32_t n,
                                    floe_ice_table_metadata **out) {
    *out = NULL;
    if (!md || n < 0 || (n > 0 && !changes))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "bad partition spec change list");
    spec_update u;
    memset(&u, 0, sizeof u);
    u.md = md;
    u.schema = floe_ice_tm_current_schema(md);
    u.cur = floe_ice_tm_default_spec(md);
    if (!u.schema || !u.cur) return floe_error(FLOE_ERR_CORRUPT, "table metadata has no current schema or default spec");
    char tb[80];
    for (int32_t i = 0; i < u.cur->n_fields; i++)
        if (u.cur->fields[i].transform.kind == FLOE_ICE_TRANSFORM_UNKNOWN)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                              "cannot change the partition spec: field '%s' has transform '%s', which floe does not know",
                              u.cur->fields[i].name, tname(&u.cur->fields[i].transform, tb, sizeof tb));
    /* Never reuse an id: trust the highest id of any spec over a
     * last-partition-id some writer left too low. */
    u.last_id = md->last_partition_id;
    for (int32_t i = 0; i < md->n_specs; i++) {
        int32_t h = floe_ice_partition_spec_last_field_id(md->specs[i]);
        if (h > u.last_id) u.last_id = h;
    }
    if (u.last_id < FLOE_ICE_PARTITION_DATA_ID_START - 1) u.last_id = FLOE_ICE_PARTITION_DATA_ID_START - 1;
    int32_t nf = u.cur->n_fields;
    u.deleted = floe_calloc(nf ? (size_t)nf : 1, sizeof *u.deleted);
    u.renamed = floe_calloc(nf ? (size_t)nf : 1, sizeof *u.renamed);
    floe_status st = u.deleted && u.renamed ? NULL : oom();
    for (int32_t i = 0; !st && i < n; i++) {
        const floe_ice_spec_change *c = &changes[i];
        switch (c->kind) {
        case FLOE_ICE_SPEC_ADD_FIELD:
            st = c->column ? do_add(&u, c->column, &c->transform, c->name)
                           : floe_error(FLOE_ERR_INVALID_ARGUMENT, "adding a partition field needs a column");
            break;
        case FLOE_ICE_SPEC_REMOVE_FIELD:
            st = c->column ? do_remove_term(&u, c->column, &c->transform)
                 : c->name ? do_remove_name(&u, c->name)
                           : floe_error(FLOE_ERR_INVALID_ARGUMENT, "dropping a partition field needs a term or a name");
            break;
        case FLOE_ICE_SPEC_RENAME_FIELD:
            st = c->name ? do_rename(&u, c->name, c->new_name)
                         : floe_error(FLOE_ERR_INVALID_ARGUMENT, "renaming a partition field needs its name");
            break;
        default: st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "unknown partition spec change %d", (int)c->kind);
        }
    }
    floe_ice_partition_spec *spec = NULL;
    if (!st) st = build(&u, &spec);
    int32_t last_id = u.last_id;
    update_free(&u);
    if (!st) st = install_spec(md, spec, last_id, out);
    floe_ice_partition_spec_free(spec);
    return st;
}

/* ---- sort orders ------------------------------------------------------------------ */

floe_status floe_ice_tm_set_sort_order(const floe_ice_table_metadata *md, const floe_ice_sort_order *order,
                                       floe_ice_table_metadata **out) {
    *out = NULL;
    if (!md || !order) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "no sort order given");
    const floe_ice_schema *schema = floe_ice_tm_current_schema(md);
    if (!schema) return floe_error(FLOE_ERR_CORRUPT, "table metadata has no current schema");
    floe_ice_sort_order *o = NULL;
    FLOE_TRY(floe_ice_sort_order_copy(order, &o));
    int32_t id = -1, highest = 0;
    for (int32_t i = 0; i < md->n_sort_orders; i++) {
        const floe_ice_sort_order *e = md->sort_orders[i];
        if (e->order_id > highest) highest = e->order_id;
        if (id < 0 && floe_ice_sort_order_same_fields(e, o)) id = e->order_id;
    }
    if (id < 0) id = o->n_fields == 0 ? 0 : highest + 1;
    o->order_id = id;
    floe_status st = floe_ice_sort_order_validate(o, schema);
    if (st) {
        floe_ice_sort_order_free(o);
        return floe_status_wrap(st, "sort order");
    }
    json_t *tree = NULL;
    st = floe_ice_tm_edit_begin(md, &tree);
    bool exists = floe_ice_tm_sort_order(md, id) != NULL;
    if (!st && !exists) {
        json_t *jo = NULL, *arr = json_object_get(tree, "sort-orders");
        if (!json_is_array(arr)) {
            arr = json_array();
            if (!arr || json_object_set_new(tree, "sort-orders", arr)) st = oom();
        }
        if (!st) st = floe_ice_sort_order_to_json(o, &jo);
        if (!st && json_array_append_new(arr, jo)) st = oom();
    }
    floe_ice_sort_order_free(o);
    if (!st && json_object_set_new(tree, "default-sort-order-id", json_integer(id))) st = oom();
    if (st) {
        json_decref(tree);
        return st;
    }
    return floe_ice_tm_edit_finish(md, tree, out);
}
