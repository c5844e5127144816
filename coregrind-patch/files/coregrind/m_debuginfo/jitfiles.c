
/*--------------------------------------------------------------------*/
/*--- Following the files JITs write for Linux perf: jitdump and   ---*/
/*--- /tmp/perf-<pid>.map, read live into the JIT code registry.   ---*/
/*---                                                   jitfiles.c ---*/
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

/* A "follower" reads one producer file incrementally with the shared
   parsers of readjitdump.c/readperfmap.c (the same code the vg-jit tool
   and the unit tests run) and feeds what it decodes into the registry of
   jitreg.c, under the file's path as object name.

   When: a jitdump file is followed from the moment the client maps it
   (producers map jit-<pid>.dump read+exec exactly so that profilers
   notice it); the perf map is looked for when --jit-perf-map=yes.  Files
   are read (1) at scheduler points, where translations may be discarded,
   and (2) when a lookup misses in executable client memory, where they
   may not (a translation may be in progress): there, only functions that
   overlap nothing are added and their translations are discarded at the
   next scheduler point; anything else waits for that point.  When a file
   did not grow, a poll costs one fstat.

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
#include "pub_core_jitreg.h"

#include "priv_misc.h"           /* dinfo_zalloc/free/strdup */
#include "priv_jitformats.h"     /* the shared parsers */
#include "priv_jitreg.h"

/* Linux's O_NOFOLLOW: a perf map is never opened through a symlink. */
#if defined(VGO_linux)
#  define JIT_O_NOFOLLOW 0400000
#else
#  define JIT_O_NOFOLLOW 0
#endif

/* Read buffer: grows up to this (a CODE_DEBUG_INFO record is held
   whole; larger ones are skipped by the parser). */
#define BUF_INITIAL  (JITDUMP_MIN_BUFFER + 4096)
#define BUF_MAX      (JITDUMP_DEBUG_INFO_MAX)

/* One entry of a CODE_DEBUG_INFO record waiting for its CODE_LOAD. */
typedef
   struct {
      Addr  addr;       /* absolute code address */
      UInt  line;
      UWord file_off;   /* in pending_files */
   }
   PendingLine;

typedef
   struct {
      Bool          is_jitdump;
      Int           fd;
      Int           pid;          /* process that opened it */
      HChar*        path;         /* object name of its functions */
      Bool          done;         /* closed, hard error or I/O error */
      UChar*        buf;
      SizeT         buf_cap;
      JitdumpReader jd;
      PerfmapReader pm;
      HChar*        name_buf;     /* perf map: NUL-terminated name copy */
      /* The last CODE_DEBUG_INFO, for the next CODE_LOAD at its addr. */
      Bool          have_pending;
      Addr          pending_addr;
      XArray*       pending_lines;  /* of PendingLine */
      XArray*       pending_files;  /* of HChar: NUL-terminated names */
      /* Line-table convention seen in this file (see line_bias). */
      Bool          lines_direct, lines_plus40;
      /* Counters for -v. */
      ULong         n_loaded, n_moved, n_refused, n_bad;
      ULong         n_warned;
   }
   JitFollower;

static XArray* followers = NULL;        /* of JitFollower* */

/* True while followers are being read.  Registering discards
   translations, which calls back into the tool (Callgrind's delete_bb
   looks up the discarded addresses), and a lookup miss must not start a
   nested read of a follower whose buffer is in use. */
static Bool reading = False;
static Bool    perf_map_given_up = False;
static Bool    perf_map_open = False;

static ULong reader_offset ( const JitFollower* fl )
{
   return fl->is_jitdump ? fl->jd.offset : fl->pm.offset;
}

static void stop_following ( JitFollower* fl, const HChar* why );

/* In a forked child: the followed files describe the parent from now on
   (the child keeps the registrations it inherited). */
static void stop_following_in_child ( ThreadId tid )
{
   Word i;
   for (i = 0; followers && i < VG_(sizeXA)(followers); i++)
      stop_following(*(JitFollower**)VG_(indexXA)(followers, i),
                     "forked child");
   perf_map_given_up = True;
}

