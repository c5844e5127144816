/*--------------------------------------------------------------------*/
/*--- JIT code registry: its interface to the rest of m_debuginfo  ---*/
/*--- and to the producer-file followers.          priv_jitreg.h ---*/
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

#ifndef __PRIV_JITREG_H
#define __PRIV_JITREG_H

#include "pub_core_basics.h"
#include "pub_core_debuginfo.h"
#include "jit.h"                 /* Vg_JitStatus */

/* The registry's files and their jobs:
     jitreg.c      registration, unregistration, moves, epochs, munmap,
                   the -v summary and v.info jit
     jitstatus.c   what statuses say; refusals counted by status
     jitstore.c    the function store (address-ordered chunks, archive)
     jitnames.c    the name pool; text that is not clean
     jitobjects.c  JIT objects: synthetic DebugInfos, source files, line
                   tables
     jitlookup.c   the lookups m_debuginfo calls after ELF misses, and
                   what the registry asks of ELF objects' text
     jitlate.c     names read at exit, code reuse, names of code
                   unmapped before they were read
     jitclreq*.c   the client requests of valgrind/jit.h
     jitfollow*.c  followers of jitdump files and perf maps
   This header is what m_debuginfo's own files and the followers use;
   priv_jitstore.h is shared by the registry's files only. */

/* ---- Lookups (jitlookup.c), called by debuginfo.c after no ELF
   DebugInfo matched ----

   Every registered function belongs to a JIT object (a module name
   given by the client, "[jit]" by default, or the name of the jitdump
   file or perf map it came from).  Each JIT object owns one synthetic
   DebugInfo that is never put on debugInfo_list, so ELF lookups never
   see it and m_redir never scans it (a jitted "malloc" is never a
   redirection target).  Its filename and soname are the object name,
   its text range is empty (bias 0), and its symtab and loctab have
   exactly one slot: the lookups below fill that slot with the entry
   they found and return (di, 0), which is what
   search_all_symtabs/search_all_loctabs callers expect.  The slot is
   valid until the next lookup, like the string results of
   m_debuginfo. */

/* Text-symbol lookup for (ep, a).  On success sets *pdi (the object's
   synthetic DebugInfo) and *symno (0) and returns True; the name in
   di->symtab[0].pri_name stays valid while the function is registered
   (or archived), until the next safe point. */
extern Bool ML_(jit_search_symtab) ( DiEpoch ep, Addr a,
                                     /*OUT*/DebugInfo** pdi,
                                     /*OUT*/Word* symno );

/* Line lookup for (ep, a).  On success sets *pdi and *locno (0):
   di->loctab[0] holds the line, and ML_(fndn_ix)(di, 0) its file. */
extern Bool ML_(jit_search_loctab) ( DiEpoch ep, Addr a,
                                     /*OUT*/DebugInfo** pdi,
                                     /*OUT*/Word* locno );

/* The synthetic DebugInfo of the JIT object containing (ep, a), or
   NULL. */
extern DebugInfo* ML_(jit_find_DebugInfo) ( DiEpoch ep, Addr a );

/* ---- Notifications from debuginfo.c ---- */

/* Called by VG_(di_notify_munmap) for every unmapped range [a, a+len):
   drops the registrations that intersect it, discarding their
   translations first (jitreg.c). */
extern void ML_(jit_notify_munmap) ( Addr a, SizeT len );

/* Called by VG_(di_notify_mmap) with the name of every file the client
   maps, and whether it is mapped executable: with --jit-dump=yes, starts
   following it if it is a jitdump file of this process: named
   jit-<pid>.dump (a file so named that is not a jitdump file gets a -v
   warning saying why), or, mapped executable under any other name,
   holding a whole jitdump header (magic, version, header size) whose pid
   is this process's (anything else is ignored silently)
   (jitfollow-jitdump-mapped.c). */
extern void ML_(jit_notify_mapped_file) ( const HChar* filename,
                                          Bool exec );

/* ---- Names that arrive at exit (jitlate.c) ---- */

/* Called once when the client has exited: reads every followed producer
   file to the end it has now (one fstat each, so a file still growing
   costs bounded time), opens a perf map that appeared only now, and
   parses a perf map's final line even without its '\n'.  Registrations
   are made as at a safe point.  (jitfollow.c) */
