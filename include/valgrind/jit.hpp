/*
   valgrind/jit.hpp: a header-only C++17 layer over valgrind/jit.h.

   This file is part of valgrind-jit and is licensed like valgrind/jit.h
   (see there): any program, open or closed source, may include it.

   Copyright (C) 2026 the valgrind-jit authors.

   Overview
   --------
   A JIT that keeps one object per emitted function can let that object own
   the function's registration:

      #include <valgrind/jit.hpp>

      namespace vj = valgrind::jit;

      std::vector<vj::line_entry> lines = {{0, 10}, {17, 11}};  // {offset, line}
      vj::registration reg({code, code_size, "fib", "myvm-jit", "/src/fib.my"},
                           lines);
      ...
      // reg's destructor unregisters the code; call it before the memory is
      // freed or reused.

   A code may also say how to unwind the stack through it (unwind_info:
   .eh_frame bytes, a frame-pointer prologue or a fixed frame), e.g.

      vj::code c{code, code_size, "fib", "myvm-jit", "/src/fib.my",
                 vj::unwind_info::eh_frame_section(cfi.data(), cfi.size())};

   and which calls were inlined into it (inline_call: {offset, size,
   name, call_file, call_line, parent}), so that error stacks show them:

      std::vector<vj::inline_call> inl = {{24, 9, "square", {}, 12}};
      vj::registration reg(c.with_inlines(inl), lines);

   registration is move-only: a moved-from handle is empty and does
   nothing.  Names are std::string_view (need not be NUL-terminated).  A line
   table is any contiguous range (array, std::array, std::vector, std::span,
   std::initializer_list, ...) whose elements are {offset, line} pairs:
   either a type with `offset` and `line` members (line_entry, or the JIT's
   own struct) or a tuple-like pair (std::pair, std::tuple, std::array of 2).

   Cost
   ----
   Natively (and with -DNVALGRIND) every call costs what the C macros cost,
   one client request (a few instructions): nothing is copied or allocated,
   the handle stays empty and reports status::not_running.  Under Valgrind
   the names and the line table are copied into one temporary buffer
   (operator new(std::nothrow)) for the request and freed when it returns.
   Nothing here throws; the header works with -fno-exceptions.

   Everything else (what Valgrind copies, which ranges it refuses, how line
   tables and file names are interpreted) is as described in valgrind/jit.h.
*/

#ifndef VALGRIND_JIT_HPP
#define VALGRIND_JIT_HPP

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "valgrind/jit.hpp needs C++17 or later; C code uses valgrind/jit.h"
#endif

/* jit.h and valgrind.h are installed in the same directory as this header. */
#include "jit.h"

