//! `--format html`: the same content as the Markdown, as one self-contained page — inline
//! CSS, inline SVG diagrams, no script, and a Content-Security-Policy that forbids every
//! load, so the page renders the same offline as online.

use idemcheck_spec::Judgement;

use super::hints::DiffKind;
use super::markdown::{declared_list, findings_cell, intro, justified_list};
use super::text::{duration, html, html_inline};
use super::{ContractStatus, Docs, ToolDoc};

const CSS: &str = r#"
:root { color-scheme: light; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1a1a1a; background: #ffffff; margin: 0; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 28px 64px; }
h1 { font-size: 26px; margin: 8px 0 4px; }
h2 { font-size: 20px; margin: 36px 0 10px; border-bottom: 1px solid #dddddd; padding-bottom: 4px; }
h3 { font-size: 17px; margin: 0 0 8px; }
code { font: 13px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; background: #f3f4f6; padding: 1px 4px; border-radius: 4px; }
table { border-collapse: collapse; width: 100%; margin: 8px 0 14px; font-size: 14px; }
th, td { border: 1px solid #d9d9d9; padding: 5px 8px; text-align: left; vertical-align: top; }
th { background: #f6f7f9; }
table.facts th { width: 150px; }
.intro { color: #444444; }
.tool { border: 1px solid #dcdfe4; border-radius: 10px; padding: 16px 20px; margin: 18px 0; }
.answer { background: #f5f8ff; border-left: 4px solid #1f4e9c; padding: 8px 12px; margin: 10px 0 14px; }
.summary-text { color: #444444; margin: 0 0 8px; font-style: italic; }
.kind-write { color: #8a1c1c; font-weight: 600; }
.kind-read { color: #1c5e20; font-weight: 600; }
.kind-unknown { color: #7a5a00; font-weight: 600; }
.status-complete { color: #1c5e20; }
.status-incomplete, .status-none { color: #8a1c1c; font-weight: 600; }
.contradiction { color: #8a1c1c; font-weight: 600; }
.may-claim { color: #5a4a00; }
.undeclared { color: #7a5a00; font-weight: 600; }
figure.diagram { margin: 12px 0 0; overflow-x: auto; }
figure.diagram figcaption { font-size: 12px; color: #666666; }
a { color: #1f4e9c; }
"#;

fn link(docs: &Docs, file: &str, line: u32) -> String {
    format!(
        "<a href=\"{}\">{}</a>",
        html(&format!("{}{file}#L{line}", docs.source_base)),
        html(&format!("{file}:{line}"))
    )
}

fn status_class(t: &ToolDoc) -> &'static str {
    match t.status() {
        ContractStatus::Complete => "status-complete",
        ContractStatus::None | ContractStatus::Undeclared => "status-none",
        ContractStatus::Incomplete(_) => "status-incomplete",
        ContractStatus::NotNeeded | ContractStatus::GuardedBy(_) => "status-read",
    }
}

/// Render the whole page.
pub fn render(docs: &Docs) -> String {
    page(docs, &docs.title, |out| {
        out.push_str(&format!(
            "<p class=\"intro\">{}</p>\n",
            html_inline(&intro(docs))
        ));
        out.push_str("<h2 id=\"summary-heading\">Summary</h2>\n");
        out.push_str("<table id=\"summary\">\n<thead><tr><th>Tool</th><th>Rust path</th><th>Kind</th><th>Contract</th><th>Open findings</th></tr></thead>\n<tbody>\n");
        for t in &docs.tools {
            out.push_str(&format!(
                "<tr><td><a href=\"#{}\">{}</a></td><td><code>{}</code></td><td class=\"kind-{}\">{}</td><td class=\"{}\">{}</td><td>{}</td></tr>\n",
                t.anchor(),
                html(&t.name),
                html(&t.function),
                t.kind_str(),
                t.kind_str(),
                status_class(t),
                html(&t.contract_status()),
                html(&findings_cell(t)),
            ));
        }
        out.push_str("</tbody>\n</table>\n");
        if !docs.hints.is_empty() {
            out.push_str("<h2 id=\"mcp-hints\">MCP hints</h2>\n");
            hints_section(docs, out);
        }
        out.push_str("<h2 id=\"tools\">Tools</h2>\n");
        for t in &docs.tools {
            tool_section(docs, t, out);
        }
    })
}

/// The MCP hints alone (`--mcp-hints --format html`).
pub fn render_hints(docs: &Docs) -> String {
    let title = format!(
        "MCP hints: {}",
        docs.title.trim_start_matches("Tool contracts: ")
    );
    page(docs, &title, |out| hints_section(docs, out))
}

fn page(docs: &Docs, title: &str, body: impl FnOnce(&mut String)) -> String {
    let mut out =
        String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<meta name=\"generator\" content=\"cargo idemcheck docs\">\n");
    out.push_str(&format!("<title>{}</title>\n", html(title)));
    out.push_str(&format!("<style>{CSS}</style>\n</head>\n<body>\n<main>\n"));
    out.push_str(&format!("<h1>{}</h1>\n", html(title)));
    if let Some(g) = &docs.generated {
        out.push_str(&format!("<p class=\"intro\">Generated {}.</p>\n", html(g)));
    }
    body(&mut out);
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

fn hints_section(docs: &Docs, out: &mut String) {
    if docs.hints.is_empty() {
        out.push_str("<p>No MCP tools (rmcp, rust-mcp-sdk) were found.</p>\n");
        return;
    }
    out.push_str("<p>A write tool may not claim <code>read_only_hint = true</code>; only a write tool with a complete contract (key, postcondition, retry cap) may claim <code>idempotent_hint = true</code>. Hints not declared count with their MCP defaults; <code>destructive_hint</code> and <code>open_world_hint</code> are not decided by the contract.</p>\n");
    out.push_str("<table id=\"hints\">\n<thead><tr><th>Tool</th><th>Kind</th><th>Declared</th><th>Justified by contract and code</th><th>Difference</th></tr></thead>\n<tbody>\n");
    for row in &docs.hints {
        let diff = if row.differences.is_empty() {
            "none".to_string()
        } else {
            row.differences
                .iter()
                .map(|d| match d.kind {
                    DiffKind::Contradiction => format!(
                        "<span class=\"contradiction\">contradiction</span>: declares <code>{} = {}</code>, set <code>{}</code>: {}",
                        d.hint,
                        d.effective,
                        html(&d.suggestion),
                        html_inline(&d.reason)
                    ),
                    DiffKind::MayClaim => format!(
                        "<span class=\"may-claim\">may claim</span> <code>{}</code>: {}",
                        html(&d.suggestion),
                        html_inline(&d.reason)
                    ),
                    DiffKind::Undeclared => format!(
                        "<span class=\"undeclared\">undeclared</span>: {}",
                        html_inline(&d.reason)
                    ),
                })
                .collect::<Vec<_>>()
                .join("<br>")
        };
        out.push_str(&format!(
            "<tr><td><code>{}</code> ({})</td><td class=\"kind-{}\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            html(&row.tool),
            link(docs, &row.file, row.line),
            super::text::judgement(row.kind),
            super::text::judgement(row.kind),
            html(&declared_list(row)),
            html(&justified_list(row)),
            diff
        ));
    }
    out.push_str("</tbody>\n</table>\n");
}

fn tool_section(docs: &Docs, t: &ToolDoc, out: &mut String) {
    let anchor = t.anchor();
    out.push_str(&format!(
        "<section class=\"tool\" id=\"{anchor}\">\n<h3>{} <small>(<code>{}</code>)</small></h3>\n",
        html(&t.name),
        html(&t.function)
    ));
    if !t.summary.is_empty() {
        out.push_str(&format!(
            "<p class=\"summary-text\">{}</p>\n",
            html_inline(&t.summary)
        ));
    }
    out.push_str(&format!(
        "<p class=\"answer\">{}</p>\n",
        html_inline(&t.answer)
    ));
    let c = &t.contract;
    let opt_ms = |v: Option<u64>, none: &str| v.map_or_else(|| none.to_string(), duration);
    let mut rows: Vec<(&str, String)> = vec![
        ("Source", link(docs, &t.file, t.line)),
        ("Defined as", html_inline(&t.style)),
        (
            "Kind",
            format!(
                "<span class=\"kind-{}\">{}</span> — {}",
                t.kind_str(),
                t.kind_str(),
                html_inline(&t.kind_reason)
            ),
        ),
    ];
    if t.kind == Judgement::Write {
        rows.push((
            "Contract",
            format!(
                "<span class=\"{}\">{}</span>",
                status_class(t),
                html(&t.contract_status())
            ),
        ));
        rows.push(("Key", html_inline(&t.key_text)));
        rows.push((
            "Postcondition",
            match &t.verify {
                Some(v) => match &v.found {
                    Some((path, file, line)) => format!(
                        "<code>{}</code> → <code>{}</code> ({})",
                        html(&v.path),
                        html(path),
                        link(docs, file, *line)
                    ),
                    None => format!(
                        "<code>{}</code> (not found in the workspace)",
                        html(&v.path)
                    ),
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
        rows.push(("Timeout", html(&opt_ms(c.timeout_ms, "none declared"))));
        rows.push((
            "Settle window",
            html(&opt_ms(
                c.settle_ms,
                "none (\"not done\" at the cap is reported as unknown)",
            )),
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
        rows.push(("Suppressed", html(&format!("{codes}: {reason}"))));
    }
    out.push_str("<table class=\"facts\">\n<tbody>\n");
    for (k, v) in rows {
        out.push_str(&format!("<tr><th>{k}</th><td>{v}</td></tr>\n"));
    }
    out.push_str("</tbody>\n</table>\n");
    if !t.writes.is_empty() {
        out.push_str("<p>Writes found:</p>\n<ul class=\"writes\">\n");
        for w in t.writes.iter().take(super::MAX_WRITES) {
            let mut line = format!(
                "<li>{} ({})",
                html_inline(&w.text),
                link(docs, &w.file, w.line)
            );
            if !w.chain.is_empty() {
                let chain: Vec<String> = w
                    .chain
                    .iter()
                    .map(|c| format!("<code>{}</code>", html(c)))
                    .collect();
                line.push_str(&format!(", reached through {}", chain.join(" → ")));
            }
            if !w.strong {
                line.push_str(" — weak evidence (an SDK-like method name)");
            }
            line.push_str("</li>\n");
            out.push_str(&line);
        }
        if t.writes.len() > super::MAX_WRITES {
            out.push_str(&format!(
                "<li>… and {} more</li>\n",
                t.writes.len() - super::MAX_WRITES
            ));
        }
        out.push_str("</ul>\n");
    }
    match &t.arg_source {
        Some(src) => {
            out.push_str(&format!(
                "<p>Arguments: <code>{}</code> ({})",
                html(src.struct_name.as_deref().unwrap_or("")),
                link(docs, &src.file, src.line)
            ));
            if !src.doc.is_empty() {
                out.push_str(&format!(" — {}", html_inline(&src.doc)));
            }
            out.push_str("</p>\n");
        }
        None => out.push_str("<p>Arguments:</p>\n"),
    }
    if t.args.is_empty() {
        out.push_str("<p>none</p>\n");
    } else {
        out.push_str("<table class=\"args\">\n<thead><tr><th>Name</th><th>Type</th><th>Required</th><th>In key</th><th>Description</th></tr></thead>\n<tbody>\n");
        for a in &t.args {
            out.push_str(&format!(
                "<tr><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                html(&a.name),
                html(&a.ty),
                if a.required { "yes" } else { "no" },
                if a.in_key { "yes" } else { "" },
                html_inline(&a.doc)
            ));
        }
        out.push_str("</tbody>\n</table>\n");
    }
    if !t.findings.is_empty() {
        out.push_str("<p>Open findings:</p>\n<ul class=\"findings\">\n");
        for f in &t.findings {
            out.push_str(&format!(
                "<li><strong>{}</strong> {} ({}): {}</li>\n",
                f.code,
                f.severity.as_str(),
                link(docs, &f.file, f.line),
                html_inline(&f.message)
            ));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("<figure class=\"diagram\">\n");
    out.push_str(&t.diagram.svg(
        &format!("State diagram of {}", t.name),
        &format!("d-{anchor}"),
    ));
    out.push_str(&format!(
        "\n<figcaption>The path of one call of <code>{}</code>.</figcaption>\n</figure>\n</section>\n",
        html(&t.name)
    ));
}
