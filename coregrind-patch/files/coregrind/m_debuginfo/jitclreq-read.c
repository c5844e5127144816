/*--------------------------------------------------------------------*/
/*--- JIT code registry: what the client requests read from        ---*/
/*--- client memory: strings, line tables.         jitclreq-read.c ---*/
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

/* What the client requests (jitclreq.c, jitclreq-inline.c) read from
   the client: every pointer is checked before it is read (readable
   client memory, strings terminated within their limits, tables of
   bounded size), and a refusal's reason says what was wrong.  The name
   check is on the path of every registration: the string's length is
   found a word at a time in its one mapping. */

#include "pub_core_basics.h"
#include "pub_core_vki.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_options.h"
#include "pub_core_aspacemgr.h"
#include "pub_core_jitreg.h"

#include "priv_misc.h"           /* dinfo_zalloc */
#include "priv_jitreg.h"
#include "priv_jitclreq.h"       /* self */

/*------------------------------------------------------------*/
/*--- Reading client memory safely                         ---*/
/*------------------------------------------------------------*/

Bool ML_(jit_client_readable) ( Addr a, SizeT len )
{
   if (len == 0)
      return True;
   if (a == 0 || a + len < a)
      return False;
   return VG_(am_is_valid_for_client)(a, len, VKI_PROT_READ);
}

/* client_strlen for any string: looks at most at max+1 bytes, checking
   readability page by page (a string may run from one mapping into the
   next). */
static Long client_strlen_paged ( Addr s, SizeT max, /*OUT*/Bool* ascii )
{
   SizeT i = 0;   /* bytes looked at so far, all non-zero */
   *ascii = True;
   if (s == 0)
      return -1;
   while (i <= max) {
      Addr         p        = s + i;
      Addr         page_end = VG_PGROUNDDN(p) + VKI_PAGE_SIZE;
      SizeT        n;
      const HChar* c;
      if (p < s || page_end <= p)
         return -1;   /* wrapped */
      if (!VG_(am_is_valid_for_client)(p, page_end - p, VKI_PROT_READ))
         return -1;
      /* Scan the readable rest of this page, at most up to max: bytes
         up to a word boundary, then whole words while no byte is zero
         (aligned words never leave the page), then bytes again. */
      n = page_end - p;
      if (n > max + 1 - i)
         n = max + 1 - i;
      c = (const HChar*)p;
      while (n > 0 && ((Addr)c & (sizeof(UWord) - 1)) != 0 && *c != 0) {
         *ascii = *ascii && ML_(jit_is_printable_ascii)((UChar)*c);
         c++;
         n--;
      }
      while (n >= sizeof(UWord)) {
         UWord w = *(const UWord*)c;
         if (!ML_(jit_word_is_printable_ascii)(w)) {
            if (ML_(jit_word_has_zero)(w))
               break;
            *ascii = False;
         }
         c += sizeof(UWord);
         n -= sizeof(UWord);
      }
      while (n > 0 && *c != 0) {
         *ascii = *ascii && ML_(jit_is_printable_ascii)((UChar)*c);
         c++;
         n--;
      }
      i += (SizeT)(c - (const HChar*)p);
      if (n > 0)
         return (Long)i;   /* found the terminator */
   }
   return -1;
}

/* The readable client mapping (anonymous, file or shared memory, no
   guard pages) that client_strlen accepted last: a JIT's names are
   mostly in one heap mapping. */
static JitMappingMemo last_string_mapping;

/* Length of the NUL-terminated client string at s (at most max bytes
   before the terminator); *ascii tells whether all of it is printable
   ASCII (the common case, which then needs no second look).  Returns -1
   if s is NULL, unreadable, or not terminated within max bytes.

   A name lies in one readable client mapping: one segment look-up
   covers it (none while last_string_mapping holds it), and it is
   scanned a whole aligned word at a time, the
   first word with the bytes before s and the last with the bytes after
   the terminator masked (an aligned word never leaves its page, and
   every page of the segment is readable).  A string running to the end
   of its segment, in a segment with guard pages, or on a big-endian
   host takes client_strlen_paged.  Inlined into each request's name
   check: it is on the path of every registration. */
