//! The conformance suite as data: spec cases (`spec-cases/`) loaded into memory, and the
//! rule that decides whether an implementation's output meets a case.
//!
//! The case format is documented in `docs/spec-cases.md` and, key by key, in `load`.
//! Both `cargo test` (against the reference) and `toolfix conform` (against any
//! implementation) read cases through this module, so they can never disagree about what
//! a case says.

pub mod case;
pub mod embedded;
pub mod forms;
pub mod guarantee;
pub mod load;
pub(crate) mod schema;
pub mod semantic;
pub mod streamed;
mod toml_value;

pub use case::{Case, Expectation, Expected, Level};
pub use load::{LoadError, load_dir, load_embedded, load_file};
