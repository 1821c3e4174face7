//! spur's man pages and shell completions, rendered from the very clap
//! `Command`s that parse each command's options, so that a page lists what
//! the parser accepts and nothing else. A command marks the options it
//! accepts without acting on them ([`not_acted`]); the page says so beside
//! their help line. Front ends hand their `Command`s in; this crate knows
//! nothing of any one command.

use std::io;
use std::path::{Path, PathBuf};

use clap::{Arg, Command};
use clap_complete::Shell;

/// The note a page carries for an option spur accepts and ignores.
pub const NOT_ACTED_NOTE: &str = "Accepted for compatibility; spur does not act on it.";

/// One file to write: where it goes (relative to the install folder) and
/// what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Doc {
    /// e.g. `man/man1/sbatch.1`, `bash-completion/completions/sbatch`.
    pub path: PathBuf,
    /// The file's bytes.
    pub bytes: Vec<u8>,
}

/// `cmd` with `note` added to the help of each option named in `longs`
/// (long names, without dashes), as the man page shows it. The short help
/// a command prints for `--help` stays as it was.
///
/// # Panics
/// When a name is not one of `cmd`'s options: a list of options that are
/// not acted on must not outlive an option.
pub fn annotate(cmd: Command, longs: &[&str], note: &str) -> Command {
    let mut cmd = cmd;
    for long in longs {
        let id = cmd
            .get_arguments()
            .find(|a| a.get_long() == Some(long))
            .map(|a| a.get_id().clone())
            .unwrap_or_else(|| panic!("{} has no option --{long}", cmd.get_name()));
        cmd = cmd.mut_arg(id, |arg| with_note(arg, note));
    }
    cmd
}

/// `cmd` with [`NOT_ACTED_NOTE`] beside each option in `longs`.
pub fn not_acted(cmd: Command, longs: &[&str]) -> Command {
    annotate(cmd, longs, NOT_ACTED_NOTE)
}

/// `arg` whose long help is its help followed by `note`.
fn with_note(arg: Arg, note: &str) -> Arg {
    let help = arg
        .get_long_help()
        .or_else(|| arg.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default();
    let help = help.trim_end().trim_end_matches('.');
    let text = if help.is_empty() {
        note.to_string()
    } else {
        format!("{help}. {note}")
    };
    arg.long_help(text)
}

/// The command as its page shows it: every option it accepts visible (a
/// hidden option is still accepted), with its aliases named.
fn for_page(cmd: &Command) -> Command {
    cmd.clone().mut_args(|arg| {
        let mut also: Vec<String> = arg
            .get_all_aliases()
            .unwrap_or_default()
            .into_iter()
            .map(|a| format!("--{a}"))
            .collect();
        also.extend(
            arg.get_all_short_aliases()
                .unwrap_or_default()
                .into_iter()
                .map(|c| format!("-{c}")),
        );
        let arg = arg.hide(false);
        // What --help shows as `<name>` when no value name was given.
        // (A flag that takes no value may still be declared as a `Set`
        // of none.)
        let no_value = arg.get_num_args().is_some_and(|n| n.max_values() == 0);
        let takes = arg.get_action().takes_values() && !no_value && !arg.is_positional();
        let arg = if takes && arg.get_value_names().is_none() {
            let name = arg.get_id().as_str().to_string();
            arg.value_name(name)
        } else {
            arg
        };
        if also.is_empty() {
            arg
        } else {
            let note = format!("Also accepted as {}", also.join(", "));
            with_note(arg, &format!("{note}."))
        }
    })
}

/// The man pages of `cmd`: `man/man1/<name>.1`, and one
/// `man/man1/<name>-<sub>.1` for each subcommand it shows, and so on down
/// (`spurd-mesh-status.1`), each page after its parent's.
pub fn pages(cmd: &Command) -> io::Result<Vec<Doc>> {
    let mut cmd = for_page(cmd);
    cmd.build();
    let mut out = Vec::new();
    add_pages(&cmd, cmd.get_name(), cmd.get_name(), &mut out)?;
    Ok(out)
}

/// `cmd`'s page as `name` (its command line `bin`), then its subcommands'.
fn add_pages(cmd: &Command, name: &str, bin: &str, out: &mut Vec<Doc>) -> io::Result<()> {
    out.push(page(cmd, name)?);
    // clap's own `help` subcommand needs no page.
    let shown = |s: &&Command| !s.is_hide_set() && s.get_name() != "help";
    for sub in cmd.get_subcommands().filter(shown) {
        let sub_name = format!("{name}-{}", sub.get_name());
        let sub_bin = format!("{bin} {}", sub.get_name());
        let sub = for_page(sub).bin_name(sub_bin.clone());
        add_pages(&sub, &sub_name, &sub_bin, out)?;
    }
    Ok(())
}

fn page(cmd: &Command, name: &str) -> io::Result<Doc> {
    let mut bytes = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .title(name.to_uppercase())
        .section("1")
        .date(date())
        .source(format!("spur {}", env!("CARGO_PKG_VERSION")))
        .manual("spur")
        .render(&mut bytes)?;
    Ok(Doc {
        path: Path::new("man/man1").join(format!("{name}.1")),
        bytes,
    })
}

/// The pages' date: SOURCE_DATE_EPOCH's day for a reproducible build, else
/// today's.
fn date() -> String {
    let now = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        });
    spur_slurm::time::timestamp(now)
        .chars()
        .take("YYYY-MM-DD".len())
        .collect()
}

