//! `memdir edit`: the memory files by source in a terminal list; Enter
//! opens one in the user's editor (SPEC R16).
//!
//! The terminal is put back as it was on every way out: a normal quit, an
//! error, a panic (through the panic hook) and SIGTERM (through a flag the
//! event loop checks), and around every run of the editor.

use std::io::{self, IsTerminal, Stdout};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

use anyhow::{Context as _, bail};
use clap::Args;
use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, execute, terminal};
use memdir_ops::{MemoryFile, MemoryFileSource, Project};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style, Stylize as _};
use ratatui::text::Line;
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph, Wrap};

use crate::Outcome;
use crate::context::{GlobalArgs, ops_error};

/// How often the list looks for a SIGTERM and for memory saved meanwhile.
const TICK: Duration = Duration::from_millis(200);

#[derive(Debug, Args)]
#[command(after_help = "\
Lists the memory files by source: user (~/.claude/CLAUDE.md, or $CLAUDE_CONFIG_DIR/CLAUDE.md), \
project (<root>/CLAUDE.md), local (<root>/CLAUDE.local.md), managed (the administrator's, \
read-only), auto memory (<memory folder>/MEMORY.md) and team memory (<memory folder>/team/MEMORY.md, \
when team memory is on), with which exist. Enter creates a missing file (and its folder) and opens \
it in $VISUAL, else $EDITOR, else vi. A notice says when a memory was saved in the background \
while the list was open.

Keys: Up/Down or j/k move, Enter edit, q or Esc quit. Needs a terminal.

Example:
  VISUAL=nano memdir edit")]
pub(crate) struct EditArgs {}

pub(crate) fn run(_args: &EditArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
        bail!("edit needs a terminal: standard input and output are not a TTY");
    }
    let project = global.project()?;
    let stop = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGTERM, Arc::clone(&stop))
        .context("cannot watch for SIGTERM")?;
    install_panic_restore();

    let mut app = App::new(project);
    let result = {
        let mut screen = Screen::enter()?;
        app.run(&mut screen, &stop)
    };
    // The screen is restored here: what was edited stays in the shell.
    for line in &app.summary {
        println!("{line}");
    }
    result.map(|()| Outcome::Success)
}

/// The terminal in raw mode on the alternate screen; dropping it restores
/// the terminal.
struct Screen {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl Screen {
    fn enter() -> anyhow::Result<Screen> {
        terminal::enable_raw_mode().context("cannot set up the terminal")?;
        let entered = execute!(io::stdout(), EnterAlternateScreen, cursor::Hide)
            .and_then(|()| Terminal::new(CrosstermBackend::new(io::stdout())));
        match entered {
            Ok(terminal) => Ok(Screen { terminal }),
            Err(e) => {
                restore_terminal();
                Err(anyhow::Error::new(e).context("cannot set up the terminal"))
            }
        }
    }

    /// Leaves the screen for another program, then comes back.
    fn suspended<T>(&mut self, f: impl FnOnce() -> T) -> anyhow::Result<T> {
        restore_terminal();
        let value = f();
        terminal::enable_raw_mode().context("cannot set up the terminal again")?;
        execute!(io::stdout(), EnterAlternateScreen, cursor::Hide)
            .context("cannot set up the terminal again")?;
        self.terminal.clear().context("cannot redraw")?;
        Ok(value)
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Cooked mode, the main screen, a visible cursor. Harmless when the
/// terminal is already so.
fn restore_terminal() {
    let _ = terminal::disable_raw_mode();
    let _ = execute!(io::stdout(), LeaveAlternateScreen, cursor::Show);
}

/// A panic restores the terminal before it is reported.
fn install_panic_restore() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore_terminal();
        previous(info);
    }));
}

struct App {
    project: Project,
    files: Vec<MemoryFile>,
    list: ListState,
    /// What the last action did, shown under the list.
    message: Vec<String>,
    /// The memory index's change time when the user last looked.
    seen_saved: Option<SystemTime>,
    notice: Option<String>,
    /// Printed after the screen is restored.
    summary: Vec<String>,
}

