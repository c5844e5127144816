// hostile_campaign.hpp: what the files of the hostile campaign share (the
// program is described in hostile_campaign.cpp): its options, random
// numbers, the mutation primitives, the ELF objects and seeds, the cases,
// and the campaign that runs them.
#pragma once

#include <elf.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "byte_io.hpp"

namespace hostile {

namespace fs = std::filesystem;

using Bytes = std::vector<std::uint8_t>;
using byte_io::get_le;
using byte_io::put_le;

/// Cases per block: a block has one family and one tool.
constexpr std::uint64_t kBlock = 20;
/// The client's exit status when it ends normally (hostile_client.cpp).
constexpr int kClientExit = 57;

/// The tools a campaign rotates over, by default all of them.
inline const std::vector<std::string> kAllTools = {
    "memcheck", "callgrind", "cachegrind", "helgrind", "drd", "massif", "dhat", "none"};
/// The family of each block, in turn (objects have the most to mutate).
inline const std::vector<std::string> kFamilyCycle = {"gdb", "clreq", "gdb", "jitdump", "gdb"};

/// The command line's settings (usage() in hostile_campaign.cpp).
struct Options {
    std::uint64_t seed = 1;
    std::uint64_t first = 0;
    std::uint64_t cases = 3000;
    unsigned jobs = 2;
    std::uint64_t batch = kBlock;
    unsigned timeout = 120;
    std::vector<std::string> tools = kAllTools;
    std::set<std::string> families = {"gdb", "clreq", "jitdump"};
    std::string out = "hostile-out";
    std::string repro;  // default: OUT/repro
    std::string valgrind, client, srcdir;
    std::string cc = "gcc", clang = "clang-14";
    std::string known;
    std::vector<std::string> replay;
    bool verbose = false;
    bool keep = false;
    bool dry_run = false;
    bool strict_readers = false;
};

/// `v` in hexadecimal with a 0x prefix.
inline std::string hex(std::uint64_t v) {
    char b[32];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

/// The bytes of the file `p`; throws if it cannot be read.
inline Bytes read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The file `p` as text; throws if it cannot be read.
inline std::string read_text(const fs::path& p) {
    Bytes b = read_file(p);
    return std::string(b.begin(), b.end());
}

/// Writes `b` as the whole of the file `p`; throws if it cannot.
inline void write_file(const fs::path& p, const Bytes& b) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    if (!out) throw std::runtime_error("cannot write " + p.string());
}

/// Writes `s` as the whole of the file `p`; throws if it cannot.
inline void write_text(const fs::path& p, const std::string& s) {
    write_file(p, Bytes(s.begin(), s.end()));
}

// ---------------------------------------------------------------------
// Random numbers: splitmix64 (the same sequence on every platform).

struct Rng {
    std::uint64_t s;
    explicit Rng(std::uint64_t seed) : s(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform-enough in [0, n), n > 0.
    std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
    bool chance(unsigned percent) { return below(100) < percent; }
};

// ---------------------------------------------------------------------
// The mutation primitives (hostile_mutator.cpp).

/// Reads a ULEB128 at `at` (advanced past it); false past the end.
bool uleb(const Bytes& b, std::size_t& at, std::size_t end, std::uint64_t* v);
/// Appends `v` as a ULEB128.
void put_uleb(Bytes& out, std::uint64_t v);
/// Appends `v` as an SLEB128.
void put_sleb(Bytes& out, std::int64_t v);

/// Describing a mutation as it is applied: each change to `b`, drawn from
/// `r`, adds its text to `desc`.
struct Mutator {
    Bytes& b;
    Rng& r;
    std::string desc;
    /// Adds `s` to the description ("; " between the parts).
    void note(const std::string& s);
    /// Writes an interesting value into the field [at, at+width) named `what`.
    void field(std::size_t at, int width, std::uint64_t region, const std::string& what);
    /// Flips 1 to 4 random bits in [lo, hi), the region named `where`.
    void flip(std::size_t lo, std::size_t hi, const std::string& where);
    /// Writes 1 to 16 random bytes at a random place of [lo, hi).
    void random_bytes(std::size_t lo, std::size_t hi, const std::string& where);
    /// Writes an interesting value of 1, 2, 4 or 8 bytes at a random place
    /// of [lo, hi).
    void interesting_at(std::size_t lo, std::size_t hi, const std::string& where);
    /// Cuts the buffer at `at` (nothing when `at` is not inside it).
    void truncate(std::size_t at);
};

// ---------------------------------------------------------------------
// CFI (hostile_cfi.cpp).

/// A fixed-width field of a record, at a file offset.
struct CfiField {
    std::size_t at;
    int width;
    std::string name;
};

/// One mutation of the CFI section at [lo, hi): `eh` for .eh_frame, else
/// .debug_frame; `where` names the section in the description.
void mutate_cfi(Mutator& m, std::size_t lo, std::size_t hi, bool eh, const std::string& where);
/// One mutation of .eh_frame bytes (clreq, jitdump).
void mutate_eh_frame(Mutator& m);
/// A jitdump CODE_UNWINDING_INFO payload for `eh`: unwinding_size,
/// eh_frame_hdr_size, mapped_size, the .eh_frame and an .eh_frame_hdr,
/// padded to 8 bytes.
Bytes unwinding_payload(const Bytes& eh, std::size_t code_size);

// ---------------------------------------------------------------------
// ELF objects (hostile_elf.cpp).

struct Section {
    std::string name;
    std::size_t index = 0;
    Elf64_Shdr sh{};
    std::size_t hdr_at = 0;  // file offset of its header
};

struct Elf {
    Elf64_Ehdr eh{};
    std::vector<Section> sections;
    const Section* find(const std::string& n) const {
        for (const Section& s : sections)
            if (s.name == n) return &s;
        return nullptr;
    }
};

/// The ELF header and section headers of a relocatable 64-bit object;
/// throws if `b` is no such object.
Elf parse_elf(const Bytes& b);
/// The data of section `s`, or empty for SHT_NOBITS.
std::pair<std::size_t, std::size_t> data_range(const Section& s, std::size_t file_size);
/// One mutation of an object image (the .text header's sh_addr holds 0:
/// the client stores the code's address there): the operator is the
/// stream's next number below 16, as make_case's cases were numbered with
/// it.
void mutate_object(Mutator& m);

// ---------------------------------------------------------------------
// Seeds and cases (hostile_cases.cpp).

struct Seed {
    std::string name;                 // e.g. gcc-dw5-O2-eh
    fs::path object;                  // the compiled object
    Bytes image;                      // the object
    Bytes text;                       // its .text
    std::size_t entry = 0;            // hz_entry's offset in .text
    std::size_t text_addr_field = 0;  // file offset of .text's sh_addr
    Bytes eh_frame;                   // .eh_frame resolved for the code (clreq, jitdump)
    fs::path text_path;
};

struct Case {
    std::uint64_t number = 0;
    std::string family, tool, seed, mutation;
    std::string id() const { return family + ":" + std::to_string(number); }
    Bytes input;
    const Seed* s = nullptr;
    long long arg = -1;
};

struct Seeds {
    std::vector<Seed> objects;    // gdb
    std::vector<const Seed*> eh;  // clreq, jitdump: distinct .eh_frames
};

/// Compiles the seed objects into DIR; a compiler that is missing is
/// skipped with a note.
Seeds build_seeds(const Options& o, const fs::path& dir);
/// The family of case `n` (its block's).
std::string family_of(std::uint64_t n);
/// Case `n` of the campaign: a function of the campaign seed and `n`
/// alone (its family, tool, seed object and mutation).
Case make_case(const Options& o, const Seeds& seeds, std::uint64_t n);

// ---------------------------------------------------------------------
// The campaign: runs, failures, reproducers (hostile_runs.cpp).

struct Failure {
    std::string id, tool, seed, mutation, signature, repro, known;
};

/// The state of one campaign: its options, seeds and expected failures,
/// what it has found, and its counts; the batches run on several threads.
struct Campaign {
    Options o;
    Seeds seeds;
    std::set<std::string> known;
    std::mutex mu;
    std::vector<Failure> failures;
    std::set<std::string> passed_known;
    std::atomic<std::uint64_t> runs{0}, passed{0}, total{0};

