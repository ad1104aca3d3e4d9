//! Reading a program's arguments the way the program itself reads them.
//!
//! GNU `getopt_long` (coreutils, grep, file) takes a long option by any
//! unambiguous prefix of its name (`--temp=/x` is `--temporary-directory`),
//! its value after `=` or as the next word, clusters of short options with
//! a value attached to the last (`-nT/tmp`), and options after operands.
//! git's own parser takes prefixes too, but git's diff and revision options
//! do not, so for git only whole names are accepted here and a prefix is
//! denied with the name it stands for. ripgrep and tree know whole names
//! only. Every option of a table carries its verdict; an option the table
//! does not know is denied, since the program may read it as anything.

use crate::Denial;
use crate::check::short;

/// One word of a command after quote removal, and whether it is a glob
/// pattern that [`crate::run`] expands to the paths it matches.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Word<'a> {
    pub(crate) text: &'a str,
    pub(crate) glob: bool,
}

/// Whether and how an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Takes {
    /// None (`-n`, `--numeric-sort`).
    Nothing,
    /// Always: attached (`-k2`, `--key=2`) or as the next word (`-k 2`).
    Value,
    /// Optionally, and then only attached (`--color=never`, `-U5`).
    Attached,
    /// Always, and only attached (`--format=%h`; `--format` alone is an
    /// error).
    Joined,
}

/// One option of a program: its short letters, its long names, its value
/// and its verdict.
#[derive(Debug)]
pub(crate) struct Opt {
    /// Every short letter that means this option (`"qs"` where both do).
    pub(crate) short: &'static str,
    /// Every long name that means this option, without the dashes.
    pub(crate) long: &'static [&'static str],
    pub(crate) takes: Takes,
    /// Why the option is denied, as the end of a sentence; `None` when it
    /// only reads.
    pub(crate) denied: Option<&'static str>,
}

impl Opt {
    /// An option without a value.
    pub(crate) const fn flag(short: &'static str, long: &'static [&'static str]) -> Self {
        Self {
            short,
            long,
            takes: Takes::Nothing,
            denied: None,
        }
    }

    /// An option with a value, attached or as the next word.
    pub(crate) const fn value(short: &'static str, long: &'static [&'static str]) -> Self {
        Self {
            short,
            long,
            takes: Takes::Value,
            denied: None,
        }
    }

    /// An option with an optional value, attached only.
    pub(crate) const fn attached(short: &'static str, long: &'static [&'static str]) -> Self {
        Self {
            short,
            long,
            takes: Takes::Attached,
            denied: None,
        }
    }

    /// An option whose value must be attached (`--format=%h`).
    pub(crate) const fn joined(short: &'static str, long: &'static [&'static str]) -> Self {
        Self {
            short,
            long,
            takes: Takes::Joined,
            denied: None,
        }
    }

    /// The same option, denied for `why` ("writes its output to a file").
    pub(crate) const fn deny(self, why: &'static str) -> Self {
        Self {
            denied: Some(why),
            ..self
        }
    }

    /// How the option is best named in a reason: `--long`, else `-s`.
    fn name(&self) -> String {
        match (self.long.first(), self.short.chars().next()) {
            (Some(long), _) => format!("--{long}"),
            (None, Some(c)) => format!("-{c}"),
            (None, None) => String::new(),
        }
    }
}

/// How a program reads its long options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Long {
    /// Any unambiguous prefix is the option (GNU `getopt_long`).
    Prefixes,
    /// The program takes prefixes, but the policy accepts whole names only
    /// and denies a prefix naming what it stands for (git).
    WholeNamesOnly,
    /// The program knows whole names only (ripgrep, tree).
    Whole,
}

/// How a program reads its arguments.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Syntax {
    pub(crate) long: Long,
    /// The first operand ends the options (`+` in a `getopt` string: `tr`,
    /// `basename`).
    pub(crate) operand_ends_options: bool,
    /// `--end-of-options` ends the options like `--` (git).
    pub(crate) end_of_options: bool,
}

impl Syntax {
    /// GNU `getopt_long` with options and operands in any order.
    pub(crate) const GNU: Self = Self {
        long: Long::Prefixes,
        operand_ends_options: false,
        end_of_options: false,
    };
    /// GNU `getopt_long` stopping at the first operand.
    pub(crate) const GNU_IN_ORDER: Self = Self {
        long: Long::Prefixes,
        operand_ends_options: true,
        end_of_options: false,
    };
    /// git's parse-options and revision parser, whole names only.
    pub(crate) const GIT: Self = Self {
        long: Long::WholeNamesOnly,
        operand_ends_options: false,
        end_of_options: true,
    };
    /// Whole names only, options and operands in any order (ripgrep, tree).
    pub(crate) const WHOLE: Self = Self {
        long: Long::Whole,
        operand_ends_options: false,
        end_of_options: false,
    };
}

/// A command's operands, once its options are read and allowed.
#[derive(Debug, Default)]
pub(crate) struct Parsed<'a> {
    pub(crate) operands: Vec<Word<'a>>,
}

/// Sorts `args` into options and operands as `program` would, denying an
/// option the table does not know, an ambiguous prefix, a denied option,
/// a missing value, a glob where a value belongs and a glob that would be
/// read as an option.
pub(crate) fn parse<'a>(
    program: &str,
    table: &'static [Opt],
    syntax: Syntax,
    args: &[Word<'a>],
) -> Result<Parsed<'a>, Denial> {
    parse_tables(program, &[table], syntax, args)
}

