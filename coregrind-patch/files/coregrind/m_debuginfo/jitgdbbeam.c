/*--------------------------------------------------------------------*/
/*--- Erlang/OTP's JIT entries of the GDB JIT interface.           ---*/
/*---                                                 jitgdbbeam.c ---*/
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

/* Erlang/OTP's JIT registers each module it loads with the GDB JIT
   interface, as an entry in a format of its own (priv_readbeamjit.h,
   read by readbeamjit.c) rather than an ELF object.  jitgdb.c hands
   every entry that is not ELF to ML_(jit_gdb_beam_read), which turns a
   module's entry into its functions: one per code range, named as the
   entry names it ("module:function/arity"; OTP's perf map writes the
   same names after a '$'), with the range's line entries as its line
   table.  A line entry that starts before its range is the line in
   effect where the range starts (OTP writes the line of a function's
   first instruction before its label).  An entry that claims to be a
   module but is not well formed is refused whole. */

#include "pub_core_basics.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_xarray.h"
#include "pub_core_deduppoolalloc.h"

#include "priv_misc.h"           /* dinfo_zalloc/free/strdup */
#include "priv_readbeamjit.h"    /* the shared reader */
#include "priv_jitreg.h"
#include "priv_jitgdb.h"         /* self */

/* A copy of the len bytes at s, NUL-terminated. */
static HChar* copy_name ( const HChar* s, SizeT len )
{
   HChar* c = ML_(dinfo_zalloc)("di.jitgdbbeam.name", len + 1);
   VG_(memcpy)(c, s, len);
   c[len] = 0;
   return c;
}

void ML_(jit_gdb_beam_free_fns) ( XArray* fns )
{
   Word i;
   if (fns == NULL)
      return;
   for (i = 0; i < VG_(sizeXA)(fns); i++) {
      GdbBeamFn* f = VG_(indexXA)(fns, i);
      ML_(dinfo_free)(f->name);
      if (f->lines != NULL)
         ML_(dinfo_free)(f->lines);
   }
   VG_(deleteXA)(fns);
}

Int ML_(jit_gdb_beam_read) ( const UChar* img, ULong n,
                             /*OUT*/GdbBeamModule* out,
                             /*OUT*/const HChar** why )
{
   BeamJitReader r;
   BeamJitRange  rg;
   Int           kind, err;
   XArray*       lines;

   VG_(memset)(out, 0, sizeof(*out));
   *why = NULL;
   kind = ML_(beamjit_open)(&r, img, (unsigned long)n);
   if (kind != BEAMJIT_MODULE) {
      if (kind == BEAMJIT_MALFORMED)
         *why = ML_(beamjit_strerror)(r.error);
      return kind;
   }
   /* Refused whole: check every range first. */
   err = ML_(beamjit_check)(&r);
   if (err != BEAMJIT_OK) {
      *why = ML_(beamjit_strerror)(err);
      return BEAMJIT_MALFORMED;
   }
   (void)ML_(beamjit_open)(&r, img, (unsigned long)n);

   out->module = copy_name(r.module, r.module_len);
   out->fns    = VG_(newXA)(ML_(dinfo_zalloc), "di.jitgdbbeam.fns",
                            ML_(dinfo_free), sizeof(GdbBeamFn));
   out->paths  = VG_(newDedupPA)(1024, 1, ML_(dinfo_zalloc),
                                 "di.jitgdbbeam.paths", ML_(dinfo_free));
   lines = VG_(newXA)(ML_(dinfo_zalloc), "di.jitgdbbeam.lines",
                      ML_(dinfo_free), sizeof(JitSrcLine));
   while (ML_(beamjit_next_range)(&r, &rg) == 1) {
      GdbBeamFn   f;
      BeamJitLine ln;
      VG_(dropTailXA)(lines, VG_(sizeXA)(lines));
      while (ML_(beamjit_next_line)(&r, &ln) == 1) {
         JitSrcLine sl;
         if (ln.addr >= rg.end || ln.line == 0)
            continue;
         sl.offset = ln.addr > rg.start ? (UWord)(ln.addr - rg.start) : 0;
         sl.line   = ln.line;
         sl.file   = ln.file_len > 0
                     ? VG_(allocEltDedupPA)(out->paths, ln.file_len + 1,
                                            ln.file)
                     : NULL;
         VG_(addToXA)(lines, &sl);
      }
      if (rg.end == rg.start)
         continue;   /* no code to name */
      f.start   = (Addr)rg.start;
      f.size    = (UWord)(rg.end - rg.start);
      f.name    = copy_name(rg.name, rg.name_len);
      f.n_lines = VG_(sizeXA)(lines);
      f.lines   = NULL;
      if (f.n_lines > 0) {
         f.lines = ML_(dinfo_zalloc)("di.jitgdbbeam.fnlines",
                                     f.n_lines * sizeof(JitSrcLine));
         VG_(memcpy)(f.lines, VG_(indexXA)(lines, 0),
                     f.n_lines * sizeof(JitSrcLine));
      }
      VG_(addToXA)(out->fns, &f);
   }
   VG_(deleteXA)(lines);
   return BEAMJIT_MODULE;
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
