
/*--------------------------------------------------------------------*/
/*--- Call frame information of JIT code, by code range.  jitcfi.c ---*/
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

/* Jitted code has no ELF object, so no listed DebugInfo carries its
   CFI, and the unwinder stops at the first jitted frame that keeps no
   frame pointer.  JITs describe their frames three ways: the .eh_frame
   of an object registered through the GDB JIT interface, the .eh_frame
   bytes or frame shape of a VALGRIND_JIT_REGISTER_CODE descriptor, and
   a jitdump CODE_UNWINDING_INFO record.  Each becomes an unlisted
   DebugInfo read by m_debuginfo's own CFI reader (or, for shapes, filled
   with ML_(addDiCfSI)), kept here by code range; debuginfo.c asks this
   store after no listed DebugInfo covered an address.

   The bytes are client data.  Before the reader sees them they are
   copied into core memory followed by zero padding, their records are
   checked for what the reader asserts on (ML_(jit_cfi_check_records)),
   and the reader runs under ML_(jit_guarded) (jitguard.c): a read past
   their end, a failed check or a fault inside it refuses them instead
   of ending Valgrind.  FDEs that
   describe code outside the range they are given for are dropped by
   ML_(addDiCfSI) (they lie outside the DebugInfo's one r-x mapping). */

#include "pub_core_basics.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_libcsetjmp.h"
#include "pub_core_options.h"
#include "pub_core_oset.h"
#include "pub_core_xarray.h"

#include "priv_misc.h"           /* dinfo_zalloc/free */
#include "priv_image.h"
#include "priv_d3basics.h"
#include "priv_tytypes.h"
#include "priv_storage.h"
#include "priv_readdwarf.h"
#include "priv_jitreg.h"         /* ML_(alloc_unlisted_DebugInfo) */
#include "priv_jitstore.h"       /* ML_(jit_overlaps_object_text) */
#include "priv_jitguard.h"
#include "priv_checkcfi.h"       /* ML_(jit_cfi_check_records) */
#include "priv_jitcfi.h"         /* self */

/* VG_JIT_UNWIND_* come from jit.h, through priv_jitreg.h. */

/* Zero bytes after a copied section. */
#define CFI_PADDING 64


/*------------------------------------------------------------*/
/*--- Checking and reading                                 ---*/
/*------------------------------------------------------------*/

DebugInfo* ML_(jit_cfi_new_reading_di) ( const HChar* objname,
                                         Addr code_lo, Addr code_hi )
{
   DebugInfo*       di = ML_(alloc_unlisted_DebugInfo)(objname);
   DebugInfoMapping map;
   VG_(memset)(&map, 0, sizeof(map));
   map.avma = code_lo;
   map.size = code_hi - code_lo;
   map.rx   = True;
   VG_(addToXA)(di->fsm.maps, &map);
   di->fsm.have_rx_map = True;
   di->text_present    = True;
   di->text_avma       = code_lo;
   di->text_size       = code_hi - code_lo;
   return di;
}

/* The arguments of one guarded call of the CFI reader. */
typedef
   struct {
      DebugInfo* di;
      DiImage*   dimg;
      ULong      size;
      Addr       eh_addr;
   }
   EhFrameRead;

static void call_cfi_reader ( void* argV )
{
   const EhFrameRead* a = argV;
   ML_(read_callframe_info_dwarf3)(a->di, mk_DiSlice(a->dimg, 0, a->size),
                                   a->eh_addr, True);
}

static HChar why_text[256];

