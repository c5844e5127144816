/*--------------------------------------------------------------------*/
/*--- Incremental reader for perf map files (/tmp/perf-PID.map).   ---*/
/*---                                                readperfmap.c ---*/
/*--------------------------------------------------------------------*/

/*
   This file is part of Valgrind, a dynamic binary instrumentation
   framework.

   Copyright (C) 2026 the valgrind-jit authors.

   This program is free software; you can redistribute it and/or
   modify it under the terms of the GNU General Public License as
   published by the Free Software Foundation; either version 3 of the
   License, or (at your option) any later version.

   This program is distributed in the hope that it will be useful, but
   WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
   General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program; if not, see <http://www.gnu.org/licenses/>.

   The GNU General Public License is contained in the file COPYING.
*/

/* Format (Linux tools/perf/Documentation/jit-interface.txt): one entry a
   line, "START SIZE name\n", START and SIZE in hexadecimal without a
   0x prefix (an optional 0x/0X is accepted), separated by blanks; the
   name runs to the end of the line and may contain blanks and
   parentheses.  A trailing '\r' is removed.  Blank lines are ignored.

   Portable C99 without libc and without Valgrind headers: this file is
   compiled into Valgrind's core and into user-space programs alike.
   See priv_readperfmap.h for the API. */

#include "priv_jitbytes.h"
#include "priv_readperfmap.h"

static int is_blank(unsigned char c)
{
   return c == ' ' || c == '\t';
}

static int hex_value(unsigned char c)
{
   if (c >= '0' && c <= '9') return c - '0';
   if (c >= 'a' && c <= 'f') return c - 'a' + 10;
   if (c >= 'A' && c <= 'F') return c - 'A' + 10;
   return -1;
}

/* Parse a hex number at p[*i..n).  On success stores it in *out, moves
   *i past it and returns PERFMAP_OK; else returns `bad` or
   PERFMAP_ERR_NUMBER_TOO_BIG.  The number must be followed by a blank
   or the end of the line. */
static int parse_hex(const unsigned char* p, unsigned long n,
                     unsigned long* i, unsigned long long* out, int bad)
{
   unsigned long k = *i;
   unsigned long long v = 0;
   unsigned int significant = 0;
   int any = 0;

   if (k + 1 < n && p[k] == '0' && (p[k + 1] == 'x' || p[k + 1] == 'X'))
      k += 2;
   while (k < n && hex_value(p[k]) >= 0) {
      int d = hex_value(p[k]);
      any = 1;
      if (significant > 0 || d != 0)
         significant++;
      if (significant > 16)
         return PERFMAP_ERR_NUMBER_TOO_BIG;
      v = (v << 4) | (unsigned long long)d;
      k++;
   }
   if (!any)
      return bad;
   if (k < n && !is_blank(p[k]))
      return bad;
   *out = v;
   *i = k;
   return PERFMAP_OK;
}

/* Parse one complete line p[0..n) (without '\n').  Returns PERFMAP_OK
   and fills *e, or an error code, or -1 for a blank line. */
static int parse_line(const unsigned char* p, unsigned long n,
                      PerfmapEntry* e)
{
   unsigned long i = 0, k;
   int err;

   if (n > 0 && p[n - 1] == '\r')
      n--;
   for (k = 0; k < n; k++)
      if (p[k] == 0)
         return PERFMAP_ERR_NUL_BYTE;
   while (i < n && is_blank(p[i]))
      i++;
   if (i == n)
      return -1;

   err = parse_hex(p, n, &i, &e->start, PERFMAP_ERR_BAD_START);
   if (err != PERFMAP_OK)
      return err;
   while (i < n && is_blank(p[i]))
      i++;
   err = parse_hex(p, n, &i, &e->size, PERFMAP_ERR_BAD_SIZE);
   if (err != PERFMAP_OK)
      return err;
   while (i < n && is_blank(p[i]))
      i++;
   if (i == n)
      return PERFMAP_ERR_MISSING_NAME;
   e->name     = (const char*)(p + i);
   e->name_len = n - i;
   if (e->size == 0)
      return PERFMAP_ERR_ZERO_SIZE;
   if (jitformats_range_wraps(e->start, e->size))
      return PERFMAP_ERR_RANGE_WRAPS;
   return PERFMAP_OK;
}

