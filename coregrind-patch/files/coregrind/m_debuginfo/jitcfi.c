
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
   and a read past their end, which would make the image layer shut
   Valgrind down, is caught (ML_(img_set_overrun_handler)).  FDEs that
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

/* Steps over an unsigned LEB128 at *p (below end); False if it runs
   off. */
static Bool skip_leb128 ( const UChar** p, const UChar* end )
{
   while (*p < end) {
      if (((*(*p)++) & 0x80) == 0)
         return True;
   }
   return False;
}

/* Can the CFI reader decode pointers of encoding enc (of a CIE's 'R'
   augmentation when for_fde_address, else of 'P' or 'L')?  It asserts
   on the encodings it does not know. */
static Bool pointer_encoding_ok ( UChar enc, Bool for_fde_address )
{
   UChar format = enc & 0x0f, app = enc & 0x70;
   if (enc == 0xff)
      return !for_fde_address;   /* omitted */
   if (format != 0x00 && format != 0x02 && format != 0x03
       && format != 0x04 && format != 0x0a && format != 0x0b
       && format != 0x0c)
      return False;   /* the reader sizes only these */
   if (!for_fde_address)
      return True;    /* only skipped */
   if (enc & 0x80)
      return False;   /* indirect */
   return app == 0x00 || app == 0x10 || app == 0x30 || app == 0x40
          || app == 0x50;
}

const HChar* ML_(jit_cfi_check_records) ( const UChar* p, ULong size,
                                          Bool is_eh )
{
   ULong off = 0;
   while (off + 4 <= size) {
      UInt         len, id;
      const UChar* rec;
      const UChar* end;
      const UChar* aug;
      VG_(memcpy)(&len, p + off, 4);
      if (len == 0)
         break;   /* terminator */
      if (len == 0xffffffff)
         return "64-bit DWARF CFI records are not read";
      if (len < 4 || len > size - off - 4)
         return "a CFI record lies outside its section";
      rec = p + off + 4;
      end = rec + len;
      VG_(memcpy)(&id, rec, 4);
      if (id == (is_eh ? 0 : 0xffffffff)) {
         const UChar* q = rec + 5;   /* past the id and the version */
         Bool         has_z;
         if (q > end)
            return "a CIE runs off its record";
         aug = q;
         while (q < end && *q != 0) q++;
         if (q >= end)
            return "a CIE's augmentation runs off its record";
         q++;
         has_z = aug[0] == 'z';
         if (has_z) {
            if (!skip_leb128(&q, end) || !skip_leb128(&q, end))
               return "a CIE runs off its record";
            if (rec[4] == 1) q++; else if (!skip_leb128(&q, end))
               return "a CIE runs off its record";
            if (q > end || !skip_leb128(&q, end))
               return "a CIE runs off its record";
            for (aug++; *aug != 0; aug++) {
               UChar enc;
               if (*aug != 'R' && *aug != 'P' && *aug != 'L')
                  continue;
               if (q >= end)
                  return "a CIE runs off its record";
               enc = *q++;
               if (!pointer_encoding_ok(enc, *aug == 'R'))
                  return "a CIE uses a pointer encoding that is not read";
               if (*aug == 'P') {
                  UInt sz = (enc & 0x07) == 0x02 ? 2
                          : (enc & 0x07) == 0x03 ? 4
                          : (enc & 0x07) == 0x04 ? 8 : sizeof(Addr);
                  if (sz > (UWord)(end - q))
                     return "a CIE runs off its record";
                  q += sz;
               }
            }
         }
      }
      off += 4 + (ULong)len;
   }
   return NULL;
}

static VG_MINIMAL_JMP_BUF(overrun_env);

static void on_image_overrun ( void )
{
   VG_MINIMAL_LONGJMP(overrun_env);
}

