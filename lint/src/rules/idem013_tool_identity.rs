//! `IDEM013 tool_identity`: two guarded tools of the workspace share one identity (the name
//! their keys, ledger records and escalations carry). The contradiction between a rig
//! `Tool::call`'s `name = ".."` and its `NAME` is found per file
//! (`collect::tools::rig_guarded_identity`) and passed through with the contract findings.

use std::collections::{BTreeMap, BTreeSet};

use idemcheck_spec::model::KeyDerivation;
use idemcheck_spec::{RuleCode, ToolKind};

use super::{Hit, ToolCx};
use crate::index::Index;

/// The guarded write tools seen so far, by identity.
#[derive(Debug, Default)]
pub struct Identities {
    /// Identity → (file index, location, Rust function, severity-bearing finding builder
    /// input) of every guarded write tool with it, in the order the tools were judged.
    seen: BTreeMap<String, Vec<Site>>,
}

#[derive(Debug)]
struct Site {
    file: usize,
    hit: Option<Hit>,
    function: String,
    line: u32,
    /// The guarded function whose raw body this tool calls, if any: the two guard one
    /// operation, layered (an rmcp method over a guarded function), and share its identity
    /// on purpose.
    wraps: Option<String>,
    /// The key's field names (canonical JSON sorts them, so their order does not matter), or
    /// `None` for a `key_fn` (what it returns may look like anything).
    fields: Option<BTreeSet<String>>,
}

impl Identities {
    /// Note a judged tool: only guarded write tools have an identity that keys anything.
    pub fn note(&mut self, index: &Index<'_>, cx: &ToolCx<'_>) {
        let Some(contract) = cx
            .tool
            .contract
            .as_ref()
            .filter(|c| cx.tool.has_contract && c.kind == ToolKind::Write)
        else {
            return;
        };
        let fields = match &contract.key {
            Some(KeyDerivation::Fields { fields }) => Some(fields.iter().cloned().collect()),
            _ => None,
        };
        let loc = cx.tool.contract_loc.unwrap_or(cx.tool.loc);
        // The finding is built now (the configured severity of the tool's crate), its
        // message once every tool is known.
        let hit = cx.hit(
            cx.file,
            RuleCode::Idem013,
            loc,
            String::new(),
            String::new(),
        );
        // A guarded method whose body calls a guarded function's raw body directly.
        let wraps = cx.body.and_then(|body| {
            index.func(body).calls.iter().find_map(|call| {
                index
                    .resolve_from(body, call)
                    .into_iter()
                    .find(|id| index.guarded_name(*id).is_some())
                    .map(|id| {
                        let f = index.func(id);
                        match f.module.is_empty() {
                            true => f.name.clone(),
                            false => format!("{}::{}", f.module, f.name),
                        }
                    })
            })
        });
        self.seen
            .entry(cx.tool.name.clone())
            .or_default()
            .push(Site {
                file: cx.file,
                hit,
                function: cx.function.clone(),
                line: loc.line,
                wraps,
                fields,
            });
    }

    /// One finding per tool that shares its identity with another.
    pub fn findings(self, index: &Index<'_>) -> Vec<Hit> {
        let mut out = Vec::new();
        for (name, sites) in self.seen {
            if sites.len() < 2 {
                continue;
            }
            for (i, site) in sites.iter().enumerate() {
                let Some(mut hit) = site.hit.clone() else {
                    continue;
                };
                // Keys of other field names never meet (the field names are in the key);
                // a guard layered over another guards the same operation.
                let collide = |a: &Site, b: &Site| {
                    let layered = a.wraps.as_deref() == Some(b.function.as_str())
                        || b.wraps.as_deref() == Some(a.function.as_str());
                    let same_fields = match (&a.fields, &b.fields) {
                        (Some(x), Some(y)) => x == y,
                        _ => true,
                    };
                    same_fields && !layered
                };
                let others: Vec<String> = sites
                    .iter()
                    .enumerate()
                    .filter(|(j, o)| *j != i && collide(site, o))
                    .map(|(_, o)| {
                        format!("`{}` at {}:{}", o.function, index.files[o.file].rel, o.line)
                    })
                    .collect();
                if others.is_empty() {
                    continue;
                }
                hit.finding.message = format!(
                    "guarded tool `{}` has the identity `{name}` and the same key fields as {}: both derive their keys, ledger records and escalations from them, so two different operations on the same values collide and the second returns the first one's stored result without running",
                    site.function,
                    others.join(" and ")
                );
                hit.finding.help = Some(format!(
                    "give each its own name in the contract, e.g. `name = \"{}\"`",
                    qualified(&site.function, &name)
                ));
                out.push(hit);
            }
        }
        out
    }
}

/// A suggested identity for `function`: its type (or module) and the tool name,
/// `tickets.create`.
fn qualified(function: &str, name: &str) -> String {
    let mut parts: Vec<&str> = function.split("::").collect();
    parts.pop();
    match parts.last() {
        Some(owner) => format!("{}.{name}", owner.to_ascii_lowercase()),
        None => format!("{name}_2"),
    }
}

#[cfg(test)]
mod tests {
    use super::qualified;

    #[test]
    fn a_suggested_identity_names_the_owner() {
        assert_eq!(qualified("Tickets::create", "create"), "tickets.create");
        assert_eq!(qualified("billing::charge", "charge"), "billing.charge");
        assert_eq!(qualified("charge", "charge"), "charge_2");
    }
}