extern void ML_(jit_read_files_to_end) ( void );

/* True once the client has exited and the producer files are being
   read to their end (set by VG_(jit_read_producers_at_exit), jitlate.c;
   read inline on every registration). */
extern Bool ML_(jit_exiting);

static inline Bool ML_(jit_is_exiting) ( void )
{
   return ML_(jit_exiting);
}

/* VG_(discard_translations), except at exit, where it does nothing:
   no code runs any more, and tools keep what they know of the code
   (Callgrind binds the names read at exit when it dumps); not called at
   all for a range that was never translated (VG_(may_have_translations)),
   code just emitted. */
extern void ML_(jit_discard_translations) ( Addr a, ULong len,
                                            const HChar* who );

/* The first epoch of a function registered now.  While the client runs:
   the current epoch.  At exit: 0 (valid for every earlier epoch, so
   stack traces recorded before the name arrived are described with it)
   unless it replaces_code registered earlier, then the current epoch.
   Counts registrations made at exit for -v. */
extern UInt ML_(jit_first_epoch_for_new) ( Bool replaces_code );

/* Prints, under -v, how many functions were named at exit, and how
   VG_(jit_late_name_epoch_at) answered. */
extern void ML_(jit_print_late_summary) ( void );

/* The time now on CLOCK_MONOTONIC, in ns (what VG_(jit_time_now)
   gives), read with VG_(clock_gettime); 0 where the core has no
   clock_gettime (Darwin). */
extern ULong ML_(jit_now) ( void );

/* May a tool have translated code without a name in [a, a+len)
   (VG_(jit_note_unnamed_code))?  A function removed there is archived
   (see jitlate.c): that code may take its name later. */
extern Bool ML_(jit_ran_unnamed) ( Addr a, SizeT len );

/* The same question without the false positives of
   ML_(jit_ran_unnamed), which aliases pages 4 GiB apart: a look-up per
   page of [a, a+len). */
extern Bool ML_(jit_ran_unnamed_exactly) ( Addr a, SizeT len );

/* ---- Implemented in debuginfo.c for the registry ---- */

/* Advances the current DebugInfo epoch (names changed). */
extern void ML_(advance_current_DiEpoch_for_jit) ( void );

/* Forgets the cached symbol names (they may point at names the
   registry is about to free or has just added). */
extern void ML_(invalidate_sym_name_cache_for_jit) ( void );

/* A DebugInfo for filename, allocated and initialised exactly as
   debuginfo.c's own are (unique handle, invalid epochs, tracing flags),
   but not put on debugInfo_list: the caller owns it. */
extern DebugInfo* ML_(alloc_unlisted_DebugInfo) ( const HChar* filename );

/* Frees a DebugInfo from ML_(alloc_unlisted_DebugInfo) with everything
   hanging off it (defined in debuginfo.c; the CFI store and the
   reader of GDB JIT objects use one per read of client debug info). */
extern void ML_(free_unlisted_DebugInfo) ( DebugInfo* di );

/* ---- Registration (jitreg.c), for the client requests and the
   followers ---- */

/* Where a registration is made, which decides whether translations can
   be discarded at once. */
typedef
   enum {
      /* A client request or a scheduler poll: overlapping registrations
         are replaced, and translations of the range discarded now. */
      JitAtSafePoint,
      /* Inside an m_debuginfo lookup (a translation may be in
         progress): a range holding live code is refused with
         JIT_STATUS_RANGE_BUSY (the caller keeps the function for the
         next safe point), and translations of a new function's range
         are discarded at the next ML_(jit_at_safe_point). */
      JitInLookup
   }
   JitWhere;

/* Results of registry operations are Vg_JitStatus codes (valgrind/
   jit.h): VG_JIT_OK; VG_JIT_WARN_* (>= VG_JIT_WARN_REPLACED) when the
   operation was applied with a remark; VG_JIT_ERR_* when it was refused
   and nothing changed.  The core adds one refusal that clients never
   see, since client requests are always made at a safe point: */
#define JIT_STATUS_RANGE_BUSY  (-1)   /* JitInLookup: the range holds
                                         registered code; try again at a
                                         safe point */
/* And one more result of a registration that may_name_unmapped: */
#define JIT_STATUS_NAMED_LATE  (-2)   /* the range is no longer code, but
                                         code ran there unnamed: the
                                         function was kept for that code
                                         only (archived, never live) */

