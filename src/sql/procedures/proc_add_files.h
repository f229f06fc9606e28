/*
 * proc_add_files.h — the core of add_files, shared with snapshot and
 * migrate (proc_migrate.c), which make a new table first.
 */
#ifndef FLOE_SQL_PROCEDURES_PROC_ADD_FILES_H
#define FLOE_SQL_PROCEDURES_PROC_ADD_FILES_H

#include <stdbool.h>
#include <stdint.h>

#include "sql/procedures/procedure.h"

/* The folder of source argument `sa` ('`parquet`.`/dir`'; *dir
 * floe_malloc'd); another format or form is an error naming the call. */
floe_status proc_parquet_source(const floe_proc_call *call, const floe_proc_arg *sa, char **dir) FLOE_WARN_UNUSED;

/* Register every (not hidden) file below `dir` — never one in the table's
 * own metadata folder — as a data file of ns.name in one append, as
 * add_files does (see proc_add_files.c); pfilter may be NULL or not given.
 * *added: files added; *changed_partitions: their partitions. */
floe_status proc_add_files_from(floe_proc_call *call, const char *ns, const char *name, const floe_proc_arg *sa,
                                const char *dir, const floe_proc_arg *pfilter, bool check_dup, int64_t *added,
                                int64_t *changed_partitions) FLOE_WARN_UNUSED;

#endif