static inline __attribute__((always_inline))
Long client_strlen ( Addr s, SizeT max, /*OUT*/Bool* ascii )
{
#if defined(VG_LITTLEENDIAN)
   const UWord     fill = JIT_WORD_ONES * 0x41;   /* 'A': printable */
   Addr            end, w, last;
   UWord           v, lead, z, keep;
   UWord           bad = 0;   /* top bits: bytes that are not printable */
   SizeT           len;
   if (s == 0) {
      *ascii = True;
      return -1;
   }
   if (ML_(jit_memo_holds)(&last_string_mapping, s, s)) {
      end = last_string_mapping.end;
   } else {
      const NSegment* seg = VG_(am_find_nsegment)(s);
      if (seg == NULL || seg->hasGuardPages || !seg->hasR
          || (seg->kind != SkAnonC && seg->kind != SkFileC
              && seg->kind != SkShmC))
         return client_strlen_paged(s, max, ascii);
      ML_(jit_memo_set)(&last_string_mapping, seg->start, seg->end);
      end = seg->end;
   }
   /* The words that may hold the terminator start at or below last. */
   last = end - s <= max ? end : s + max;
   w    = s & ~(Addr)(sizeof(UWord) - 1);
   lead = s - w;
   v    = *(const UWord*)w;
   if (lead > 0) {
      keep = ((UWord)1 << (8 * lead)) - 1;   /* the bytes before s */
      v = (v & ~keep) | (fill & keep);
   }
   /* A word with no zero byte: flag its unprintable bytes and go on (a
      printable word has no zero byte). */
   while (!ML_(jit_word_has_zero)(v)) {
      bad |= ML_(jit_word_unprintable)(v);
      w += sizeof(UWord);
      if (UNLIKELY(w - 1 >= last)) {   /* w > last, or w wrapped to 0 */
         if (last == end && end - s < max)
            return client_strlen_paged(s, max, ascii);   /* next mapping */
         *ascii = bad == 0;
         return -1;
      }
      v = *(const UWord*)w;
   }
   /* The lowest byte flagged is the first zero (a borrow only flags
      bytes above a zero). */
   z    = (v - JIT_WORD_ONES) & ~v & JIT_WORD_HIGHS;
   len  = w - s + (SizeT)(__builtin_ctzll(z) >> 3);
   keep = ((UWord)1 << (__builtin_ctzll(z) & ~7ULL)) - 1;   /* before it */
   bad |= ML_(jit_word_unprintable)((v & keep) | (fill & ~keep));
   *ascii = bad == 0;
   return len <= max ? (Long)len : -1;
#else
   return client_strlen_paged(s, max, ascii);
#endif
}

/* Validates a client string pointer (0 allowed when optional).
   Returns True and sets *s (and *len and *ascii, if not NULL: its
   length, 0 for an absent optional string, and whether it is printable
   ASCII) if usable. */
static inline __attribute__((always_inline))
Bool client_string_len ( Addr p, Bool optional,
                                /*OUT*/const HChar** s, /*OUT*/SizeT* len,
                                /*OUT*/Bool* ascii )
{
   Long n;
   Bool is_ascii;
   *s = NULL;
   if (len != NULL)
      *len = 0;
   if (ascii != NULL)
      *ascii = False;
   if (p == 0)
      return optional;
   n = client_strlen(p, VG_JIT_MAX_STRING, &is_ascii);
   if (n <= 0)
      return False;
   *s = (const HChar*)p;
   if (len != NULL)
      *len = (SizeT)n;
   if (ascii != NULL)
      *ascii = is_ascii;
   return True;
}

Bool ML_(jit_client_string) ( Addr p, Bool optional, /*OUT*/const HChar** s )
{
   return client_string_len(p, optional, s, NULL, NULL);
}


/* Why client_string_len refused the string at p, which `what` names
   ("the name", "the object name", ...): a text valid until the next
   call, for the warning.  Only on the refusal path: it reads the string
   again, page by page. */
static const HChar* bad_string_why ( const HChar* what, Addr p )
{
   static HChar buf[160];
   Bool ascii;
   Long n;
   if (p == 0) {
      VG_(snprintf)(buf, sizeof(buf), "%s is NULL", what);
      return buf;
   }
   if (!ML_(jit_client_readable)(p, 1)) {
      VG_(snprintf)(buf, sizeof(buf),
                    "%s at %#lx is not readable client memory", what, p);
      return buf;
   }
   n = client_strlen_paged(p, VG_JIT_MAX_STRING, &ascii);
   if (n == 0) {
      VG_(snprintf)(buf, sizeof(buf), "%s is empty", what);
      return buf;
   }
   /* Not terminated within the limit: too long, or cut by unreadable
      memory.  Look further (at most 1 MiB) to tell which. */
   n = client_strlen_paged(p, 1 << 20, &ascii);
   if (n > VG_JIT_MAX_STRING)
      VG_(snprintf)(buf, sizeof(buf),
                    "%s is %lld bytes long, above the limit of %d bytes"
                    " (VG_JIT_MAX_STRING)", what, n, VG_JIT_MAX_STRING);
   else if (n < 0 && ML_(jit_client_readable)(p, VG_JIT_MAX_STRING + 1))
      VG_(snprintf)(buf, sizeof(buf),
                    "%s has no terminating NUL within 1 MiB (the limit is"
                    " %d bytes, VG_JIT_MAX_STRING)", what, VG_JIT_MAX_STRING);
   else
      VG_(snprintf)(buf, sizeof(buf),
                    "%s at %#lx runs into unreadable memory before its"
                    " terminating NUL", what, p);
   return buf;
}


