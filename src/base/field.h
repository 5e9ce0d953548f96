/* Fields of a record, split as -k and -F say: pure, no I/O. */
#ifndef FIELD_H
#define FIELD_H

#include <stddef.h>

/*
 * Field number field (1-based) of the record rec[0..len), its delimiter
 * already taken off: with sep -1 fields are separated by runs of blanks
 * (spaces and tabs) and leading blanks are skipped, as in awk; else by
 * every byte sep.  Stores the field's start in *key and returns its
 * length; a record with fewer fields has the empty key.
 */
size_t field_of(
    const char *rec, size_t len, unsigned field, int sep, const char **key);

#endif
