/*--------------------------------------------------------------------*/
/*--- JIT code registry: the client requests of valgrind/jit.h,    ---*/
/*--- decoded by the scheduler.                         jitclreq.c ---*/
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

/* The scheduler decodes each request's arguments and calls one of the
   VG_(di_jit_*) functions below.  They validate every client pointer
   (readable client memory, strings terminated within their limits)
   before the registry reads it, record each thread's last status for
   VALGRIND_JIT_LAST_ERROR, and warn under -v about refusals.  Bad
   arguments never assert: they are refused with a Vg_JitStatus. */

#include "pub_core_basics.h"
#include "pub_core_vki.h"
#include "pub_core_threadstate.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_options.h"
#include "pub_core_aspacemgr.h"
#include "pub_core_jitreg.h"     /* self */

#include "priv_misc.h"           /* dinfo_zalloc/free */
#include "priv_jitreg.h"
#include "priv_jitcfi.h"          /* unwind information */
#include "priv_jitkeep.h"         /* code that stays after unregistration */
#include "priv_jitpending.h"      /* names that wait for their code */

/* Status of each thread's most recent JIT request, indexed by ThreadId
   (VG_N_THREADS entries, allocated on the first request). */
static UChar* last_status = NULL;

static inline void set_last_status ( ThreadId tid, Vg_JitStatus st )
{
   /* The scheduler passes the requesting thread's id: in range. */
   vg_assert(tid < VG_N_THREADS);
   if (last_status == NULL)
      last_status = ML_(dinfo_zalloc)("di.jitclreq.last_status",
                                      VG_N_THREADS);
   last_status[tid] = (UChar)st;
}

/* At most this many warnings are printed under -v; the number not
   printed is in the exit summary. */
#define MAX_WARNINGS 100
static UInt  n_warnings = 0;
static ULong n_warnings_hidden = 0;

/* Counts for the -v exit summary: each request is applied or refused
   (register requests: reg_applied + reg_refused). */
static struct {
   ULong reg_applied, reg_refused;             /* register requests */
   ULong unreg, unreg_applied, unreg_refused;  /* unregister (range) */
} counts;

/* What a warning shows about the request: the name it registers (NULL
   if it has none that could be read) and the arguments that apply to it:
   the range (has_size False: only the start), or, for a descriptor that
   could not be read, only its address (in start, is_desc True). */
typedef
   struct {
      const HChar* what;      /* "register", "unregister", ... */
      const HChar* name;
      Addr         start;
      UWord        size;
      Bool         has_size;
      Bool         is_desc;
      const HChar* detail;    /* why, beyond the status, or NULL */
   }
   ReqDesc;

static void warn ( const ReqDesc* d, Bool refused, Int st )
{
   HChar name[JIT_PRINTABLE_BUF];
   HChar args[64];
   HChar overlap[JIT_PRINTABLE_BUF + 64];
   const HChar* detail = d->detail;
   if (VG_(clo_verbosity) < 2 && !VG_(clo_trace_jit))
      return;
   if (n_warnings >= MAX_WARNINGS) {
      n_warnings_hidden++;
      return;
   }
   n_warnings++;
   if (d->is_desc)
      VG_(sprintf)(args, "descriptor %#lx", d->start);
   else if (d->has_size)
      VG_(sprintf)(args, "start %#lx, size %lu", d->start, d->size);
   else
      VG_(sprintf)(args, "start %#lx", d->start);
   if (st == VG_JIT_ERR_OVERLAPS_OBJECT && d->has_size && detail == NULL) {
      ML_(jit_overlap_text)(d->start, d->size, overlap, sizeof(overlap));
      detail = overlap[0] != 0 ? overlap : NULL;
   }
   if (d->name != NULL) {
      ML_(jit_printable_copy)(name, d->name);
      VG_(umsg)("Warning: JIT %s%s of \"%s\" (%s): %s%s%s\n", d->what,
                refused ? " refused" : "", name, args,
                ML_(jit_status_text)(st), detail ? ": " : "",
                detail ? detail : "");
   } else {
      VG_(umsg)("Warning: JIT %s%s (%s): %s%s%s\n", d->what,
                refused ? " refused" : "", args, ML_(jit_status_text)(st),
                detail ? ": " : "", detail ? detail : "");
   }
   if (n_warnings == MAX_WARNINGS)
      VG_(umsg)("Warning: further JIT warnings are only counted\n");
}