/* True if st means the operation was applied (VG_JIT_OK or a
   warning), False if it was refused. */
static inline Bool ML_(jit_status_applied) ( Int st )
{
   return st == VG_JIT_OK || st >= VG_JIT_WARN_REPLACED;
}

/* Refusals are counted by status in arrays of JIT_N_STATUS_SLOTS
   counters: slot st for VG_JIT_ERR_* codes below the slot count, slot 0
   for any other code. */
#define JIT_N_STATUS_SLOTS 16
static inline Int ML_(jit_status_slot) ( Int st )
{
   return st > 0 && st < JIT_N_STATUS_SLOTS ? st : 0;
}

/* The last byte of [a, a+len) (len > 0), clipped at the top of the
   address space where a+len wraps: the inclusive end every walk over a
   client's range uses. */
static inline Addr ML_(jit_range_last) ( Addr a, SizeT len )
{
   return a + len - 1 < a ? ~(Addr)0 : a + len - 1;
}

/* The same clip for a walk that needs a+len not to wrap (its end
   exclusive): len, or where a+len wraps, the bytes from a up to the
   last byte of the address space, which no function covers (a
   function's start+size does not wrap). */
static inline SizeT ML_(jit_range_clip) ( Addr a, SizeT len )
{
   return a + len < a ? ~(Addr)0 - a : len;
}

/* v.info jit lists at most this many functions, and as many ranges of
   code named after its creator, per command. */
#define JIT_MAX_LISTED 1000

/* A short English text for a status code (jitstatus.c). */
extern const HChar* ML_(jit_status_text) ( Int st );

/* Writes into buf[0..size) which object's text [a, a+len) overlaps
   first, and the function there (its ELF symbol; jitlookup.c), e.g.
   "/usr/bin/node, function Builtins_LdaSmi at 0x1c2e340", for the
   refusal VG_JIT_ERR_OVERLAPS_OBJECT; "" if it overlaps none. */
extern void ML_(jit_overlap_text) ( Addr a, SizeT len, HChar* buf,
                                    SizeT size );

/* One line-table entry, in core memory (or validated client memory). */
typedef
   struct {
      UWord        offset;  /* bytes from the function's start */
      UWord        line;    /* 1-based source line; 0 is dropped */
      const HChar* file;    /* NUL-terminated path; NULL: default file;
                               JIT_SRC_FILE_UNREADABLE: the client's
                               pointer was unusable (the entry is
                               dropped) */
   }
   JitSrcLine;

#define JIT_SRC_FILE_UNREADABLE ((const HChar*)1)

/* Why line-table entries of a registration were dropped: one counter
   per reason (an entry is counted under the first that applies, in
   this order). */
typedef
   enum {
      JitDrop_OUTSIDE,      /* offset at or past the code's size */
      JitDrop_LINE_ZERO,    /* line 0 */
      JitDrop_LINE_HIGH,    /* line above the largest Valgrind keeps */
      JitDrop_UNREADABLE,   /* the file pointer was unusable */
      JitDrop_NO_FILE,      /* neither the entry nor the registration
                               names a file */
      JitDrop_BAD_FILE,     /* the file name is not UTF-8 or has control
                               characters */
      JitDrop_N
   }
   JitDropReason;

typedef
   struct {
      UWord n_given;           /* entries handed in */
      UWord by[JitDrop_N];     /* entries dropped, by reason */
   }
   JitLineDrops;

/* Entries dropped in d, all reasons together. */
extern UWord ML_(jit_line_drops_total) ( const JitLineDrops* d );

/* Adds the counts of d to sum. */
extern void ML_(jit_line_drops_add) ( JitLineDrops* sum,
                                      const JitLineDrops* d );

/* Writes into buf (cap bytes, truncated) what d says, for a warning:
   "3 of 5: 1 at an offset at or past the code's size
   (64 bytes), 1 with line 0, 1 whose file name is not readable ...";
   code_size is the registration's size (0: not shown). */
extern void ML_(jit_line_drops_text) ( HChar* buf, SizeT cap,
                                       const JitLineDrops* d,
                                       UWord code_size );

