/*--------------------------------------------------------------------*/
/*--- Following the perf map (/tmp/perf-<pid>.map).                ---*/
/*---                                          jitfollow-perfmap.c ---*/
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

/* With --jit-perf-map=yes, /tmp/perf-<pid>.map is opened as soon as it
   exists (looked for at each poll and lookup miss) and read as the
   client appends "START SIZE name" lines to it, decoded by
   readperfmap.c.  As Linux perf does, a map that is a symbolic link, not
   a regular file, or owned by another user than this one or root is
   ignored, with a warning.

   A map last written more than a second before this process started
   was left by an earlier process with the same pid (runtimes such as
   Node never remove theirs, and pids are reused): its names describe
   another program's memory.  It is not read until it is written again
   (its modification time moves past the start), and then from its
   first line, as producers rewrite the file from the start; -v says
   so once.  The start is the first poll, before the client's first
   instruction; the second of slack covers the coarse clock that file
   times are taken from. */

#include "pub_core_basics.h"
#include "pub_core_vki.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_libcfile.h"
#include "pub_core_libcproc.h"
#include "pub_core_options.h"

#include "priv_misc.h"           /* dinfo_zalloc */
#include "priv_readperfmap.h"    /* the shared reader */
#include "priv_jitreg.h"
#include "priv_jitfollow.h"
#include "priv_jitpending.h"     /* names that wait for their code */

typedef
   struct {
      PerfmapReader pm;
      PerfmapEvent  ev;         /* the line decoded last */
      HChar*        name_buf;   /* NUL-terminated copy of an entry's name */
   }
   PerfmapState;

static Bool perf_map_given_up = False;
static Bool perf_map_open     = False;
/* Wall-clock seconds at the first discovery attempt (0: unknown). */
static ULong started_at       = 0;
static Bool  stale_noted      = False;

/* Whether a map modified at mtime (seconds) was left before this
   process started (see the top of this file). */
static Bool predates_this_process ( ULong mtime )
{
   return started_at > 0 && mtime + 1 < started_at;
}

/* Registers the line decoded last.  Returns False if it must wait for a
   safe point. */
static Bool handle_line ( JitFollower* fl, JitWhere when )
{
   PerfmapState*       s  = fl->state;
   const PerfmapEvent* ev = &s->ev;
   JitRegistration     reg = { 0 };
   Int st;
   if (ev->kind == PERFMAP_EV_BAD_LINE) {
      ML_(jit_follow_warn)(fl, ev->line, ML_(perfmap_strerror)(ev->error));
      return True;
   }
   if (ev->kind != PERFMAP_EV_ENTRY) {
      fl->n_other++;   /* a blank line */
      return True;
   }
   if (!ML_(jit_follow_fits)(fl, ev->line, "entry", ev->entry.start,
                             ev->entry.size))
      return True;
   vg_assert(ev->entry.name_len <= PERFMAP_LINE_MAX);
   VG_(memcpy)(s->name_buf, ev->entry.name, ev->entry.name_len);
   s->name_buf[ev->entry.name_len] = 0;
   reg.start  = (Addr)ev->entry.start;
   reg.size   = (UWord)ev->entry.size;
   reg.name   = s->name_buf;
   reg.object = fl->path;
   reg.object_resolved = ML_(jit_follow_object)(fl);
   reg.may_name_unmapped = True;   /* a map written at exit */
   st = ML_(jit_register_or_wait)(&reg, when, NULL);
   return ML_(jit_follow_registered)(fl, &reg, st, ev->line);
}

static void perfmap_init ( JitFollower* fl )
{
   PerfmapState* s = ML_(dinfo_zalloc)("di.jitfollow.perfmap",
                                       sizeof(PerfmapState));
   ML_(perfmap_init)(&s->pm);
   s->name_buf = ML_(dinfo_zalloc)("di.jitfollow.name",
                                   PERFMAP_LINE_MAX + 1);
   fl->state = s;
}

static ULong perfmap_offset ( const JitFollower* fl )
{
   const PerfmapState* s = fl->state;
   return s->pm.offset;
}

static void* perfmap_reader ( JitFollower* fl )
{
   return &((PerfmapState*)fl->state)->pm;
}