Bool ML_(jit_cfi_read_eh_frame) ( DebugInfo* di, const UChar* eh,
                                  ULong size, Addr eh_addr,
                                  /*OUT*/const HChar** why )
{
   UChar*     buf;
   DiImage*   dimg;

   *why = NULL;
   if (size == 0) {
      *why = "no CFI records";
      return False;
   }
   *why = ML_(jit_cfi_check_records)(eh, size, True);
   if (*why != NULL)
      return False;
   buf = ML_(dinfo_zalloc)("di.jitcfi.buf", size + CFI_PADDING);
   VG_(memcpy)(buf, eh, size);
   dimg = ML_(img_from_memory)((Addr)buf, size + CFI_PADDING,
                               di->fsm.filename);
   {
      EhFrameRead  a = { di, dimg, size, eh_addr };
      const HChar* failed = ML_(jit_guarded)(call_cfi_reader, &a);
      if (failed != NULL) {
         VG_(snprintf)(why_text, sizeof(why_text), "%s", failed);
         *why = why_text;
      }
   }
   ML_(img_done)(dimg);
   ML_(dinfo_free)(buf);
   if (*why == NULL && di->cfsi_used == 0)
      *why = "no FDE describes the code";
   return *why == NULL;
}

void ML_(jit_cfi_finish_reading) ( DebugInfo* di )
{
   ML_(canonicaliseTables)(di);
   ML_(finish_CFSI_arrays)(di);
}

DebugInfo* ML_(jit_cfi_from_eh_frame) ( const UChar* eh, ULong size,
                                        Addr eh_addr,
                                        Addr code_lo, Addr code_hi,
                                        const HChar* objname,
                                        /*OUT*/const HChar** why )
{
   DebugInfo* di;
   if (code_lo >= code_hi) {
      *why = "no CFI records";
      return NULL;
   }
   di = ML_(jit_cfi_new_reading_di)(objname, code_lo, code_hi);
   if (!ML_(jit_cfi_read_eh_frame)(di, eh, size, eh_addr, why)) {
      ML_(free_unlisted_DebugInfo)(di);
      return NULL;
   }
   ML_(jit_cfi_finish_reading)(di);
   return di;
}

#if defined(VGA_arm64)
/* The frame shapes on arm64, where a call leaves the return address in
   x30 (the link register) and the stack pointer where it was.
   FRAME_POINTER: the code starts with "stp x29, x30, [sp, #-16]!" (4
   bytes) and, before prologue bytes are done, "mov x29, sp"; from then
   on x29 is the frame pointer (CFA = x29 + 16).  FIXED_FRAME: after the
   prologue the return address is at sp + ra_off and the caller's x29 at
   sp + fp_off (or x29 is never changed); before it, in x30.  Rows as
   readdwarf.c's summarise_context makes them for the same CFI. */
