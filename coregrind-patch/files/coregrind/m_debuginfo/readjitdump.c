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
   order, which the magic reveals.  See priv_readjitdump.h for the API.

   Portable C99 without libc and without Valgrind headers: this file is
   compiled into Valgrind's core and into user-space programs alike.
   Every field is read byte by byte, so buffers need no alignment. */

#include "priv_jitbytes.h"
#include "priv_readjitdump.h"

/* Reader states. */
#define ST_HEADER   0   /* expecting the file header */
#define ST_RECORDS  1   /* expecting a record prefix */
#define ST_ERROR    2   /* sticky hard error         */

/* ------------------------------------------------------------------
   Local helpers (no libc)
   ------------------------------------------------------------------ */

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

/* Name scanning a word at a time where the compiler can load a word from
   any address (GCC and Clang: __builtin_memcpy of a word's size, one
   load where the machine allows unaligned loads, safe byte loads
   elsewhere); elsewhere byte by byte.  Words are read only inside the
   range. */
#if defined(__GNUC__)
#  define JITDUMP_WORD_SCAN 1
#  define WORD_ONES  ((unsigned long)-1 / 0xFF)
#  define WORD_HIGHS (WORD_ONES * 0x80)
/* Non-zero if some byte of w is outside 0x20..0x7E (NUL included):
   below 0x20 by the borrow of subtracting 0x20 from every byte, above
   0x7E by the carry of adding 1 (0x80 and up have the top bit set
   already).  A borrow or carry crosses into the next byte only from a
   byte that is itself outside. */
static unsigned long word_not_printable(unsigned long w)
{
   return (((w - WORD_ONES * 0x20) & ~w) | ((w + WORD_ONES) | w))
          & WORD_HIGHS;
}
/* On a little-endian host the lowest flagged byte of word_not_printable
   is the first byte outside (borrows and carries move only towards
   higher addresses): its index is known from the flags alone. */
#  if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#    define JITDUMP_FIRST_FLAGGED(m) ((unsigned long)__builtin_ctzl(m) / 8)
#  endif
#endif

/* find_nul for a CODE_LOAD's name, which also tells whether the bytes
   before the NUL are all printable ASCII (0x20..0x7E): *printable is 1
   if so, else 0 (set only when a NUL was found).  One pass over the
   name, whole words at a time where it can. */
static unsigned long scan_name(const unsigned char* p, unsigned long from,
                               unsigned long to, int* printable)
{
   unsigned long i = from;
#if defined(JITDUMP_WORD_SCAN)
   /* Whole words while every byte is printable; the word that holds
      the NUL (or another byte) is finished byte by byte below, from
      the byte its flags point at where they tell it. */
   for (; i + sizeof(unsigned long) <= to; i += sizeof(unsigned long)) {
      unsigned long w, flags;
      __builtin_memcpy(&w, p + i, sizeof(w));
      flags = word_not_printable(w);
      if (flags != 0) {
#  if defined(JITDUMP_FIRST_FLAGGED)
         i += JITDUMP_FIRST_FLAGGED(flags);
#  endif
         break;
      }
   }
#endif
   for (; i < to; i++)
      if (p[i] < 0x20 || p[i] > 0x7E)
         break;
   /* p[i] is the NUL, a byte that is not printable, or i == to. */
   if (i < to && p[i] == 0) {
      *printable = 1;
      return i;
   }
   *printable = 0;
   return find_nul(p, i, to);
}

static unsigned long min_ul(unsigned long a, unsigned long b)
{
   return a < b ? a : b;
}

/* The header and records other than CODE_LOAD are read out of line, so
   that the frame of a CODE_LOAD's path, the one record of nearly every
   file, holds only what that path uses. */
#if defined(__GNUC__)
#  define JITDUMP_NOINLINE __attribute__((noinline))
#else
#  define JITDUMP_NOINLINE
#endif

/* ------------------------------------------------------------------
   Error texts
   ------------------------------------------------------------------ */

/* The text of each error code, indexed by code: what is wrong
   (ML_(jitdump_strerror)), then its numbers as a template of
   jitformats_fill (ML_(jitdump_describe)).  The template's fields are
   those describe_fields sets: {0} the record's total_size, {1} the
   header's version, {2} the header's total_size, {3}..{6} per code as
   noted there, {7} the reader's limit on a held record; {s0} the
   record's name (ML_(jitdump_record_name)).  Limits are the constants
   of priv_readjitdump.h. */