static JitFollower* new_follower ( Bool is_jitdump, Int fd,
                                   const HChar* path )
{
   JitFollower* fl = ML_(dinfo_zalloc)("di.jitfiles.fl", sizeof(JitFollower));
   fl->is_jitdump = is_jitdump;
   fl->fd   = fd;
   fl->pid  = VG_(getpid)();
   fl->path = ML_(dinfo_strdup)("di.jitfiles.path", path);
   fl->buf_cap = is_jitdump ? BUF_INITIAL : PERFMAP_MIN_BUFFER + 4096;
   fl->buf  = ML_(dinfo_zalloc)("di.jitfiles.buf", fl->buf_cap);
   if (is_jitdump) {
      ML_(jitdump_init)(&fl->jd, 0);
      fl->pending_lines = VG_(newXA)(ML_(dinfo_zalloc), "di.jitfiles.pl",
                                     ML_(dinfo_free), sizeof(PendingLine));
      fl->pending_files = VG_(newXA)(ML_(dinfo_zalloc), "di.jitfiles.pf",
                                     ML_(dinfo_free), sizeof(HChar));
   } else {
      ML_(perfmap_init)(&fl->pm);
      fl->name_buf = ML_(dinfo_zalloc)("di.jitfiles.name",
                                       PERFMAP_LINE_MAX + 1);
   }
   if (followers == NULL) {
      followers = VG_(newXA)(ML_(dinfo_zalloc), "di.jitfiles.followers",
                             ML_(dinfo_free), sizeof(JitFollower*));
      VG_(atfork)(NULL, NULL, stop_following_in_child);
   }
   VG_(addToXA)(followers, &fl);
   if (VG_(clo_verbosity) > 1 || VG_(clo_trace_jit))
      VG_(umsg)("JIT: following %s %s\n",
                is_jitdump ? "jitdump file" : "perf map", path);
   return fl;
}

static void stop_following ( JitFollower* fl, const HChar* why )
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

/* At most this many problems are printed per file (under -v); the
   rest are counted in the summary printed when following stops. */
#define MAX_FILE_WARNINGS 10

static Bool may_warn ( JitFollower* fl )
{
   if (VG_(clo_verbosity) < 2 && !VG_(clo_trace_jit))
      return False;
   fl->n_warned++;
   if (fl->n_warned == MAX_FILE_WARNINGS + 1)
      VG_(umsg)("Warning: %s: further problems are only counted\n",
                fl->path);
   return fl->n_warned <= MAX_FILE_WARNINGS;
}

static void warn_file ( JitFollower* fl, ULong where, const HChar* what )
{
   fl->n_bad++;
   if (may_warn(fl))
      VG_(umsg)("Warning: %s:%s%llu: %s\n", fl->path,
                fl->is_jitdump ? "offset " : "line ", where, what);
}


/*------------------------------------------------------------*/
/*--- jitdump                                              ---*/
/*------------------------------------------------------------*/

static void clear_pending ( JitFollower* fl )
{
   fl->have_pending = False;
   VG_(dropTailXA)(fl->pending_lines, VG_(sizeXA)(fl->pending_lines));
   VG_(dropTailXA)(fl->pending_files, VG_(sizeXA)(fl->pending_files));
}

/* Copies a CODE_DEBUG_INFO record's entries (they live in the read
   buffer) for the CODE_LOAD that follows it. */
static void keep_debug_info ( JitFollower* fl, const JitdumpDebugInfo* di )
{
   JitdumpDebugIter  it;
   JitdumpDebugEntry e;
   const HChar*      last_name = NULL;
   UWord             last_off = 0;

   clear_pending(fl);
   fl->have_pending = True;
   fl->pending_addr = (Addr)di->code_addr;
   ML_(jitdump_debug_iter_init)(&it, &fl->jd, di);
   while (ML_(jitdump_debug_entry_next)(&it, &e) == 1) {
      PendingLine pl;
      if (e.filename != last_name) {
         /* Consecutive entries usually share their file: store once. */
         last_off = VG_(sizeXA)(fl->pending_files);
         VG_(addBytesToXA)(fl->pending_files, e.filename, e.filename_len);
         VG_(addBytesToXA)(fl->pending_files, "", 1);
         last_name = e.filename;
      }
      pl.addr     = (Addr)e.code_addr;
      pl.line     = e.line;
      pl.file_off = last_off;
      VG_(addToXA)(fl->pending_lines, &pl);
   }
}