/* Records st as tid's last status, warns about it if it is a refusal
   or a dropped line entry, and returns what the request yields: 0 if
   refused, else applied_ret. */
static UWord finish ( ThreadId tid, const ReqDesc* d, Int st,
                      UWord applied_ret )
{
   set_last_status(tid, (Vg_JitStatus)st);
   if (!ML_(jit_status_applied)(st)) {
      warn(d, True, st);
      return 0;
   }
   if (st == VG_JIT_WARN_LINES_DROPPED)
      warn(d, False, st);
   return applied_ret;
}

void ML_(jit_clreq_print_summary) ( void )
{
   ULong reg = counts.reg_applied + counts.reg_refused;
   if (reg + counts.unreg > 0)
      VG_(umsg)("JIT: client requests: %llu register: %llu registered, "
                "%llu refused; %llu unregister: %llu applied, %llu "
                "refused\n", reg, counts.reg_applied,
                counts.reg_refused, counts.unreg, counts.unreg_applied,
                counts.unreg_refused);
   if (n_warnings_hidden > 0)
      VG_(umsg)("JIT: %llu further client request warnings were only "
                "counted\n", n_warnings_hidden);
}


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

static inline __attribute__((always_inline))
Bool client_string ( Addr p, Bool optional, /*OUT*/const HChar** s )
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
static const HChar* why_printf ( const HChar* fmt, ... ) PRINTF_CHECK(1, 2);
static const HChar* why_printf ( const HChar* fmt, ... )
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
static const HChar* bad_range_why ( Addr start, UWord size )
{
   if (size == 0)
      return "the size is 0";
   if (size > VG_JIT_MAX_CODE_SIZE)
      return why_printf("the size is %lu bytes, above the limit of %lu"
                        " bytes (VG_JIT_MAX_CODE_SIZE)", size,
                        (UWord)VG_JIT_MAX_CODE_SIZE);
   if (start + size < start)
      return why_printf("%#lx + %lu bytes wraps around the end of the"
                        " address space", start, size);
   return NULL;
}


/*------------------------------------------------------------*/
/*--- Registration                                         ---*/
/*------------------------------------------------------------*/

/* Reads the unwind description of descriptor d (unwind_kind not
   VG_JIT_UNWIND_NONE) into di, a DebugInfo being read for the code of
   its r-x mapping; False and *why if it is refused. */
static Bool unwind_from_client ( const VgJitCode* d, DebugInfo* di,
                                 /*OUT*/const HChar** why )
{
   Addr eh = (Addr)d->eh_frame;
   switch (d->unwind_kind) {
      case VG_JIT_UNWIND_EH_FRAME:
         if (d->eh_frame_size == 0 || d->eh_frame_size > VG_JIT_MAX_EH_FRAME) {
            *why = why_printf("eh_frame_size is %lu bytes, not 1 to %lu"
                              " (VG_JIT_MAX_EH_FRAME)",
                              (UWord)d->eh_frame_size,
                              (UWord)VG_JIT_MAX_EH_FRAME);
            return False;
         }
         if (!ML_(jit_client_readable)(eh, d->eh_frame_size)) {
            *why = why_printf("eh_frame (%#lx, %lu bytes) is not readable"
                              " client memory", eh,
                              (UWord)d->eh_frame_size);
            return False;
         }
         return ML_(jit_cfi_read_eh_frame)(
                   di, (const UChar*)eh, d->eh_frame_size,
                   d->eh_frame_addr ? (Addr)d->eh_frame_addr : eh, why);
      case VG_JIT_UNWIND_FRAME_POINTER:
      case VG_JIT_UNWIND_FIXED_FRAME:
         return ML_(jit_cfi_read_shape)(di, d->unwind_kind,
                                        d->prologue_size, d->ra_offset,
                                        d->fp_offset, why);
      default:
         *why = why_printf("unknown unwind_kind %lu",
                           (UWord)d->unwind_kind);
         return False;
   }
}

