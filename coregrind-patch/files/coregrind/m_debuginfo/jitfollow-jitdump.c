/*--------------------------------------------------------------------*/
/*--- Following jitdump files (jit-<pid>.dump): CODE_LOAD,         ---*/
/*--- CODE_MOVE, CODE_DEBUG_INFO, CODE_CLOSE.   jitfollow-jitdump.c ---*/
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

/* A jitdump file (Linux perf's tools/perf/Documentation/
   jitdump-specification.txt) is followed from the moment the client
   maps it, if its name is jit-<pid>.dump for this process and it starts
   with the jitdump magic in this host's byte order.  Records are decoded
   by readjitdump.c.  A CODE_DEBUG_INFO record describes the CODE_LOAD
   that follows it at the same address: its entries are kept until
   then.  A CODE_UNWINDING_INFO record describes the next CODE_LOAD
   (whatever its address): its .eh_frame is kept until then, and read
   into the CFI store (jitcfi.c) for the code once it is registered. */

#include "pub_core_basics.h"
#include "pub_core_vki.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_options.h"
#include "pub_core_xarray.h"

#include "priv_misc.h"           /* dinfo_zalloc/free */
#include "priv_readjitdump.h"    /* the shared reader */
#include "priv_jitreg.h"
#include "priv_jitcfi.h"         /* CODE_UNWINDING_INFO */
#include "priv_jitfollow.h"
#include "priv_jitpending.h"     /* names that wait for their code */

/* One entry of a CODE_DEBUG_INFO record waiting for its CODE_LOAD. */
typedef
   struct {
      Addr  addr;       /* absolute code address */
      UInt  line;
      UWord file_off;   /* in pending_files */
   }
   PendingLine;

/* The CODE_LOADs registered in one ML_(jit_register_run) at most. */
#define JITDUMP_RUN_MAX 64

typedef
   struct {
      JitdumpReader jd;
      JitdumpEvent  ev;             /* the item decoded last */
      /* The last CODE_DEBUG_INFO, for the next CODE_LOAD at its addr. */
      Bool          have_pending;
      Addr          pending_addr;
      XArray*       pending_lines;  /* of PendingLine */
      XArray*       pending_files;  /* of HChar: NUL-terminated names */
      /* Line-table convention seen in this file (see line_bias). */
      Bool          lines_direct, lines_plus40;
      /* The .eh_frame of the last CODE_UNWINDING_INFO, for the next
         CODE_LOAD; empty if none. */
      XArray*       pending_unwind;  /* of UChar */
      Bool          have_unwind;     /* pending_unwind is not empty */
      /* The header flags JITDUMP_FLAG_ARCH_TIMESTAMP: the records'
         timestamps are not on CLOCK_MONOTONIC. */
      Bool          arch_clock;
      /* A value of ML_(jit_now) read while this file was read (0: none
         yet): a timestamp at or below it is not later than now, so
         load_time reads the clock again only for a later one (about
         once per batch of records, not once per record). */
      ULong         clock_seen;
      /* An incomplete header was reported (at exit). */
      Bool          short_header_told;
      /* The script of the CODE_LOAD being registered, for line entries
         whose name fields V8 garbled (v8_script_of). */
      HChar         script[VG_JIT_MAX_STRING + 1];
      /* CODE_LOADs of one step at a safe point, not registered yet: a
         run of plain records (printable names, no line table, no
         unwinding information) for code placed upward, which
         flush_run registers together.  Their names point into the
         step's buffer: the run is flushed before the step returns and
         before any other record is handled. */
      JitRunFn      run[JITDUMP_RUN_MAX];
      ULong         run_offset[JITDUMP_RUN_MAX];  /* their file offsets */
      UInt          n_run;
      Addr          run_end;   /* the end of the run's last code */
   }
   JitdumpState;

/* Forgets the .eh_frame kept for the next CODE_LOAD, if any. */
static void drop_unwinding ( JitdumpState* s )
{
   if (!s->have_unwind)
      return;
   s->have_unwind = False;
   VG_(dropTailXA)(s->pending_unwind, VG_(sizeXA)(s->pending_unwind));
}

