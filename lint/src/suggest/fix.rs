//! `suggest --fix`: insert the proposed attribute above the tool and a stub postcondition
//! after it. Only whole lines are inserted, nothing is reprinted, so comments and the rest of
//! the file stay byte for byte. The inserted text is laid out as rustfmt lays it out (the
//! stub goes through the project's own `rustfmt` when it is installed, with the project's
//! configuration; rustfmt leaves `#[side_effect(key = [..])]` attributes as written), so a
//! formatted file stays formatted.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::Proposal;

/// Where to insert, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The file.
    pub path: PathBuf,
    /// 1-based line to insert the attribute before.
    pub attr_line: usize,
    /// 1-based last line of the tool; the stub goes after it.
    pub end_line: usize,
    /// Indentation of the tool.
    pub indent: String,
    /// The attribute (unindented; may span lines).
    pub attribute: String,
    /// The stub postcondition, indented.
    pub stub: String,
    /// Where rustfmt looks for the project's configuration.
    pub rustfmt_dir: PathBuf,
    /// The crate's edition.
    pub edition: String,
    /// Whether the tool is a method (the stub is formatted inside an impl).
    pub in_impl: bool,
    /// For a method of a trait impl (rig's `Tool::call`): the stub cannot stand beside it, so
    /// it goes in a new inherent impl of this type after the trait impl's last line.
    pub new_impl: Option<(usize, String)>,
}

/// What the stub postcondition looks like.
#[derive(Debug, Clone)]
pub struct StubSpec {
    /// The tool function's name.
    pub tool: String,
    /// The stub's name.
    pub name: String,
    /// `async fn`.
    pub asyncness: bool,
    /// Generic parameters as written (`<B: BillingApi>`), or empty.
    pub generics: String,
    /// Parameters (`&self`, `billing: &B`, `args: &ChargeArgs`).
    pub params: Vec<String>,
    /// Names to mark as used in the body.
    pub used: Vec<String>,
    /// The tool's success type.
    pub ok_ty: String,
    /// `where` predicates.
    pub where_preds: Vec<String>,
    /// Indentation of the tool.
    pub indent: String,
}

/// Tokens as text, spaced as people write Rust (`<B: BillingApi + Send>`, `&'a str`).
pub fn tokens_text(ts: &proc_macro2::TokenStream) -> String {
    let raw = ts.to_string();
    let mut out = String::with_capacity(raw.len());
    let mut prev = "";
    for part in raw.split(' ').filter(|p| !p.is_empty()) {
        let after_word = prev.ends_with(|c: char| c.is_alphanumeric() || c == '_');
        let glue_before = matches!(part, "," | ";" | ">" | ")" | "]" | "::" | ":" | "?" | ".")
            || part.starts_with(['>', ')', ']', ','])
            || (after_word && (part.starts_with('(') || part.starts_with('<')));
        let glue_after = matches!(prev, "&" | "<" | "(" | "[" | "::" | "'" | "#" | "!" | "")
            || prev.ends_with(['&', '<', '(', '[']);
        if !(glue_before || glue_after) {
            out.push(' ');
        }
        out.push_str(part);
        prev = part;
    }
    out
}

const MAX_WIDTH: usize = 100;

/// The stub postcondition: a doc comment saying what to write, and a body that cannot tell.
pub fn stub(spec: &StubSpec) -> String {
    let i = &spec.indent;
    let mut s = String::new();
    let doc = [
        format!(
            "/// Postcondition of `{}`: did this operation already happen? `Ok(Some(..))`: yes;",
            spec.tool
        ),
        "/// `Ok(None)`: no; `Err(..)`: cannot tell.".to_string(),
        "///".to_string(),
        "/// TODO(idemcheck): a stub from `cargo idemcheck suggest --fix`. Until it looks the operation"
            .to_string(),
        "/// up in the system of record it cannot tell, so an ambiguous failure of the tool ends"
            .to_string(),
        "/// Unknown (escalated to a person).".to_string(),
    ];
    for d in doc {
        s.push_str(&format!("{i}{d}\n"));
    }
    let head = format!(
        "{i}{}fn {}{}(",
        if spec.asyncness { "async " } else { "" },
        spec.name,
        spec.generics
    );
    let tail = format!(") -> Result<Option<{}>, &'static str>", spec.ok_ty);
    let one = format!("{head}{}{tail}", spec.params.join(", "));
    let brace_on_line = spec.where_preds.is_empty();
    let fits = one.chars().count() + if brace_on_line { 2 } else { 0 } <= MAX_WIDTH;
    if fits {
        s.push_str(&one);
    } else {
        s.push_str(&head);
        s.push('\n');
        for p in &spec.params {
            s.push_str(&format!("{i}    {p},\n"));
        }
        s.push_str(&format!("{i}{tail}"));
    }
    if brace_on_line {
        s.push_str(" {\n");
    } else {
        s.push_str(&format!("\n{i}where\n"));
        for w in &spec.where_preds {
            s.push_str(&format!("{i}    {w},\n"));
        }
        s.push_str(&format!("{i}{{\n"));
    }
    match spec.used.len() {
        0 => {}
        1 => s.push_str(&format!("{i}    let _ = {};\n", spec.used[0])),
        _ => s.push_str(&format!("{i}    let _ = ({});\n", spec.used.join(", "))),
    }
    s.push_str(&format!(
        "{i}    Err(\"postcondition of `{}` not written yet\")\n{i}}}",
        spec.tool
    ));
    s
}

