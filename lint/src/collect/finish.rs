//! The end of a file: tools assembled from several items linked (rmcp `ToolBase` +
//! `AsyncTool`, rust-mcp-sdk `#[mcp_tool]` structs, swiftide derives: the `hooks` into
//! [`crate::frameworks`]), suppression comments attached, and the results moved into the
//! file's facts.

use super::*;

impl Collector<'_> {
    /// Link tools assembled from several items, attach suppression comments, and move the
    /// results into `facts`.
    pub(super) fn finish_file(&mut self, text: &str, facts: &mut FileFacts) {
        // Data files named by its literals, where tools may be defined in data.
        facts.data_refs = crate::frameworks::data_file::refs(text);
        // Tool definitions written as JSON in code, each once (a macro may be walked twice).
        let mut entries = std::mem::take(&mut self.fw.code_entries);
        let mut seen = rustc_hash::FxHashSet::default();
        entries.retain(|e| seen.insert((e.name.clone(), e.line)));
        facts.code_entries = entries;
        // Tools assembled from several items: rmcp ToolBase + AsyncTool, rust-mcp-sdk
        // structs, swiftide derives.
        self.fw_link_tool_bases();
        self.fw_link_mcp_structs();
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
        facts.name_consts = std::mem::take(&mut self.fw.name_consts);
        facts.shared_hints = std::mem::take(&mut self.fw.shared_hints);
        facts.fns = std::mem::take(&mut self.fns);
        facts.tools = std::mem::take(&mut self.tools);
        facts.fields = std::mem::take(&mut self.fields);
        facts.globs = std::mem::take(&mut self.globs);
        facts.structs = std::mem::take(&mut self.structs);
        facts.findings.append(&mut self.findings);
    }
}
