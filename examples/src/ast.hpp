// ast.hpp - abstract syntax tree of the MiniJit language.
//
// Part of the valgrind-jit example JIT (minijit).  The parser (parser.hpp)
// builds a Program, resolves every name (variables to frame slots, calls to
// function indices, array names to array indices) and checks arities, so the
// code generators (codegen.hpp) never see an unresolved or ill-formed tree.

#ifndef MINIJIT_AST_HPP
#define MINIJIT_AST_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace minijit {

/// Binary and unary operators.  Arithmetic is on 64-bit two's-complement
/// integers and wraps; comparisons and logical operators yield 0 or 1.
enum class Op {
    Add,
    Sub,
    Mul,
    Div,
    Mod,  // + - * / %
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,  // == != < <= > >=
    And,
    Or,  // && || (short-circuit)
    Neg,
    Not  // unary - and !
};

/// Returns the operator's source spelling ("+", "<=", "&&", ...).
const char* op_spelling(Op op);

/// An expression node.  Which fields are meaningful depends on `kind`.
struct Expr {
    enum class Kind {
        Int,    ///< integer literal: `value`
        Var,    ///< local variable or parameter: `slot`
        Index,  ///< array element `arrays[array][args[0]]`
        Call,   ///< call of function `func` with `args`
        Unary,  ///< `op` (Neg or Not) applied to args[0]
        Binary  ///< args[0] `op` args[1] (including And/Or)
    };
    Kind kind;
    int line = 0;                             ///< 1-based source line of the node
    std::int64_t value = 0;                   ///< Int: the literal
    int slot = -1;                            ///< Var: frame slot index
    int array = -1;                           ///< Index: index into Program::arrays
    int func = -1;                            ///< Call: index into Program::functions
    Op op = Op::Add;                          ///< Unary/Binary: the operator
    std::string name;                         ///< Var/Index/Call: the name as written
    std::vector<std::unique_ptr<Expr>> args;  ///< operands / arguments
    int height = 1;                           ///< 1 + the largest height of `args`

    Expr(Kind k, int l) : kind(k), line(l) {}
};

/// One item of a `print` statement: a string literal or an expression.
struct PrintItem {
    bool is_string = false;
    std::string text;            ///< the string (escapes already decoded)
    std::unique_ptr<Expr> expr;  ///< the expression, if !is_string
};

struct Stmt;
/// A `{ ... }` block: statements in order.
using Block = std::vector<std::unique_ptr<Stmt>>;

/// A statement node.  Which fields are meaningful depends on `kind`.
struct Stmt {
    enum class Kind {
        VarDecl,      ///< `var NAME = expr;`      -> slot, expr
        Assign,       ///< `NAME = expr;`          -> slot, expr
        IndexAssign,  ///< `NAME[index] = expr;`   -> array, index, expr
        If,           ///< `if (expr) body else else_body`
        While,        ///< `while (expr) body`
        Break,        ///< `break;`
        Continue,     ///< `continue;`
        Return,       ///< `return [expr];` (expr may be null: returns 0)
        Print,        ///< `print item, item, ...;`
        ExprStmt      ///< `expr;` (value discarded)
    };
    Kind kind;
    int line = 0;                  ///< 1-based line of the first token
    int end_line = 0;              ///< If/While: line of the closing `}`
    int slot = -1;                 ///< VarDecl/Assign
    int array = -1;                ///< IndexAssign
    std::string name;              ///< VarDecl/Assign/IndexAssign target
    std::unique_ptr<Expr> index;   ///< IndexAssign: element index
    std::unique_ptr<Expr> expr;    ///< value / condition / return value
    Block body;                    ///< If: then-branch; While: loop body
    Block else_body;               ///< If: else-branch (may be empty)
    bool has_else = false;         ///< If: an `else` was written
    std::vector<PrintItem> items;  ///< Print

    Stmt(Kind k, int l) : kind(k), line(l) {}
};

/// A function definition `fn NAME(p0, p1, ...) { ... }`.
struct Function {
    std::string name;
    int line = 0;                         ///< line of the `fn` keyword
    int end_line = 0;                     ///< line of the closing `}`
    int num_params = 0;                   ///< parameters occupy slots 0..num_params-1
    int num_slots = 0;                    ///< parameters plus all `var`s
    std::vector<std::string> slot_names;  ///< name of each slot (diagnostics)
    Block body;
};

/// A global array `array NAME[SIZE];` of 64-bit integers, zero-initialised.
struct ArrayDecl {
    std::string name;
    int line = 0;
    std::int64_t size = 0;  ///< number of elements, 1..kMaxArraySize
};

/// Largest accepted array size, in elements (2^27: 1 GiB of int64).
constexpr std::int64_t kMaxArraySize = std::int64_t(1) << 27;

/// Most parameters a function may have (they are passed in the six
/// System V integer argument registers).
constexpr int kMaxParams = 6;

/// A whole, resolved program.
struct Program {
    std::string path;  ///< source path as given
    std::vector<std::unique_ptr<Function>> functions;
    std::vector<ArrayDecl> arrays;
    int main_index = -1;  ///< index of `main`
};

}  // namespace minijit

#endif
