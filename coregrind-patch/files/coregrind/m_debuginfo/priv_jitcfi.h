
/*--------------------------------------------------------------------*/
/*--- Call frame information of JIT code.           priv_jitcfi.h ---*/
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

#ifndef __PRIV_JITCFI_H
#define __PRIV_JITCFI_H

#include "pub_core_basics.h"
#include "pub_core_debuginfo.h"  /* DebugInfo, DiEpoch */

/* One store of the call frame information (CFI) of JIT code, by code
   range, for the unwinder (find_DiCfSI) and the inlined-frame lookups
   (VG_(new_IIPC)) of debuginfo.c.  Its entries come from objects of the
   GDB JIT interface (jitgdbobject.c), from client requests (jitclreq.c) and
   from jitdump CODE_UNWINDING_INFO records (jitfollow-jitdump.c); each
   is an unlisted DebugInfo (ML_(alloc_unlisted_DebugInfo)) that the
   store owns.  Ranges never overlap: an entry whose range overlaps
   older ones replaces them. */

/* Who added an entry: removals name their owner, so that an entry that
   was already replaced by another owner's is left alone. */
typedef
   enum {
      JitCfiGdbObject = 1,  /* key: the GDB JIT code entry's address */
      JitCfiFunction  = 2   /* key: the registered function's start */
   }
   JitCfiOwner;

/* ---- Reading ---- */

/* An unlisted DebugInfo, to be read into, whose one r-x mapping is
   [code_lo, code_hi) (code_lo < code_hi); objname names it in the
   readers' messages.  Free with ML_(free_unlisted_DebugInfo). */
extern DebugInfo* ML_(jit_cfi_new_reading_di) ( const HChar* objname,
                                                Addr code_lo,
                                                Addr code_hi );

/* ML_(jit_cfi_check_records), the checks of CFI records before the
   reader sees them, is in priv_checkcfi.h (checkcfi.c), shared with
   vg-jit and the fuzz targets. */

/* Reads the .eh_frame bytes eh[0..size) (core memory, the caller's;
   copied) as if they lay at address eh_addr (which resolves their
   PC-relative pointers), for the code in [code_lo, code_hi), with
   m_debuginfo's own CFI reader.  Returns a canonicalised unlisted
   DebugInfo holding the CFI that covers part of that code (FDEs outside
   it are dropped), or NULL and sets *why (a text valid until the next
   call) when the bytes are refused: malformed records
   (ML_(jit_cfi_check_records)), what the reader failed on (a read past
   their end, a failed check, a fault: ML_(jit_guarded)), or no FDE
   covering the code. */
extern DebugInfo* ML_(jit_cfi_from_eh_frame) ( const UChar* eh, ULong size,
                                               Addr eh_addr,
                                               Addr code_lo, Addr code_hi,
                                               const HChar* objname,
                                               /*OUT*/const HChar** why );

/* The frame shapes of VgJitCode.unwind_kind (valgrind/jit.h), for
   code [code_lo, code_hi) that starts with a prologue of prologue bytes:
   kind VG_JIT_UNWIND_FRAME_POINTER (push of the frame pointer, then
   frame pointer := stack pointer; ra_off and fp_off unused) or
   VG_JIT_UNWIND_FIXED_FRAME (after the prologue the return address is
   at stack pointer + ra_off, the caller's frame pointer at stack
   pointer + fp_off, or unchanged when fp_off is VG_JIT_UNWIND_FP_KEPT).
   Returns a canonicalised unlisted DebugInfo, or NULL and sets *why for
   values that describe no frame (an offset not a multiple of the word
   size or above 2^20, a prologue not shorter than the code) or an
   architecture where shapes are not implemented (all but amd64). */
extern DebugInfo* ML_(jit_cfi_from_shape) ( Addr code_lo, Addr code_hi,
                                            UWord kind, UWord prologue,
                                            UWord ra_off, UWord fp_off,
                                            const HChar* objname,
                                            /*OUT*/const HChar** why );

/* The steps of the two functions above, for a DebugInfo that is to hold
   more than one description of the same code (a client request's CFI
   and its inlined calls): read into di, a DebugInfo of
   ML_(jit_cfi_new_reading_di) not yet finished, the .eh_frame bytes or
   the frame shape of its one r-x mapping.  False and *why (a static
   text) when refused; di then holds what was read so far (free it). */