/* True if the client may read [a, a+len): mapped and readable client
   memory, not wrapping, and not at address 0 (len 0: always True).
   What the client requests (jitclreq*.c; defined in jitclreq-read.c)
   and the GDB JIT interface (jitgdb.c) check before they copy a
   client's structure. */
extern Bool ML_(jit_client_readable) ( Addr a, SizeT len );

/* A function to register.  All strings NUL-terminated and readable; the
   registry copies what it keeps.  Zero-initialise it, then fill in; or,
   on a path run once a function (a client request, a jitdump
   CODE_LOAD), set every field. */
typedef
   struct {
      Addr              start;
      UWord             size;     /* bytes */
      const HChar*      name;     /* non-empty */
      SizeT             name_len; /* strlen(name) if known, else 0 */
      Bool              name_is_ascii; /* known to be printable ASCII
                                          (so clean text); False if not
                                          known */
      const HChar*      object;   /* object name (non-empty), or NULL for
                                     VG_JIT_DEFAULT_OBJECT */
      struct _JitObject* object_resolved;
                                  /* object's JitObject if the caller
                                     resolved it before
                                     (ML_(jit_object_named): a producer
                                     file's follower does once per
                                     file), else NULL */
      const HChar*      file;     /* default source file, or NULL */
      const JitSrcLine* lines;    /* any order; or NULL */
      UWord             n_lines;
      ULong             loaded;   /* when the producer loaded the code,
                                     in VG_(jit_time_now)'s clock (a
                                     jitdump CODE_LOAD's timestamp, once
                                     checked); 0: unknown.  Kept only
                                     where code ran unnamed before
                                     (ML_(jit_ran_unnamed)) */
      Bool              may_name_unmapped;
                                  /* a producer file's record, which may
                                     arrive after its code was unmapped:
                                     if no byte of the range is
                                     executable client memory now, no
                                     function is live there and a tool
                                     translated code there unnamed
                                     (ML_(jit_ran_unnamed)), the function
                                     is archived for that code
                                     (JIT_STATUS_NAMED_LATE) instead of
                                     refused */
      JitLineDrops*     drops;    /* OUT, or NULL: set by ML_(jit_register)
                                     whenever it reads the line table
                                     (by VG_JIT_WARN_LINES_DROPPED:
                                     which entries went, and why) */
   }
   JitRegistration;

/* The object that a registration naming object (non-empty, or NULL for
   VG_JIT_DEFAULT_OBJECT) belongs to; a name that is not clean text is
   escaped first (jitobjects.c).  Objects live as long as the process. */
extern struct _JitObject* ML_(jit_object_named) ( const HChar* object );

/* Registers reg.  Returns VG_JIT_OK, VG_JIT_WARN_REPLACED (earlier code
   in the range was dropped), VG_JIT_WARN_LINES_DROPPED,
   JIT_STATUS_NAMED_LATE (reg->may_name_unmapped only: archived for code
   that ran and was unmapped before the record was read), or a refusal:
   VG_JIT_ERR_BAD_RANGE, VG_JIT_ERR_NOT_CODE, VG_JIT_ERR_OVERLAPS_OBJECT
   (ELF text), JIT_STATUS_RANGE_BUSY (where == JitInLookup only; also
   for a late name, which changes the epoch). */
extern Int ML_(jit_register) ( const JitRegistration* reg, JitWhere where );

/* One function of a run that ML_(jit_register_run) registers whole. */
typedef
   struct {
      Addr         start;
      UWord        size;       /* bytes */
      const HChar* name;       /* printable ASCII, NUL-terminated */
      SizeT        name_len;   /* strlen(name), > 0 */
      ULong        loaded;     /* as JitRegistration.loaded */
   }
   JitRunFn;

/* Registers fns[0 .. n-1] (n >= 1), all of object obj, at a safe point
   as n calls of ML_(jit_register) would (VG_JIT_OK each), in one pass,
   if the run is what a JIT filling its code heap upward gives: each
   function's range is valid (ML_(jit_register)'s VG_JIT_ERR_BAD_RANGE
   test) and starts at or above the end of the one before it, the first
   at or above every live function, and the run's span is code that may
   be registered.  Then the span's translations are discarded at once
   (code that ran before its names arrived), the functions share one new
   epoch (nothing runs between them that could see the epochs apart),
   each keeps its load time where code ran unnamed, and True is
   returned.  Otherwise, and while tracing or exiting, nothing changes
   and False is returned: the caller registers them one by one.  The
   names are copied. */