/// [`parse`] with the options of several tables; where two hold the same
/// name or letter, the first wins.
pub(crate) fn parse_tables<'a>(
    program: &str,
    tables: &[&'static [Opt]],
    syntax: Syntax,
    args: &[Word<'a>],
) -> Result<Parsed<'a>, Denial> {
    let all = || tables.iter().copied().flat_map(<[Opt]>::iter);
    let mut parsed = Parsed::default();
    let mut i = 0;
    let mut options_ended = false;
    while i < args.len() {
        let word = args[i];
        i += 1;
        let text = word.text;
        if options_ended || text == "-" || !text.starts_with('-') {
            if word.glob && text.starts_with('-') {
                return Err(glob_option(program, text));
            }
            parsed.operands.push(word);
            options_ended |= syntax.operand_ends_options;
            continue;
        }
        if word.glob {
            return Err(glob_option(program, text));
        }
        if text == "--" || (syntax.end_of_options && text == "--end-of-options") {
            options_ended = true;
            continue;
        }
        if let Some(rest) = text.strip_prefix("--") {
            let (name, attached) = match rest.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (rest, None),
            };
            let opt = long_option(program, all, syntax.long, name, text)?;
            let value = match (opt.takes, attached) {
                (Takes::Nothing, Some(_)) => {
                    return Err(Denial::new(format!(
                        "`{program} {}`: `{}` takes no value",
                        short(text),
                        opt.name()
                    )));
                }
                (Takes::Nothing | Takes::Attached, None) => None,
                (Takes::Joined, None) => return Err(missing_value(program, text)),
                (_, Some(v)) => Some(Word {
                    text: v,
                    glob: word.glob,
                }),
                (Takes::Value, None) => {
                    let Some(next) = args.get(i) else {
                        return Err(missing_value(program, text));
                    };
                    i += 1;
                    Some(*next)
                }
            };
            given(program, text, opt, value)?;
            continue;
        }
        // A cluster of short options; the first that takes a value takes
        // the rest of the cluster, or the next word.
        let cluster = &text[1..];
        for (at, c) in cluster.char_indices() {
            let Some(opt) = all().find(|o| o.short.contains(c)) else {
                return Err(Denial::new(format!(
                    "`{program} -{c}`{} is not an option of `{program}` that the policy knows \
                     to be read-only",
                    in_cluster(text)
                )));
            };
            let rest = &cluster[at + c.len_utf8()..];
            let spelled = format!("-{c}");
            match opt.takes {
                Takes::Nothing => {
                    given(program, &spelled, opt, None)?;
                    continue;
                }
                Takes::Joined if rest.is_empty() => {
                    return Err(missing_value(program, &spelled));
                }
                Takes::Attached | Takes::Joined => {
                    let value = (!rest.is_empty()).then_some(Word {
                        text: rest,
                        glob: word.glob,
                    });
                    given(program, &spelled, opt, value)?;
                }
                Takes::Value => {
                    let value = if rest.is_empty() {
                        let Some(next) = args.get(i) else {
                            return Err(missing_value(program, &spelled));
                        };
                        i += 1;
                        *next
                    } else {
                        Word {
                            text: rest,
                            glob: word.glob,
                        }
                    };
                    given(program, &spelled, opt, Some(value))?;
                }
            }
            break;
        }
    }
    Ok(parsed)
}

