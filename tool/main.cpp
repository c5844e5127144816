// main.cpp: vg-jit, the command-line companion of valgrind-jit.
//
// Each subcommand declares its options with CLI11 in make_cli(): names,
// value placeholder, text and checks, once.  --help, `help COMMAND` and
// `COMMAND --help` render the manual from those declarations plus the
// prose of manual.hpp; the vg-jit(1) man page is made from --help by help2man at
// build time (tool/Makefile.am, tool/vg-jit.h2m), so no text is written
// twice.  Exit statuses: kExitClean, kExitProblems, kExitUsage.
#include "commands.hpp"
#include "manual.hpp"

#include <CLI/CLI.hpp>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace vgjit;
using namespace vgjit::manual_text;

const char* const kVersion = "vg-jit 0.1.0";

// ---------------------------------------------------------------------------
// The command line
// ---------------------------------------------------------------------------

/// What the command line asked for, filled in by CLI11 while parsing.
struct Request {
    CheckOptions check;
    DumpOptions dump;
    std::string dump_file;
    AnnotateOptions annotate;
    ExportCmdOptions export_cmd;
    ProfilesOptions profiles;
    std::string help_topic;
    std::string check_format = "auto", dump_format = "auto";
    std::vector<std::string> check_files;
};

/// Refuses an empty value ("--map=", "--event=").
const CLI::Validator kNonEmpty(
    [](std::string& v) { return v.empty() ? std::string("the value is empty") : std::string(); },
    "", "non-empty");

/// --format of check and dump, into `value` (see to_format()).
void add_input_format(CLI::App* cmd, std::string& value) {
    cmd->add_option("--format", value,
                    "Do not guess the format of each FILE: FMT is auto (the default), "
                    "jitdump, perfmap or elf.")
        ->type_name("FMT")
        ->check(CLI::IsMember({"auto", "jitdump", "perfmap", "perf-map", "elf"}).description(""));
}

Format to_format(const std::string& v) {
    if (v == "jitdump") return Format::Jitdump;
    if (v == "perfmap" || v == "perf-map") return Format::Perfmap;
    if (v == "elf") return Format::Elf;
    return Format::Auto;
}

/// The command-line interface: every command, its options and their texts.
/// Options given twice take the last value; "--" ends the options.  It is
/// one function because it is a flat list of declarations, one command
/// after another in the order the manual shows them.
void make_cli(CLI::App& app, Request& r) {
    app.description(kSummary);
    app.footer(kDescription);
    app.set_help_flag("-h,--help", "Print this manual; after a command, its part of it.");
    app.set_version_flag("--version", kVersion, "Print the version.");
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.require_subcommand(1);

    CLI::App* check = app.add_subcommand("check", "Validate files.");
    check->footer(kCheckText);
    check->add_flag("--strict", r.check.strict, "Warnings count as problems for the exit status.");
    check->add_flag("-q,--quiet", r.check.quiet, "No summary lines; print only problems.");
    add_input_format(check, r.check_format);
    check->add_option("FILE", r.check_files, "A jitdump file, perf map or ELF object.")->required();

    CLI::App* dump = app.add_subcommand("dump", "List a file's records.");
    dump->footer(kDumpText);
    dump->add_flag("--json", r.dump.json, "Print one JSON object instead of text.");
    add_input_format(dump, r.dump_format);
    dump->add_option("FILE", r.dump_file, "A jitdump file, perf map or ELF object.")->required();

    CLI::App* annotate = app.add_subcommand("annotate", "Name jitted code in a Callgrind profile.");
    annotate->footer(kAnnotateText);
    annotate
        ->add_option("--map", r.annotate.maps,
                     "A jitdump file or perf map naming jitted code (repeat for several; later "
                     "entries win on overlap).")
        ->type_name("FILE")
        ->required()
        ->check(kNonEmpty)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    annotate
        ->add_option("-o,--output", r.annotate.output,
                     "Where to write the rewritten profile (\"-\" or none: stdout).")
        ->type_name("OUT")
        ->check(kNonEmpty);
    annotate->add_flag("-v,--verbose", r.annotate.verbose,
                       "Print what was read and written to stderr.");
    annotate->add_option("PROFILE", r.annotate.profile, "A Callgrind profile.")->required();

    CLI::App* exp = app.add_subcommand("export", "Convert profiles for other viewers.");
    exp->footer(kExportText);
    exp->add_option("--format", r.export_cmd.format,
                    "The output format: firefox (the default) or folded.")
        ->type_name("FMT")
        ->check(CLI::IsMember({"firefox", "folded"}).description(""));
    exp->add_option("--event", r.export_cmd.event,
                    "The event whose counts weigh the samples (default Ir).")
        ->type_name("EV")
        ->check(kNonEmpty);
    exp->add_option("-o,--output", r.export_cmd.output,
                    "Where to write the converted profile (\"-\" or none: stdout).")
        ->type_name("OUT")
        ->check(kNonEmpty);
    exp->add_flag("-v,--verbose", r.export_cmd.verbose,
                  "Print what was read and written to stderr.");
    exp->add_option("PROFILE", r.export_cmd.profiles,
                    "Callgrind or Cachegrind profiles of one run, in order (of one or "
                    "several processes).")
        ->required();

    CLI::App* profiles =
        app.add_subcommand("profiles", "List the processes of profiles by their JIT code.");
    profiles->footer(kProfilesText);
    profiles->add_flag("--json", r.profiles.json, "Print one JSON object instead of a table.");
    profiles
        ->add_option("--event", r.profiles.event,
                     "The event to count (default: the first event of the first profile, Ir "
                     "for Callgrind).")
        ->type_name("EV")
        ->check(kNonEmpty);
    profiles
        ->add_option("PROFILE", r.profiles.inputs,
                     "Callgrind or Cachegrind profiles, or directories holding them "
                     "(callgrind.out.*, cachegrind.out.*).")
        ->required();

    CLI::App* help = app.add_subcommand("help", "Print the manual.");
    help->footer(kHelpText);
    help->add_option("COMMAND", r.help_topic, "A command.");
}