static JitStep perfmap_step ( JitFollower* fl, const UChar* buf, SizeT len,
                              JitWhere where, /*OUT*/ULong* n )
{
   PerfmapState* s = fl->state;
   if (ML_(perfmap_next)(&s->pm, buf, len, &s->ev) == PERFMAP_EV_NEED_MORE) {
      *n = s->ev.need;   /* a line in progress */
      return JitStep_NEED_MORE;
   }
   if (!handle_line(fl, where))
      return JitStep_WAIT;
   fl->n_items++;
   *n = s->ev.advance;
   return JitStep_ADVANCE;
}

/* The last line even without its '\n' (a producer that exited without
   finishing it). */
static void perfmap_finish ( JitFollower* fl )
{
   PerfmapState*  s = fl->state;
   struct vg_stat st;
   SysRes         sr;
   ULong          avail;
   SizeT          len;

   if (fl->done || VG_(fstat)(fl->fd, &st) != 0
       || st.size < 0 || (ULong)st.size <= s->pm.offset)
      return;
   avail = (ULong)st.size - s->pm.offset;
   len = avail < fl->buf_cap ? (SizeT)avail : fl->buf_cap;
   sr = VG_(pread)(fl->fd, fl->buf, (Int)len, (OffT)s->pm.offset);
   if (sr_isError(sr) || sr_Res(sr) == 0)
      return;
   len = sr_Res(sr);
   if (ML_(perfmap_finish)(&s->pm, fl->buf, len, &s->ev)
       != PERFMAP_EV_NEED_MORE) {
      fl->n_items++;   /* the final line, without its '\n' */
      (void)handle_line(fl, JitAtSafePoint);
   }
}

static void perfmap_forked ( void )
{
   perf_map_given_up = True;
}

static Bool perfmap_discovering ( void )
{
   return VG_(clo_jit_perf_map);
}

/* Opens /tmp/perf-<pid>.map once it exists, if --jit-perf-map=yes. */
static void perfmap_discover ( void )
{
   HChar  path[64];
   SysRes sr;
   Int    fd;
   struct vg_stat st;

   if (!VG_(clo_jit_perf_map) || perf_map_open || perf_map_given_up)
      return;
#  if defined(VGO_linux) || defined(VGO_solaris) || defined(VGO_freebsd)
   if (started_at == 0) {
      struct vki_timespec ts;
      ts.tv_sec = 0;
      VG_(clock_gettime)(&ts, VKI_CLOCK_REALTIME);
      if (ts.tv_sec > 0)
         started_at = (ULong)ts.tv_sec;
   }
#  endif
   VG_(sprintf)(path, "/tmp/perf-%d.map", VG_(getpid)());
   sr = VG_(open)(path, VKI_O_RDONLY | VKI_O_NOFOLLOW, 0);
   if (sr_isError(sr)) {
      if (sr_Err(sr) == VKI_ELOOP) {
         VG_(umsg)("Warning: %s is a symbolic link: ignored\n", path);
         perf_map_given_up = True;
      }
      return;   /* not written yet: try again later */
   }
   fd = VG_(safe_fd)(sr_Res(sr));
   if (VG_(fstat)(fd, &st) != 0
       || (st.uid != (UInt)VG_(geteuid)() && st.uid != 0)
       || !VKI_S_ISREG(st.mode)) {
      /* As Linux perf does: a map file someone else owns is ignored. */
      VG_(umsg)("Warning: %s is not a regular file owned by this user or "
                "root: ignored\n", path);
      VG_(close)(fd);
      perf_map_given_up = True;
      return;
   }
   if (predates_this_process(st.mtime)) {
      if (!stale_noted && VG_(clo_verbosity) > 1)
         VG_(umsg)("JIT: perf map %s was last written before this process "
                   "started (by an earlier process with pid %d): not read "
                   "until it is written again\n", path, VG_(getpid)());
      stale_noted = True;
      VG_(close)(fd);
      return;   /* look again later */
   }
   perf_map_open = True;
   (void)ML_(jit_follow)(&ML_(jit_perfmap_ops), fd, path);
}

const JitFollowerOps ML_(jit_perfmap_ops) = {
   "perf map",
   "line ",
   "lines",
   "",
   PERFMAP_MIN_BUFFER + 4096,
   PERFMAP_MIN_BUFFER + 4096,   /* holds the longest line */
   perfmap_init,
   perfmap_offset,
   perfmap_reader,
   sizeof(PerfmapReader),
   perfmap_step,
   perfmap_finish,
   perfmap_discover,
   perfmap_discovering,
   perfmap_forked
};

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
