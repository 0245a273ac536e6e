//! `--format markdown` (the default): a summary table, the MCP hints table, then one section
//! per tool with its contract, arguments, findings and a Mermaid state diagram.

use idemcheck_spec::Judgement;

use super::hints::{DiffKind, HintRow};
use super::text::{duration, md_cell, md_code};
use super::{Docs, ToolDoc};

/// A source link, `[file:line](base + file#Lline)`.
fn link(docs: &Docs, file: &str, line: u32) -> String {
    format!("[{file}:{line}]({}{file}#L{line})", docs.source_base)
}

/// The intro sentence shared by the formats.
pub(crate) fn intro(docs: &Docs) -> String {
    let writes = docs
        .tools
        .iter()
        .filter(|t| t.kind == Judgement::Write)
        .count();
    let complete = docs
        .tools
        .iter()
        .filter(|t| t.kind == Judgement::Write && t.complete())
        .count();
    let unknown = docs
        .tools
        .iter()
        .filter(|t| t.kind == Judgement::Unknown)
        .count();
    let plural = |n: usize, one: &str, many: &str| {
        if n == 1 {
            format!("{n} {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let unknown = match unknown {
        0 => String::new(),
        n => format!("; {n} unknown: no write and no read found, not declared"),
    };
    format!(
        "{} ({} write, {} of them with a complete contract{}) in {}. For every tool: what it does on a timeout, and where its key is derived.",
        plural(docs.tools.len(), "tool", "tools"),
        writes,
        complete,
        unknown,
        plural(docs.files as usize, "file", "files"),
    )
}

/// `IDEM001 ×1, IDEM003 ×2` or `—`.
pub(crate) fn findings_cell(tool: &ToolDoc) -> String {
    let counts = tool.finding_counts();
    if counts.is_empty() {
        return "—".into();
    }
    counts
        .iter()
        .map(|(code, n)| format!("{code} ×{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Declared hints as `read_only_hint = true, ...`, or `none`.
pub(crate) fn declared_list(row: &HintRow) -> String {
    let items: Vec<String> = row
        .hints
        .iter()
        .filter_map(|h| h.declared.map(|v| format!("{} = {v}", h.hint)))
        .collect();
    if items.is_empty() {
        "none (MCP defaults)".into()
    } else {
        items.join(", ")
    }
}

/// Justified hints as `read_only_hint = false, idempotent_hint = true`.
pub(crate) fn justified_list(row: &HintRow) -> String {
    let items: Vec<String> = row
        .hints
        .iter()
        .filter_map(|h| h.justified.map(|v| format!("{} = {v}", h.hint)))
        .collect();
    if items.is_empty() {
        "none: the lint cannot tell whether it writes".into()
    } else {
        items.join(", ")
    }
}

fn hints_table(docs: &Docs, out: &mut String) {
    out.push_str("| Tool | Kind | Declared | Justified by contract and code | Difference |\n");
    out.push_str("|---|---|---|---|---|\n");
    for row in &docs.hints {
        let diff = if row.differences.is_empty() {
            "none".to_string()
        } else {
            row.differences
                .iter()
                .map(|d| match d.kind {
                    DiffKind::Contradiction => format!(
                        "**contradiction**: declares `{} = {}`, set {}: {}",
                        d.hint,
                        d.effective,
                        md_code(&d.suggestion),
                        d.reason
                    ),
                    DiffKind::MayClaim => {
                        format!("may claim {}: {}", md_code(&d.suggestion), d.reason)
                    }
                    DiffKind::Undeclared => format!("**undeclared**: {}", d.reason),
                })
                .collect::<Vec<_>>()
                .join("<br>")
        };
        out.push_str(&format!(
            "| {} ({}) | {} | {} | {} | {} |\n",
            md_code(&row.tool),
            link(docs, &row.file, row.line),
            super::text::judgement(row.kind),
            md_cell(&declared_list(row)),
            md_cell(&justified_list(row)),
            md_cell(&diff),
        ));
    }
}

/// The MCP hints section alone (`--mcp-hints`).
pub fn render_hints(docs: &Docs) -> String {
    let mut out = format!(
        "# MCP hints: {}\n\n",
        docs.title.trim_start_matches("Tool contracts: ")
    );
    if let Some(g) = &docs.generated {
        out.push_str(&format!("Generated {g}.\n\n"));
    }
    hints_intro(docs, &mut out);
    out
}

fn hints_intro(docs: &Docs, out: &mut String) {
    if docs.hints.is_empty() {
        out.push_str("No MCP tools (rmcp, rust-mcp-sdk) were found.\n");
        return;
    }
    let contradictions = docs
        .hints
        .iter()
        .flat_map(|r| &r.differences)
        .filter(|d| d.kind == DiffKind::Contradiction)
        .count();
    let tools = if docs.hints.len() == 1 {
        "1 MCP tool".to_string()
    } else {
        format!("{} MCP tools", docs.hints.len())
    };
    let contradict = match contradictions {
        0 => "no declared hint contradicts the code".to_string(),
        1 => "1 declared hint contradicts the code".to_string(),
        n => format!("{n} declared hints contradict the code"),
    };
    out.push_str(&format!(
        "{tools}; {contradict}. A write tool may not claim `read_only_hint = true`; only a write tool with a complete contract (key, postcondition, retry cap) may claim `idempotent_hint = true`. Hints not declared count with their MCP defaults; `destructive_hint` and `open_world_hint` are not decided by the contract.\n\n"
    ));
    hints_table(docs, out);
}

/// Render the whole document.
pub fn render(docs: &Docs) -> String {
    let mut out = format!("# {}\n\n", docs.title);
    out.push_str("<!-- Generated by `cargo idemcheck docs`. -->\n\n");
    if let Some(g) = &docs.generated {
        out.push_str(&format!("Generated {g}.\n\n"));
    }
    out.push_str(&intro(docs));
    out.push_str("\n\n## Summary\n\n");
    out.push_str("| Tool | Rust path | Kind | Contract | Open findings |\n");
    out.push_str("|---|---|---|---|---|\n");
    for t in &docs.tools {
        out.push_str(&format!(
            "| [{}](#{}) | {} | {} | {} | {} |\n",
            md_cell(&t.name),
            t.anchor(),
            md_code(&t.function),
            t.kind_str(),
            md_cell(&t.contract_status()),
            findings_cell(t)
        ));
    }
    if !docs.hints.is_empty() {
        out.push_str("\n## MCP hints\n\n");
        hints_intro(docs, &mut out);
    }
    out.push_str("\n## Tools\n");
    for t in &docs.tools {
        tool_section(docs, t, &mut out);
    }
    out
}

fn tool_section(docs: &Docs, t: &ToolDoc, out: &mut String) {
    out.push_str(&format!("\n### {}\n\n", t.heading()));
    if !t.summary.is_empty() {
        out.push_str(&format!("> {}\n\n", t.summary));
    }
    out.push_str(&format!("**{}**\n\n", t.answer));
    let c = &t.contract;
    let opt_ms = |v: Option<u64>, none: &str| v.map_or_else(|| none.to_string(), duration);
    let mut rows: Vec<(&str, String)> = vec![
        ("Source", link(docs, &t.file, t.line)),
        ("Defined as", t.style.clone()),
        ("Kind", format!("**{}** — {}", t.kind_str(), t.kind_reason)),
    ];
    if t.kind == Judgement::Write {
        rows.push(("Contract", t.contract_status()));
        rows.push(("Key", t.key_text.clone()));
        rows.push((
            "Postcondition",
            match &t.verify {
                Some(v) => match &v.found {
                    Some((path, file, line)) => {
                        format!(
                            "{} → `{path}` ({})",
                            md_code(&v.path),
                            link(docs, file, *line)
                        )
                    }
                    None => format!("{} (not found in the workspace)", md_code(&v.path)),
                },
                None if t.contract.no_postcondition => "no postcondition (verify = none)".into(),
                None => "none".into(),
            },
        ));
        rows.push((
            "Retry cap",
            match c.max_retries {
                Some(0) => "0 (never retries)".into(),
                Some(n) => format!("{n} (same key)"),
                None => "none".into(),
            },
        ));
        rows.push(("Timeout", opt_ms(c.timeout_ms, "none declared")));
        rows.push((
            "Settle window",
            opt_ms(
                c.settle_ms,
                "none (\"not done\" at the cap is reported as unknown)",
            ),
        ));
        rows.push(("Ledger TTL", format!("{} h", c.ttl_hours)));
        rows.push((
            "Server dedup",
            if c.server_dedup {
                "yes: the key is passed to the downstream API".into()
            } else {
                "no".into()
            },
        ));
    }
    for (codes, reason) in t.suppressions() {
        rows.push(("Suppressed", format!("{codes}: {reason}")));
    }
    out.push_str("| | |\n|---|---|\n");
    for (k, v) in rows {
        out.push_str(&format!("| {k} | {} |\n", md_cell(&v)));
    }
    if !t.writes.is_empty() {
        out.push_str("\nWrites found:\n\n");
        for w in t.writes.iter().take(super::MAX_WRITES) {
            let mut line = format!("- {} ({})", w.text, link(docs, &w.file, w.line));
            if !w.chain.is_empty() {
                let chain: Vec<String> = w.chain.iter().map(|c| format!("`{c}`")).collect();
                line.push_str(&format!(", reached through {}", chain.join(" → ")));
            }
            if !w.strong {
                line.push_str(" — weak evidence (an SDK-like method name)");
            }
            out.push_str(&line);
            out.push('\n');
        }
        if t.writes.len() > super::MAX_WRITES {
            out.push_str(&format!(
                "- … and {} more\n",
                t.writes.len() - super::MAX_WRITES
            ));
        }
    }
    out.push('\n');
    match &t.arg_source {
        Some(src) => {
            out.push_str(&format!(
                "Arguments: {} ({})",
                md_code(src.struct_name.as_deref().unwrap_or("")),
                link(docs, &src.file, src.line)
            ));
            if !src.doc.is_empty() {
                out.push_str(&format!(" — {}", src.doc));
            }
            out.push_str("\n\n");
        }
        None => out.push_str("Arguments:\n\n"),
    }
    if t.args.is_empty() {
        out.push_str("none\n");
    } else {
        out.push_str("| Name | Type | Required | In key | Description |\n");
        out.push_str("|---|---|---|---|---|\n");
        for a in &t.args {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                md_code(&a.name),
                md_cell(&md_code(&a.ty)),
                if a.required { "yes" } else { "no" },
                if a.in_key { "yes" } else { "" },
                md_cell(&a.doc)
            ));
        }
    }
    if !t.findings.is_empty() {
        out.push_str("\nOpen findings:\n\n");
        for f in &t.findings {
            out.push_str(&format!(
                "- **{}** {} ({}): {}\n",
                f.code,
                f.severity.as_str(),
                link(docs, &f.file, f.line),
                f.message
            ));
        }
    }
    out.push_str("\n```mermaid\n");
    out.push_str(&t.diagram.mermaid());
    out.push_str("```\n");
}