static const JitformatsMessage jitdump_texts[JITDUMP_ERR_MAX + 1] = {
   /* JITDUMP_OK */
   { "no error", "" },
   /* JITDUMP_ERR_BAD_MAGIC */
   { "not a jitdump file",
     ": the first 4 bytes are not the magic \"JiTD\" ({x3})" },
   /* JITDUMP_ERR_FOREIGN_BYTE_ORDER */
   { "jitdump file written in the other byte order",
     ": its magic is byte-swapped ({x3}); not supported" },
   /* JITDUMP_ERR_BAD_VERSION */
   { "unsupported jitdump version",
     " {1} (versions 1 and 2 are known)" },
   /* JITDUMP_ERR_HEADER_TOO_SHORT */
   { "file header total_size is smaller than the header fields",
     ": {2}, the fields take {3} bytes" },
   /* JITDUMP_ERR_HEADER_TOO_LARGE */
   { "file header total_size is implausibly large",
     ": {2}, over {z3}" },
   /* JITDUMP_ERR_RECORD_TOO_SHORT */
   { "record total_size is smaller than the record's fixed part",
     ": {s0} record of total_size {0}, its fixed part {3} bytes" },
   /* JITDUMP_ERR_RECORD_TOO_LARGE */
   { "record total_size is implausibly large; the file is corrupt",
     ": {s0} record of total_size {0}, over {z3}" },
   /* JITDUMP_ERR_NAME_UNTERMINATED */
   { "CODE_LOAD function name is not NUL-terminated within the record",
     " (total_size {0}) or is longer than {z3}" },
   /* JITDUMP_ERR_CODE_RANGE_WRAPS */
   { "code address + code size wraps around the address space",
     ": CODE_LOAD code_addr {x3}, code_size {x6}" },
   /* JITDUMP_ERR_DEBUG_INFO_TOO_LARGE */
   { "CODE_DEBUG_INFO record is larger than the reader's limit",
     ": total_size {0}, the limit {7} bytes" },
   /* JITDUMP_ERR_DEBUG_NR_ENTRY */
   { "CODE_DEBUG_INFO nr_entry is larger than the record can hold",
     ": nr_entry {3}, {4} bytes of entries, each at least {5}" },
   /* JITDUMP_ERR_DEBUG_BEYOND_RECORD */
   { "CODE_DEBUG_INFO entries run past the end of the record"
     " (or a file name is not NUL-terminated)",
     ": nr_entry {3} in {4} bytes of entries" },
   /* JITDUMP_ERR_UNWIND_SIZES */
   { "CODE_UNWINDING_INFO sizes are inconsistent with the record",
     ": unwinding_size {3}, eh_frame_hdr_size {4}, {5} bytes of data in"
     " the record" }
};

/* The CODE_MOVE form of JITDUMP_ERR_CODE_RANGE_WRAPS's numbers (the
   table's are CODE_LOAD's). */
static const char* const move_wraps_numbers =
   ": CODE_MOVE old_code_addr {x4}, new_code_addr {x5}, code_size {x6}";

const char* ML_(jitdump_strerror)(int code)
{
   if (code < 0 || code > JITDUMP_ERR_MAX)
      return "unknown error";
   return jitdump_texts[code].what;
}

const char* ML_(jitdump_record_name)(unsigned int id)
{
   switch (id) {
   case JITDUMP_CODE_LOAD:           return "CODE_LOAD";
   case JITDUMP_CODE_MOVE:           return "CODE_MOVE";
   case JITDUMP_CODE_DEBUG_INFO:     return "CODE_DEBUG_INFO";
   case JITDUMP_CODE_CLOSE:          return "CODE_CLOSE";
   case JITDUMP_CODE_UNWINDING_INFO: return "CODE_UNWINDING_INFO";
   default:                          return "unknown";
   }
}

