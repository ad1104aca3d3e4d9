//! The notes' template (SPEC R11.3): ten sections, each a `# ` heading and
//! an italic line that says what belongs there, and the check that an
//! edit kept them.

use crate::error::{StructureError, TemplateError};
use crate::markdown::{bare, is_description, split};

/// The default template.
pub const DEFAULT_TEMPLATE: &str = include_str!("text/template.md");
/// The largest template accepted, in bytes.
pub const MAX_TEMPLATE_BYTES: usize = 64 * 1024;

/// One section of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionSpec {
    /// The heading line (`# Current State`), without its line ending.
    pub heading: String,
    /// The italic line directly below it, when it has one.
    pub description: Option<String>,
}

/// A parsed template: the text a new notes file starts as, and the
/// structure every edit must keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    text: String,
    sections: Vec<SectionSpec>,
}

impl Default for Template {
    fn default() -> Self {
        Template::parse(DEFAULT_TEMPLATE).expect("the default template has sections")
    }
}

impl Template {
    /// Reads a template: its `# ` headings (outside fenced code) and the
    /// italic `_…_` line directly below each, when there is one.
    pub fn parse(text: &str) -> Result<Template, TemplateError> {
        if text.len() > MAX_TEMPLATE_BYTES {
            return Err(TemplateError::TooLarge {
                limit: MAX_TEMPLATE_BYTES,
            });
        }
        let sections: Vec<SectionSpec> = split(text)
            .sections
            .iter()
            .map(|s| SectionSpec {
                heading: bare(s.heading).trim_end().to_owned(),
                description: s
                    .lines
                    .first()
                    .filter(|l| is_description(l))
                    .map(|l| bare(l).trim_end().to_owned()),
            })
            .collect();
        if sections.is_empty() {
            return Err(TemplateError::NoSections);
        }
        Ok(Template {
            text: text.to_owned(),
            sections,
        })
    }

    /// The template's text: what a new notes file holds.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Its sections, in order.
    #[must_use]
    pub fn sections(&self) -> &[SectionSpec] {
        &self.sections
    }

