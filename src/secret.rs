//! A password as indoubt holds it: it never prints itself (Debug says `<redacted>`), and
//! only the connection code asks for its text.

use std::fmt;

#[derive(Clone)]
pub struct Password(String);

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(<redacted>)")
    }
}

impl Password {
    pub fn new(text: String) -> Password {
        Password(text)
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}