#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace valgrind {
namespace jit {

/// The result of a JIT request: Vg_JitStatus (valgrind/jit.h) as a scoped
/// enumeration with the same values.  Values below 64 mean the request was
/// refused and nothing changed; 64 and above mean it took effect with a
/// warning.  to_string() names each value.
enum class status : int {
    ok = VG_JIT_OK,                            ///< done
    not_running = VG_JIT_ERR_NOT_RUNNING,      ///< natively, or no JIT support
    bad_descriptor = VG_JIT_ERR_BAD_DESCRIPTOR,///< here: no memory to copy names or lines
    bad_name = VG_JIT_ERR_BAD_NAME,            ///< empty, too long, or holds a NUL
    bad_string = VG_JIT_ERR_BAD_STRING,        ///< object or file too long or holds a NUL
    bad_range = VG_JIT_ERR_BAD_RANGE,          ///< size 0, wraps, or above 4 GiB - 1
    not_code = VG_JIT_ERR_NOT_CODE,            ///< not mapped executable memory
    overlaps_object = VG_JIT_ERR_OVERLAPS_OBJECT, ///< overlaps an ELF object's text
    bad_line_table = VG_JIT_ERR_BAD_LINE_TABLE,///< more than VG_JIT_MAX_LINES entries
    not_registered = VG_JIT_ERR_NOT_REGISTERED,///< unregister: nothing there
    bad_unwind = VG_JIT_ERR_BAD_UNWIND,        ///< unwind description refused
    bad_inline = VG_JIT_ERR_BAD_INLINE,        ///< inline table refused
    replaced = VG_JIT_WARN_REPLACED,           ///< recorded; earlier overlapping code dropped
    lines_dropped = VG_JIT_WARN_LINES_DROPPED, ///< recorded; some line entries dropped
    pending = VG_JIT_WARN_PENDING              ///< accepted; takes effect when the range is executable
};

/// The name of `s` as written in the enumeration ("ok", "bad_range",
/// "lines_dropped", ...), or "unknown" for a value this header does not
/// know (a later Valgrind may add some).  The view refers to a string
/// literal: it never dangles.
constexpr std::string_view to_string(status s) noexcept {
    switch (s) {
    case status::ok: return "ok";
    case status::not_running: return "not_running";
    case status::bad_descriptor: return "bad_descriptor";
    case status::bad_name: return "bad_name";
    case status::bad_string: return "bad_string";
    case status::bad_range: return "bad_range";
    case status::not_code: return "not_code";
    case status::overlaps_object: return "overlaps_object";
    case status::bad_line_table: return "bad_line_table";
    case status::not_registered: return "not_registered";
    case status::bad_unwind: return "bad_unwind";
    case status::bad_inline: return "bad_inline";
    case status::replaced: return "replaced";
    case status::lines_dropped: return "lines_dropped";
    case status::pending: return "pending";
    }
    return "unknown";
}

/// Whether a registering request with status `s` took effect (ok, or a
/// warning: replaced, lines_dropped, or pending: recorded once its range
/// is executable).
constexpr bool recorded(status s) noexcept {
    return s == status::ok || static_cast<int>(s) >= VG_JIT_WARN_REPLACED;
}

/// The JIT API version the running Valgrind implements (VG_JIT_API_VERSION
/// or later), or 0 natively and under a Valgrind without JIT support.
inline unsigned long api_version() noexcept { return VALGRIND_JIT_QUERY(); }

/// The status of the calling thread's most recent JIT request
/// (VALGRIND_JIT_LAST_ERROR); status::not_running natively.
inline status last_status() noexcept { return static_cast<status>(VALGRIND_JIT_LAST_ERROR()); }

/// Forgets every registration intersecting [start, start + size) (size in
/// bytes), e.g. before a whole code heap is freed.  Returns how many were
/// dropped; 0 natively or if none intersected.  Handles (registration)
/// whose code was dropped this way unregister nothing when destroyed
/// (Valgrind answers not_registered, which is harmless).
inline unsigned long unregister_range(const void* start, std::size_t size) noexcept {
    return VALGRIND_JIT_UNREGISTER_RANGE(start, size);
}

/// One line-table entry: the code from `offset` (bytes from the code's
/// start) up to the next entry's offset comes from 1-based source line
/// `line` of the code's file.  Any type with these two members, or any
/// tuple-like pair, works as well.
struct line_entry {
    std::size_t offset;
    unsigned long line;
};

/// How Valgrind unwinds the stack through registered code: VgJitCode's
/// version-2 fields (see Vg_JitUnwindKind in valgrind/jit.h).  The default
/// declares nothing; the factories make each kind.  The .eh_frame bytes
/// need only stay valid during the registering call (Valgrind copies
/// them); a description Valgrind cannot use refuses the whole
/// registration (status::bad_unwind).
struct unwind_info {
    unsigned long kind = VG_JIT_UNWIND_NONE;  ///< a Vg_JitUnwindKind
    const void* eh_frame = nullptr;           ///< eh_frame_section(): the CFI bytes
    std::size_t eh_frame_size = 0;            ///< eh_frame_section(): their size
    const void* eh_frame_addr = nullptr;      ///< eh_frame_section(): where they count from
    std::size_t prologue_size = 0;            ///< frame_pointer(), fixed_frame()
    std::size_t ra_offset = 0;                ///< fixed_frame()
    std::size_t fp_offset = 0;                ///< fixed_frame()

    /// Nothing declared (the frame pointer is used if the code keeps one).
    static constexpr unwind_info none() noexcept { return unwind_info(); }

    /// VG_JIT_UNWIND_EH_FRAME: the code's call frame information as the
    /// contents of an .eh_frame section (CIEs and FDEs), `size` bytes at
    /// `bytes`, whose PC-relative pointers count from `addr` (nullptr:
    /// from `bytes` itself).
    static constexpr unwind_info eh_frame_section(const void* bytes, std::size_t size,
                                                  const void* addr = nullptr) noexcept {
        return make(VG_JIT_UNWIND_EH_FRAME, bytes, size, addr, 0, 0, 0);
    }