/* An entry of a client's inline table, copied and checked. */
typedef
   struct {
      UWord        lo, hi;    /* offsets in the code, lo < hi */
      UWord        parent;    /* VG_JIT_INLINE_TOP or an earlier index */
      UInt         depth;     /* 1 for a call inlined into the code's
                                 own function */
      const HChar* name;      /* client memory, checked */
      const HChar* file;      /* client memory, checked; or NULL */
      UInt         line;
   }
   InlEntry;

/* Orders inline entries by parent, then by start, so that overlapping
   siblings are neighbours. */
static Int cmp_inl_entry ( const void* aV, const void* bV )
{
   const InlEntry* a = aV;
   const InlEntry* b = bV;
   if (a->parent != b->parent) return a->parent < b->parent ? -1 : 1;
   if (a->lo != b->lo)         return a->lo < b->lo ? -1 : 1;
   return 0;
}

/* Whether s (client memory, checked by client_string) is text a frame
   may show: not empty, well-formed UTF-8 without control characters. */
static Bool inl_text_ok ( const HChar* s )
{
   return s[0] != 0 && ML_(jit_text_is_clean)(s, VG_(strlen)(s));
}

/* Nests entry t (number i) in its parent p (number parent): its range
   inside the parent's, at most VG_JIT_MAX_INLINE_DEPTH deep.  False and
   *why if it is not. */
static Bool nest_inline_entry ( InlEntry* t, const InlEntry* p, UWord i,
                                UWord parent, /*OUT*/const HChar** why )
{
   if (t->lo < p->lo || t->hi > p->hi) {
      *why = why_printf("entry %lu: its range (offset %lu, %lu bytes) is"
                        " not inside its parent's (entry %lu)", i, t->lo,
                        t->hi - t->lo, parent);
      return False;
   }
   if (p->depth >= VG_JIT_MAX_INLINE_DEPTH) {
      *why = why_printf("entry %lu: inlined calls nest deeper than %lu"
                        " (VG_JIT_MAX_INLINE_DEPTH)", i,
                        (UWord)VG_JIT_MAX_INLINE_DEPTH);
      return False;
   }
   t->depth = p->depth + 1;
   return True;
}

/* Checks entry i of a client's inline table, e (copied from the client
   once), for the code of size bytes, and fills tab[i] from it (entries
   before it are checked already): the rules of VG_JIT_ERR_BAD_INLINE in
   valgrind/jit.h.  A call_file NULL means default_file.  False and
   *why if it breaks one. */
