/*--------------------------------------------------------------------*/
/*--- Incremental reader for jitdump files (Linux perf format).    ---*/
/*---                                                readjitdump.c ---*/
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

/* Format: Linux tools/perf/Documentation/jitdump-specification.txt
   (versions 1 and 2).  All multi-byte fields are in the writer's byte
   order, which the magic reveals.  See priv_jitformats.h for the API.

   Portable C99 without libc and without Valgrind headers: this file is
   compiled into Valgrind's core and into user-space programs alike.
   Every field is read byte by byte, so buffers need no alignment. */

#include "priv_jitformats.h"

/* Reader states. */
#define ST_HEADER   0   /* expecting the file header */
#define ST_RECORDS  1   /* expecting a record prefix */
#define ST_ERROR    2   /* sticky hard error         */

/* ------------------------------------------------------------------
   Local helpers (no libc)
   ------------------------------------------------------------------ */

static int host_is_big_endian(void)
{
   const unsigned int one = 1;
   const unsigned char* p = (const unsigned char*)&one;
   return p[0] == 0;
}

static unsigned int ld32(const unsigned char* p, int big)
{
   if (big)
      return ((unsigned int)p[0] << 24) | ((unsigned int)p[1] << 16)
             | ((unsigned int)p[2] << 8) | (unsigned int)p[3];
   return ((unsigned int)p[3] << 24) | ((unsigned int)p[2] << 16)
          | ((unsigned int)p[1] << 8) | (unsigned int)p[0];
}

static unsigned long long ld64(const unsigned char* p, int big)
{
   unsigned long long hi, lo;
   if (big) {
      hi = ld32(p, 1);
      lo = ld32(p + 4, 1);
   } else {
      lo = ld32(p, 0);
      hi = ld32(p + 4, 0);
   }
   return (hi << 32) | lo;
}

/* Index of the first NUL in p[from..to), or `to` if there is none. */
static unsigned long find_nul(const unsigned char* p,
                              unsigned long from, unsigned long to)
{
   unsigned long i;
   for (i = from; i < to; i++)
      if (p[i] == 0)
         return i;
   return to;
}

static unsigned long min_ul(unsigned long a, unsigned long b)
{
   return a < b ? a : b;
}

/* ------------------------------------------------------------------
   Error texts
   ------------------------------------------------------------------ */

const char* ML_(jitdump_strerror)(int code)
{
   switch (code) {
   case JITDUMP_OK:
      return "no error";
   case JITDUMP_ERR_BAD_MAGIC:
      return "not a jitdump file (bad magic, expected \"JiTD\")";
   case JITDUMP_ERR_FOREIGN_BYTE_ORDER:
      return "jitdump file written in the other byte order "
             "(produced on a different machine?); not supported";
   case JITDUMP_ERR_BAD_VERSION:
      return "unsupported jitdump version (only 1 and 2 are known)";
   case JITDUMP_ERR_HEADER_TOO_SHORT:
      return "file header total_size is smaller than the 40 bytes "
             "of the header fields";
   case JITDUMP_ERR_HEADER_TOO_LARGE:
      return "file header total_size is implausibly large (over 1 MiB)";
   case JITDUMP_ERR_RECORD_TOO_SHORT:
      return "record total_size is smaller than the record's fixed part";
   case JITDUMP_ERR_RECORD_TOO_LARGE:
      return "record total_size is implausibly large (over 1 GiB); "
             "the file is corrupt";
   case JITDUMP_ERR_NAME_UNTERMINATED:
      return "CODE_LOAD function name is not NUL-terminated within the "
             "record (or is longer than 64 KiB)";
   case JITDUMP_ERR_CODE_RANGE_WRAPS:
      return "code address + code size wraps around the address space";
   case JITDUMP_ERR_DEBUG_INFO_TOO_LARGE:
      return "CODE_DEBUG_INFO record is larger than the reader's limit";
   case JITDUMP_ERR_DEBUG_NR_ENTRY:
      return "CODE_DEBUG_INFO nr_entry is larger than the record can hold";
   case JITDUMP_ERR_DEBUG_BEYOND_RECORD:
      return "CODE_DEBUG_INFO entries run past the end of the record "
             "(or a file name is not NUL-terminated)";
   case JITDUMP_ERR_UNWIND_SIZES:
      return "CODE_UNWINDING_INFO sizes are inconsistent with the record "
             "(unwinding_size beyond the record or eh_frame_hdr_size "
             "beyond unwinding_size)";
   default:
      return "unknown error";
   }
}