/// The stub laid out by the project's rustfmt (with its configuration), when rustfmt runs;
/// otherwise as [`stub`] laid it out.
fn rustfmt_stub(plan: &Plan) -> String {
    let indent = &plan.indent;
    let dedented: Vec<&str> = plan
        .stub
        .lines()
        .map(|l| l.strip_prefix(indent.as_str()).unwrap_or(l))
        .collect();
    let mut input = String::new();
    if plan.in_impl {
        input.push_str("impl IdemcheckStub {\n");
    }
    for l in &dedented {
        input.push_str(l);
        input.push('\n');
    }
    if plan.in_impl {
        input.push_str("}\n");
    }
    let run = || -> Option<String> {
        let mut child = Command::new("rustfmt")
            .args(["--emit", "stdout", "--edition", &plan.edition])
            .current_dir(&plan.rustfmt_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        child.stdin.take()?.write_all(input.as_bytes()).ok()?;
        let out = child.wait_with_output().ok()?;
        if !out.status.success() {
            return None;
        }
        String::from_utf8(out.stdout).ok()
    };
    let Some(formatted) = run() else {
        return plan.stub.clone();
    };
    let mut lines: Vec<&str> = formatted.lines().collect();
    if plan.in_impl {
        if lines.len() < 2 {
            return plan.stub.clone();
        }
        lines = lines[1..lines.len() - 1].to_vec();
    }
    // One level of rustfmt's indentation inside the impl: the first line's.
    let unit = if plan.in_impl {
        let first = lines.first().copied().unwrap_or("");
        first[..first.len() - first.trim_start().len()].to_string()
    } else {
        String::new()
    };
    lines
        .iter()
        .map(|l| {
            let l = l.strip_prefix(unit.as_str()).unwrap_or(l);
            if l.is_empty() {
                String::new()
            } else {
                format!("{indent}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Insert every applicable proposal; returns (tools fixed, files changed, tools skipped).
pub fn apply(proposals: &[Proposal]) -> Result<(u32, u32, u32), String> {
    let mut by_file: BTreeMap<PathBuf, Vec<&Plan>> = BTreeMap::new();
    let mut skipped = 0;
    for p in proposals {
        match &p.fix {
            Ok(plan) => by_file.entry(plan.path.clone()).or_default().push(plan),
            Err(_) => skipped += 1,
        }
    }
    let mut fixed = 0;
    for (path, mut plans) in by_file.clone() {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
        if let Some(last) = lines.last_mut()
            && !last.ends_with('\n')
        {
            last.push_str(eol);
        }
        plans.sort_by_key(|p| std::cmp::Reverse(p.attr_line));
        for plan in plans {
            let stub = rustfmt_stub(plan);
            // After the tool: a blank line, the stub, and a blank line unless the enclosing
            // block closes (or a blank line already follows). In a trait impl: after the
            // impl, in an inherent impl of its own.
            let mut after: Vec<String> = vec![eol.to_string()];
            let end = match &plan.new_impl {
                Some((impl_end, self_ty)) => {
                    let outer = plan
                        .indent
                        .strip_suffix("    ")
                        .unwrap_or(&plan.indent)
                        .to_string();
                    after.push(format!("{outer}impl {self_ty} {{{eol}"));
                    after.extend(stub.lines().map(|l| format!("{l}{eol}")));
                    after.push(format!("{outer}}}{eol}"));
                    *impl_end
                }
                None => {
                    after.extend(stub.lines().map(|l| format!("{l}{eol}")));
                    plan.end_line
                }
            };
            let next = lines.get(end).map(|l| l.trim()).unwrap_or("");
            if !next.is_empty() && !next.starts_with('}') {
                after.push(eol.to_string());
            }
            let at = end.min(lines.len());
            lines.splice(at..at, after);
            let attr: Vec<String> = plan
                .attribute
                .lines()
                .map(|l| format!("{}{l}{eol}", plan.indent))
                .collect();
            let at = plan.attr_line.saturating_sub(1).min(lines.len());
            lines.splice(at..at, attr);
            fixed += 1;
        }
        let mut out: String = lines.concat();
        if !text.ends_with('\n') && out.ends_with(eol) {
            out.truncate(out.len() - eol.len());
        }
        std::fs::write(&path, out)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    }
    Ok((fixed, by_file.len() as u32, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_text_spacing() {
        let g: syn::Generics =
            syn::parse_str("<'a, B: BillingApi + Send + 'static, const N: usize>").unwrap();
        assert_eq!(
            tokens_text(&quote::ToTokens::to_token_stream(&g)),
            "<'a, B: BillingApi + Send + 'static, const N: usize>"
        );
        let w: syn::WherePredicate = syn::parse_str("T: Fn(&str) -> Vec<u8>").unwrap();
        assert_eq!(
            tokens_text(&quote::ToTokens::to_token_stream(&w)),
            "T: Fn(&str) -> Vec<u8>"
        );
    }

    #[test]
    fn stub_breaks_long_signatures_like_rustfmt() {
        let spec = StubSpec {
            tool: "create_charge".into(),
            name: "verify_create_charge".into(),
            asyncness: true,
            generics: String::new(),
            params: vec![
                "&self".into(),
                "Parameters(args): &Parameters<ChargeArgs>".into(),
            ],
            used: vec!["args".into()],
            ok_ty: "CallToolResult".into(),
            where_preds: Vec::new(),
            indent: "    ".into(),
        };
        let s = stub(&spec);
        assert!(
            s.contains("    async fn verify_create_charge(\n        &self,\n        Parameters(args): &Parameters<ChargeArgs>,\n    ) -> Result<Option<CallToolResult>, &'static str> {\n        let _ = args;\n"),
            "{s}"
        );
    }
}