static Bool read_shape_arm64 ( DebugInfo* di, UWord kind, UWord prologue,
                               UWord ra_off, UWord fp_off,
                               /*OUT*/const HChar** why )
{
   DiCfSI_m   m;
   Addr       code_lo = di->text_avma;
   UWord      size = di->text_size;

   *why = NULL;
   if (size == 0 || prologue >= size)
      *why = "the prologue is not shorter than the code";
   else if (prologue % 4 != 0)
      *why = "the prologue is not a whole number of 4-byte instructions";
   else if (kind == VG_JIT_UNWIND_FIXED_FRAME
            && (ra_off % 8 != 0 || ra_off > (1 << 20)
                || (fp_off != VG_JIT_UNWIND_FP_KEPT
                    && (fp_off % 8 != 0 || fp_off > (1 << 20)
                        || fp_off == ra_off))))
      *why = "the frame's offsets are not multiples of 8 below 1 MiB";
   else if (kind == VG_JIT_UNWIND_FRAME_POINTER && prologue < 8)
      *why = "a frame-pointer prologue (stp x29, x30, [sp, #-16]!;"
             " mov x29, sp) is at least 8 bytes long";
   else if (kind != VG_JIT_UNWIND_FRAME_POINTER
            && kind != VG_JIT_UNWIND_FIXED_FRAME)
      *why = "unknown unwind kind";
   if (*why != NULL)
      return False;

   if (di->cfsi_exprs == NULL)
      di->cfsi_exprs = VG_(newXA)(ML_(dinfo_zalloc), "di.jitcfi.exprs",
                                  ML_(dinfo_free), sizeof(CfiExpr));
   /* At the first instruction: CFA = sp, the return address in x30,
      x29 and x30 the caller's. */
   VG_(memset)(&m, 0, sizeof(m));
   m.cfa_how = CFIC_ARM64_SPREL;
   m.cfa_off = 0;
   m.ra_how  = CFIR_EXPR;
   m.ra_off  = ML_(CfiExpr_CfiReg)(di->cfsi_exprs, Creg_ARM64_X30);
   m.sp_how  = CFIR_CFAREL;
   m.sp_off  = 0;
   m.x30_how = CFIR_SAME;
   m.x29_how = CFIR_SAME;
   if (kind != VG_JIT_UNWIND_FIXED_FRAME) {
      /* FRAME_POINTER: the stp (4 bytes) first. */
      ML_(addDiCfSI)(di, code_lo, 4, &m);
      /* After the stp: x29 and x30 saved at CFA-16 and CFA-8. */
      m.cfa_off = 16;
      m.ra_how  = CFIR_MEMCFAREL;
      m.ra_off  = -8;
      m.x30_how = CFIR_MEMCFAREL;
      m.x30_off = -8;
      m.x29_how = CFIR_MEMCFAREL;
      m.x29_off = -16;
      ML_(addDiCfSI)(di, code_lo + 4, (UInt)(prologue - 4), &m);
      m.cfa_how = CFIC_ARM64_X29REL;
   } else {
      if (prologue > 0)
         ML_(addDiCfSI)(di, code_lo, (UInt)prologue, &m);
      m.cfa_off = (Int)(ra_off + 8);
      m.ra_how  = CFIR_MEMCFAREL;
      m.ra_off  = -8;
      m.x30_how = CFIR_MEMCFAREL;
      m.x30_off = -8;
      if (fp_off != VG_JIT_UNWIND_FP_KEPT) {
         m.x29_how = CFIR_MEMCFAREL;
         m.x29_off = (Int)fp_off - m.cfa_off;
      }
   }
   ML_(addDiCfSI)(di, code_lo + prologue, (UInt)(size - prologue), &m);
   return True;
}
#endif

Bool ML_(jit_cfi_read_shape) ( DebugInfo* di, UWord kind, UWord prologue,
                               UWord ra_off, UWord fp_off,
                               /*OUT*/const HChar** why )
{
#  if defined(VGA_amd64) || defined(VGA_x86)
   /* The same shapes on both, in words of their size: %rsp/%rbp and
      8-byte slots on amd64, %esp/%ebp and 4-byte slots on x86. */
   const Int  W = (Int)sizeof(Addr);
   DiCfSI_m   m;
   Addr       code_lo = di->text_avma;
   UWord      size = di->text_size;

   *why = NULL;
   if (size == 0 || prologue >= size)
      *why = "the prologue is not shorter than the code";
   else if (kind == VG_JIT_UNWIND_FIXED_FRAME
            && (ra_off % W != 0 || ra_off > (1 << 20)
                || (fp_off != VG_JIT_UNWIND_FP_KEPT
                    && (fp_off % W != 0 || fp_off > (1 << 20)
                        || fp_off == ra_off))))
      *why = W == 8 ? "the frame's offsets are not multiples of 8 below 1 MiB"
                    : "the frame's offsets are not multiples of 4 below 1 MiB";
   else if (kind == VG_JIT_UNWIND_FRAME_POINTER && prologue == 0)
      *why = "a frame-pointer prologue cannot be 0 bytes long";
   else if (kind != VG_JIT_UNWIND_FRAME_POINTER
            && kind != VG_JIT_UNWIND_FIXED_FRAME)
      *why = "unknown unwind kind";
   if (*why != NULL)
      return False;

   /* At the first instruction, the return address is at the stack
      pointer; the frame pointer is the caller's. */
   VG_(memset)(&m, 0, sizeof(m));
   m.cfa_how = CFIC_IA_SPREL;
   m.cfa_off = W;
   m.ra_how  = CFIR_MEMCFAREL;
   m.ra_off  = -W;
   m.sp_how  = CFIR_CFAREL;
   m.sp_off  = 0;
   m.bp_how  = CFIR_SAME;
   m.bp_off  = 0;
   if (kind == VG_JIT_UNWIND_FRAME_POINTER) {
      /* push %rbp (1 byte), then mov %rsp,%rbp (the rest of the
         prologue): between the two, the frame pointer is saved below
         the return address. */
      ML_(addDiCfSI)(di, code_lo, 1, &m);
      if (prologue > 1) {
         m.cfa_off = 2 * W;
         m.bp_how  = CFIR_MEMCFAREL;
         m.bp_off  = -2 * W;
         ML_(addDiCfSI)(di, code_lo + 1, (UInt)(prologue - 1), &m);
      }
      m.cfa_how = CFIC_IA_BPREL;
      m.cfa_off = 2 * W;
      m.bp_how  = CFIR_MEMCFAREL;
      m.bp_off  = -2 * W;
   } else {
      if (prologue > 0)
         ML_(addDiCfSI)(di, code_lo, (UInt)prologue, &m);
      m.cfa_off = (Int)ra_off + W;
      if (fp_off != VG_JIT_UNWIND_FP_KEPT) {
         m.bp_how = CFIR_MEMCFAREL;
         m.bp_off = (Int)fp_off - m.cfa_off;
      }
   }
   ML_(addDiCfSI)(di, code_lo + prologue, (UInt)(size - prologue), &m);
   return True;
#  elif defined(VGA_arm64)
   return read_shape_arm64(di, kind, prologue, ra_off, fp_off, why);
#  else
   *why = "frame shapes are implemented on amd64, x86 and arm64 only";
   return False;
#  endif
}