/* Keeps the .eh_frame of a CODE_UNWINDING_INFO record for the next
   CODE_LOAD.  The record's data is the .eh_frame followed by its
   .eh_frame_hdr (eh_frame_hdr_size bytes at the end): Linux perf (perf
   inject --jit, tools/perf/util/genelf.c) makes the first
   unwinding_size - eh_frame_hdr_size bytes the generated ELF's .eh_frame,
   which V8 writes so.  Data with no .eh_frame (a header alone says
   "unwind by the frame pointer") leaves nothing to keep. */
static void keep_unwinding ( JitFollower* fl, const JitdumpUnwindingInfo* uw,
                             ULong where )
{
   JitdumpState* s = fl->state;
   ULong         eh_size = uw->unwinding_size - uw->eh_frame_hdr_size;
   drop_unwinding(s);
   if (eh_size == 0)
      return;
   if (uw->data == NULL || eh_size > VG_JIT_MAX_EH_FRAME) {
      HChar why[160];
      if (uw->data == NULL)   /* the record was not held whole */
         VG_(snprintf)(why, sizeof(why), "CODE_UNWINDING_INFO with %llu"
                       " bytes of data, more than the %lu bytes read of a"
                       " record: ignored", uw->data_len,
                       (UWord)JITDUMP_DEBUG_INFO_MAX);
      else
         VG_(snprintf)(why, sizeof(why), "CODE_UNWINDING_INFO with %llu"
                       " bytes of .eh_frame, above the limit of %lu bytes"
                       " (VG_JIT_MAX_EH_FRAME): ignored", eh_size,
                       (UWord)VG_JIT_MAX_EH_FRAME);
      ML_(jit_cfi_note_refused)();
      ML_(jit_follow_warn)(fl, where, why);
      return;
   }
   VG_(addBytesToXA)(s->pending_unwind, uw->data, (Word)eh_size);
   s->have_unwind = True;
}

/* Reads the kept .eh_frame for the code just registered at [start,
   start+size) and hands it to the CFI store.  The .eh_frame lies where
   perf's genelf puts it: after the code, at the next multiple of 8
   bytes (the ELF's text and .eh_frame keep their distance when the text
   is at its run-time address), which resolves its PC-relative
   pointers. */
static void apply_unwinding ( JitFollower* fl, Addr start, UWord size,
                              const HChar* name, ULong where )
{
   JitdumpState* s = fl->state;
   const HChar*  why = NULL;
   DebugInfo*    cfi;
   cfi = ML_(jit_cfi_from_eh_frame)(VG_(indexXA)(s->pending_unwind, 0),
                                    VG_(sizeXA)(s->pending_unwind),
                                    start + VG_ROUNDUP(size, 8),
                                    start, start + size, name, &why);
   if (cfi != NULL) {
      ML_(jit_cfi_add)(start, start + size, cfi, JitCfiFunction, start);
      return;
   }
   ML_(jit_cfi_note_refused)();
   if (ML_(jit_follow_may_warn)(fl)) {
      HChar pname[JIT_PRINTABLE_BUF];
      ML_(jit_printable_copy)(pname, name);
      VG_(umsg)("Warning: %s:offset %llu: CODE_UNWINDING_INFO of %s "
                "refused: %s\n", fl->path, where, pname, why);
   }
}

/* Forgets the kept CODE_DEBUG_INFO entries.  Without have_pending both
   arrays are empty (keep_debug_info sets it whenever it fills them), so
   a record with no line table costs no call here. */
static void clear_pending ( JitdumpState* s )
{
   if (!s->have_pending)
      return;
   s->have_pending = False;
   VG_(dropTailXA)(s->pending_lines, VG_(sizeXA)(s->pending_lines));
   VG_(dropTailXA)(s->pending_files, VG_(sizeXA)(s->pending_files));
}

/* PendingLine.file_off of an entry whose name field held no name. */
#define FILE_UNKNOWN (~(UWord)0)

/* Copies a CODE_DEBUG_INFO record's entries (they live in the read
   buffer) for the CODE_LOAD that follows it. */