int ML_(jitdump_error_is_hard)(int code)
{
   return code >= JITDUMP_ERR_BAD_MAGIC && code <= JITDUMP_ERR_RECORD_TOO_LARGE;
}

/* ------------------------------------------------------------------
   Reader
   ------------------------------------------------------------------ */

void ML_(jitdump_init)(JitdumpReader* r, unsigned long max_hold)
{
   jitformats_zero(r, sizeof(*r));
   r->state      = ST_HEADER;
   r->big_endian = host_is_big_endian();
   if (max_hold == 0)
      max_hold = JITDUMP_DEBUG_INFO_MAX;
   if (max_hold < JITDUMP_MIN_BUFFER)
      max_hold = JITDUMP_MIN_BUFFER;
   r->max_hold = max_hold;
}

static int ev_need(JitdumpReader* r, JitdumpEvent* ev, unsigned long need)
{
   ev->kind   = JITDUMP_EV_NEED_MORE;
   ev->offset = r->offset;
   ev->need   = need;
   return ev->kind;
}

static int ev_hard(JitdumpReader* r, JitdumpEvent* ev, int err)
{
   r->state        = ST_ERROR;
   r->error        = err;
   r->error_offset = r->offset;
   ev->kind   = JITDUMP_EV_ERROR;
   ev->offset = r->offset;
   ev->error  = err;
   return ev->kind;
}

/* Consume the record at the current offset and report `kind`. */
static int ev_consume(JitdumpReader* r, JitdumpEvent* ev, int kind,
                      int err, unsigned long long advance)
{
   ev->kind    = kind;
   ev->offset  = r->offset;
   ev->advance = advance;
   ev->error   = err;
   r->offset  += advance;
   r->n_records++;
   return kind;
}

static int next_header(JitdumpReader* r, const unsigned char* buf,
                       unsigned long len, JitdumpEvent* ev)
{
   JitdumpHeader* h = &ev->header;
   int big = r->big_endian;
   unsigned int magic;

   if (len < 4)
      return ev_need(r, ev, 4);
   /* Read the magic in host order: foreign writers show the swapped
      value. */
   magic = ld32(buf, big);
   if (magic == JITDUMP_MAGIC_SWAPPED)
      return ev_hard(r, ev, JITDUMP_ERR_FOREIGN_BYTE_ORDER);
   if (magic != JITDUMP_MAGIC)
      return ev_hard(r, ev, JITDUMP_ERR_BAD_MAGIC);
   if (len < JITDUMP_HEADER_SIZE)
      return ev_need(r, ev, JITDUMP_HEADER_SIZE);

   h->version     = ld32(buf + 4, big);
   h->header_size = ld32(buf + 8, big);
   h->elf_mach    = ld32(buf + 12, big);
   h->pad1        = ld32(buf + 16, big);
   h->pid         = ld32(buf + 20, big);
   h->timestamp   = ld64(buf + 24, big);
   h->flags       = ld64(buf + 32, big);

   if (h->version != 1 && h->version != 2)
      return ev_hard(r, ev, JITDUMP_ERR_BAD_VERSION);
   if (h->header_size < JITDUMP_HEADER_SIZE)
      return ev_hard(r, ev, JITDUMP_ERR_HEADER_TOO_SHORT);
   if (h->header_size > JITDUMP_HEADER_MAX)
      return ev_hard(r, ev, JITDUMP_ERR_HEADER_TOO_LARGE);

   r->header = *h;
   r->state  = ST_RECORDS;
   ev->kind    = JITDUMP_EV_HEADER;
   ev->offset  = 0;
   ev->advance = h->header_size;
   r->offset  += h->header_size;
   return ev->kind;
}

/* Bytes left after walking nr entries by their names' NULs, or
   (unsigned long)-1 if they do not fit. */