    /// VG_JIT_UNWIND_FRAME_POINTER: the code starts with
    /// "push %rbp; mov %rsp,%rbp" (`prologue_size` bytes, 4 on amd64) and
    /// keeps %rbp as frame pointer.
    static constexpr unwind_info frame_pointer(std::size_t prologue_size = 4) noexcept {
        return make(VG_JIT_UNWIND_FRAME_POINTER, nullptr, 0, nullptr, prologue_size, 0, 0);
    }

    /// VG_JIT_UNWIND_FIXED_FRAME: after its first `prologue_size` bytes the
    /// return address is at %rsp + `ra_offset` and the caller's %rbp at
    /// %rsp + `fp_offset` (VG_JIT_UNWIND_FP_KEPT: %rbp is never changed).
    static constexpr unwind_info fixed_frame(std::size_t prologue_size, std::size_t ra_offset,
                                             std::size_t fp_offset = VG_JIT_UNWIND_FP_KEPT) noexcept {
        return make(VG_JIT_UNWIND_FIXED_FRAME, nullptr, 0, nullptr, prologue_size, ra_offset,
                    fp_offset);
    }

private:
    /// An unwind_info with every field given.
    static constexpr unwind_info make(unsigned long kind, const void* bytes, std::size_t size,
                                      const void* addr, std::size_t prologue, std::size_t ra,
                                      std::size_t fp) noexcept {
        unwind_info u;
        u.kind = kind;
        u.eh_frame = bytes;
        u.eh_frame_size = size;
        u.eh_frame_addr = addr;
        u.prologue_size = prologue;
        u.ra_offset = ra;
        u.fp_offset = fp;
        return u;
    }
};

/// One call inlined into registered code (VgJitInline, version 3): the
/// bytes [offset, offset + size) of the code come from function `name`,
/// inlined at `call_line` of `call_file` (empty: the code's file) into
/// its parent, the registered function (parent == top) or the entry of
/// the table with index `parent`, which must come earlier and hold this
/// range.  See VgJitInline in valgrind/jit.h for the rules
/// (status::bad_inline when one is broken).
struct inline_call {
    static constexpr std::size_t top = static_cast<std::size_t>(VG_JIT_INLINE_TOP);
    std::size_t offset = 0;
    std::size_t size = 0;
    std::string_view name;
    std::string_view call_file;
    unsigned long call_line = 0;
    std::size_t parent = top;
};

/// What to register: the code's first byte and size in bytes, its function
/// name, and optionally its object (Callgrind's ob=; empty:
/// VG_JIT_DEFAULT_OBJECT "[jit]"), the source file of its line table
/// (empty: none; see valgrind/jit.h for how a relative path is resolved)
/// and how to unwind through it (unwind_info), and the calls inlined into
/// it (`inlines`, `n_inlines` entries; set them with with_inlines()).  The
/// views, the unwind information's bytes and the inline table need only
/// stay valid during the registering call.  Written {start, size, name},
/// {start, size, name, object, file} or {start, size, name, object, file,
/// unwind}.
struct code {
    const void* start = nullptr;
    std::size_t size = 0;
    std::string_view name;
    std::string_view object;
    std::string_view file;
    unwind_info unwind;
    const inline_call* inlines = nullptr;
    std::size_t n_inlines = 0;

    /// This code with the inline table `table`: a contiguous range
    /// (std::data/std::size) of inline_call, at most VG_JIT_MAX_INLINES
    /// entries.
    template <class Table>
    code with_inlines(const Table& table) const noexcept {
        code c = *this;
        c.inlines = std::data(table);
        c.n_inlines = std::size(table);
        return c;
    }

