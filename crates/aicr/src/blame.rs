//! `aicr.try_blame`: per line, the commit that last changed it at the
//! task's revision — its id, author, author time and summary, never the
//! line's text. Renames are followed back through history by libgit2's
//! blame; Subversion's is `svn blame` (see `svn.rs`).

use std::collections::HashMap;

use serde::Serialize;

use super::arguments::LineRange;
use super::read::{BlamedLine, CommitFacts, PathProblem};
use super::repository::{GitRepository, ReviewRepository};

/// The answer of `aicr.try_blame`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BlameAnswer {
    /// `ok` (every requested line attributed), `partial` (some) or
    /// `not_found` (none: no such file at the revision, or no such lines).
    pub status: &'static str,
    /// The path as requested.
    pub path: String,
    /// The revision the lines were read at.
    pub revision: String,
    /// Why not every line is attributed, when the status is not `ok`.
    pub note: Option<String>,
    /// One entry per attributed line, in line order.
    pub lines: Vec<BlamedLine>,
}

/// Blames `requested` (whole, or the range) at the revision. A path that
/// is missing at the revision is `not_found`; a path that is malformed or
/// leads out of the repository is an error.
pub(crate) fn blame(
    repository: &ReviewRepository,
    requested: &str,
    range: Option<LineRange>,
) -> Result<BlameAnswer, PathProblem> {
    let revision = repository.short_revision();
    let not_found = |note: String| BlameAnswer {
        status: "not_found",
        path: requested.to_string(),
        revision: repository.revision.clone(),
        note: Some(note),
        lines: Vec::new(),
    };
    let file = match repository.resolve_file(requested) {
        Ok(file) => file,
        Err(PathProblem::Missing) => {
            return Ok(not_found(format!(
                "`{requested}` does not exist at revision {revision}; it has no history there"
            )));
        }
        Err(problem) => return Err(problem),
    };
    let total_lines = repository
        .bytes(&file)
        .map(|bytes| String::from_utf8_lossy(&bytes).lines().count() as u32)
        .unwrap_or(0);
    let requested_range = range.unwrap_or(LineRange {
        start_line: 1,
        end_line: total_lines.max(1),
    });
    if total_lines == 0 || requested_range.start_line > total_lines {
        return Ok(not_found(format!(
            "`{requested}` has {total_lines} lines at revision {revision}"
        )));
    }
    let last_line = requested_range.end_line.min(total_lines);
    let attributed = match (repository.git(), repository.svn()) {
        (Some(git), _) => git_lines(git, &file.path, requested_range.start_line, last_line),
        (None, Some(svn)) => svn.blame_lines(&file.path, requested_range.start_line, last_line),
        (None, None) => unreachable!("a repository is git or Subversion"),
    };
    let lines = match attributed {
        Ok(lines) => lines,
        Err(message) => return Ok(not_found(format!("cannot blame `{requested}`: {message}"))),
    };
    let wanted = requested_range.end_line - requested_range.start_line + 1;
    let (status, note) = if lines.len() as u32 == wanted {
        ("ok", None)
    } else if lines.is_empty() {
        (
            "not_found",
            Some("the history attributes none of these lines".to_string()),
        )
    } else {
        let note = if requested_range.end_line > total_lines {
            format!(
                "`{requested}` has {total_lines} lines at revision {revision}; lines past the end have no history"
            )
        } else {
            "the history attributes only some of these lines (a shallow history?)".to_string()
        };
        ("partial", Some(note))
    };
    Ok(BlameAnswer {
        status,
        path: requested.to_string(),
        revision: repository.revision.clone(),
        note,
        lines,
    })
}

/// Lines `first..=last` of `path` attributed by libgit2's blame, which
/// follows renames.
fn git_lines(
    git: &GitRepository,
    path: &str,
    first: u32,
    last: u32,
) -> Result<Vec<BlamedLine>, String> {
    let mut options = git2::BlameOptions::new();
    options
        .newest_commit(git.revision)
        .min_line(first as usize)
        .max_line(last as usize);
    let blame = git
        .repo
        .blame_file(std::path::Path::new(path), Some(&mut options))
        .map_err(|error| format!("git: {}", error.message()))?;
    let mut commits: HashMap<git2::Oid, Option<CommitFacts>> = HashMap::new();
    let mut lines = Vec::new();
    for line in first..=last {
        let Some(hunk) = blame.get_line(line as usize) else {
            continue;
        };
        let commit_id = hunk.final_commit_id();
        let facts = commits
            .entry(commit_id)
            .or_insert_with(|| commit_facts(git, commit_id));
        let Some(facts) = facts else { continue };
        let original_path = hunk
            .path()
            .map(|found| found.to_string_lossy().replace('\\', "/"))
            .filter(|found| found != path);
        lines.push(BlamedLine {
            line,
            revision: commit_id.to_string(),
            author: facts.author.clone(),
            author_email: facts.author_email.clone(),
            author_time: facts.author_time.clone(),
            summary: facts.summary.clone(),
            original_path,
        });
    }
    Ok(lines)
}

fn commit_facts(git: &GitRepository, commit_id: git2::Oid) -> Option<CommitFacts> {
    let commit = git.repo.find_commit(commit_id).ok()?;
    let author = commit.author();
    Some(CommitFacts {
        author: String::from_utf8_lossy(author.name_bytes()).into_owned(),
        author_email: String::from_utf8_lossy(author.email_bytes()).into_owned(),
        author_time: rfc3339(author.when()),
        summary: commit
            .summary_bytes()
            .map(|summary| String::from_utf8_lossy(summary).into_owned())
            .unwrap_or_default(),
    })
}

/// A git time as RFC 3339 in its own UTC offset, e.g.
/// `2026-12-02T17:20:15+01:00`.
fn rfc3339(time: git2::Time) -> String {
    let offset_minutes = i64::from(time.offset_minutes());
    let local_seconds = time.seconds() + offset_minutes * 60;
    let days = local_seconds.div_euclid(86_400);
    let second_of_day = local_seconds.rem_euclid(86_400);
    let (year, month, day) = civil_date(days);
    let sign = if offset_minutes < 0 { '-' } else { '+' };
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}{sign}{:02}:{:02}",
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60,
        offset_minutes.abs() / 60,
        offset_minutes.abs() % 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01: count in 400-year
/// eras of 146,097 days starting on March 1st, so that the leap day falls at
/// the end of each year of the era.
fn civil_date(days: i64) -> (i64, u32, u32) {
    let days_since_era_zero = days + 719_468;
    let era = days_since_era_zero.div_euclid(146_097);
    let day_of_era = days_since_era_zero.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn author_times_are_rfc3339_in_the_authors_offset() {
        let table = [
            (0, 0, "1970-01-01T00:00:00+00:00"),
            (951_782_400, 0, "2000-02-29T00:00:00+00:00"),
            (1_796_228_415, 60, "2026-12-02T17:20:15+01:00"),
            (1_796_228_415, -330, "2026-12-02T10:50:15-05:30"),
            (-1, 0, "1969-12-31T23:59:59+00:00"),
            (4_107_542_400, 0, "2100-03-01T00:00:00+00:00"),
        ];
        for (seconds, offset, expected) in table {
            assert_eq!(rfc3339(git2::Time::new(seconds, offset)), expected);
        }
    }
}