static void keep_debug_info ( JitdumpState* s, const JitdumpDebugInfo* di )
{
   JitdumpDebugIter  it;
   JitdumpDebugEntry e;
   const HChar*      last_name = NULL;
   UWord             last_off = 0;

   clear_pending(s);
#  if VG_WORDSIZE == 4
   if (di->code_addr > 0xFFFFFFFFULL)
      return;   /* not this platform's: its CODE_LOAD is refused */
#  endif
   s->have_pending = True;
   s->pending_addr = (Addr)di->code_addr;
   ML_(jitdump_debug_iter_init)(&it, &s->jd, di);
   while (ML_(jitdump_debug_entry_next)(&it, &e) == 1) {
      PendingLine pl;
#     if VG_WORDSIZE == 4
      if (e.code_addr > 0xFFFFFFFFULL)
         continue;   /* past a 32-bit address space: outside the code */
#     endif
      if (e.garbled) {
         pl.addr     = (Addr)e.code_addr;
         pl.line     = e.line;
         pl.file_off = FILE_UNKNOWN;
         VG_(addToXA)(s->pending_lines, &pl);
         continue;
      }
      if (e.filename != last_name) {
         /* Consecutive entries usually share their file: store once. */
         last_off = VG_(sizeXA)(s->pending_files);
         VG_(addBytesToXA)(s->pending_files, e.filename, e.filename_len);
         VG_(addBytesToXA)(s->pending_files, "", 1);
         last_name = e.filename;
      }
      pl.addr     = (Addr)e.code_addr;
      pl.line     = e.line;
      pl.file_off = last_off;
      VG_(addToXA)(s->pending_lines, &pl);
   }
}

/* CODE_DEBUG_INFO addresses.  The jitdump specification and Linux perf
   (perf inject --jit, tools/perf/util/genelf_debug.c since Linux 5.8:
   an entry's line starts at the generated ELF's text + (addr -
   code_addr)) take them as code addresses.  V8 and LLVM's perf listener
   add 0x40 to each (the ELF header size that older perf put before the
   code).  The convention is read from the records: a table with an entry
   in the first 0x40 bytes of its code is direct; one with an entry at or
   past the code's end whose entries all fit once 0x40 is taken off is
   0x40 past; a file keeps the convention it showed first.  A table that
   shows neither is read as 0x40 past if its first entry is exactly at
   code + 0x40 (where such producers put the function's first line) and
   the file never showed a direct table.  Returns the bias to subtract.
   Entries outside their code after that are dropped and counted by the
   registry. */
#define V8_LINE_BIAS 0x40
static UWord line_bias ( JitFollower* fl, Addr start, UWord size )
{
   JitdumpState* s = fl->state;
   Word  i, n = VG_(sizeXA)(s->pending_lines);
   Addr  lo = ~(Addr)0, hi = 0;
   for (i = 0; i < n; i++) {
      const PendingLine* pl = VG_(indexXA)(s->pending_lines, i);
      if (pl->addr < lo) lo = pl->addr;
      if (pl->addr > hi) hi = pl->addr;
   }
   if (n == 0)
      return 0;
   if (lo < start + V8_LINE_BIAS) {
      s->lines_direct = True;
      return 0;
   }
   if (hi - start >= size && hi - start - V8_LINE_BIAS < size) {
      if (!s->lines_plus40 && ML_(jit_follow_may_warn)(fl))
         VG_(umsg)("Warning: %s: line tables are 0x%x bytes past their "
                   "code (as V8 and LLVM write them): read so\n",
                   fl->path, (UInt)V8_LINE_BIAS);
      s->lines_plus40 = True;
      return V8_LINE_BIAS;
   }
   if (s->lines_plus40
       || (lo == start + V8_LINE_BIAS && !s->lines_direct))
      return V8_LINE_BIAS;
   return 0;
}

/* V8 names its code "<kind>:<marker><function> <script>:<line>:<column>"
   (e.g. "JS:*hot /srv/app.js:1:13").  Copies <script> into buf (cap
   bytes) and returns it, or NULL if name does not end that way.  The
   file of line entries whose name fields V8 garbled. */
