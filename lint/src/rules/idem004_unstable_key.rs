//! `IDEM004 unstable_key`, the body-based part: for a write tool without a contract, an
//! idempotency key built from `Uuid::new_v4()`, `rand`, a clock, an attempt counter or a
//! loop index (in the tool or a function it calls), or taken from a key field the model
//! fills in (`args.idempotency_key` of the tool's own argument struct); for a tool with a
//! contract, a `key_fn` whose body (or callees) uses such a source. This file gathers the
//! facts through the index; `idemcheck_spec::rules::idem004_unstable_key::check_body` judges
//! them and words the findings.

use idemcheck_spec::RuleCode;
use idemcheck_spec::rules::idem004_unstable_key::{KeyFact, check_body};

use super::Hit;
use crate::index::{Index, MAX_DEPTH};
use crate::query::ToolView;

/// Check a tool's keys.
pub fn check(index: &Index<'_>, view: &ToolView<'_>) -> Vec<Hit> {
    let cx = &view.cx;
    let mut out = Vec::new();
    let (Some(body), true) = (cx.body, cx.write.is_some()) else {
        return out;
    };
    let tool = cx.tool;
    if tool.has_contract {
        let Some(key_fn) = &view.key_fn else {
            return out;
        };
        let (call, text) = (key_fn.call, key_fn.text);
        if let Some(kf) = key_fn.found {
            for (id, _) in index.reachable(kf, MAX_DEPTH) {
                if let Some(u) = index.func(id).unstable.first() {
                    let at = format!("{}:{}", index.file_of(id).rel, u.loc.line);
                    let fact = KeyFact::KeyFnUnstable {
                        key_fn: text,
                        source: &u.what,
                        at: &at,
                    };
                    let (message, help) = check_body(&tool.name, fact);
                    out.extend(cx.hit(cx.file, RuleCode::Idem004, call.loc, message, help));
                    break;
                }
            }
        }
        return out;
    }
    for (id, _) in index.reachable(body, MAX_DEPTH) {
        let fi = index.fns[id].0;
        for u in index.func(id).unstable.iter().filter(|u| u.in_key) {
            let fact = KeyFact::FromUnstable { source: &u.what };
            let (message, help) = check_body(&tool.name, fact);
            out.extend(cx.hit(fi, RuleCode::Idem004, u.loc, message, help));
        }
    }
    // Model-supplied key fields, read in the tool's own body.
    let fields_of_inputs = |field: &str| {
        tool.input_types.iter().any(|ty| {
            index
                .files
                .iter()
                .any(|f| f.fields.iter().any(|(s, n, _)| s == ty && n == field))
        })
    };
    let f = index.func(body);
    for m in &f.model_keys {
        let is_input = tool.inputs.contains(&m.base);
        if is_input
            && (m.base == m.field || fields_of_inputs(&m.field) || tool.input_types.is_empty())
        {
            let shown = if m.base == m.field {
                m.field.clone()
            } else {
                format!("{}.{}", m.base, m.field)
            };
            let fact = KeyFact::FromModel {
                shown: &shown,
                field: &m.field,
            };
            let (message, help) = check_body(&tool.name, fact);
            out.extend(cx.hit(cx.file, RuleCode::Idem004, m.loc, message, help));
        }
    }
    out
}
