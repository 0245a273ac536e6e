//! "Did you mean ...?": the closest known word to a misspelt one, for the grammar's, the
//! configuration's and the lint's messages.
//!
//! Jaro–Winkler similarity, written here rather than taken from a crate so that the runtime's
//! dependency graph stays small (issue 25); a test checks it against `strsim::jaro_winkler`,
//! which it replaces, value for value.

/// The closest of `candidates` to `word`, if it is close enough to be a likely typo
/// (Jaro–Winkler similarity at least 0.8; of equally close ones, the last).
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (jaro_winkler(word, c), c))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// Jaro–Winkler similarity of `a` and `b`, over `char`s: 1.0 for equal strings (two empty
/// ones included), 0.0 when nothing matches; a common prefix of up to four characters raises
/// a Jaro similarity above 0.7 by a tenth of the remaining distance per character.
pub fn jaro_winkler(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let sim = jaro(&a, &b);
    if sim <= 0.7 {
        return sim;
    }
    let prefix = a.iter().zip(&b).take(4).take_while(|(x, y)| x == y).count();
    sim + 0.1 * prefix as f64 * (1.0 - sim)
}

/// Jaro similarity: characters match when equal and at most `max(len) / 2 - 1` positions
/// apart (each character of `b` matched once, the first free one from the left); half the
/// matched characters out of order count as transpositions.
fn jaro(a: &[char], b: &[char]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let window = (a.len().max(b.len()) / 2).saturating_sub(1);
    let mut a_matched = vec![false; a.len()];
    let mut b_matched = vec![false; b.len()];
    let mut matches = 0usize;
    for (i, x) in a.iter().enumerate() {
        let lo = i.saturating_sub(window);
        let hi = (i + window + 1).min(b.len());
        if let Some(j) = (lo..hi).find(|&j| !b_matched[j] && b[j] == *x) {
            a_matched[i] = true;
            b_matched[j] = true;
            matches += 1;
        }
    }
    if matches == 0 {
        return 0.0;
    }
    let in_a = a
        .iter()
        .zip(&a_matched)
        .filter(|(_, m)| **m)
        .map(|(c, _)| c);
    let in_b = b
        .iter()
        .zip(&b_matched)
        .filter(|(_, m)| **m)
        .map(|(c, _)| c);
    let transpositions = in_a.zip(in_b).filter(|(x, y)| x != y).count() / 2;
    let m = matches as f64;
    ((m / a.len() as f64) + (m / b.len() as f64) + ((matches - transpositions) as f64 / m)) / 3.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Bit for bit what `strsim::jaro_winkler` answers, so no suggestion changes.
    fn same_as_strsim(a: &str, b: &str) {
        let ours = jaro_winkler(a, b);
        let theirs = strsim::jaro_winkler(a, b);
        assert_eq!(
            ours.to_bits(),
            theirs.to_bits(),
            "{a:?} {b:?}: {ours} vs {theirs}"
        );
    }

    #[test]
    fn matches_strsim_on_known_pairs() {
        for (a, b) in [
            ("", ""),
            ("", "a"),
            ("a", ""),
            ("a", "a"),
            ("a", "b"),
            ("ab", "ba"),
            ("martha", "marhta"),
            ("dixon", "dicksonx"),
            ("cheeseburger", "cheese fries"),
            ("verfy", "verify"),
            ("max_retry", "max_retries"),
            ("missing_verfy", "missing_verify"),
            ("kye", "key"),
            ("key_fn", "key"),
            ("Öster", "Oster"),
            ("aaaa", "aaab"),
            ("abcabc", "cbacba"),
        ] {
            same_as_strsim(a, b);
            same_as_strsim(b, a);
        }
    }

    proptest! {
        #[test]
        fn matches_strsim(a in "[a-e_é]{0,12}", b in "[a-e_é]{0,12}") {
            same_as_strsim(&a, &b);
        }
    }

    #[test]
    fn nearest_suggests_close_words_only() {
        let keys = ["key", "key_fn", "verify", "max_retries"];
        assert_eq!(nearest("verfy", keys), Some("verify"));
        assert_eq!(nearest("max_retry", keys), Some("max_retries"));
        assert_eq!(nearest("colour", keys), None);
    }
}