/* CODE_DEBUG_INFO addresses.  The jitdump specification and Linux perf
   (perf inject --jit, tools/perf/util/genelf_debug.c since Linux 5.8:
   an entry's line starts at the generated ELF's text + (addr -
   code_addr)) take them as code addresses.  V8 and LLVM's perf listener
   add 0x40 to each (the ELF header size that older perf put before the
   code).  The convention is read from the records: a table with an entry
   in the first 0x40 bytes of its code is direct; one with an entry at or
   past the code's end whose entries all fit once 0x40 is taken off is
   0x40 past; a file keeps the convention it showed first.  A table that
   shows neither is read as 0x40 past if its first entry is exactly at
   code + 0x40 (where such producers put the function's first line) and
   the file never showed a direct table.  Returns the bias to subtract.
   Entries outside their code after that are dropped and counted by the
   registry. */
#define V8_LINE_BIAS 0x40
static UWord line_bias ( JitFollower* fl, Addr start, UWord size )
{
   Word  i, n = VG_(sizeXA)(fl->pending_lines);
   Addr  lo = ~(Addr)0, hi = 0;
   for (i = 0; i < n; i++) {
      const PendingLine* pl = VG_(indexXA)(fl->pending_lines, i);
      if (pl->addr < lo) lo = pl->addr;
      if (pl->addr > hi) hi = pl->addr;
   }
   if (n == 0)
      return 0;
   if (lo < start + V8_LINE_BIAS) {
      fl->lines_direct = True;
      return 0;
   }
   if (hi - start >= size && hi - start - V8_LINE_BIAS < size) {
      if (!fl->lines_plus40 && may_warn(fl))
         VG_(umsg)("Warning: %s: line tables are 0x%x bytes past their "
                   "code (as V8 and LLVM write them): read so\n",
                   fl->path, (UInt)V8_LINE_BIAS);
      fl->lines_plus40 = True;
      return V8_LINE_BIAS;
   }
   if (fl->lines_plus40
       || (lo == start + V8_LINE_BIAS && !fl->lines_direct))
      return V8_LINE_BIAS;
   return 0;
}

/* Registers a CODE_LOAD.  Returns False if it must wait for a safe
   point (not consumed). */
static Bool handle_code_load ( JitFollower* fl, const JitdumpCodeLoad* ld,
                               ULong where, Bool safe )
{
   JitRegistration reg;
   JitSrcLine*     lines = NULL;
   Word            i, n = 0;
   Int             st;

   if (ld->code_size == 0 || ld->name_len == 0) {
      warn_file(fl, where, ld->code_size == 0
                           ? "CODE_LOAD with code_size 0 ignored"
                           : "CODE_LOAD with an empty name ignored");
      return True;
   }
   if (!safe && !ML_(jit_range_is_free)((Addr)ld->code_addr,
                                        (SizeT)ld->code_size))
      return False;   /* replaces code: needs a discard first */

   VG_(memset)(&reg, 0, sizeof(reg));
   reg.start  = (Addr)ld->code_addr;
   reg.size   = (UWord)ld->code_size;
   reg.name   = ld->name;    /* NUL-terminated in the buffer */
   reg.object = fl->path;
   if (fl->have_pending && fl->pending_addr == reg.start
       && (n = VG_(sizeXA)(fl->pending_lines)) > 0) {
      HChar* files = VG_(indexXA)(fl->pending_files, 0);
      UWord  bias  = line_bias(fl, reg.start, reg.size);
      lines = ML_(dinfo_zalloc)("di.jitfiles.lines", n * sizeof(JitSrcLine));
      for (i = 0; i < n; i++) {
         const PendingLine* pl = VG_(indexXA)(fl->pending_lines, i);
         /* >= size if before the code (wraps): dropped */
         lines[i].offset = pl->addr - reg.start - bias;
         lines[i].line   = pl->line;
         lines[i].file   = files + pl->file_off;
      }
      reg.lines   = lines;
      reg.n_lines = n;
   }
   st = ML_(jit_register)(&reg, safe);
   if (lines)
      ML_(dinfo_free)(lines);
   clear_pending(fl);
   if (st == 0 || st >= 64) {
      fl->n_loaded++;
   } else {
      fl->n_refused++;
      if (may_warn(fl))
         VG_(umsg)("Warning: %s:offset %llu: CODE_LOAD %s at %#llx "
                   "(%llu bytes) refused: %s\n", fl->path, where,
                   ld->name, ld->code_addr, ld->code_size,
                   ML_(jit_status_text)(st));
   }
   return True;
}

