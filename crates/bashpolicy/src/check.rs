//! From a command line to a [`Decision`]: the shell grammar's view of it,
//! with every shell feature other than pipes, lists and two stderr
//! redirections denied, and every word reduced to its literal text.

use std::io::Cursor;
use std::panic::{AssertUnwindSafe, catch_unwind};

use brush_parser::ast::{
    AndOr, Command, CommandPrefixOrSuffixItem, CompoundCommand, IoFileRedirectKind,
    IoFileRedirectTarget, IoRedirect, Pipeline, SeparatorOperator, SimpleCommand,
};
use brush_parser::word::{WordPiece, WordPieceWithSource};
use brush_parser::{Parser, ParserOptions};

use crate::glob::{self, Pattern};
use crate::{Decision, Denial, Glob, Plan, Stage, Stderr, Step, When, git, programs};

/// Commands longer than this many bytes are denied without parsing.
pub const MAX_COMMAND_BYTES: usize = 8 * 1024;
/// Commands whose brackets and backticks nest deeper than this are denied
/// without parsing: the parser recurses once per level and would overflow
/// the stack long before a sensible command needs this many.
pub const MAX_NESTING: usize = 16;

/// Decides whether `command` may run, and if so, what exactly runs.
///
/// Never panics; whatever cannot be parsed, or parses to anything the
/// policy does not know to be read-only, is denied with a reason.
#[must_use]
pub fn check(command: &str) -> Decision {
    let decision = match plan(command) {
        Ok(plan) => Decision::Allowed(plan),
        Err(denial) => Decision::Denied(denial),
    };
    log::debug!("bash policy: {command:?}: {}", decision.reason());
    decision
}

fn plan(command: &str) -> Result<Plan, Denial> {
    precheck(command)?;
    let options = parser_options();
    let parsed = catch_unwind(AssertUnwindSafe(|| {
        Parser::new(Cursor::new(command.as_bytes()), &options).parse_program()
    }));
    let program = match parsed {
        Ok(Ok(program)) => program,
        Ok(Err(e)) => {
            return Err(Denial::new(format!(
                "the command is not valid Bash ({})",
                one_line(&e.to_string())
            )));
        }
        Err(_) => return Err(Denial::new("the command could not be parsed")),
    };
    let mut steps = Vec::new();
    for list in &program.complete_commands {
        for item in &list.0 {
            if matches!(item.1, SeparatorOperator::Async) {
                return Err(Denial::new("`&` runs a command in the background"));
            }
            let and_or = &item.0;
            steps.push(Step {
                when: When::Always,
                pipeline: pipeline(&and_or.first, &options)?,
            });
            for next in &and_or.additional {
                let (when, p) = match next {
                    AndOr::And(p) => (When::IfSucceeded, p),
                    AndOr::Or(p) => (When::IfFailed, p),
                };
                steps.push(Step {
                    when,
                    pipeline: pipeline(p, &options)?,
                });
            }
        }
    }
    if steps.is_empty() {
        return Err(Denial::new("the command is empty"));
    }
    Ok(Plan { steps })
}

fn parser_options() -> ParserOptions {
    ParserOptions {
        // Bash runs scripts without extglob; `@(…)` is then not a pattern.
        enable_extended_globbing: false,
        ..ParserOptions::default()
    }
}

