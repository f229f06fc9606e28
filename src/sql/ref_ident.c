/*
 * ref_ident.c — s.t.branch_b / s.t.tag_x (see ref_ident.h).
 */
#include <string.h>

#include "sql/ref_ident.h"

static const char *after_prefix(const char *s, const char *prefix) {
    size_t n = strlen(prefix);
    return s && !strncmp(s, prefix, n) && s[n] ? s + n : NULL;
}

floe_status floe_sql_ref_ident_resolve(floe_catalog *c, const char *cat, const char *ns, const char *name,
                                       floe_sql_ref_ident *out) {
    out->ns = ns;
    out->name = name;
    out->ref = NULL;
    out->is_tag = false;
    if (!cat || !ns || !name) return NULL;
    const char *branch = after_prefix(name, "branch_"), *tag = after_prefix(name, "tag_");
    if (!branch && !tag) return NULL;
    if (!strcmp(cat, "floe")) {
        bool exists = false;
        FLOE_TRY(floe_catalog_table_exists(c, ns, name, &exists));
        if (exists) return NULL;
    }
    out->ns = cat;
    out->name = ns;
    out->ref = branch ? branch : tag;
    out->is_tag = tag != NULL;
    return NULL;
}