static Bool inline_entry_from_client ( const VgJitInline* e, UWord i,
                                       InlEntry* tab, UWord size,
                                       const HChar* default_file,
                                       /*OUT*/const HChar** why )
{
   InlEntry* t = &tab[i];
   if (e->size == 0 || e->offset >= size || e->size > size - e->offset) {
      *why = why_printf("entry %lu: its range (offset %lu, %lu bytes)"
                        " is empty or not inside the code (%lu bytes)",
                        i, (UWord)e->offset, (UWord)e->size, size);
      return False;
   }
   if (!client_string((Addr)e->name, False, &t->name)
       || !inl_text_ok(t->name)) {
      *why = why_printf("entry %lu: the inlined function's name is"
                        " unreadable, empty, longer than %d bytes or"
                        " not clean text", i, VG_JIT_MAX_STRING);
      return False;
   }
   if (!client_string((Addr)e->call_file, True, &t->file)
       || (t->file != NULL && !inl_text_ok(t->file))) {
      *why = why_printf("entry %lu: the inlined call's file is"
                        " unreadable, empty, longer than %d bytes or"
                        " not clean text", i, VG_JIT_MAX_STRING);
      return False;
   }
   if (e->call_line == 0 || e->call_line > VG_JIT_MAX_INLINE_LINE) {
      *why = why_printf("entry %lu: the inlined call's line is %lu,"
                        " not 1 to %lu (VG_JIT_MAX_INLINE_LINE)", i,
                        (UWord)e->call_line,
                        (UWord)VG_JIT_MAX_INLINE_LINE);
      return False;
   }
   if (e->parent != VG_JIT_INLINE_TOP && e->parent >= i) {
      *why = why_printf("entry %lu: its parent %lu is not an earlier"
                        " entry", i, (UWord)e->parent);
      return False;
   }
   t->lo     = e->offset;
   t->hi     = e->offset + e->size;
   t->parent = e->parent;
   t->line   = (UInt)e->call_line;
   t->depth  = 1;
   if (t->file == NULL)
      t->file = default_file;
   if (e->parent == VG_JIT_INLINE_TOP)
      return True;
   return nest_inline_entry(t, &tab[e->parent], i, (UWord)e->parent, why);
}

/* Whether two entries of tab[0..n) with the same parent overlap (tab is
   sorted by cmp_inl_entry as a side effect); *why names them. */
static Bool inline_siblings_overlap ( InlEntry* tab, UWord n,
                                      /*OUT*/const HChar** why )
{
   UWord i;
   VG_(ssort)(tab, n, sizeof(InlEntry), cmp_inl_entry);
   for (i = 1; i < n; i++) {
      if (tab[i].parent == tab[i-1].parent && tab[i].lo < tab[i-1].hi) {
         *why = why_printf("the inlined ranges at offsets %lu and %lu"
                           " of the same parent overlap",
                           tab[i-1].lo, tab[i].lo);
         return True;
      }
   }
   return False;
}

/* Reads the inline table of descriptor d (d->n_inlines > 0) for the
   code [start, start+size) into di (being read): every entry is copied
   once from client memory, then checked (the rules of
   VG_JIT_ERR_BAD_INLINE in valgrind/jit.h).  An entry's call_file NULL
   means the descriptor's file, default_file.  False and *why if the
   table is refused (di then holds part of it). */
static Bool inlines_from_client ( const VgJitCode* d, DebugInfo* di,
                                  Addr start, UWord size,
                                  const HChar* default_file,
                                  /*OUT*/const HChar** why )
{
   const VgJitInline* in = d->inlines;
   UWord              n  = d->n_inlines;
   InlEntry*          tab;
   UWord              i;
   Bool               ok = True;

   if (n > VG_JIT_MAX_INLINES) {
      *why = why_printf("n_inlines is %lu, above the limit of %lu"
                        " (VG_JIT_MAX_INLINES)", n,
                        (UWord)VG_JIT_MAX_INLINES);
      return False;
   }
   if (!ML_(jit_client_readable)((Addr)in, n * sizeof(VgJitInline))) {
      *why = why_printf("inlines (%#lx, %lu entries) is not readable"
                        " client memory", (Addr)in, n);
      return False;
   }
   tab = ML_(dinfo_zalloc)("di.jitclreq.inlines", n * sizeof(InlEntry));
   for (i = 0; ok && i < n; i++) {
      VgJitInline e = in[i];   /* one read of the client's entry */
      ok = inline_entry_from_client(&e, i, tab, size, default_file, why);
   }
   if (ok) {
      /* Entries in table order are added to di; the sorted copy only
         finds siblings that overlap. */
      for (i = 0; i < n; i++)
         ML_(jit_cfi_add_inlined)(di, start + tab[i].lo, start + tab[i].hi,
                                  tab[i].name, tab[i].file, tab[i].line,
                                  tab[i].depth);
      ok = !inline_siblings_overlap(tab, n, why);
   }
   ML_(dinfo_free)(tab);
   return ok;
}