/* A refusal's reason with numbers, formatted: valid until the next
   call (one request is refused for one reason). */
const HChar* ML_(jit_why_printf) ( const HChar* fmt, ... )
{
   static HChar buf[200];
   va_list vargs;
   va_start(vargs, fmt);
   VG_(vsnprintf)(buf, sizeof(buf), fmt, vargs);
   va_end(vargs);
   return buf;
}

/* Why [start, start+size) is no range a function can have (the checks
   of ML_(jit_register) that give VG_JIT_ERR_BAD_RANGE), or NULL. */
const HChar* ML_(jit_bad_range_why) ( Addr start, UWord size )
{
   if (size == 0)
      return "the size is 0";
   if (size > VG_JIT_MAX_CODE_SIZE)
      return ML_(jit_why_printf)("the size is %lu bytes, above the limit of %lu"
                                 " bytes (VG_JIT_MAX_CODE_SIZE)", size,
                                 (UWord)VG_JIT_MAX_CODE_SIZE);
   if (start + size < start)
      return ML_(jit_why_printf)("%#lx + %lu bytes wraps around the end of the"
                                 " address space", start, size);
   return NULL;
}


/* Reads the strings of a registration from client pointers: its name
   (*name_out: the copy, for the warning), object and file (NULL: none)
   into reg.  VG_JIT_OK, or the refusal with *why_out. */
Int ML_(jit_strings_from_client) ( JitRegistration* reg, Addr name,
                                   Addr object, Addr file,
                                   /*OUT*/const HChar** name_out,
                                   /*OUT*/const HChar** why_out )
{
   if (!client_string_len(name, False, &reg->name, &reg->name_len,
                          &reg->name_is_ascii)) {
      *why_out = bad_string_why("the name", name);
      return VG_JIT_ERR_BAD_NAME;
   }
   *name_out = reg->name;
   /* An absent object (NULL) is the default object. */
   if (!ML_(jit_client_string)(object, True, &reg->object)) {
      *why_out = bad_string_why("the object name", object);
      return VG_JIT_ERR_BAD_STRING;
   }
   if (!ML_(jit_client_string)(file, True, &reg->file)) {
      *why_out = bad_string_why("the file name", file);
      return VG_JIT_ERR_BAD_STRING;
   }
   return VG_JIT_OK;
}

/* Copies the client's line table, n_lines (> 0) entries at lines, into
   core memory (*tab, the caller frees it): entries with an unusable
   file pointer get JIT_SRC_FILE_UNREADABLE, so that they are dropped
   and counted.  VG_JIT_OK, or VG_JIT_ERR_BAD_LINE_TABLE with *why_out
   (*tab NULL). */
Int ML_(jit_lines_from_client) ( Addr lines, UWord n_lines,
                                 /*OUT*/JitSrcLine** tab,
                                 /*OUT*/const HChar** why_out )
{
   const VgJitLine* in = (const VgJitLine*)lines;
   UWord            i;
   *tab = NULL;
   if (n_lines > VG_JIT_MAX_LINES) {
      *why_out = ML_(jit_why_printf)("n_lines is %lu, above the limit of %lu"
                                     " (VG_JIT_MAX_LINES)", n_lines,
                                     (UWord)VG_JIT_MAX_LINES);
      return VG_JIT_ERR_BAD_LINE_TABLE;
   }
   if (!ML_(jit_client_readable)(lines, n_lines * sizeof(VgJitLine))) {
      *why_out = ML_(jit_why_printf)("lines (%#lx, %lu entries of %lu"
                                     " bytes) is not readable client memory",
                                     lines, n_lines,
                                     (UWord)sizeof(VgJitLine));
      return VG_JIT_ERR_BAD_LINE_TABLE;
   }
   *tab = ML_(dinfo_zalloc)("di.jitclreq.lines",
                            n_lines * sizeof(JitSrcLine));
   for (i = 0; i < n_lines; i++) {
      VgJitLine e = in[i];   /* one read of the client's entry */
      (*tab)[i].offset = e.offset;
      (*tab)[i].line   = e.line;
      if (e.file != NULL
          && !ML_(jit_client_string)((Addr)e.file, False, &(*tab)[i].file))
         (*tab)[i].file = JIT_SRC_FILE_UNREADABLE;   /* dropped */
   }
   return VG_JIT_OK;
}

/*--------------------------------------------------------------------*/
/*--- end                                          jitclreq-read.c ---*/
/*--------------------------------------------------------------------*/