static const HChar* v8_script_of ( const HChar* name, HChar* buf, SizeT cap )
{
   const HChar* sp = VG_(strrchr)(name, ' ');
   const HChar* end;
   SizeT        len;
   Int          k;
   if (sp == NULL)
      return NULL;
   end = name + VG_(strlen)(name);
   for (k = 0; k < 2; k++) {   /* ":<column>", then ":<line>" */
      const HChar* c = end;
      while (c > sp + 1 && VG_(isdigit)(c[-1]))
         c--;
      if (c == end || c <= sp + 1 || c[-1] != ':')
         return NULL;
      end = c - 1;
   }
   len = end - (sp + 1);
   if (len == 0 || len >= cap)
      return NULL;
   VG_(memcpy)(buf, sp + 1, len);
   buf[len] = 0;
   return buf;
}

/* The load time of a CODE_LOAD stamped ts, in VG_(jit_time_now)'s
   clock, or 0 if ts cannot be on that clock: the header flags an
   architecture clock, or ts is 0 or later than now (a record is read
   after it was written; CLOCK_REALTIME stamps are decades later). */
static ULong load_time ( JitdumpState* s, ULong ts )
{
   if (s->arch_clock || ts == 0)
      return 0;
   if (ts > s->clock_seen)
      s->clock_seen = ML_(jit_now)();
   return ts > s->clock_seen ? 0 : ts;
}

/* Gives reg (the registration of CODE_LOAD ld) the line table of the
   CODE_DEBUG_INFO record kept for it.  Returns the table, which the
   caller frees after the registration.  Out of line: code without a line
   table (most of a jitdump's, and the bench's) keeps a small frame. */
__attribute__((noinline))
static JitSrcLine* attach_lines ( JitFollower* fl, JitRegistration* reg,
                                  const JitdumpCodeLoad* ld )
{
   JitdumpState* s = fl->state;
   Word          i, n = VG_(sizeXA)(s->pending_lines);
   HChar*        files = VG_(sizeXA)(s->pending_files) > 0
                            ? VG_(indexXA)(s->pending_files, 0) : NULL;
   UWord         bias  = line_bias(fl, reg->start, reg->size);
   JitSrcLine*   lines = ML_(dinfo_zalloc)("di.jitfollow.lines",
                                           n * sizeof(JitSrcLine));
   for (i = 0; i < n; i++) {
      const PendingLine* pl = VG_(indexXA)(s->pending_lines, i);
      /* >= size if before the code (wraps): dropped */
      lines[i].offset = pl->addr - reg->start - bias;
      lines[i].line   = pl->line;
      if (pl->file_off == FILE_UNKNOWN) {
         lines[i].file = NULL;   /* reg->file, if any */
         if (reg->file == NULL)
            reg->file = v8_script_of(ld->name, s->script,
                                     sizeof(s->script));
      } else {
         lines[i].file = files + pl->file_off;
      }
   }
   reg->lines   = lines;
   reg->n_lines = n;
   return lines;
}

/* Registers a CODE_LOAD whose load time (load_time of its timestamp) is
   `loaded`.  Returns False if it must wait for a safe point (not
   consumed). */
static Bool handle_code_load ( JitFollower* fl, const JitdumpCodeLoad* ld,
                               ULong loaded, ULong where, JitWhere when )
{
   JitdumpState*   s = fl->state;
   JitRegistration reg;
   JitSrcLine*     lines = NULL;
   JitLineDrops    drops;
   Int             st;

   if (ld->code_size == 0 || ld->name_len == 0) {
      ML_(jit_follow_warn)(fl, where, ld->code_size == 0
                           ? "CODE_LOAD with code_size 0 ignored"
                           : "CODE_LOAD with an empty name ignored");
      drop_unwinding(s);
      return True;
   }
   if (!ML_(jit_follow_fits)(fl, where, "CODE_LOAD", ld->code_addr,
                             ld->code_size)) {
      drop_unwinding(s);
      return True;
   }
   /* Every field is set here, not cleared first: a CODE_LOAD is the
      one record of nearly every file. */
   reg.start  = (Addr)ld->code_addr;
   reg.size   = (UWord)ld->code_size;
   reg.name   = ld->name;    /* NUL-terminated in the buffer */
   /* What the reader's one pass over the name found: the registry need
      not measure or check it again. */
   reg.name_len      = ld->name_len;
   reg.name_is_ascii = ld->name_is_ascii != 0;
   reg.object = fl->path;
   reg.object_resolved = ML_(jit_follow_object)(fl);
   reg.file    = NULL;
   reg.lines   = NULL;
   reg.n_lines = 0;
   reg.loaded  = loaded;
   /* V8 flushes its last block after it unmapped its code. */
   reg.may_name_unmapped = True;
   reg.drops = NULL;
   if (s->have_pending && s->pending_addr == reg.start
       && VG_(sizeXA)(s->pending_lines) > 0) {
      lines = attach_lines(fl, &reg, ld);
      reg.drops = &drops;
   }
   st = ML_(jit_register_or_wait)(&reg, when, NULL);
   if (lines)
      ML_(dinfo_free)(lines);
   if (!ML_(jit_follow_registered)(fl, &reg, st, where))
      return False;
   clear_pending(s);
   /* Code named late has no code for its unwinding information. */
   if (s->have_unwind && ML_(jit_status_applied)(st))
      apply_unwinding(fl, reg.start, reg.size, ld->name, where);
   /* An unwinding record describes the next CODE_LOAD only. */
   drop_unwinding(s);
   return True;
}