DebugInfo* ML_(jit_cfi_from_shape) ( Addr code_lo, Addr code_hi,
                                     UWord kind, UWord prologue,
                                     UWord ra_off, UWord fp_off,
                                     const HChar* objname,
                                     /*OUT*/const HChar** why )
{
   DebugInfo* di;
   if (code_lo >= code_hi) {
      *why = "the prologue is not shorter than the code";
      return NULL;
   }
   di = ML_(jit_cfi_new_reading_di)(objname, code_lo, code_hi);
   if (!ML_(jit_cfi_read_shape)(di, kind, prologue, ra_off, fp_off, why)) {
      ML_(free_unlisted_DebugInfo)(di);
      return NULL;
   }
   ML_(jit_cfi_finish_reading)(di);
   return di;
}

void ML_(jit_cfi_add_inlined) ( DebugInfo* di, Addr lo, Addr hi,
                                const HChar* fn, const HChar* file,
                                UInt line, UInt level )
{
   UInt fndn_ix = 0;   /* no file: shown as "???" */
   if (file != NULL && file[0] != 0) {
      const HChar* slash = VG_(strrchr)(file, '/');
      if (slash == NULL || slash == file) {
         fndn_ix = ML_(addFnDn)(di, file, NULL);
      } else {
         SizeT dlen = slash - file;
         HChar dir[dlen + 1];
         VG_(memcpy)(dir, file, dlen);
         dir[dlen] = 0;
         fndn_ix = ML_(addFnDn)(di, slash + 1, dir);
      }
   }
   /* The DWARF reader stores a subprogram reference here and resolves
      it to the name (the same word, DiInlLoc.inlined) once the unit is
      read; the name is known already. */
   ML_(addInlInfo)(di, lo, hi, (UWord)ML_(addStr)(di, fn, -1), fndn_ix,
                   (Int)line, (UShort)level);
}


/*------------------------------------------------------------*/
/*--- The store                                            ---*/
/*------------------------------------------------------------*/

/* The code range [lo, hi) described by di. */
typedef
   struct {
      Addr        lo;     /* the OSet key */
      Addr        hi;
      DebugInfo*  di;     /* owned */
      JitCfiOwner owner;
      UWord       key;
      UInt        first_epoch;  /* the epoch it came in */
   }
   CfiRange;

