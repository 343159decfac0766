//! The answers to the protocol's requests, one module per kind of
//! question: where things are ([`navigate`]: definition, references,
//! implementations), who calls what ([`hierarchy`]), what a file and the
//! work tree declare ([`symbols`]), and what an element is ([`hover`]).
//!
//! Each answer reads one revision through a [`Context`](crate::locate::Context);
//! a position on no name, a file outside the revision or an element the
//! revision does not declare answers empty, never an error.

mod describe;
pub mod hierarchy;
pub mod hover;
pub mod navigate;
pub mod symbols;
