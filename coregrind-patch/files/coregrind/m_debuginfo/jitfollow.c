/*--------------------------------------------------------------------*/
/*--- Followers of the files JITs write for Linux perf: the common  ---*/
/*--- core (reading new bytes, polling, forks).        jitfollow.c ---*/
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

/* When: a jitdump file is followed from the moment the client maps it
   (producers map jit-<pid>.dump read+exec exactly so that profilers
   notice it); the perf map is looked for when --jit-perf-map=yes.  Files
   are read (1) at scheduler points, where translations may be discarded,
   and (2) when a lookup misses in executable client memory and a client
   syscall completed since the last such read (files grow only through
   syscalls), where they may not (a translation may be in progress):
   there, only functions that overlap nothing are added and their
   translations are discarded at the next scheduler point; anything else
   waits for that point.  When a file did not grow, a poll costs one
   fstat.

   Producers buffer (Node's jitdump writer flushes in 4 KiB blocks), so a
   name can arrive after its code ran: the translations made without the
   name are discarded, and later executions carry it. */

#include "pub_core_basics.h"
#include "pub_core_vki.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_libcfile.h"
#include "pub_core_libcproc.h"
#include "pub_core_options.h"
#include "pub_core_aspacemgr.h"
#include "pub_core_xarray.h"
#include "pub_core_jitreg.h"     /* VG_(jit_poll_producer_files) */

#include "priv_misc.h"           /* dinfo_zalloc/free/strdup */
#include "priv_jitreg.h"
#include "priv_jitfollow.h"      /* self */
#include "priv_jitpending.h"     /* JIT_STATUS_WAITING */

static XArray* followers = NULL;        /* of JitFollower* */

/* The formats: what the common loop calls through JitFollowerOps. */
static const JitFollowerOps* const formats[] = {
   &ML_(jit_jitdump_ops),
   &ML_(jit_perfmap_ops)
};
#define N_FORMATS (sizeof(formats) / sizeof(formats[0]))

/* Every format's search for files it follows unannounced. */
static void discover ( void )
{
   UInt i;
   for (i = 0; i < N_FORMATS; i++)
      if (formats[i]->discover != NULL)
         formats[i]->discover();
}

/* True if some format may still start a follower by itself. */
static Bool discovering ( void )
{
   UInt i;
   for (i = 0; i < N_FORMATS; i++)
      if (formats[i]->discovering != NULL && formats[i]->discovering())
         return True;
   return False;
}

/* True while followers are being read.  Registering discards
   translations, which calls back into the tool (Callgrind's delete_bb
   looks up the discarded addresses), and a lookup miss must not start a
   nested read of a follower whose buffer is in use. */
static Bool reading = False;

/* In a forked child: the followed files describe the parent from now on
   (the child keeps the registrations it inherited). */
static void stop_following_in_child ( ThreadId tid )
{
   Word i;
   for (i = 0; followers && i < VG_(sizeXA)(followers); i++)
      ML_(jit_follow_stop)(*(JitFollower**)VG_(indexXA)(followers, i),
                           "forked child");
   for (i = 0; i < (Word)N_FORMATS; i++)
      if (formats[i]->forked != NULL)
         formats[i]->forked();
}

JitFollower* ML_(jit_follow) ( const JitFollowerOps* ops, Int fd,
                               const HChar* path )
{
   JitFollower* fl = ML_(dinfo_zalloc)("di.jitfollow.fl",
                                       sizeof(JitFollower));
   fl->ops     = ops;
   fl->fd      = fd;
   fl->pid     = VG_(getpid)();
   fl->path    = ML_(dinfo_strdup)("di.jitfollow.path", path);
   fl->buf_cap = ops->buf_initial;
   fl->buf     = ML_(dinfo_zalloc)("di.jitfollow.buf", fl->buf_cap);
   fl->snapshot = ML_(dinfo_zalloc)("di.jitfollow.snapshot",
                                    ops->reader_size);
   ops->init(fl);
   if (followers == NULL) {
      followers = VG_(newXA)(ML_(dinfo_zalloc), "di.jitfollow.followers",
                             ML_(dinfo_free), sizeof(JitFollower*));
      VG_(atfork)(NULL, NULL, stop_following_in_child);
   }
   VG_(addToXA)(followers, &fl);
   if (VG_(clo_verbosity) > 1 || VG_(clo_trace_jit))
      VG_(umsg)("JIT: following %s %s\n", ops->kind, path);
   return fl;
}