impl App {
    fn new(project: Project) -> App {
        let files = project.memory_files();
        let seen_saved = project.memory_saved_at();
        App {
            project,
            files,
            list: ListState::default().with_selected(Some(0)),
            message: vec!["Choose a file and press Enter to edit it.".to_owned()],
            seen_saved,
            notice: None,
            summary: Vec::new(),
        }
    }

    fn run(&mut self, screen: &mut Screen, stop: &AtomicBool) -> anyhow::Result<()> {
        while !stop.load(Ordering::Relaxed) {
            self.look_for_background_saves();
            screen
                .terminal
                .draw(|frame| self.draw(frame))
                .context("cannot draw")?;
            if !event::poll(TICK).context("cannot read the keyboard")? {
                continue;
            }
            let Event::Key(key) = event::read().context("cannot read the keyboard")? else {
                continue;
            };
            if key.kind != KeyEventKind::Press {
                continue;
            }
            match key.code {
                KeyCode::Char('q') | KeyCode::Esc => break,
                KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => break,
                KeyCode::Up | KeyCode::Char('k') => self.list.select_previous(),
                KeyCode::Down | KeyCode::Char('j') => self.list.select_next(),
                KeyCode::Home | KeyCode::Char('g') => self.list.select_first(),
                KeyCode::End | KeyCode::Char('G') => self.list.select_last(),
                KeyCode::Enter => self.open(screen)?,
                _ => {}
            }
        }
        if stop.load(Ordering::Relaxed) {
            bail!("stopped by SIGTERM");
        }
        Ok(())
    }

    fn look_for_background_saves(&mut self) {
        let now = self.project.memory_saved_at();
        if now.is_some() && now != self.seen_saved {
            self.notice = Some(
                "Memory was saved in the background since you last looked (MEMORY.md changed)."
                    .to_owned(),
            );
            self.files = self.project.memory_files();
        }
    }

    fn selected(&self) -> Option<&MemoryFile> {
        let last = self.files.len().checked_sub(1)?;
        self.files.get(self.list.selected()?.min(last))
    }

    fn open(&mut self, screen: &mut Screen) -> anyhow::Result<()> {
        let Some(file) = self.selected().cloned() else {
            return Ok(());
        };
        let label = file.source.label();
        if !file.editable {
            self.message = vec![format!(
                "The {label} file {} belongs to your administrator and is read-only.",
                file.path.display()
            )];
            return Ok(());
        }
        let created = match self.project.create_memory_file(file.source) {
            Ok(created) => created,
            Err(e) => {
                self.message = vec![format!("Cannot create the {label} file: {}", ops_error(e))];
                return Ok(());
            }
        };
        let editor = Editor::from_env();
        let status = screen.suspended(|| editor.run(&file.path))?;
        self.files = self.project.memory_files();
        // What the user just did is not news.
        self.seen_saved = self.project.memory_saved_at();
        self.notice = None;
        let what = if created {
            "Created and edited"
        } else {
            "Edited"
        };
        let first = match status {
            Ok(status) if status.success() => {
                format!("{what} the {label} file {}", file.path.display())
            }
            Ok(status) => format!(
                "The editor {} ended with {status} on the {label} file {}",
                editor.program,
                file.path.display()
            ),
            Err(e) => format!(
                "Cannot run the editor {} on the {label} file: {e}",
                editor.program
            ),
        };
        self.summary.push(first.clone());
        self.message = vec![
            first,
            format!(
                "Editor: {} (from {}). To use another, set $VISUAL or $EDITOR, e.g. export VISUAL=nano.",
                editor.program, editor.chosen_by
            ),
        ];
        Ok(())
    }

