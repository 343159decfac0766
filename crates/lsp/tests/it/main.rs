//! The language server driven through its protocol, in memory
//! (`Connection::memory()`) and over a byte stream, on the `zoo` fixture:
//! every request it answers, edits of open documents, files changed on
//! disk, and bad input.

mod answers;
mod common;
mod edits;
mod protocol;
