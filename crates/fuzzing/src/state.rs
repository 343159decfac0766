//! `state_file`: any bytes as the review state file (`aicr` tools' memory
//! between calls), read as a run that finds them in its agent directory.

use std::path::PathBuf;
use std::sync::OnceLock;

use refscope_aicr::{ReviewState, state::state_path};

/// Writes `data` as the state file of a scratch agent directory and loads
/// it; a state that loads is written back and read again.
pub fn state_file(data: &[u8]) {
    static AGENT_DIR: OnceLock<PathBuf> = OnceLock::new();
    let agent_dir =
        AGENT_DIR.get_or_init(|| tempfile::tempdir().expect("a temporary directory").keep());
    std::fs::write(state_path(agent_dir), data).expect("the scratch state is written");
    if let Ok(Some(state)) = ReviewState::load(agent_dir) {
        state
            .write(agent_dir)
            .expect("a loaded state is written back");
        let again = ReviewState::load(agent_dir)
            .expect("a state written reads back")
            .expect("the state is there");
        assert_eq!(again, state, "a state reads back as written");
    }
}