/* Handles a record event but a CODE_LOAD's (jitdump_step hands those to
   handle_code_load).  Returns False if the record must wait for a safe
   point. */
static Bool handle_record ( JitFollower* fl, const JitdumpEvent* ev,
                            JitWhere when )
{
   switch (ev->kind) {
      case JITDUMP_EV_UNKNOWN:
         fl->n_other++;
         return True;   /* skipped by its total_size */
      case JITDUMP_EV_BAD_RECORD: {
         HChar why[200];
         JitdumpState* s = fl->state;
         ML_(jit_follow_warn)(fl, ev->offset,
                              ML_(jitdump_describe)(&s->jd, ev, why,
                                                    sizeof(why)));
         return True;
      }
      case JITDUMP_EV_RECORD:
         break;
      default:
         fl->n_other++;
         return True;
   }
   switch (ev->rec.id) {
      case JITDUMP_CODE_MOVE: {
         Int st;
         if (when == JitInLookup)
            return False;
         if (!ML_(jit_follow_fits)(fl, ev->offset, "CODE_MOVE",
                                   ev->rec.u.move.old_code_addr,
                                   ev->rec.u.move.code_size)
             || !ML_(jit_follow_fits)(fl, ev->offset, "CODE_MOVE",
                                      ev->rec.u.move.new_code_addr,
                                      ev->rec.u.move.code_size))
            return True;
         st = ML_(jit_move)((Addr)ev->rec.u.move.old_code_addr,
                            (Addr)ev->rec.u.move.new_code_addr,
                            load_time(fl->state, ev->rec.timestamp));
         if (ML_(jit_status_applied)(st)) {
            fl->n_moved++;
         } else {
            ML_(jit_follow_refused)(fl, st);
            if (ML_(jit_follow_may_warn)(fl))
               VG_(umsg)("Warning: %s:offset %llu: CODE_MOVE %#llx -> %#llx "
                         "refused: %s\n", fl->path, ev->offset,
                         ev->rec.u.move.old_code_addr,
                         ev->rec.u.move.new_code_addr,
                         ML_(jit_status_text)(st));
         }
         return True;
      }
      case JITDUMP_CODE_DEBUG_INFO:
         fl->n_other++;
         keep_debug_info(fl->state, &ev->rec.u.debug);
         return True;
      case JITDUMP_CODE_CLOSE:
         fl->n_other++;
         ML_(jit_follow_stop)(fl, "CODE_CLOSE");
         return True;
      case JITDUMP_CODE_UNWINDING_INFO:
         fl->n_other++;
         keep_unwinding(fl, &ev->rec.u.unwind, ev->offset);
         return True;
      default:
         fl->n_other++;
         return True;
   }
}


/*------------------------------------------------------------*/
/*--- The format's operations                              ---*/
/*------------------------------------------------------------*/

