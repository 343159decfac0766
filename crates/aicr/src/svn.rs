//! The Subversion side of a review: the revision under review of a
//! repository URL, read with the `svn` command-line client (Debian's
//! `subversion` package) run non-interactively — `svn info`, `svn cat`,
//! `svn diff`, `svn blame --xml` and `svn log --xml` — never a working
//! copy.
//!
//! Paths are checked as for git (relative, no `..`, no NUL, at most
//! 4 KiB) and then percent-encoded component by component under the
//! task's URL, so that no path names anything outside it. A symbolic link
//! (a file with `svn:special`, whose content is `link TARGET`) is followed
//! while it stays inside the URL, as in git.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use wait_timeout::ChildExt;

use super::diff::DiffLines;
use super::read::{
    BlamedLine, CommitFacts, Content, MAX_SYMLINK_HOPS, PathProblem, ResolvedFile,
    linked_components,
};
use super::target::ReviewTargetError;

/// What stays as it is in a path component of a URL.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// How many context lines `svn diff` is asked for: as many as git's.
const CONTEXT_LINES: &str = "-U3";

/// A Subversion repository URL at the revision under review.
pub(crate) struct SvnRepository {
    /// The URL reviewed, without a trailing `/`.
    url: String,
    /// The repository's root URL: log messages are read there, since a
    /// line's last change may come from a copy made outside `url`.
    root: String,
    /// The revision under review.
    pub revision: u64,
}

/// What `svn info` says of a URL at a revision.
struct Info {
    kind: String,
    revision: u64,
    root: String,
}

/// Why an `svn` command failed.
enum SvnError {
    /// The URL names nothing at that revision.
    Missing,
    /// The revision does not exist.
    NoSuchRevision,
    /// Anything else: the message for the caller.
    Other(String),
}

impl SvnRepository {
    /// Opens `url` at `revision` (a number, `r` and a number, or `HEAD`);
    /// the URL must be a directory there.
    pub fn open(url: &str, revision: &str) -> Result<Self, ReviewTargetError> {
        let url = url.trim_end_matches('/').to_string();
        let info = info_of(&url, &url, revision)?;
        if info.kind != "dir" {
            return Err(ReviewTargetError::Svn {
                url,
                message: format!(
                    "it is a {} at revision {}, not a directory; name the directory to review",
                    info.kind, info.revision
                ),
            });
        }
        Ok(Self {
            url,
            root: info.root,
            revision: info.revision,
        })
    }

    /// The number of `revision` (as [`Self::open`] takes it) of this URL.
    pub fn revision_number(&self, revision: &str) -> Result<u64, ReviewTargetError> {
        Ok(info_of(&self.url, &self.url, revision)?.revision)
    }

    /// The diff from `base` to the revision under review.
    pub fn diff_from(&self, base: u64) -> Result<DiffLines, ReviewTargetError> {
        let range = format!("{base}:{}", self.revision);
        let peg = format!("{}@{}", self.url, self.revision);
        let text = svn(&[
            "diff",
            "--internal-diff",
            "-x",
            CONTEXT_LINES,
            "-r",
            &range,
            &peg,
        ])
        .map_err(|error| ReviewTargetError::Diff {
            repository: self.url.clone(),
            base: format!("r{base}"),
            revision: format!("r{}", self.revision),
            message: error.message(),
        })?;
        Ok(DiffLines::from_unified(&String::from_utf8_lossy(&text)))
    }

    /// The URL of `components` under the reviewed URL, at the revision.
    fn url_of(&self, components: &[String]) -> String {
        let mut url = self.url.clone();
        for component in components {
            url.push('/');
            url.extend(utf8_percent_encode(component, COMPONENT));
        }
        format!("{url}@{}", self.revision)
    }