/* The numbers of ev's error for its template (see jitdump_texts). */
static void describe_fields(const JitdumpEvent* ev, unsigned long max_hold,
                            unsigned long long* num)
{
   const JitdumpRecord* rec = &ev->rec;
   jitformats_zero(num, 8 * sizeof(*num));
   num[0] = rec->total_size;
   num[1] = ev->header.version;
   num[2] = ev->header.header_size;
   num[7] = max_hold;
   switch (ev->error) {
   case JITDUMP_ERR_BAD_MAGIC:
   case JITDUMP_ERR_FOREIGN_BYTE_ORDER:
      num[3] = JITDUMP_MAGIC;
      break;
   case JITDUMP_ERR_HEADER_TOO_SHORT:
      num[3] = JITDUMP_HEADER_SIZE;
      break;
   case JITDUMP_ERR_HEADER_TOO_LARGE:
      num[3] = JITDUMP_HEADER_MAX;
      break;
   case JITDUMP_ERR_RECORD_TOO_SHORT:
      num[3] = ML_(jitdump_fixed_size)(rec->id);
      break;
   case JITDUMP_ERR_RECORD_TOO_LARGE:
      num[3] = JITDUMP_RECORD_MAX;
      break;
   case JITDUMP_ERR_NAME_UNTERMINATED:
      num[3] = JITDUMP_NAME_MAX;
      break;
   case JITDUMP_ERR_CODE_RANGE_WRAPS:
      if (rec->id == JITDUMP_CODE_MOVE) {
         num[4] = rec->u.move.old_code_addr;
         num[5] = rec->u.move.new_code_addr;
         num[6] = rec->u.move.code_size;
      } else {
         num[3] = rec->u.load.code_addr;
         num[6] = rec->u.load.code_size;
      }
      break;
   case JITDUMP_ERR_DEBUG_NR_ENTRY:
   case JITDUMP_ERR_DEBUG_BEYOND_RECORD:
      num[3] = rec->u.debug.nr_entry;
      num[4] = rec->u.debug.entries_len;
      num[5] = JITDUMP_DEBUG_ENTRY_MIN;
      break;
   case JITDUMP_ERR_UNWIND_SIZES:
      num[3] = rec->u.unwind.unwinding_size;
      num[4] = rec->u.unwind.eh_frame_hdr_size;
      num[5] = rec->u.unwind.data_len;
      break;
   default:
      break;
   }
}

char* ML_(jitdump_describe)(const JitdumpReader* r, const JitdumpEvent* ev,
                            char* buf, unsigned long size)
{
   JitformatsText     t;
   unsigned long long num[8];
   const char*        str[1];
   const char*        numbers;

   jitformats_text_init(&t, buf, size);
   jitformats_put(&t, ML_(jitdump_strerror)(ev->error));
   if (ev->error <= JITDUMP_OK || ev->error > JITDUMP_ERR_MAX)
      return buf;
   describe_fields(ev, r->max_hold, num);
   str[0]  = ML_(jitdump_record_name)(ev->rec.id);
   numbers = jitdump_texts[ev->error].numbers;
   if (ev->error == JITDUMP_ERR_CODE_RANGE_WRAPS
       && ev->rec.id == JITDUMP_CODE_MOVE)
      numbers = move_wraps_numbers;
   jitformats_fill(&t, numbers, num, str);
   return buf;
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
   r->big_endian = jitformats_host_big_endian();
   if (max_hold == 0)
      max_hold = JITDUMP_DEBUG_INFO_MAX;
   if (max_hold < JITDUMP_MIN_BUFFER)
      max_hold = JITDUMP_MIN_BUFFER;
   r->max_hold = max_hold;
}

/* Each of ev_need, ev_hard and ev_consume sets every field of the
   event's own (kind, offset, advance, need, error): a record's event is
   not cleared before it is read. */
static int ev_need(JitdumpReader* r, JitdumpEvent* ev, unsigned long need)
{
   ev->kind    = JITDUMP_EV_NEED_MORE;
   ev->offset  = r->offset;
   ev->advance = 0;
   ev->need    = need;
   ev->error   = 0;
   return ev->kind;
}

static int ev_hard(JitdumpReader* r, JitdumpEvent* ev, int err)
{
   r->state        = ST_ERROR;
   r->error        = err;
   r->error_offset = r->offset;
   ev->kind    = JITDUMP_EV_ERROR;
   ev->offset  = r->offset;
   ev->advance = 0;
   ev->need    = 0;
   ev->error   = err;
   return ev->kind;
}

/* Consume the record at the current offset and report `kind`. */
static int ev_consume(JitdumpReader* r, JitdumpEvent* ev, int kind,
                      int err, unsigned long long advance)
{
   ev->kind    = kind;
   ev->offset  = r->offset;
   ev->advance = advance;
   ev->need    = 0;
   ev->error   = err;
   r->offset  += advance;
   r->n_records++;
   return kind;
}

