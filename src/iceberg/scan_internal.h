/*
 * scan_internal.h — pieces of scan planning shared between its files: the
 * process-wide manifest cache (manifest_cache.c) used by the planner
 * (scan_plan.c).
 */
#ifndef FLOE_ICEBERG_SCAN_INTERNAL_H
#define FLOE_ICEBERG_SCAN_INTERNAL_H

#include "floe/iceberg_manifest.h"
#include "floe/iceberg_table_metadata.h"

typedef struct floe_ice_cached_manifest floe_ice_cached_manifest;

/* Get the decoded manifest `mf` of table `t` (from the cache, or read and
 * inserted).  *m stays valid until floe_ice_manifest_cache_release(*h). */
floe_status floe_ice_manifest_cache_get(const floe_ice_table *t, const floe_ice_manifest_file *mf,
                                        floe_ice_cached_manifest **h, const floe_ice_manifest **m) FLOE_WARN_UNUSED;
void floe_ice_manifest_cache_release(floe_ice_cached_manifest *h);


#endif
