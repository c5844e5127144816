/*--------------------------------------------------------------------*/
/*--- Cachegrind                                                   ---*/
/*---                  Names that JIT code got late.      cg_jit.c ---*/
/*--------------------------------------------------------------------*/

/*
   This file is part of Cachegrind, a high-precision tracing profiler
   built with Valgrind.

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

/* Included by cg_main.c, as cg_sim.c and cg_branchpred.c are, after
   its CC table types (LineCC, CC_table, get_perm_string).

   Cachegrind looks up each instruction's file, function and line when
   it instruments it.  JITs often write names after the code ran, and
   the core reads them when the client exits.  Code that no DebugInfo
   describes (a JIT's, in anonymous memory) is therefore kept apart
   from CC_table while the program runs, so that names and line tables
   that arrive later still attribute it (jit_bind_late_names): each
   translation of such code has one UnnamedCode record, holding a
   LineCC per instruction (which the simulation functions update as any
   other) and the instruction's address.  Such a LineCC has no file and
   no function (loc.file and loc.fn are NULL) and its record's 1-based
   index in unnamed_code as line.  Keeping translations apart lets code
   a JIT put at the same address later, and named late too, go to its
   own function: the record says when the translation was made
   (VG_(jit_time_now)) and whether it was discarded since. */

typedef struct {
   ULong  when;
   Bool   discarded;
   UInt   n;          // instructions kept, <= capacity
   UInt   capacity;   // the superblock's instructions
   LineCC ccs[0];     // capacity LineCCs, then capacity addresses
} UnnamedCode;

static XArray* unnamed_code = NULL;   // of UnnamedCode*
// The record of the superblock being instrumented (NULL: none yet).
static UnnamedCode* sb_unnamed = NULL;

// cg_main.c's lookup of a LineCC, in epoch ep (sb_instrs 0: NULL for
// code without a DebugInfo).
static LineCC* get_lineCC(DiEpoch ep, Addr origAddr, UInt sb_instrs);

static Addr* unnamed_addrs(UnnamedCode* u)
{
   return (Addr*)&u->ccs[u->capacity];
}

static Bool is_unnamed_lineCC(const LineCC* lineCC)
{
   return lineCC->loc.fn == NULL;
}

// A LineCC, in the record of the superblock being instrumented (made on
// its first instruction without a DebugInfo), for the instruction at a;
// the superblock has sb_instrs instructions.
static LineCC* jit_unnamed_lineCC(Addr a, UInt sb_instrs)
{
   LineCC* lineCC;
   if (sb_unnamed == NULL) {
      UnnamedCode* u;
      if (unnamed_code == NULL)
         unnamed_code = VG_(newXA)(VG_(malloc), "cg.jit.unnamed.1",
                                   VG_(free), sizeof(UnnamedCode*));
      u = VG_(malloc)("cg.jit.unnamed.2",
                      sizeof(UnnamedCode)
                      + sb_instrs * (sizeof(LineCC) + sizeof(Addr)));
      u->when      = VG_(jit_time_now)();
      u->discarded = False;
      u->n         = 0;
      u->capacity  = sb_instrs;
      VG_(addToXA)(unnamed_code, &u);
      sb_unnamed = u;
   }
   tl_assert(sb_unnamed->n < sb_unnamed->capacity);
   lineCC = &sb_unnamed->ccs[sb_unnamed->n];
   VG_(memset)(lineCC, 0, sizeof(LineCC));
   lineCC->loc.line = (Int)VG_(sizeXA)(unnamed_code);
   unnamed_addrs(sb_unnamed)[sb_unnamed->n] = a;
   sb_unnamed->n++;
   VG_(jit_note_unnamed_code)(a);
   return lineCC;
}

// The superblock whose instructions are instrs (n of them) is discarded:
// if it is code kept apart, its translation is gone.
static void jit_note_discarded(const InstrInfo* instrs, Int n)
{
   Int i;
   for (i = 0; i < n; i++) {
      const LineCC* lc = instrs[i].parent;
      if (is_unnamed_lineCC(lc) && unnamed_code != NULL) {
         (*(UnnamedCode**)VG_(indexXA)(unnamed_code, lc->loc.line - 1))
            ->discarded = True;
         break;
      }
   }
}

