/*--------------------------------------------------------------------*/
/*--- Reader for Erlang/OTP's JIT debug entries (GDB JIT interface).*/
/*---                                                readbeamjit.c ---*/
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

/* The format is described in priv_readbeamjit.h.  Every field is read
   byte by byte (an entry's fields are not aligned: its ranges start
   right after a name), every size is checked against the bytes left
   before anything is read past it, and counts are bounded by those
   bytes, so no input makes the reader read outside the entry or loop
   longer than its size.

   Portable C99 without libc and without Valgrind headers: this file is
   compiled into Valgrind's core and into user-space programs alike. */

#include "priv_jitbytes.h"
#include "priv_readbeamjit.h"

/* A name of len bytes (its NUL included) at img[at..): inside the
   entry, non-empty, NUL-terminated exactly at its end. */
static int name_ok(const BeamJitReader* r, unsigned long at,
                   unsigned long len)
{
   unsigned long i;
   if (len < 2 || at > r->n || len > r->n - at)
      return 0;
   for (i = 0; i + 1 < len; i++)
      if (r->img[at + i] == 0)
         return 0;
   return r->img[at + len - 1] == 0;
}

static int fail(BeamJitReader* r, int error)
{
   r->error = error;
   return -1;
}

int ML_(beamjit_open)(BeamJitReader* r, const unsigned char* img,
                      unsigned long n)
{
   unsigned int header, name_len;
   jitformats_zero(r, sizeof(*r));
   r->img = img;
   r->n   = n;
   if (img == 0 || n < 4)
      return BEAMJIT_NOT_BEAM;
   header = jitformats_host32(img);
   if (header == 0)
      return n == BEAMJIT_HEADER_SIZE ? BEAMJIT_EMULATOR : BEAMJIT_NOT_BEAM;
   if (header != 1)
      return BEAMJIT_NOT_BEAM;
   if (n < BEAMJIT_HEADER_SIZE) {
      r->error = BEAMJIT_ERR_SHORT;
      return BEAMJIT_MALFORMED;
   }
   r->base      = jitformats_host64(img + 8);
   r->n_ranges  = jitformats_host32(img + 16);
   r->code_size = jitformats_host32(img + 20);
   name_len     = jitformats_host16(img + 24);
   /* The name runs from offset 26; the ranges follow the 32-byte
      header and the name. */
   if (!name_ok(r, 26, name_len)
       || (unsigned long)BEAMJIT_HEADER_SIZE + name_len > n) {
      r->error = BEAMJIT_ERR_BAD_NAME;
      return BEAMJIT_MALFORMED;
   }
   if (r->base == 0 || r->code_size == 0
       || jitformats_range_wraps(r->base, r->code_size)) {
      r->error = BEAMJIT_ERR_NO_CODE;
      return BEAMJIT_MALFORMED;
   }
   r->module      = (const char*)img + 26;
   r->module_len  = name_len - 1;
   r->pos         = BEAMJIT_HEADER_SIZE + name_len;
   r->ranges_left = r->n_ranges;
   r->lines_left  = 0;
   r->prev_end    = 0;
   return BEAMJIT_MODULE;
}

int ML_(beamjit_next_line)(BeamJitReader* r, BeamJitLine* out)
{
   unsigned long at = r->pos;
   unsigned int  file_len;
   if (r->error)
      return -1;
   if (r->lines_left == 0)
      return 0;
   if (at > r->n || r->n - at < BEAMJIT_LINE_SIZE)
      return fail(r, BEAMJIT_ERR_LINE_OUTSIDE);
   file_len = jitformats_host16(r->img + at + 8);
   /* An empty file name (just its NUL) is allowed: no file. */
   if (file_len == 0 || r->n - at - BEAMJIT_LINE_SIZE < file_len
       || r->img[at + 10 + file_len - 1] != 0)
      return fail(r, BEAMJIT_ERR_LINE_OUTSIDE);
   {
      unsigned long i;
      for (i = 0; i + 1 < file_len; i++)
         if (r->img[at + 10 + i] == 0)
            return fail(r, BEAMJIT_ERR_BAD_NAME);
   }
   out->addr     = r->base + jitformats_host32(r->img + at);
   out->line     = jitformats_host32(r->img + at + 4);
   out->file     = (const char*)r->img + at + 10;
   out->file_len = file_len - 1;
   r->pos = at + BEAMJIT_LINE_SIZE + file_len;
   r->lines_left--;
   return 1;
}

int ML_(beamjit_next_range)(BeamJitReader* r, BeamJitRange* out)
{
   unsigned long at;
   unsigned int  start, end, name_len;
   BeamJitLine   skip;
   int           k;
   if (r->error)
      return -1;
   while ((k = ML_(beamjit_next_line)(r, &skip)) == 1)
      ;
   if (k < 0)
      return -1;
   at = r->pos;
   if (r->ranges_left == 0)
      return at == r->n ? 0 : fail(r, BEAMJIT_ERR_TRAILING);
   if (at > r->n || r->n - at < BEAMJIT_RANGE_SIZE)
      return fail(r, BEAMJIT_ERR_RANGE_OUTSIDE);
   start    = jitformats_host32(r->img + at);
   end      = jitformats_host32(r->img + at + 4);
   name_len = jitformats_host16(r->img + at + 12);
   if (r->n - at - BEAMJIT_RANGE_SIZE < name_len)
      return fail(r, BEAMJIT_ERR_RANGE_OUTSIDE);
   if (!name_ok(r, at + 14, name_len))
      return fail(r, BEAMJIT_ERR_BAD_NAME);
   if (start > end || end > r->code_size || start < r->prev_end)
      return fail(r, BEAMJIT_ERR_BAD_RANGE);
   out->start    = r->base + start;
   out->end      = r->base + end;
   out->n_lines  = jitformats_host32(r->img + at + 8);
   out->name     = (const char*)r->img + at + 14;
   out->name_len = name_len - 1;
   r->prev_end    = end;
   r->lines_left  = out->n_lines;
   r->ranges_left--;
   r->pos = at + BEAMJIT_RANGE_SIZE + name_len;
   return 1;
}

int ML_(beamjit_check)(BeamJitReader* r)
{
   BeamJitRange rg;
   int          k;
   /* Each call consumes at least a range's or line's fixed size, or
      fails: bounded by the entry's size. */
   while ((k = ML_(beamjit_next_range)(r, &rg)) == 1)
      ;
   return k == 0 ? BEAMJIT_OK : r->error;
}

const char* ML_(beamjit_strerror)(int code)
{
   switch (code) {
      case BEAMJIT_OK:                return "no error";
      case BEAMJIT_ERR_SHORT:         return "shorter than its header";
      case BEAMJIT_ERR_BAD_NAME:      return "a name is empty, not "
                                             "NUL-terminated at its "
                                             "length or holds a NUL";
      case BEAMJIT_ERR_NO_CODE:       return "no code (base address or "
                                             "size 0) or code that wraps "
                                             "around";
      case BEAMJIT_ERR_RANGE_OUTSIDE: return "a range lies outside the "
                                             "entry";
      case BEAMJIT_ERR_BAD_RANGE:     return "a range ends before it "
                                             "starts, lies outside the "
                                             "module's code or before "
                                             "the previous range";
      case BEAMJIT_ERR_LINE_OUTSIDE:  return "a line entry lies outside "
                                             "the entry";
      case BEAMJIT_ERR_TRAILING:      return "bytes after the last range";
      default:                        return "unknown error";
   }
}

/*--------------------------------------------------------------------*/
/*--- end                                            readbeamjit.c ---*/
/*--------------------------------------------------------------------*/
