// hostile_client: the client of the hostile campaign (hostile_campaign.cpp).
// It hands Valgrind a batch of mutated inputs, one after the other, runs
// the code they describe after each, and ends normally: the campaign
// checks that its exit status and its stdout under Valgrind are those of a
// native run.
//
// Usage: hostile_client LIST
// LIST has one case a line, "ID KIND TEXT ENTRY INPUT ARG":
//   ID     the case's name, echoed on stdout
//   TEXT   a file holding the .text of a seed object (code that needs no
//          relocation, see fixtures/hostile/seed.c), copied to fresh code
//          memory; ENTRY the offset of hz_entry in it
//   INPUT  the mutated bytes
//   KIND   gdb     INPUT is an ELF object for the GDB JIT interface; ARG
//                  the file offset of the sh_addr field of its .text
//                  header, where the code's address is stored before
//                  registering it (-1: left as the mutation made it)
//          clreq   INPUT is .eh_frame bytes for VALGRIND_JIT_REGISTER_CODE
//                  of the code (eh_frame_addr: the code's end rounded up
//                  to 8 bytes); ARG unused
//          jitdump INPUT is the payload of a jitdump CODE_UNWINDING_INFO
//                  record, written before the CODE_LOAD of the code into
//                  jit-<pid>.dump in the working directory; ARG unused.
//                  All jitdump cases of the list go into one file, mapped
//                  once their code is in place.
// Each case's code is called as hz_entry(callback, 3) after its input is
// handed in; the callback allocates and frees a block (so tools take
// stack traces through the code) and, for Memcheck, branches on
// uninitialised memory.  stdout gets "ID = VALUE" per case and "done N";
// the exit status is kExitStatus.  Registration statuses go to stderr.

#include <valgrind/jit.h>
#include "jitdump_builder.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gdb_jit_interface.hpp"

extern "C" {

// Called by the jitted code: a heap block whose allocation and release
// take stack traces through it.
__attribute__((noinline)) unsigned long hostile_callback(unsigned long x) {
    auto* p = static_cast<volatile unsigned long*>(std::malloc(16 + (x % 7) * 8));
    if (!p) std::abort();
    p[0] = x * 3 + 1;
    unsigned long r = p[0];
    // p[1] was never written: Memcheck reports the branch with a stack
    // trace through the jitted code (symbols, lines, inlined calls).
    static volatile int sink;
    if (p[1] == 42) sink = sink + 1;
    std::free(const_cast<unsigned long*>(p));
    return r;
}

}  // extern "C"

