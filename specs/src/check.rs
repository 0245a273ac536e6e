//! The one rule implementation both the `#[side_effect]` macro and `cargo idemcheck` run on
//! a contract: [`check_contract`] judges a parsed attribute against the function signature,
//! the framework hints stacked on it and the configuration, and [`apply_allows`] applies
//! its `allow(...)` suppressions.

use proc_macro2::{Punct, Spacing, Span, TokenStream};
use quote::{ToTokens, TokenStreamExt};

use crate::attr::{Allow, KeyAttr, SideEffectAttr};
use crate::config::Config;
use crate::hints::ToolHints;
use crate::model::{KeyDerivation, RuleCode, Severity, Suppression, ToolContract, ToolKind};
use crate::signature::{ResolvedField, ToolSignature};

/// A source range given by the spans of its first and last token.
///
/// Kept as two spans (not one joined span) because joining spans is not possible inside a
/// procedural macro on stable Rust; `syn::Error::new_spanned` understands the pair.
#[derive(Debug, Clone, Copy)]
pub struct SpanRange {
    /// Span of the first token.
    pub start: Span,
    /// Span of the last token.
    pub end: Span,
}

impl SpanRange {
    /// The range covered by `tokens`.
    pub fn of(tokens: &impl ToTokens) -> Self {
        let mut iter = tokens.to_token_stream().into_iter();
        let start = iter.next().map_or_else(Span::call_site, |t| t.span());
        let end = iter.last().map_or(start, |t| t.span());
        SpanRange { start, end }
    }

    /// A compile error covering this range.
    pub fn error(&self, message: impl std::fmt::Display) -> syn::Error {
        syn::Error::new_spanned(self, message)
    }
}

impl From<Span> for SpanRange {
    fn from(span: Span) -> Self {
        SpanRange {
            start: span,
            end: span,
        }
    }
}

impl ToTokens for SpanRange {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let mut a = Punct::new('#', Spacing::Alone);
        a.set_span(self.start);
        let mut b = Punct::new('#', Spacing::Alone);
        b.set_span(self.end);
        tokens.append(a);
        tokens.append(b);
    }
}

/// One rule violation on a contract.
#[derive(Debug, Clone)]
pub struct Violation {
    /// The rule.
    pub code: RuleCode,
    /// Severity after configuration.
    pub severity: Severity,
    /// The exact tokens at fault.
    pub span: SpanRange,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: Option<String>,
    /// The reason of the `allow(...)` that silenced it, if any.
    pub suppressed: Option<String>,
}

impl Violation {
    /// `message` followed by the help text, as one compile-error message.
    pub fn compile_message(&self) -> String {
        let info = crate::rules::info(self.code);
        match &self.help {
            Some(help) => format!(
                "{}[{}]: {}\nhelp: {help}",
                info.code, info.name, self.message
            ),
            None => format!("{}[{}]: {}", info.code, info.name, self.message),
        }
    }
}

/// What a contract is checked against.
#[derive(Debug, Clone, Copy)]
pub struct CheckInput<'a> {
    /// The parsed attribute.
    pub attr: &'a SideEffectAttr,
    /// The tool function's signature.
    pub sig: &'a syn::Signature,
    /// Hints of a framework attribute stacked on the function (rmcp `#[tool]`).
    pub hints: Option<&'a ToolHints>,
    /// Configuration in force.
    pub config: &'a Config,
}

/// The rule-check context handed to each rule module.
#[derive(Debug)]
pub(crate) struct Cx<'a> {
    pub(crate) attr: &'a SideEffectAttr,
    pub(crate) sig: &'a syn::Signature,
    pub(crate) hints: Option<&'a ToolHints>,
    pub(crate) config: &'a Config,
    pub(crate) kind: ToolKind,
    pub(crate) tool_name: String,
}

impl Cx<'_> {
    pub(crate) fn fn_span(&self) -> SpanRange {
        self.sig.ident.span().into()
    }

    pub(crate) fn violation(
        &self,
        code: RuleCode,
        span: SpanRange,
        message: String,
        help: impl Into<String>,
    ) -> Violation {
        Violation {
            code,
            severity: crate::rules::info(code).default_severity,
            span,
            message,
            help: Some(help.into()),
            suppressed: None,
        }
    }
}

/// The verdict on one contract.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// Violations at their configured severity (rules set to `allow` are left out);
    /// suppressions are not applied yet (see [`apply_allows`]).
    pub violations: Vec<Violation>,
    /// The classified signature.
    pub signature: ToolSignature,
    /// `key = [...]` entries resolved against the signature (empty for `key_fn` or no key,
    /// or when resolution failed; failures are `IDEM011` violations).
    pub key_fields: Vec<ResolvedField>,
}

impl Verdict {
    /// Whether any unsuppressed error remains.
    pub fn has_errors(&self) -> bool {
        self.violations
            .iter()
            .any(|v| v.severity == Severity::Error && v.suppressed.is_none())
    }
}

