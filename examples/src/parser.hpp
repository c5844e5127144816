// parser.hpp - lexer, parser and name resolution for MiniJit source.
//
// Part of the valgrind-jit example JIT (minijit).  See examples/README.md for
// the grammar.

#ifndef MINIJIT_PARSER_HPP
#define MINIJIT_PARSER_HPP

#include "ast.hpp"

#include <stdexcept>
#include <string>

namespace minijit {

/// A lexical, syntax or semantic error at a source line.  what() is the bare
/// message; the driver prints it as "FILE:LINE: error: MESSAGE".
class CompileError : public std::runtime_error {
public:
    CompileError(int line, const std::string& message) : std::runtime_error(message), line_(line) {}
    /// 1-based source line the error refers to.
    int line() const { return line_; }

private:
    int line_;
};

/// Parses and resolves the MiniJit program in `source` (the full text of the
/// file `path`; `path` is only recorded in the result).  Checks that every
/// variable is declared before use, every called function exists and gets
/// the right number of arguments, `break`/`continue` are inside loops, and a
/// function `main` exists.  Throws CompileError on the first error.
Program parse_program(const std::string& path, const std::string& source);

}  // namespace minijit

#endif