static void jitdump_init ( JitFollower* fl )
{
   JitdumpState* s = ML_(dinfo_zalloc)("di.jitfollow.jitdump",
                                       sizeof(JitdumpState));
   ML_(jitdump_init)(&s->jd, 0);
   s->pending_lines = VG_(newXA)(ML_(dinfo_zalloc), "di.jitfollow.pl",
                                 ML_(dinfo_free), sizeof(PendingLine));
   s->pending_files = VG_(newXA)(ML_(dinfo_zalloc), "di.jitfollow.pf",
                                 ML_(dinfo_free), sizeof(HChar));
   s->pending_unwind = VG_(newXA)(ML_(dinfo_zalloc), "di.jitfollow.pu",
                                  ML_(dinfo_free), sizeof(UChar));
   fl->state = s;
}

static ULong jitdump_offset ( const JitFollower* fl )
{
   const JitdumpState* s = fl->state;
   return s->jd.offset;
}

static void* jitdump_reader ( JitFollower* fl )
{
   return &((JitdumpState*)fl->state)->jd;
}

/* The file's header: its flags and pid. */
static void take_header ( JitFollower* fl, const JitdumpHeader* h )
{
   JitdumpState* s = fl->state;
   s->arch_clock = (h->flags & JITDUMP_FLAG_ARCH_TIMESTAMP) != 0;
   if (h->pid != (UInt)fl->pid && VG_(clo_verbosity) > 1)
      VG_(umsg)("Warning: %s: header pid %u is not this process "
                "(%d)\n", fl->path, h->pid, fl->pid);
}

/* What is no record: the file's header (kind JITDUMP_EV_HEADER), or
   bytes the reader needs more of (NEED_MORE) or cannot read past
   (ERROR). */
static JitStep step_not_record ( JitFollower* fl, Int kind, SizeT len,
                                 /*OUT*/ULong* n )
{
   JitdumpState* s = fl->state;
   if (kind == JITDUMP_EV_NEED_MORE) {
      /* At exit the whole file is here: a header still incomplete will
         never be read (a producer that died, or a file that only bears
         the name). */
      if (s->jd.state == 0 && ML_(jit_is_exiting)() && len < s->ev.need
          && !s->short_header_told && VG_(clo_verbosity) > 1) {
         s->short_header_told = True;
         VG_(umsg)("Warning: %s: its header is incomplete (%lu of %lu"
                   " bytes): no record read\n", fl->path, (UWord)len,
                   (UWord)s->ev.need);
      }
      *n = s->ev.need;
      return JitStep_NEED_MORE;
   }
   if (kind == JITDUMP_EV_ERROR) {
      HChar why[200];
      fl->n_items++;   /* an item that cannot be read past */
      ML_(jit_follow_warn)(fl, s->ev.offset,
                           ML_(jitdump_describe)(&s->jd, &s->ev, why,
                                                 sizeof(why)));
      ML_(jit_follow_stop)(fl, "unreadable");
      return JitStep_STOP;
   }
   take_header(fl, &s->ev.header);
   *n = s->ev.advance;
   return JitStep_ADVANCE;   /* not an item */
}

/* Registers the run of CODE_LOADs kept since the last flush: together
   if the registry takes them as a run, else one by one, as they came. */
static void flush_run ( JitFollower* fl )
{
   JitdumpState* s = fl->state;
   UInt          i, n = s->n_run;
   if (n == 0)
      return;
   s->n_run = 0;
   if (ML_(jit_register_run)(s->run, n, ML_(jit_follow_object)(fl))) {
      fl->n_loaded += n;
      return;
   }
   for (i = 0; i < n; i++) {
      JitdumpCodeLoad ld;
      VG_(memset)(&ld, 0, sizeof(ld));
      ld.code_addr     = s->run[i].start;
      ld.code_size     = s->run[i].size;
      ld.name          = s->run[i].name;
      ld.name_len      = s->run[i].name_len;
      ld.name_is_ascii = 1;
      (void)handle_code_load(fl, &ld, s->run[i].loaded, s->run_offset[i],
                             JitAtSafePoint);
   }
}

/* Keeps CODE_LOAD ld (stamped ts, at file offset `where`) in the run if
   it is a plain record whose code lies at or above the run's: it needs
   nothing handle_code_load does but the registration.  Returns whether
   it was kept. */