/// What is denied before the grammar sees the command: emptiness, size,
/// bytes no command line needs, and nesting the parser cannot survive.
fn precheck(command: &str) -> Result<(), Denial> {
    if command.trim().is_empty() {
        return Err(Denial::new("the command is empty"));
    }
    if command.len() > MAX_COMMAND_BYTES {
        return Err(Denial::new(format!(
            "the command is longer than {MAX_COMMAND_BYTES} bytes"
        )));
    }
    if command.contains('\0') {
        return Err(Denial::new("the command contains a NUL byte"));
    }
    if let Some(c) = command
        .chars()
        .find(|c| c.is_control() && *c != '\n' && *c != '\t')
    {
        return Err(Denial::new(format!(
            "the command contains the control character U+{:04X}",
            u32::from(c)
        )));
    }
    // The grammar's here-document reader can loop, allocating without end,
    // on a delimiter it cannot close (`<<$( <${`); no allowed command needs
    // one, so an unquoted `<<` is denied before it is parsed.
    if has_unquoted_here_document(command) {
        return Err(Denial::new("`<<` here-documents are not allowed"));
    }
    let mut depth = 0usize;
    for c in command.chars() {
        match c {
            '(' | '{' | '[' | '`' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(Denial::new(format!(
                        "the command nests brackets or backticks more than {MAX_NESTING} deep"
                    )));
                }
            }
            ')' | '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Whether `command` has a `<<` (not a `<<<` here-string) outside single
/// and double quotes and not after a backslash.
///
/// Quotes are tracked only as plain Bash sees them. A substitution starts
/// its quoting afresh even inside double quotes (`"$(cat <<x)"`), and
/// `$'…'` lets a backslash escape its quote, so when the command has one
/// of them any `<<` at all counts, `<<<` included (`\<<<x` is `<` and a
/// here-document): the grammar looped on `"$(ls[<<` and `\<<<E${$(` too.
fn has_unquoted_here_document(command: &str) -> bool {
    if ["$(", "${", "`", "$'"].iter().any(|s| command.contains(s)) {
        return command.contains("<<");
    }
    let bytes = command.as_bytes();
    let (mut single, mut double, mut i) = (false, false, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if !single => i += 1,
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            b'<' if !single && !double && bytes[i..].starts_with(b"<<<") => i += 2,
            b'<' if !single && !double && bytes[i..].starts_with(b"<<") => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

fn pipeline(p: &Pipeline, options: &ParserOptions) -> Result<Vec<Stage>, Denial> {
    if p.timed.is_some() {
        return Err(Denial::new("`time` runs another command"));
    }
    if p.bang {
        return Err(Denial::new("`!` before a command is not supported"));
    }
    let mut stages = Vec::with_capacity(p.seq.len());
    for command in &p.seq {
        let mut stage = match command {
            Command::Simple(simple) => simple_command(simple, options)?,
            Command::Compound(compound, _) => return Err(compound_denial(compound)),
            Command::Function(_) => return Err(Denial::new("defining a function is not allowed")),
            Command::ExtendedTest(..) => {
                return Err(Denial::new("`[[ … ]]` tests are not supported"));
            }
        };
        programs::check_stage(&stage)?;
        if stage.argv[0] == "git" {
            stage.argv = git::argv(&stage.argv);
        }
        stages.push(stage);
    }
    // A pipe into a program is checked like the program alone; what flows
    // in is text, and no allowed program runs what it reads.
    Ok(stages)
}

fn compound_denial(compound: &CompoundCommand) -> Denial {
    Denial::new(match compound {
        CompoundCommand::Arithmetic(_) => "`(( … ))` arithmetic is not supported",
        CompoundCommand::ArithmeticForClause(_) | CompoundCommand::ForClause(_) => {
            "`for` loops are not allowed"
        }
        CompoundCommand::BraceGroup(_) => "`{ … }` groups of commands are not allowed",
        CompoundCommand::Subshell(_) => "`( … )` runs commands in a subshell",
        CompoundCommand::CaseClause(_) => "`case` is not allowed",
        CompoundCommand::IfClause(_) => "`if` is not allowed",
        CompoundCommand::WhileClause(_) => "`while` loops are not allowed",
        CompoundCommand::UntilClause(_) => "`until` loops are not allowed",
        CompoundCommand::Coprocess(_) => "`coproc` runs a command in the background",
    })
}

fn simple_command(simple: &SimpleCommand, options: &ParserOptions) -> Result<Stage, Denial> {
    let mut words: Vec<Literal> = Vec::new();
    let mut stderr = Stderr::Output;
    let prefix = simple.prefix.iter().flat_map(|p| &p.0);
    for item in prefix {
        match item {
            CommandPrefixOrSuffixItem::AssignmentWord(_, word) => {
                return Err(Denial::new(format!(
                    "`{}` before a command changes its environment",
                    short(&word.value)
                )));
            }
            CommandPrefixOrSuffixItem::IoRedirect(r) => stderr = redirect(r)?,
            CommandPrefixOrSuffixItem::ProcessSubstitution(..) => {
                return Err(process_substitution());
            }
            CommandPrefixOrSuffixItem::Word(word) => words.push(literal(&word.value, options)?),
        }
    }
    let Some(name) = &simple.word_or_name else {
        return Err(Denial::new("there is no command to run"));
    };
    words.push(literal(&name.value, options)?);
    for item in simple.suffix.iter().flat_map(|s| &s.0) {
        match item {
            // `name=value` after the command name is an ordinary argument
            // (`find -name x=y`); its expansions are checked as for any word.
            CommandPrefixOrSuffixItem::Word(word)
            | CommandPrefixOrSuffixItem::AssignmentWord(_, word) => {
                words.push(literal(&word.value, options)?);
            }
            CommandPrefixOrSuffixItem::IoRedirect(r) => stderr = redirect(r)?,
            CommandPrefixOrSuffixItem::ProcessSubstitution(..) => {
                return Err(process_substitution());
            }
        }
    }
    let mut argv = Vec::with_capacity(words.len());
    let mut globs = Vec::new();
    for (arg, word) in words.into_iter().enumerate() {
        if let Some(pattern) = word.glob {
            if arg == 0 {
                return Err(Denial::new(format!(
                    "the program name `{}` is a glob pattern; name an allowed program",
                    short(&word.text)
                )));
            }
            Pattern::parse(&pattern).check(&word.text)?;
            globs.push(Glob { arg, pattern });
        }
        argv.push(word.text);
    }
    Ok(Stage {
        argv,
        stderr,
        globs,
    })
}

/// A word after quote removal, and its glob pattern when it has one.
struct Literal {
    /// What the program gets when nothing is expanded.
    text: String,
    /// The word as a glob pattern, quoted characters escaped, when it holds
    /// an unquoted `*`, `?` or `[…]`.
    glob: Option<String>,
}

fn process_substitution() -> Denial {
    Denial::new("`<(…)` and `>(…)` run a command (process substitution)")
}

/// The two redirections [`crate::run`] performs itself, `2>/dev/null` and
/// `2>&1`; every other one is denied.
fn redirect(r: &IoRedirect) -> Result<Stderr, Denial> {
    match r {
        IoRedirect::File(fd, kind, target) => {
            match (fd, kind, target) {
                (Some(2), IoFileRedirectKind::Write, IoFileRedirectTarget::Filename(w))
                    if w.value == "/dev/null" =>
                {
                    return Ok(Stderr::Null);
                }
                (Some(2), IoFileRedirectKind::DuplicateOutput, IoFileRedirectTarget::Fd(1)) => {
                    return Ok(Stderr::Stdout);
                }
                (
                    Some(2),
                    IoFileRedirectKind::DuplicateOutput,
                    IoFileRedirectTarget::Duplicate(w),
                ) if w.value == "1" => return Ok(Stderr::Stdout),
                _ => {}
            }
            if matches!(target, IoFileRedirectTarget::ProcessSubstitution(..)) {
                return Err(process_substitution());
            }
            Err(Denial::new(match kind {
                IoFileRedirectKind::Write => "`>` redirects output to a file",
                IoFileRedirectKind::Append => "`>>` appends output to a file",
                IoFileRedirectKind::Clobber => "`>|` overwrites a file",
                IoFileRedirectKind::ReadAndWrite => "`<>` opens a file for reading and writing",
                IoFileRedirectKind::Read => {
                    "`<` redirects input from a file; name the file as an argument instead"
                }
                IoFileRedirectKind::DuplicateInput => "`<&` duplicates a file descriptor",
                IoFileRedirectKind::DuplicateOutput => {
                    "`>&` redirects output; only `2>&1` and `2>/dev/null` are allowed"
                }
            }))
        }
        IoRedirect::HereDocument(..) => Err(Denial::new("`<<` here-documents are not allowed")),
        IoRedirect::HereString(..) => Err(Denial::new("`<<<` here-strings are not allowed")),
        IoRedirect::OutputAndError(..) => {
            Err(Denial::new("`&>` redirects output and errors to a file"))
        }
    }
}

/// A word as the program will receive it, quotes removed, with its glob
/// pattern if it has one; denied if it holds anything else a shell would
/// expand.
fn literal(word: &str, options: &ParserOptions) -> Result<Literal, Denial> {
    let pieces = catch_unwind(|| brush_parser::word::parse(word, options));
    let Ok(Ok(pieces)) = pieces else {
        return Err(Denial::new(format!(
            "the word `{}` could not be parsed",
            short(word)
        )));
    };
    let mut out = String::new();
    // The same word as a glob pattern: unquoted text as it is, everything
    // quoted or escaped made literal.
    let mut pattern = String::new();
    let quoted = |text: &str, out: &mut String, pattern: &mut String| {
        out.push_str(text);
        for c in text.chars() {
            glob::escape_into(pattern, c);
        }
    };
    for piece in &pieces {
        match &piece.piece {
            WordPiece::Text(text) => {
                unquoted_text(text, piece, word)?;
                out.push_str(text);
                pattern.push_str(text);
            }
            WordPiece::SingleQuotedText(text) => quoted(text, &mut out, &mut pattern),
            WordPiece::DoubleQuotedSequence(inner) => {
                for p in inner {
                    match &p.piece {
                        WordPiece::Text(text) => {
                            dollar_is_literal(text, p, word)?;
                            if text.contains('`') {
                                return Err(backticks());
                            }
                            quoted(text, &mut out, &mut pattern);
                        }
                        WordPiece::EscapeSequence(seq) => {
                            // In double quotes a backslash quotes only
                            // `$`, `` ` ``, `"`, `\` and a newline.
                            match seq.strip_prefix('\\') {
                                Some("\n") => {}
                                Some(c @ ("$" | "`" | "\"" | "\\")) => {
                                    quoted(c, &mut out, &mut pattern);
                                }
                                _ => quoted(seq, &mut out, &mut pattern),
                            }
                        }
                        other => return Err(expansion(other, p, word)),
                    }
                }
            }
            WordPiece::EscapeSequence(seq) => match seq.strip_prefix('\\') {
                Some("\n") => {}
                Some(c) if !c.is_empty() => quoted(c, &mut out, &mut pattern),
                _ => return Err(Denial::new("a trailing `\\` escapes nothing")),
            },
            other => return Err(expansion(other, piece, word)),
        }
    }
    let glob = Pattern::parse(&pattern).is_glob().then_some(pattern);
    Ok(Literal { text: out, glob })
}

/// Denies what unquoted text may not hold; glob characters it may (the
/// runner expands them).
fn unquoted_text(text: &str, piece: &WordPieceWithSource, word: &str) -> Result<(), Denial> {
    // `{a,b}` and `{1..3}` expand; `{}` and `HEAD@{1}` are literal.
    if let Some(open) = text.find('{')
        && (text[open..].contains(',') || text[open..].contains(".."))
    {
        return Err(Denial::new(
            "unquoted `{…,…}` is brace expansion, which is not expanded; quote it to pass it on",
        ));
    }
    if text.contains('`') {
        return Err(backticks());
    }
    if let Some(c) = text
        .chars()
        .find(|c| matches!(c, '\\' | '(' | ')' | '<' | '>' | '|' | '&' | ';'))
    {
        return Err(Denial::new(format!(
            "unquoted `{c}` is not understood here"
        )));
    }
    dollar_is_literal(text, piece, word)
}

/// A `$` that the grammar left as text is literal only where no
/// expansion can start: at the end of the word or before a space, a quote,
/// `|` or `)` (`grep 'a$|b$'` needs none of this; `grep "^foo$"` does).
fn dollar_is_literal(text: &str, piece: &WordPieceWithSource, word: &str) -> Result<(), Denial> {
    for (i, _) in text.match_indices('$') {
        let next = text[i + 1..]
            .chars()
            .next()
            .or_else(|| word.get(piece.end_index..).and_then(|r| r.chars().next()));
        let literal = match next {
            None => true,
            Some(c) => c.is_whitespace() || matches!(c, '"' | '\'' | '|' | ')'),
        };
        if !literal {
            return Err(Denial::new(
                "`$` starts an expansion, which is not expanded; quote it with '…'",
            ));
        }
    }
    Ok(())
}

fn backticks() -> Denial {
    Denial::new("backticks (`…`) run a command")
}

fn expansion(piece: &WordPiece, source: &WordPieceWithSource, word: &str) -> Denial {
    let text = word
        .get(source.start_index..source.end_index)
        .map(short)
        .unwrap_or_default();
    Denial::new(match piece {
        WordPiece::CommandSubstitution(_) => "`$(…)` runs a command".to_owned(),
        WordPiece::BackquotedCommandSubstitution(_) => return backticks(),
        WordPiece::ParameterExpansion(_) => {
            format!("`{text}` expands a variable, which is not allowed; write its value instead")
        }
        WordPiece::ArithmeticExpression(_) => {
            format!("`{text}` is arithmetic expansion, which is not allowed")
        }
        WordPiece::TildeExpansion(_) => format!(
            "`{text}` expands to a home folder, which is not allowed; write the full path instead"
        ),
        WordPiece::AnsiCQuotedText(_) => {
            "`$'…'` quoting is not supported; use '…' instead".to_owned()
        }
        WordPiece::GettextDoubleQuotedSequence(_) => {
            "`$\"…\"` quoting is not supported; use \"…\" instead".to_owned()
        }
        WordPiece::Text(_)
        | WordPiece::SingleQuotedText(_)
        | WordPiece::DoubleQuotedSequence(_)
        | WordPiece::EscapeSequence(_) => format!("`{text}` is not understood here"),
    })
}

/// A word short enough to quote in a reason.
pub(crate) fn short(text: &str) -> String {
    const MAX: usize = 40;
    let line = one_line(text);
    if line.chars().count() <= MAX {
        line
    } else {
        let cut: String = line.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