void ML_(jit_follow_stop) ( JitFollower* fl, const HChar* why )
{
   if (fl->done)
      return;
   fl->done = True;
   VG_(close)(fl->fd);
   fl->fd = -1;
   if (VG_(clo_verbosity) > 1 || VG_(clo_trace_jit))
      VG_(umsg)("JIT: stopped following %s (%s): %llu loaded, %llu moved, "
                "%llu refused, %llu malformed\n", fl->path, why,
                fl->n_loaded, fl->n_moved, fl->n_refused, fl->n_bad);
}

Bool ML_(jit_is_followed) ( const HChar* path )
{
   Word i;
   for (i = 0; followers && i < VG_(sizeXA)(followers); i++) {
      const JitFollower* fl = *(JitFollower**)VG_(indexXA)(followers, i);
      if (!fl->done && VG_(strcmp)(fl->path, path) == 0)
         return True;
   }
   return False;
}

/* At most this many problems are printed per file (under -v); the
   rest are counted, and the number not printed is in the exit
   summary. */
#define MAX_FILE_WARNINGS 10

Bool ML_(jit_follow_may_warn) ( JitFollower* fl )
{
   if (VG_(clo_verbosity) < 2 && !VG_(clo_trace_jit))
      return False;
   fl->n_warned++;
   if (fl->n_warned == MAX_FILE_WARNINGS + 1)
      VG_(umsg)("Warning: %s: further problems are only counted\n",
                fl->path);
   return fl->n_warned <= MAX_FILE_WARNINGS;
}

void ML_(jit_follow_refused) ( JitFollower* fl, Int st )
{
   fl->n_refused++;
   fl->refused_by[ML_(jit_status_slot)(st)]++;
   ML_(jit_note_refused)(st);
}

void ML_(jit_follow_print_summary) ( void )
{
   Word i;
   for (i = 0; followers && i < VG_(sizeXA)(followers); i++) {
      const JitFollower* fl = *(JitFollower**)VG_(indexXA)(followers, i);
      HChar prefix[VG_(strlen)(fl->path) + 48];
      VG_(umsg)("JIT: %s %s: %llu %s read: %llu loaded, %llu moved, "
                "%llu refused, %llu malformed, %llu without code, "
                "%llu late names for unmapped code, %llu waited for "
                "executable code\n",
                fl->ops->kind, fl->path, fl->n_items, fl->ops->items,
                fl->n_loaded, fl->n_moved, fl->n_refused, fl->n_bad,
                fl->n_other, fl->n_named_late, fl->n_waiting);
      VG_(sprintf)(prefix, "JIT: %s %s refused: ", fl->ops->kind, fl->path);
      ML_(jit_print_refusals)(prefix, fl->refused_by);
      if (fl->n_warned > MAX_FILE_WARNINGS)
         VG_(umsg)("JIT: %s %s: %llu further problems were only counted\n",
                   fl->ops->kind, fl->path,
                   fl->n_warned - MAX_FILE_WARNINGS);
   }
}

void ML_(jit_follow_print_files) ( void )
{
   Word i;
   Word n = followers ? VG_(sizeXA)(followers) : 0;
   for (i = 0; i < n; i++) {
      const JitFollower* fl = *(JitFollower**)VG_(indexXA)(followers, i);
      VG_(printf)("JIT: %s %s %s: %llu %s read: %llu loaded, %llu moved, "
                  "%llu refused, %llu malformed, %llu without code, "
                  "%llu late names for unmapped code, %llu waited for "
                  "executable code\n",
                  fl->done ? "no longer following" : "following",
                  fl->ops->kind, fl->path, fl->n_items, fl->ops->items,
                  fl->n_loaded, fl->n_moved, fl->n_refused, fl->n_bad,
                  fl->n_other, fl->n_named_late, fl->n_waiting);
   }
   if (n == 0)
      VG_(printf)("JIT: no producer file followed\n");
}

void ML_(jit_follow_warn) ( JitFollower* fl, ULong where, const HChar* what )
{
   fl->n_bad++;
   if (ML_(jit_follow_may_warn)(fl))
      VG_(umsg)("Warning: %s:%s%llu: %s\n", fl->path, fl->ops->position,
                where, what);
}