static OSet* ranges = NULL;   /* of CfiRange, by lo */

static struct {
   ULong added;     /* by client requests and jitdump records */
   ULong refused;
} stats;

static Word cmp_ip_in_range ( const void* key, const void* elem )
{
   Addr            ip = *(const Addr*)key;
   const CfiRange* r  = elem;
   if (ip < r->lo)  return -1;
   if (ip >= r->hi) return 1;
   return 0;
}

/* key: a CfiRange whose [lo, hi) is sought. */
static Word cmp_overlap ( const void* key, const void* elem )
{
   const CfiRange* k = key;
   const CfiRange* r = elem;
   if (k->hi <= r->lo) return -1;
   if (k->lo >= r->hi) return 1;
   return 0;
}

static void free_range ( CfiRange* r )
{
   ML_(free_unlisted_DebugInfo)(r->di);
   VG_(OSetGen_FreeNode)(ranges, r);
}

void ML_(jit_cfi_add) ( Addr lo, Addr hi, DebugInfo* di,
                        JitCfiOwner owner, UWord key )
{
   CfiRange  want;
   CfiRange* r;
   vg_assert(lo < hi && di != NULL);
   if (ranges == NULL)
      ranges = VG_(OSetGen_Create)(offsetof(CfiRange, lo), NULL,
                                   ML_(dinfo_zalloc), "di.jitcfi.ranges",
                                   ML_(dinfo_free));
   want.lo = lo;
   want.hi = hi;
   while ((r = VG_(OSetGen_LookupWithCmp)(ranges, &want,
                                          cmp_overlap)) != NULL) {
      if (VG_(clo_trace_jit))
         VG_(dmsg)("jit: CFI of %#lx-%#lx dropped: the new CFI of "
                   "%#lx-%#lx overlaps it\n", r->lo, r->hi, lo, hi);
      r = VG_(OSetGen_Remove)(ranges, &r->lo);
      free_range(r);
   }
   r = VG_(OSetGen_AllocNode)(ranges, sizeof(CfiRange));
   r->lo          = lo;
   r->hi          = hi;
   r->di          = di;
   r->owner       = owner;
   r->key         = key;
   r->first_epoch = VG_(current_DiEpoch)().n;
   /* Describers check that a DebugInfo they are handed is valid for the
      epoch they describe: this one is from now on. */
   di->first_epoch = VG_(current_DiEpoch)();
   VG_(OSetGen_Insert)(ranges, r);
   if (owner == JitCfiFunction && di->cfsi_used > 0)
      stats.added++;
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit: CFI of %#lx-%#lx: %lu entries, %lu inlined calls\n",
                lo, hi, (UWord)di->cfsi_used, (UWord)di->inltab_used);
   /* The unwinder caches (ip, DebugInfo) pairs, misses included. */
   ML_(invalidate_cfsi_cache_for_jit)();
}

/* Takes the entry starting at lo that owner/key added out of the OSet
   (the node is still allocated); NULL if there is none. */
static CfiRange* take_range ( Addr lo, JitCfiOwner owner, UWord key )
{
   CfiRange* r;
   if (ranges == NULL)
      return NULL;
   r = VG_(OSetGen_Lookup)(ranges, &lo);
   if (r == NULL || r->owner != owner || r->key != key)
      return NULL;
   r = VG_(OSetGen_Remove)(ranges, &lo);
   /* The unwinder caches (ip, DebugInfo) pairs. */
   ML_(invalidate_cfsi_cache_for_jit)();
   return r;
}

Bool ML_(jit_cfi_remove) ( Addr lo, JitCfiOwner owner, UWord key )
{
   CfiRange* r = take_range(lo, owner, key);
   if (r == NULL)
      return False;
   free_range(r);
   return True;
}

/* A detached entry is its CfiRange node, out of the OSet. */
struct _JitCfiDetached {
   CfiRange r;
};

