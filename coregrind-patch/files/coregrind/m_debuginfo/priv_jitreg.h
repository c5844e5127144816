
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

/* Implemented in debuginfo.c for the registry: advance the current
   DebugInfo epoch (names changed), and forget cached symbol names. */
extern void ML_(advance_current_DiEpoch_for_jit) ( void );
extern void ML_(invalidate_sym_name_cache_for_jit) ( void );

#endif   // __PRIV_JITREG_H

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
