/* Compiles the shared jitdump reader into this directory's programs.  The
   source lives in the core patch tree (coregrind-patch/files/coregrind/
   m_debuginfo/, on the include path) so that Valgrind's core and user space
   build the very same code; including it here keeps the object file in
   this build directory instead of the patch tree. */
#include "readjitdump.c"
