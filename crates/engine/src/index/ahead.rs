//! Parsing ahead. A range of commits is indexed one commit after the
//! other, and much of each commit's work runs on one core (storing its
//! units, its links, the commit itself). A thread of its own parses the
//! files that the coming commits change, on the core left idle: at the
//! lowest priority the system has (`SCHED_IDLE`), it runs only when no
//! other thread of the machine wants that core, so the commit being
//! indexed loses no time to it. The parse phase of a later commit takes
//! what is ready instead of parsing it again, and parses the rest as
//! usual. A blob's facts depend on its bytes alone, so the pack gets the
//! same records either way.
//!
//! Only Linux has a scheduling class for such a thread; elsewhere nothing
//! is parsed ahead.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use refscope_syntax::Passes;

use refscope_store::BlobId;

use super::blob::{ParsedBlob, parse_bytes};
use crate::source::{ReaderSpec, Source, SourceLimits};

/// Bytes of facts parsed ahead and not taken yet, at most: above it the
/// thread waits.
const MAX_HELD_BYTES: usize = 128 << 20;

/// How often a thread that holds enough, or is paused, looks again.
const HELD_POLL: Duration = Duration::from_millis(2);

/// The thread parsing ahead, and what it parsed.
pub(super) struct ParseAhead {
    shared: Arc<Shared>,
    /// Each revision of the range by name, with its position.
    positions: HashMap<String, usize>,
    /// Blobs as the thread parses them, with the position of the
    /// revision it parsed them for.
    incoming: Mutex<Receiver<(usize, ParsedBlob)>>,
    /// Blobs taken from `incoming` and not asked for yet.
    ready: Mutex<HashMap<BlobId, (usize, ParsedBlob)>>,
    thread: Option<JoinHandle<()>>,
}

/// What the indexer and the thread share.
struct Shared {
    stop: AtomicBool,
    /// The indexer indexes a revision from scratch: every file, on every
    /// core, with little idle time, and memory enough in use.
    paused: AtomicBool,
    /// The position of the revision being indexed: the thread parses for
    /// later ones only.
    current: AtomicUsize,
    /// Bytes of facts parsed and neither taken nor dropped.
    held: AtomicUsize,
}

impl ParseAhead {
    /// Starts parsing, for each of `revisions` after the first (commit
    /// ids, in the order they will be indexed), the files it changes
    /// over the one before. `None` where nothing can be parsed ahead: a
    /// directory, a single revision, a system without an idle class.
    pub(super) fn start(
        source: &Source,
        revisions: &[String],
        limits: &SourceLimits,
        passes: Passes,
    ) -> Option<Self> {
        if !cfg!(target_os = "linux") || revisions.len() < 2 {
            return None;
        }
        let spec @ ReaderSpec::Git(_) = source.reader_spec() else {
            return None;
        };
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            paused: AtomicBool::new(false),
            current: AtomicUsize::new(0),
            held: AtomicUsize::new(0),
        });
        let (sender, receiver) = channel();
        let work = Work {
            shared: shared.clone(),
            spec,
            root: source.root().to_path_buf(),
            revisions: revisions.to_vec(),
            limits: limits.clone(),
            passes,
            sender,
        };
        let thread = std::thread::Builder::new()
            .name("refscope-parse-ahead".into())
            .spawn(move || work.run())
            .ok()?;
        Some(Self {
            shared,
            positions: revisions
                .iter()
                .enumerate()
                .map(|(at, name)| (name.clone(), at))
                .collect(),
            incoming: Mutex::new(receiver),
            ready: Mutex::default(),
            thread: Some(thread),
        })
    }

    /// Notes that the indexer starts on revision `name`: the thread goes
    /// on with the revisions after it, and what it parsed for earlier
    /// ones is dropped.
    pub(super) fn reached(&self, name: &str) {
        let Some(&at) = self.positions.get(name) else {
            return;
        };
        self.shared.current.fetch_max(at, Ordering::Relaxed);
        let mut ready = self.ready();
        self.receive(&mut ready);
        ready.retain(|_, (parsed_for, parsed)| {
            let keep = *parsed_for >= at;
            if !keep {
                self.shared
                    .held
                    .fetch_sub(parsed.held_bytes(), Ordering::Relaxed);
            }
            keep
        });
    }

    /// Holds the thread (after the file it is parsing) while `paused`:
    /// while a revision is indexed from scratch.
    pub(super) fn pause(&self, paused: bool) {
        self.shared.paused.store(paused, Ordering::Relaxed);
    }

    /// What the thread parsed of blob `blob_id`, if it did.
    pub(super) fn take(&self, blob_id: &BlobId) -> Option<ParsedBlob> {
        let mut ready = self.ready();
        if !ready.contains_key(blob_id) {
            self.receive(&mut ready);
        }
        let (_, parsed) = ready.remove(blob_id)?;
        self.shared
            .held
            .fetch_sub(parsed.held_bytes(), Ordering::Relaxed);
        Some(parsed)
    }

    /// Moves what the thread parsed so far to `ready`.
    fn receive(&self, ready: &mut HashMap<BlobId, (usize, ParsedBlob)>) {
        let incoming = self.incoming.lock().unwrap_or_else(|e| e.into_inner());
        for (at, parsed) in incoming.try_iter() {
            if let Some((_, replaced)) = ready.insert(*parsed.blob_id(), (at, parsed)) {
                self.shared
                    .held
                    .fetch_sub(replaced.held_bytes(), Ordering::Relaxed);
            }
        }
    }

    fn ready(&self) -> std::sync::MutexGuard<'_, HashMap<BlobId, (usize, ParsedBlob)>> {
        self.ready.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until the thread has parsed blob `blob_id`, or has finished
    /// without it; whether it did.
    #[cfg(test)]
    pub(super) fn wait_for(&self, blob_id: &BlobId) -> bool {
        loop {
            let mut ready = self.ready();
            self.receive(&mut ready);
            if ready.contains_key(blob_id) {
                return true;
            }
            if self.thread.as_ref().is_none_or(|t| t.is_finished()) {
                self.receive(&mut ready);
                return ready.contains_key(blob_id);
            }
            drop(ready);
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Bytes of facts parsed and neither taken nor dropped.
    #[cfg(test)]
    pub(super) fn held(&self) -> usize {
        self.shared.held.load(Ordering::Relaxed)
    }
}

impl Drop for ParseAhead {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            // A panic there lost nothing: the indexer parses what it needs.
            let _ = thread.join();
        }
    }
}

