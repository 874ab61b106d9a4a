//! The application's own error with advice ([`Hinted`]); everything else is `anyhow`, and
//! the libraries' typed errors get their hints in src/hints.rs. It imports nothing of
//! the crate: every layer that words its own refusals (the settings, src/fsafe.rs) uses it.

use std::fmt;

/// An error that carries advice on how to fix it. Main prints the hint under the error.
#[derive(Debug)]
pub struct Hinted {
    pub message: String,
    pub hint: String,
}

impl fmt::Display for Hinted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Hinted {}

pub fn hinted(message: impl Into<String>, hint: impl Into<String>) -> anyhow::Error {
    Hinted {
        message: message.into(),
        hint: hint.into(),
    }
    .into()
}

/// The first hint found anywhere in an error's chain.
pub fn hint_of(err: &anyhow::Error) -> Option<&str> {
    err.chain()
        .find_map(|e| e.downcast_ref::<Hinted>())
        .map(|h| h.hint.as_str())
}