/* Reads the strings of a registration from client pointers: its name
   (*name_out: the copy, for the warning), object and file (NULL: none)
   into reg.  VG_JIT_OK, or the refusal with *why_out. */
static inline __attribute__((always_inline))
Int strings_from_client ( JitRegistration* reg, Addr name, Addr object,
                          Addr file, /*OUT*/const HChar** name_out,
                          /*OUT*/const HChar** why_out )
{
   if (!client_string_len(name, False, &reg->name, &reg->name_len,
                          &reg->name_is_ascii)) {
      *why_out = bad_string_why("the name", name);
      return VG_JIT_ERR_BAD_NAME;
   }
   *name_out = reg->name;
   /* An absent object (NULL) is the default object. */
   if (!client_string(object, True, &reg->object)) {
      *why_out = bad_string_why("the object name", object);
      return VG_JIT_ERR_BAD_STRING;
   }
   if (!client_string(file, True, &reg->file)) {
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
static Int lines_from_client ( Addr lines, UWord n_lines,
                               /*OUT*/JitSrcLine** tab,
                               /*OUT*/const HChar** why_out )
{
   const VgJitLine* in = (const VgJitLine*)lines;
   UWord            i;
   *tab = NULL;
   if (n_lines > VG_JIT_MAX_LINES) {
      *why_out = why_printf("n_lines is %lu, above the limit of %lu"
                            " (VG_JIT_MAX_LINES)", n_lines,
                            (UWord)VG_JIT_MAX_LINES);
      return VG_JIT_ERR_BAD_LINE_TABLE;
   }
   if (!ML_(jit_client_readable)(lines, n_lines * sizeof(VgJitLine))) {
      *why_out = why_printf("lines (%#lx, %lu entries of %lu bytes) is not"
                            " readable client memory", lines, n_lines,
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
          && !client_string((Addr)e.file, False, &(*tab)[i].file))
         (*tab)[i].file = JIT_SRC_FILE_UNREADABLE;   /* dropped */
   }
   return VG_JIT_OK;
}

/* Reads the unwind description and the inline table of desc, which has
   one of them at least, for the code of reg into one DebugInfo for the
   CFI store (*cfi, made here; the caller frees it unless the store takes
   it, also after a refusal).  VG_JIT_OK, or the refusal with *why_out. */
static Int debug_info_from_client ( const VgJitCode* desc,
                                    const JitRegistration* reg,
                                    /*OUT*/DebugInfo** cfi,
                                    /*OUT*/const HChar** why_out )
{
   if ((*why_out = bad_range_why(reg->start, reg->size)) != NULL)
      return VG_JIT_ERR_BAD_RANGE;
   *cfi = ML_(jit_cfi_new_reading_di)(reg->name, reg->start,
                                      reg->start + reg->size);
   if (desc->unwind_kind != VG_JIT_UNWIND_NONE
       && !unwind_from_client(desc, *cfi, why_out)) {
      ML_(jit_cfi_note_refused)();
      return VG_JIT_ERR_BAD_UNWIND;
   }
   if (desc->inlines != NULL && desc->n_inlines > 0
       && !inlines_from_client(desc, *cfi, reg->start, reg->size,
                               reg->file, why_out))
      return VG_JIT_ERR_BAD_INLINE;
   ML_(jit_cfi_finish_reading)(*cfi);
   return VG_JIT_OK;
}

/* The status a registration that ML_(jit_register_or_wait) answered st
   ends with, and *why_out for its warning: a name waiting for its code,
   the line-table entries dropped (drops), a bad range. */
static inline Int status_of_registration ( Int st, Addr start, UWord size,
                                           const JitLineDrops* drops,
                                           /*OUT*/const HChar** why_out )
{
   if (UNLIKELY(st == JIT_STATUS_WAITING)) {
      *why_out = "the range is not executable client memory yet: the name"
                 " takes effect when it becomes so";
      return VG_JIT_WARN_PENDING;
   }
   if (UNLIKELY(st == VG_JIT_WARN_LINES_DROPPED)) {
      static HChar drops_why[400];
      ML_(jit_line_drops_text)(drops_why, sizeof(drops_why), drops, size);
      *why_out = drops_why;
   } else if (UNLIKELY(st == VG_JIT_ERR_BAD_RANGE)) {
      *why_out = bad_range_why(start, size);
   }
   return st;
}

/* Registers code described by client pointers: validates them, copies
   the client's line table into core memory (lines_from_client), reads
   the unwind description and the inline table of desc (if not NULL,
   debug_info_from_client), and calls ML_(jit_register_or_wait) (a W^X
   JIT may announce code before it makes it executable); the CFI and
   inlined calls are kept if the code was registered.  *why_out: why the
   registration was refused or warned about, or NULL.  Inlined into each
   request, so that a plain VALGRIND_JIT_REGISTER (no object, file,
   lines or descriptor) tests none of them. */
static inline __attribute__((always_inline))
Int register_from_client ( Addr start, UWord size, Addr name,
                           Addr object, Addr file,
                           Addr lines, UWord n_lines,
                           const VgJitCode* desc,
                           /*OUT*/const HChar** name_out,
                           /*OUT*/const HChar** why_out )
{
   JitRegistration reg;
   JitSrcLine*     tab = NULL;
   Int             st;
   DebugInfo*      cfi = NULL;
   JitLineDrops    drops;

   reg.start   = start;
   reg.size    = size;
   reg.lines   = NULL;
   reg.n_lines = 0;
   reg.drops   = NULL;
   reg.may_name_unmapped = False;
   reg.loaded  = 0;   /* client requests give no load time */
   reg.object_resolved = NULL;
   st = strings_from_client(&reg, name, object, file, name_out, why_out);
   if (st != VG_JIT_OK)
      return st;
   if (lines != 0 && n_lines > 0) {
      st = lines_from_client(lines, n_lines, &tab, why_out);
      if (st != VG_JIT_OK)
         return st;
      reg.lines   = tab;
      reg.n_lines = n_lines;
      reg.drops   = &drops;
   }
   if (desc != NULL && (desc->unwind_kind != VG_JIT_UNWIND_NONE
                        || (desc->inlines != NULL && desc->n_inlines > 0))) {
      st = debug_info_from_client(desc, &reg, &cfi, why_out);
      if (st != VG_JIT_OK)
         goto out;
   }
   st = status_of_registration(
           ML_(jit_register_or_wait)(&reg, JitAtSafePoint, &cfi),
           start, size, &drops, why_out);
   if (cfi != NULL && ML_(jit_status_applied)(st)) {
      ML_(jit_cfi_add)(start, start + size, cfi, JitCfiFunction, start);
      cfi = NULL;   /* the store's */
   }
  out:
   if (cfi != NULL)
      ML_(free_unlisted_DebugInfo)(cfi);
   if (tab)
      ML_(dinfo_free)(tab);
   return st;
}

/* finish() for a registration: counts it for the summary. */
static inline UWord finish_register ( ThreadId tid, Int st, Addr start,
                               UWord size, const HChar* name, Addr desc,
                               const HChar* detail )
{
   ReqDesc d;
   if (LIKELY(st == VG_JIT_OK)) {
      /* What finish() does for a registration applied without a
         warning. */
      set_last_status(tid, VG_JIT_OK);
      counts.reg_applied++;
      return 1;
   }
   d.detail   = detail;
   d.what     = "register";
   d.name     = name;
   d.start    = st == VG_JIT_ERR_BAD_DESCRIPTOR ? desc : start;
   d.size     = size;
   d.has_size = True;
   d.is_desc  = st == VG_JIT_ERR_BAD_DESCRIPTOR;
   if (ML_(jit_status_applied)(st)) {
      counts.reg_applied++;
   } else {
      counts.reg_refused++;
      ML_(jit_note_refused)(st);
   }
   return finish(tid, &d, st, 1);
}

UWord VG_(di_jit_register) ( ThreadId tid, Addr start, SizeT size,
                             Addr name )
{
   const HChar* nm = NULL;
   const HChar* why = NULL;
   Int st = register_from_client(start, size, name, 0, 0, 0, 0, NULL,
                                 &nm, &why);
   return finish_register(tid, st, start, size, nm, 0, why);
}

UWord VG_(di_jit_register_code) ( ThreadId tid, Addr desc )
{
   VgJitCode    d;
   UWord        struct_size;
   Int          st;
   const HChar* nm = NULL;
   const HChar* why = NULL;

   VG_(memset)(&d, 0, sizeof(d));
   if (!ML_(jit_client_readable)(desc, sizeof(UWord))) {
      st  = VG_JIT_ERR_BAD_DESCRIPTOR;
      why = desc == 0 ? "the descriptor pointer is NULL"
                      : "its struct_size is not readable client memory";
   } else {
      struct_size = *(const UWord*)desc;
      if (struct_size < VG_JIT_CODE_MIN_SIZE || struct_size > 4096) {
         st  = VG_JIT_ERR_BAD_DESCRIPTOR;
         why = why_printf("struct_size is %lu, not %lu to 4096 bytes",
                          struct_size, (UWord)VG_JIT_CODE_MIN_SIZE);
      } else if (!ML_(jit_client_readable)(desc, struct_size)) {
         st  = VG_JIT_ERR_BAD_DESCRIPTOR;
         why = why_printf("its %lu bytes (struct_size) are not readable"
                          " client memory", struct_size);
      } else {
         /* Fields beyond what this core knows are ignored. */
         VG_(memcpy)(&d, (const void*)desc,
                     struct_size < sizeof(d) ? struct_size : sizeof(d));
         st = register_from_client((Addr)d.start, d.size, (Addr)d.name,
                                   (Addr)d.object, (Addr)d.file,
                                   (Addr)d.lines, d.n_lines, &d, &nm,
                                   &why);
      }
   }
   return finish_register(tid, st, (Addr)d.start, d.size, nm, desc, why);
}


/*------------------------------------------------------------*/
/*--- Unregistration and status                            ---*/
/*------------------------------------------------------------*/

/* finish() for an unregistration: counts it for the summary. */
static UWord finish_unregister ( ThreadId tid, const ReqDesc* d, Int st,
                                 UWord applied_ret )
{
   counts.unreg++;
   if (ML_(jit_status_applied)(st))
      counts.unreg_applied++;
   else
      counts.unreg_refused++;
   return finish(tid, d, st, applied_ret);
}

UWord VG_(di_jit_unregister) ( ThreadId tid, Addr start )
{
   ReqDesc d = { "unregister", NULL, start, 0, False, False, NULL };
   Int     st = ML_(jit_unregister_keeping_code)(start);
   return finish_unregister(tid, &d, st, 1);
}

UWord VG_(di_jit_unregister_range) ( ThreadId tid, Addr start, SizeT size )
{
   ReqDesc d = { "unregister-range", NULL, start, size, True, False,
                 NULL };
   UWord   n  = ML_(jit_unregister_range_keeping_code)(start, size);
   Int     st = n > 0 ? VG_JIT_OK : VG_JIT_ERR_NOT_REGISTERED;
   return finish_unregister(tid, &d, st, n);
}

UWord VG_(di_jit_last_status) ( ThreadId tid )
{
   vg_assert(VG_(is_valid_tid)(tid));
   return last_status ? last_status[tid] : VG_JIT_OK;
}

void VG_(di_jit_unknown_request) ( UWord code )
{
   if (VG_(clo_verbosity) > 1)
      VG_(umsg)("Warning: unknown JIT client request %#lx\n", code);
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