    /// Finds the file at `components`, following symbolic links inside the
    /// URL.
    pub fn resolve_file(&self, mut components: Vec<String>) -> Result<ResolvedFile, PathProblem> {
        let mut hops = 0;
        'from_root: loop {
            let kind = match self.kind_of(&components)? {
                Some(kind) => kind,
                // A directory on the way may be a symbolic link.
                None => {
                    for index in 0..components.len() - 1 {
                        let prefix = &components[..=index];
                        match self.kind_of(prefix)?.as_deref() {
                            Some("dir") => continue,
                            Some(_) => match self.link_target(prefix)? {
                                Some(target) => {
                                    hops += 1;
                                    if hops > MAX_SYMLINK_HOPS {
                                        return Err(PathProblem::SymlinkLoop);
                                    }
                                    components = linked_components(&components, index, &target)?;
                                    continue 'from_root;
                                }
                                None => return Err(PathProblem::Missing),
                            },
                            None => return Err(PathProblem::Missing),
                        }
                    }
                    return Err(PathProblem::Missing);
                }
            };
            if kind == "dir" {
                return Err(PathProblem::Directory);
            }
            let bytes = self.cat(&components)?;
            if let Some(target) = self.symlink_in(&components, &bytes)? {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(PathProblem::SymlinkLoop);
                }
                components = linked_components(&components, components.len() - 1, &target)?;
                continue;
            }
            return Ok(ResolvedFile {
                path: components.join("/"),
                content: Content::Bytes(bytes),
            });
        }
    }

    /// `file` or `dir` for what is at `components`, `None` when nothing is.
    fn kind_of(&self, components: &[String]) -> Result<Option<String>, PathProblem> {
        let url = self.url_of(components);
        match svn(&["info", "--xml", &url]) {
            Ok(xml) => parse_info(&xml)
                .map(|info| Some(info.kind))
                .map_err(PathProblem::Unreadable),
            Err(SvnError::Missing) => Ok(None),
            Err(error) => Err(PathProblem::Unreadable(error.message())),
        }
    }

    /// The bytes of the file at `components`.
    fn cat(&self, components: &[String]) -> Result<Vec<u8>, PathProblem> {
        svn(&["cat", &self.url_of(components)]).map_err(|error| match error {
            SvnError::Missing => PathProblem::Missing,
            error => PathProblem::Unreadable(error.message()),
        })
    }

    /// The target of the symbolic link at `components`, if it is one.
    fn link_target(&self, components: &[String]) -> Result<Option<String>, PathProblem> {
        let bytes = self.cat(components)?;
        self.symlink_in(components, &bytes)
    }

    /// The link target when `bytes`, the content of the file at
    /// `components`, are those of a symbolic link.
    fn symlink_in(
        &self,
        components: &[String],
        bytes: &[u8],
    ) -> Result<Option<String>, PathProblem> {
        let Some(target) = bytes.strip_prefix(b"link ") else {
            return Ok(None);
        };
        let url = self.url_of(components);
        let special = svn(&["propget", "svn:special", &url]).unwrap_or_default();
        if special.is_empty() {
            return Ok(None);
        }
        Ok(Some(String::from_utf8_lossy(target).into_owned()))
    }

    /// Lines `first..=last` of the file at `path` (a resolved path)
    /// attributed by `svn blame`, with each revision's log message.
    pub fn blame_lines(
        &self,
        path: &str,
        first: u32,
        last: u32,
    ) -> Result<Vec<BlamedLine>, String> {
        let components: Vec<String> = path.split('/').map(str::to_string).collect();
        let xml =
            svn(&["blame", "--xml", &self.url_of(&components)]).map_err(|error| error.message())?;
        let text = String::from_utf8_lossy(&xml);
        let document = roxmltree::Document::parse(&text)
            .map_err(|error| format!("svn blame wrote XML that does not parse: {error}"))?;
        let mut attributed: Vec<(u32, u64)> = Vec::new();
        for entry in document.descendants().filter(|n| n.has_tag_name("entry")) {
            let Some(line) = entry
                .attribute("line-number")
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let revision = entry
                .children()
                .find(|n| n.has_tag_name("commit"))
                .and_then(|commit| commit.attribute("revision"))
                .and_then(|r| r.parse::<u64>().ok());
            if let (true, Some(revision)) = ((first..=last).contains(&line), revision) {
                attributed.push((line, revision));
            }
        }
        let mut revisions: Vec<u64> = attributed.iter().map(|&(_, r)| r).collect();
        revisions.sort_unstable();
        revisions.dedup();
        let facts = self.log_of(&revisions)?;
        Ok(attributed
            .into_iter()
            .filter_map(|(line, revision)| {
                let facts = facts.iter().find(|(r, _)| *r == revision)?.1.clone();
                Some(BlamedLine {
                    line,
                    revision: format!("r{revision}"),
                    author: facts.author,
                    author_email: facts.author_email,
                    author_time: facts.author_time,
                    summary: facts.summary,
                    original_path: None,
                })
            })
            .collect())
    }

    /// Author, date and summary of each of `revisions`.
    fn log_of(&self, revisions: &[u64]) -> Result<Vec<(u64, CommitFacts)>, String> {
        if revisions.is_empty() {
            return Ok(Vec::new());
        }
        let changes: Vec<String> = revisions.iter().map(u64::to_string).collect();
        let xml = svn(&["log", "--xml", "-c", &changes.join(","), &self.root])
            .map_err(|error| error.message())?;
        let text = String::from_utf8_lossy(&xml);
        let document = roxmltree::Document::parse(&text)
            .map_err(|error| format!("svn log wrote XML that does not parse: {error}"))?;
        let child_text = |node: roxmltree::Node<'_, '_>, tag: &str| {
            node.children()
                .find(|n| n.has_tag_name(tag))
                .and_then(|n| n.text())
                .unwrap_or_default()
                .to_string()
        };
        Ok(document
            .descendants()
            .filter(|n| n.has_tag_name("logentry"))
            .filter_map(|entry| {
                let revision = entry.attribute("revision")?.parse::<u64>().ok()?;
                let facts = CommitFacts {
                    author: child_text(entry, "author"),
                    // Subversion records no e-mail address.
                    author_email: String::new(),
                    author_time: rfc3339_of_svn_date(&child_text(entry, "date")),
                    summary: child_text(entry, "msg")
                        .lines()
                        .next()
                        .unwrap_or_default()
                        .to_string(),
                };
                Some((revision, facts))
            })
            .collect())
    }
}