const char* ML_(perfmap_strerror)(int code)
{
   switch (code) {
   case PERFMAP_OK:
      return "no error";
   case PERFMAP_ERR_BAD_START:
      return "START is not a hexadecimal number";
   case PERFMAP_ERR_BAD_SIZE:
      return "SIZE is missing or not a hexadecimal number";
   case PERFMAP_ERR_NUMBER_TOO_BIG:
      return "number does not fit in 64 bits";
   case PERFMAP_ERR_MISSING_NAME:
      return "function name missing after START and SIZE";
   case PERFMAP_ERR_ZERO_SIZE:
      return "SIZE is 0";
   case PERFMAP_ERR_RANGE_WRAPS:
      return "START + SIZE wraps around the address space";
   case PERFMAP_ERR_LINE_TOO_LONG:
      return "line longer than 64 KiB; skipped";
   case PERFMAP_ERR_NUL_BYTE:
      return "line contains a NUL byte";
   default:
      return "unknown error";
   }
}

void ML_(perfmap_init)(PerfmapReader* r)
{
   jitformats_zero(r, sizeof(*r));
}

static int perfmap_step(PerfmapReader* r, const unsigned char* buf,
                        unsigned long len, PerfmapEvent* ev, int final)
{
   unsigned long i, scan;
   int res;

   jitformats_zero(ev, sizeof(*ev));
   if (buf == 0)
      len = 0;
   ev->offset = r->offset;
   ev->line   = r->line + 1;
   if (len == 0) {
      ev->kind = PERFMAP_EV_NEED_MORE;
      ev->need = 1;
      return ev->kind;
   }

   if (r->skipping) {
      /* Inside an over-long line already reported: drop up to '\n'. */
      for (i = 0; i < len && buf[i] != '\n'; i++)
         ;
      if (i < len || final) {
         r->skipping = 0;
         r->line++;
         ev->advance = i < len ? i + 1 : len;
      } else {
         ev->advance = len;
      }
      r->offset += ev->advance;
      ev->kind = PERFMAP_EV_SKIPPED;
      return ev->kind;
   }

   scan = len < PERFMAP_LINE_MAX + 1 ? len : PERFMAP_LINE_MAX + 1;
   for (i = 0; i < scan && buf[i] != '\n'; i++)
      ;
   if (i == scan) {
      if (scan == PERFMAP_LINE_MAX + 1) {
         /* No '\n' within the cap: report once, then skip. */
         r->skipping  = 1;
         ev->advance  = scan;
         r->offset   += scan;
         ev->kind     = PERFMAP_EV_BAD_LINE;
         ev->error    = PERFMAP_ERR_LINE_TOO_LONG;
         return ev->kind;
      }
      if (!final) {
         ev->kind = PERFMAP_EV_NEED_MORE;
         ev->need = len + 1;
         return ev->kind;
      }
      ev->advance = len;         /* final line without its '\n' */
   } else {
      ev->advance = i + 1;
   }

   res = parse_line(buf, i, &ev->entry);
   r->offset += ev->advance;
   r->line++;
   if (res == -1) {
      ev->kind = PERFMAP_EV_SKIPPED;
   } else if (res == PERFMAP_OK) {
      ev->kind = PERFMAP_EV_ENTRY;
   } else {
      ev->kind  = PERFMAP_EV_BAD_LINE;
      ev->error = res;
   }
   return ev->kind;
}

int ML_(perfmap_next)(PerfmapReader* r, const unsigned char* buf,
                      unsigned long len, PerfmapEvent* ev)
{
   return perfmap_step(r, buf, len, ev, 0);
}

int ML_(perfmap_finish)(PerfmapReader* r, const unsigned char* buf,
                        unsigned long len, PerfmapEvent* ev)
{
   return perfmap_step(r, buf, len, ev, 1);
}

/*--------------------------------------------------------------------*/
/*--- end                                            readperfmap.c ---*/
/*--------------------------------------------------------------------*/
