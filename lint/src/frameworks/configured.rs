//! Tool attributes and traits named in the configuration (style `configured`).
//!
//! ```text
//! # idemcheck.toml (or [package.metadata.idemcheck])
//! tool_attributes = ["agent_sdk::tool", "skill"]
//! tool_traits = ["AgentTool"]
//! ```
//! ```text
//! #[agent_sdk::tool(description = "Close a ticket")]
//! async fn close_ticket(id: String) -> Result<(), E> { .. }
//!
//! impl AgentTool for Escalate {
//!     async fn run(&self, args: Value) -> Result<Value, E> { .. }
//! }
//! ```
//!
//! An entry with `::` must equal the whole path of the attribute or trait after `use`
//! resolution; a bare name matches the last segment ([`matches()`]). A configured attribute
//! makes a function a tool as a framework attribute does (named by `name = ".."` or the
//! function). When the configuration names a `tool` attribute, that one marks tools and other
//! crates' `#[tool]` (tracing spans, ...) do not ([`super::tool_attr`]); an attribute with
//! another last segment counts only when no framework attribute marked the function. An impl
//! of a configured trait is a tool whose body is its first method named in
//! [`super::rig::RUN_METHODS`], else one of its methods, named by its `const NAME`, its
//! `fn name`, or the type.

/// Whether a path resolved through `use` is one of the `configured` entries
/// (`tool_attributes` or `tool_traits`): the whole path for an entry with `::`, the last
/// segment for a bare name.
pub fn matches(configured: &[String], resolved: &[String]) -> bool {
    let joined = resolved.join("::");
    configured.iter().any(|c| {
        let c = c.trim_start_matches("::");
        if c.contains("::") {
            joined == c
        } else {
            resolved.last().is_some_and(|l| l == c)
        }
    })
}

/// The last segments of the configured tool attributes: the attributes the collector looks at
/// closely, whatever they resolve to.
pub fn last_segments(tool_attributes: &[String]) -> Vec<String> {
    tool_attributes
        .iter()
        .filter_map(|a| a.rsplit("::").next().map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frameworks::test_support::rows_with;
    use idemcheck_spec::config::Config;

    fn segs(s: &str) -> Vec<String> {
        s.split("::").map(str::to_string).collect()
    }

    #[test]
    fn whole_paths_and_bare_names() {
        let configured = vec!["agent_sdk::tool".to_string(), "::Skill".to_string()];
        assert!(matches(&configured, &segs("agent_sdk::tool")));
        assert!(!matches(&configured, &segs("other::tool")));
        assert!(matches(&configured, &segs("my::skills::Skill")));
        assert!(!matches(&configured, &segs("Skills")));
        assert!(!matches(&[], &segs("agent_sdk::tool")));
        assert_eq!(last_segments(&configured), ["tool", "Skill"]);
    }

    #[test]
    fn configured_attributes_and_traits_make_tools() {
        let src = r#"
use agent_sdk::tool;

#[tool(description = "Close a ticket")]
async fn close_ticket(id: String) -> Result<(), E> {
    reqwest::Client::new().post("https://desk.example/close").send().await?;
    Ok(())
}

#[tracing::instrument]
#[skill]
async fn archive(id: String) { std::fs::remove_file(id).ok(); }

pub struct Escalate;
impl Skill for Escalate {
    const NAME: &'static str = "escalate_ticket";
    async fn run(&self, args: Value) -> Result<Value, E> {
        std::fs::write("escalations", args.to_string())?;
        Ok(Value::Null)
    }
}

impl Display for Escalate {
    fn fmt(&self, f: &mut Formatter) -> fmt::Result { Ok(()) }
}
"#;
        let config = Config {
            tool_attributes: vec!["agent_sdk::tool".into(), "skill".into()],
            tool_traits: vec!["Skill".into()],
            ..Config::default()
        };
        assert_eq!(
            rows_with(src, config),
            [
                (
                    "archive".into(),
                    "archive".into(),
                    "configured".into(),
                    "Write".into()
                ),
                (
                    "close_ticket".into(),
                    "close_ticket".into(),
                    "configured".into(),
                    "Write".into()
                ),
                (
                    "escalate_ticket".into(),
                    "Escalate::run".into(),
                    "configured".into(),
                    "Write".into()
                ),
            ]
        );
        // Unconfigured, the trait impl is no tool and `#[skill]` marks nothing (the
        // `agent_sdk::tool` is another crate's `#[tool]`: `tool-attr`).
        let rows = rows_with(src, Config::default());
        assert_eq!(
            rows.iter()
                .map(|r| (r.0.as_str(), r.2.as_str()))
                .collect::<Vec<_>>(),
            [("close_ticket", "tool-attr")]
        );
    }
}