/// The number of `revision` (`12`, `r12` or `HEAD`) of the Subversion
/// directory at `url`, as a task records it.
pub fn svn_revision(url: &str, revision: &str) -> Result<u64, ReviewTargetError> {
    SvnRepository::open(url, revision).map(|svn| svn.revision)
}

/// The number of a revision as tasks give it: `12`, `r12` or `HEAD`.
fn revision_argument(revision: &str) -> Option<String> {
    let trimmed = revision.trim();
    let number = trimmed.strip_prefix('r').unwrap_or(trimmed);
    if trimmed.eq_ignore_ascii_case("head") {
        Some("HEAD".to_string())
    } else if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) {
        Some(number.to_string())
    } else {
        None
    }
}

/// `svn info` of `target` (`url` or a URL under it) at `revision`.
fn info_of(url: &str, target: &str, revision: &str) -> Result<Info, ReviewTargetError> {
    let not_found = || ReviewTargetError::RevisionNotFound {
        repository: url.to_string(),
        revision: revision.to_string(),
        what: "a revision",
    };
    let argument = revision_argument(revision).ok_or_else(not_found)?;
    let peg = format!("{target}@{argument}");
    match svn(&["info", "--xml", &peg]) {
        Ok(xml) => parse_info(&xml).map_err(|message| ReviewTargetError::Svn {
            url: url.to_string(),
            message,
        }),
        Err(SvnError::NoSuchRevision) => Err(not_found()),
        Err(SvnError::Missing) => Err(ReviewTargetError::Svn {
            url: url.to_string(),
            message: format!("nothing is there at revision {argument}"),
        }),
        Err(error) => Err(ReviewTargetError::Svn {
            url: url.to_string(),
            message: error.message(),
        }),
    }
}

fn parse_info(xml: &[u8]) -> Result<Info, String> {
    let text = String::from_utf8_lossy(xml);
    let document = roxmltree::Document::parse(&text)
        .map_err(|error| format!("svn info wrote XML that does not parse: {error}"))?;
    let entry = document
        .descendants()
        .find(|n| n.has_tag_name("entry"))
        .ok_or("svn info named no entry")?;
    let root = entry
        .descendants()
        .find(|n| n.has_tag_name("root"))
        .and_then(|n| n.text())
        .unwrap_or_default()
        .to_string();
    Ok(Info {
        kind: entry.attribute("kind").unwrap_or_default().to_string(),
        revision: entry
            .attribute("revision")
            .and_then(|r| r.parse().ok())
            .ok_or("svn info gave no revision")?,
        root,
    })
}

/// How long one `svn` command may run: a server that does not answer
/// makes a clear error, not a review tool that never returns.
const SVN_TIMEOUT: Duration = Duration::from_secs(30);