/* Handles one decoded event.  Returns False if the record must wait for
   a safe point (the caller then restores the reader). */
static Bool handle_jitdump_event ( JitFollower* fl, const JitdumpEvent* ev,
                                   Bool safe )
{
   switch (ev->kind) {
      case JITDUMP_EV_HEADER:
         if (ev->header.pid != (UInt)fl->pid && VG_(clo_verbosity) > 1)
            VG_(umsg)("Warning: %s: header pid %u is not this process "
                      "(%d)\n", fl->path, ev->header.pid, fl->pid);
         return True;
      case JITDUMP_EV_UNKNOWN:
         return True;   /* skipped by its total_size */
      case JITDUMP_EV_BAD_RECORD:
         warn_file(fl, ev->offset, ML_(jitdump_strerror)(ev->error));
         return True;
      case JITDUMP_EV_RECORD:
         break;
      default:
         return True;
   }
   switch (ev->rec.id) {
      case JITDUMP_CODE_LOAD:
         return handle_code_load(fl, &ev->rec.u.load, ev->offset, safe);
      case JITDUMP_CODE_MOVE: {
         Int st;
         if (!safe)
            return False;
         st = ML_(jit_move)((Addr)ev->rec.u.move.old_code_addr,
                            (Addr)ev->rec.u.move.new_code_addr);
         if (st == 0 || st >= 64)
            fl->n_moved++;
         else
            warn_file(fl, ev->offset, "CODE_MOVE of code that is not "
                      "registered (or to a bad address) ignored");
         return True;
      }
      case JITDUMP_CODE_DEBUG_INFO:
         keep_debug_info(fl, &ev->rec.u.debug);
         return True;
      case JITDUMP_CODE_CLOSE:
         stop_following(fl, "CODE_CLOSE");
         return True;
      default:
         return True;   /* CODE_UNWINDING_INFO: not used yet */
   }
}

/*------------------------------------------------------------*/
/*--- perf map                                             ---*/
/*------------------------------------------------------------*/

static Bool handle_perfmap_event ( JitFollower* fl, const PerfmapEvent* ev,
                                   Bool safe )
{
   JitRegistration reg;
   Int st;
   if (ev->kind == PERFMAP_EV_BAD_LINE) {
      warn_file(fl, ev->line, ML_(perfmap_strerror)(ev->error));
      return True;
   }
   if (ev->kind != PERFMAP_EV_ENTRY)
      return True;
   if (!safe && !ML_(jit_range_is_free)((Addr)ev->entry.start,
                                        (SizeT)ev->entry.size))
      return False;
   vg_assert(ev->entry.name_len <= PERFMAP_LINE_MAX);
   VG_(memcpy)(fl->name_buf, ev->entry.name, ev->entry.name_len);
   fl->name_buf[ev->entry.name_len] = 0;
   VG_(memset)(&reg, 0, sizeof(reg));
   reg.start  = (Addr)ev->entry.start;
   reg.size   = (UWord)ev->entry.size;
   reg.name   = fl->name_buf;
   reg.object = fl->path;
   st = ML_(jit_register)(&reg, safe);
   if (st == 0 || st >= 64)
      fl->n_loaded++;
   else
      fl->n_refused++;
   return True;
}

/*------------------------------------------------------------*/
/*--- Reading                                              ---*/
/*------------------------------------------------------------*/

/* Reads what the producer appended since the last call.  Returns True if
   anything was registered. */