// ---------------------------------------------------------------------------
// Rendering the manual from the declarations
// ---------------------------------------------------------------------------

/// Appends text block `block` (see the convention above) with every line
/// indented by `indent` blanks; empty lines stay empty.  Indented running
/// text gets single blanks between sentences: help2man reads "  " inside
/// an indented line as the gap after a tag.
void append_block(std::string& out, const std::string& block, std::size_t indent) {
    std::istringstream in(block);
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) {
            out += "\n";
            continue;
        }
        if (indent > 0 && line[0] != ' ')
            for (std::size_t at; (at = line.find("  ")) != std::string::npos;) line.erase(at, 1);
        out += std::string(indent, ' ') + line + "\n";
    }
}

/// `text` wrapped at 79 columns, every line indented by `indent` blanks.
std::string wrap(const std::string& text, std::size_t indent) {
    std::istringstream in(text);
    std::string out, line;
    for (std::string word; in >> word;) {
        if (!line.empty() && indent + line.size() + 1 + word.size() > 79) {
            out += std::string(indent, ' ') + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
    return out;
}

/// Whether option `o` takes a value (flags do not).
bool takes_value(const CLI::Option* o) { return o->get_expected_max() > 0; }

/// "-o, --output=OUT": the option's names, and its value's placeholder.
std::string option_label(const CLI::Option* o) {
    std::string label;
    for (const std::string& s : o->get_snames()) label += (label.empty() ? "-" : ", -") + s;
    for (const std::string& l : o->get_lnames()) label += (label.empty() ? "--" : ", --") + l;
    if (takes_value(o)) label += "=" + o->get_type_name();
    return label;
}

/// "vg-jit check [--strict] [--quiet] [--format=FMT] FILE...", from the
/// declarations of command `cmd`.
std::string synopsis(const CLI::App* cmd) {
    std::string out = "vg-jit " + cmd->get_name();
    for (const CLI::Option* o : cmd->get_options()) {
        if (o == cmd->get_help_ptr() || o->get_positional()) continue;
        std::string item = "--" + o->get_lnames().at(0);
        if (takes_value(o)) item += "=" + o->get_type_name();
        if (o->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll) item += "...";
        out += " " + (o->get_required() ? item : "[" + item + "]");
    }
    for (const CLI::Option* o : cmd->get_options()) {
        if (!o->get_positional()) continue;
        std::string item = o->get_name();
        if (o->get_items_expected_max() > 1) item += "...";
        out += " " + (o->get_required() ? item : "[" + item + "]");
    }
    return out;
}

/// An options list: "  LABEL  text", the text at column 24 (or on the next
/// line under a long label).
std::string option_list(const std::vector<const CLI::Option*>& options) {
    std::string out;
    for (const CLI::Option* o : options) {
        const std::string label = "  " + option_label(o);
        const std::string text = wrap(o->get_description(), 24);
        out += label.size() + 2 <= 24 ? label + text.substr(label.size()) : label + "\n" + text;
    }
    return out;
}

/// The entry of command `cmd`: its synopsis, its text, its options (the
/// help flag aside).
std::string command_entry(const CLI::App* cmd) {
    std::string out = synopsis(cmd) + "\n";
    append_block(out, cmd->get_footer(), 2);
    std::vector<const CLI::Option*> options;
    for (const CLI::Option* o : cmd->get_options())
        if (o != cmd->get_help_ptr() && !o->get_positional()) options.push_back(o);
    if (!options.empty()) out += "\n" + option_list(options);
    return out;
}

/// The whole manual, laid out for help2man: "Usage:" lines, the summary,
/// the description, the commands, the exit statuses, the general options
/// and the examples.
std::string manual(const CLI::App& app) {
    std::string out;
    bool first = true;
    for (const CLI::App* cmd : app.get_subcommands({})) {
        out += (first ? "Usage: " : "  or:  ") + synopsis(cmd) + "\n";
        first = false;
    }
    out += "  or:  vg-jit --help | --version\n";
    out += app.get_description() + "\n\n";
    append_block(out, app.get_footer(), 0);
    out += "\nCommands:\n";
    for (const CLI::App* cmd : app.get_subcommands({})) out += "\n" + command_entry(cmd);
    out += "\nExit status:\n";
    append_block(out, kExitText, 0);
    out += "\nOptions:\n";
    std::vector<const CLI::Option*> general;
    for (const CLI::Option* o : app.get_options()) general.push_back(o);
    out += option_list(general);
    out += "\nExamples:\n";
    append_block(out, kExamples, 0);
    return out;
}

/// The help of one command: "Usage: " and its entry of the manual.
std::string command_help(const CLI::App* cmd) { return "Usage: " + command_entry(cmd); }

/// Every command, in the order declared.
std::vector<const CLI::App*> all_commands(const CLI::App& app) { return app.get_subcommands({}); }

int usage_error(const std::string& msg) {
    std::cerr << "vg-jit: " << msg << "\n"
              << "Try 'vg-jit --help' for more information.\n";
    return kExitUsage;
}

/// The error CLI11 reported about command `cmd` (null: no command),
/// said the way vg-jit's other messages are.
std::string describe(const CLI::ParseError& e, const CLI::App* cmd) {
    const std::string msg = e.what();
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
        // "The following argument(s) was/were not expected: A B"
        const std::size_t colon = msg.find(": ");
        std::istringstream extras(colon == std::string::npos ? msg : msg.substr(colon + 2));
        std::string first;
        extras >> first;
        return (first.size() > 1 && first[0] == '-' ? "unknown option '"
                                                    : "unexpected argument '") +
               first + "'";
    }
    if (dynamic_cast<const CLI::RequiredError*>(&e) && cmd)
        for (const CLI::Option* o : cmd->get_options())
            if (o->get_positional() && msg == o->get_name() + " is required")
                return "no " + o->get_name() + " given";
    return msg;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app;
    Request r;
    make_cli(app, r);

    // CLI11 would call these "arguments not expected"; say what is wrong.
    if (argc < 2) return usage_error("no command given");
    const std::string first = argv[1];
    bool known = first == "-h" || first == "--help" || first == "--version";
    for (const CLI::App* c : all_commands(app)) known = known || c->get_name() == first;
    if (!known && first.size() > 1 && first[0] == '-')
        return usage_error("unknown option '" + first + "'");
    if (!known) return usage_error("unknown command '" + first + "'");
    // CLI11 would read "--event= X" as "--event X".
    for (int i = 2; i < argc && std::string(argv[i]) != "--"; ++i) {
        const std::string a = argv[i];
        if (a.size() > 3 && a.compare(0, 2, "--") == 0 && a.find('=') == a.size() - 1)
            return usage_error(first + ": option '" + a + "' has an empty value");
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        const std::vector<CLI::App*> cmds = app.get_subcommands();
        std::cout << (cmds.empty() ? manual(app) : command_help(cmds[0]));
        return kExitClean;
    } catch (const CLI::CallForVersion&) {
        std::cout << kVersion << "\n";
        return kExitClean;
    } catch (const CLI::ParseError& e) {
        const std::vector<CLI::App*> cmds = app.get_subcommands();
        if (cmds.empty()) return usage_error(describe(e, nullptr));
        return usage_error(cmds[0]->get_name() + ": " + describe(e, cmds[0]));
    }

    const CLI::App* cmd = app.get_subcommands().at(0);
    const std::string name = cmd->get_name();
    if (name == "check") {
        r.check.analyze.format = to_format(r.check_format);
        return run_check(r.check_files, r.check, std::cout);
    }
    if (name == "dump") {
        r.dump.analyze.format = to_format(r.dump_format);
        return run_dump(r.dump_file, r.dump, std::cout);
    }
    if (name == "annotate") return run_annotate(r.annotate);
    if (name == "export") return run_export(r.export_cmd);
    if (name == "profiles") return run_profiles(r.profiles, std::cout);
    // help [COMMAND]
    if (r.help_topic.empty()) {
        std::cout << manual(app);
        return kExitClean;
    }
    const CLI::App* topic = nullptr;
    for (const CLI::App* c : all_commands(app))
        if (c->get_name() == r.help_topic) topic = c;
    if (!topic) return usage_error("help: unknown command '" + r.help_topic + "'");
    std::cout << command_help(topic);
    return kExitClean;
}
