//! Identifiers of a syntax tree, read without allocating their text.

/// `f` of an identifier's text, written on the stack when it is short (most are): no
/// allocation for the many identifiers a check turns away.
pub fn with_ident_text<R>(ident: &proc_macro2::Ident, f: impl FnOnce(&str) -> R) -> R {
    use std::fmt::Write as _;
    struct Text {
        bytes: [u8; 48],
        len: usize,
        longer: bool,
    }
    impl std::fmt::Write for Text {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            match self.bytes.get_mut(self.len..self.len + s.len()) {
                Some(room) => {
                    room.copy_from_slice(s.as_bytes());
                    self.len += s.len();
                }
                None => self.longer = true,
            }
            Ok(())
        }
    }
    let mut text = Text {
        bytes: [0; 48],
        len: 0,
        longer: false,
    };
    let _ = write!(text, "{ident}");
    match std::str::from_utf8(&text.bytes[..text.len]) {
        Ok(t) if !text.longer => f(t),
        _ => f(&ident.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::with_ident_text;
    use proc_macro2::{Ident, Span};

    #[test]
    fn short_long_and_raw_identifiers_read_as_written() {
        let short = Ident::new("request_id", Span::call_site());
        assert_eq!(with_ident_text(&short, str::to_string), "request_id");
        let long = "a_name_much_longer_than_the_forty_eight_bytes_on_the_stack";
        let long_ident = Ident::new(long, Span::call_site());
        assert_eq!(with_ident_text(&long_ident, str::to_string), long);
        let raw = Ident::new_raw("type", Span::call_site());
        assert_eq!(with_ident_text(&raw, str::to_string), "r#type");
    }
}
