
/*--------------------------------------------------------------------*/
/*--- GDB JIT interface: hooks m_debuginfo calls.   priv_jitgdb.h ---*/
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

#ifndef __PRIV_JITGDB_H
#define __PRIV_JITGDB_H

#include "pub_core_basics.h"

/* ELF types only (jitgdb.c, jitgdbdwarf.c). */
#include <elf.h>

#if VG_WORDSIZE == 4
#  define ElfXX_Ehdr    Elf32_Ehdr
#  define ElfXX_Shdr    Elf32_Shdr
#  define ElfXX_Sym     Elf32_Sym
#  define ELFXX_ST_TYPE ELF32_ST_TYPE
#  define MY_ELFCLASS   ELFCLASS32
#else
#  define ElfXX_Ehdr    Elf64_Ehdr
#  define ElfXX_Shdr    Elf64_Shdr
#  define ElfXX_Sym     Elf64_Sym
#  define ELFXX_ST_TYPE ELF64_ST_TYPE
#  define MY_ELFCLASS   ELFCLASS64
#endif

#if defined(VG_LITTLEENDIAN)
#  define MY_ELFDATA ELFDATA2LSB
#else
#  define MY_ELFDATA ELFDATA2MSB
#endif

#include "pub_core_deduppoolalloc.h"
#include "pub_core_xarray.h"
#include "priv_jitreg.h"         /* JitSrcLine */

/* ---- DWARF of registered objects (jitgdbdwarf.c) ---- */

/* The line entries of one object, sorted by address. */
typedef struct _GdbLineSet GdbLineSet;

/* What ML_(jit_gdb_dwarf_read) found in an object. */
typedef
   struct {
      GdbLineSet*  lines;     /* line entries, or NULL (free with
                                 ML_(jit_gdb_lines_free)) */
      const HChar* lines_why; /* why the line tables were refused, or
                                 NULL (also when there are none) */
      DebugInfo*   kept;      /* an unlisted DebugInfo holding the
                                 object's CFI and its inlined calls
                                 (--read-inline-info=yes), canonicalised,
                                 or NULL if it has neither (free with
                                 ML_(free_unlisted_DebugInfo)) */
      const HChar* cfi_why;   /* why the CFI was refused, or NULL */
      const HChar* inl_why;   /* why the inlined calls were refused, or
                                 NULL */
   }
   GdbDwarf;

/* Reads the DWARF line tables and call frame information of the ELF
   image img[0..n) (whose ELF header and section header table the caller
   has checked to lie in the image) for the code in [code_lo, code_hi),
   the hull of the object's functions, with m_debuginfo's own readers,
   from a copy of .debug_info, .debug_abbrev, .debug_line, .debug_str,
   .debug_line_str, .debug_str_offsets, .debug_addr, .debug_ranges,
   .debug_rnglists, .debug_loc, .debug_loclists, .eh_frame and
   .debug_frame to which the RELA
   relocations of a relocatable object are applied first (amd64).
   objname names the object in the readers' messages.  Fills in *out;
   refusals leave the object's names unaffected.  Each reader runs under
   ML_(jit_guarded) (priv_jitguard.h): what it cannot read is refused,
   one kind of information at a time.  The *_why texts last until the
   next call. */
extern void ML_(jit_gdb_dwarf_read) ( const UChar* img, ULong n,
                                      Addr code_lo, Addr code_hi,
                                      const HChar* objname,
                                      /*OUT*/GdbDwarf* out );

/* The entries of set (may be NULL) that cover code in [start,
   start+size), as offsets from start, in a new array of *n entries
   (free with ML_(dinfo_free); NULL when *n is 0).  Their file strings
   belong to the set's path pool. */
extern JitSrcLine* ML_(jit_gdb_lines_for) ( const GdbLineSet* set,
                                            Addr start, UWord size,
                                            /*OUT*/UWord* n );

/* Takes the set's path pool out of it, so that the file strings of
   arrays from ML_(jit_gdb_lines_for) outlive the set; the caller
   deletes it (VG_(deleteDedupPA)). */
extern DedupPoolAlloc* ML_(jit_gdb_lines_take_paths) ( GdbLineSet* set );

/* Frees set (and its path pool unless taken); NULL is allowed. */
extern void ML_(jit_gdb_lines_free) ( GdbLineSet* set );

/* (jitgdbobject.c) Called by VG_(di_notify_mprotect) after the address
   space manager has recorded the new protection prot of [a, a+len).
   JITs register
   an object before they make its code executable (LLVM's MCJIT does);
   the functions of registered objects that were not yet executable
   client memory are registered once they are.  Costs nothing when no
   such function is waiting.  Translations may be discarded. */
