// cmd_elf.cpp: `vg-jit dump` and `vg-jit check` of an ELF object that a JIT
// registers through the GDB JIT interface (elfobject.hpp).
#include "commands.hpp"
#include "elfobject.hpp"
#include "text.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <iomanip>
#include <ostream>

namespace vgjit {

namespace {

/// "yes" or "no".
const char* yes_no(bool b) { return b ? "yes" : "no"; }

/// "ELF64 little-endian, relocatable (ET_REL), x86-64 (e_machine 62)".
std::string kind_line(const ElfObjectInfo& o) {
    std::string s =
        "ELF" + std::to_string(o.elf_class) + (o.little_endian ? " little-endian" : " big-endian");
    if (o.header_read)
        s += ", " + elf_type_name(o.type) + ", " + elf_machine_name(o.machine) + " (e_machine " +
             std::to_string(o.machine) + ")";
    return s;
}

/// The text listing of `dump`.
void dump_text(const std::string& file, const ElfObjectInfo& o, std::ostream& out) {
    const std::string f = escape_text(file);
    out << f << ": ELF object";
    if (o.elf_class) out << ", " << kind_line(o);
    out << ", " << o.file_size << " bytes";
    if (!o.source_file.empty()) out << ", source file '" << escape_text(o.source_file) << "'";
    out << '\n';
    if (o.header_read) {
        out << "debug: line table "
            << (o.line_section.empty()
                    ? std::string("no")
                    : o.line_section + " (" + std::to_string(o.line_size) + " bytes)")
            << ", CFI "
            << (o.cfi_section.empty()
                    ? std::string("no")
                    : o.cfi_section + " (" + std::to_string(o.cfi_size) + " bytes)")
            << ", inlined subroutines " << yes_no(o.has_inlined)
            << (o.has_debug_info ? "" : " (no .debug_info)") << '\n';
    }
    for (const ElfSection& s : o.code_sections)
        out << "section  " << std::left << std::setw(4) << s.index << std::setw(16)
            << (s.name.empty() ? std::string("?") : escape_text(s.name)) << std::right << " ["
            << hex(s.addr) << ", " << hex(s.addr + s.size) << ") size " << s.size << " offset "
            << hex(s.offset) << '\n';
    for (const ElfFunction& fn : o.functions)
        out << "function [" << hex(fn.start) << ", " << hex(fn.start + fn.size) << ") size "
            << fn.size << " '" << escape_text(fn.name) << "' section " << fn.section << " lines "
            << yes_no(fn.lines) << " cfi " << yes_no(fn.cfi) << " inlined " << yes_no(fn.inlined)
            << '\n';
    for (const Problem& p : o.problems) out << format_problem(file, p) << '\n';
}

/// The JSON document of `dump --json`:
/// {"file", "format": "elf", "size", "object": {"class", "byte_order",
///  "type", "e_type", "machine", "e_machine", "source_file"},
///  "debug": {"line_table", "line_table_size", "cfi", "cfi_size",
///  "debug_info", "inlined"}, "sections": [{"index", "name", "address",
///  "end", "size", "offset"}], "functions": [{"name", "start", "end",
///  "size", "section", "symbol", "lines", "cfi", "inlined"}],
///  "problems": [{"severity", "offset", "message"}]}.
void dump_json(const std::string& file, const ElfObjectInfo& o, std::ostream& out) {
    using Json = nlohmann::ordered_json;  // keys in the order above
    Json doc;
    doc["file"] = utf8_for_json(file);
    doc["format"] = "elf";
    doc["size"] = o.file_size;
    if (o.elf_class) {
        Json object;
        object["class"] = static_cast<std::uint64_t>(o.elf_class);
        object["byte_order"] = o.little_endian ? "little" : "big";
        if (o.header_read) {
            object["type"] = elf_type_name(o.type);
            object["e_type"] = static_cast<std::uint64_t>(o.type);
            object["machine"] = elf_machine_name(o.machine);
            object["e_machine"] = static_cast<std::uint64_t>(o.machine);
        }
        object["source_file"] = utf8_for_json(o.source_file);
        doc["object"] = std::move(object);
        doc["debug"] = {{"line_table", utf8_for_json(o.line_section)},
                        {"line_table_size", o.line_size},
                        {"cfi", utf8_for_json(o.cfi_section)},
                        {"cfi_size", o.cfi_size},
                        {"debug_info", o.has_debug_info},
                        {"inlined", o.has_inlined}};
    }
    Json sections = Json::array();
    for (const ElfSection& s : o.code_sections)
        sections.push_back({{"index", static_cast<std::uint64_t>(s.index)},
                            {"name", utf8_for_json(s.name)},
                            {"address", hex(s.addr)},
                            {"end", hex(s.addr + s.size)},
                            {"size", s.size},
                            {"offset", s.offset}});
    doc["sections"] = std::move(sections);
    Json functions = Json::array();
    for (const ElfFunction& fn : o.functions)
        functions.push_back({{"name", utf8_for_json(fn.name)},
                             {"start", hex(fn.start)},
                             {"end", hex(fn.start + fn.size)},
                             {"size", fn.size},
                             {"section", static_cast<std::uint64_t>(fn.section)},
                             {"symbol", fn.symbol},
                             {"lines", fn.lines},
                             {"cfi", fn.cfi},
                             {"inlined", fn.inlined}});
    doc["functions"] = std::move(functions);
    Json problems = Json::array();
    for (const Problem& p : o.problems) {
        Json j;
        j["severity"] = p.severity == Severity::Error ? "error" : "warning";
        if (p.has_where) j["offset"] = p.where;
        j["message"] = utf8_for_json(p.message);
        problems.push_back(std::move(j));
    }
    doc["problems"] = std::move(problems);
    out << doc.dump() << '\n';
}

}  // namespace

bool is_elf_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    std::vector<unsigned char> head(4);
    const ssize_t got = ::read(fd, head.data(), head.size());
    ::close(fd);
    if (got < 0) return false;
    head.resize(static_cast<std::size_t>(got));
    return is_elf_magic(head);
}

int dump_elf(const std::string& file, bool json, std::ostream& out) {
    const ElfObjectInfo o = read_elf_object_file(file);
    if (json)
        dump_json(file, o, out);
    else
        dump_text(file, o, out);
    return o.errors() ? kExitProblems : kExitClean;
}

bool check_elf(const std::string& file, const CheckOptions& opts, std::ostream& out) {
    const ElfObjectInfo o = read_elf_object_file(file);
    for (const Problem& p : o.problems) out << format_problem(file, p) << '\n';
    const std::size_t e = o.errors(), w = o.warnings();
    if (!opts.quiet)
        out << file << ": ELF object, " << o.functions.size()
            << (o.functions.size() == 1 ? " function, " : " functions, ") << e
            << (e == 1 ? " error, " : " errors, ") << w << (w == 1 ? " warning" : " warnings")
            << '\n';
    return e == 0 && !(opts.strict && w > 0);
}

}  // namespace vgjit