static Bool read_follower ( JitFollower* fl, Bool safe )
{
   struct vg_stat st;
   ULong before = fl->n_loaded + fl->n_moved;

   if (fl->done)
      return False;
   if (VG_(fstat)(fl->fd, &st) != 0) {
      stop_following(fl, "fstat failed");
      return False;
   }

   while (!fl->done) {
      ULong  off = reader_offset(fl);
      ULong  avail;
      SizeT  len, pos = 0;
      SysRes sr;

      if (st.size < 0 || (ULong)st.size <= off)
         break;   /* nothing new (or a skip beyond the end so far) */
      avail = (ULong)st.size - off;
      len = avail < fl->buf_cap ? (SizeT)avail : fl->buf_cap;
      sr = VG_(pread)(fl->fd, fl->buf, (Int)len, (OffT)off);
      if (sr_isError(sr) || sr_Res(sr) == 0) {
         stop_following(fl, "read failed");
         break;
      }
      len = sr_Res(sr);

      while (pos < len && !fl->done) {
         if (fl->is_jitdump) {
            JitdumpEvent  ev;
            JitdumpReader saved = fl->jd;
            Int kind = ML_(jitdump_next)(&fl->jd, fl->buf + pos, len - pos,
                                         &ev);
            if (kind == JITDUMP_EV_NEED_MORE) {
               if (pos == 0 && ev.need > len) {
                  if (ev.need > avail)
                     return fl->n_loaded + fl->n_moved > before; /* wait */
                  if (ev.need > fl->buf_cap && ev.need <= BUF_MAX) {
                     ML_(dinfo_free)(fl->buf);
                     fl->buf_cap = ev.need;
                     fl->buf = ML_(dinfo_zalloc)("di.jitfiles.buf",
                                                 fl->buf_cap);
                  } else if (ev.need > fl->buf_cap) {
                     stop_following(fl, "record too large to hold");
                  }
               }
               break;   /* re-read from the reader's offset */
            }
            if (kind == JITDUMP_EV_ERROR) {
               warn_file(fl, ev.offset, ML_(jitdump_strerror)(ev.error));
               stop_following(fl, "unreadable");
               break;
            }
            if (!handle_jitdump_event(fl, &ev, safe)) {
               fl->jd = saved;   /* not consumed: wait for a safe point */
               return fl->n_loaded + fl->n_moved > before;
            }
            if (ev.advance > len - pos)
               break;   /* skipped past the buffer: read again there */
            pos += (SizeT)ev.advance;
         } else {
            PerfmapEvent  ev;
            PerfmapReader saved = fl->pm;
            Int kind = ML_(perfmap_next)(&fl->pm, fl->buf + pos, len - pos,
                                         &ev);
            if (kind == PERFMAP_EV_NEED_MORE) {
               if (pos == 0 && ev.need > avail)
                  return fl->n_loaded > before;   /* a line in progress */
               break;
            }
            if (!handle_perfmap_event(fl, &ev, safe)) {
               fl->pm = saved;
               return fl->n_loaded > before;
            }
            pos += ev.advance;
         }
      }
   }
   return fl->n_loaded + fl->n_moved > before;
}

/* Opens /tmp/perf-<pid>.map once it exists, if --jit-perf-map=yes. */
static void maybe_open_perf_map ( void )
{
   HChar  path[64];
   SysRes sr;
   Int    fd;
   struct vg_stat st;

   if (!VG_(clo_jit_perf_map) || perf_map_open || perf_map_given_up)
      return;
   VG_(sprintf)(path, "/tmp/perf-%d.map", VG_(getpid)());
   sr = VG_(open)(path, VKI_O_RDONLY | JIT_O_NOFOLLOW, 0);
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
   perf_map_open = True;
   (void)new_follower(False, fd, path);
}

static Bool read_all ( Bool safe )
{
   Word i;
   Bool any = False;
   if (followers == NULL || reading)
      return False;
   reading = True;
   for (i = 0; i < VG_(sizeXA)(followers); i++)
      any |= read_follower(*(JitFollower**)VG_(indexXA)(followers, i), safe);
   reading = False;
   return any;
}

void VG_(jit_poll_producer_files) ( void )
{
   if (reading)
      return;
   maybe_open_perf_map();
   /* Translations made before names arrived go first, then new names
      (which discard what they cover themselves). */
   reading = True;
   ML_(jit_at_safe_point)();
   reading = False;
   (void)read_all(True);
}

/* A perf map's last line without its '\n' (a producer that exited
   without finishing it): parsed as a complete line. */