    constexpr code() noexcept = default;
    constexpr code(const void* start_, std::size_t size_, std::string_view name_,
                   std::string_view object_ = {}, std::string_view file_ = {},
                   const unwind_info& unwind_ = {}) noexcept
        : start(start_), size(size_), name(name_), object(object_), file(file_),
          unwind(unwind_) {}
};

namespace detail {

template <class E, class = void>
struct has_offset_line : std::false_type {};
template <class E>
struct has_offset_line<E, std::void_t<decltype(std::declval<const E&>().offset),
                                      decltype(std::declval<const E&>().line)>>
    : std::true_type {};

template <class E>
constexpr unsigned long entry_offset(const E& e) noexcept {
    if constexpr (has_offset_line<E>::value) return static_cast<unsigned long>(e.offset);
    else return static_cast<unsigned long>(std::get<0>(e));
}
template <class E>
constexpr unsigned long entry_line(const E& e) noexcept {
    if constexpr (has_offset_line<E>::value) return static_cast<unsigned long>(e.line);
    else return static_cast<unsigned long>(std::get<1>(e));
}

/// Copies `s` plus a NUL to `at`; returns the copy.
inline const char* put(char*& at, std::string_view s) noexcept {
    char* const copy = at;
    if (!s.empty()) std::memcpy(at, s.data(), s.size());
    at[s.size()] = '\0';
    at += s.size() + 1;
    return copy;
}

/// Whether `s` can be passed as a C string: no NUL inside, at most
/// VG_JIT_MAX_STRING bytes.
inline bool c_string_ok(std::string_view s) noexcept {
    return s.size() <= VG_JIT_MAX_STRING && s.find('\0') == std::string_view::npos;
}

}  // namespace detail

/// A move-only handle that owns the registration of one piece of jitted
/// code: constructing it registers the code (VALGRIND_JIT_REGISTER_CODE),
/// destroying it, reset() or assigning another handle to it unregisters
/// the code at start() (VALGRIND_JIT_UNREGISTER).  An empty handle (default
/// constructed, moved from, released, refused, or natively) does nothing.
///
/// A handle unregisters by start address.  When the JIT reuses memory,
/// assign the new code's handle to the old code's handle (the old one is
/// then not unregistered if the new code starts at the same address, since
/// Valgrind already replaced it); do not keep two live handles for code at
/// the same start address.
class registration {
public:
    /// An empty handle.
    registration() noexcept = default;

    /// Registers `c` without a line table.  Check registered() or state().
    explicit registration(const code& c) noexcept { do_register(c, nullptr, 0); }

    /// Registers `c` with the line table `lines`: a contiguous range
    /// (std::data/std::size) of {offset, line} pairs, see line_entry.
    /// The table is copied; at most VG_JIT_MAX_LINES entries (more:
    /// status::bad_line_table, nothing registered).
    template <class Lines>
    registration(const code& c, const Lines& lines) noexcept {
        register_with_lines(c, lines);
    }

    /// Line table from a braced list: registration(c, {{0, 10}, {17, 11}}).
    registration(const code& c, std::initializer_list<line_entry> lines) noexcept {
        register_with_lines(c, lines);
    }

    registration(const registration&) = delete;
    registration& operator=(const registration&) = delete;

    /// Takes over `other`'s registration; `other` becomes empty.
    registration(registration&& other) noexcept
        : start_(std::exchange(other.start_, nullptr)), state_(other.state_) {}

    /// Unregisters this handle's code (unless `other` holds code at the same
    /// start address, which replaced it), then takes over `other`'s.
    registration& operator=(registration&& other) noexcept {
        if (this != &other) {
            if (start_ && start_ != other.start_) VALGRIND_JIT_UNREGISTER(start_);
            start_ = std::exchange(other.start_, nullptr);
            state_ = other.state_;
        }
        return *this;
    }

    /// Unregisters the code if this handle holds it.
    ~registration() { reset(); }

    /// Whether this handle holds a registration (it was recorded and has
    /// not been reset, released or moved from).
    bool registered() const noexcept { return start_ != nullptr; }
    explicit operator bool() const noexcept { return registered(); }

    /// The status of the registering request (status::not_running for a
    /// default-constructed handle and natively).
    status state() const noexcept { return state_; }

    /// The registered code's first byte, or nullptr if empty.
    const void* start() const noexcept { return start_; }

    /// Unregisters now and empties the handle.  Returns the unregister
    /// request's status (ok; not_registered if Valgrind had already dropped
    /// the code, e.g. after munmap or unregister_range), or status::ok if
    /// the handle was empty.
    status reset() noexcept {
        if (!start_) return status::ok;
        const void* s = std::exchange(start_, nullptr);
        return VALGRIND_JIT_UNREGISTER(s) ? status::ok : last_status();
    }

