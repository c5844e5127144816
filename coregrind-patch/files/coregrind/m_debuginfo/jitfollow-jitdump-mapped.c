/*--------------------------------------------------------------------*/
/*--- Following jitdump files: noticing the files the client       ---*/
/*--- maps, by name or by header.       jitfollow-jitdump-mapped.c ---*/
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

/* The jitdump files to follow are found when the client maps them
   (ML_(jit_notify_mapped_file), from VG_(di_notify_mmap)): a file named
   jit-<pid>.dump for this process, or one mapped executable under
   another name whose whole jitdump header carries this pid; a file
   mapped while too short to hold a header is a candidate, looked at
   again by the jitdump format's discover operation.  What a followed
   file's records say is decoded in jitfollow-jitdump.c. */

#include "pub_core_basics.h"
#include "pub_core_vki.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_libcfile.h"
#include "pub_core_libcproc.h"
#include "pub_core_options.h"
#include "pub_core_xarray.h"

#include "priv_misc.h"           /* dinfo_zalloc/free/strdup */
#include "priv_readjitdump.h"    /* the shared reader */
#include "priv_jitreg.h"
#include "priv_jitfollow.h"

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

/* What the first bytes of the regular file open as fd say, through the
   shared reader: JITDUMP_EV_HEADER (*h set), JITDUMP_EV_ERROR (*err
   set: not a jitdump file, or one this reader refuses), or
   JITDUMP_EV_NEED_MORE (the file is shorter than its header; *have:
   the bytes there are). */
static Int peek_header ( Int fd, /*OUT*/JitdumpHeader* h, /*OUT*/Int* err,
                         /*OUT*/SizeT* have, /*OUT*/HChar* why,
                         SizeT why_size )
{
   static UChar  buf[1024];
   JitdumpReader r;
   JitdumpEvent  ev;
   Int           kind;
   SysRes        sr = VG_(pread)(fd, buf, sizeof(buf), 0);
   *have = sr_isError(sr) ? 0 : sr_Res(sr);
   ML_(jitdump_init)(&r, 0);
   kind = ML_(jitdump_next)(&r, buf, *have, &ev);
   if (kind == JITDUMP_EV_HEADER)
      *h = ev.header;
   else if (kind == JITDUMP_EV_ERROR) {
      *err = ev.error;
      if (why != NULL)
         (void)ML_(jitdump_describe)(&r, &ev, why, why_size);
   } else
      kind = JITDUMP_EV_NEED_MORE;
   return kind;
}

/* Opens path read-only if it is a regular file; -1 if not. */
static Int open_regular ( const HChar* path )
{
   struct vg_stat st;
   Int    fd;
   SysRes sr = VG_(open)(path, VKI_O_RDONLY, 0);
   if (sr_isError(sr))
      return -1;
   fd = VG_(safe_fd)(sr_Res(sr));
   if (VG_(fstat)(fd, &st) != 0 || !VKI_S_ISREG(st.mode)) {
      VG_(close)(fd);
      return -1;
   }
   return fd;
}

/* Files mapped executable under another name than jit-<pid>.dump while
   too short to hold a jitdump header: JavaScriptCore (Bun, WebKit)
   opens jit-<tid>-<pid>.dump, maps it while it is still empty, and only
   then writes the header.  Each is looked at again whenever the files
   are polled or read after a client system call completed (a file
   grows only through one), and at exit, until it holds a header: then
   followed if the header is this process's, else forgotten.  At most
   MAX_CANDIDATES (the oldest make room); silent, as perf is about files
   that are no jitdumps. */
#define MAX_CANDIDATES 16

typedef
   struct {
      Int    fd;
      HChar* path;   /* owned */
   }
   Candidate;

static XArray* candidates = NULL;        /* of Candidate, oldest first */
static ULong   syscalls_at_check = ~0ULL;

static void drop_candidate ( Word i, Bool close_fd )
{
   Candidate* c = VG_(indexXA)(candidates, i);
   if (close_fd)
      VG_(close)(c->fd);
   ML_(dinfo_free)(c->path);
   VG_(removeIndexXA)(candidates, i);
}

static Bool is_candidate ( const HChar* filename )
{
   Word i;
   for (i = 0; candidates != NULL && i < VG_(sizeXA)(candidates); i++)
      if (VG_(strcmp)(((Candidate*)VG_(indexXA)(candidates, i))->path,
                      filename) == 0)
         return True;
   return False;
}

/* What fd (of filename) holds: followed if a jitdump header of this
   process, True if it must be looked at again (too short yet); fd is
   the follower's or closed when False is returned for anything else. */
