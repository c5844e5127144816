// callgrind_format.cpp: the Callgrind profile reader and writer helpers
// (rules in callgrind_format.hpp).
#include "callgrind_format.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <utility>

namespace vgjit {
namespace callgrind {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

bool is_key_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

}  // namespace

std::vector<std::string> split_words(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream is(s);
    std::string w;
    while (is >> w) out.push_back(w);
    return out;
}

ParseError::ParseError(const std::string& source, unsigned long line, const std::string& message)
    : std::runtime_error(source + (line ? ":" + std::to_string(line) : std::string()) +
                         ": error: " + message),
      line_(line) {}

Reader::Reader(Handler& handler, std::string source)
    : handler_(handler), source_(std::move(source)) {}

void Reader::fail(const std::string& message) const { throw ParseError(source_, lineno_, message); }

int Reader::position_index(const std::string& name) const {
    for (std::size_t i = 0; i < positions_.size(); ++i)
        if (positions_[i] == name) return static_cast<int>(i);
    return -1;
}

bool Reader::parse_number(const std::string& text, std::uint64_t& value) {
    if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
    const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    if (hex && !std::isxdigit(static_cast<unsigned char>(text[2]))) return false;
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text.c_str(), &end, hex ? 16 : 10);
    if (errno == ERANGE || *end != '\0') return false;
    value = v;
    return true;
}

void Reader::read(std::istream& in) {
    std::string raw;
    while (std::getline(in, raw)) {
        ++lineno_;
        if (!raw.empty() && raw.back() == '\r') raw.pop_back();
        line(raw);
    }
    if (in.bad()) throw ParseError(source_, 0, "read error");
    if (pending_ != Pending::None) fail("the profile ends after a calls=/jump=/jcnd= line");
    if (events_.empty())
        throw ParseError(source_, 0, "not a Callgrind profile (no \"events:\" line)");
}

void Reader::line(const std::string& raw) {
    std::size_t b = 0;
    while (b < raw.size() && is_blank(raw[b])) ++b;
    if (b == raw.size() || raw[b] == '#') return;
    const char c = raw[b];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '*') {
        cost_line(raw);
        return;
    }
    std::size_t k = b;
    while (k < raw.size() && is_key_char(raw[k])) ++k;
    if (k > b && k < raw.size() && raw[k] == '=') {
        position_line(raw.substr(b, k - b), raw.substr(k + 1));
        return;
    }
    if (k > b && k < raw.size() && raw[k] == ':') {
        if (pending_ != Pending::None)
            fail("header line where the line after calls=/jump=/jcnd= was expected");
        std::size_t v = k + 1, e = raw.size();
        while (v < e && is_blank(raw[v])) ++v;
        while (e > v && is_blank(raw[e - 1])) --e;
        header_line(raw.substr(b, k - b), raw.substr(v, e - v), raw);
        return;
    }
    fail(
        "malformed line (neither a header line \"key: value\", a specification \"key=value\" "
        "nor a cost line)");
}

void Reader::header_line(const std::string& key, const std::string& value, const std::string& raw) {
    const bool trailer = key == "totals" || key == "summary";
    if (!any_part_ || (in_body_ && !trailer)) {
        // A new part: its own header and positions; the name compression
        // ids stay defined (Callgrind's --combine-dumps=yes writes parts
        // that use the ids of earlier ones).
        any_part_ = true;
        in_body_ = false;
        events_.clear();
        positions_ = {"line"};
        last_.clear();
        object_.clear();
        fn_file_ = file_ = "???";
        fn_.clear();
        have_fn_ = false;
        reset_call_spec();
        handler_.part();
    }
    if (key == "events") {
        events_ = split_words(value);
        if (events_.empty()) fail("\"events:\" names no event");
    } else if (key == "positions") {
        positions_ = split_words(value);
        if (positions_.empty()) fail("\"positions:\" names no subposition");
        for (const std::string& p : positions_)
            if (p != "line" && p != "instr" && p != "addr" && p != "bb")
                fail("unknown subposition '" + p + "' in \"positions:\"");
    } else if (trailer) {
        if (events_.empty()) fail("\"" + key + ":\" before the \"events:\" header line");
        const auto words = split_words(value);
        if (words.size() > events_.size())
            fail("\"" + key + ":\" has " + std::to_string(words.size()) +
                 " costs but \"events:\" names " + std::to_string(events_.size()));
        std::uint64_t v = 0;
        for (const std::string& w : words)
            if (!parse_number(w, v)) fail("bad cost '" + w + "' in \"" + key + ":\"");
    }
    handler_.header(key, value, raw);
}