static unsigned long left_after_names(const unsigned char* p,
                                      unsigned long left,
                                      unsigned long long nr)
{
   unsigned long long i;
   for (i = 0; i < nr; i++) {
      unsigned long nul;
      if (left < JITDUMP_DEBUG_ENTRY_MIN)
         return (unsigned long)-1;
      nul = find_nul(p, 16, left);
      if (nul == left)
         return (unsigned long)-1;
      p    += nul + 1;
      left -= nul + 1;
   }
   return left;
}

unsigned int ML_(jitdump_fixed_size)(unsigned int id)
{
   switch (id) {
   case JITDUMP_CODE_LOAD:           return JITDUMP_CODE_LOAD_FIXED;
   case JITDUMP_CODE_MOVE:           return JITDUMP_CODE_MOVE_FIXED;
   case JITDUMP_CODE_DEBUG_INFO:     return JITDUMP_DEBUG_INFO_FIXED;
   case JITDUMP_CODE_UNWINDING_INFO: return JITDUMP_UNWINDING_FIXED;
   default:                          return JITDUMP_PREFIX_SIZE;
   }
}

static int next_record(JitdumpReader* r, const unsigned char* buf,
                       unsigned long len, JitdumpEvent* ev)
{
   JitdumpRecord* rec = &ev->rec;
   int big = r->big_endian;
   unsigned int fixed;

   if (len < JITDUMP_PREFIX_SIZE)
      return ev_need(r, ev, JITDUMP_PREFIX_SIZE);

   rec->id          = ld32(buf, big);
   rec->total_size  = ld32(buf + 4, big);
   rec->timestamp   = ld64(buf + 8, big);
   rec->file_offset = r->offset;

   fixed = ML_(jitdump_fixed_size)(rec->id);
   if (rec->total_size < fixed)
      return ev_hard(r, ev, JITDUMP_ERR_RECORD_TOO_SHORT);
   if (rec->total_size > JITDUMP_RECORD_MAX)
      return ev_hard(r, ev, JITDUMP_ERR_RECORD_TOO_LARGE);

   switch (rec->id) {

   case JITDUMP_CODE_LOAD: {
      JitdumpCodeLoad* ld = &rec->u.load;
      unsigned long window, nul;
      if (len < fixed)
         return ev_need(r, ev, fixed);
      ld->pid        = ld32(buf + 16, big);
      ld->tid        = ld32(buf + 20, big);
      ld->vma        = ld64(buf + 24, big);
      ld->code_addr  = ld64(buf + 32, big);
      ld->code_size  = ld64(buf + 40, big);
      ld->code_index = ld64(buf + 48, big);
      /* The name must end within the record and within the name cap. */
      window = min_ul(rec->total_size, fixed + JITDUMP_NAME_MAX);
      nul = find_nul(buf, fixed, min_ul(len, window));
      if (nul == min_ul(len, window)) {
         if (len < window)
            return ev_need(r, ev, window);
         return ev_consume(r, ev, JITDUMP_EV_BAD_RECORD,
                           JITDUMP_ERR_NAME_UNTERMINATED, rec->total_size);
      }
      ld->name     = (const char*)(buf + fixed);
      ld->name_len = nul - fixed;
      ld->code_file_offset = r->offset + nul + 1;
      ld->code_bytes = rec->total_size - (nul + 1);
      ld->code = len >= rec->total_size ? buf + nul + 1 : 0;
      if (jitformats_range_wraps(ld->code_addr, ld->code_size))
         return ev_consume(r, ev, JITDUMP_EV_BAD_RECORD,
                           JITDUMP_ERR_CODE_RANGE_WRAPS, rec->total_size);
      return ev_consume(r, ev, JITDUMP_EV_RECORD, JITDUMP_OK,
                        rec->total_size);
   }

   case JITDUMP_CODE_MOVE: {
      JitdumpCodeMove* mv = &rec->u.move;
      if (len < fixed)
         return ev_need(r, ev, fixed);
      mv->pid           = ld32(buf + 16, big);
      mv->tid           = ld32(buf + 20, big);
      mv->vma           = ld64(buf + 24, big);
      mv->old_code_addr = ld64(buf + 32, big);
      mv->new_code_addr = ld64(buf + 40, big);
      mv->code_size     = ld64(buf + 48, big);
      mv->code_index    = ld64(buf + 56, big);
      if (jitformats_range_wraps(mv->old_code_addr, mv->code_size)
          || jitformats_range_wraps(mv->new_code_addr, mv->code_size))
         return ev_consume(r, ev, JITDUMP_EV_BAD_RECORD,
                           JITDUMP_ERR_CODE_RANGE_WRAPS, rec->total_size);
      return ev_consume(r, ev, JITDUMP_EV_RECORD, JITDUMP_OK,
                        rec->total_size);
   }

   case JITDUMP_CODE_DEBUG_INFO: {
      JitdumpDebugInfo* di = &rec->u.debug;
      unsigned long body;
      int err;
      if (rec->total_size > r->max_hold)
         return ev_consume(r, ev, JITDUMP_EV_BAD_RECORD,
                           JITDUMP_ERR_DEBUG_INFO_TOO_LARGE, rec->total_size);
      if (len < rec->total_size)
         return ev_need(r, ev, rec->total_size);
      di->code_addr   = ld64(buf + 16, big);
      di->nr_entry    = ld64(buf + 24, big);
      body            = rec->total_size - fixed;
      di->entries     = buf + fixed;
      di->entries_len = body;
      if (di->nr_entry > body / JITDUMP_DEBUG_ENTRY_MIN)
         return ev_consume(r, ev, JITDUMP_EV_BAD_RECORD,
                           JITDUMP_ERR_DEBUG_NR_ENTRY, rec->total_size);
      err = left_after_names(di->entries, body, di->nr_entry)
               == (unsigned long)-1 ? JITDUMP_ERR_DEBUG_BEYOND_RECORD
                                    : JITDUMP_OK;
      if (err != JITDUMP_OK)
         return ev_consume(r, ev, JITDUMP_EV_BAD_RECORD, err,
                           rec->total_size);
      return ev_consume(r, ev, JITDUMP_EV_RECORD, JITDUMP_OK,
                        rec->total_size);
   }

   case JITDUMP_CODE_CLOSE:
      return ev_consume(r, ev, JITDUMP_EV_RECORD, JITDUMP_OK,
                        rec->total_size);

   case JITDUMP_CODE_UNWINDING_INFO: {
      JitdumpUnwindingInfo* uw = &rec->u.unwind;
      if (len < fixed)
         return ev_need(r, ev, fixed);
      uw->unwinding_size    = ld64(buf + 16, big);
      uw->eh_frame_hdr_size = ld64(buf + 24, big);
      uw->mapped_size       = ld64(buf + 32, big);
      uw->data_len          = rec->total_size - fixed;
      uw->data_file_offset  = r->offset + fixed;
      if (uw->unwinding_size > uw->data_len
          || uw->eh_frame_hdr_size > uw->unwinding_size)
         return ev_consume(r, ev, JITDUMP_EV_BAD_RECORD,
                           JITDUMP_ERR_UNWIND_SIZES, rec->total_size);
      /* The data is wanted whole (the core reads its .eh_frame) when the
         caller is willing to hold the record. */
      if (len < rec->total_size && rec->total_size <= r->max_hold)
         return ev_need(r, ev, rec->total_size);
      uw->data = len >= rec->total_size ? buf + fixed : 0;
      return ev_consume(r, ev, JITDUMP_EV_RECORD, JITDUMP_OK,
                        rec->total_size);
   }

   default:
      return ev_consume(r, ev, JITDUMP_EV_UNKNOWN, JITDUMP_OK,
                        rec->total_size);
   }
}