    /// Whether `notes` keep this template's structure: the same headings
    /// in the same order, none added, and under each the template's italic
    /// line, unchanged, directly below the heading. Trailing spaces do not
    /// count; anything else does.
    pub fn check(&self, notes: &str) -> Result<(), StructureError> {
        let found = split(notes).sections;
        for (i, spec) in self.sections.iter().enumerate() {
            let Some(section) = found.get(i) else {
                return Err(StructureError::MissingHeading {
                    heading: spec.heading.clone(),
                });
            };
            let heading = bare(section.heading).trim_end();
            if heading != spec.heading {
                // A heading missing from here on, rather than one renamed,
                // when the template's heading comes later in the notes.
                let later = found[i..]
                    .iter()
                    .any(|s| bare(s.heading).trim_end() == spec.heading);
                let known = self.sections.iter().any(|s| s.heading == heading);
                return Err(if found.len() > self.sections.len() && !known && later {
                    StructureError::ExtraHeading {
                        heading: heading.to_owned(),
                    }
                } else if found.len() < self.sections.len() && !later {
                    StructureError::MissingHeading {
                        heading: spec.heading.clone(),
                    }
                } else {
                    StructureError::ChangedHeading {
                        expected: spec.heading.clone(),
                        found: heading.to_owned(),
                    }
                });
            }
            if let Some(description) = &spec.description {
                let first = section.lines.first().map(|l| bare(l).trim_end());
                if first != Some(description.as_str()) {
                    return Err(StructureError::ChangedDescription {
                        heading: spec.heading.clone(),
                        expected: description.clone(),
                    });
                }
            }
        }
        if let Some(extra) = found.get(self.sections.len()) {
            return Err(StructureError::ExtraHeading {
                heading: bare(extra.heading).trim_end().to_owned(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_template_has_the_ten_sections_each_with_a_description() {
        let template = Template::default();
        let headings: Vec<&str> = template
            .sections()
            .iter()
            .map(|s| s.heading.as_str())
            .collect();
        assert_eq!(
            headings,
            [
                "# Session Title",
                "# Current State",
                "# Task specification",
                "# Files and Functions",
                "# Workflow",
                "# Errors & Corrections",
                "# Codebase and System Documentation",
                "# Learnings",
                "# Key results",
                "# Worklog",
            ]
        );
        assert!(template.sections().iter().all(|s| {
            s.description
                .as_deref()
                .is_some_and(|d| d.starts_with('_') && d.ends_with('_'))
        }));
        assert_eq!(template.check(DEFAULT_TEMPLATE), Ok(()));
    }

    #[test]
    fn a_custom_template_needs_a_heading_and_may_leave_descriptions_out() {
        assert_eq!(
            Template::parse("just text\n"),
            Err(TemplateError::NoSections)
        );
        assert_eq!(
            Template::parse("```\n# in code\n```\n"),
            Err(TemplateError::NoSections)
        );
        assert!(matches!(
            Template::parse(&"# a\n".repeat(20_000)),
            Err(TemplateError::TooLarge { .. })
        ));
        let t =
            Template::parse("Preamble\n# Goal\n_why we are here_\n# Notes\nfree text\n").unwrap();
        assert_eq!(
            t.sections(),
            [
                SectionSpec {
                    heading: "# Goal".into(),
                    description: Some("_why we are here_".into())
                },
                SectionSpec {
                    heading: "# Notes".into(),
                    description: None
                },
            ]
        );
        assert_eq!(
            t.check("# Goal\n_why we are here_\nship\n# Notes\n_anything_\n"),
            Ok(())
        );
    }

    fn filled() -> String {
        DEFAULT_TEMPLATE.replace(
            "# Worklog\n_A terse record of the steps taken, oldest first, one line each_\n",
            "# Worklog\n_A terse record of the steps taken, oldest first, one line each_\n- ran the tests\n```sh\n# a shell comment is no heading\ncargo test\n```\n## Day two\n- fixed it\n",
        )
    }

    fn refused(notes: &str) -> StructureError {
        Template::default().check(notes).unwrap_err()
    }

    #[test]
    fn notes_below_the_descriptions_are_fine() {
        assert_eq!(Template::default().check(&filled()), Ok(()));
        assert_eq!(
            Template::default().check(&filled().replace('\n', "  \n")),
            Ok(()),
            "trailing spaces do not count"
        );
    }

    #[test]
    fn hostile_edits_are_named() {
        let notes = filled();
        assert_eq!(
            refused(&notes.replace("# Learnings\n", "")),
            StructureError::MissingHeading {
                heading: "# Learnings".into()
            }
        );
        let without = notes.replace(
            "# Worklog\n_A terse record of the steps taken, oldest first, one line each_\n",
            "",
        );
        assert_eq!(
            refused(&without),
            StructureError::MissingHeading {
                heading: "# Worklog".into()
            }
        );
        assert_eq!(
            refused(&notes.replace("_What worked, what did not,", "_What worked,")),
            StructureError::ChangedDescription {
                heading: "# Learnings".into(),
                expected: "_What worked, what did not, and what to do differently next time_"
                    .into()
            }
        );
        assert!(matches!(
            refused(&notes.replace("# Learnings\n_", "# Learnings\nnew first line\n_")),
            StructureError::ChangedDescription { .. }
        ));
        assert_eq!(
            refused(&notes.replace("# Learnings\n", "# Secrets\nx\n# Learnings\n")),
            StructureError::ExtraHeading {
                heading: "# Secrets".into()
            }
        );
        assert_eq!(
            refused(&format!("{notes}# Appendix\n")),
            StructureError::ExtraHeading {
                heading: "# Appendix".into()
            }
        );
        assert_eq!(
            refused(&notes.replace("# Workflow", "# How we work")),
            StructureError::ChangedHeading {
                expected: "# Workflow".into(),
                found: "# How we work".into()
            }
        );
        // A replace_all of `# ` hits every heading.
        assert!(matches!(
            refused(&notes.replace("# ", "## ")),
            StructureError::MissingHeading { .. }
        ));
        // Two sections swapped.
        let swapped = notes
            .replace("# Learnings", "# TMP")
            .replace("# Key results", "# Learnings")
            .replace("# TMP", "# Key results");
        assert!(matches!(
            refused(&swapped),
            StructureError::ChangedHeading { .. }
        ));
        // A fence opened before a heading hides it.
        assert!(matches!(
            refused(&notes.replace("# Worklog\n", "```\n# Worklog\n")),
            StructureError::MissingHeading { .. }
        ));
    }
}