/// The option `--name` stands for, as `program` reads it.
fn long_option<I: Iterator<Item = &'static Opt>>(
    program: &str,
    all: impl Fn() -> I,
    long: Long,
    name: &str,
    text: &str,
) -> Result<&'static Opt, Denial> {
    if let Some(opt) = all().find(|o| o.long.contains(&name)) {
        return Ok(opt);
    }
    let mut prefixed: Vec<&'static Opt> = Vec::new();
    for opt in all() {
        if !name.is_empty()
            && opt.long.iter().any(|l| l.starts_with(name))
            && !prefixed.iter().any(|p| std::ptr::eq(*p, opt))
        {
            prefixed.push(opt);
        }
    }
    let shown = short(text);
    match (long, prefixed.as_slice()) {
        (Long::Prefixes, [opt]) => Ok(opt),
        (Long::Prefixes, [_, _, ..]) => {
            let names: Vec<String> = prefixed.iter().take(4).map(|o| o.name()).collect();
            Err(Denial::new(format!(
                "`{program} {shown}` is ambiguous: it abbreviates {}",
                names.join(", ")
            )))
        }
        (Long::WholeNamesOnly, [opt]) => Err(Denial::new(match opt.denied {
            Some(why) => format!(
                "`{program} {shown}` abbreviates `{}`, which {why}",
                opt.name()
            ),
            None => format!(
                "`{program} {shown}` abbreviates `{}`; write the option in full",
                opt.name()
            ),
        })),
        _ => Err(Denial::new(format!(
            "`{program} {shown}` is not an option of `{program}` that the policy knows to be \
             read-only"
        ))),
    }
}

/// Denies an option that is denied ("`sort --temp=x` is read as
/// `--temporary-directory`, which …"), or that was given a glob as its
/// value.
fn given(program: &str, spelled: &str, opt: &Opt, value: Option<Word<'_>>) -> Result<(), Denial> {
    let name = spelled.split('=').next().unwrap_or(spelled);
    if let Some(why) = opt.denied {
        let full = opt.name();
        let shown = short(spelled);
        let is_own_name = opt.long.iter().any(|l| name == format!("--{l}"))
            || (name.len() == 2 && name.starts_with('-') && !name.starts_with("--"));
        return Err(Denial::new(if is_own_name {
            format!("`{program} {shown}` {why}")
        } else {
            format!("`{program} {shown}` is read as `{full}`, which {why}")
        }));
    }
    if let Some(v) = value
        && v.glob
    {
        return Err(Denial::new(format!(
            "the glob `{}` cannot be the value of `{program} {}`; quote it",
            short(v.text),
            short(name)
        )));
    }
    Ok(())
}

fn missing_value(program: &str, spelled: &str) -> Denial {
    Denial::new(format!("`{program} {}` needs a value", short(spelled)))
}

fn glob_option(program: &str, text: &str) -> Denial {
    Denial::new(format!(
        "the glob `{}` would be read by `{program}` as an option; quote it or start it with `./`",
        short(text)
    ))
}

/// " (in `-nT`)" when a letter came from a longer cluster.
fn in_cluster(text: &str) -> String {
    if text.chars().count() > 2 {
        format!(" (in `{}`)", short(text))
    } else {
        String::new()
    }
}