static JITDUMP_NOINLINE int next_header(JitdumpReader* r,
                                        const unsigned char* buf,
                                        unsigned long len, JitdumpEvent* ev)
{
   JitdumpHeader* h = &ev->header;
   int big = r->big_endian;
   unsigned int magic;

   if (len < 4)
      return ev_need(r, ev, 4);
   /* Read the magic in host order: foreign writers show the swapped
      value. */
   magic = jitformats_ld32(buf + JITDUMP_HDR_MAGIC, big);
   if (magic == JITDUMP_MAGIC_SWAPPED)
      return ev_hard(r, ev, JITDUMP_ERR_FOREIGN_BYTE_ORDER);
   if (magic != JITDUMP_MAGIC)
      return ev_hard(r, ev, JITDUMP_ERR_BAD_MAGIC);
   if (len < JITDUMP_HEADER_SIZE)
      return ev_need(r, ev, JITDUMP_HEADER_SIZE);

   h->version     = jitformats_ld32(buf + JITDUMP_HDR_VERSION, big);
   h->header_size = jitformats_ld32(buf + JITDUMP_HDR_TOTAL_SIZE, big);
   h->elf_mach    = jitformats_ld32(buf + JITDUMP_HDR_ELF_MACH, big);
   h->pad1        = jitformats_ld32(buf + JITDUMP_HDR_PAD1, big);
   h->pid         = jitformats_ld32(buf + JITDUMP_HDR_PID, big);
   h->timestamp   = jitformats_ld64(buf + JITDUMP_HDR_TIMESTAMP, big);
   h->flags       = jitformats_ld64(buf + JITDUMP_HDR_FLAGS, big);

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
      nul = find_nul(p, JITDUMP_ENTRY_NAME, left);
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

/* A CODE_LOAD whose prefix was read into ev->rec (and checked against
   JITDUMP_RECORD_MAX): one record of nearly every file, decoded on its
   own path (no table of sizes, no switch).  Sets each field of its
   member on every outcome but NEED_MORE, where only the name and code
   pointers are cleared. */
static int next_code_load(JitdumpReader* r, const unsigned char* buf,
                          unsigned long len, JitdumpEvent* ev)
{
   JitdumpRecord*   rec = &ev->rec;
   JitdumpCodeLoad* ld  = &rec->u.load;
   /* r->big_endian, known here at compile time: only files in this
      host's byte order are read (next_header). */
   const int        big = jitformats_host_big_endian();
   unsigned long    window, end, nul;

   if (rec->total_size < JITDUMP_CODE_LOAD_FIXED)
      return ev_hard(r, ev, JITDUMP_ERR_RECORD_TOO_SHORT);
   if (len < JITDUMP_CODE_LOAD_FIXED) {
      ld->name = 0;
      ld->code = 0;
      return ev_need(r, ev, JITDUMP_CODE_LOAD_FIXED);
   }
   ld->pid        = jitformats_ld32(buf + JITDUMP_LOAD_PID, big);
   ld->tid        = jitformats_ld32(buf + JITDUMP_LOAD_TID, big);
   ld->vma        = jitformats_ld64(buf + JITDUMP_LOAD_VMA, big);
   ld->code_addr  = jitformats_ld64(buf + JITDUMP_LOAD_CODE_ADDR, big);
   ld->code_size  = jitformats_ld64(buf + JITDUMP_LOAD_CODE_SIZE, big);
   ld->code_index = jitformats_ld64(buf + JITDUMP_LOAD_CODE_INDEX, big);
   /* The name must end within the record and within the name cap. */
   window = min_ul(rec->total_size,
                   JITDUMP_CODE_LOAD_FIXED + JITDUMP_NAME_MAX);
   end    = min_ul(len, window);
   nul    = scan_name(buf, JITDUMP_CODE_LOAD_FIXED, end, &ld->name_is_ascii);
   if (nul == end) {
      ld->name             = 0;
      ld->name_len         = 0;
      ld->name_is_ascii    = 0;
      ld->code             = 0;
      ld->code_bytes       = 0;
      ld->code_file_offset = 0;
      if (len < window)
         return ev_need(r, ev, window);
      return ev_consume(r, ev, JITDUMP_EV_BAD_RECORD,
                        JITDUMP_ERR_NAME_UNTERMINATED, rec->total_size);
   }
   ld->name             = (const char*)(buf + JITDUMP_CODE_LOAD_FIXED);
   ld->name_len         = nul - JITDUMP_CODE_LOAD_FIXED;
   ld->code_file_offset = r->offset + nul + 1;
   ld->code_bytes       = rec->total_size - (nul + 1);
   ld->code             = len >= rec->total_size ? buf + nul + 1 : 0;
   if (jitformats_range_wraps(ld->code_addr, ld->code_size))
      return ev_consume(r, ev, JITDUMP_EV_BAD_RECORD,
                        JITDUMP_ERR_CODE_RANGE_WRAPS, rec->total_size);
   return ev_consume(r, ev, JITDUMP_EV_RECORD, JITDUMP_OK, rec->total_size);
}

/* A CODE_MOVE record whose prefix was read into ev->rec, of `fixed`
   bytes at least. */
static int next_code_move(JitdumpReader* r, const unsigned char* buf,
                          unsigned long len, JitdumpEvent* ev,
                          unsigned int fixed)
{
   JitdumpRecord*   rec = &ev->rec;
   JitdumpCodeMove* mv  = &rec->u.move;
   const int big = jitformats_host_big_endian();   /* = r->big_endian */
   if (len < fixed)
      return ev_need(r, ev, fixed);
   mv->pid           = jitformats_ld32(buf + JITDUMP_MOVE_PID, big);
   mv->tid           = jitformats_ld32(buf + JITDUMP_MOVE_TID, big);
   mv->vma           = jitformats_ld64(buf + JITDUMP_MOVE_VMA, big);
   mv->old_code_addr = jitformats_ld64(buf + JITDUMP_MOVE_OLD_CODE_ADDR, big);
   mv->new_code_addr = jitformats_ld64(buf + JITDUMP_MOVE_NEW_CODE_ADDR, big);
   mv->code_size     = jitformats_ld64(buf + JITDUMP_MOVE_CODE_SIZE, big);
   mv->code_index    = jitformats_ld64(buf + JITDUMP_MOVE_CODE_INDEX, big);
   if (jitformats_range_wraps(mv->old_code_addr, mv->code_size)
       || jitformats_range_wraps(mv->new_code_addr, mv->code_size))
      return ev_consume(r, ev, JITDUMP_EV_BAD_RECORD,
                        JITDUMP_ERR_CODE_RANGE_WRAPS, rec->total_size);
   return ev_consume(r, ev, JITDUMP_EV_RECORD, JITDUMP_OK,
                     rec->total_size);
}

/* A CODE_DEBUG_INFO record whose prefix was read into ev->rec, of
   `fixed` bytes at least: held whole (up to the reader's max_hold), its
   entries checked to lie in the record. */
static int next_debug_info(JitdumpReader* r, const unsigned char* buf,
                           unsigned long len, JitdumpEvent* ev,
                           unsigned int fixed)
{
   JitdumpRecord*    rec = &ev->rec;
   JitdumpDebugInfo* di  = &rec->u.debug;
   const int big = jitformats_host_big_endian();   /* = r->big_endian */
   unsigned long body;
   int err;
   if (rec->total_size > r->max_hold)
      return ev_consume(r, ev, JITDUMP_EV_BAD_RECORD,
                        JITDUMP_ERR_DEBUG_INFO_TOO_LARGE, rec->total_size);
   if (len < rec->total_size)
      return ev_need(r, ev, rec->total_size);
   di->code_addr   = jitformats_ld64(buf + JITDUMP_DEBUG_CODE_ADDR, big);
   di->nr_entry    = jitformats_ld64(buf + JITDUMP_DEBUG_NR_ENTRY, big);
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

/* A CODE_UNWINDING_INFO record whose prefix was read into ev->rec, of
   `fixed` bytes at least: its sizes checked, its data held whole when
   the caller is willing to hold the record. */
static int next_unwinding_info(JitdumpReader* r, const unsigned char* buf,
                               unsigned long len, JitdumpEvent* ev,
                               unsigned int fixed)
{
   JitdumpRecord*        rec = &ev->rec;
   JitdumpUnwindingInfo* uw  = &rec->u.unwind;
   const int big = jitformats_host_big_endian();   /* = r->big_endian */
   if (len < fixed)
      return ev_need(r, ev, fixed);
   uw->unwinding_size    = jitformats_ld64(buf + JITDUMP_UNWIND_SIZE, big);
   uw->eh_frame_hdr_size
      = jitformats_ld64(buf + JITDUMP_UNWIND_EH_HDR_SIZE, big);
   uw->mapped_size
      = jitformats_ld64(buf + JITDUMP_UNWIND_MAPPED_SIZE, big);
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

/* A record other than CODE_LOAD whose prefix was read into ev->rec (and
   checked against JITDUMP_RECORD_MAX): each kind its own reader. */
static JITDUMP_NOINLINE int next_other_record(JitdumpReader* r,
                                              const unsigned char* buf,
                                              unsigned long len,
                                              JitdumpEvent* ev)
{
   JitdumpRecord* rec = &ev->rec;
   unsigned int   fixed;

   /* The other kinds start from zeros. */
   jitformats_zero(&rec->u, sizeof(rec->u));

   fixed = ML_(jitdump_fixed_size)(rec->id);
   if (rec->total_size < fixed)
      return ev_hard(r, ev, JITDUMP_ERR_RECORD_TOO_SHORT);

   switch (rec->id) {
   case JITDUMP_CODE_MOVE:
      return next_code_move(r, buf, len, ev, fixed);
   case JITDUMP_CODE_DEBUG_INFO:
      return next_debug_info(r, buf, len, ev, fixed);
   case JITDUMP_CODE_CLOSE:
      return ev_consume(r, ev, JITDUMP_EV_RECORD, JITDUMP_OK,
                        rec->total_size);
   case JITDUMP_CODE_UNWINDING_INFO:
      return next_unwinding_info(r, buf, len, ev, fixed);
   default:
      return ev_consume(r, ev, JITDUMP_EV_UNKNOWN, JITDUMP_OK,
                        rec->total_size);
   }
}

static int next_record(JitdumpReader* r, const unsigned char* buf,
                       unsigned long len, JitdumpEvent* ev)
{
   JitdumpRecord* rec = &ev->rec;
   const int big = jitformats_host_big_endian();   /* = r->big_endian */

   if (len < JITDUMP_PREFIX_SIZE)
      return ev_need(r, ev, JITDUMP_PREFIX_SIZE);

   rec->id          = jitformats_ld32(buf + JITDUMP_REC_ID, big);
   rec->total_size  = jitformats_ld32(buf + JITDUMP_REC_TOTAL_SIZE, big);
   rec->timestamp   = jitformats_ld64(buf + JITDUMP_REC_TIMESTAMP, big);
   rec->file_offset = r->offset;
   /* The cap holds for every kind (a record shorter than its kind's
      fixed part is refused by the kind's reader). */
   if (rec->total_size > JITDUMP_RECORD_MAX)
      return ev_hard(r, ev, JITDUMP_ERR_RECORD_TOO_LARGE);
   if (rec->id == JITDUMP_CODE_LOAD)
      return next_code_load(r, buf, len, ev);
   return next_other_record(r, buf, len, ev);
}

int ML_(jitdump_next)(JitdumpReader* r, const unsigned char* buf,
                      unsigned long len, JitdumpEvent* ev)
{
   if (buf == 0)
      len = 0;
   switch (r->state) {
   case ST_HEADER:
      jitformats_zero(ev, sizeof(*ev));
      return next_header(r, buf, len, ev);
   case ST_RECORDS:
      /* next_record sets the event's own fields and the record (the
         header is valid for JITDUMP_EV_HEADER only). */
      return next_record(r, buf, len, ev);
   default:
      jitformats_zero(ev, sizeof(*ev));
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
         unsigned long nul = find_nul(e, JITDUMP_ENTRY_NAME, stride);
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
   nul = find_nul(p, JITDUMP_ENTRY_NAME, it->left);
   if (nul == it->left)
      return -1;

   e->code_addr
      = jitformats_ld64(p + JITDUMP_ENTRY_ADDR, it->big_endian);
   e->line      = jitformats_ld32(p + JITDUMP_ENTRY_LINE, it->big_endian);
   e->discrim   = jitformats_ld32(p + JITDUMP_ENTRY_DISCRIM, it->big_endian);
   if (it->stride != 0) {
      /* Checked by fixed_stride: stride bytes are left, the name field
         ends in a NUL. */
      e->garbled      = it->garbled;
      e->filename     = it->garbled ? ""
                                    : (const char*)(p + JITDUMP_ENTRY_NAME);
      e->filename_len = it->garbled ? 0 : nul - JITDUMP_ENTRY_NAME;
      it->p         = p + it->stride;
      it->left     -= it->stride;
      it->remaining--;
      return 1;
   }
   if (nul == JITDUMP_ENTRY_NAME + 1 && p[JITDUMP_ENTRY_NAME] == 0xff) {
      /* "\xff\0": same file name as the previous entry. */
      e->same_as_previous = 1;
      e->filename     = it->prev_name;
      e->filename_len = it->prev_len;
   } else {
      e->filename     = (const char*)(p + JITDUMP_ENTRY_NAME);
      e->filename_len = nul - JITDUMP_ENTRY_NAME;
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