#if VG_WORDSIZE == 4
Bool ML_(jit_follow_fits) ( JitFollower* fl, ULong where,
                            const HChar* what, ULong addr, ULong size )
{
   ULong last = size > 0 ? addr + size - 1 : addr;
   if (last >= addr && last <= 0xFFFFFFFFULL)
      return True;
   ML_(jit_follow_refused)(fl, VG_JIT_ERR_BAD_RANGE);
   if (ML_(jit_follow_may_warn)(fl))
      VG_(umsg)("Warning: %s:%s%llu: %s at %#llx, %llu bytes, refused: "
                "beyond the 4 GiB address space of a 32-bit platform\n",
                fl->path, fl->ops->position, where, what, addr, size);
   return False;
}
#endif

Bool ML_(jit_follow_answered) ( JitFollower* fl,
                                const JitRegistration* reg,
                                Int st, ULong where )
{
   HChar name[JIT_PRINTABLE_BUF];
   HChar why[400];
   if (st == JIT_STATUS_RANGE_BUSY)
      return False;   /* replaces code: needs a discard first */
   if (st == JIT_STATUS_NAMED_LATE) {
      fl->n_named_late++;
      return True;
   }
   if (st == JIT_STATUS_WAITING) {
      fl->n_waiting++;   /* registered when its code is executable */
      return True;
   }
   if (ML_(jit_status_applied)(st)) {
      fl->n_loaded++;
      if (st != VG_JIT_WARN_LINES_DROPPED || reg->drops == NULL
          || !ML_(jit_follow_may_warn)(fl))
         return True;
      /* ": line-table entries dropped: 3 of 5: ..." */
      VG_(snprintf)(why, sizeof(why), ": %s: ", ML_(jit_status_text)(st));
      ML_(jit_line_drops_text)(why + VG_(strlen)(why),
                               sizeof(why) - VG_(strlen)(why), reg->drops,
                               reg->size);
   } else {
      ML_(jit_follow_refused)(fl, st);
      if (!ML_(jit_follow_may_warn)(fl))
         return True;
      VG_(snprintf)(why, sizeof(why), " refused: %s",
                    ML_(jit_status_text)(st));
      if (st == VG_JIT_ERR_OVERLAPS_OBJECT) {
         SizeT n = VG_(strlen)(why);
         VG_(strcpy)(why + n, ": ");
         ML_(jit_overlap_text)(reg->start, reg->size, why + n + 2,
                               sizeof(why) - n - 2);
         if (why[n + 2] == 0)
            why[n] = 0;
      }
   }
   ML_(jit_printable_copy)(name, reg->name);
   VG_(umsg)("Warning: %s:%s%llu: %s%s at %#lx (%lu bytes)%s\n",
             fl->path, fl->ops->position, where, fl->ops->code_item, name,
             reg->start, reg->size, why);
   return True;
}

/* Reads one item of fl from buf[0 .. len-1] (the file's bytes at the
   reader's offset): the reader is put back as it was if the item must
   wait for a safe point.  Only a read inside a lookup can be told to
   wait, so only there is the reader kept before the item (not once per
   item of a file read at a safe point). */
static JitStep follow_step ( JitFollower* fl, const UChar* buf, SizeT len,
                             JitWhere where, /*OUT*/ULong* n )
{
   const JitFollowerOps* ops = fl->ops;
   JitStep               step;
   if (where != JitInLookup)
      return ops->step(fl, buf, len, where, n);
   VG_(memcpy)(fl->snapshot, ops->reader(fl), ops->reader_size);
   step = ops->step(fl, buf, len, where, n);
   if (step == JitStep_WAIT)
      VG_(memcpy)(ops->reader(fl), fl->snapshot, ops->reader_size);
   return step;
}


/*------------------------------------------------------------*/
/*--- Reading                                              ---*/
/*------------------------------------------------------------*/

/* Reads what the producer appended since the last call, one item at a
   time through fl->ops->step.  Returns True if anything was
   registered or moved. */