static Bool follow_if_ours ( Int fd, const HChar* filename )
{
   JitdumpHeader h;
   Int           err = 0;
   SizeT         have;
   Int           kind = peek_header(fd, &h, &err, &have, NULL, 0);
   if (kind == JITDUMP_EV_NEED_MORE)
      return True;
   if (kind != JITDUMP_EV_HEADER || h.pid != (UInt)VG_(getpid)()) {
      VG_(close)(fd);
      return False;
   }
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit: %s is a jitdump file of this process (found by its"
                " header)\n", filename);
   (void)ML_(jit_follow)(&ML_(jit_jitdump_ops), fd, filename);
   return False;
}

/* A file mapped executable under another name than jit-<pid>.dump (Bun
   writes jit-<N>-<pid>.dump, other producers add prefixes or use other
   directories): followed if it holds a whole jitdump header for this
   process, a candidate while it is too short to hold one, else ignored
   without a word, as perf does. */
static void follow_by_content ( const HChar* filename )
{
   Candidate c;
   Int       fd;
   if (ML_(jit_is_followed)(filename) || is_candidate(filename))
      return;
   fd = open_regular(filename);
   if (fd < 0 || !follow_if_ours(fd, filename))
      return;
   if (candidates == NULL)
      candidates = VG_(newXA)(ML_(dinfo_zalloc), "di.jitfollow.candidates",
                              ML_(dinfo_free), sizeof(Candidate));
   if (VG_(sizeXA)(candidates) >= MAX_CANDIDATES)
      drop_candidate(0, True);
   c.fd   = fd;
   c.path = ML_(dinfo_strdup)("di.jitfollow.candidate", filename);
   VG_(addToXA)(candidates, &c);
   syscalls_at_check = ~0ULL;
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit: %s is too short for a jitdump header yet: looked at"
                " again\n", filename);
}

void ML_(jit_jitdump_discover) ( void )
{
   Word i;
   if (candidates == NULL || VG_(sizeXA)(candidates) == 0
       || (syscalls_at_check == ML_(jit_client_syscalls)
           && !ML_(jit_is_exiting)()))
      return;
   syscalls_at_check = ML_(jit_client_syscalls);
   for (i = 0; i < VG_(sizeXA)(candidates); ) {
      Candidate c = *(Candidate*)VG_(indexXA)(candidates, i);
      if (follow_if_ours(c.fd, c.path)) {
         i++;
         continue;
      }
      drop_candidate(i, False);   /* fd followed or closed */
   }
}

Bool ML_(jit_jitdump_discovering) ( void )
{
   return candidates != NULL && VG_(sizeXA)(candidates) > 0;
}

/* The candidates describe the parent. */
void ML_(jit_jitdump_forked) ( void )
{
   while (candidates != NULL && VG_(sizeXA)(candidates) > 0)
      drop_candidate(VG_(sizeXA)(candidates) - 1, True);
}

void ML_(jit_notify_mapped_file) ( const HChar* filename, Bool exec )
{
   HChar         why[200];
   const HChar*  base;
   Int           pid, fd, err = 0;
   SizeT         have;
   JitdumpHeader h;

   if (!VG_(clo_jit_dump) || filename == NULL)
      return;
   base = VG_(strrchr)(filename, '/');
   base = base ? base + 1 : filename;
   if (!is_jitdump_name(base, &pid)) {
      if (exec)
         follow_by_content(filename);
      return;
   }
   if (pid != VG_(getpid)()) {
      if (VG_(clo_verbosity) > 1)
         VG_(umsg)("JIT: %s names another process: not followed\n",
                   filename);
      return;
   }
   if (ML_(jit_is_followed)(filename))
      return;   /* mapped again: already followed */
   fd = open_regular(filename);
   if (fd < 0) {
      if (VG_(clo_verbosity) > 1)
         VG_(umsg)("Warning: %s: not a regular file that can be read:"
                   " not followed\n", filename);
      return;
   }
   /* Producers may map the file before writing its header (V8 does):
      a file too short to hold the header is followed, and the reader
      checks the header when it arrives. */
   if (peek_header(fd, &h, &err, &have, why, sizeof(why))
       == JITDUMP_EV_ERROR) {
      if (VG_(clo_verbosity) > 1 || err == JITDUMP_ERR_FOREIGN_BYTE_ORDER)
         VG_(umsg)("Warning: %s: %s: not followed\n", filename, why);
      VG_(close)(fd);
      return;
   }
   (void)ML_(jit_follow)(&ML_(jit_jitdump_ops), fd, filename);
}

/*--------------------------------------------------------------------*/
/*--- end                               jitfollow-jitdump-mapped.c ---*/
/*--------------------------------------------------------------------*/