int ML_(jitdump_next)(JitdumpReader* r, const unsigned char* buf,
                      unsigned long len, JitdumpEvent* ev)
{
   jitformats_zero(ev, sizeof(*ev));
   if (buf == 0)
      len = 0;
   switch (r->state) {
   case ST_HEADER:
      return next_header(r, buf, len, ev);
   case ST_RECORDS:
      return next_record(r, buf, len, ev);
   default:
      ev->kind   = JITDUMP_EV_ERROR;
      ev->offset = r->error_offset;
      ev->error  = r->error;
      return ev->kind;
   }
}

/* ------------------------------------------------------------------
   CODE_DEBUG_INFO entries
   ------------------------------------------------------------------ */

/* The size of entries whose name fields all have one size and end in a
   NUL, if the record holds exactly nr of them and up to 7 bytes of
   padding; else 0.  *junk is set if the fields hold non-zero bytes after
   their first NUL (V8's stale buffer) rather than zero padding.  Of
   several sizes that fit, one with zero padding wins; two or more with
   junk and none without are ambiguous (0). */
static unsigned long fixed_stride(const unsigned char* p,
                                  unsigned long left,
                                  unsigned long long nr, int* junk_out)
{
   unsigned long pad, junk_stride = 0;
   int           n_junk = 0;
   if (nr == 0)
      return 0;
   for (pad = 0; pad < 8 && pad <= left; pad++) {
      unsigned long stride, i, k;
      int junk = 0, ok = 1;
      if ((left - pad) % nr != 0)
         continue;
      stride = (unsigned long)((left - pad) / nr);
      if (stride < JITDUMP_DEBUG_ENTRY_MIN)
         continue;
      for (i = 0; ok && i < nr; i++) {
         const unsigned char* e = p + i * stride;
         unsigned long nul = find_nul(e, 16, stride);
         if (e[stride - 1] != 0 || nul == stride) {
            ok = 0;
            break;
         }
         for (k = nul + 1; k < stride; k++)
            if (e[k] != 0)
               junk = 1;
      }
      if (!ok)
         continue;
      if (!junk) {
         *junk_out = 0;
         return stride;
      }
      junk_stride = stride;
      n_junk++;
   }
   if (n_junk != 1)
      return 0;
   *junk_out = 1;
   return junk_stride;
}