static Bool read_follower ( JitFollower* fl, JitWhere where )
{
   struct vg_stat st;
   ULong before = fl->n_loaded + fl->n_moved;

   if (fl->done)
      return False;
   if (VG_(fstat)(fl->fd, &st) != 0) {
      ML_(jit_follow_stop)(fl, "fstat failed");
      return False;
   }

   while (!fl->done) {
      ULong  off = fl->ops->offset(fl);
      ULong  avail;
      SizeT  len, pos = 0;
      SysRes sr;

      if (st.size < 0 || (ULong)st.size <= off)
         break;   /* nothing new (or a skip beyond the end so far) */
      avail = (ULong)st.size - off;
      len = avail < fl->buf_cap ? (SizeT)avail : fl->buf_cap;
      sr = VG_(pread)(fl->fd, fl->buf, (Int)len, (OffT)off);
      if (sr_isError(sr) || sr_Res(sr) == 0) {
         ML_(jit_follow_stop)(fl, "read failed");
         break;
      }
      len = sr_Res(sr);

      while (pos < len && !fl->done) {
         ULong   n = 0;
         JitStep step = follow_step(fl, fl->buf + pos, len - pos, where,
                                    &n);
         if (step == JitStep_WAIT)
            return fl->n_loaded + fl->n_moved > before;
         if (step == JitStep_STOP)
            break;
         if (step == JitStep_NEED_MORE) {
            if (pos == 0 && n > len) {
               if (n > avail)
                  return fl->n_loaded + fl->n_moved > before; /* wait */
               if (n > fl->buf_cap && n <= fl->ops->buf_max) {
                  ML_(dinfo_free)(fl->buf);
                  fl->buf_cap = (SizeT)n;
                  fl->buf = ML_(dinfo_zalloc)("di.jitfollow.buf",
                                              fl->buf_cap);
               } else if (n > fl->buf_cap) {
                  HChar why[96];
                  VG_(snprintf)(why, sizeof(why), "an item of %llu bytes,"
                                " above the %lu bytes held", n,
                                (UWord)fl->ops->buf_max);
                  ML_(jit_follow_stop)(fl, why);
               }
            }
            break;   /* re-read from the reader's offset */
         }
         if (n > len - pos)
            break;   /* skipped past the buffer: read again there */
         pos += (SizeT)n;
      }
   }
   return fl->n_loaded + fl->n_moved > before;
}

static Bool read_all ( JitWhere where )
{
   Word i;
   Bool any = False;
   if (followers == NULL || reading)
      return False;
   reading = True;
   for (i = 0; i < VG_(sizeXA)(followers); i++)
      any |= read_follower(*(JitFollower**)VG_(indexXA)(followers, i),
                           where);
   reading = False;
   return any;
}

void VG_(jit_poll_producer_files) ( void )
{
   if (reading)
      return;
   discover();
   /* Translations made before names arrived go first, then new names
      (which discard what they cover themselves). */
   reading = True;
   ML_(jit_at_safe_point)();
   reading = False;
   (void)read_all(JitAtSafePoint);
}

void ML_(jit_read_files_to_end) ( void )
{
   Word i;
   if (reading)
      return;
   discover();
   reading = True;
   ML_(jit_at_safe_point)();
   reading = False;
   (void)read_all(JitAtSafePoint);
   reading = True;
   for (i = 0; followers && i < VG_(sizeXA)(followers); i++) {
      JitFollower* fl = *(JitFollower**)VG_(indexXA)(followers, i);
      if (fl->ops->finish != NULL)
         fl->ops->finish(fl);
   }
   reading = False;
}

ULong ML_(jit_client_syscalls) = 0;

/* The count of client system calls when a lookup miss last read the
   files. */
static ULong n_client_syscalls_at_miss_read = ~0ULL;

void VG_(jit_note_client_syscall) ( void )
{
   ML_(jit_client_syscalls)++;
}

Bool ML_(jit_lookup_miss_may_read) ( void )
{
   return !(reading || (followers == NULL && !discovering())
            || ML_(jit_is_exiting)()    /* read to their end already */
            /* no file can have grown since: */
            || ML_(jit_client_syscalls) == n_client_syscalls_at_miss_read);
}

Bool ML_(jit_read_on_lookup_miss) ( Addr a )
{
   const NSegment* seg;
   if (!ML_(jit_lookup_miss_may_read)())
      return False;
   seg = VG_(am_find_nsegment)(a);
   if (seg == NULL || !seg->hasX
       || !(seg->kind == SkAnonC || seg->kind == SkFileC
            || seg->kind == SkShmC))
      return False;
   n_client_syscalls_at_miss_read = ML_(jit_client_syscalls);
   discover();
   if (!read_all(JitInLookup))
      return False;
   /* The lookup that missed must see the functions just registered in
      the current epoch (which registering inside a lookup keeps): forget
      the cached "no name" answers, once per read rather than once per
      function (the cache's 509 entries cost about 6,000 instructions to
      clear; a producer that wrote 10^6 names at exit paid that per
      name). */
   ML_(invalidate_sym_name_cache_for_jit)();
   return True;
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