extern Bool ML_(jit_register_run) ( const JitRunFn* fns, UInt n,
                                    struct _JitObject* obj );

/* Unregisters the function starting exactly at start (at a safe point).
   Returns VG_JIT_OK or VG_JIT_ERR_NOT_REGISTERED. */
extern Int ML_(jit_unregister) ( Addr start );

/* Unregisters every function intersecting [start, start+size) (size
   clipped at the end of the address space; at a safe point).  Returns
   how many. */
extern UWord ML_(jit_unregister_range) ( Addr start, UWord size );

/* Moves the function registered at exactly old_start to new_start (same
   size, name, object and lines), as a jitdump CODE_MOVE record says.
   moved_at: when the code moved, in VG_(jit_time_now)'s clock (the
   record's timestamp, once checked), or 0 if unknown: the moved
   function's load time at new_start (else it keeps the one it had), and
   when the code it leaves and the code it replaces went (as for
   JitRegistration.loaded, kept only where code ran unnamed).  Only at
   safe points.  Returns VG_JIT_OK, VG_JIT_WARN_REPLACED, or
   VG_JIT_ERR_NOT_REGISTERED, _BAD_RANGE, _NOT_CODE, _OVERLAPS_OBJECT. */
extern Int ML_(jit_move) ( Addr old_start, Addr new_start,
                           ULong moved_at );

/* ---- Text a client or producer gave (jitnames.c) ---- */

/* Length in bytes of the character at s[0 .. len-1] if it is well-formed
   UTF-8 (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF)
   and not a control character (C0, DEL or C1); 0 otherwise. */
extern SizeT ML_(jit_clean_char_len) ( const UChar* s, SizeT len );

/* True if s[0 .. len-1] is made only of such characters: what a name or a
   source file name must be for the core to show it as given. */
extern Bool ML_(jit_text_is_clean) ( const HChar* s, SizeT len );

/* Whether byte c is printable ASCII (0x20..0x7E). */
static inline Bool ML_(jit_is_printable_ascii) ( UChar c )
{
   return c >= 0x20 && c < 0x7F;
}

/* Tests of all the bytes of a word at once, for scanning text a word at
   a time: JIT_WORD_ONES has 0x01 in every byte, JIT_WORD_HIGHS 0x80. */
#define JIT_WORD_ONES  ((UWord)-1 / 0xFF)
#define JIT_WORD_HIGHS (JIT_WORD_ONES * 0x80)

/* Whether some byte of w is zero (subtracting 1 borrows into the top
   bit of a zero byte; no other byte's top bit is set first). */
static inline Bool ML_(jit_word_has_zero) ( UWord w )
{
   return ((w - JIT_WORD_ONES) & ~w & JIT_WORD_HIGHS) != 0;
}

/* Whether every byte of w is printable ASCII (0x20..0x7E): none is below
   0x20 (the same borrow test) and none above 0x7E (adding 1 sets the top
   bit of 0x7F; bytes of 0x80 and up have it already). */
static inline Bool ML_(jit_word_is_printable_ascii) ( UWord w )
{
   UWord below = (w - JIT_WORD_ONES * 0x20) & ~w;
   UWord above = (w + JIT_WORD_ONES) | w;
   return ((below | above) & JIT_WORD_HIGHS) == 0;
}

/* The same test, as a word whose top bits are set in (at least) the
   bytes of w that are not printable ASCII: 0 if and only if
   ML_(jit_word_is_printable_ascii)(w).  Results OR together, so a
   scan can test all the words it read once. */
static inline UWord ML_(jit_word_unprintable) ( UWord w )
{
   UWord below = (w - JIT_WORD_ONES * 0x20) & ~w;
   UWord above = (w + JIT_WORD_ONES) | w;
   return (below | above) & JIT_WORD_HIGHS;
}

/* Copies at most the first 80 bytes of NUL-terminated s into buf (of
   JIT_PRINTABLE_BUF bytes) for a warning, writing '?' for every byte that
   is not printable ASCII and "..." if s is longer: warnings never print a
   client's or producer's control characters. */
#define JIT_PRINTABLE_BUF 84
extern void ML_(jit_printable_copy) ( HChar* buf, const HChar* s );

