/*
 * catalog_config.h — the catalog options of the `floe` SQL front:
 * --catalog, --catalog-credential, --catalog-token, --catalog-config and
 * --warehouse turned into one catalog URI and its properties for
 * floe_session_open_catalog.
 */
#ifndef FLOE_CLI_CATALOG_CONFIG_H
#define FLOE_CLI_CATALOG_CONFIG_H

#include <stddef.h>

#include "floe/fileio.h"
#include "floe/status.h"

typedef struct floe_cli_catalog {
    char *uri;             /* what floe_session_open_catalog opens */
    floe_property *props;  /* owned keys and values */
    size_t n_props, cap;
} floe_cli_catalog;

typedef struct floe_cli_catalog_args {
    const char *warehouse;   /* --warehouse (NULL: $FLOE_WAREHOUSE, ./warehouse) */
    const char *catalog;     /* --catalog: rest:URL, http(s)://URL, or a SQLite file */
    const char *credential;  /* --catalog-credential ID:SECRET */
    const char *token;       /* --catalog-token T */
    const char *config_file; /* --catalog-config FILE */
} floe_cli_catalog_args;

/* Resolve the options.  A config file is a JSON object of string
 * properties or "key=value" lines (# comments); its "uri" names the
 * catalog (http(s)://... means REST).  Flags override the file; for a REST
 * catalog $FLOE_CATALOG_CREDENTIAL / $FLOE_CATALOG_TOKEN are used when no
 * flag or file gives one, and --warehouse is its "warehouse" property. */
floe_status floe_cli_catalog_resolve(const floe_cli_catalog_args *a, floe_cli_catalog *out) FLOE_WARN_UNUSED;
void floe_cli_catalog_free(floe_cli_catalog *c);

#endif