    fn draw(&mut self, frame: &mut ratatui::Frame<'_>) {
        let [title, list, message, notice, help] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(u16::try_from(self.files.len()).unwrap_or(6) + 2),
            Constraint::Min(3),
            Constraint::Length(2),
            Constraint::Length(1),
        ])
        .areas(frame.area());

        frame.render_widget(Line::from("memdir edit: memory files".bold()), title);

        let path_width = usize::from(list.width).saturating_sub(2 + 2 + 12 + 9);
        let items: Vec<ListItem<'_>> = self
            .files
            .iter()
            .map(|f| {
                let state = match (f.exists, f.editable) {
                    (true, true) => "exists",
                    (true, false) => "read-only",
                    (false, _) => "missing",
                };
                ListItem::new(format!(
                    "{:<12}{:<9}{}",
                    source_name(f.source),
                    state,
                    shorten(&display_path(&f.path), path_width)
                ))
            })
            .collect();
        let widget = List::new(items)
            .block(Block::bordered().title(" by source "))
            .highlight_style(Style::default().add_modifier(Modifier::REVERSED))
            .highlight_symbol("> ");
        frame.render_stateful_widget(widget, list, &mut self.list);

        let text: Vec<Line<'_>> = self
            .message
            .iter()
            .map(|m| Line::from(m.as_str()))
            .collect();
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), message);
        if let Some(n) = &self.notice {
            frame.render_widget(
                Paragraph::new(n.as_str().yellow()).wrap(Wrap { trim: false }),
                notice,
            );
        }
        frame.render_widget(
            Line::from("Up/Down j/k move   Enter edit   q/Esc quit".dim()),
            help,
        );
    }
}

/// The editor to run and the variable that chose it.
struct Editor {
    program: String,
    chosen_by: &'static str,
}

impl Editor {
    fn from_env() -> Editor {
        for var in ["VISUAL", "EDITOR"] {
            if let Ok(value) = std::env::var(var)
                && !value.trim().is_empty()
            {
                return Editor {
                    program: value,
                    chosen_by: if var == "VISUAL" {
                        "$VISUAL"
                    } else {
                        "$EDITOR"
                    },
                };
            }
        }
        Editor {
            program: "vi".to_owned(),
            chosen_by: "the default",
        }
    }

    /// Runs the editor on `path` with the terminal, and waits for it. The
    /// variable may hold arguments (`code --wait`), as for git.
    fn run(&self, path: &Path) -> io::Result<std::process::ExitStatus> {
        if cfg!(unix) {
            Command::new("sh")
                .arg("-c")
                .arg(format!("{} \"$@\"", self.program))
                .arg(&self.program)
                .arg(path)
                .status()
        } else {
            Command::new(&self.program).arg(path).status()
        }
    }
}

fn source_name(source: MemoryFileSource) -> String {
    let label = source.label();
    let mut chars = label.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().chain(chars).collect::<String>()
    })
}

/// The path with the home folder as `~`.
fn display_path(path: &Path) -> String {
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty())
        && let Ok(rest) = path.strip_prefix(&home)
    {
        return Path::new("~").join(rest).display().to_string();
    }
    path.display().to_string()
}

/// The end of `text` in at most `width` characters, `…` marking a cut.
fn shorten(text: &str, width: usize) -> String {
    let count = text.chars().count();
    if count <= width {
        return text.to_owned();
    }
    let keep = width.saturating_sub(1);
    let tail: String = text.chars().skip(count - keep).collect();
    format!("…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_keeps_the_end() {
        assert_eq!(shorten("/a/b/MEMORY.md", 40), "/a/b/MEMORY.md");
        assert_eq!(shorten("/abcdef/MEMORY.md", 10), "…MEMORY.md");
        assert_eq!(shorten("/abcdef/MEMORY.md", 10).chars().count(), 10);
    }

    #[test]
    fn source_names_are_capitalised_labels() {
        assert_eq!(source_name(MemoryFileSource::AutoMem), "Auto memory");
        assert_eq!(source_name(MemoryFileSource::User), "User");
    }
}
