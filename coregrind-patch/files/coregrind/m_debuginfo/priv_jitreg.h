
/*--------------------------------------------------------------------*/
/*--- JIT code registry: the hooks m_debuginfo's lookups call.     ---*/
/*---                                                 priv_jitreg.h ---*/
/*--------------------------------------------------------------------*/

/*
   This file is part of Valgrind, a dynamic binary instrumentation
   framework.

   Copyright (C) 2026 the valgrind-jit authors.

   This program is free software; you can redistribute it and/or
   modify it under the terms of the GNU General Public License as
   published by the Free Software Foundation; either version 2 of the
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

/* Every registered function belongs to a JIT object (a module name given
   by the client, "[jit]" by default, or the name of the jitdump file or
   perf map it came from).  Each JIT object owns one synthetic DebugInfo
   that is never put on debugInfo_list, so ELF lookups never see it and
   m_redir never scans it (a jitted "malloc" is never a redirection
   target).  Its filename and soname are the object name, its text range
   is empty (bias 0), and its symtab and loctab have exactly one slot:
   the lookups below fill that slot with the entry they found and return
   (di, 0), which is what search_all_symtabs/search_all_loctabs callers
   expect.  The slot is valid until the next lookup, like the string
   results of m_debuginfo. */

/* Text-symbol lookup for (ep, a) after no ELF DebugInfo matched.
   On success sets *pdi (the object's synthetic DebugInfo) and *symno (0)
   and returns True; the name in di->symtab[0].pri_name stays valid while
   the function is registered (or archived). */
extern Bool ML_(jit_search_symtab) ( DiEpoch ep, Addr a,
                                     /*OUT*/DebugInfo** pdi,
                                     /*OUT*/Word* symno );

/* Line lookup for (ep, a) after no ELF DebugInfo matched.  On success
   sets *pdi and *locno (0): di->loctab[0] holds the line, and
   ML_(fndn_ix)(di, 0) its file. */
extern Bool ML_(jit_search_loctab) ( DiEpoch ep, Addr a,
                                     /*OUT*/DebugInfo** pdi,
                                     /*OUT*/Word* locno );

/* The synthetic DebugInfo of the JIT object containing (ep, a), or NULL. */
extern DebugInfo* ML_(jit_find_DebugInfo) ( DiEpoch ep, Addr a );

/* Called by VG_(di_notify_munmap) for every unmapped range: drops the
   registrations that intersect [a, a+len), discarding their
   translations first. */
extern void ML_(jit_notify_munmap) ( Addr a, SizeT len );

/* ---- Registration from core code (client requests, jitdump and perf
   map followers) ---- */

/* One line-table entry, in core memory (or validated client memory). */
typedef
   struct {
      UWord        offset;  /* bytes from the function's start */
      UWord        line;    /* 1-based source line; 0 is dropped */
      const HChar* file;    /* NUL-terminated path; NULL: default file */
   }
   JitSrcLine;

/* A function to register.  All strings NUL-terminated and readable; the
   registry copies what it keeps. */
typedef
   struct {
      Addr              start;
      UWord             size;     /* bytes */
      const HChar*      name;     /* non-empty */
      const HChar*      object;   /* object name, non-empty */
      const HChar*      file;     /* default source file, or NULL */
      const JitSrcLine* lines;    /* any order; or NULL */
      UWord             n_lines;
   }
   JitRegistration;

/* Registers reg (codes as in valgrind/jit.h's Vg_JitStatus: VG_JIT_OK,
   VG_JIT_WARN_* when registered, VG_JIT_ERR_* when refused).
   can_discard: True at safe points (client requests, scheduler
   polls): overlapping registrations are replaced and translations of
   the range discarded now.  False inside m_debuginfo lookups (a
   translation may be in progress): a registration overlapping live
   code is refused with VG_JIT_ERR_OVERLAPS_OBJECT, and the range's
   translations are discarded at the next ML_(jit_at_safe_point). */
extern Int ML_(jit_register) ( const JitRegistration* reg,
                               Bool can_discard );

/* A short English text for a Vg_JitStatus code. */
extern const HChar* ML_(jit_status_text) ( Int st );

/* True if no live registration intersects [a, a+len). */
extern Bool ML_(jit_range_is_free) ( Addr a, SizeT len );

/* Moves the function registered at exactly old_start to new_start (same
   size, name, object and lines), as a jitdump CODE_MOVE record says.
   Only at safe points.  Returns a Vg_JitStatus. */
extern Int ML_(jit_move) ( Addr old_start, Addr new_start );

/* Called at safe points: discards the translations queued by
   registrations made with can_discard False. */
extern void ML_(jit_at_safe_point) ( void );

/* ---- Producer files (jitfiles.c) ---- */

/* Called by VG_(di_notify_mmap) with the name of every file the client
   maps: starts following it if it is a jitdump file (jit-<pid>.dump of
   this process, with the jitdump magic) and --jit-dump=yes. */
extern void ML_(jit_notify_mapped_file) ( const HChar* filename );

/* Called when a current-epoch lookup found no function at a: if a is
   executable client memory, reads what followed producer files appended,
   registering only functions that overlap nothing (no translation may be
   discarded here).  Returns True if anything was registered. */
extern Bool ML_(jit_read_on_lookup_miss) ( Addr a );

/* Called once when the client has exited: reads every followed producer
   file to the end it has now (one fstat each, so a file still growing
   costs bounded time), opens a perf map that appeared only now, and
   parses a perf map's final line even without its '\n'.  Registrations
   are made as at a safe point. */
extern void ML_(jit_read_files_to_end) ( void );

/* ---- Names that arrive at exit (jitlate.c) ---- */

/* True once the client has exited and the producer files are being
   read to their end (see VG_(jit_read_producers_at_exit)). */
extern Bool ML_(jit_is_exiting) ( void );

/* VG_(discard_translations), except at exit, where it does nothing:
   no code runs any more, and tools keep what they know of the code
   (Callgrind binds the names read at exit when it dumps). */
extern void ML_(jit_discard_translations) ( Addr a, ULong len,
                                            const HChar* who );

/* The first epoch of a function registered now.  While the client runs:
   the current epoch.  At exit: 0 (valid for every earlier epoch, so
   stack traces recorded before the name arrived are described with it)
   unless it replaces_code registered earlier, then the current epoch.
   Counts registrations made at exit for -v. */
extern UInt ML_(jit_first_epoch_for_new) ( Bool replaces_code );

/* Prints, under -v, how many functions were named at exit. */
extern void ML_(jit_print_late_summary) ( void );

/* Implemented in debuginfo.c for the registry: advance the current
   DebugInfo epoch (names changed), and forget cached symbol names. */
extern void ML_(advance_current_DiEpoch_for_jit) ( void );
extern void ML_(invalidate_sym_name_cache_for_jit) ( void );

#endif   // __PRIV_JITREG_H

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
