//! `IDEM008 unguarded_retry`: a write inside a hand-written retry loop or a retry
//! combinator (backon, tokio-retry, backoff, ...), in a tool or a workspace function it
//! calls; and an HTTP client built with reqwest-middleware's retry layer in a crate whose
//! tools write over HTTP.

use std::collections::BTreeSet;
use std::sync::Arc;

use idemcheck_spec::RuleCode;
use idemcheck_spec::config::Config;

use super::{Hit, ToolCx, describe_write};
use crate::facts::{LocFinding, RetryLoop, RetryShape};
use crate::index::{FnId, Index, MAX_DEPTH};

/// Retry loops reachable from a tool that retry a write: (function, loop, the write).
pub fn retried_writes<'a>(
    index: &Index<'a>,
    cx: &ToolCx<'_>,
) -> Vec<(FnId, &'a RetryLoop, String)> {
    let mut out = Vec::new();
    let Some(body) = cx.body else { return out };
    for (id, d) in index.reachable(body, MAX_DEPTH) {
        for r in &index.func(id).retries {
            if r.shape == RetryShape::Middleware {
                continue;
            }
            let direct = r.evidence.iter().find(|e| {
                e.unless_resolved
                    .is_none_or(|ci| !index.edges[id].iter().any(|edge| edge.call == ci))
            });
            let what = match direct {
                Some(e) => Some(describe_write(index, e, id, &[])),
                None => r.calls.iter().find_map(|&ci| {
                    index
                        .call_writes(id, ci, MAX_DEPTH.saturating_sub(d + 1))
                        .map(|(e, at, chain)| describe_write(index, e, at, &chain))
                }),
            };
            if let Some(what) = what {
                out.push((id, r, what));
            }
        }
    }
    out
}

fn shape_text(shape: &RetryShape) -> String {
    match shape {
        RetryShape::Loop(k) => format!("hand-written `{k}` retry loop"),
        RetryShape::Combinator(n) => format!("retry combinator {n}"),
        RetryShape::Middleware => "reqwest-middleware retry layer".into(),
    }
}

/// Retry loops around writes reachable from the tool.
pub fn check(index: &Index<'_>, cx: &ToolCx<'_>) -> Vec<Hit> {
    retried_writes(index, cx)
        .into_iter()
        .filter_map(|(id, r, what)| {
            cx.hit(
                index.fns[id].0,
                RuleCode::Idem008,
                r.loc,
                format!(
                    "{} in `{}` retries a write ({what}) outside the guarded wrapper",
                    shape_text(&r.shape),
                    index.func(id).display
                ),
                "remove the hand-written retry and let `#[side_effect(..., max_retries = N)]` retry after the postcondition says the first attempt did not happen",
            )
        })
        .collect()
}

/// reqwest-middleware retry layers in crates whose write tools send HTTP writes.
pub fn middleware(
    index: &Index<'_>,
    configs: &[Arc<Config>],
    crates: &BTreeSet<usize>,
) -> Vec<Hit> {
    let mut out = Vec::new();
    for (id, &(fi, _)) in index.fns.iter().enumerate() {
        let file = &index.files[fi];
        if !crates.contains(&file.krate) {
            continue;
        }
        let Some(severity) = configs[file.krate].severity(RuleCode::Idem008) else {
            continue;
        };
        let f = index.func(id);
        for r in f
            .retries
            .iter()
            .filter(|r| r.shape == RetryShape::Middleware)
        {
            out.push(Hit {
                file: fi,
                finding: LocFinding {
                    code: RuleCode::Idem008,
                    severity,
                    loc: r.loc,
                    message: format!(
                        "`{}` builds an HTTP client with reqwest-middleware's retry layer; the crate's write tools send HTTP writes, which it retries transparently",
                        f.display
                    ),
                    help: Some("use a client without the retry layer for writes, and let `#[side_effect(..., max_retries = N)]` retry".into()),
                    suppressed: None,
                },
                tool: String::new(),
                function: f.display.clone(),
            });
        }
    }
    out
}
