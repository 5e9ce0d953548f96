/* Input: the FILE operands in turn, or standard input, read or spliced. */
#ifndef INPUT_H
#define INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Most regular files written to that an operand must not be. */
#define INPUT_MAX_OUTS 2

struct input {
	char **files;
	int nfiles;
	int next; /* index of the next operand to open */
	int fd;	  /* -1 between files */
	const char *name;
	int status;	 /* 1 once an operand could not be read */
	bool no_splice;	 /* don't splice(2) this operand */
	bool checked;	 /* no_splice and is_pipe are set for this operand */
	bool is_pipe;	 /* the operand is a pipe, else a regular file */
	bool out_pipe;	 /* standard output is a pipe */
	off_t file_left; /* bytes of a regular file known to be left */
	bool finish;	 /* a stop must not cut the read short */
	bool stopped;	 /* input_open gave up for a stop */
	int nouts;	 /* the regular files written to */
	dev_t out_dev[INPUT_MAX_OUTS];
	ino_t out_ino[INPUT_MAX_OUTS];
};

/*
 * Start reading operands files[0..nfiles), or standard input if none.  An
 * operand that is the same regular file as one of outs[0..nouts) (the
 * output, the drop file) is refused, as is standard input if it was
 * closed at start.
 */
void input_init(
    struct input *in, char **files, int nfiles, const int *outs, int nouts);

/*
 * Open the next operand if none is open; false when there are none left,
 * or when a stop was requested while one was opening (then stopped).
 */
bool input_open(struct input *in);

/*
 * The bytes of all the input when every operand (standard input too) is
 * a regular file, less what standard input has already had read; else 0.
 */
uint64_t input_total_bytes(const struct input *in);

/*
 * The records ending with delim (a last one unended too) in all the
 * operands, read ahead of the run, when they are regular files of at most
 * most_bytes in all; else 0.
 */
uint64_t input_total_records(
    const struct input *in, unsigned char delim, uint64_t most_bytes);

/* Is there a file named path (of any type, following links)? */
bool input_exists(const char *path);

/* Is path a regular file (following links)? */
bool input_regular(const char *path);

/* Read the operands again from the first (--loop: files, not stdin). */
void input_rewind(struct input *in);

/* Close the current operand. */
void input_close(struct input *in);

/*
 * Read into b[0..room), moving to the next operand at end of file; errors
 * are reported, set status and skip to the next operand.  Returns bytes
 * read, 0 at the end of all input, or -1 when a stop was requested.  When
 * fresh is not NULL, *fresh is set if the data had to be waited for.
 */
ssize_t input_read(struct input *in, char *b, size_t room, bool *fresh);

/*
 * Move input straight to standard output in the kernel.  Returns bytes
 * moved, 0 at the end of all input, -1 when a stop was requested, or
 * SPLICE_UNSUPPORTED when this operand must be read instead.
 */
/*
 * Whether a stop must wait for the rest of a record begun (sent or set
 * aside in part): reads then go on through a stop until it ends.
 */
void input_hold_stop(struct input *in, bool hold);

ssize_t input_splice(struct input *in);

/*
 * Bytes of the operand being read that are there to be spliced to
 * standard output (a pipe) without waiting, from a pipe or a regular
 * file: between 1 and max, the same bytes input_splice_out then moves.
 * At the end of an operand the next is opened.  Returns 0 at the end of
 * all input, -1 when a stop was requested, or SPLICE_UNSUPPORTED when the
 * bytes must be read instead (standard output is not a pipe, the operand
 * is neither, or a file's size says nothing is left, which only read(2)
 * can confirm).  When fresh is not NULL, *fresh is set if the input had
 * to be waited for.
 */
ssize_t input_peek(struct input *in, size_t max, bool *fresh);

/*
 * Move exactly len bytes promised by input_peek to standard output,
 * whatever signals arrive meanwhile.  Returns the bytes moved: fewer when
 * the input ended before them (a file that shrank), when splice(2) failed
 * (then no_splice is set and the caller reads the rest), when a stop was
 * asked for, or when the output's reader went away (then *gone is set and
 * a stop asked for).
 */
size_t input_splice_out(struct input *in, size_t len, bool *gone);

/*
 * Read up to len bytes of the operand being read into b, without moving
 * to the next operand: the bytes input_peek promised, when they cannot be
 * spliced.  Returns the bytes read; an error is reported, sets status and
 * closes the operand.
 */
size_t input_take(struct input *in, char *b, size_t len);

#endif
