//! `cargo idemcheck docs [OPTIONS] [PATH...]`: the same selection options as `check`, plus
//! the output format, the output file and the MCP hints report. Exit codes: 0 written, 2 the
//! tool itself failed (bad arguments, unreadable manifest or configuration, unwritable
//! output).

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use crate::cli::{EXIT_FAILURE, EXIT_OK};

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DocFormat {
    /// Markdown with Mermaid diagrams.
    Markdown,
    /// One self-contained HTML page with inline SVG diagrams.
    Html,
    /// The contracts as a JSON array (`specs/tool-contract.schema.json`).
    Json,
}

/// Write one document describing every tool: contract, key, timeout behaviour, arguments,
/// findings and a state diagram.
#[derive(Debug, clap::Args)]
pub struct DocsArgs {
    /// Which packages.
    #[command(flatten)]
    pub select: crate::discover::SelectArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DocFormat::Markdown)]
    pub format: DocFormat,
    /// Write the document to this file instead of stdout.
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Only the MCP hints: per MCP tool, the hints declared, the hints the contract and code
    /// justify, and the difference (JSON: an array of rows).
    #[arg(long)]
    pub mcp_hints: bool,
    /// Prefix of source links (e.g. `https://github.com/o/r/blob/main/`). Default: the path
    /// from the output file's directory to the workspace root (empty on stdout).
    #[arg(long, value_name = "URL")]
    pub source_base: Option<String>,
    /// Print when the document was generated (UTC; `SOURCE_DATE_EPOCH` is honoured). Off by
    /// default, so the document can be committed and diffed.
    #[arg(long)]
    pub timestamp: bool,
    /// Files or directories to document (default: the selected packages).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// Run `docs` with its parsed arguments; returns the exit code.
pub fn run(parsed: DocsArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    // A mistyped directory is refused before any work, never created.
    if let Some(path) = &parsed.out
        && let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        let _ = writeln!(
            err,
            "error: cannot write `{}`: the directory `{}` does not exist (create it first)",
            path.display(),
            dir.display()
        );
        return EXIT_FAILURE;
    }
    let selection = parsed.select.selection(parsed.paths.clone());
    let plan = match crate::discover::plan(&selection) {
        Ok(p) => p,
        Err(e) => return crate::cli::discover_failed(&e, err),
    };
    let source_base = match (&parsed.source_base, &parsed.out) {
        (Some(b), _) => b.clone(),
        (None, Some(path)) => relative_base(path, &plan.root),
        (None, None) => String::new(),
    };
    let generated = parsed.timestamp.then(now_utc);
    let docs = super::build(
        &plan,
        &super::BuildOptions {
            source_base,
            generated,
        },
    );
    crate::cli::save_cache(&plan, err);
    if docs.tools.is_empty()
        && let Some(warning) = crate::discover::tools_left_out(&selection, &plan)
    {
        // Never a silent empty document while the workspace has tools.
        let _ = writeln!(err, "{warning}");
    }
    let text = match (parsed.format, parsed.mcp_hints) {
        (DocFormat::Markdown, false) => super::markdown::render(&docs),
        (DocFormat::Markdown, true) => super::markdown::render_hints(&docs),
        (DocFormat::Html, false) => super::html::render(&docs),
        (DocFormat::Html, true) => super::html::render_hints(&docs),
        (DocFormat::Json, false) => super::json::render(&docs),
        (DocFormat::Json, true) => super::json::render_hints(&docs),
    };
    match &parsed.out {
        Some(path) => {
            if let Err(e) = std::fs::write(path, text) {
                let _ = writeln!(err, "error: cannot write `{}`: {e}", path.display());
                return EXIT_FAILURE;
            }
            let n = docs.tools.len();
            let _ = writeln!(
                err,
                "idemcheck docs: {n} {} written to {}",
                if n == 1 { "tool" } else { "tools" },
                path.display()
            );
        }
        None => {
            if out
                .write_all(text.as_bytes())
                .and_then(|_| out.flush())
                .is_err()
            {
                return EXIT_FAILURE;
            }
        }
    }
    EXIT_OK
}

fn absolute(p: &Path) -> PathBuf {
    let p = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    // Canonicalise the longest existing ancestor (the file itself may not exist yet).
    let mut existing = p.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        match existing.file_name() {
            Some(name) => {
                rest.push(name.to_owned());
                existing.pop();
            }
            None => break,
        }
    }
    let mut out = std::fs::canonicalize(&existing).unwrap_or(existing);
    for name in rest.into_iter().rev() {
        out.push(name);
    }
    out
}

/// The relative path from the directory of `out` to `root`, with `/` and a trailing `/`
/// (empty when they are the same).
pub fn relative_base(out: &Path, root: &Path) -> String {
    let out = absolute(out);
    let dir = out.parent().map(Path::to_path_buf).unwrap_or_default();
    let root = absolute(root);
    let a: Vec<Component<'_>> = dir.components().collect();
    let b: Vec<Component<'_>> = root.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = Vec::new();
    for _ in common..a.len() {
        parts.push("..".into());
    }
    for c in &b[common..] {
        parts.push(c.as_os_str().to_string_lossy().to_string());
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("{}/", parts.join("/"))
    }
}

/// The current time (or `SOURCE_DATE_EPOCH`) as `YYYY-MM-DD HH:MM:SS UTC`.
fn now_utc() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64)
        });
    format_utc(secs)
}

/// Seconds since the Unix epoch as `YYYY-MM-DD HH:MM:SS UTC` (proleptic Gregorian).
pub fn format_utc(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3_600,
        (rem % 3_600) / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_formatting() {
        assert_eq!(format_utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(format_utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(format_utc(1_767_225_599), "2025-12-31 23:59:59 UTC");
    }

    #[test]
    fn relative_bases() {
        let root = std::env::temp_dir().join("idemcheck-docs-base");
        assert_eq!(relative_base(&root.join("tools.md"), &root), "");
        assert_eq!(relative_base(&root.join("docs/tools.md"), &root), "../");
        assert_eq!(
            relative_base(&root.join("a/b/tools.md"), &root.join("ws")),
            "../../ws/"
        );
    }
}