extern Bool ML_(jit_cfi_read_eh_frame) ( DebugInfo* di, const UChar* eh,
                                         ULong size, Addr eh_addr,
                                         /*OUT*/const HChar** why );
extern Bool ML_(jit_cfi_read_shape) ( DebugInfo* di, UWord kind,
                                      UWord prologue, UWord ra_off,
                                      UWord fp_off,
                                      /*OUT*/const HChar** why );

/* Adds to di (being read) the call of the function fn inlined at
   [lo, hi) (lo < hi, inside di's r-x mapping) from line `line` of
   `file` (a path, split at its last '/'; NULL or "" for none) in its
   caller, `level` deep (1: inlined into the code's own function, one
   more per level of nesting; below 2^12).  Strings are copied. */
extern void ML_(jit_cfi_add_inlined) ( DebugInfo* di, Addr lo, Addr hi,
                                       const HChar* fn, const HChar* file,
                                       UInt line, UInt level );

/* Ends the reading of di: sorts its tables and compresses its CFI, as
   the store needs them. */
extern void ML_(jit_cfi_finish_reading) ( DebugInfo* di );

/* ---- The store ---- */

/* Adds di (owned from now on; canonicalised, ML_(jit_cfi_*) or a
   reader's) for [lo, hi) (lo < hi), first removing (and freeing) every
   entry that overlaps it.  Its inlined calls describe code from the
   current epoch on. */
extern void ML_(jit_cfi_add) ( Addr lo, Addr hi, DebugInfo* di,
                               JitCfiOwner owner, UWord key );

/* Removes and frees the entry starting at lo if owner/key added it
   (else does nothing).  Returns whether one was removed. */
extern Bool ML_(jit_cfi_remove) ( Addr lo, JitCfiOwner owner, UWord key );

/* Takes the entry starting at lo that owner/key added out of the store
   without freeing it, for ML_(jit_cfi_reattach): a function that moves
   (ML_(jit_move), for a jitdump CODE_MOVE) keeps its CFI.  Returns NULL
   (and does nothing) if there is no such entry. */
typedef struct _JitCfiDetached JitCfiDetached;
extern JitCfiDetached* ML_(jit_cfi_detach) ( Addr lo, JitCfiOwner owner,
                                             UWord key );

/* Puts a detached entry back for the same code now at new_lo: every
   address its CFI describes moves by new_lo minus its old start; the
   entry's key becomes new_lo.  Takes ownership of d. */
extern void ML_(jit_cfi_reattach) ( JitCfiDetached* d, Addr new_lo );

/* For find_DiCfSI (debuginfo.c), after no listed DebugInfo covered ip:
   the store's DebugInfo whose range holds ip and whose CFI covers it,
   with *ix the index of ip's entry (ML_(search_one_cfitab)); NULL if
   there is none.  O(log entries). */
extern DebugInfo* ML_(jit_cfi_search) ( Addr ip, /*OUT*/Word* ix );

/* For VG_(new_IIPC) (debuginfo.c), when the DebugInfo di describing the
   lines of (ep, eip) has no inlined calls, or there is none (di NULL:
   JIT code registered without a line table): the store's DebugInfo with
   inlined calls whose range holds eip, if it was added by epoch ep;
   else di. */
extern DebugInfo* ML_(jit_cfi_inl_search) ( DiEpoch ep, Addr eip,
                                            DebugInfo* di );

/* Counts a refused unwind description of a client request or jitdump
   record for the -v summary. */
extern void ML_(jit_cfi_note_refused) ( void );

/* Under -v, when any unwind description came from a client request or
   a jitdump record: "JIT: unwind info: N added, N refused, N ranges with
   CFI live at exit". */
extern void ML_(jit_cfi_print_summary) ( void );

/* Forgets the unwinder's cached CFI lookups (defined in debuginfo.c,
   next to cfsi_m_cache__invalidate): they may name a DebugInfo of the
   store that is about to be freed, or miss CFI that was just added. */
extern void ML_(invalidate_cfsi_cache_for_jit) ( void );

#endif   // __PRIV_JITCFI_H

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
