//! The end of a file: tools assembled from several items linked (rmcp `ToolBase` +
//! `AsyncTool`, rust-mcp-sdk `#[mcp_tool]` structs), suppression comments attached, and
//! the results moved into the file's facts.

use super::*;

impl Collector<'_> {
    /// Link tools assembled from several items, attach suppression comments, and move the
    /// results into `facts`.
    pub(super) fn finish_file(&mut self, text: &str, facts: &mut FileFacts) {
        // rmcp ToolBase + AsyncTool.
        for p in std::mem::take(&mut self.pending_async) {
            let info = self.toolbases.remove(&p.ty);
            let (name, hints) = match info {
                Some(i) => (i.name, Some(i.hints)),
                None => (self.const_names.get(&p.ty).cloned(), None),
            };
            let function = format!("{}::{}", p.ty, p.sig.ident);
            self.make_tool(
                ToolStyle::RmcpToolBase,
                &p.sig,
                None,
                hints,
                name.or_else(|| Some(p.ty.clone())),
                function,
                ToolBody::Local(p.fn_idx),
                p.start_line,
                (Vec::new(), Vec::new()),
            );
        }
        // rust-mcp-sdk structs.
        for s in std::mem::take(&mut self.mcp_structs) {
            let ty = s.ident.to_string();
            const CALLS: &[&str] = &["call_tool", "run_tool", "call", "run", "execute", "handle"];
            let body = CALLS
                .iter()
                .find_map(|n| self.local_methods.get(&(ty.clone(), n.to_string())))
                .map(|i| ToolBody::Local(*i))
                .unwrap_or_else(|| {
                    ToolBody::Method(ty.clone(), CALLS.iter().map(|s| s.to_string()).collect())
                });
            let function = match &body {
                ToolBody::Local(i) => self.fns[*i].display.clone(),
                _ => ty.clone(),
            };
            let mut sig: syn::Signature = syn::parse_quote!(fn tool());
            sig.ident = s.ident.clone();
            self.make_tool(
                ToolStyle::McpSdk,
                &sig,
                None,
                Some(s.hints),
                None,
                function,
                body,
                s.start_line,
                (vec!["self".to_string()], vec![ty.clone()]),
            );
        }
        self.fw_finish();
        // Suppression comments.
        if memchr::memmem::find(text.as_bytes(), b"idemcheck:").is_some() {
            let lines: Vec<&str> = text.lines().collect();
            let mut comment_at: FastMap<u32, usize> = FastMap::default();
            // Plain `//` comments only: not doc comments, not text inside string literals.
            for c in super::comments::line_comments(text) {
                let Some(rest) = c.body.trim_start().strip_prefix("idemcheck:") else {
                    continue;
                };
                if rest.starts_with(':') {
                    // `idemcheck::path` in prose: a path, not a suppression.
                    continue;
                }
                let line = lines.get(c.line).copied().unwrap_or("");
                let column = line.get(..c.column).map_or(c.column, |p| p.chars().count());
                let loc = Loc {
                    line: c.line as u32 + 1,
                    column: column as u32 + 1,
                    end_line: c.line as u32 + 1,
                    end_column: line.chars().count() as u32 + 1,
                };
                match parse_allow_comment(rest) {
                    Ok((codes, reason)) => {
                        comment_at.insert(loc.line, facts.comment_allows.len());
                        facts.comment_allows.push(CommentAllow {
                            codes,
                            reason,
                            loc,
                        });
                    }
                    Err(msg) => push_finding(
                        &mut self.findings,
                        self.config,
                        RuleCode::Idem011,
                        loc,
                        format!("malformed suppression comment: {msg}"),
                        Some(
                            "write `// idemcheck: allow(IDEM00x, reason = \"why the rule does not apply\")`"
                                .into(),
                        ),
                    ),
                }
            }
            for (tool, start) in self.tools.iter_mut().zip(&self.tool_starts) {
                // Comments between the first attribute and the name, and the block of
                // comment/attribute lines right above.
                let mut l = tool.loc.line;
                while l >= 1 {
                    if let Some(idx) = comment_at.get(&l) {
                        tool.comment_allows.push(*idx);
                    }
                    if l < *start {
                        let t = lines
                            .get(l as usize - 1)
                            .map(|s| s.trim_start())
                            .unwrap_or("");
                        if !(t.starts_with("//") || t.starts_with("#[")) {
                            break;
                        }
                    }
                    l -= 1;
                }
                tool.comment_allows.sort_unstable();
                tool.comment_allows.dedup();
            }
        }
        facts.sent_consts = self.sent_consts();
        facts.fns = std::mem::take(&mut self.fns);
        facts.tools = std::mem::take(&mut self.tools);
        facts.fields = std::mem::take(&mut self.fields);
        facts.structs = std::mem::take(&mut self.structs);
        facts.findings.append(&mut self.findings);
    }
}
