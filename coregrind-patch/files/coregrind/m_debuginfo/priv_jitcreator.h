/*--------------------------------------------------------------------*/
/*--- JIT code nobody announces, named after the code that made it ---*/
/*--- executable: m_debuginfo's view.              priv_jitcreator.h ---*/
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

#ifndef __PRIV_JITCREATOR_H
#define __PRIV_JITCREATOR_H

#include "pub_core_basics.h"
#include "pub_core_debuginfo.h"   /* DiEpoch */

/* The rule (names, ranges, what wins) is in jitcreator.c's header
   comment and docs/manual.md's "JIT code nobody announces". */

/* The client mapped [a, a+len) or changed its protection to prot.
   VG_(di_notify_mmap) calls this for every new mapping with execute
   permission, with prot VKI_PROT_EXEC and fresh True: the mapping
   replaced what was there, whose creators end first.
   VG_(di_notify_mprotect) calls it for every mprotect and
   pkey_mprotect, with the new protection and fresh False: parts that
   have a creator keep it.  Nothing happens unless prot holds
   VKI_PROT_EXEC.  The parts in anonymous or shared memory, or in a
   mapped file that is not an ELF object, that have no creator get one
   from the running thread's stack.  Costs one segment lookup when
   nothing is executable. */
extern void ML_(jit_creator_notify_exec) ( Addr a, SizeT len, UInt prot,
                                           Bool fresh );

/* [a, a+len) was unmapped: the ranges there lose their creator. */
extern void ML_(jit_creator_notify_munmap) ( Addr a, SizeT len );

/* mremap moved or resized [old_a, old_a+old_len) to
   [new_a, new_a+new_len): its creator ranges move with it (a part
   that grew takes the creator of the range it extends). */
extern void ML_(jit_creator_notify_mremap) ( Addr old_a, SizeT old_len,
                                             Addr new_a, SizeT new_len );

/* The creator-named range containing a in epoch ep, for the lookups of
   jitlookup.c after the registry missed: fills *start, *size (bytes),
   *name (valid until the next change of the ranges) and *obj_index
   (a JIT object, ML_(jit_object_at)).  False when there is none, when
   --jit-creator-names=no, or when the tool binds names late
   (VG_(jit_defer_creator_names)). */
extern Bool ML_(jit_creator_search) ( DiEpoch ep, Addr a,
                                      /*OUT*/Addr* start, /*OUT*/SizeT* size,
                                      /*OUT*/const HChar** name,
                                      /*OUT*/UInt* obj_index );

/* Lists the live creator-named ranges intersecting [a, a+len) for
   "v.info jit" (at most 1000), under a heading of their own. */
extern void ML_(jit_creator_print_info) ( Addr a, SizeT len );

/* At exit, unless -q and unless the program announced code (announced;
   jitcreatorname.c):
   one line per runtime that names its own JIT code when asked (Node.js,
   HotSpot, Mono, CPython, PHP, QEMU, Deno), recognised by the object
   that made code executable, whose creator name was given to code,
   with the flag that makes it name its code and the Valgrind option
   that reads what it writes. */
extern void ML_(jit_creator_print_hints) ( Bool announced );

/* The -v summary's line: ranges named, creators, stacks taken. */
extern void ML_(jit_creator_print_summary) ( void );

/* ---- Between jitcreator.c (ranges) and jitcreatorname.c (who made
   them) ---- */

/* A creator: the synthetic function name and the JIT object. */
typedef
   struct {
      HChar* name;      /* "[JIT code of F]", F demangled, owned */
      HChar* key;       /* F as the symbol table has it, owned */
      UInt   obj;       /* JIT object index (ML_(jit_object_at)) */
      UInt   hash;      /* of key, for the search of creators */
      ULong  ranges;    /* ranges that got it (for v.info jit) */
      Bool   named;     /* a lookup or a tool's binding gave its name to
                           code (for the hints at exit) */
      Bool   memory;    /* F is memory management: its object names the
                           code instead */
   }
   JitCreator;

/* The creator of memory the running thread makes executable now, from
   its stack (one stack trace, unless the two innermost frames were
   seen deciding before); its index for ML_(jit_creator_get). */
extern UInt ML_(jit_creator_from_stack) ( void );

/* The creator "[code of FILE]" in the object path (not "[jit]") for a
   file of code that names its own code (a Lisp image); its index. */
extern UInt ML_(jit_creator_of_file) ( const HChar* path );

/* Creator ci (an index given by the two above; asserts it is one).
   The creator lives until the process exits. */
extern JitCreator* ML_(jit_creator_get) ( UInt ci );

/* How many creators were made, and how many stack traces taken. */
extern UWord ML_(jit_n_creators) ( void );
extern ULong ML_(jit_creator_n_stacks) ( void );

/* Memory in [a, last] (inclusive) was mapped, unmapped, moved or made
   executable: the call sites remembered there are forgotten. */
extern void ML_(jit_creator_memo_forget) ( Addr a, Addr last );

/* Whether a lies in a live creator-named range (jitcreator.c): such
   frames name no creator. */
extern Bool ML_(jit_creator_range_has) ( Addr a );

/* Whether s starts with prefix. */
extern Bool ML_(jit_has_prefix) ( const HChar* s, const HChar* prefix );

#endif   /* __PRIV_JITCREATOR_H */

/*--------------------------------------------------------------------*/
/*--- end                                      priv_jitcreator.h ---*/
/*--------------------------------------------------------------------*/