/// What the thread works through.
struct Work {
    shared: Arc<Shared>,
    spec: ReaderSpec,
    root: PathBuf,
    revisions: Vec<String>,
    limits: SourceLimits,
    passes: Passes,
    sender: Sender<(usize, ParsedBlob)>,
}

impl Work {
    fn run(self) {
        lower_priority();
        let shared = &*self.shared;
        // Nothing read here is reported: the indexer reads what it needs
        // again, and reports what fails.
        let Ok(reader) = self.spec.open() else {
            return;
        };
        for at in 1..self.revisions.len() {
            if shared.current.load(Ordering::Relaxed) >= at {
                continue;
            }
            let Ok(changes) = reader.changes_between(
                &self.root,
                &self.revisions[at - 1],
                &self.revisions[at],
                &self.limits,
            ) else {
                continue;
            };
            for file in &changes.changed {
                while shared.held.load(Ordering::Relaxed) > MAX_HELD_BYTES
                    || shared.paused.load(Ordering::Relaxed)
                {
                    if shared.stop.load(Ordering::Relaxed) {
                        return;
                    }
                    std::thread::sleep(HELD_POLL);
                }
                if shared.stop.load(Ordering::Relaxed) {
                    return;
                }
                // The indexer is there already, and parses the rest.
                if shared.current.load(Ordering::Relaxed) >= at {
                    break;
                }
                let Ok(bytes) = reader.read(file) else {
                    continue;
                };
                let parsed = parse_bytes(file, bytes, self.passes);
                shared
                    .held
                    .fetch_add(parsed.held_bytes(), Ordering::Relaxed);
                if self.sender.send((at, parsed)).is_err() {
                    return;
                }
            }
        }
    }
}

