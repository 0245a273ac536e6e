//! `IDEM004 unstable_key`, the body-based part: for a write tool without a contract, an
//! idempotency key built from `Uuid::new_v4()`, `rand`, a clock, an attempt counter or a
//! loop index (in the tool or a function it calls), or taken from a key field the model
//! fills in (`args.idempotency_key` of the tool's own argument struct); for a tool with a
//! contract, a `key_fn` whose body (or callees) uses such a source.

use idemcheck_spec::RuleCode;
use idemcheck_spec::rules::idem004_unstable_key::unstable_field_reason;

use super::Hit;
use crate::index::{Index, MAX_DEPTH};
use crate::query::ToolView;

const HELP: &str = "derive the key from the business identifiers of the operation (customer, order, ticket reference) and the run scope, e.g. with `#[side_effect(key = [...])]`";

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
                    let file = &index.file_of(id).rel;
                    out.extend(cx.hit(
                        cx.file,
                        RuleCode::Idem004,
                        call.loc,
                        format!(
                            "`key_fn = {text}` of tool `{}` uses {}, a random or clock source (at {file}:{}), so every attempt gets a new key",
                            tool.name, u.what, u.loc.line
                        ),
                        "a key function must be deterministic: build the key from the arguments, not from randomness or time",
                    ));
                    break;
                }
            }
        }
        return out;
    }
    for (id, _) in index.reachable(body, MAX_DEPTH) {
        let fi = index.fns[id].0;
        for u in index.func(id).unstable.iter().filter(|u| u.in_key) {
            out.extend(cx.hit(
                fi,
                RuleCode::Idem004,
                u.loc,
                format!(
                    "the idempotency key of write tool `{}` comes from {}, which changes on every attempt",
                    tool.name, u.what
                ),
                HELP,
            ));
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
            let reason = unstable_field_reason(&m.field)
                .unwrap_or("is supplied by the model; it can change between retries");
            out.extend(cx.hit(
                cx.file,
                RuleCode::Idem004,
                m.loc,
                format!(
                    "write tool `{}` takes its key from `{}`, which {reason}",
                    tool.name,
                    if m.base == m.field {
                        m.field.clone()
                    } else {
                        format!("{}.{}", m.base, m.field)
                    }
                ),
                HELP,
            ));
        }
    }
    out
}
