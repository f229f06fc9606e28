/* property.h — a configuration entry: catalog, FileIO and table options
 * (fileio.h, catalog.h) and the embedding API's database options (floe.h)
 * are arrays of these. */
#ifndef FLOE_PROPERTY_H
#define FLOE_PROPERTY_H

typedef struct floe_property {
    const char *key;
    const char *value;
} floe_property;

#endif