/* ---- Refusals (jitstatus.c) ---- */

/* Counts one refused registration or move (client request or producer
   record), refused with status st, for the -v summary. */
extern void ML_(jit_note_refused) ( Int st );

/* Writes the non-zero counters of `by` (JIT_N_STATUS_SLOTS of them) into
   buf (JIT_REFUSALS_BUF bytes: each entry is at most 20 digits and a
   status text of under 80 characters) as "N reason, N reason"; returns
   its length (0 if all are zero). */
#define JIT_REFUSALS_BUF (JIT_N_STATUS_SLOTS * 104)
extern Int ML_(jit_refusals_text) ( HChar* buf, const ULong* by );

/* Prints, with VG_(umsg), prefix and then ML_(jit_refusals_text) of by
   on one line; prints nothing if all are zero. */
extern void ML_(jit_print_refusals) ( const HChar* prefix, const ULong* by );

/* How many refusals ML_(jit_note_refused) counted, and the -v summary's
   line of them by status ("JIT: refused: N reason, ..."; none if
   there were none). */
extern ULong ML_(jit_n_refused) ( void );
extern void ML_(jit_print_refusal_summary) ( void );

/* The -v exit summaries of client requests (jitclreq.c) and of each
   producer file followed (jitfollow.c), called by
   VG_(jit_print_summary). */
extern void ML_(jit_clreq_print_summary) ( void );
extern void ML_(jit_follow_print_summary) ( void );

/* For the gdbserver command v.info jit: prints (VG_(printf)) one line per
   producer file followed or once followed, with its counts. */
extern void ML_(jit_follow_print_files) ( void );

/* Called at safe points: discards the translations queued by
   registrations made JitInLookup, advances the epoch after them
   (ML_(jit_catch_up_epoch)), and compacts the name pool if it is
   due. */
extern void ML_(jit_at_safe_point) ( void );

/* Advances the current epoch if functions were registered JitInLookup
   since it last advanced (which keeps it: the lookup must see them), so
   that tools that keep answers per epoch (Callgrind binds late names
   once per function and epoch) ask again.  At safe points and once the
   producer files were read at exit. */
extern void ML_(jit_catch_up_epoch) ( void );

/* ---- Producer files (jitfollow.c) ---- */

/* Called when a current-epoch lookup found no function at a: if a is
   executable client memory, reads what followed producer files
   appended, registering only functions that overlap nothing (no
   translation may be discarded here).  Returns True if anything was
   registered. */
extern Bool ML_(jit_read_on_lookup_miss) ( Addr a );

/* Whether ML_(jit_read_on_lookup_miss) could read anything now: False
   while reading, with no file followed or to look for, at exit, and
   until the client's next system call after a miss read the files.
   Callers test it before their own checks of the address (a tool's
   lookups of code without a name miss several times per translation). */
extern Bool ML_(jit_lookup_miss_may_read) ( void );

/* How many client system calls have completed (see
   VG_(jit_note_client_syscall), which alone changes it; read inline on
   every registration). */
extern ULong ML_(jit_client_syscalls);

/* A client mapping [start, end] that a check of the segment table
   accepted, remembered with ML_(jit_client_syscalls) at the time.
   Only a client system call maps, unmaps or protects client memory
   (the core's own mappings never change a client's, and a stack only
   grows), so the answer holds while that count stays: requests and
   records handled between two system calls, which a JIT issues by the
   thousand, need one look-up.  Zero-initialised: remembers nothing. */
typedef
   struct {
      Bool  valid;
      Addr  start, end;
      ULong n_syscalls;
   }
   JitMappingMemo;

/* True if m remembers a mapping that holds [a, last] and no client
   system call completed since. */
static inline Bool ML_(jit_memo_holds) ( const JitMappingMemo* m,
                                         Addr a, Addr last )
{
   return m->valid && a >= m->start && last <= m->end
          && m->n_syscalls == ML_(jit_client_syscalls);
}

/* Remembers the mapping [start, end] in m. */
static inline void ML_(jit_memo_set) ( JitMappingMemo* m,
                                       Addr start, Addr end )
{
   m->valid      = True;
   m->start      = start;
   m->end        = end;
   m->n_syscalls = ML_(jit_client_syscalls);
}

#endif   // __PRIV_JITREG_H

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