/// The public name of a tool: `name = ".."` of the contract, else the name of a stacked
/// framework attribute, else the function's name.
pub fn tool_name(attr: &SideEffectAttr, sig: &syn::Signature, hints: Option<&ToolHints>) -> String {
    attr.name
        .as_ref()
        .map(|n| n.value())
        .or_else(|| hints.and_then(|h| h.name_text.clone()))
        .unwrap_or_else(|| sig.ident.to_string())
}

/// Judge a contract. Both the macro and the lint call this.
pub fn check_contract(input: CheckInput<'_>) -> Verdict {
    let signature = ToolSignature::new(input.sig);
    let cx = Cx {
        attr: input.attr,
        sig: input.sig,
        hints: input.hints,
        config: input.config,
        kind: input.attr.kind(),
        tool_name: tool_name(input.attr, input.sig, input.hints),
    };
    let mut violations = Vec::new();
    let mut key_fields = Vec::new();
    if let Some(KeyAttr::Fields { fields, .. }) = &input.attr.key {
        match signature.resolve_key(fields) {
            Ok(resolved) => key_fields = resolved,
            Err(errors) => {
                for e in errors {
                    violations.push(Violation {
                        code: RuleCode::Idem011,
                        severity: Severity::Error,
                        span: e.span().into(),
                        message: e.to_string(),
                        help: None,
                        suppressed: None,
                    });
                }
            }
        }
    }
    crate::rules::idem001_missing_key::check(&cx, &mut violations);
    crate::rules::idem002_missing_verify::check(&cx, &mut violations);
    crate::rules::idem003_missing_retry_cap::check(&cx, &mut violations);
    crate::rules::idem004_unstable_key::check(&cx, &mut violations);
    crate::rules::idem005_retry_cap_too_high::check(&cx, &mut violations);
    crate::rules::idem007_annotation_mismatch::check(&cx, &mut violations);
    crate::rules::idem009_unbounded_in_flight::check(&cx, &mut violations);
    violations.retain_mut(|v| match input.config.severity(v.code) {
        Some(sev) => {
            v.severity = sev;
            true
        }
        None => false,
    });
    Verdict {
        violations,
        signature,
        key_fields,
    }
}

/// A suppression entry and whether it silenced anything.
#[derive(Debug, Clone)]
pub struct AllowUse {
    /// The rule it names.
    pub code: RuleCode,
    /// Where the rule is named.
    pub span: Span,
    /// Whether it silenced at least one violation.
    pub used: bool,
}

/// Mark the violations that `allows` silence; return each allowed rule with whether it was
/// used (the lint reports unused ones as `IDEM010`). What can be suppressed is decided by
/// [`crate::rules::idem010_unused_suppression::suppressible`].
pub fn apply_allows(violations: &mut [Violation], allows: &[Allow]) -> Vec<AllowUse> {
    let mut uses = Vec::new();
    for allow in allows {
        for rule in &allow.rules {
            let mut used = false;
            for v in violations.iter_mut() {
                if v.code == rule.value
                    && crate::rules::idem010_unused_suppression::suppressible(v.code)
                {
                    v.suppressed = Some(allow.reason.value());
                    used = true;
                }
            }
            uses.push(AllowUse {
                code: rule.value,
                span: rule.span,
                used,
            });
        }
    }
    uses
}

/// The contract a `#[side_effect]` attribute declares, as data.
pub fn contract_of(
    attr: &SideEffectAttr,
    sig: &syn::Signature,
    hints: Option<&ToolHints>,
    function: impl Into<String>,
) -> ToolContract {
    let path_text = |p: &syn::Path| p.to_token_stream().to_string().replace(' ', "");
    ToolContract {
        name: tool_name(attr, sig, hints),
        function: function.into(),
        kind: attr.kind(),
        key: attr.key.as_ref().map(|k| match k {
            KeyAttr::Fields { fields, .. } => KeyDerivation::Fields {
                fields: fields.iter().map(|f| f.text.clone()).collect(),
            },
            KeyAttr::Function(p) => KeyDerivation::Function { path: path_text(p) },
        }),
        key_context: attr
            .key_context
            .as_ref()
            .map(|k| k.parts.iter().map(|p| p.value).collect())
            .unwrap_or_default(),
        verify: attr.verify.as_ref().map(path_text),
        no_postcondition: attr.verify_none.is_some(),
        max_retries: attr.max_retries.map(|m| m.value),
        timeout_ms: attr.timeout_ms.map(|t| t.value),
        settle_ms: attr.settle_ms.map(|t| t.value),
        ttl_hours: attr
            .ttl_hours
            .map_or(crate::model::DEFAULT_TTL_HOURS, |t| t.value),
        server_dedup: attr.server_dedup.is_some_and(|d| d.value),
        suppressions: attr
            .allows
            .iter()
            .map(|a| Suppression {
                rules: a.rules.iter().map(|r| r.value).collect(),
                reason: a.reason.value(),
            })
            .collect(),
    }
}