    /// The command that runs the client's `list` under `tool`.
    std::vector<std::string> valgrind_argv(const std::string& tool, const std::string& list) const;
    /// Writes the batch's inputs and list into `dir`.
    void write_cases(const std::vector<Case>& cases, const fs::path& dir) const;
    /// Runs the list in `dir` natively and under `tool`; the failure's
    /// signature or "".
    std::string run_list(const fs::path& dir, const std::string& tool, std::string* log);
    /// Saves a reproducer of `c` under the repro directory: its files, the
    /// tool, Valgrind's output and run.sh.
    std::string save_repro(const Case& c, const fs::path& from, const std::string& sig) const;
    /// Counts and prints the failure of `c` (FAIL, or XFAIL when --known
    /// lists it).
    void record(const Case& c, const std::string& sig, const std::string& repro,
                const std::string& stack);
    /// Runs the batch numbered `index`; a batch that fails is run again in
    /// halves (bisect) to name its culprits.
    void run_batch(const std::vector<Case>& batch, std::size_t index);
    /// Runs each half of `cases` (more than one) in its own process and
    /// each failing half's halves, down to single cases, which are
    /// recorded.  False if no case failed.
    bool bisect(const std::vector<Case>& cases, const fs::path& dir);
    /// Notes that the case `id` passed if --known lists it.
    void note_passed(const std::string& id);
    /// Replays a saved reproducer (a directory with list and tool).
    void replay(const fs::path& dir);
};

}  // namespace hostile