DebugInfo* ML_(jit_cfi_from_eh_frame) ( const UChar* eh, ULong size,
                                        Addr eh_addr,
                                        Addr code_lo, Addr code_hi,
                                        const HChar* objname,
                                        /*OUT*/const HChar** why )
{
   UChar*     buf;
   DiImage*   dimg;
   DebugInfo* di;

   *why = NULL;
   if (size == 0 || code_lo >= code_hi) {
      *why = "no CFI records";
      return NULL;
   }
   *why = ML_(jit_cfi_check_records)(eh, size, True);
   if (*why != NULL)
      return NULL;
   buf = ML_(dinfo_zalloc)("di.jitcfi.buf", size + CFI_PADDING);
   VG_(memcpy)(buf, eh, size);
   dimg = ML_(img_from_memory)((Addr)buf, size + CFI_PADDING, objname);
   di = ML_(jit_cfi_new_reading_di)(objname, code_lo, code_hi);
   if (VG_MINIMAL_SETJMP(overrun_env) == 0) {
      ML_(img_set_overrun_handler)(on_image_overrun);
      ML_(read_callframe_info_dwarf3)(di, mk_DiSlice(dimg, 0, size),
                                      eh_addr, True);
      ML_(img_set_overrun_handler)(NULL);
   } else {
      /* What the reader allocated hangs off di or is lost (a few bytes
         per hostile description). */
      ML_(img_set_overrun_handler)(NULL);
      *why = "its CFI reads past the end of its bytes";
   }
   ML_(img_done)(dimg);
   ML_(dinfo_free)(buf);
   if (*why == NULL && di->cfsi_used == 0)
      *why = "no FDE describes the code";
   if (*why != NULL) {
      ML_(free_unlisted_DebugInfo)(di);
      return NULL;
   }
   ML_(canonicaliseTables)(di);
   ML_(finish_CFSI_arrays)(di);
   return di;
}

DebugInfo* ML_(jit_cfi_from_shape) ( Addr code_lo, Addr code_hi,
                                     UWord kind, UWord prologue,
                                     UWord ra_off, UWord fp_off,
                                     const HChar* objname,
                                     /*OUT*/const HChar** why )
{
#  if defined(VGA_amd64)
   DebugInfo* di;
   DiCfSI_m   m;
   UWord      size = code_hi - code_lo;

   *why = NULL;
   if (code_lo >= code_hi || prologue >= size)
      *why = "the prologue is not shorter than the code";
   else if (kind == VG_JIT_UNWIND_FIXED_FRAME
            && (ra_off % 8 != 0 || ra_off > (1 << 20)
                || (fp_off != VG_JIT_UNWIND_FP_KEPT
                    && (fp_off % 8 != 0 || fp_off > (1 << 20)
                        || fp_off == ra_off))))
      *why = "the frame's offsets are not multiples of 8 below 1 MiB";
   else if (kind == VG_JIT_UNWIND_FRAME_POINTER && prologue == 0)
      *why = "a frame-pointer prologue cannot be 0 bytes long";
   else if (kind != VG_JIT_UNWIND_FRAME_POINTER
            && kind != VG_JIT_UNWIND_FIXED_FRAME)
      *why = "unknown unwind kind";
   if (*why != NULL)
      return NULL;

   di = ML_(jit_cfi_new_reading_di)(objname, code_lo, code_hi);
   /* At the first instruction, the return address is at the stack
      pointer; the frame pointer is the caller's. */
   VG_(memset)(&m, 0, sizeof(m));
   m.cfa_how = CFIC_IA_SPREL;
   m.cfa_off = 8;
   m.ra_how  = CFIR_MEMCFAREL;
   m.ra_off  = -8;
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
         m.cfa_off = 16;
         m.bp_how  = CFIR_MEMCFAREL;
         m.bp_off  = -16;
         ML_(addDiCfSI)(di, code_lo + 1, (UInt)(prologue - 1), &m);
      }
      m.cfa_how = CFIC_IA_BPREL;
      m.cfa_off = 16;
      m.bp_how  = CFIR_MEMCFAREL;
      m.bp_off  = -16;
   } else {
      if (prologue > 0)
         ML_(addDiCfSI)(di, code_lo, (UInt)prologue, &m);
      m.cfa_off = (Int)ra_off + 8;
      if (fp_off != VG_JIT_UNWIND_FP_KEPT) {
         m.bp_how = CFIR_MEMCFAREL;
         m.bp_off = (Int)fp_off - m.cfa_off;
      }
   }
   ML_(addDiCfSI)(di, code_lo + prologue, (UInt)(size - prologue), &m);
   ML_(canonicaliseTables)(di);
   ML_(finish_CFSI_arrays)(di);
   return di;
#  else
   *why = "frame shapes are implemented on amd64 only";
   return NULL;
#  endif
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
   if (owner == JitCfiFunction)
      stats.added++;
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit: CFI of %#lx-%#lx: %lu entries\n", lo, hi,
                (UWord)di->cfsi_used);
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
}

void ML_(jit_cfi_reattach) ( JitCfiDetached* d, Addr new_lo )
{
   Addr delta = new_lo - d->r.lo;
   Addr size  = d->r.hi - d->r.lo;
   vg_assert(d->r.di != NULL && d->r.di->cfsi_rd == NULL);
   rebase_cfi_di(d->r.di, delta);
   ML_(jit_cfi_add)(new_lo, new_lo + size, d->r.di, d->r.owner, new_lo);
   if (d->r.owner == JitCfiFunction)
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
   if (r == NULL && !ML_(jit_overlaps_object_text)(ip, 1)
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
