/*
 * catalog_rest_stub.c — TEMPORARY: rest: URIs until catalog_rest.c lands.
 */
#include "iceberg/catalog_impl.h"

floe_status floe_catalog_open_rest(const char *uri, const floe_property *props, size_t n_props, floe_catalog **out) {
    (void)props;
    (void)n_props;
    *out = NULL;
    return floe_error(FLOE_ERR_UNSUPPORTED, "REST catalogs are not built yet ('%s')", uri);
}