void Reader::start_body() {
    if (in_body_) return;
    if (events_.empty()) fail("cost data before the \"events:\" header line");
    in_body_ = true;
    last_.assign(positions_.size(), 0);
}

void Reader::reset_call_spec() {
    for (std::optional<std::string>* o : {&cob_, &cfi_, &cfn_, &jfi_, &jfn_}) o->reset();
}

std::string Reader::name(NameTable& table, const std::string& v) const {
    if (v.size() < 3 || v[0] != '(') return v;
    const std::size_t close = v.find(')');
    if (close == std::string::npos || close == 1) return v;
    std::uint64_t id = 0;
    for (std::size_t i = 1; i < close; ++i) {
        if (!std::isdigit(static_cast<unsigned char>(v[i]))) return v;  // "(anonymous ...)"
        if (id > (UINT64_MAX - 9) / 10) fail("name compression id too large in '" + v + "'");
        id = id * 10 + static_cast<std::uint64_t>(v[i] - '0');
    }
    std::size_t rest = close + 1;
    while (rest < v.size() && is_blank(v[rest])) ++rest;
    if (rest == v.size()) {
        const auto it = table.find(id);
        if (it == table.end())
            fail("name compression id (" + std::to_string(id) + ") used before it was defined");
        return it->second;
    }
    return table[id] = v.substr(rest);
}

std::size_t Reader::subpos(const std::vector<std::string>& words, std::size_t first,
                           Subpos& out) const {
    const std::size_t n = positions_.size();
    if (words.size() < first + n)
        fail("fewer than the " + std::to_string(n) + " subpositions of \"positions:\"");
    out.assign(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
        const std::string& w = words[first + k];
        std::uint64_t v = 0;
        if (w == "*") {
            out[k] = last_[k];
        } else if (w[0] == '+' || w[0] == '-') {
            if (!parse_number(w.substr(1), v)) fail("bad relative subposition '" + w + "'");
            out[k] = w[0] == '+' ? last_[k] + v : last_[k] - v;
        } else if (parse_number(w, v)) {
            out[k] = v;
        } else {
            fail("bad subposition '" + w + "'");
        }
    }
    return first + n;
}

void Reader::position_line(const std::string& key, const std::string& value) {
    start_body();
    if (pending_ != Pending::None)
        fail("\"" + key + "=\" where the line after calls=/jump=/jcnd= was expected");
    if (key == "ob") {
        object_ = name(objects_, value);
    } else if (key == "fl") {
        fn_file_ = file_ = name(files_, value);
    } else if (key == "fi" || key == "fe") {
        file_ = name(files_, value);
    } else if (key == "fn") {
        fn_ = name(functions_, value);
        file_ = fn_file_;
        have_fn_ = true;
        reset_call_spec();
        handler_.function(object_, fn_file_, fn_);
    } else if (key == "cob") {
        cob_ = name(objects_, value);
    } else if (key == "cfi" || key == "cfl") {
        cfi_ = name(files_, value);
    } else if (key == "cfn") {
        cfn_ = name(functions_, value);
    } else if (key == "jfi") {
        jfi_ = name(files_, value);
    } else if (key == "jfn") {
        jfn_ = name(functions_, value);
    } else if (key == "calls") {
        if (!have_fn_) fail("calls= before any fn=");
        if (!cfn_) fail("calls= without a preceding cfn=");
        const auto words = split_words(value);
        if (words.empty() || !parse_number(words[0], call_.count))
            fail("bad call count in calls=" + value);
        subpos(words, 1, call_.target);
        call_.object = cob_.value_or(object_);
        call_.file = cfi_.value_or(file_);
        call_.name = *cfn_;
        cob_.reset();
        cfi_.reset();
        cfn_.reset();
        pending_ = Pending::Call;
    } else if (key == "jump" || key == "jcnd") {
        if (!have_fn_) fail(key + "= before any fn=");
        const auto words = split_words(value);
        if (words.empty()) fail("empty " + key + "=");
        jump_.conditional = key == "jcnd";
        if (jump_.conditional) {
            const std::size_t slash = words[0].find('/');
            if (slash == std::string::npos ||
                !parse_number(words[0].substr(0, slash), jump_.followed) ||
                !parse_number(words[0].substr(slash + 1), jump_.executed))
                fail("bad jcnd=FOLLOWED/EXECUTED count '" + words[0] + "'");
        } else {
            if (!parse_number(words[0], jump_.followed)) fail("bad jump count '" + words[0] + "'");
            jump_.executed = 0;
        }
        subpos(words, 1, jump_.target);
        jump_.file = jfi_.value_or(file_);
        jump_.function = jfn_.value_or(fn_);
        jfi_.reset();
        jfn_.reset();
        pending_ = Pending::Jump;
    } else if (key == "frfn") {
        name(functions_, value);  // may define an id used later
    } else if (key != "rec") {
        fail("unknown specification \"" + key + "=\"");
    }
}