void ML_(jitdump_debug_iter_init)(JitdumpDebugIter* it,
                                  const JitdumpReader* r,
                                  const JitdumpDebugInfo* di)
{
   unsigned long rest;
   jitformats_zero(it, sizeof(*it));
   it->p          = di->entries;
   it->left       = di->entries_len;
   it->remaining  = di->nr_entry;
   it->big_endian = r->big_endian;
   it->prev_name  = "";
   it->prev_len   = 0;
   if (it->p == 0)
      return;
   rest = left_after_names(it->p, it->left, it->remaining);
   if (rest == (unsigned long)-1 || rest >= 8)
      it->stride = fixed_stride(it->p, it->left, it->remaining,
                                &it->garbled);
}

int ML_(jitdump_debug_entry_next)(JitdumpDebugIter* it, JitdumpDebugEntry* e)
{
   unsigned long nul;
   const unsigned char* p = it->p;

   jitformats_zero(e, sizeof(*e));
   if (it->remaining == 0)
      return 0;
   if (p == 0 || it->left < JITDUMP_DEBUG_ENTRY_MIN)
      return -1;
   nul = find_nul(p, 16, it->left);
   if (nul == it->left)
      return -1;

   e->code_addr = ld64(p, it->big_endian);
   e->line      = ld32(p + 8, it->big_endian);
   e->discrim   = ld32(p + 12, it->big_endian);
   if (it->stride != 0) {
      /* Checked by fixed_stride: stride bytes are left, the name field
         ends in a NUL. */
      e->garbled      = it->garbled;
      e->filename     = it->garbled ? "" : (const char*)(p + 16);
      e->filename_len = it->garbled ? 0 : nul - 16;
      it->p         = p + it->stride;
      it->left     -= it->stride;
      it->remaining--;
      return 1;
   }
   if (nul == 17 && p[16] == 0xff) {
      /* "\xff\0": same file name as the previous entry. */
      e->same_as_previous = 1;
      e->filename     = it->prev_name;
      e->filename_len = it->prev_len;
   } else {
      e->filename     = (const char*)(p + 16);
      e->filename_len = nul - 16;
      it->prev_name   = e->filename;
      it->prev_len    = e->filename_len;
   }
   it->p         = p + nul + 1;
   it->left     -= nul + 1;
   it->remaining--;
   return 1;
}

/*--------------------------------------------------------------------*/
/*--- end                                            readjitdump.c ---*/
/*--------------------------------------------------------------------*/
