/*
 * floe.h — floe as a C library: the small, stable API an embedding program
 * uses (what libfloe.so exports, besides the floe_status accessors of
 * status.h).  Its shape is DuckDB's C API:
 *
 *   floe_database *db;  floe_connection *conn;
 *   floe_status st = floe_database_open("warehouse", NULL, 0, &db);
 *   if (!st) st = floe_connect(db, &conn);
 *   struct ArrowArrayStream out;
 *   if (!st) st = floe_query(conn, "SELECT 1 AS x", &out);
 *   if (st) { fprintf(stderr, "%s\n", floe_status_message(st)); floe_status_free(st); }
 *   ... out.get_schema / out.get_next / out.release ...
 *   floe_disconnect(conn); floe_database_close(db);
 *
 * Results come as an Arrow C stream (the Arrow C Stream Interface, whose
 * structs arrow_abi.h defines): the query runs to completion inside floe_query, its batches
 * are kept, and the stream hands them out without copying their buffers.
 * The stream may outlive the connection and the database.
 *
 * Errors are floe_status values (status.h): NULL is success; otherwise
 * floe_status_code() gives the kind (FLOE_ERR_SYNTAX, FLOE_ERR_NOT_FOUND,
 * FLOE_ERR_CANCELLED, ...), floe_status_message() the text naming what
 * failed and where, and the caller frees it with floe_status_free().
 *
 * Threads: a database may be shared by any number of threads.  A
 * connection (and its prepared statements) is used by one thread at a
 * time; floe_interrupt() alone may be called from any thread while
 * another runs a statement on the connection.  Connections are
 * independent sessions (their own SET options), so give each thread one.
 */
#ifndef FLOE_FLOE_H
#define FLOE_FLOE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/arrow_abi.h"
#include "floe/property.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct floe_database floe_database;
typedef struct floe_connection floe_connection;
typedef struct floe_prepared floe_prepared;

/* The library's version, "0.1.0" (that of the soname). */
const char *floe_library_version(void);

/* Open a database: `uri` is a warehouse directory (created when missing,
 * with its SQLite catalog inside), sqlite:<db>?warehouse=<location>, or
 * rest:http(s)://host[/path]; props are catalog and FileIO options
 * (credential, token, warehouse, s3.endpoint, ...; NULL/0 for none), copied.
 * The catalog is opened once here, so a bad URI fails now. */
floe_status floe_database_open(const char *uri, const floe_property *props, size_t n_props,
                               floe_database **out) FLOE_WARN_UNUSED;
/* Close the handle (NULL-safe).  Connections still open keep what they
 * need and stay usable until floe_disconnect. */
void floe_database_close(floe_database *db);

/* A new connection: a session on the database's catalog. */
floe_status floe_connect(floe_database *db, floe_connection **out) FLOE_WARN_UNUSED;
void floe_disconnect(floe_connection *conn); /* NULL-safe */

/* Run every statement of `sql` in order, stopping at the first error.
 * `out` (may be NULL: results dropped) receives the result of the last
 * statement: its rows, or for a statement that returns none (CREATE,
 * INSERT, SET) a stream with no columns and no batches.  On error
 * out->release is NULL. */
floe_status floe_query(floe_connection *conn, const char *sql, struct ArrowArrayStream *out) FLOE_WARN_UNUSED;

/* What the last successful statement of the connection was: its command
 * tag as psql prints it ("SELECT 3", "INSERT 0 3", "CREATE TABLE"; ""
 * before any) and the rows it returned or affected.  The tag is valid
 * until the next statement. */
const char *floe_last_tag(const floe_connection *conn);
int64_t floe_rows_changed(const floe_connection *conn);

/* Interrupt the statement running on `conn` (from any thread): it returns
 * FLOE_ERR_CANCELLED soon.  Nothing happens when none runs; the next
 * statement runs normally. */
void floe_interrupt(floe_connection *conn);

/* ---- prepared statements -------------------------------------------------
 * One statement with parameters $1, $2, ... (PostgreSQL's spelling).  Each
 * bound value goes into the statement as a literal of its type (text takes
 * its type from where it stands, as an untyped PostgreSQL parameter does),
 * so bound values are data, never SQL.  Bindings stay until re-bound or
 * cleared; every parameter must be bound before floe_execute.  The text
 * is parsed at floe_prepare (a syntax error is its error); names are
 * resolved at each floe_execute, so it sees the tables as they are then. */
floe_status floe_prepare(floe_connection *conn, const char *sql, floe_prepared **out) FLOE_WARN_UNUSED;
/* The highest $n the statement uses. */
int32_t floe_prepared_param_count(const floe_prepared *p);
/* `index` counts from 1; out of range is FLOE_ERR_INVALID_ARGUMENT. */
floe_status floe_bind_null(floe_prepared *p, int32_t index) FLOE_WARN_UNUSED;
floe_status floe_bind_bool(floe_prepared *p, int32_t index, bool value) FLOE_WARN_UNUSED;
floe_status floe_bind_int64(floe_prepared *p, int32_t index, int64_t value) FLOE_WARN_UNUSED;
floe_status floe_bind_double(floe_prepared *p, int32_t index, double value) FLOE_WARN_UNUSED;
/* UTF-8 text, copied. */
floe_status floe_bind_text(floe_prepared *p, int32_t index, const char *value) FLOE_WARN_UNUSED;
void floe_clear_bindings(floe_prepared *p);
/* Run it on its connection, as floe_query does. */
floe_status floe_execute(floe_prepared *p, struct ArrowArrayStream *out) FLOE_WARN_UNUSED;
void floe_prepared_free(floe_prepared *p); /* NULL-safe; before its connection */

#ifdef __cplusplus
}
#endif
#endif
