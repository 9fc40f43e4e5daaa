// SPDX-License-Identifier: GPL-2.0
/* smc(8): output for people (tables whose columns are aligned to their
 * widest cell) and for programs (JSON, compact or pretty with -p).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "smc.h"

/* ---- tables ---- */

struct table {
	int ncols;
	int nrows;
	int cap;
	int cur;		/* next cell of the last row */
	char **cells;		/* row-major, row 0 the header if any */
};

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		perror("smc");
		exit(SMC_EXIT_ERR);
	}
	return p;
}

struct table *tbl_new(int ncols, ...)
{
	struct table *t = xrealloc(NULL, sizeof(*t));
	const char *h;
	va_list ap;
	int i;

	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	va_start(ap, ncols);
	h = va_arg(ap, const char *);
	if (h) {
		tbl_row(t);
		for (i = 0; i < ncols; i++) {
			tbl_cell(t, "%s", h);
			if (i + 1 < ncols)
				h = va_arg(ap, const char *);
		}
	}
	va_end(ap);
	return t;
}

void tbl_row(struct table *t)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->cells = xrealloc(t->cells,
				    sizeof(char *) * t->cap * t->ncols);
	}
	memset(t->cells + t->nrows * t->ncols, 0, sizeof(char *) * t->ncols);
	t->nrows++;
	t->cur = 0;
}

void tbl_cell(struct table *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (!t->nrows || t->cur >= t->ncols)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	t->cells[(t->nrows - 1) * t->ncols + t->cur++] = s;
}

void tbl_print(struct table *t)
{
	int *w = xrealloc(NULL, sizeof(int) * t->ncols);
	int r, c;

	for (c = 0; c < t->ncols; c++) {
		w[c] = 0;
		for (r = 0; r < t->nrows; r++) {
			const char *s = t->cells[r * t->ncols + c];
			int len = s ? (int)strlen(s) : 0;

			if (len > w[c])
				w[c] = len;
		}
	}
	for (r = 0; r < t->nrows; r++) {
		int last = t->ncols - 1;

		while (last > 0 && !t->cells[r * t->ncols + last])
			last--;
		for (c = 0; c <= last; c++) {
			const char *s = t->cells[r * t->ncols + c];

			if (c == last)
				printf("%s", s ? s : "");
			else
				printf("%-*s  ", w[c], s ? s : "");
		}
		putchar('\n');
		for (c = 0; c < t->ncols; c++)
			free(t->cells[r * t->ncols + c]);
	}
	free(w);
	free(t->cells);
	free(t);
}

/* ---- JSON ---- */

#define JW_DEPTH 16

static struct {
	int depth;
	bool first[JW_DEPTH];	/* nothing written yet at this level */
	bool array[JW_DEPTH];
} jw;

static void jw_indent(void)
{
	int i;

	if (!opts.pretty)
		return;
	putchar('\n');
	for (i = 0; i < jw.depth; i++)
		fputs("    ", stdout);
}

static void jw_quote(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putchar('"');
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", stdout);
			break;
		case '\\':
			fputs("\\\\", stdout);
			break;
		case '\n':
			fputs("\\n", stdout);
			break;
		case '\t':
			fputs("\\t", stdout);
			break;
		default:
			/* control characters and bytes that may not be
			 * UTF-8 (kernel strings are meant to be ASCII)
			 */
			if (*p < 0x20 || *p >= 0x7f)
				printf("\\u%04x", *p);
			else
				putchar(*p);
		}
	}
	putchar('"');
}

/* Separator, indentation and key of the next value */
static void jw_key(const char *key)
{
	if (jw.depth) {
		if (!jw.first[jw.depth])
			putchar(',');
		jw.first[jw.depth] = false;
		jw_indent();
	}
	if (key && jw.depth && !jw.array[jw.depth]) {
		jw_quote(key);
		fputs(opts.pretty ? ": " : ":", stdout);
	}
}

void jw_begin(void)
{
	memset(&jw, 0, sizeof(jw));
}

void jw_end(void)
{
	putchar('\n');
}

static void jw_open(const char *key, char c, bool array)
{
	jw_key(key);
	putchar(c);
	if (jw.depth + 1 < JW_DEPTH)
		jw.depth++;
	jw.first[jw.depth] = true;
	jw.array[jw.depth] = array;
}

static void jw_close(char c)
{
	bool empty = jw.first[jw.depth];

	if (jw.depth)
		jw.depth--;
	if (!empty)
		jw_indent();
	putchar(c);
}

void jw_obj_open(const char *key)
{
	jw_open(key, '{', false);
}

void jw_obj_close(void)
{
	jw_close('}');
}

void jw_arr_open(const char *key)
{
	jw_open(key, '[', true);
}

void jw_arr_close(void)
{
	jw_close(']');
}

void jw_str(const char *key, const char *val)
{
	jw_key(key);
	jw_quote(val);
}

void jw_str_or_null(const char *key, const char *val)
{
	if (val && *val)
		jw_str(key, val);
	else
		jw_null(key);
}

void jw_u64(const char *key, uint64_t val)
{
	jw_key(key);
	printf("%llu", (unsigned long long)val);
}

void jw_bool(const char *key, bool val)
{
	jw_key(key);
	fputs(val ? "true" : "false", stdout);
}

void jw_null(const char *key)
{
	jw_key(key);
	fputs("null", stdout);
}
