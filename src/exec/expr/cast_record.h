/*
 * cast_record.h — a struct (PostgreSQL's record, ROW(...)) as text, the
 * way PostgreSQL's record_out prints it.
 */
#ifndef FLOE_EXEC_CAST_RECORD_H
#define FLOE_EXEC_CAST_RECORD_H

#include "floe/columnar.h"
#include "floe/status.h"

/* n rows of struct array a as strings: "(1,a)", fields comma-separated,
 * a NULL field empty, a field quoted ("a b") when it is empty or holds a
 * blank, a comma, a parenthesis, a double quote or a backslash (those two
 * doubled inside); booleans as t / f, nested lists and records as their
 * own text.  A NULL struct is NULL. */
floe_status floe_cast_struct_to_text(const floe_array *a, int64_t n, floe_array **out) FLOE_WARN_UNUSED;

#endif