/// The completions of `cmd` for bash, zsh and fish, where each shell
/// looks for them under a `share` folder.
pub fn completions(cmd: &Command) -> Vec<Doc> {
    let name = cmd.get_name().to_string();
    [
        (Shell::Bash, format!("bash-completion/completions/{name}")),
        (Shell::Zsh, format!("zsh/site-functions/_{name}")),
        (
            Shell::Fish,
            format!("fish/vendor_completions.d/{name}.fish"),
        ),
    ]
    .into_iter()
    .map(|(shell, path)| {
        let mut cmd = for_page(cmd);
        let mut bytes = Vec::new();
        clap_complete::generate(shell, &mut cmd, name.clone(), &mut bytes);
        Doc {
            path: PathBuf::from(path),
            bytes,
        }
    })
    .collect()
}

/// Writes the pages and completions of every command in `cmds` under
/// `share` (`share/man/man1/...`, `share/bash-completion/...`, ...) and
/// returns the files written.
pub fn install(share: &Path, cmds: &[Command]) -> io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for cmd in cmds {
        let mut docs = pages(cmd)?;
        docs.extend(completions(cmd));
        for doc in docs {
            let path = share.join(&doc.path);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&path, &doc.bytes)?;
            written.push(path);
        }
    }
    Ok(written)
}