    /// Empties the handle without unregistering; returns the code's start
    /// (the registration stays until unregistered by other means).
    const void* release() noexcept { return std::exchange(start_, nullptr); }

private:
    template <class Lines>
    void register_with_lines(const code& c, const Lines& lines) noexcept {
        using E = std::remove_cv_t<std::remove_reference_t<decltype(*std::data(lines))>>;
        const std::size_t n = std::size(lines);
        if (!under_valgrind()) return;
        if (n > VG_JIT_MAX_LINES) {
            state_ = status::bad_line_table;
            return;
        }
        VgJitLine* table = n ? new (std::nothrow) VgJitLine[n] : nullptr;
        if (n && !table) {
            state_ = status::bad_descriptor;
            return;
        }
        const E* in = std::data(lines);
        for (std::size_t i = 0; i < n; ++i)
            table[i] = VgJitLine{detail::entry_offset(in[i]), detail::entry_line(in[i]), nullptr};
        do_register(c, table, n);
        delete[] table;
    }

    static bool under_valgrind() noexcept { return RUNNING_ON_VALGRIND != 0; }

    void do_register(const code& c, const VgJitLine* lines, std::size_t n) noexcept {
        if (!under_valgrind()) return;
        if (c.name.empty() || !detail::c_string_ok(c.name)) {
            state_ = status::bad_name;
            return;
        }
        if (!detail::c_string_ok(c.object) || !detail::c_string_ok(c.file)) {
            state_ = status::bad_string;
            return;
        }
        // The inline table's names and files are copied behind the others,
        // its entries into an array of their own.
        std::size_t bytes = c.name.size() + c.object.size() + c.file.size() + 3;
        if (c.n_inlines > VG_JIT_MAX_INLINES) {
            state_ = status::bad_inline;
            return;
        }
        for (std::size_t i = 0; i < c.n_inlines; ++i) {
            const inline_call& e = c.inlines[i];
            if (e.name.empty() || !detail::c_string_ok(e.name) ||
                !detail::c_string_ok(e.call_file)) {
                state_ = status::bad_inline;
                return;
            }
            bytes += e.name.size() + e.call_file.size() + 2;
        }
        char* const buf = new (std::nothrow) char[bytes];
        VgJitInline* const inl = c.n_inlines ? new (std::nothrow) VgJitInline[c.n_inlines] : nullptr;
        if (!buf || (c.n_inlines && !inl)) {
            delete[] buf;
            delete[] inl;
            state_ = status::bad_descriptor;
            return;
        }
        char* at = buf;
        VgJitCode desc = VG_JIT_CODE_INITIALIZER;
        desc.start = c.start;
        desc.size = c.size;
        desc.name = detail::put(at, c.name);
        const char* object = detail::put(at, c.object);
        const char* file = detail::put(at, c.file);
        desc.object = c.object.empty() ? nullptr : object;
        desc.file = c.file.empty() ? nullptr : file;
        desc.lines = lines;
        desc.n_lines = n;
        desc.unwind_kind = c.unwind.kind;
        desc.eh_frame = c.unwind.eh_frame;
        desc.eh_frame_size = c.unwind.eh_frame_size;
        desc.eh_frame_addr = c.unwind.eh_frame_addr;
        desc.prologue_size = c.unwind.prologue_size;
        desc.ra_offset = c.unwind.ra_offset;
        desc.fp_offset = c.unwind.fp_offset;
        for (std::size_t i = 0; i < c.n_inlines; ++i) {
            const inline_call& e = c.inlines[i];
            inl[i].offset = e.offset;
            inl[i].size = e.size;
            inl[i].name = detail::put(at, e.name);
            const char* call_file = detail::put(at, e.call_file);
            inl[i].call_file = e.call_file.empty() ? nullptr : call_file;
            inl[i].call_line = e.call_line;
            inl[i].parent = e.parent == inline_call::top ? VG_JIT_INLINE_TOP
                                                         : static_cast<unsigned long>(e.parent);
        }
        desc.inlines = inl;
        desc.n_inlines = c.n_inlines;
        const bool ok = VALGRIND_JIT_REGISTER_CODE(&desc) != 0;
        delete[] inl;
        delete[] buf;
        state_ = last_status();
        if (ok) start_ = c.start;
    }

    const void* start_ = nullptr;
    status state_ = status::not_running;
};

}  // namespace jit
}  // namespace valgrind

#endif /* VALGRIND_JIT_HPP */
