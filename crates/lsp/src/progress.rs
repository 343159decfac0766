//! Work-done progress of an update, for clients that show it: `$/progress`
//! begin, reports at each phase and at most every 100 ms within one, end.
//! Notices of the indexer (no JDK found) go to the client's log.

use std::time::{Duration, Instant};

use crossbeam_channel::Sender;
use lsp_server::{Message, Notification};
use lsp_types::{
    LogMessageParams, MessageType, ProgressParams, ProgressParamsValue, ProgressToken,
    WorkDoneProgress, WorkDoneProgressBegin, WorkDoneProgressEnd, WorkDoneProgressReport,
};
use refscope_engine::Progress;

/// How often a phase reports at most.
const REPORT_EVERY: Duration = Duration::from_millis(100);

/// The progress of one update, reported to the client.
pub struct ProgressReporter {
    sender: Sender<Message>,
    /// The token the client created; `None` when it shows no progress
    /// (notices are still logged).
    token: Option<ProgressToken>,
    phase: &'static str,
    total: u64,
    done: u64,
    last_report: Instant,
}

impl ProgressReporter {
    /// Starts reporting, with `title`, under `token` if there is one.
    pub fn begin(sender: Sender<Message>, token: Option<ProgressToken>, title: &str) -> Self {
        let reporter = Self {
            sender,
            token,
            phase: "scan",
            total: 0,
            done: 0,
            last_report: Instant::now(),
        };
        reporter.send(WorkDoneProgress::Begin(WorkDoneProgressBegin {
            title: title.to_string(),
            cancellable: Some(false),
            message: Some("listing the files".into()),
            percentage: Some(0),
        }));
        reporter
    }

    /// Reports what the indexer says.
    pub fn on(&mut self, progress: &Progress) {
        match progress {
            Progress::Phase { name, total } => {
                (self.phase, self.total, self.done) = (name, *total, 0);
                self.report();
            }
            Progress::Advance(n) => {
                self.done += n;
                if self.last_report.elapsed() >= REPORT_EVERY {
                    self.report();
                }
            }
            Progress::WaitingForLock { pid } => {
                self.log(
                    MessageType::INFO,
                    format!("refscope: waiting for process {pid}, which is writing the store"),
                );
            }
            Progress::NoJdk => self.log(
                MessageType::WARNING,
                "refscope: no JDK found (set JAVA_HOME); JDK type names stay unqualified".into(),
            ),
            Progress::Notice(notice) => self.log(MessageType::INFO, format!("refscope: {notice}")),
        }
    }

    /// Ends the progress with `message`.
    pub fn end(self, message: String) {
        self.send(WorkDoneProgress::End(WorkDoneProgressEnd {
            message: Some(message),
        }));
    }

    fn report(&mut self) {
        self.last_report = Instant::now();
        let (message, percentage) = match self.total {
            0 => (self.phase.to_string(), None),
            total => (
                format!("{} {}/{}", self.phase, self.done.min(total), total),
                Some((self.done.min(total) * 100 / total) as u32),
            ),
        };
        self.send(WorkDoneProgress::Report(WorkDoneProgressReport {
            cancellable: Some(false),
            message: Some(message),
            percentage,
        }));
    }

    fn send(&self, value: WorkDoneProgress) {
        let Some(token) = &self.token else {
            return;
        };
        let params = ProgressParams {
            token: token.clone(),
            value: ProgressParamsValue::WorkDone(value),
        };
        let _ = self
            .sender
            .send(Notification::new("$/progress".into(), params).into());
    }

    fn log(&self, typ: MessageType, message: String) {
        log_message(&self.sender, typ, message);
    }
}

/// Sends `window/logMessage`.
pub fn log_message(sender: &Sender<Message>, typ: MessageType, message: String) {
    tracing::info!("{message}");
    let params = LogMessageParams { typ, message };
    let _ = sender.send(Notification::new("window/logMessage".into(), params).into());
}