void Reader::cost_line(const std::string& raw) {
    start_body();
    if (!have_fn_) fail("cost line before any fn=");
    const auto words = split_words(raw);
    Position pos{file_, {}};
    const std::size_t i = subpos(words, 0, pos.subpos);
    if (pending_ == Pending::Jump) {
        if (i != words.size()) fail("the line after jump=/jcnd= holds only the source position");
        pending_ = Pending::None;
        jump_.site = std::move(pos);
        handler_.jump(jump_);
        return;
    }
    if (words.size() - i > events_.size())
        fail("cost line has " + std::to_string(words.size() - i) + " costs but \"events:\" names " +
             std::to_string(events_.size()));
    Costs costs(events_.size(), 0);
    for (std::size_t k = i; k < words.size(); ++k)
        if (!parse_number(words[k], costs[k - i])) fail("bad cost '" + words[k] + "'");
    if (pending_ == Pending::Call) {
        pending_ = Pending::None;
        call_.site = std::move(pos);
        call_.inclusive = std::move(costs);
        handler_.call(call_);
        return;
    }
    last_ = pos.subpos;
    handler_.cost(pos, costs);
}

ContextName split_context_name(const std::string& name) {
    ContextName out;
    std::vector<std::string> pieces;
    std::size_t b = 0;
    for (;;) {
        const std::size_t q = name.find('\'', b);
        pieces.push_back(name.substr(b, q == std::string::npos ? std::string::npos : q - b));
        if (q == std::string::npos) break;
        b = q + 1;
    }
    for (const std::string& p : pieces)
        if (p.empty()) {
            out.function = name;
            return out;
        }
    out.function = pieces[0];
    std::size_t i = 1;
    if (pieces.size() > 1 && pieces[1].find_first_not_of("0123456789") == std::string::npos &&
        pieces[1].size() < 10) {
        out.recursion = std::stoul(pieces[1]);
        i = 2;
    }
    out.callers.assign(pieces.begin() + static_cast<std::ptrdiff_t>(i), pieces.end());
    return out;
}

std::string NameWriter::operator()(const std::string& n) {
    if (n.empty()) return n;  // "(N) " would read back as a reference to N
    const auto it = ids_.find(n);
    if (it != ids_.end()) return "(" + std::to_string(it->second) + ")";
    const std::size_t id = ids_.size() + 1;
    ids_.emplace(n, id);
    return "(" + std::to_string(id) + ") " + n;
}

std::string format_subpos(const std::vector<std::string>& positions, const Subpos& s) {
    std::ostringstream o;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i) o << ' ';
        if (i < positions.size() && (positions[i] == "instr" || positions[i] == "addr"))
            o << "0x" << std::hex << s[i] << std::dec;
        else
            o << s[i];
    }
    return o.str();
}

std::string format_costs(const Costs& c) {
    std::string s;
    std::size_t n = c.size();
    while (n > 1 && c[n - 1] == 0) --n;
    for (std::size_t i = 0; i < n; ++i) {
        s += ' ';
        s += std::to_string(c[i]);
    }
    return s;
}

}  // namespace callgrind
}  // namespace vgjit