static void add_CacheCC(CacheCC* to, const CacheCC* from)
{
   to->a += from->a; to->m1 += from->m1; to->mL += from->mL;
}

static void add_BranchCC(BranchCC* to, const BranchCC* from)
{
   to->b += from->b; to->mp += from->mp;
}

// The LineCC of function fn in file "???", line 0.
static LineCC* lineCC_without_file(const HChar* fn)
{
   CodeLoc loc;
   LineCC* lineCC;
   loc.file = get_perm_string("???");
   loc.fn   = fn;
   loc.line = 0;
   lineCC = VG_(OSetGen_Lookup)(CC_table, &loc);
   if (lineCC == NULL) {
      lineCC = VG_(OSetGen_AllocNode)(CC_table, sizeof(LineCC));
      VG_(memset)(lineCC, 0, sizeof(LineCC));
      lineCC->loc.file = get_perm_string("???");
      lineCC->loc.fn   = get_perm_string(fn);
      lineCC->loc.line = 0;
      VG_(OSetGen_Insert)(CC_table, lineCC);
   }
   return lineCC;
}

// The LineCC of code that has no name: "???", as for any code without
// debug info.
static LineCC* unknown_lineCC(void)
{
   return lineCC_without_file("???");
}

// The LineCC of code at a, translated at time when, that no late name
// reached: named after the code that made its memory executable
// ("[JIT code of F]"), which the core gives Cachegrind only here
// (VG_(jit_defer_creator_names), called when Cachegrind starts); NULL
// if the core does not know.
static LineCC* creator_lineCC(Addr a, ULong when)
{
   const HChar* fn;
   DebugInfo*   di;
   if (!VG_(jit_creator_name_at)(a, when, &fn, &di))
      return NULL;
   return lineCC_without_file(fn);
}

// At exit, before the output is written: the costs of code kept apart
// (see UnnamedCode) go to the function, file and line each instruction's
// address had when it was translated (names a JIT wrote after the code
// ran were read when the client exited, and names stay with code the
// JIT freed since), or to "???" when the producer files do not tell;
// the records are freed.  -v tells how many instructions were
// attributed through late names.
static void jit_bind_late_names(void)
{
   ULong ir_named = 0, ir_creator = 0;
   Word  i;
   UInt  j;

   for (i = 0; unnamed_code != NULL && i < VG_(sizeXA)(unnamed_code); i++) {
      UnnamedCode* u = *(UnnamedCode**)VG_(indexXA)(unnamed_code, i);
      for (j = 0; j < u->n; j++) {
         const LineCC* from = &u->ccs[j];
         Addr    a = unnamed_addrs(u)[j];
         LineCC* to = NULL;
         DiEpoch ep = VG_(jit_late_name_epoch)(a);
         if (u->when == 0
             || VG_(jit_late_name_epoch_at)(a, u->when, !u->discarded, &ep))
            to = get_lineCC(ep, a, 0);
         if (to != NULL) {
            ir_named += from->Ir.a;
         } else if ((to = creator_lineCC(a, u->when)) != NULL) {
            ir_creator += from->Ir.a;
         } else {
            to = unknown_lineCC();
         }
         add_CacheCC(&to->Ir, &from->Ir);
         add_CacheCC(&to->Dr, &from->Dr);
         add_CacheCC(&to->Dw, &from->Dw);
         add_BranchCC(&to->Bc, &from->Bc);
         add_BranchCC(&to->Bi, &from->Bi);
      }
      VG_(free)(u);
   }
   if (unnamed_code != NULL)
      VG_(deleteXA)(unnamed_code);
   unnamed_code = NULL;
   if (VG_(clo_verbosity) > 1)
      VG_(dmsg)("Cachegrind: %llu instructions attributed through names "
                "that arrived after their code ran\n", ir_named);
   if (VG_(clo_verbosity) > 1 && ir_creator > 0)
      VG_(dmsg)("Cachegrind: %llu instructions attributed to the code "
                "that made their memory executable\n", ir_creator);
}

/*--------------------------------------------------------------------*/
/*--- end                                                 cg_jit.c ---*/
/*--------------------------------------------------------------------*/