namespace {

/// The exit status of a run that ended normally.
constexpr int kExitStatus = 57;
/// Code memory of one case.
constexpr std::size_t kCodeBytes = 1 << 16;

using Entry = unsigned long (*)(unsigned long (*)(unsigned long), unsigned long);

std::vector<char> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Case {
    std::string id, kind, text_path, input_path;
    std::size_t entry = 0;
    long long arg = -1;
};

/// Fresh code memory holding `text`, executable.
char* place_code(const std::vector<char>& text) {
    if (text.empty() || text.size() > kCodeBytes) throw std::runtime_error("bad text size");
    void* p = mmap(nullptr, kCodeBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
    std::memcpy(p, text.data(), text.size());
    if (mprotect(p, kCodeBytes, PROT_READ | PROT_EXEC) != 0)
        throw std::runtime_error("mprotect failed");
    return static_cast<char*>(p);
}

void run_code(const Case& c, char* code) {
    auto f = reinterpret_cast<Entry>(code + c.entry);
    std::printf("%s = %lu\n", c.id.c_str(), f(&hostile_callback, 3));
    std::fflush(stdout);
}

void gdb_case(const Case& c, const std::vector<char>& text) {
    static jit_code_entry entry;
    char* code = place_code(text);
    std::vector<char> image = read_file(c.input_path);
    if (c.arg >= 0 && static_cast<std::size_t>(c.arg) + 8 <= image.size()) {
        const std::uint64_t addr = reinterpret_cast<std::uintptr_t>(code);
        std::memcpy(image.data() + c.arg, &addr, 8);
    }
    entry = {nullptr, nullptr, image.data(), image.size()};
    __jit_debug_descriptor.first_entry = &entry;
    __jit_debug_descriptor.relevant_entry = &entry;
    __jit_debug_descriptor.action_flag = JIT_REGISTER_FN;
    __jit_debug_register_code();
    run_code(c, code);
    __jit_debug_descriptor.first_entry = nullptr;
    __jit_debug_descriptor.relevant_entry = &entry;
    __jit_debug_descriptor.action_flag = JIT_UNREGISTER_FN;
    __jit_debug_register_code();
    munmap(code, kCodeBytes);
}

void clreq_case(const Case& c, const std::vector<char>& text) {
    char* code = place_code(text);
    std::vector<char> eh = read_file(c.input_path);
    VgJitCode d = VG_JIT_CODE_INITIALIZER;
    d.start = code;
    d.size = text.size();
    d.name = "hz_entry";
    d.object = "hostile";
    d.unwind_kind = VG_JIT_UNWIND_EH_FRAME;
    d.eh_frame = eh.data();
    d.eh_frame_size = eh.size();
    d.eh_frame_addr = code + ((text.size() + 7) & ~std::size_t{7});
    const unsigned long ret = VALGRIND_JIT_REGISTER_CODE(&d);
    std::fprintf(stderr, "status %s %lu %d\n", c.id.c_str(), ret,
                 static_cast<int>(VALGRIND_JIT_LAST_ERROR()));
    run_code(c, code);
    VALGRIND_JIT_UNREGISTER(code);
    munmap(code, kCodeBytes);
}

/// All jitdump cases: one file, a CODE_UNWINDING_INFO record (the case's
/// payload) before each CODE_LOAD, mapped when complete; then each
/// case's code runs.
void jitdump_cases(const std::vector<const Case*>& cases,
                   std::map<std::string, std::vector<char>>& texts) {
    if (cases.empty()) return;
    const std::uint32_t pid = static_cast<std::uint32_t>(getpid());
    jitdump_test::JitdumpBuilder b;
    b.header(1, pid);
    std::vector<char*> codes;
    std::uint64_t ts = 100, index = 0;
    for (const Case* c : cases) {
        const std::vector<char>& text = texts.at(c->text_path);
        char* code = place_code(text);
        codes.push_back(code);
        std::vector<char> payload = read_file(c->input_path);
        b.record(4, ts++, std::vector<unsigned char>(payload.begin(), payload.end()));
        b.code_load(reinterpret_cast<std::uintptr_t>(code), text.size(), "hz_entry_" + c->id,
                    index++, ts++, pid, pid, std::vector<unsigned char>(text.begin(), text.end()));
    }
    const std::string path = "jit-" + std::to_string(pid) + ".dump";
    const int fd = open(path.c_str(), O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (fd < 0) throw std::runtime_error("cannot create " + path);
    if (write(fd, b.bytes.data(), b.bytes.size()) != static_cast<ssize_t>(b.bytes.size()))
        throw std::runtime_error("cannot write " + path);
    // Producers map the file so that profilers notice it.
    if (mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
        throw std::runtime_error("cannot map " + path);
    // The follower reads the file at its next time slice: run other code
    // first, as a JIT would.
    for (int i = 0; i < 1000000; ++i) asm volatile("" ::: "memory");
    for (std::size_t i = 0; i < cases.size(); ++i) run_code(*cases[i], codes[i]);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: hostile_client LIST\n");
        return 2;
    }
    try {
        std::ifstream list(argv[1]);
        if (!list) throw std::runtime_error(std::string("cannot read ") + argv[1]);
        std::vector<Case> cases;
        std::string line;
        while (std::getline(list, line)) {
            if (line.empty() || line[0] == '#') continue;
            std::istringstream in(line);
            Case c;
            if (!(in >> c.id >> c.kind >> c.text_path >> c.entry >> c.input_path >> c.arg))
                throw std::runtime_error("bad list line: " + line);
            cases.push_back(c);
        }
        std::map<std::string, std::vector<char>> texts;
        for (const Case& c : cases)
            if (!texts.count(c.text_path)) texts[c.text_path] = read_file(c.text_path);
        std::vector<const Case*> jitdump;
        for (const Case& c : cases) {
            if (c.kind == "gdb")
                gdb_case(c, texts.at(c.text_path));
            else if (c.kind == "clreq")
                clreq_case(c, texts.at(c.text_path));
            else if (c.kind == "jitdump")
                jitdump.push_back(&c);
            else
                throw std::runtime_error("unknown kind " + c.kind);
        }
        jitdump_cases(jitdump, texts);
        std::printf("done %zu\n", cases.size());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hostile_client: %s\n", e.what());
        return 2;
    }
    std::fflush(stdout);
    return kExitStatus;
}