JitCfiDetached* ML_(jit_cfi_detach) ( Addr lo, JitCfiOwner owner,
                                      UWord key )
{
   CfiRange*       r = take_range(lo, owner, key);
   JitCfiDetached* d;
   if (r == NULL)
      return NULL;
   d = ML_(dinfo_zalloc)("di.jitcfi.detached", sizeof(*d));
   d->r = *r;
   VG_(OSetGen_FreeNode)(ranges, r);
   return d;
}

/* Moves every code address of di (its r-x mappings, text and CFI
   ranges) by delta (mod 2^wordsize).  The CFI rules themselves are
   relative to the CFA and registers. */
static void rebase_cfi_di ( DebugInfo* di, Addr delta )
{
   Word i;
   for (i = 0; i < VG_(sizeXA)(di->fsm.maps); i++) {
      DebugInfoMapping* m = VG_(indexXA)(di->fsm.maps, i);
      if (m->rx)
         m->avma += delta;
   }
   di->text_avma += delta;
   for (i = 0; i < (Word)di->cfsi_used; i++)
      di->cfsi_base[i] += delta;
   di->cfsi_minavma += delta;
   di->cfsi_maxavma += delta;
   for (i = 0; i < (Word)di->inltab_used; i++) {
      di->inltab[i].addr_lo += delta;
      di->inltab[i].addr_hi += delta;
   }
}

void ML_(jit_cfi_reattach) ( JitCfiDetached* d, Addr new_lo )
{
   Addr delta = new_lo - d->r.lo;
   Addr size  = d->r.hi - d->r.lo;
   vg_assert(d->r.di != NULL && d->r.di->cfsi_rd == NULL);
   rebase_cfi_di(d->r.di, delta);
   ML_(jit_cfi_add)(new_lo, new_lo + size, d->r.di, d->r.owner, new_lo);
   if (d->r.owner == JitCfiFunction && d->r.di->cfsi_used > 0)
      stats.added--;   /* the same CFI, not a new description */
   ML_(dinfo_free)(d);
}

static const CfiRange* range_containing ( Addr ip )
{
   if (ranges == NULL || VG_(OSetGen_Size)(ranges) == 0)
      return NULL;
   return VG_(OSetGen_LookupWithCmp)(ranges, &ip, cmp_ip_in_range);
}

DebugInfo* ML_(jit_cfi_search) ( Addr ip, /*OUT*/Word* ix )
{
   const CfiRange* r = range_containing(ip);
   Word            i;
   /* Producers buffer their jitdump records: the unwinder may reach
      code whose CODE_UNWINDING_INFO is in the file but not yet read (a
      tool records the stack of an error or allocation before anything
      asked for the code's name).  Read the followed files, as the
      symbol lookups do (the unwinder caches misses per address, so a
      frame without CFI costs this once). */
   if (r == NULL && ML_(jit_lookup_miss_may_read)()
       && !ML_(jit_overlaps_object_text)(ip, 1)
       && ML_(jit_read_on_lookup_miss)(ip))
      r = range_containing(ip);
   if (r == NULL || r->di->cfsi_used == 0
       || ip < r->di->cfsi_minavma || ip > r->di->cfsi_maxavma)
      return NULL;
   i = ML_(search_one_cfitab)(r->di, ip);
   if (i < 0)
      return NULL;
   *ix = i;
   return r->di;
}

DebugInfo* ML_(jit_cfi_inl_search) ( DiEpoch ep, Addr eip, DebugInfo* di )
{
   const CfiRange* r = range_containing(eip);
   if (r == NULL || r->di->inltab_used == 0 || r->first_epoch > ep.n)
      return di;
   return r->di;
}

void ML_(jit_cfi_note_refused) ( void )
{
   stats.refused++;
}

void ML_(jit_cfi_print_summary) ( void )
{
   if (VG_(clo_verbosity) < 2 || stats.added + stats.refused == 0)
      return;
   VG_(umsg)("JIT: unwind info: %llu added, %llu refused, %lu ranges "
             "with CFI live at exit\n", stats.added, stats.refused,
             ranges ? (UWord)VG_(OSetGen_Size)(ranges) : 0UL);
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