static void finish_perf_map ( JitFollower* fl )
{
   struct vg_stat st;
   PerfmapEvent   ev;
   SysRes         sr;
   ULong          avail;
   SizeT          len;

   if (fl->done || fl->is_jitdump || VG_(fstat)(fl->fd, &st) != 0
       || st.size < 0 || (ULong)st.size <= fl->pm.offset)
      return;
   avail = (ULong)st.size - fl->pm.offset;
   len = avail < fl->buf_cap ? (SizeT)avail : fl->buf_cap;
   sr = VG_(pread)(fl->fd, fl->buf, (Int)len, (OffT)fl->pm.offset);
   if (sr_isError(sr) || sr_Res(sr) == 0)
      return;
   len = sr_Res(sr);
   if (ML_(perfmap_finish)(&fl->pm, fl->buf, len, &ev)
       != PERFMAP_EV_NEED_MORE)
      (void)handle_perfmap_event(fl, &ev, True);
}

void ML_(jit_read_files_to_end) ( void )
{
   Word i;
   if (reading)
      return;
   maybe_open_perf_map();
   reading = True;
   ML_(jit_at_safe_point)();
   reading = False;
   (void)read_all(True);
   reading = True;
   for (i = 0; followers && i < VG_(sizeXA)(followers); i++)
      finish_perf_map(*(JitFollower**)VG_(indexXA)(followers, i));
   reading = False;
}

Bool ML_(jit_read_on_lookup_miss) ( Addr a )
{
   const NSegment* seg;
   if (reading || (followers == NULL && !VG_(clo_jit_perf_map))
       || ML_(jit_is_exiting)())   /* read to their end already */
      return False;
   seg = VG_(am_find_nsegment)(a);
   if (seg == NULL || !seg->hasX
       || !(seg->kind == SkAnonC || seg->kind == SkFileC
            || seg->kind == SkShmC))
      return False;
   maybe_open_perf_map();
   return read_all(False);
}

/* Is `base` (a path's last component) "jit-<digits>.dump"?  Sets *pid. */
static Bool is_jitdump_name ( const HChar* base, /*OUT*/Int* pid )
{
   const HChar* p;
   Int v = 0, n = 0;
   if (VG_(strncmp)(base, "jit-", 4) != 0)
      return False;
   for (p = base + 4; *p >= '0' && *p <= '9'; p++, n++) {
      if (n >= 9)
         return False;
      v = v * 10 + (*p - '0');
   }
   if (n == 0 || VG_(strcmp)(p, ".dump") != 0)
      return False;
   *pid = v;
   return True;
}

void ML_(jit_notify_mapped_file) ( const HChar* filename )
{
   const HChar* base;
   Int    pid, fd;
   UInt   magic = 0;
   SysRes sr;
   Word   i;

   if (!VG_(clo_jit_dump) || filename == NULL)
      return;
   base = VG_(strrchr)(filename, '/');
   base = base ? base + 1 : filename;
   if (!is_jitdump_name(base, &pid))
      return;
   if (pid != VG_(getpid)()) {
      if (VG_(clo_verbosity) > 1)
         VG_(umsg)("JIT: %s names another process: not followed\n",
                   filename);
      return;
   }
   for (i = 0; followers && i < VG_(sizeXA)(followers); i++) {
      JitFollower* fl = *(JitFollower**)VG_(indexXA)(followers, i);
      if (!fl->done && VG_(strcmp)(fl->path, filename) == 0)
         return;   /* mapped again: already followed */
   }
   sr = VG_(open)(filename, VKI_O_RDONLY, 0);
   if (sr_isError(sr))
      return;
   fd = VG_(safe_fd)(sr_Res(sr));
   /* Producers may map the file before writing its header (V8 does):
      a file too short to hold the magic is followed, and the reader
      checks the header when it arrives. */
   sr = VG_(pread)(fd, &magic, sizeof(magic), 0);
   if (sr_isError(sr)
       || (sr_Res(sr) == sizeof(magic)
           && magic != JITDUMP_MAGIC && magic != JITDUMP_MAGIC_SWAPPED)) {
      VG_(close)(fd);
      return;
   }
   if (magic == JITDUMP_MAGIC_SWAPPED) {
      VG_(umsg)("Warning: %s was written in the other byte order: "
                "not followed\n", filename);
      VG_(close)(fd);
      return;
   }
   (void)new_follower(True, fd, filename);
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
