//! `IDEM012 unparsable_file` (and malformed suppression comments, `IDEM011`): findings the
//! per-file pass made about the file itself.

use super::Hit;
use crate::facts::FileFacts;

/// The file-level findings of a file.
pub fn check(fi: usize, file: &FileFacts) -> Vec<Hit> {
    file.findings
        .iter()
        .map(|f| Hit {
            file: fi,
            finding: f.clone(),
            tool: String::new(),
            function: String::new(),
        })
        .collect()
}