/// A page's text with roff's escapes and font changes taken out: enough
/// to look for an option's name in it.
pub fn plain(roff: &[u8]) -> String {
    let text = String::from_utf8_lossy(roff);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('-') => out.push('-'),
            Some('\\') | Some('e') => out.push('\\'),
            // A font change: \fB, \fI, \fR, \fP, or \f[name].
            Some('f') => skip_font(&mut chars),
            Some('(') => {
                let code: String = chars.by_ref().take(2).collect();
                out.push_str(match code.as_str() {
                    "aq" => "'",
                    "dq" => "\"",
                    "ga" => "`",
                    "ti" => "~",
                    "ha" => "^",
                    _ => "?",
                });
            }
            Some('*') => {
                // A string: \*(Aq is clap_mangen's apostrophe.
                let name: String = match chars.next() {
                    Some('(') => chars.by_ref().take(2).collect(),
                    Some('[') => chars.by_ref().take_while(|&c| c != ']').collect(),
                    Some(c) => c.to_string(),
                    None => String::new(),
                };
                out.push_str(if name == "Aq" { "'" } else { "?" });
            }
            Some('&') => {}
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// Skips a font name after `\f`: one letter, or `[name]`.
fn skip_font(chars: &mut impl Iterator<Item = char>) {
    if chars.next() == Some('[') {
        chars.take_while(|&c| c != ']').for_each(drop);
    }
}

/// The options `cmd` accepts (`--long`, `-s` and their aliases) that the
/// page text `page` (see [`plain`]) does not name.
pub fn missing_options(cmd: &Command, page: &str) -> Vec<String> {
    let mut cmd = cmd.clone();
    cmd.build();
    let mut missing = Vec::new();
    for arg in cmd.get_arguments().filter(|a| !a.is_positional()) {
        let longs = arg
            .get_long()
            .into_iter()
            .chain(arg.get_all_aliases().unwrap_or_default());
        let shorts = arg
            .get_short()
            .into_iter()
            .chain(arg.get_all_short_aliases().unwrap_or_default());
        let names = longs
            .map(|l| format!("--{l}"))
            .chain(shorts.map(|c| format!("-{c}")));
        for name in names {
            if !mentions(page, &name) {
                missing.push(name);
            }
        }
    }
    missing.sort();
    missing.dedup();
    missing
}

/// Whether `text` holds `option` as a word of its own (`--mem` is not
/// found in `--mem-per-cpu`).
fn mentions(text: &str, option: &str) -> bool {
    text.match_indices(option).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + option.len()..].chars().next();
        let edge =
            |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '-' || c == '_'));
        edge(before) && edge(after)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ArgAction;

    fn demo() -> Command {
        Command::new("demo")
            .about("A demonstration.")
            .disable_help_flag(true)
            .arg(
                Arg::new("mem")
                    .long("mem")
                    .help("Memory per node")
                    .action(ArgAction::Set),
            )
            .arg(
                Arg::new("mem-per-cpu")
                    .long("mem-per-cpu")
                    .help("Memory per CPU")
                    .action(ArgAction::Set),
            )
            .arg(
                Arg::new("clusters")
                    .short('M')
                    .long("clusters")
                    .alias("cluster")
                    .help("Clusters")
                    .action(ArgAction::Set),
            )
            .arg(
                Arg::new("power")
                    .long("power")
                    .hide(true)
                    .action(ArgAction::SetTrue),
            )
    }

    #[test]
    fn a_page_names_every_option_hidden_or_aliased_and_notes_what_is_not_acted_on() {
        let cmd = not_acted(demo(), &["power", "mem-per-cpu"]);
        let docs = pages(&cmd).expect("renders");
        assert_eq!(docs.len(), 1);
        assert_eq!(docs[0].path, Path::new("man/man1/demo.1"));
        let text = plain(&docs[0].bytes);
        assert_eq!(missing_options(&cmd, &text), Vec::<String>::new());
        assert!(text.contains("Also accepted as --cluster."), "{text}");
        assert!(
            text.contains(&format!("Memory per CPU. {NOT_ACTED_NOTE}")),
            "{text}"
        );
        assert!(!text.contains(&format!("Memory per node. {NOT_ACTED_NOTE}")));
        // --help keeps the short text.
        let help = cmd.clone().render_help().to_string();
        assert!(!help.contains(NOT_ACTED_NOTE), "{help}");
    }

    #[test]
    fn an_option_left_out_of_a_page_is_found() {
        let text = "demo --mem-per-cpu --clusters -M --cluster --power";
        assert_eq!(missing_options(&demo(), text), vec!["--mem".to_string()]);
    }

    #[test]
    #[should_panic(expected = "demo has no option --gone")]
    fn a_note_for_an_option_that_does_not_exist_is_a_bug() {
        not_acted(demo(), &["gone"]);
    }

    #[test]
    fn subcommands_get_pages_of_their_own_and_hidden_ones_none() {
        let cmd = Command::new("tool")
            .subcommand(Command::new("run").arg(Arg::new("fast").long("fast")))
            .subcommand(Command::new("inner").hide(true));
        let docs = pages(&cmd).expect("renders");
        let names: Vec<_> = docs.iter().map(|d| d.path.clone()).collect();
        assert_eq!(
            names,
            vec![
                PathBuf::from("man/man1/tool.1"),
                PathBuf::from("man/man1/tool-run.1")
            ]
        );
        assert!(plain(&docs[1].bytes).contains("--fast"));
    }

    #[test]
    fn install_writes_pages_and_completions_for_three_shells() {
        let dir = tempfile::tempdir().expect("tempdir");
        let written = install(dir.path(), &[demo()]).expect("installs");
        for rel in [
            "man/man1/demo.1",
            "bash-completion/completions/demo",
            "zsh/site-functions/_demo",
            "fish/vendor_completions.d/demo.fish",
        ] {
            let path = dir.path().join(rel);
            assert!(written.contains(&path), "{rel} not written");
            let body = plain(&std::fs::read(&path).expect("reads"));
            assert!(body.contains("mem-per-cpu"), "{rel}: {body}");
        }
    }
}
