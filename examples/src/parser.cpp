// parser.cpp - lexer, recursive-descent parser and resolver for MiniJit.

#include "parser.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>

namespace minijit {

const char* op_spelling(Op op) {
    switch (op) {
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::Mod: return "%";
    case Op::Eq: return "==";
    case Op::Ne: return "!=";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
    case Op::And: return "&&";
    case Op::Or: return "||";
    case Op::Neg: return "-";
    case Op::Not: return "!";
    }
    return "?";
}

namespace {

// ---------------------------------------------------------------- lexer ----

enum class Tok {
    End,
    Ident,
    Int,
    String,
    Punct,
    KwFn,
    KwVar,
    KwIf,
    KwElse,
    KwWhile,
    KwReturn,
    KwPrint,
    KwBreak,
    KwContinue,
    KwArray
};

struct Token {
    Tok kind = Tok::End;
    std::string text;        // identifier, punctuator, decoded string
    std::int64_t value = 0;  // Int
    int line = 0;
};

const std::map<std::string, Tok>& keywords() {
    static const std::map<std::string, Tok> kw = {
        {"fn", Tok::KwFn},       {"var", Tok::KwVar},     {"if", Tok::KwIf},
        {"else", Tok::KwElse},   {"while", Tok::KwWhile}, {"return", Tok::KwReturn},
        {"print", Tok::KwPrint}, {"break", Tok::KwBreak}, {"continue", Tok::KwContinue},
        {"array", Tok::KwArray}};
    return kw;
}

std::string describe(const Token& t) {
    switch (t.kind) {
    case Tok::End: return "end of file";
    case Tok::Ident: return "identifier '" + t.text + "'";
    case Tok::Int: return "integer " + std::to_string(t.value);
    case Tok::String: return "string literal";
    case Tok::Punct: return "'" + t.text + "'";
    default: return "keyword '" + t.text + "'";
    }
}

// Skips white space and comments from src[i] on, counting the lines.
void skip_blanks(const std::string& src, std::size_t& i, int& line) {
    const std::size_t n = src.size();
    while (i < n) {
        char c = src[i];
        if (c == '\n') {
            ++line;
            ++i;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v')
            ++i;
        else if (c == '/' && i + 1 < n && src[i + 1] == '/') {
            while (i < n && src[i] != '\n') ++i;
        } else if (c == '#') {
            while (i < n && src[i] != '\n') ++i;
        } else
            break;
    }
}

// The identifier or keyword at src[i] into t.
void lex_word(const std::string& src, std::size_t& i, Token& t) {
    const std::size_t n = src.size();
    std::size_t b = i;
    while (i < n && (std::isalnum(static_cast<unsigned char>(src[i])) || src[i] == '_')) ++i;
    t.text = src.substr(b, i - b);
    auto kw = keywords().find(t.text);
    t.kind = kw == keywords().end() ? Tok::Ident : kw->second;
}

// The integer literal at src[i] into t.
void lex_int(const std::string& src, std::size_t& i, int line, Token& t) {
    const std::size_t n = src.size();
    std::uint64_t v = 0;
    std::size_t b = i;
    while (i < n && std::isdigit(static_cast<unsigned char>(src[i]))) {
        unsigned d = static_cast<unsigned>(src[i] - '0');
        if (v > (static_cast<std::uint64_t>(INT64_MAX) - d) / 10)
            throw CompileError(line, "integer literal '" + src.substr(b, i + 1 - b) +
                                         "...' is too large (maximum 9223372036854775807)");
        v = v * 10 + d;
        ++i;
    }
    if (i < n && (std::isalpha(static_cast<unsigned char>(src[i])) || src[i] == '_'))
        throw CompileError(line,
                           "invalid character '" + std::string(1, src[i]) + "' in integer literal");
    t.kind = Tok::Int;
    t.value = static_cast<std::int64_t>(v);
    t.text = src.substr(b, i - b);
}

// The string literal whose opening quote is src[i] into t, decoded.
void lex_string(const std::string& src, std::size_t& i, int line, Token& t) {
    const std::size_t n = src.size();
    ++i;
    t.kind = Tok::String;
    while (true) {
        if (i >= n || src[i] == '\n') throw CompileError(line, "unterminated string literal");
        char d = src[i++];
        if (d == '"') break;
        if (d == '\\') {
            if (i >= n) throw CompileError(line, "unterminated string literal");
            char e = src[i++];
            switch (e) {
            case 'n': t.text += '\n'; break;
            case 't': t.text += '\t'; break;
            case '\\': t.text += '\\'; break;
            case '"': t.text += '"'; break;
            default: throw CompileError(line, std::string("unknown escape sequence '\\") + e + "'");
            }
        } else {
            t.text += d;
        }
    }
}

// The punctuator at src[i] into t; any other character is an error.
void lex_punct(const std::string& src, std::size_t& i, int line, Token& t) {
    const unsigned char c = static_cast<unsigned char>(src[i]);
    static const char* const two[] = {"==", "!=", "<=", ">=", "&&", "||"};
    t.kind = Tok::Punct;
    for (const char* p : two) {
        if (src.compare(i, 2, p) == 0) {
            t.text = p;
            break;
        }
    }
    if (t.text.empty()) {
        static const std::string one = "+-*/%<>=!(){}[],;";
        if (one.find(static_cast<char>(c)) == std::string::npos) {
            std::string shown = std::isprint(c)
                                    ? std::string(1, static_cast<char>(c))
                                    : "\\x" + std::string(1, "0123456789abcdef"[c >> 4]) +
                                          "0123456789abcdef"[c & 15];
            throw CompileError(line, "unexpected character '" + shown + "'");
        }
        t.text = std::string(1, static_cast<char>(c));
    }
    i += t.text.size();
}

std::vector<Token> lex(const std::string& src) {
    std::vector<Token> out;
    std::size_t i = 0;
    const std::size_t n = src.size();
    int line = 1;
    while (true) {
        skip_blanks(src, i, line);
        Token t;
        t.line = line;
        if (i >= n) {
            out.push_back(t);
            return out;
        }
        unsigned char c = static_cast<unsigned char>(src[i]);
        if (std::isalpha(c) || c == '_')
            lex_word(src, i, t);
        else if (std::isdigit(c))
            lex_int(src, i, line, t);
        else if (c == '"')
            lex_string(src, i, line, t);
        else
            lex_punct(src, i, line, t);
        out.push_back(std::move(t));
    }
}

// --------------------------------------------------------------- parser ----

class Parser {
public:
    explicit Parser(std::vector<Token> toks) : toks_(std::move(toks)) {}

    void parse(Program& prog) {
        while (peek().kind != Tok::End) {
            if (peek().kind == Tok::KwFn)
                prog.functions.push_back(parse_function());
            else if (peek().kind == Tok::KwArray)
                prog.arrays.push_back(parse_array());
            else
                throw CompileError(peek().line, "expected 'fn' or 'array' at top level, found " +
                                                    describe(peek()));
        }
    }

private:
    std::vector<Token> toks_;
    std::size_t pos_ = 0;
    int depth_ = 0;  // nesting of blocks and expressions being parsed

    // Bounds the recursion of the parser (and of the code generators, which
    // walk the same tree) on pathological input such as "((((...".
    struct Nest {
        Parser& p;
        explicit Nest(Parser& parser, int line) : p(parser) {
            if (++p.depth_ > kMaxNesting)
                throw CompileError(line, "expressions or blocks nested too deeply (more than " +
                                             std::to_string(kMaxNesting) + " levels)");
        }
        ~Nest() { --p.depth_; }
    };
    static constexpr int kMaxNesting = 256;

    // Sets e.height from its operands; refuses trees deeper than
    // kMaxNesting (long operator chains like 1+1+...+1 build deep trees
    // without deep parser recursion).
    std::unique_ptr<Expr> finish(std::unique_ptr<Expr> e) {
        for (const auto& a : e->args) e->height = std::max(e->height, a->height + 1);
        if (e->height > kMaxNesting)
            throw CompileError(e->line, "expression too deeply nested (more than " +
                                            std::to_string(kMaxNesting) + " levels of operators)");
        return e;
    }

    const Token& peek(std::size_t ahead = 0) const {
        std::size_t p = pos_ + ahead;
        return p < toks_.size() ? toks_[p] : toks_.back();
    }
    const Token& next() {
        const Token& t = peek();
        if (pos_ < toks_.size() - 1) ++pos_;
        return t;
    }
    bool is_punct(const char* p) const { return peek().kind == Tok::Punct && peek().text == p; }
    bool accept_punct(const char* p) {
        if (!is_punct(p)) return false;
        next();
        return true;
    }
    const Token& expect_punct(const char* p, const char* context) {
        if (!is_punct(p))
            throw CompileError(peek().line, std::string("expected '") + p + "' " + context +
                                                ", found " + describe(peek()));
        return next();
    }
    std::string expect_ident(const char* what) {
        if (peek().kind != Tok::Ident)
            throw CompileError(peek().line,
                               std::string("expected ") + what + ", found " + describe(peek()));
        return next().text;
    }

    ArrayDecl parse_array() {
        ArrayDecl a;
        a.line = next().line;  // 'array'
        a.name = expect_ident("array name");
        expect_punct("[", "after the array name");
        if (peek().kind != Tok::Int)
            throw CompileError(peek().line, "expected the array size (an integer literal), found " +
                                                describe(peek()));
        a.size = next().value;
        if (a.size < 1 || a.size > kMaxArraySize)
            throw CompileError(a.line, "array size " + std::to_string(a.size) +
                                           " out of range (1.." + std::to_string(kMaxArraySize) +
                                           ")");
        expect_punct("]", "after the array size");
        expect_punct(";", "after the array declaration");
        return a;
    }

    std::unique_ptr<Function> parse_function() {
        auto f = std::make_unique<Function>();
        f->line = next().line;  // 'fn'
        f->name = expect_ident("function name");
        expect_punct("(", "after the function name");
        if (!is_punct(")")) {
            do {
                int line = peek().line;
                std::string p = expect_ident("parameter name");
                for (const auto& q : f->slot_names)
                    if (q == p) throw CompileError(line, "duplicate parameter '" + p + "'");
                f->slot_names.push_back(p);
            } while (accept_punct(","));
        }
        expect_punct(")", "after the parameters");
        f->num_params = static_cast<int>(f->slot_names.size());
        if (f->num_params > kMaxParams)
            throw CompileError(f->line, "function '" + f->name + "' has " +
                                            std::to_string(f->num_params) +
                                            " parameters (at most " + std::to_string(kMaxParams) +
                                            " are supported)");
        f->end_line = parse_block(f->body);
        return f;
    }

    // Parses `{ stmt* }` into `out`; returns the line of the closing brace.
    int parse_block(Block& out) {
        expect_punct("{", "to open a block");
        while (!is_punct("}")) {
            if (peek().kind == Tok::End)
                throw CompileError(peek().line, "unexpected end of file: missing '}'");
            out.push_back(parse_statement());
        }
        return next().line;
    }

    std::unique_ptr<Stmt> parse_statement() {
        const Token& t = peek();
        int line = t.line;
        Nest nest(*this, line);
        switch (t.kind) {
        case Tok::KwVar: {
            next();
            auto s = std::make_unique<Stmt>(Stmt::Kind::VarDecl, line);
            s->name = expect_ident("variable name after 'var'");
            expect_punct("=", "after the variable name (variables must be initialised)");
            s->expr = parse_expr();
            expect_punct(";", "after the declaration");
            return s;
        }
        case Tok::KwIf: return parse_if();
        case Tok::KwWhile: {
            next();
            auto s = std::make_unique<Stmt>(Stmt::Kind::While, line);
            expect_punct("(", "after 'while'");
            s->expr = parse_expr();
            expect_punct(")", "after the loop condition");
            s->end_line = parse_block(s->body);
            return s;
        }
        case Tok::KwBreak:
        case Tok::KwContinue: {
            next();
            auto s = std::make_unique<Stmt>(
                t.kind == Tok::KwBreak ? Stmt::Kind::Break : Stmt::Kind::Continue, line);
            expect_punct(";", t.kind == Tok::KwBreak ? "after 'break'" : "after 'continue'");
            return s;
        }
        case Tok::KwReturn: {
            next();
            auto s = std::make_unique<Stmt>(Stmt::Kind::Return, line);
            if (!is_punct(";")) s->expr = parse_expr();
            expect_punct(";", "after the return statement");
            return s;
        }
        case Tok::KwPrint: {
            next();
            auto s = std::make_unique<Stmt>(Stmt::Kind::Print, line);
            do {
                PrintItem item;
                if (peek().kind == Tok::String) {
                    item.is_string = true;
                    item.text = next().text;
                } else {
                    item.expr = parse_expr();
                }
                s->items.push_back(std::move(item));
            } while (accept_punct(","));
            expect_punct(";", "after the print statement");
            return s;
        }
        default: break;
        }
        // Expression statement or assignment.
        auto e = parse_expr();
        if (is_punct("=")) {
            next();
            std::unique_ptr<Stmt> s;
            if (e->kind == Expr::Kind::Var) {
                s = std::make_unique<Stmt>(Stmt::Kind::Assign, line);
                s->name = e->name;
            } else if (e->kind == Expr::Kind::Index) {
                s = std::make_unique<Stmt>(Stmt::Kind::IndexAssign, line);
                s->name = e->name;
                s->index = std::move(e->args[0]);
            } else {
                throw CompileError(line, "left side of '=' must be a variable or an array element");
            }
            s->expr = parse_expr();
            expect_punct(";", "after the assignment");
            return s;
        }
        auto s = std::make_unique<Stmt>(Stmt::Kind::ExprStmt, line);
        s->expr = std::move(e);
        expect_punct(";", "after the expression");
        return s;
    }

    std::unique_ptr<Stmt> parse_if() {
        Nest nest(*this, peek().line);
        int line = next().line;  // 'if'
        auto s = std::make_unique<Stmt>(Stmt::Kind::If, line);
        expect_punct("(", "after 'if'");
        s->expr = parse_expr();
        expect_punct(")", "after the condition");
        s->end_line = parse_block(s->body);
        if (peek().kind == Tok::KwElse) {
            next();
            s->has_else = true;
            if (peek().kind == Tok::KwIf) {
                s->else_body.push_back(parse_if());
            } else {
                s->end_line = parse_block(s->else_body);
            }
        }
        return s;
    }

    // Precedence climbing over the binary operator table.
    static int precedence(const Token& t, Op& op) {
        if (t.kind != Tok::Punct) return -1;
        static const std::unordered_map<std::string, std::pair<Op, int>> table = {
            {"||", {Op::Or, 1}}, {"&&", {Op::And, 2}}, {"==", {Op::Eq, 3}}, {"!=", {Op::Ne, 3}},
            {"<", {Op::Lt, 4}},  {"<=", {Op::Le, 4}},  {">", {Op::Gt, 4}},  {">=", {Op::Ge, 4}},
            {"+", {Op::Add, 5}}, {"-", {Op::Sub, 5}},  {"*", {Op::Mul, 6}}, {"/", {Op::Div, 6}},
            {"%", {Op::Mod, 6}}};
        auto it = table.find(t.text);
        if (it == table.end()) return -1;
        op = it->second.first;
        return it->second.second;
    }

    std::unique_ptr<Expr> parse_expr(int min_prec = 1) {
        auto lhs = parse_unary();
        while (true) {
            Op op;
            int prec = precedence(peek(), op);
            if (prec < min_prec) return lhs;
            int line = next().line;
            auto rhs = parse_expr(prec + 1);
            auto e = std::make_unique<Expr>(Expr::Kind::Binary, line);
            e->op = op;
            e->args.push_back(std::move(lhs));
            e->args.push_back(std::move(rhs));
            lhs = finish(std::move(e));
        }
    }

    std::unique_ptr<Expr> parse_unary() {
        Nest nest(*this, peek().line);
        if (is_punct("-") || is_punct("!")) {
            const Token& t = next();
            auto e = std::make_unique<Expr>(Expr::Kind::Unary, t.line);
            e->op = t.text == "-" ? Op::Neg : Op::Not;
            e->args.push_back(parse_unary());
            return finish(std::move(e));
        }
        return parse_primary();
    }

    std::unique_ptr<Expr> parse_primary() {
        const Token& t = peek();
        if (t.kind == Tok::Int) {
            auto e = std::make_unique<Expr>(Expr::Kind::Int, t.line);
            e->value = next().value;
            return e;
        }
        if (t.kind == Tok::Ident) {
            int line = t.line;
            std::string name = next().text;
            if (accept_punct("(")) {
                auto e = std::make_unique<Expr>(Expr::Kind::Call, line);
                e->name = name;
                if (!is_punct(")")) {
                    do e->args.push_back(parse_expr());
                    while (accept_punct(","));
                }
                expect_punct(")", "after the call arguments");
                return finish(std::move(e));
            }
            if (accept_punct("[")) {
                auto e = std::make_unique<Expr>(Expr::Kind::Index, line);
                e->name = name;
                e->args.push_back(parse_expr());
                expect_punct("]", "after the array index");
                return finish(std::move(e));
            }
            auto e = std::make_unique<Expr>(Expr::Kind::Var, line);
            e->name = name;
            return e;
        }
        if (accept_punct("(")) {
            auto e = parse_expr();
            expect_punct(")", "to close the parenthesised expression");
            return e;
        }
        if (t.kind == Tok::String)
            throw CompileError(t.line, "string literals are only allowed in 'print'");
        throw CompileError(t.line, "expected an expression, found " + describe(t));
    }
};

// ------------------------------------------------------------- resolver ----

class Resolver {
public:
    explicit Resolver(Program& p) : prog_(p) {}

    void run() {
        for (std::size_t i = 0; i < prog_.arrays.size(); ++i) {
            const auto& a = prog_.arrays[i];
            if (!arrays_.emplace(a.name, static_cast<int>(i)).second)
                throw CompileError(a.line, "array '" + a.name + "' is already declared");
        }
        for (std::size_t i = 0; i < prog_.functions.size(); ++i) {
            const auto& f = *prog_.functions[i];
            if (arrays_.count(f.name))
                throw CompileError(f.line,
                                   "'" + f.name + "' is declared both as an array and a function");
            if (!funcs_.emplace(f.name, static_cast<int>(i)).second)
                throw CompileError(f.line, "function '" + f.name + "' is already defined");
        }
        for (auto& f : prog_.functions) resolve_function(*f);
        auto m = funcs_.find("main");
        if (m == funcs_.end())
            throw CompileError(1, "no function 'main' (execution starts at 'fn main(...)')");
        prog_.main_index = m->second;
    }

private:
    Program& prog_;
    std::unordered_map<std::string, int> arrays_;
    std::unordered_map<std::string, int> funcs_;
    Function* fn_ = nullptr;
    std::vector<std::unordered_map<std::string, int>> scopes_;
    int loop_depth_ = 0;

    void resolve_function(Function& f) {
        fn_ = &f;
        scopes_.clear();
        scopes_.emplace_back();
        for (int i = 0; i < f.num_params; ++i) {
            if (arrays_.count(f.slot_names[i]))
                throw CompileError(f.line,
                                   "parameter '" + f.slot_names[i] + "' has the name of an array");
            scopes_.back()[f.slot_names[i]] = i;
        }
        f.num_slots = f.num_params;
        loop_depth_ = 0;
        resolve_block(f.body, false);
    }

    int lookup_var(const std::string& name, int line) const {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
            auto v = it->find(name);
            if (v != it->end()) return v->second;
        }
        if (arrays_.count(name))
            throw CompileError(line, "'" + name + "' is an array; use " + name + "[index]");
        if (funcs_.count(name))
            throw CompileError(line, "'" + name + "' is a function; call it as " + name + "(...)");
        throw CompileError(line, "unknown variable '" + name + "'");
    }

    int lookup_array(const std::string& name, int line) const {
        auto a = arrays_.find(name);
        if (a == arrays_.end()) throw CompileError(line, "unknown array '" + name + "'");
        return a->second;
    }

    void resolve_block(Block& b, bool new_scope = true) {
        if (new_scope) scopes_.emplace_back();
        for (auto& s : b) resolve_stmt(*s);
        if (new_scope) scopes_.pop_back();
    }

    void resolve_stmt(Stmt& s) {
        switch (s.kind) {
        case Stmt::Kind::VarDecl: {
            resolve_expr(*s.expr);  // the initialiser cannot see the new name
            if (scopes_.back().count(s.name))
                throw CompileError(s.line,
                                   "variable '" + s.name + "' is already declared in this block");
            if (arrays_.count(s.name))
                throw CompileError(s.line, "variable '" + s.name + "' has the name of an array");
            s.slot = fn_->num_slots++;
            fn_->slot_names.push_back(s.name);
            scopes_.back()[s.name] = s.slot;
            break;
        }
        case Stmt::Kind::Assign:
            s.slot = lookup_var(s.name, s.line);
            resolve_expr(*s.expr);
            break;
        case Stmt::Kind::IndexAssign:
            s.array = lookup_array(s.name, s.line);
            resolve_expr(*s.index);
            resolve_expr(*s.expr);
            break;
        case Stmt::Kind::If:
            resolve_expr(*s.expr);
            resolve_block(s.body);
            resolve_block(s.else_body);
            break;
        case Stmt::Kind::While:
            resolve_expr(*s.expr);
            ++loop_depth_;
            resolve_block(s.body);
            --loop_depth_;
            break;
        case Stmt::Kind::Break:
        case Stmt::Kind::Continue:
            if (loop_depth_ == 0)
                throw CompileError(s.line,
                                   std::string("'") +
                                       (s.kind == Stmt::Kind::Break ? "break" : "continue") +
                                       "' outside of a loop");
            break;
        case Stmt::Kind::Return:
            if (s.expr) resolve_expr(*s.expr);
            break;
        case Stmt::Kind::Print:
            for (auto& it : s.items)
                if (!it.is_string) resolve_expr(*it.expr);
            break;
        case Stmt::Kind::ExprStmt: resolve_expr(*s.expr); break;
        }
    }

    void resolve_expr(Expr& e) {
        switch (e.kind) {
        case Expr::Kind::Int: break;
        case Expr::Kind::Var: e.slot = lookup_var(e.name, e.line); break;
        case Expr::Kind::Index: e.array = lookup_array(e.name, e.line); break;
        case Expr::Kind::Call: {
            auto f = funcs_.find(e.name);
            if (f == funcs_.end()) {
                if (arrays_.count(e.name))
                    throw CompileError(e.line, "'" + e.name + "' is an array, not a function");
                throw CompileError(e.line, "call of unknown function '" + e.name + "'");
            }
            e.func = f->second;
            const Function& callee = *prog_.functions[f->second];
            if (static_cast<int>(e.args.size()) != callee.num_params)
                throw CompileError(e.line, "function '" + e.name + "' takes " +
                                               std::to_string(callee.num_params) + " argument" +
                                               (callee.num_params == 1 ? "" : "s") + " but " +
                                               std::to_string(e.args.size()) +
                                               (e.args.size() == 1 ? " was" : " were") + " given");
            break;
        }
        case Expr::Kind::Unary:
        case Expr::Kind::Binary: break;
        }
        for (auto& a : e.args) resolve_expr(*a);
    }
};

}  // namespace

Program parse_program(const std::string& path, const std::string& source) {
    Program prog;
    prog.path = path;
    Parser(lex(source)).parse(prog);
    Resolver(prog).run();
    return prog;
}

}  // namespace minijit