/// What a finished `svn` command left.
struct SvnOutput {
    status: std::process::ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Runs `svn` without prompting; its standard output, or why it failed.
fn svn(args: &[&str]) -> Result<Vec<u8>, SvnError> {
    svn_within(args, SVN_TIMEOUT)
}

/// [`svn`], stopped (and refused) once it has run for `timeout`.
fn svn_within(args: &[&str], timeout: Duration) -> Result<Vec<u8>, SvnError> {
    let output = run_within(args, timeout).map_err(|error| {
        SvnError::Other(match error.kind() {
            std::io::ErrorKind::NotFound => {
                "the Subversion client `svn` is not installed (Debian: apt-get install subversion)"
                    .to_string()
            }
            std::io::ErrorKind::TimedOut => format!(
                "svn {} did not answer within {} s; check that the repository URL is reachable",
                args[0],
                timeout.as_secs_f64()
            ),
            _ => format!("cannot run svn: {error}"),
        })
    })?;
    if output.status.success() {
        return Ok(output.stdout);
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    // E160006: no such revision; W170000/E200009/E160013: no such path.
    if stderr.contains("E160006") {
        return Err(SvnError::NoSuchRevision);
    }
    if ["W170000", "E200009", "E160013", "E195012"]
        .iter()
        .any(|code| stderr.contains(code))
    {
        return Err(SvnError::Missing);
    }
    let message: Vec<&str> = stderr
        .lines()
        .map(|line| line.trim().trim_start_matches("svn: "))
        .filter(|line| !line.is_empty())
        .take(3)
        .collect();
    Err(SvnError::Other(if message.is_empty() {
        format!("svn {} failed ({})", args[0], output.status)
    } else {
        message.join("; ")
    }))
}

/// Runs `svn ARGS` (non-interactive, C locale) for at most `timeout`; a
/// command still running then is killed and the error is `TimedOut`.
fn run_within(args: &[&str], timeout: Duration) -> std::io::Result<SvnOutput> {
    let mut child = Command::new("svn")
        .arg("--non-interactive")
        .args(args)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    // Both pipes are drained while the command runs, so that a full pipe
    // never stops it.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let Some(status) = child.wait_timeout(timeout)? else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(std::io::ErrorKind::TimedOut.into());
    };
    let joined = |reader: std::thread::JoinHandle<Vec<u8>>| reader.join().unwrap_or_default();
    Ok(SvnOutput {
        status,
        stdout: joined(stdout),
        stderr: joined(stderr),
    })
}

impl SvnError {
    fn message(&self) -> String {
        match self {
            Self::Missing => "no such path".to_string(),
            Self::NoSuchRevision => "no such revision".to_string(),
            Self::Other(message) => message.clone(),
        }
    }
}

/// Subversion's UTC time (`2026-12-07T00:15:02.371738Z`) as RFC 3339 with
/// its offset, like the git side's (`2026-12-07T00:15:02+00:00`).
fn rfc3339_of_svn_date(date: &str) -> String {
    match date.get(..19) {
        Some(seconds) if date.ends_with('Z') => format!("{seconds}+00:00"),
        _ => date.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_are_numbers_or_head() {
        assert_eq!(revision_argument("12").as_deref(), Some("12"));
        assert_eq!(revision_argument("r7").as_deref(), Some("7"));
        assert_eq!(revision_argument("HEAD").as_deref(), Some("HEAD"));
        assert_eq!(revision_argument("main"), None);
        assert_eq!(revision_argument("12:13"), None);
        assert_eq!(revision_argument(""), None);
    }

    #[test]
    fn path_components_are_escaped_under_the_url() {
        let svn = SvnRepository {
            url: "file:///srv/svn/shop/trunk".to_string(),
            root: String::new(),
            revision: 4,
        };
        let components = ["src", "A b@c", "%2e%2e", "Ä.java"].map(str::to_string);
        assert_eq!(
            svn.url_of(&components),
            "file:///srv/svn/shop/trunk/src/A%20b%40c/%252e%252e/%C3%84.java@4"
        );
    }

    #[test]
    fn svn_dates_read_as_rfc3339() {
        assert_eq!(
            rfc3339_of_svn_date("2026-12-07T00:15:02.371738Z"),
            "2026-12-07T00:15:02+00:00"
        );
    }
}