static inline Bool join_run ( JitFollower* fl, const JitdumpCodeLoad* ld,
                              ULong ts, ULong where )
{
   JitdumpState* s = fl->state;
   JitRunFn*     f;
   UInt          i = s->n_run;
   if (!ld->name_is_ascii || ld->name_len == 0 || ld->code_size == 0
       || ld->code_size > VG_JIT_MAX_CODE_SIZE
       || ld->code_addr + ld->code_size < ld->code_addr
       || s->have_pending || s->have_unwind
       || (i > 0 && ld->code_addr < s->run_end))
      return False;
#  if VG_WORDSIZE == 4
   if (ld->code_addr + ld->code_size - 1 > 0xFFFFFFFFULL)
      return False;   /* handle_code_load refuses it, with a warning */
#  endif
   f = &s->run[i];
   f->start      = (Addr)ld->code_addr;
   f->size       = (UWord)ld->code_size;
   f->name       = ld->name;
   f->name_len   = ld->name_len;
   f->loaded     = load_time(s, ts);
   s->run_offset[i] = where;
   s->run_end    = f->start + f->size;
   s->n_run      = i + 1;
   if (i + 1 == JITDUMP_RUN_MAX)
      flush_run(fl);
   return True;
}

/* Reads one record (a CODE_LOAD goes straight to handle_code_load);
   outside a lookup, where no record waits, goes on through the records
   that lie whole in buf and reports them as one advance, registering
   runs of plain CODE_LOADs together (join_run). */
static JitStep jitdump_step ( JitFollower* fl, const UChar* buf, SizeT len,
                              JitWhere where, /*OUT*/ULong* n )
{
   JitdumpState*       s    = fl->state;
   const JitdumpEvent* ev   = &s->ev;
   ULong               done = 0;   /* bytes of buf read so far */
   /* Where the registry would take no run (ML_(jit_register_run)), no
      record joins one. */
   Bool                runs = where == JitAtSafePoint
                              && !ML_(jit_is_exiting)()
                              && !VG_(clo_trace_jit);
   for (;;) {
      Int  kind = ML_(jitdump_next)(&s->jd, buf + done, len - done,
                                    &s->ev);
      Bool consumed = True;
      if (LIKELY(kind == JITDUMP_EV_RECORD
                 && ev->rec.id == JITDUMP_CODE_LOAD)) {
         if (!runs
             || !join_run(fl, &ev->rec.u.load, ev->rec.timestamp,
                          ev->offset)) {
            flush_run(fl);
            consumed = handle_code_load(fl, &ev->rec.u.load,
                                        load_time(s, ev->rec.timestamp),
                                        ev->offset, where);
         }
      } else {
         flush_run(fl);
         if (kind == JITDUMP_EV_NEED_MORE && done > 0)
            break;   /* the reader stays before it: read again there */
         else if (kind == JITDUMP_EV_NEED_MORE || kind == JITDUMP_EV_ERROR
                  || kind == JITDUMP_EV_HEADER)
            return step_not_record(fl, kind, len - done, n);
         else
            consumed = handle_record(fl, ev, where);
      }
      if (!consumed)
         return JitStep_WAIT;   /* in a lookup: done is 0 */
      fl->n_items++;
      done += ev->advance;
      if (where == JitInLookup || done >= len || fl->done)
         break;
   }
   flush_run(fl);
   *n = done;
   return JitStep_ADVANCE;
}

const JitFollowerOps ML_(jit_jitdump_ops) = {
   "jitdump file",
   "offset ",
   "records",
   "CODE_LOAD ",
   JITDUMP_MIN_BUFFER + 4096,
   /* A CODE_DEBUG_INFO record is held whole; larger ones are skipped by
      the parser. */
   JITDUMP_DEBUG_INFO_MAX,
   jitdump_init,
   jitdump_offset,
   jitdump_reader,
   sizeof(JitdumpReader),
   jitdump_step,
   NULL,   /* finish: a record is whole or skipped */
   /* The client maps its files; a file mapped before its header was
      written is looked at again (candidates, in
      jitfollow-jitdump-mapped.c). */
   ML_(jit_jitdump_discover),
   ML_(jit_jitdump_discovering),
   ML_(jit_jitdump_forked)
};


/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