extern void ML_(jit_gdb_notify_mprotect) ( Addr a, SizeT len, UInt prot );

/* ---- Erlang/OTP's entries (jitgdbbeam.c) ---- */

/* One function of a module: its code range, name and line table. */
typedef
   struct {
      Addr        start;
      UWord       size;      /* > 0 */
      HChar*      name;      /* owned */
      JitSrcLine* lines;     /* owned, or NULL; files in the module's
                                paths */
      UWord       n_lines;
   }
   GdbBeamFn;

typedef
   struct {
      HChar*          module;  /* owned: the module's name */
      XArray*         fns;     /* of GdbBeamFn (free with
                                  ML_(jit_gdb_beam_free_fns)) */
      DedupPoolAlloc* paths;   /* the line tables' file names (free with
                                  VG_(deleteDedupPA) once no function
                                  uses them) */
   }
   GdbBeamModule;

/* Reads img[0..n), an entry that is not an ELF object, as one of
   Erlang/OTP's (priv_readbeamjit.h).  Returns BEAMJIT_NOT_BEAM (not this
   format), BEAMJIT_EMULATOR (the emulator's entry: no code),
   BEAMJIT_MALFORMED (*why says why; nothing allocated) or
   BEAMJIT_MODULE (*out filled; the caller owns what it holds). */
extern Int ML_(jit_gdb_beam_read) ( const UChar* img, ULong n,
                                    /*OUT*/GdbBeamModule* out,
                                    /*OUT*/const HChar** why );

/* Frees an array of GdbBeamFn with the names and lines it holds. */
extern void ML_(jit_gdb_beam_free_fns) ( XArray* fns );

/* Unwinding and inlined calls: the objects' CFI and inlined calls
   are kept in the CFI store of priv_jitcfi.h. */

/* ---- The protocol's side (jitgdb.c) ---- */

/* Prints "Warning: GDB JIT interface: " and the formatted text (which
   ends in a newline), at most 100 times a run; later ones are only
   counted (the -v summary says how many). */
extern void ML_(jit_gdb_warn) ( const HChar* fmt, ... ) PRINTF_CHECK(1, 2);

/* ---- Registered objects (jitgdbobject.c) ---- */

/* A function found in an object's image by readgdbelf.c's rules. */
typedef
   struct {
      Addr         start;
      UWord        size;   /* bytes, > 0 */
      const HChar* name;   /* in the caller's copy of the image */
   }
   GdbObjFn;

/* Registers the ELF object of the client's code entry at ea (its image
   at symfile_addr, symfile_size bytes, copied to img by the caller):
   reads its DWARF (jitgdbdwarf.c) for the functions fns (of GdbObjFn,
   all in img's symbol table), named after file (its STT_FILE symbol,
   may be NULL: "<jit object #N>"), then registers those in executable
   memory and keeps the others waiting; warns once about what it
   refused.  img and fns stay the caller's. */
extern void ML_(jit_gdb_register_elf) ( Addr ea, Addr symfile_addr,
                                        ULong symfile_size,
                                        const UChar* img,
                                        const XArray* fns,
                                        const HChar* file );

/* The same for an Erlang/OTP module entry (ML_(jit_gdb_beam_read));
   takes what mod holds. */
extern void ML_(jit_gdb_register_beam) ( Addr ea, Addr symfile_addr,
                                         ULong symfile_size,
                                         GdbBeamModule* mod );

/* Whether the entry at ea is registered with the object at
   symfile_addr (symfile_size bytes).  An entry registered with another
   object (its memory reused without an unregistration) is unregistered
   first, and False returned. */
extern Bool ML_(jit_gdb_entry_registered) ( Addr ea, Addr symfile_addr,
                                            ULong symfile_size );

/* Unregisters the entry at ea, keeping its functions whose code stays
   mapped (jitkeep.c); False if it was not registered. */
extern Bool ML_(jit_gdb_unregister_entry) ( Addr ea );

/* The counts of registered objects and their functions, for the -v
   summary. */
typedef
   struct {
      ULong registered;            /* objects */
      ULong unregistered;
      ULong functions;             /* registered */
      ULong functions_refused;
      ULong functions_with_lines;
      ULong line_tables_refused;   /* objects' */
      ULong objects_with_cfi;
      ULong cfi_refused;
      ULong objects_with_inlined;
      ULong inlined_refused;
      ULong beam_modules;          /* Erlang/OTP entries read */
      UWord waiting;               /* functions waiting now */
   }
   GdbObjectStats;
extern void ML_(jit_gdb_object_stats) ( /*OUT*/GdbObjectStats* out );

#endif   // __PRIV_JITGDB_H

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
