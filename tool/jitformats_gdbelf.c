/* Compiles the shared rules for the ELF objects of the GDB JIT interface
   into this directory's programs (see jitformats_jitdump.c for why it is
   included rather than listed). */
#include "readgdbelf.c"
