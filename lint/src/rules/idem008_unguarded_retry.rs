//! `IDEM008 unguarded_retry`, the gathering: the retry loops and combinators (backon,
//! tokio-retry, backoff, ...) around writes in a tool or a workspace function it calls, and
//! HTTP clients built with reqwest-middleware's retry layer in crates whose tools write over
//! HTTP. What they mean, and the words of the findings, are the rule's, in
//! `idemcheck_spec::rules::idem008_unguarded_retry`.

use std::collections::BTreeSet;
use std::sync::Arc;

use idemcheck_spec::RuleCode;
use idemcheck_spec::config::Config;
use idemcheck_spec::rules::idem008_unguarded_retry::{
    RetriedWrite, middleware as middleware_finding, retried_write,
};

use super::{Hit, ToolCx};
use crate::facts::{LocFinding, RetryLoop, RetryShape};
use crate::index::{FnId, Index, MAX_DEPTH};
use crate::judge::describe_write;

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

/// The plain fact `specs` judges, for one retried write.
pub fn fact<'a>(
    index: &'a Index<'_>,
    id: FnId,
    r: &'a RetryLoop,
    write: &'a str,
) -> RetriedWrite<'a> {
    RetriedWrite {
        function: &index.func(id).display,
        shape: &r.shape,
        bounded: r.bounded,
        write,
    }
}

/// Retry loops around writes reachable from the tool.
pub fn check(index: &Index<'_>, cx: &ToolCx<'_>) -> Vec<Hit> {
    retried_writes(index, cx)
        .into_iter()
        .filter_map(|(id, r, write)| {
            let (message, help) = retried_write(&fact(index, id, r, &write));
            cx.hit(index.fns[id].0, RuleCode::Idem008, r.loc, message, help)
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
        let (message, help) = middleware_finding(&f.display);
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
                    message: message.clone(),
                    help: Some(help.into()),
                    suppressed: None,
                },
                tool: String::new(),
                function: f.display.clone(),
            });
        }
    }
    out
}