/// Puts the calling thread in the idle scheduling class: it runs only on
/// a core that no other thread wants.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: sets the calling thread's policy (id 0); `param` is read
        // only. A failure leaves the thread as it was.
        unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use crate::index::{IndexConfig, IndexSummary, Indexer};
    use refscope_store::Store;
    use refscope_symbols::JdkTypes;
    use refscope_test_support::TestRepo;

    /// Three commits: the second changes a file and adds one, the third
    /// changes another.
    fn history() -> (TestRepo, Vec<String>) {
        let repo = TestRepo::new();
        let commits = vec![
            repo.commit(
                &[
                    (
                        "a/A.java",
                        "package a;\npublic class A { public int f() { return 1; } }\n",
                    ),
                    (
                        "a/B.java",
                        "package a;\nclass B { int g(A a) { return a.f(); } }\n",
                    ),
                ],
                "one",
            ),
            repo.commit(
                &[
                    (
                        "a/A.java",
                        "package a;\npublic class A { public int f() { return 2; } }\n",
                    ),
                    (
                        "a/C.java",
                        "package a;\nclass C { int h() { return new A().f(); } }\n",
                    ),
                ],
                "two",
            ),
            repo.commit(
                &[(
                    "a/B.java",
                    "package a;\nclass B { int g(A a) { return a.f() + 1; } }\n",
                )],
                "three",
            ),
        ];
        (repo, commits)
    }

    fn blob(repo: &TestRepo, commit: &str, path: &str) -> BlobId {
        let commit = repo
            .repo
            .find_commit(git2::Oid::from_str(commit).unwrap())
            .unwrap();
        let id = commit
            .tree()
            .unwrap()
            .get_path(std::path::Path::new(path))
            .unwrap()
            .id();
        BlobId(id.as_bytes().try_into().unwrap())
    }

    #[test]
    fn the_coming_commits_files_are_parsed_and_what_is_behind_is_dropped() {
        let (repo, commits) = history();
        let source = Source::open(repo.path()).unwrap();
        let ahead =
            ParseAhead::start(&source, &commits, &SourceLimits::default(), Passes::ALL).unwrap();
        let changed_second = [
            blob(&repo, &commits[1], "a/A.java"),
            blob(&repo, &commits[1], "a/C.java"),
        ];
        let changed_third = blob(&repo, &commits[2], "a/B.java");
        for blob_id in changed_second.iter().chain([&changed_third]) {
            assert!(ahead.wait_for(blob_id), "{blob_id} is parsed ahead");
        }
        // The first commit's files are the indexer's to parse.
        assert!(!ahead.wait_for(&blob(&repo, &commits[0], "a/A.java")));

        // What is parsed is what the parse phase would make of the blob.
        let parsed = ahead.take(&changed_second[0]).unwrap();
        let bytes = repo
            .repo
            .find_blob(git2::Oid::from_bytes(&changed_second[0].0).unwrap())
            .unwrap()
            .content()
            .to_vec();
        let file = crate::source::SourceFile {
            path: "a/A.java".into(),
            blob_id: changed_second[0],
            size: bytes.len() as u64,
        };
        match (parsed, parse_bytes(&file, bytes, Passes::ALL)) {
            (
                ParsedBlob::Facts { payload, stats, .. },
                ParsedBlob::Facts {
                    payload: expected,
                    stats: expected_stats,
                    ..
                },
            ) => {
                assert_eq!(payload.len(), expected.len());
                assert_eq!(stats, expected_stats);
            }
            _ => panic!("both parse"),
        }

        // Once the indexer is at the third commit, what was parsed for the
        // second and not taken is dropped.
        ahead.reached(&commits[2]);
        assert!(ahead.take(&changed_second[1]).is_none());
        assert!(ahead.take(&changed_third).is_some());
        assert_eq!(ahead.held(), 0, "nothing parsed is held any more");
    }

    fn index_all(
        store: &Store,
        source: &Source,
        commits: &[String],
        ahead: bool,
        before_each: impl Fn(&Indexer<'_>, usize),
    ) -> Vec<IndexSummary> {
        let config = IndexConfig {
            jdk: Some(JdkTypes::read(refscope_test_support::jdk_stub_home()).unwrap()),
            jobs: 2,
            ..IndexConfig::default()
        };
        let mut indexer = Indexer::new(store, config);
        if ahead {
            indexer.parse_ahead(source, commits);
        }
        commits
            .iter()
            .enumerate()
            .map(|(at, commit)| {
                before_each(&indexer, at);
                let revision = source
                    .resolve_revision(Some(commit), &SourceLimits::default())
                    .unwrap();
                indexer.index(source, &revision, &mut |_| {}).unwrap()
            })
            .collect()
    }

    #[test]
    fn an_indexer_takes_what_was_parsed_ahead_and_stores_the_same() {
        let (repo, commits) = history();
        let source = Source::open(repo.path()).unwrap();
        let with = tempfile::tempdir().unwrap();
        let without = tempfile::tempdir().unwrap();
        let with_store = Store::open(with.path()).unwrap();
        let without_store = Store::open(without.path()).unwrap();
        let changed = [
            vec![],
            vec![
                blob(&repo, &commits[1], "a/A.java"),
                blob(&repo, &commits[1], "a/C.java"),
            ],
            vec![blob(&repo, &commits[2], "a/B.java")],
        ];
        let summaries = index_all(&with_store, &source, &commits, true, |indexer, at| {
            let ahead = indexer.ahead().expect("a git range is parsed ahead");
            for blob_id in &changed[at] {
                assert!(ahead.wait_for(blob_id));
            }
        });
        let expected = index_all(&without_store, &source, &commits, false, |indexer, _| {
            assert!(indexer.ahead().is_none());
        });
        let ahead: Vec<u64> = summaries.iter().map(|s| s.n_parsed_ahead).collect();
        assert_eq!(ahead, [0, 2, 1]);
        for (with, without) in summaries.iter().zip(&expected) {
            assert_eq!(with.n_parsed, without.n_parsed);
            assert_eq!(with.dirty, without.dirty);
            assert_eq!(with.n_elements, without.n_elements);
            assert_eq!(with.n_ref_sites, without.n_ref_sites);
        }
        // The same records, in the same order.
        assert_eq!(
            std::fs::read(with_store.pack_path()).unwrap(),
            std::fs::read(without_store.pack_path()).unwrap()
        );
    }
}
