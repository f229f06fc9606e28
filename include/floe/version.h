/* version.h — floe's version, for `floe --version` and file metadata. */
#ifndef FLOE_VERSION_H
#define FLOE_VERSION_H
#define FLOE_VERSION_STRING "0.1.0"
/* Written into Parquet `created_by` and Avro/Iceberg metadata. */
#define FLOE_CREATED_BY "floe version " FLOE_VERSION_STRING
#endif
