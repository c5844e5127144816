/* Regression test of the files JITs write for Linux perf: a jitdump file
   (/tmp/jit-<pid>.dump, announced by mapping it executable, as perf's
   jitdump specification asks) and a perf map (/tmp/perf-<pid>.map, read
   with --jit-perf-map=yes).  Each names one function that reads an
   uninitialised value, so Memcheck's errors name them: jitdump_branch
   and perfmap_branch. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

/* The jitdump layout as the core's reader names it, and its byte
   writer. */
#include "../../coregrind/m_debuginfo/priv_readjitdump.h"
#include "../../coregrind/m_debuginfo/priv_jitbytes.h"

#if defined(__x86_64__)
/* int f(const int* p): return *p ? 1 : 2 */
static const unsigned char code_bytes[] = {
   0x8b, 0x07,                    /* mov  (%rdi),%eax   */
   0x85, 0xc0,                    /* test %eax,%eax     */
   0x74, 0x06,                    /* je   +6            */
   0xb8, 0x01, 0x00, 0x00, 0x00,  /* mov  $1,%eax       */
   0xc3,                          /* ret                */
   0xb8, 0x02, 0x00, 0x00, 0x00,  /* mov  $2,%eax       */
   0xc3                           /* ret                */
};

/* Sets the `width`-byte field at offset `at` of buf in host byte order. */
static void set(unsigned char* buf, unsigned at, unsigned width, uint64_t v)
{
   jitformats_st(buf + at, width, v, jitformats_host_big_endian());
}

/* Writes a jitdump file with its header and one code load record for
   `name` at `code` (perf's tools/perf/Documentation/jitdump-specification.txt,
   version 1, host byte order), each field at the offset the core's reader
   names (priv_readjitdump.h); returns the file's size, or -1. */
static long write_jitdump(const char* path, const unsigned char* code,
                          const char* name)
{
   unsigned char buf[512];
   unsigned char* rec = buf + JITDUMP_HEADER_SIZE;
   uint32_t pid = (uint32_t)getpid();
   size_t name_size = strlen(name) + 1;
   uint32_t rec_size = JITDUMP_CODE_LOAD_FIXED + (uint32_t)name_size
                       + sizeof code_bytes;
   long size = JITDUMP_HEADER_SIZE + (long)rec_size;
   FILE* f;

   if (size > (long)sizeof buf)
      return -1;
   memset(buf, 0, sizeof buf);
   set(buf, JITDUMP_HDR_MAGIC, 4, JITDUMP_MAGIC);
   set(buf, JITDUMP_HDR_VERSION, 4, 1);
   set(buf, JITDUMP_HDR_TOTAL_SIZE, 4, JITDUMP_HEADER_SIZE);
   set(buf, JITDUMP_HDR_ELF_MACH, 4, 62);   /* EM_X86_64 */
   set(buf, JITDUMP_HDR_PID, 4, pid);

   set(rec, JITDUMP_REC_ID, 4, JITDUMP_CODE_LOAD);
   set(rec, JITDUMP_REC_TOTAL_SIZE, 4, rec_size);
   set(rec, JITDUMP_REC_TIMESTAMP, 8, 1);
   set(rec, JITDUMP_LOAD_PID, 4, pid);
   set(rec, JITDUMP_LOAD_TID, 4, pid);
   set(rec, JITDUMP_LOAD_VMA, 8, (uint64_t)(uintptr_t)code);
   set(rec, JITDUMP_LOAD_CODE_ADDR, 8, (uint64_t)(uintptr_t)code);
   set(rec, JITDUMP_LOAD_CODE_SIZE, 8, sizeof code_bytes);
   set(rec, JITDUMP_LOAD_CODE_INDEX, 8, 0);
   memcpy(rec + JITDUMP_CODE_LOAD_FIXED, name, name_size);
   memcpy(rec + JITDUMP_CODE_LOAD_FIXED + name_size, code_bytes,
          sizeof code_bytes);

   f = fopen(path, "wb");
   if (f == NULL)
      return -1;
   if (fwrite(buf, 1, (size_t)size, f) != (size_t)size) {
      fclose(f);
      return -1;
   }
   if (fclose(f) != 0)
      return -1;
   return size;
}
#endif

int main(void)
{
#if defined(__x86_64__)
   unsigned char* code;
   int (*fn_dump)(const int*);
   int (*fn_map)(const int*);
   int* uninit;
   char dump_path[64], map_path[64];
   void* marker;
   long size;
   int fd;
   FILE* f;

   code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   if (code == MAP_FAILED) {
      perror("mmap");
      return 1;
   }
   memcpy(code, code_bytes, sizeof code_bytes);
   memcpy(code + 64, code_bytes, sizeof code_bytes);
   fn_dump = (int (*)(const int*))(void*)code;
   fn_map = (int (*)(const int*))(void*)(code + 64);
   uninit = malloc(sizeof *uninit);

   /* The jitdump file, then its executable mapping (the marker). */
   snprintf(dump_path, sizeof dump_path, "/tmp/jit-%d.dump", (int)getpid());
   size = write_jitdump(dump_path, code, "jitdump_branch");
   if (size < 0) {
      perror(dump_path);
      return 1;
   }
   fd = open(dump_path, O_RDONLY);
   marker = fd < 0 ? MAP_FAILED
                   : mmap(NULL, (size_t)size, PROT_READ | PROT_EXEC,
                          MAP_PRIVATE, fd, 0);
   if (marker == MAP_FAILED) {
      perror(dump_path);
      unlink(dump_path);
      return 1;
   }
   printf("jitdump call: %d\n", fn_dump(uninit) > 0);

   /* The perf map: "START SIZE name", hexadecimal. */
   snprintf(map_path, sizeof map_path, "/tmp/perf-%d.map", (int)getpid());
   f = fopen(map_path, "w");
   if (f == NULL) {
      perror(map_path);
      unlink(dump_path);
      return 1;
   }
   fprintf(f, "%lx %lx perfmap_branch\n", (unsigned long)(uintptr_t)(code + 64),
           (unsigned long)sizeof code_bytes);
   fclose(f);
   printf("perf map call: %d\n", fn_map(uninit) > 0);

   free(uninit);
   munmap(marker, (size_t)size);
   close(fd);
   unlink(dump_path);
   unlink(map_path);
   munmap(code, 4096);
#endif
   return 0;
}
